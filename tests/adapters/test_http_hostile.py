"""The HTTP API against hostile requests: no body gives a 500, limits hold before parsing, floods get 429."""

from __future__ import annotations

import asyncio
import threading

import httpx
import pytest
from fastapi.testclient import TestClient

from schema_search.http import create_app
from schema_search.settings import Settings
from schema_search.workspace import Workspace

from ..conftest import tiny_catalog

PROBLEM = "application/problem+json"
SEARCH = "/v1/catalogs/tiny/search"
JSON = {"content-type": "application/json"}
DDL = "CREATE TABLE crm.accounts (id BIGINT PRIMARY KEY, name TEXT);\nCOMMENT ON TABLE crm.accounts IS 'Companies';\n"


@pytest.fixture
def workspace(tmp_path):
    ws = Workspace(Settings(home=tmp_path / "home", dense=False))
    ws.catalogs.index_catalog(tiny_catalog())
    return ws


@pytest.fixture
def client(workspace):
    return TestClient(create_app(workspace=workspace), raise_server_exceptions=False)


def _problem(response, status: int) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM
    body = response.json()
    assert body["status"] == status and body["detail"] and body["hint"]
    return body


def _with(workspace: Workspace, **overrides) -> Workspace:
    return Workspace(Settings(**{**workspace.settings.model_dump(), **overrides}))


# -- bodies no parser should see ------------------------------------------------


def test_a_lone_surrogate_is_a_422_not_a_500(client):
    body = _problem(client.post(SEARCH, content=b'{"question": "\\ud800"}', headers=JSON), 422)
    assert "\\ud800" in body["detail"] and "surrogate" in body["detail"]
    # The same character written as (invalid) UTF-8 bytes, which json.loads lets through.
    _problem(client.post(SEARCH, content=b'{"question": "\xed\xa0\x80"}', headers=JSON), 422)
    _problem(client.post("/v1/corpora/none/search", content=b'{"question": "x\\udfff"}', headers=JSON), 422)


def test_a_surrogate_pair_and_an_escaped_backslash_are_text(client):
    assert client.post(SEARCH, content=b'{"question": "contacts \\ud83d\\ude00"}', headers=JSON).status_code == 200
    assert client.post(SEARCH, content=b'{"question": "contacts \\\\ud800"}', headers=JSON).status_code == 200


@pytest.mark.parametrize("path", [SEARCH, "/v1/catalogs/tiny/query", "/v1/catalogs/other"])
def test_json_nested_100000_deep_is_a_422(client, path):
    deep = b'{"question": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    body = _problem(client.post(path, content=deep, headers=JSON), 422)
    assert "nested 100,001 levels deep" in body["detail"]


# -- sizes, refused before anything is read ---------------------------------------


def _asgi(app, method: str, path: str, headers: dict[str, str], chunks):
    """Call the app as a server would; return (status, headers, body, how many body messages it read)."""
    read = 0
    sent: list[dict] = []
    chunks = iter(chunks)

    async def receive():
        nonlocal read
        read += 1
        chunk = next(chunks, None)
        if chunk is None:
            return {"type": "http.request", "body": b"", "more_body": False}
        return {"type": "http.request", "body": chunk, "more_body": True}

    async def send(message):
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
    }
    asyncio.run(app(scope, receive, send))
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], dict((k.decode(), v.decode()) for k, v in start["headers"]), body, read


def test_a_declared_200_mb_body_is_refused_without_reading_a_byte(workspace):
    app = create_app(workspace=workspace)
    never = iter(lambda: pytest.fail("the body was read"), None)
    status, headers, body, read = _asgi(
        app, "POST", SEARCH, {"content-type": "application/json", "content-length": "200000000"}, never
    )
    assert (status, read) == (413, 0)
    assert headers["content-type"] == PROBLEM
    assert b"200,000,000 bytes" in body and b"SCHEMA_SEARCH_MAX_REQUEST_BYTES" in body


def test_a_chunked_body_is_refused_as_soon_as_it_passes_the_limit(workspace):
    app = create_app(workspace=workspace)  # max_request_bytes: 1 MB
    chunks = [b"x" * 65_536] * 300  # 20 MB, with no Content-Length
    status, _, body, read = _asgi(
        app, "POST", SEARCH, {"content-type": "application/json", "transfer-encoding": "chunked"}, chunks
    )
    assert status == 413 and b"passed 1,000,000 bytes" in body
    assert read == 1_000_000 // 65_536 + 1  # stopped at the first chunk past the limit


def test_uploads_have_their_own_larger_limit(workspace):
    small = create_app(workspace=_with(workspace, max_request_bytes=1024, max_upload_bytes=10_000))
    client = TestClient(small)
    ddl = DDL + "-- padding\n" * 200  # past the JSON limit, within the upload limit
    assert client.post("/v1/catalogs/shop", content=ddl, headers={"content-type": "application/sql"}).status_code == 200
    body = _problem(
        client.post("/v1/catalogs/shop", content=ddl * 10, headers={"content-type": "application/sql"}), 413
    )
    assert "SCHEMA_SEARCH_MAX_UPLOAD_BYTES" in body["detail"]
    streamed = client.post(SEARCH, content=iter([b'{"question": "', b"x" * 2000, b'"}']), headers=JSON)
    assert "SCHEMA_SEARCH_MAX_REQUEST_BYTES" in _problem(streamed, 413)["detail"]


def test_ddl_past_max_ddl_bytes_is_refused_with_the_variable(workspace):
    client = TestClient(create_app(workspace=_with(workspace, max_ddl_bytes=20)))
    body = _problem(client.post("/v1/catalogs/shop", content=DDL, headers={"content-type": "text/plain"}), 413)
    assert f"{len(DDL)} bytes" in body["detail"] and "SCHEMA_SEARCH_MAX_DDL_BYTES" in body["detail"]


# -- methods and content types ------------------------------------------------------


def test_405_says_which_methods_the_path_allows(client):
    response = client.put("/v1/catalogs/tiny", content=b"")
    _problem(response, 405)
    assert response.headers["allow"] == "GET, POST, DELETE"  # three routes at one path
    assert client.delete(SEARCH).headers["allow"] == "POST"


@pytest.mark.parametrize(
    "content_type", ["multipart/form-data; boundary=x", "application/octet-stream", "application/zip", None]
)
def test_the_ddl_route_refuses_what_is_not_ddl_with_415(client, content_type):
    headers = {"content-type": content_type} if content_type else {}
    body = _problem(
        client.post("/v1/catalogs/shop", content=b"--x\r\n\r\nCREATE TABLE a (b int)\r\n--x--", headers=headers), 415
    )
    assert "text/plain" in body["hint"] and "application/sql" in body["hint"] and "application/json" in body["hint"]
    assert "shop" not in [c["name"] for c in client.get("/v1/catalogs").json()]


def test_the_corpus_route_refuses_ddl_with_415_and_takes_multipart(client):
    body = _problem(client.post("/v1/corpora/hb", content=DDL, headers={"content-type": "application/sql"}), 415)
    assert "multipart/form-data" in body["hint"]
    files = {"files": ("guide/refunds.md", b"# Refunds\n\nA refund over 500 EUR needs a manager.\n", "text/markdown")}
    assert client.post("/v1/corpora/hb", files=files).status_code == 200


# -- the concurrency limit ---------------------------------------------------------


def test_requests_past_the_limit_get_429_with_retry_after_and_probes_still_answer(workspace, monkeypatch):
    limited = _with(workspace, max_concurrent_requests=2)
    release = threading.Event()
    entered = threading.Semaphore(0)
    listed = limited.catalogs.infos

    def slow_catalogs():  # a sync route: it holds its slot in the thread pool until released
        entered.release()
        release.wait(10)
        return listed()

    monkeypatch.setattr(limited.catalogs, "infos", slow_catalogs)
    app = create_app(workspace=limited)

    async def scenario():
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as client:
            held = [asyncio.create_task(client.get("/v1/catalogs")) for _ in range(2)]
            for _ in range(2):
                await asyncio.to_thread(entered.acquire, True, 10)
            refused = await asyncio.gather(*(client.post(SEARCH, json={"question": "contacts"}) for _ in range(5)))
            probes = [await client.get("/healthz"), await client.get("/readyz")]
            release.set()
            return await asyncio.gather(*held), refused, probes

    held, refused, probes = asyncio.run(scenario())
    assert [r.status_code for r in held] == [200, 200]
    for response in refused:
        body = _problem(response, 429)
        assert response.headers["retry-after"] == "1" and "2 requests" in body["detail"]
    assert [p.status_code for p in probes] == [200, 200]


# -- large uploads are indexed in a child process ----------------------------------------


def test_a_large_upload_is_indexed_in_a_child_process_with_its_errors_intact(client):
    client.app.state.isolated.above_bytes = 0  # every upload is "large"
    response = client.post("/v1/catalogs/shop?dialect=postgres", content=DDL, headers={"content-type": "text/plain"})
    assert response.status_code == 200, response.text
    assert (
        client.post("/v1/catalogs/shop/search", json={"question": "companies"}).json()["candidates"][0]["table"]
        == "crm.accounts"
    )
    failed = _problem(
        client.post("/v1/catalogs/bad", content="CREATE TABLE (((", headers={"content-type": "text/plain"}), 400
    )
    assert "No table could be read" in failed["detail"]
    files = {"files": ("refunds.md", b"# Refunds\n\nA refund over 500 EUR needs a manager.\n", "text/markdown")}
    assert client.post("/v1/corpora/hb", files=files).status_code == 200
    assert client.post("/v1/corpora/hb/search", json={"question": "refund"}).json()["results"]


def test_indexing_past_its_time_limit_is_stopped(client):
    client.app.state.isolated.above_bytes = 0
    client.app.state.isolated.time_limit_s = 0.01  # less than the child takes to start
    body = _problem(client.post("/v1/catalogs/shop", content=DDL, headers={"content-type": "text/plain"}), 413)
    assert "took longer than" in body["detail"]
    assert "shop" not in [c["name"] for c in client.get("/v1/catalogs").json()]


# -- what the OpenAPI document says ----------------------------------------------------


def test_openapi_declares_problems_and_the_admin_key(client):
    schema = client.get("/openapi.json").json()
    components = schema["components"]
    assert "HTTPValidationError" not in components["schemas"] and "Problem" in components["schemas"]
    assert components["securitySchemes"]["AdminKey"] == {
        "type": "apiKey",
        "in": "header",
        "name": "X-Admin-Key",
        "description": components["securitySchemes"]["AdminKey"]["description"],
    }
    search = schema["paths"]["/v1/catalogs/{name}/search"]["post"]
    assert {"404", "413", "422", "429", "503"} <= set(search["responses"])
    assert search["responses"]["422"]["content"] == {PROBLEM: {"schema": {"$ref": "#/components/schemas/Problem"}}}
    assert "Retry-After" in search["responses"]["429"]["headers"]
    upload = schema["paths"]["/v1/catalogs/{name}"]["post"]
    assert {"400", "403", "409", "413", "415", "422", "429"} <= set(upload["responses"])
    assert upload["security"] == [{}, {"AdminKey": []}]  # no admin key on this server: writes take none
    assert "security" not in search and "429" not in schema["paths"]["/healthz"]["get"]["responses"]
