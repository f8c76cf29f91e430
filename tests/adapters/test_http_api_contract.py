"""The HTTP API's contract: the OpenAPI document, offline /docs, problem titles and codes,
uploads checked by what they are, liveness and readiness, and DELETE."""

from __future__ import annotations

import fcntl
import re
import threading
import time
from http import HTTPStatus

import pytest
from fastapi.testclient import TestClient

from schema_search.core.store import LOCK_FILE
from schema_search.errors import ModelUnavailable
from schema_search.http import create_app
from schema_search.settings import Settings
from schema_search.tables.catalog import Catalog, Column, Table
from schema_search.workspace import Workspace

from ..conftest import tiny_catalog

PROBLEM = "application/problem+json"
PROBLEM_REF = {"schema": {"$ref": "#/components/schemas/Problem"}}
DDL = "-- the shop\nCREATE TABLE crm.accounts (id BIGINT PRIMARY KEY, name TEXT);\n"
FORM = (
    b"--XyZ\r\n"
    b'Content-Disposition: form-data; name="file"; filename="schema.sql"\r\n'
    b"Content-Type: application/sql\r\n\r\n"
    b"CREATE TABLE crm.accounts (id BIGINT PRIMARY KEY, name TEXT);\r\n"
    b"--XyZ--\r\n"
)


def _workspace(tmp_path, **settings) -> Workspace:
    workspace = Workspace(Settings(home=tmp_path / "home", dense=False, **settings))
    workspace.catalogs.index_catalog(tiny_catalog())
    workspace.catalogs.index_catalog(tiny_catalog("other"))
    return workspace


@pytest.fixture
def client(tmp_path):
    return TestClient(create_app(workspace=_workspace(tmp_path)))


def _problem(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM
    body = response.json()
    assert body["status"] == status and body["code"] == code and body["detail"], body
    return body


def _operations(schema):
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            yield f"{method.upper()} {path}", operation


# -- the OpenAPI document ---------------------------------------------------------------


def test_the_openapi_document_is_valid_and_every_error_is_a_problem(client):
    validator = pytest.importorskip("openapi_spec_validator", reason="the test extra installs it")
    schema = client.get("/openapi.json").json()
    validator.validate(schema)
    assert not {"HTTPValidationError", "ValidationError"} & set(schema["components"]["schemas"])
    for label, operation in _operations(schema):
        for status, response in operation["responses"].items():
            if not status.startswith("2"):
                assert response["content"] == {PROBLEM: PROBLEM_REF}, (label, status)
    assert "code" in schema["components"]["schemas"]["Problem"]["required"]


def test_each_route_declares_what_it_answers(client):
    operations = dict(_operations(client.get("/openapi.json").json()))
    # Every route that opens a collection loads the model when the dense channel is on: 503 when it cannot.
    for label in (
        "GET /v1/catalogs",
        "GET /v1/catalogs/{name}",
        "GET /v1/catalogs/{name}/tables/{table}",
        "GET /v1/catalogs/{name}/fields",
        "POST /v1/catalogs/{name}/query",
        "GET /v1/corpora",
        "GET /v1/corpora/{name}/documents/{source_id}",
        "POST /v1/corpora/{name}/query",
    ):
        assert "503" in operations[label]["responses"], label
    assert {"409", "503"} <= set(operations["GET /v1/catalogs"]["responses"])  # one collection that cannot open
    assert {"404", "409", "503"} <= set(operations["GET /v1/catalogs/{name}/tables/{table}"]["responses"])
    for kind in ("catalogs", "corpora"):
        delete = operations[f"DELETE /v1/{kind}/{{name}}"]
        assert {"204", "401", "403", "404", "409", "422", "429"} == set(delete["responses"])
        assert "content" not in delete["responses"]["204"]


def test_a_route_answers_503_where_its_document_says_so(tmp_path, monkeypatch):
    """Opening a catalog with the dense channel on needs the model: a model that cannot load is a 503."""
    _workspace(tmp_path)  # indexed without the dense channel
    workspace = Workspace(Settings(home=tmp_path / "home", dense=True))

    def unavailable():
        raise ModelUnavailable("No model here.", hint="Set SCHEMA_SEARCH_DENSE=false.")

    monkeypatch.setattr(workspace, "embedder", unavailable)  # the model, not the API under test
    client = TestClient(create_app(workspace=workspace))
    operations = dict(_operations(client.get("/openapi.json").json()))
    for label, path in (
        ("GET /v1/catalogs", "/v1/catalogs"),
        ("GET /v1/catalogs/{name}/tables/{table}", "/v1/catalogs/tiny/tables/crm.accounts"),
    ):
        _problem(client.get(path), 503, "model_unavailable")
        assert "503" in operations[label]["responses"]


def test_the_writes_need_the_admin_key_where_the_server_sets_one(tmp_path):
    # The writes, running a query on a catalog's database, the review queue and the spaces: the operator's to allow.
    writes = {
        "POST /v1/catalogs/{name}",
        "DELETE /v1/catalogs/{name}",
        "POST /v1/corpora/{name}",
        "DELETE /v1/corpora/{name}",
        "POST /v1/catalogs/{name}/execute",
        "POST /v1/catalogs/{name}/examples",
        # The review queue holds what visitors asked, reads included; spaces and their keys are the operator's.
        "GET /v1/review",
        "GET /v1/review/{entry_id}",
        "PATCH /v1/review/{entry_id}",
        "POST /v1/review/{entry_id}/approve",
        "POST /v1/review/{entry_id}/reject",
        "GET /v1/spaces",
        "POST /v1/spaces/{space}",
        "DELETE /v1/spaces/{space}",
        "GET /v1/spaces/{space}/keys",
        "POST /v1/spaces/{space}/keys",
        "DELETE /v1/spaces/{space}/keys/{key_id}",
    }
    keyed = TestClient(create_app(workspace=_workspace(tmp_path / "a", admin_key="s3cret"))).get("/openapi.json").json()
    assert keyed["components"]["securitySchemes"]["AdminKey"] | {"description": ""} == {
        "type": "apiKey",
        "in": "header",
        "name": "X-Admin-Key",
        "description": "",
    }
    for label, operation in _operations(keyed):
        assert operation.get("security") == ([{"AdminKey": []}] if label in writes else None), label
    # Without a key configured, writes take no credentials: the document says so.
    open_ = TestClient(create_app(workspace=_workspace(tmp_path / "b"))).get("/openapi.json").json()
    for label, operation in _operations(open_):
        assert operation.get("security") == ([{}, {"AdminKey": []}] if label in writes else None), label


# -- /docs without the internet -----------------------------------------------------------


@pytest.mark.parametrize(
    ("page", "types"), [("/docs", ("javascript", "css", "image/png")), ("/redoc", ("javascript", "image/png"))]
)
def test_the_docs_pages_load_only_files_of_this_server(client, page, types):
    response = client.get(page)
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
    html = response.text
    assert "://" not in html, "a page that loads from another host is blank offline"
    urls = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert len(urls) == len(types)
    for url, _kind in zip(sorted(urls, key=lambda u: u.rsplit(".", 1)[-1]), sorted(types)):
        asset = client.get(url)
        assert asset.status_code == 200 and asset.content, url
        assert any(t in asset.headers["content-type"] for t in types), (url, asset.headers["content-type"])
    assert "'/openapi.json'" in html or '"/openapi.json"' in html
    assert client.get("/openapi.json").status_code == 200


def test_swagger_ui_reads_openapi_3_1(client):
    """Swagger UI 4 (the swagger-ui-bundle wheel) cannot render the 3.1 document FastAPI writes."""
    assert client.get("/openapi.json").json()["openapi"].startswith("3.1")
    bundle = client.get("/static/docs/swagger-ui-bundle.js").text
    assert re.search(r'"5\.\d+\.\d+"', bundle), "Swagger UI 5 or later"
    assert '"validatorUrl": null' in client.get("/docs").text  # no badge fetched from validator.swagger.io


# -- problem titles and codes ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path", "kwargs", "status", "code"),
    [
        ("get", "/v1/catalogs/nope", {}, 404, "catalog_not_found"),
        ("get", "/v1/catalogs/tiny/tables/crm.nope", {}, 404, "table_not_found"),
        ("get", "/v1/corpora/nope", {}, 404, "corpus_not_found"),
        ("get", "/v1/nothing", {}, 404, "no_such_route"),
        ("put", "/v1/catalogs/tiny", {}, 405, "method_not_allowed"),
        ("post", "/v1/catalogs/tiny/search", {"json": {"question": "x", "k": 0}}, 422, "invalid_input"),
        ("post", "/v1/catalogs/tiny/search", {"json": {"k": 3}}, 422, "invalid_input"),
        ("post", "/v1/catalogs/tiny/search", {"json": {"question": "x" * 5000}}, 413, "payload_too_large"),
        (
            "post",
            "/v1/catalogs/tiny/search",
            {"content": b"{" * 5000, "headers": {"content-type": "application/json"}},
            422,
            "invalid_input",
        ),
        (
            "post",
            "/v1/catalogs/x",
            {"content": "CREATE TABLE (((", "headers": {"content-type": "text/plain"}},
            400,
            "source_unreadable",
        ),
        (
            "post",
            "/v1/catalogs/x",
            {"content": "x", "headers": {"content-type": "image/png"}},
            415,
            "unsupported_media_type",
        ),
        ("post", "/v1/catalogs/x", {"json": {"url": "sqlite:////etc/passwd"}}, 403, "forbidden"),
    ],
)
def test_a_problem_is_titled_by_its_status_and_named_by_its_code(client, method, path, kwargs, status, code):
    body = _problem(getattr(client, method)(path, **kwargs), status, code)
    assert body["type"] == "about:blank"
    assert body["title"] == {413: "Content Too Large", 422: "Unprocessable Content"}.get(
        status, HTTPStatus(status).phrase
    )


def test_the_body_limit_names_its_code_too(tmp_path):
    small = TestClient(create_app(workspace=_workspace(tmp_path, max_request_bytes=1024)))
    body = _problem(small.post("/v1/catalogs/tiny/search", json={"question": "x" * 2000}), 413, "payload_too_large")
    assert body["title"] == "Content Too Large" and "SCHEMA_SEARCH_MAX_REQUEST_BYTES" in body["detail"]


def test_an_ambiguous_table_name_is_a_conflict_that_lists_the_tables(tmp_path):
    workspace = Workspace(Settings(home=tmp_path / "home", dense=False))
    orders = [Table(schema, "orders", columns=(Column("id", "BIGINT"),)) for schema in ("sales", "archive")]
    workspace.catalogs.index_catalog(Catalog("shop", tuple(orders), source={"kind": "test"}))
    client = TestClient(create_app(workspace=workspace))
    body = _problem(client.get("/v1/catalogs/shop/tables/orders"), 409, "table_ambiguous")
    assert body["title"] == "Conflict" and "ambiguous" in body["detail"]
    assert "sales.orders" in body["hint"] and "archive.orders" in body["hint"]
    assert client.get("/v1/catalogs/shop/tables/sales.orders").json()["table"] == "sales.orders"


# -- uploads are checked by what they are, not only by what they say they are ------------------


def test_a_form_sent_to_the_ddl_route_is_refused_not_parsed(client):
    as_form = client.post("/v1/catalogs/shop", files={"file": ("schema.sql", DDL.encode(), "application/sql")})
    _problem(as_form, 415, "unsupported_media_type")
    # The same envelope with a Content-Type that says text: 415 too, naming what it is.
    body = _problem(
        client.post("/v1/catalogs/shop", content=FORM, headers={"content-type": "text/plain"}),
        415,
        "unsupported_media_type",
    )
    assert "multipart/form-data envelope" in body["detail"] and "--data-binary" in body["hint"]
    assert "shop" not in [c["name"] for c in client.get("/v1/catalogs").json()]
    # DDL that starts with a comment ("--", like a boundary) is DDL.
    assert client.post("/v1/catalogs/shop", content=DDL, headers={"content-type": "application/sql"}).status_code == 200


def test_a_form_sent_as_an_archive_to_the_corpus_route_is_refused(client):
    body = _problem(
        client.post("/v1/corpora/hb", content=FORM, headers={"content-type": "application/zip"}),
        415,
        "unsupported_media_type",
    )
    assert "multipart/form-data" in body["hint"]
    files = {"files": ("refunds.md", b"# Refunds\n\nA refund over 500 EUR needs a manager.\n", "text/markdown")}
    assert client.post("/v1/corpora/hb", files=files).status_code == 200


def test_an_archive_sent_as_ddl_is_refused(client):
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("schema.sql", DDL)
    body = _problem(
        client.post("/v1/catalogs/shop", content=buffer.getvalue(), headers={"content-type": "text/plain"}),
        415,
        "unsupported_media_type",
    )
    assert "zip archive" in body["detail"]


# -- liveness and readiness ---------------------------------------------------------------------


def test_probes_answer_get_and_head(client):
    health = client.get("/healthz")
    assert health.status_code == 200
    assert health.json() | {"version": "v"} == {
        "status": "alive",
        "version": "v",
        "model": "off",
        "catalogs": 2,
        "corpora": 0,
    }
    ready = client.get("/readyz")
    assert ready.status_code == 200 and ready.json()["status"] == "ready" and ready.json()["model"] == "off"
    for path in ("/healthz", "/readyz"):
        head = client.head(path)
        assert head.status_code == 200 and head.content == b"", path


def test_an_app_not_warmed_is_not_ready_before_its_model_is_loaded(tmp_path, monkeypatch):
    workspace = _workspace(tmp_path)
    workspace.settings.dense = True
    release, calls = threading.Event(), []

    def slow_model():  # stands in for the seconds the real model takes to load
        calls.append(1)
        release.wait(10)
        return object()

    monkeypatch.setattr(workspace, "embedder", slow_model)
    client = TestClient(create_app(workspace=workspace))
    body = _problem(client.get("/readyz"), 503, "not_ready")
    assert body["title"] == "Service Unavailable" and "loading" in body["detail"]
    head = client.head("/readyz")
    assert head.status_code == 503 and head.content == b""
    health = client.get("/healthz")
    assert health.status_code == 200 and health.json()["model"] == "loading"  # alive, and says why not ready
    assert client.head("/healthz").status_code == 200
    release.set()
    deadline = time.monotonic() + 5
    while client.get("/readyz").status_code != 200 and time.monotonic() < deadline:
        time.sleep(0.01)
    ready = client.get("/readyz").json()
    assert ready["status"] == "ready" and ready["model"] == "loaded"
    assert client.head("/readyz").status_code == 200 and client.get("/healthz").json()["model"] == "loaded"
    assert calls == [1]  # loaded once, however many probes asked


def test_a_model_that_cannot_load_leaves_an_app_not_warmed_degraded(tmp_path, monkeypatch):
    workspace = _workspace(tmp_path)
    workspace.settings.dense = True

    def unavailable():
        raise ModelUnavailable("No model here.", hint="Set SCHEMA_SEARCH_DENSE=false.")

    monkeypatch.setattr(workspace, "embedder", unavailable)
    client = TestClient(create_app(workspace=workspace))
    deadline = time.monotonic() + 5
    while client.get("/healthz").json()["model"] != "unavailable" and time.monotonic() < deadline:
        time.sleep(0.01)
    ready = client.get("/readyz").json()
    assert ready["status"] == "degraded" and ready["problems"] == ["No model here."] and "DENSE" in ready["hint"]


# -- DELETE ----------------------------------------------------------------------------------


def test_delete_a_catalog_then_its_searches_are_404_and_the_others_answer(client):
    assert (
        client.post("/v1/catalogs/tiny/search", json={"question": "contacts"}).status_code == 200
    )  # its searcher is open
    deleted = client.delete("/v1/catalogs/tiny")
    assert deleted.status_code == 204 and deleted.content == b""
    _problem(client.post("/v1/catalogs/tiny/search", json={"question": "contacts"}), 404, "catalog_not_found")
    _problem(client.get("/v1/catalogs/tiny"), 404, "catalog_not_found")
    assert [c["name"] for c in client.get("/v1/catalogs").json()] == ["other"]
    assert client.post("/v1/catalogs/other/search", json={"question": "contacts"}).json()["candidates"]
    _problem(client.delete("/v1/catalogs/tiny"), 404, "catalog_not_found")
    _problem(client.delete("/v1/catalogs/Bad..Name"), 422, "invalid_input")
    assert "DELETE" in client.put("/v1/catalogs/other").headers["allow"]


def test_delete_a_corpus(client):
    files = {"files": ("refunds.md", b"# Refunds\n\nA refund over 500 EUR needs a manager.\n", "text/markdown")}
    for name in ("hb", "kept"):
        assert client.post(f"/v1/corpora/{name}", files=files).status_code == 200
    assert client.post("/v1/corpora/hb/search", json={"question": "refund"}).json()["results"]
    assert client.delete("/v1/corpora/hb").status_code == 204
    _problem(client.post("/v1/corpora/hb/search", json={"question": "refund"}), 404, "corpus_not_found")
    _problem(client.delete("/v1/corpora/hb"), 404, "corpus_not_found")
    assert [c["name"] for c in client.get("/v1/corpora").json()] == ["kept"]
    assert client.get("/v1/catalogs/tiny").status_code == 200


def test_delete_needs_the_admin_key_where_one_is_set(tmp_path):
    client = TestClient(create_app(workspace=_workspace(tmp_path, admin_key="s3cret")))
    for headers in ({}, {"X-Admin-Key": "wrong"}):
        body = _problem(client.delete("/v1/catalogs/tiny", headers=headers), 403, "forbidden")
        assert "Deleting a catalog needs the admin key" in body["detail"]
        _problem(client.delete("/v1/corpora/nope", headers=headers), 403, "forbidden")  # no hint of what exists
    assert client.get("/v1/catalogs/tiny").status_code == 200
    assert client.delete("/v1/catalogs/tiny", headers={"X-Admin-Key": "s3cret"}).status_code == 204
    _problem(client.get("/v1/catalogs/tiny"), 404, "catalog_not_found")


def test_delete_while_another_process_indexes_is_a_409_and_deletes_nothing(client):
    workspace = client.app.state.workspace
    with open(workspace.catalogs.store.root / "tiny" / LOCK_FILE, "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # what a writer in another process holds
        try:
            body = _problem(client.delete("/v1/catalogs/tiny"), 409, "being_indexed")
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    assert "being indexed" in body["detail"]
    assert client.post("/v1/catalogs/tiny/search", json={"question": "contacts"}).status_code == 200


def test_a_ddl_comment_that_holds_ustar_where_tar_keeps_its_magic_is_still_ddl():
    import io
    import tarfile

    from schema_search.http.sniff import sniff

    ddl = b"-- " + b"x" * 254 + b"ustard, mustard and more\nCREATE TABLE t (id int);"
    assert ddl[257:262] == b"ustar" and sniff(ddl) is None
    for form in (tarfile.USTAR_FORMAT, tarfile.GNU_FORMAT, tarfile.PAX_FORMAT):
        archive = io.BytesIO()
        with tarfile.open(fileobj=archive, mode="w", format=form) as tar:
            info = tarfile.TarInfo("a.md")
            info.size = 1
            tar.addfile(info, io.BytesIO(b"x"))
        assert sniff(archive.getvalue()) == "a tar archive", form


def test_the_schema_says_a_question_or_sql_may_not_be_blank(client):
    """A request the schema allows is answered (schemathesis ST202): a blank one is refused by the schema itself."""
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    for model, field in (("SearchRequest", "question"), ("DocsSearchRequest", "question"), ("ExecuteRequest", "sql"),
                         ("ExecuteRequest", "question"), ("QueryRequest", "sql")):  # fmt: skip
        prop = schemas[model]["properties"][field]
        pattern = prop.get("pattern") or next(p.get("pattern") for p in prop["anyOf"] if p.get("type") == "string")
        assert pattern == r"\S", (model, field)
    response = client.post("/v1/catalogs/tiny/search", json={"question": " \n "})
    assert response.status_code == 422 and response.headers["content-type"] == "application/problem+json"


def test_a_count_must_be_a_json_integer_as_the_schema_says(client):
    """JSON ``true`` is no integer, though Python reads it as 1 (schemathesis found it accepted)."""
    for path, field in (("/v1/catalogs/tiny/search", "k"), ("/v1/corpora/notes/search", "k")):
        _problem(client.post(path, json={"question": "orders", field: True}), 422, "invalid_input")
    response = client.post("/v1/catalogs/tiny/query", json={"sql": "SELECT 1", "max_rows": True})
    _problem(response, 422, "invalid_input")


def test_files_without_a_name_are_an_unreadable_upload_not_a_malformed_request(client):
    """The schema lets ``files`` be plain strings; with no file name no reader knows their kind: 400."""
    body = b'--xx\r\nContent-Disposition: form-data; name="files"\r\n\r\n# Notes\r\n--xx--\r\n'
    response = client.post(
        "/v1/corpora/nameless", content=body, headers={"Content-Type": "multipart/form-data; boundary=xx"}
    )
    assert "carry no file name" in _problem(response, 400, "source_unreadable")["detail"]
