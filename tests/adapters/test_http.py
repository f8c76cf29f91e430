"""The HTTP API, in process, over a workspace in tmp_path."""

import pytest
from fastapi.testclient import TestClient

from schema_search.http import create_app
from schema_search.settings import Settings

PROBLEM = "application/problem+json"

DDL = """
CREATE TABLE crm.accounts (id BIGINT PRIMARY KEY, name TEXT);
CREATE TABLE crm.contacts (id BIGINT PRIMARY KEY, account_id BIGINT REFERENCES crm.accounts(id), email TEXT);
COMMENT ON TABLE crm.contacts IS 'People at customer accounts';
"""


@pytest.fixture
def client(tiny_workspace):
    return TestClient(create_app(workspace=tiny_workspace))


def _problem(response, status):
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM
    body = response.json()
    assert body["status"] == status and body["detail"]
    return body


def test_search_returns_candidates(client):
    response = client.post("/v1/catalogs/tiny/search", json={"question": "contacts of an account", "k": 2})
    assert response.status_code == 200
    body = response.json()
    assert body["catalog"] == "tiny" and body["question"] == "contacts of an account"
    assert body["candidates"][0]["table"] == "crm.contacts"
    assert set(body["candidates"][0]) >= {"table", "score", "channels", "columns", "joins", "ddl", "source_id"}
    assert len(body["candidates"]) <= 2


def test_catalogs_table_and_health(client):
    assert [c["name"] for c in client.get("/v1/catalogs").json()] == ["tiny"]
    assert client.get("/v1/catalogs/tiny").json()["tables"] == 5
    table = client.get("/v1/catalogs/tiny/tables/crm.contacts").json()
    assert table["referenced_by"][0]["from_table"] == "crm.contact_list_members"
    assert client.get("/healthz").json()["status"] == "alive"
    assert client.get("/openapi.json").status_code == 200


@pytest.mark.parametrize(
    ("path", "body", "status"),
    [
        ("/v1/catalogs/nope/search", {"question": "x"}, 404),
        ("/v1/catalogs/tiny/search", {"question": ""}, 422),
        ("/v1/catalogs/tiny/search", {"question": "x" * 5000}, 413),
        ("/v1/catalogs/tiny/search", {"question": "x", "k": 0}, 422),
        ("/v1/catalogs/tiny/search", {"question": "x", "k": 10_000}, 422),
        ("/v1/catalogs/tiny/search", {"k": 3}, 422),
        ("/v1/catalogs/tiny/search", {"question": ["not", "text"]}, 422),
        ("/v1/catalogs/Bad..Name/search", {"question": "x"}, 422),
    ],
)
def test_bad_search_requests_get_problem_json(client, path, body, status):
    _problem(client.post(path, json=body), status)


def test_malformed_json_and_unknown_routes(client):
    _problem(
        client.post("/v1/catalogs/tiny/search", content=b"{nope", headers={"content-type": "application/json"}), 422
    )
    _problem(client.get("/v1/nothing"), 404)
    _problem(client.get("/v1/catalogs/tiny/tables/crm.nope"), 404)


def test_upload_ddl_creates_a_searchable_catalog(client):
    response = client.post(
        "/v1/catalogs/shop?dialect=postgres", content=DDL, headers={"content-type": "application/sql"}
    )
    assert response.status_code == 200, response.text
    assert response.json()["catalog"]["tables"] == 2
    hits = client.post("/v1/catalogs/shop/search", json={"question": "people at accounts"}).json()["candidates"]
    assert hits[0]["table"] == "crm.contacts"


def test_malformed_ddl_is_a_400_and_the_old_catalog_stays(client):
    before = client.post("/v1/catalogs/tiny/search", json={"question": "industry"}).json()
    body = _problem(
        client.post("/v1/catalogs/tiny", content="CREATE TABLE (((", headers={"content-type": "text/plain"}), 400
    )
    assert "CREATE TABLE" in body["detail"] or "parse" in body["detail"].lower()
    assert client.post("/v1/catalogs/tiny/search", json={"question": "industry"}).json() == before


def test_empty_and_oversized_uploads(tiny_workspace):
    small = TestClient(create_app(workspace=_with(tiny_workspace, max_upload_bytes=100)))
    _problem(small.post("/v1/catalogs/x", content="", headers={"content-type": "application/sql"}), 422)
    _problem(small.post("/v1/catalogs/x", content=DDL, headers={"content-type": "application/sql"}), 413)


def test_url_sources_are_off_by_default_and_need_the_admin_key(tiny_workspace, tmp_path):
    client = TestClient(create_app(workspace=tiny_workspace))
    _problem(client.post("/v1/catalogs/x", json={"url": "sqlite:////etc/passwd"}), 403)
    enabled = TestClient(create_app(workspace=_with(tiny_workspace, allow_url_sources=True, admin_key="s3cret")))
    _problem(enabled.post("/v1/catalogs/x", json={"url": "sqlite:////nonexistent.db"}), 403)
    _problem(
        enabled.post("/v1/catalogs/x", json={"url": "sqlite:////nonexistent.db"}, headers={"X-Admin-Key": "wrong"}), 403
    )
    # With the key, a bad URL is the caller's error, not a server error.
    _problem(
        enabled.post("/v1/catalogs/x", json={"url": "sqlite:////nonexistent.db"}, headers={"X-Admin-Key": "s3cret"}),
        400,
    )


def _with(workspace, **overrides):
    from schema_search.workspace import Workspace

    data = workspace.settings.model_dump()
    data.update(overrides)
    return Workspace(Settings(**data))
