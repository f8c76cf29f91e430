"""Spaces and their keys: the key store, the CLI, HTTP and MCP each acting within one space."""

from __future__ import annotations

import argparse
import sqlite3

import anyio
import pytest
from fastapi.testclient import TestClient
from mcp import Client
from pydantic import SecretStr

from schema_search.cli.main import main
from schema_search.cli.mcp import mcp_server
from schema_search.errors import KeyRefused
from schema_search.http import create_app
from schema_search.settings import Settings
from schema_search.spaces.keys import KeyStore, allows
from schema_search.spaces.registry import Spaces, space_home

from ..conftest import SAMPLES, tiny_catalog

PROBLEM = "application/problem+json"


def test_keys_are_stored_hashed_listed_without_secret_and_revocable(tmp_path):
    store = KeyStore(tmp_path / "keys.sqlite3")
    issued = store.create("team-a", "write", "ci")
    assert issued.secret.startswith(f"ssk_{issued.id}_")
    raw = sqlite3.connect(tmp_path / "keys.sqlite3").execute("SELECT * FROM keys").fetchall()
    assert issued.secret not in repr(raw)  # only its hash is kept
    listed = store.list()
    assert [k.id for k in listed] == [issued.id] and "secret" not in listed[0].model_dump()
    assert "digest" not in listed[0].model_dump()
    assert store.verify(issued.secret).space == "team-a"
    assert store.verify(issued.secret[:-1] + "x") is None  # one character off
    assert store.any_active()
    store.revoke(issued.id)
    assert store.verify(issued.secret) is None and not store.any_active()
    assert store.list()[0].revoked_at is not None


def test_a_taken_key_id_is_drawn_again(tmp_path, monkeypatch):
    store = KeyStore(tmp_path / "keys.sqlite3")
    first = store.create("a", "read")
    drawn = iter([first.id, first.id, "0badc0de"])
    monkeypatch.setattr("schema_search.spaces.keys.secrets.token_hex", lambda _n: next(drawn))
    second = store.create("a", "write")
    assert second.id == "0badc0de" and store.verify(second.secret).role == "write"
    assert store.verify(first.secret).role == "read"


def test_roles_nest():
    assert allows("admin", "write") and allows("write", "read") and not allows("read", "write")


def test_default_space_is_the_data_directory(tmp_path):
    assert space_home(tmp_path, "default") == tmp_path
    assert space_home(tmp_path, "a") == tmp_path / "spaces" / "a"


def test_cli_spaces_keys_and_space_option(tmp_path, capsys):
    home = str(tmp_path / "home")
    assert main(["--home", home, "spaces", "create", "team-a"]) == 0
    assert main(["--home", home, "--space", "team-a", "index", str(SAMPLES / "shop.sql"), "--catalog", "shop"]) == 0
    capsys.readouterr()
    assert main(["--home", home, "catalogs"]) == 0
    assert "shop" not in capsys.readouterr().out  # the default space holds nothing
    assert main(["--home", home, "catalogs", "--space", "team-a"]) == 0
    assert "shop" in capsys.readouterr().out
    assert main(["--home", home, "--space", "nope", "catalogs"]) == 1
    err = capsys.readouterr().err
    assert "No space named 'nope'" in err and "default, team-a" in err and "schemasift spaces create" in err

    assert main(["--home", home, "keys", "create", "--space", "team-a", "--role", "read", "--label", "bot"]) == 0
    secret = capsys.readouterr().out.strip()
    assert secret.startswith("ssk_")
    assert main(["--home", home, "keys", "list"]) == 0
    listing = capsys.readouterr().out
    # The secret may itself hold "_": split twice only, or a one-letter piece of it is "found" in the list.
    assert "team-a" in listing and "bot" in listing and secret.split("_", 2)[2] not in listing
    key_id = secret.split("_")[1]
    assert main(["--home", home, "keys", "revoke", key_id]) == 0
    assert main(["--home", home, "keys", "list", "--space", "team-a"]) == 0
    assert "revoked" in capsys.readouterr().out
    assert main(["--home", home, "spaces", "list"]) == 0
    assert "team-a" in capsys.readouterr().out
    assert main(["--home", home, "spaces", "delete", "team-a", "--yes"]) == 0
    assert not (tmp_path / "home" / "spaces" / "team-a").exists()


# -- HTTP ----------------------------------------------------------------------------------


@pytest.fixture
def two_spaces(tmp_path):
    """Spaces a and b, each with a catalog of its own name, and keys of every role."""
    settings = Settings(home=tmp_path / "home", dense=False, admin_key="server-admin")
    spaces = Spaces(settings)
    keys = {}
    for space in ("a", "b"):
        spaces.create(space)
        spaces.workspace(space).catalogs.index_catalog(tiny_catalog(f"{space}_crm"))
        for role in ("read", "write", "admin"):
            keys[space, role] = spaces.keys.create(space, role).secret
    client = TestClient(create_app(settings))
    return client, keys, spaces


def bearer(key):
    return {"Authorization": f"Bearer {key}"}


def problem(response, status):
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM
    return response.json()


def test_each_key_sees_its_own_space_only(two_spaces):
    client, keys, _ = two_spaces
    assert [c["name"] for c in client.get("/v1/catalogs", headers=bearer(keys["b", "read"])).json()] == ["b_crm"]
    for method, path in (
        ("GET", "/v1/catalogs/a_crm"),
        ("GET", "/v1/catalogs/a_crm/tables/accounts"),
        ("GET", "/v1/catalogs/a_crm/fields"),
        ("POST", "/v1/catalogs/a_crm/search"),
    ):
        body = problem(client.request(method, path, headers=bearer(keys["b", "read"]), json={"question": "x"}), 404)
        assert body["hint"].split(".")[0] == "Known: b_crm"  # the caller's own names only (its request's echoed)
    # the X-Read-Key header takes a space key of any role, as the web page sends it
    assert client.get("/v1/catalogs/b_crm", headers={"X-Read-Key": keys["b", "admin"]}).status_code == 200


def test_roles_refuse_before_any_lookup_and_keys_gate_anonymous(two_spaces):
    client, keys, spaces = two_spaces
    for name in ("b_crm", "a_crm", "nothing"):  # the same 403 whether the catalog is there, another's, or none
        body = problem(client.delete(f"/v1/catalogs/{name}", headers=bearer(keys["b", "read"])), 403)
        assert body["code"] == "role_required" and "write role" in body["detail"] and name not in str(body)
    problem(client.get("/v1/catalogs"), 401)  # keys are issued: anonymous reads refused
    assert client.get("/healthz").status_code == 200 and client.get("/openapi.json").status_code == 200
    revoked = spaces.keys.create("b", "read")
    spaces.keys.revoke(revoked.id)
    gone = problem(client.get("/v1/catalogs", headers=bearer(revoked.secret)), 401)
    unknown = problem(client.get("/v1/catalogs", headers=bearer("ssk_00000000_nope")), 401)
    assert gone["detail"] == unknown["detail"] and gone["code"] == "key_refused"
    assert client.delete("/v1/catalogs/b_crm", headers={"X-API-Key": keys["b", "write"]}).status_code == 204
    assert client.get("/v1/catalogs", headers=bearer(keys["a", "read"])).json()[0]["name"] == "a_crm"


def test_spaces_routes_for_the_server_admin_and_a_space_admin(two_spaces):
    client, keys, _ = two_spaces
    admin = {"X-Admin-Key": "server-admin"}
    listed = client.get("/v1/spaces", headers=admin).json()
    assert [(s["name"], s["catalogs"]) for s in listed] == [("default", 0), ("a", 1), ("b", 1)]
    problem(client.get("/v1/spaces", headers=bearer(keys["b", "admin"])), 403)
    assert client.post("/v1/spaces/c", headers=admin).status_code == 201
    issued = client.post("/v1/spaces/b/keys", headers=bearer(keys["b", "admin"]), json={"role": "read"}).json()
    assert issued["secret"].startswith("ssk_") and issued["space"] == "b"
    own = client.get("/v1/spaces/b/keys", headers=bearer(keys["b", "admin"])).json()
    assert all("secret" not in k for k in own) and {k["space"] for k in own} == {"b"}
    other = problem(client.get("/v1/spaces/a/keys", headers=bearer(keys["b", "admin"])), 404)
    missing = problem(client.get("/v1/spaces/zz/keys", headers=bearer(keys["b", "admin"])), 404)
    assert (
        other["detail"].replace("'a'", "'zz'") == missing["detail"] and "a" not in other["hint"].split("Known: ")[1][:3]
    )
    a_key = client.get("/v1/spaces/a/keys", headers=admin).json()[0]["id"]
    problem(client.delete(f"/v1/spaces/b/keys/{a_key}", headers=bearer(keys["b", "admin"])), 404)
    revoked = client.delete(f"/v1/spaces/b/keys/{issued['id']}", headers=bearer(keys["b", "admin"])).json()
    assert revoked["revoked_at"] is not None
    problem(client.get("/v1/catalogs", headers=bearer(issued["secret"])), 401)
    assert client.delete("/v1/spaces/c", headers=admin).status_code == 204


def test_the_servers_read_key_only_reads_once_keys_are_issued(tmp_path):
    # No admin key set: before spaces, writes were the operator's to leave open; once keys are
    # issued an anonymous write is refused, and the read key must not pass for one.
    settings = Settings(home=tmp_path / "home", dense=False, read_key="legacy-reader")
    spaces = Spaces(settings)
    spaces.workspace("default").catalogs.index_catalog(tiny_catalog("crm"))
    spaces.create("b")
    spaces.keys.create("b", "read")
    client = TestClient(create_app(settings))
    reader = {"X-Read-Key": "legacy-reader"}
    assert [c["name"] for c in client.get("/v1/catalogs", headers=reader).json()] == ["crm"]
    body = problem(client.delete("/v1/catalogs/crm", headers=reader), 403)
    assert body["code"] == "role_required"
    problem(client.get("/v1/review", headers=reader), 403)


def test_no_keys_issued_keeps_todays_behaviour(tiny_workspace):
    client = TestClient(create_app(workspace=tiny_workspace))
    assert [c["name"] for c in client.get("/v1/catalogs").json()] == ["tiny"]
    assert client.get("/healthz").json()["catalogs"] == 1


# -- MCP ------------------------------------------------------------------------------------


def _mcp_texts(settings: Settings, calls) -> list[str]:
    server = mcp_server(argparse.Namespace(catalog=[], corpus=[], cite="ids"), settings)

    async def go():
        async with Client(server) as client:
            return [(await client.call_tool(tool, arguments)).model_dump_json() for tool, arguments in calls]

    return anyio.run(go)


def test_mcp_serves_the_space_of_its_key_only(two_spaces):
    _, keys, spaces = two_spaces
    settings = spaces.settings.model_copy(update={"api_key": SecretStr(keys["b", "read"])})
    calls = [
        ("list_sources", {}),
        ("search_tables", {"question": "accounts", "catalog": "a_crm"}),
        ("get_table", {"table_or_source_id": "crm.accounts", "catalog": "a_crm"}),
        ("describe_collection", {"collection": "a_crm"}),
    ]
    texts = _mcp_texts(settings, calls)
    assert "b_crm" in texts[0]
    assert "a_crm" not in texts[0]
    for text in texts[1:]:  # each names what this server serves: b's only
        assert (
            "not served here" in text
            and "b_crm" in text.split("Served:")[1]
            and "a_crm" not in text.split("Served:")[1]
        )
    revoked = spaces.keys.create("b", "read")
    spaces.keys.revoke(revoked.id)
    with pytest.raises(KeyRefused, match="not accepted"):
        mcp_server(
            argparse.Namespace(catalog=[], corpus=[], cite="ids"),
            settings.model_copy(update={"api_key": SecretStr(revoked.secret)}),
        )


# -- the isolation eval, on a slice ------------------------------------------------------------


def test_isolation_eval_finds_no_leak_on_a_slice():
    from eval.security import isolation

    routes = {"get_catalog", "search", "get_document", "delete_catalog", "list_keys", "list_catalogs", "healthz"}
    report = isolation.run(kinds=("other read", "other admin", "none", "revoked", "wrong role"), routes=routes)
    assert report["calls"] > 30
    assert report["leaks"] == 0, report["examples"]
    assert report["control"]["secrets_seen"] > 0  # the detector sees alpha's secrets when alpha's own key asks
