"""What the web page reads that the API gained for it: distances with their levels, highlights,
overview fields, /v1/server, eval reports, the read key, and refusing other sites' writes."""

import json

import pytest
from fastapi.testclient import TestClient

from schema_search.eval_reports import report_path
from schema_search.http import create_app
from schema_search.workspace import Workspace

from ..conftest import tiny_catalog

PROBLEM = "application/problem+json"


@pytest.fixture
def client(tiny_workspace):
    return TestClient(create_app(workspace=tiny_workspace))


def _problem(response, status, code):
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM
    body = response.json()
    assert body["code"] == code and body["detail"] and body["hint"]
    return body


def test_each_candidate_has_its_distance_read_against_the_catalogs_levels(client):
    body = client.post("/v1/catalogs/tiny/search", json={"question": "email addresses of contacts", "k": 3}).json()
    first = body["candidates"][0]
    assert first["table"] == "crm.contacts"
    assert 0 < first["distance"] < body["unrelated_distance"] <= body["floor_distance"] <= 2
    assert body["nearest_distance"] == min(c["distance"] for c in body["candidates"])
    info = client.get("/v1/catalogs/tiny").json()
    assert (info["unrelated_distance"], info["floor_distance"]) == (body["unrelated_distance"], body["floor_distance"])
    assert info["dense"] and info["embedding_model"]


def test_a_score_is_read_as_its_channels_contributions_plus_the_foreign_key_boost(client, handbook_workspace):
    body = client.post("/v1/catalogs/tiny/search", json={"question": "contacts on a mailing list", "k": 5}).json()
    weights, k = body["channel_weights"], body["rrf_k"]
    assert k == 5 and weights["dense"] > 0 and weights["descriptions"] == 0  # no table of tiny is described

    def fused(result):
        return sum(weights[c] / (k + rank) for c, rank in result["channels"].items() if rank is not None)

    boosts = [c["score"] - fused(c) for c in body["candidates"]]
    assert all(boost >= -1e-5 for boost in boosts) and any(boost > 1e-3 for boost in boosts)  # tiny's tables join
    # Passages have no boost: the score is the channels' sum (the page channel counts a passage at its page's rank).
    docs = (
        TestClient(create_app(workspace=handbook_workspace))
        .post("/v1/corpora/handbook/search", json={"question": "Who approves refunds?", "k": 3})
        .json()
    )
    weights, k = docs["channel_weights"], docs["rrf_k"]
    assert all(abs(r["score"] - fused(r)) < 1e-5 for r in docs["results"])


def test_highlight_gives_the_words_as_the_table_writes_them(client):
    body = client.post("/v1/catalogs/tiny/search", json={"question": "Which contacts have emails?", "k": 1}).json()
    first = body["candidates"][0]
    # "contacts" and "emails" stem to the terms the table matched; the page marks the table's own words.
    assert {"contact", "email"} <= set(first["matched_terms"])
    assert {"contacts", "email"} <= set(first["highlight"])
    assert all(word == word.lower() for word in first["highlight"])


def test_an_off_topic_search_still_says_where_the_nearest_table_and_unrelated_text_sit(client):
    body = client.post("/v1/catalogs/tiny/search", json={"question": "How do I bake sourdough bread?"}).json()
    assert body["off_topic"] and body["candidates"] == []
    assert body["nearest_distance"] > body["unrelated_distance"]


def test_passages_carry_highlights_and_the_response_its_levels(handbook_workspace):
    client = TestClient(create_app(workspace=handbook_workspace))
    body = client.post("/v1/corpora/handbook/search", json={"question": "Who approves refunds?", "k": 3}).json()
    first = body["results"][0]
    assert any(word.startswith("refund") for word in first["highlight"])
    assert all(word.lower() in first["text"].lower() for word in first["highlight"])
    assert body["unrelated_distance"] == first["unrelated_distance"] and body["floor_distance"] > 0
    info = client.get("/v1/corpora/handbook").json()
    assert info["floor_distance"] == body["floor_distance"] and info["embedding_model"]


def test_the_overview_counts_generated_descriptions(workspace):
    from dataclasses import replace

    from schema_search.tables.catalog import Description

    catalog = tiny_catalog()
    described = [
        replace(t, description=Description("About contacts.", "local/smollm2", "v1", "2026-11-30T10:00:00Z", "h"))
        if t.name == "contacts"
        else t
        for t in catalog.tables
    ]
    workspace.catalogs.index_catalog(replace(catalog, tables=tuple(described)))
    info = TestClient(create_app(workspace=workspace)).get("/v1/catalogs/tiny").json()
    assert (info["described"], info["description_models"], info["described_at"]) == (
        1,
        ["local/smollm2"],
        "2026-11-30T10:00:00Z",
    )


def test_the_page_is_served_at_the_root_with_a_policy_that_allows_only_this_server(client):
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    policy = page.headers["content-security-policy"]
    assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert client.head("/").status_code == 200
    style = client.get("/ui/style.css")
    assert style.status_code == 200 and style.headers["content-security-policy"] == policy
    assert client.get("/ui/no-such-file.js").status_code == 404


def test_server_says_what_it_asks_of_a_client(tiny_workspace):
    plain = TestClient(create_app(workspace=tiny_workspace)).get("/v1/server").json()
    assert plain["reads_need_key"] is False and plain["writes_need_key"] is False and plain["version"]
    keyed = Workspace(tiny_workspace.settings.model_copy(update={"read_key": "r", "admin_key": "a"}))
    info = TestClient(create_app(workspace=keyed)).get("/v1/server").json()  # no key sent: /v1/server needs none
    assert info["reads_need_key"] and info["writes_need_key"]


@pytest.fixture
def keyed(tiny_workspace):
    from pydantic import SecretStr

    settings = tiny_workspace.settings.model_copy(
        update={"read_key": SecretStr("reader"), "admin_key": SecretStr("admin")}
    )
    return TestClient(create_app(workspace=Workspace(settings)))


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("get", "/v1/catalogs", None),
        ("get", "/v1/catalogs/tiny", None),
        ("post", "/v1/catalogs/tiny/search", {"question": "contacts"}),
        ("get", "/v1/catalogs/tiny/tables/crm.contacts", None),
        ("get", "/v1/corpora", None),
        ("get", "/v1/eval", None),
    ],
)
def test_with_a_read_key_set_reads_need_it_or_the_admin_key(keyed, method, path, body):
    call = getattr(keyed, method)
    kwargs = {"json": body} if body is not None else {}
    refused = call(path, **kwargs)
    _problem(refused, 401, "read_key_required")
    assert "X-Read-Key" in refused.headers["www-authenticate"]  # a 401 names how to authenticate
    _problem(call(path, headers={"X-Read-Key": "wrong"}, **kwargs), 401, "read_key_required")
    assert call(path, headers={"X-Read-Key": "reader"}, **kwargs).status_code == 200
    assert call(path, headers={"X-Admin-Key": "admin"}, **kwargs).status_code == 200
    keyed.cookies.set("schema_search_read_key", "reader")  # the page's cookie, for frames
    assert call(path, **kwargs).status_code == 200
    keyed.cookies.clear()


def test_with_a_read_key_set_the_page_probes_and_server_info_need_none(keyed):
    for path in ("/", "/ui/style.css", "/healthz", "/readyz", "/v1/server"):
        assert keyed.get(path).status_code == 200, path


def test_a_write_sent_by_another_sites_page_is_refused_and_changes_nothing(tiny_workspace):
    client = TestClient(create_app(workspace=tiny_workspace), base_url="http://127.0.0.1:8000")
    before = tiny_workspace.catalogs.store.current("tiny").id
    ddl = "CREATE TABLE evil (id INT);"
    sent = {"Content-Type": "text/plain"}
    for browser in (
        {"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"},
        {"Sec-Fetch-Site": "same-site", "Origin": "http://127.0.0.1:3000"},  # another app on this machine
        {"Origin": "https://evil.example"},  # a browser too old for Sec-Fetch-Site
        {"Origin": "null"},  # a sandboxed frame, a file:// page
    ):
        _problem(client.post("/v1/catalogs/tiny", content=ddl, headers=sent | browser), 403, "cross_origin_write")
    _problem(client.delete("/v1/catalogs/tiny", headers={"Sec-Fetch-Site": "cross-site"}), 403, "cross_origin_write")
    assert tiny_workspace.catalogs.store.current("tiny").id == before
    # The server's own page, and clients that are not browsers, may write.
    own = {"Content-Type": "application/sql", "Sec-Fetch-Site": "same-origin", "Origin": "http://127.0.0.1:8000"}
    assert client.post("/v1/catalogs/own", content=ddl, headers=own).status_code == 200
    old_browser = {"Content-Type": "application/sql", "Origin": "http://127.0.0.1:8000"}
    assert client.post("/v1/catalogs/own", content=ddl, headers=old_browser).status_code == 200
    assert (
        client.post("/v1/catalogs/other", content=ddl, headers={"Content-Type": "application/sql"}).status_code == 200
    )
    # A cross-site page may still read what any site may (a GET is not a write).
    assert client.get("/v1/catalogs", headers={"Sec-Fetch-Site": "cross-site"}).status_code == 200


def test_a_loopback_server_answers_browsers_only_by_its_loopback_names(tiny_workspace):
    """DNS rebinding: evil.example made to resolve to 127.0.0.1 is same-origin to the browser."""
    rebound = {"Host": "evil.example:8000", "Sec-Fetch-Site": "same-origin"}
    client = TestClient(create_app(workspace=tiny_workspace))
    _problem(client.get("/v1/catalogs", headers=rebound), 403, "host_not_allowed")
    write = {**rebound, "Content-Type": "application/sql", "Origin": "http://evil.example:8000"}
    _problem(
        client.post("/v1/catalogs/tiny", content="CREATE TABLE x (id INT);", headers=write), 403, "host_not_allowed"
    )
    for name in ("127.0.0.1:8000", "localhost:8000", "[::1]:8000"):
        assert client.get("/v1/catalogs", headers={"Host": name, "Sec-Fetch-Site": "same-origin"}).status_code == 200
    # Clients that are not browsers choose their Host: not checked.
    assert client.get("/v1/catalogs", headers={"Host": "evil.example:8000"}).status_code == 200
    # A proxy's public name is allowed by listing it; a server on all addresses takes any name.
    proxied = tiny_workspace.settings.model_copy(update={"allowed_hosts": ["search.example.com"]})
    behind = {"Host": "search.example.com", "Sec-Fetch-Site": "same-origin"}
    assert TestClient(create_app(workspace=Workspace(proxied))).get("/v1/catalogs", headers=behind).status_code == 200
    public = tiny_workspace.settings.model_copy(update={"host": "0.0.0.0"})
    assert TestClient(create_app(workspace=Workspace(public))).get("/v1/catalogs", headers=rebound).status_code == 200


@pytest.fixture
def reports(tmp_path):
    folder = tmp_path / "results"
    folder.mkdir()
    run = {
        "benchmark": "spider_dev",
        "condition": "pooled",
        "tables": 876,
        "questions": 1034,
        "version": "0.1.0",
        "results": [
            {"config": "default", "recall@1": 0.35, "recall@5": 0.89, "mrr": 0.81, "p50_ms": 9.2},
            {"config": "body", "recall@1": 0.2, "recall@5": 0.7, "mrr": 0.6},
        ],
    }
    (folder / "spider_dev-pooled.json").write_text(json.dumps(run))
    (folder / "spider_dev-pooled.html").write_text(
        "<!DOCTYPE html><p>schemasift 0.1.0 · generated 2026-12-02 00:07</p>"
    )
    docs = {
        "corpus": "fastapi",
        "sets": {"dev": [{"config": "default", "questions": 32, "page_recall@1": 0.9, "mrr": 0.95}]},
    }
    (folder / "docs-fastapi.json").write_text(json.dumps(docs))
    (folder / "speed.json").write_text(json.dumps({"p50_ms": 3}))  # not a recall report: not listed
    (folder / "broken.json").write_text("{not json")
    return folder


def test_eval_reports_are_listed_newest_first_with_the_shipped_configs_recall(reports, tiny_workspace):
    settings = tiny_workspace.settings.model_copy(update={"eval_results": reports})
    client = TestClient(create_app(workspace=Workspace(settings)))
    listed = client.get("/v1/eval").json()
    assert [r["name"] for r in listed] == ["spider_dev-pooled", "docs-fastapi"]
    tables, docs = listed
    assert tables["headline"] == {"recall@1": 0.35, "recall@5": 0.89, "mrr": 0.81}
    assert tables["generated_at"] == "2026-12-02 00:07" and tables["configs"] == ["default", "body"]
    assert tables["page"] == "/v1/eval/spider_dev-pooled/page" and docs["page"] is None
    assert (
        docs["kind"] == "docs" and docs["headline"] == {"page_recall@1": 0.9, "mrr": 0.95} and docs["questions"] == 32
    )
    page = client.get(tables["page"])
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "default-src 'none'" in page.headers["content-security-policy"]
    assert client.get("/v1/eval/spider_dev-pooled").json()["tables"] == 876
    for missing in ("/v1/eval/nope", "/v1/eval/docs-fastapi/page", "/v1/eval/speed", "/v1/eval/broken"):
        _problem(client.get(missing), 404, "report_not_found")
    # A name that would leave the folder is no report's name (the router refuses an encoded
    # slash before the name check runs, so the check is tested itself).
    for name in ("..", "../spider_dev-pooled", "/etc/passwd", ".hidden", "spider_dev-pooled/../x"):
        assert report_path(reports, name, ".json") is None, name
    assert report_path(reports, "spider_dev-pooled", ".json") == reports / "spider_dev-pooled.json"


def test_the_published_eval_results_are_listed_by_default(client):
    listed = client.get("/v1/eval").json()
    names = {r["name"] for r in listed}
    assert {"spider_dev-pooled", "bird_dev-per-db"} <= names
    assert all(r["page"] for r in listed if r["kind"] == "tables")


def test_a_host_is_compared_whole_and_a_repeated_browser_header_refused(tiny_workspace):
    """``localhost:8000.evil.example`` is not ``localhost``; a browser sends Host, Origin and Sec-Fetch-Site once."""
    client = TestClient(create_app(workspace=tiny_workspace))
    suffixed = {"Host": "localhost:8000.evil.example", "Sec-Fetch-Site": "same-origin"}
    _problem(client.get("/v1/catalogs", headers=suffixed), 403, "host_not_allowed")
    ddl = "CREATE TABLE twice (id INT);"
    for name, values in (("Origin", ["http://127.0.0.1:8000", "https://evil.example"]),
                         ("Sec-Fetch-Site", ["same-origin", "cross-site"])):  # fmt: skip
        headers = [("Host", "127.0.0.1:8000"), ("Content-Type", "application/sql"), *((name, v) for v in values)]
        _problem(client.post("/v1/catalogs/twice", content=ddl, headers=headers), 403, "cross_origin_write")
    doubled_host = [("Host", "127.0.0.1:8000"), ("Host", "evil.example"), ("Sec-Fetch-Site", "same-origin")]
    _problem(client.get("/v1/catalogs", headers=doubled_host), 403, "host_not_allowed")
    assert (
        client.get("/v1/catalogs", headers={"Host": "127.0.0.1:8000", "Sec-Fetch-Site": "same-origin"}).status_code
        == 200
    )


def test_a_candidate_carries_its_ddl_trimmed_to_the_named_columns_and_the_keys(client):
    body = client.post("/v1/catalogs/tiny/search", json={"question": "industry of each account", "k": 3}).json()
    accounts = next(c for c in body["candidates"] if c["table"] == "crm.accounts")
    assert "industry" in accounts["matched_columns"]
    # The key stays, the unnamed column goes; the whole DDL keeps every column.
    assert "id BIGINT NOT NULL" in accounts["ddl_trimmed"] and "industry TEXT" in accounts["ddl_trimmed"]
    assert "name TEXT" not in accounts["ddl_trimmed"] and "name TEXT" in accounts["ddl"]
