"""Space isolation: does any route or MCP tool tell a caller anything of a space not its own?

``python -m eval.security.isolation --out eval/results/isolation.json``

Two spaces are built in a temporary data directory, ``alpha`` (the victim: the shop
catalog and the handbook corpus) and ``beta`` (the attacker's: the CRM catalog and the
product docs). Every route of the app (walked from ``app.routes``, path parameters filled
with alpha's names: its catalog, corpus, a table, a passage's ID, its space, a key's id)
and every MCP tool (arguments naming alpha's catalog, corpus, a table ID and a passage ID)
is called with each credential that must see nothing of alpha:

- ``other read`` / ``other write`` / ``other admin``: beta's keys;
- ``none``: no key at all (HTTP: refused once keys exist; MCP: the default space's server);
- ``revoked``: an alpha key, revoked (HTTP: 401; MCP: the server refuses to start);
- ``wrong role``: alpha's read key on a route that needs write or admin (MCP has none: every
  tool is read-only, so no MCP call is counted for it).

A call **leaks** when its answer holds one of alpha's secrets that the request did not
itself carry (a catalog or corpus name, a table name or ID, a passage ID or phrase, drawn
from what alpha's own key is shown and beta's is not), or when it differs from the answer
to the same call naming a decoy that does not exist (status, error code, or words once the
name is swapped back): that difference alone would tell a name exists, or a count. The
target is 0 leaks.
"""

from __future__ import annotations

import argparse
import io
import json
import re
import sys
import tempfile
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
VICTIM, ATTACKER = "alpha", "beta"
SOURCES = {
    VICTIM: (REPO / "sample_schemas" / "shop.sql", REPO / "sample_docs" / "handbook"),
    ATTACKER: (REPO / "sample_schemas" / "crm.sql", REPO / "sample_docs" / "product"),
}
KINDS = ("other read", "other write", "other admin", "none", "revoked", "wrong role")
SERVER_ADMIN_KEY = "isolation-server-admin-key"
# The writes and the key routes: what a wrong-role (alpha read) key is tried on. Named by endpoint
# function; a route missing from here is a read, on which alpha's own read key is rightly answered.
NEEDS_MORE_THAN_READ = {
    "create_catalog", "delete_catalog", "add_examples", "execute", "create_corpus", "delete_corpus",
    "list_spaces", "create_space", "delete_space", "list_keys", "create_key", "revoke_key",
}  # fmt: skip
QUESTION = "what is the refund policy for orders?"


@dataclass
class World:
    """The two spaces, alpha's names to fill in, alpha's secrets to look for, and every credential."""

    home: Path
    names: dict[str, str]  # catalog, corpus, table, table_id, passage_id, key_id
    secrets: set[str]
    keys: dict[str, str | None]  # credential kind -> the key sent
    settings: Any = None


@dataclass
class Tally:
    calls: Counter = field(default_factory=Counter)
    leaks: Counter = field(default_factory=Counter)
    answers: Counter = field(default_factory=Counter)  # (kind, interface, status): what the refusals were
    examples: list[dict[str, Any]] = field(default_factory=list)

    def add(self, kind: str, interface: str, leak: str | None, what: str) -> None:
        self.calls[kind, interface] += 1
        self.answers[kind, interface, what.rsplit(" -> ", 1)[-1]] += 1
        if leak:
            self.leaks[kind, interface] += 1
            if len(self.examples) < 20:
                self.examples.append({"credential": kind, "interface": interface, "call": what, "leak": leak})


def build(home: Path) -> World:
    """Index both spaces (dense channel off: names and words are what could leak) and issue the keys."""
    from schema_search.settings import Settings
    from schema_search.spaces.registry import Spaces

    settings = Settings(home=home, dense=False, embedding_threads=1, admin_key=SERVER_ADMIN_KEY)
    spaces = Spaces(settings)
    for space, (ddl, docs) in SOURCES.items():
        spaces.create(space)
        ws = spaces.workspace(space)
        ws.catalogs.index(str(ddl), catalog=f"{space}_{ddl.stem}")
        ws.corpora.index(docs, corpus=f"{space}_{docs.name}")
    keys: dict[str, str | None] = {
        f"other {r}": spaces.keys.create(ATTACKER, r, "attacker").secret for r in ("read", "write", "admin")
    }
    revoked = spaces.keys.create(VICTIM, "admin", "old")
    spaces.keys.revoke(revoked.id)
    keys |= {"none": None, "revoked": revoked.secret, "wrong role": spaces.keys.create(VICTIM, "read", "reader").secret}
    names, secrets = _victim_secrets(spaces)
    names["key_id"] = spaces.keys.list(VICTIM)[-1].id
    return World(home, names, secrets, keys, settings)


def _victim_secrets(spaces) -> tuple[dict[str, str], set[str]]:
    """Alpha's names for the calls, and the strings only alpha's own key should ever see."""
    seen: dict[str, set[str]] = {}
    first: dict[str, str] = {}
    for space, (ddl, docs) in SOURCES.items():
        ws = spaces.workspace(space)
        catalog, corpus = f"{space}_{ddl.stem}", f"{space}_{docs.name}"
        found = {catalog, corpus}
        tables = ws.catalogs.search(catalog, QUESTION, 20).candidates
        found |= {t.table for t in tables} | {t.source_id for t in tables}
        passages = ws.corpora.search(corpus, QUESTION, 20).results
        found |= {p.source_id for p in passages}
        for p in passages:  # a run of six plain words from each passage: quoted anywhere, it is alpha's text
            words = re.findall(r"[A-Za-z]{3,}", p.text)
            if len(words) >= 6:
                found.add(" ".join(words[:6]))
        seen[space] = found
        if space == VICTIM:
            first = {"catalog": catalog, "corpus": corpus, "table": tables[0].table, "table_id": tables[0].source_id}
            first["passage_id"] = passages[0].source_id
    own = {s for s in seen[VICTIM] - seen[ATTACKER] if len(s) >= 4}
    return first, own


def leak_in(text: str, secrets: set[str], sent: str) -> str | None:
    """The first secret in ``text`` that the request did not carry itself.

    >>> leak_in('{"detail": "No catalog named \\'alpha_shop\\'"}', {"alpha_shop", "main.orders"}, "/v1/catalogs/alpha_shop")
    >>> leak_in('{"tables": ["main.orders"]}', {"main.orders"}, "")
    'main.orders'
    """
    return next((s for s in sorted(secrets) if s in text and s not in sent), None)


def decoyed(value: str) -> str:
    """A name of the same shape that no space holds.

    >>> decoyed("alpha_shop"), decoyed("T3fa21c")
    ('zz_alpha_shop', 'Tzz3fa21c')
    """
    return f"{value[0]}zz{value[1:]}" if re.fullmatch(r"[TS][0-9a-f]+", value) else f"zz_{value}"


# -- HTTP ---------------------------------------------------------------------------------


def http_routes(app) -> list[tuple[str, str, str]]:
    """Every (method, path, endpoint name) the app answers, walked from ``app.routes`` and included routers."""
    found = []

    def walk(routes) -> None:
        for route in routes:
            inner = getattr(route, "original_router", None) or getattr(route, "router", None)
            if inner is not None and not hasattr(route, "endpoint"):
                walk(inner.routes)
                continue
            for method in sorted(getattr(route, "methods", None) or ()):
                if method != "HEAD":
                    found.append((method, route.path, getattr(route, "endpoint", route).__name__))

    walk(app.routes)
    return sorted(set(found))


def _fill(path: str, names: dict[str, str], endpoint: str) -> str:
    noun = "corpus" if path.startswith("/v1/corpora") else "catalog"
    values = {
        "name": names[noun],
        "table": names["table"],
        "source_id": names["passage_id"],
        "space": VICTIM,
        "key_id": names["key_id"],
    }
    if path.startswith("/v1/eval"):  # the server's eval reports, not a space's: any name will do
        values["name"] = "no-such-report"
    # A parameter of no space's (a review entry's number): 1, a well-formed value.
    return re.sub(r"\{(\w+)(:\w+)?\}", lambda m: values.get(m[1], "1"), path)


def _request(method: str, endpoint: str, names: dict[str, str]) -> dict[str, Any]:
    """The body a call of ``endpoint`` sends: well formed, so refusals are about the key, not the shape."""
    sql = f"select count(*) from {names['table']}"
    if endpoint == "create_catalog":
        return {"content": b"CREATE TABLE probe_t (id int);", "headers": {"Content-Type": "application/sql"}}
    if endpoint == "create_corpus":
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr("probe.md", "# Probe\n\nNothing here.\n")
        return {"content": buffer.getvalue(), "headers": {"Content-Type": "application/zip"}}
    bodies = {
        "search": {"question": QUESTION},
        "query": {"sql": sql},
        "execute": {"sql": sql, "question": QUESTION},
        "add_examples": {"examples": [{"question": QUESTION, "sql": sql}]},
        "create_key": {"role": "read", "label": "probe"},
    }
    return {"json": bodies[endpoint]} if endpoint in bodies and method == "POST" else {}


def _call(client, method: str, url: str, key: str | None, request: dict[str, Any]):
    headers = {**request.pop("headers", {}), **({"Authorization": f"Bearer {key}"} if key else {})}
    return client.request(method, url, headers=headers, **request)


def _answer(response) -> tuple[int, str, str]:
    body = response.text
    code = ""
    if response.headers.get("content-type", "").startswith("application/problem+json"):
        code = response.json().get("code", "")
    return response.status_code, code, body


def run_http(world: World, tally: Tally, kinds=KINDS, routes: set[str] | None = None) -> None:
    from fastapi.testclient import TestClient

    from schema_search.http import create_app

    client = TestClient(create_app(world.settings), raise_server_exceptions=False)
    # What the product ships to everyone (the OpenAPI document's examples name `main.orders`) is no one's secret.
    shipped = json.dumps(client.app.openapi())
    world.secrets = {s for s in world.secrets if s not in shipped}
    decoy = {k: decoyed(v) for k, v in world.names.items()}
    for method, path, endpoint in http_routes(client.app):
        if routes is not None and endpoint not in routes:
            continue
        for kind in kinds:
            if kind == "wrong role" and endpoint not in NEEDS_MORE_THAN_READ:
                continue  # alpha's read key reads alpha: that is its job, not a leak
            key = world.keys[kind]
            url, fake = _fill(path, world.names, endpoint), _fill(path, decoy, endpoint)
            real = _answer(_call(client, method, url, key, _request(method, endpoint, world.names)))
            other = _answer(_call(client, method, fake, key, _request(method, endpoint, decoy)))
            sent = url + json.dumps(_request(method, endpoint, world.names).get("json", ""))
            leak = leak_in(real[2], world.secrets, sent)
            if leak is None:
                leak = _differs(real, other, world.names, decoy)
            tally.add(kind, "http", leak, f"{method} {path} -> {real[0]}")
            if endpoint in NEEDS_MORE_THAN_READ:
                _sweep(world, decoy)


def _sweep(world: World, decoy: dict[str, str]) -> None:
    """Delete what a write just made in the attacker's own space (or the default one) under alpha's names.

    Such a write is the key's right, not a leak; left there, the next call would find the
    attacker's own ``alpha_shop`` and the decoy comparison would cry wolf.
    """
    from schema_search.errors import SchemaSearchError
    from schema_search.spaces.registry import Spaces

    spaces = Spaces(world.settings)
    for space in spaces.names():
        if space == VICTIM:
            continue
        ws = spaces.workspace(space)
        for shelf, key in ((ws.catalogs, "catalog"), (ws.corpora, "corpus")):
            for name in (world.names[key], decoy[key]):
                if name in shelf.store.names():
                    try:
                        shelf.delete(name)
                    except SchemaSearchError:
                        pass


def _differs(real: tuple, other: tuple, names: dict[str, str], decoy: dict[str, str]) -> str | None:
    """Why the answer for alpha's real name differs from the decoy's, if it does (an existence oracle)."""
    if real[:2] != other[:2]:
        return f"status/code {real[:2]} for the real name, {other[:2]} for a decoy"
    if real[0] >= 400:  # errors must read the same, the name aside; a 2xx body is checked for secrets only
        text = other[2]
        for key in sorted(decoy, key=lambda k: -len(decoy[k])):
            text = text.replace(decoy[key], names[key])
        if text != real[2]:
            return "the error's words differ from a decoy's"
    return None


# -- MCP ----------------------------------------------------------------------------------


def _tool_arguments(tool, names: dict[str, str]) -> dict[str, Any]:
    """Arguments for ``tool`` that name alpha's catalog, corpus, table and passage wherever it takes one."""
    values = {
        "question": QUESTION,
        "catalog": names["catalog"],
        "corpus": names["corpus"],
        "collection": names["corpus"],
        "table_or_source_id": names["table_id"],
        "id": names["passage_id"],
        "sql": f"select count(*) from {names['table']}",
        "text": f"See [{names['table_id']}] and [{names['passage_id']}], {{{{link:1}}}}.",
    }
    properties = (tool.input_schema or {}).get("properties", {})
    return {p: values[p] for p in properties if p in values}


def run_mcp(world: World, tally: Tally, kinds=KINDS) -> None:
    import anyio

    for kind in kinds:
        if kind == "wrong role":
            continue  # every tool is read-only: any role of the space may call every one
        anyio.run(_mcp_kind, world, tally, kind)


async def _mcp_kind(world: World, tally: Tally, kind: str) -> None:
    from mcp import Client
    from pydantic import SecretStr

    from schema_search.cli.mcp import mcp_server
    from schema_search.errors import SchemaSearchError

    key = world.keys[kind]
    settings = world.settings.model_copy(update={"api_key": SecretStr(key) if key else None, "admin_key": None})
    args = argparse.Namespace(catalog=[], corpus=[], cite="ids")
    try:
        server = mcp_server(args, settings)
    except SchemaSearchError as error:  # a revoked key: the server does not start; its words are checked too
        tally.add(kind, "mcp", leak_in(str(error), world.secrets, ""), "start -> refused")
        return
    decoy = {k: decoyed(v) for k, v in world.names.items()}
    async with Client(server) as client:
        listed = await client.list_tools()
        for tool in listed.tools:
            arguments = _tool_arguments(tool, world.names)
            real = await _mcp_call(client, tool.name, arguments)
            other = await _mcp_call(client, tool.name, _tool_arguments(tool, decoy))
            leak = leak_in(real[2], world.secrets, json.dumps(arguments))
            if leak is None:
                leak = _differs(real, other, world.names, decoy)
            tally.add(kind, "mcp", leak, f"{tool.name} -> {'error' if real[0] >= 400 else 'ok'}")
        uri = f"schema-search://catalogs/{world.names['catalog']}/tables"
        try:
            text = json.dumps((await client.read_resource(uri)).model_dump(mode="json"), default=str)
        except Exception as error:  # an unknown resource is an error: its words must not list alpha's
            text = str(error)
        tally.add(kind, "mcp", leak_in(text, world.secrets, uri), "read_resource alpha's tables")


async def _mcp_call(client, tool: str, arguments: dict[str, Any]) -> tuple[int, str, str]:
    result = await client.call_tool(tool, arguments)
    body = json.dumps(result.model_dump(mode="json"), default=str)
    # Per-call noise (timings, ledger IDs of the decoy call) is no oracle: errors only are compared word for word.
    return (400 if result.is_error else 200), "", body


# -- the run --------------------------------------------------------------------------------


def run(home: Path | None = None, kinds=KINDS, routes: set[str] | None = None, mcp: bool = True) -> dict[str, Any]:
    """Build the two spaces, make every call, and return the figures (``leaks`` is the total)."""
    with tempfile.TemporaryDirectory(prefix="isolation-") as scratch:
        world = build(Path(home or scratch))
        tally = Tally()
        if mcp:  # first: the HTTP writes below put (and sweep away) the attacker's own collections
            run_mcp(world, tally, kinds)
        run_http(world, tally, kinds, routes)
        # The control: alpha's own read key must be seen to get alpha's secrets, or the detector is blind.
        control = Tally()
        world.keys["own read (control)"] = world.keys["wrong role"]
        run_http(world, control, ("own read (control)",), routes)
        if mcp:
            run_mcp(world, control, ("own read (control)",))
    rows = [
        {
            "credential": kind,
            "interface": interface,
            "calls": tally.calls[kind, interface],
            "leaks": tally.leaks[kind, interface],
        }
        for kind in kinds
        for interface in ("http", "mcp")
        if (kind, interface) in tally.calls
    ]
    return {
        "victim": VICTIM,
        "attacker": ATTACKER,
        "secrets": len(world.secrets),
        "rows": rows,
        "calls": sum(tally.calls.values()),
        "leaks": sum(tally.leaks.values()),
        "examples": tally.examples,
        "answers": {
            f"{k} / {i}": {s: n for (k2, i2, s), n in sorted(tally.answers.items()) if (k2, i2) == (k, i)}
            for k, i in tally.calls
        },
        "control": {"calls": sum(control.calls.values()), "secrets_seen": sum(control.leaks.values())},
    }


def print_table(report: dict[str, Any]) -> None:
    print(f"{'credential':<12}  {'interface':<9}  {'calls':>5}  {'leaks':>5}")
    for row in report["rows"]:
        print(f"{row['credential']:<12}  {row['interface']:<9}  {row['calls']:>5}  {row['leaks']:>5}")
    print(f"{'total':<12}  {'':<9}  {report['calls']:>5}  {report['leaks']:>5}")
    control = report["control"]
    print(f"control: alpha's own read key saw alpha's secrets in {control['secrets_seen']} of {control['calls']} calls")
    for example in report["examples"]:
        print(f"leak: {example}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eval.security.isolation", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    args = parser.parse_args(argv)
    report = run()
    print_table(report)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=2) + "\n")
    return 0 if report["leaks"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
