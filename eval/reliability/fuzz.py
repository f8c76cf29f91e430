"""API fuzzing: schemathesis against the app's own OpenAPI document, over a real workspace.

    python -m eval.reliability.fuzz [--examples 100] [--seed 1]

The app is the one ``serve`` runs (``create_app``), over a workspace in a temporary
folder holding a small catalog (``sample_schemas/shop.sql``) and a small corpus
(``sample_docs/handbook``), the dense channel off for speed, and an admin key that
writes must present. Schemathesis runs its phases per operation: the schema's
examples, the coverage phase (boundary values and invalid inputs for every field:
wrong types, missing required fields, values outside patterns, unexpected methods),
and up to ``examples`` generated cases, valid and invalid alike, each checked by all
of its checks. The stateful phase (chains of calls) is off: the API has no links.

What counts:

* ``responses >= 500``: counted by a wrapper around the app, for every request;
* ``schema violations``: a response the document does not allow (status code,
  content type, headers, body schema);
* ``other check failures``: the rest of schemathesis's checks (invalid data accepted,
  a 405 without ``Allow``, a write that ignored a missing admin key, ...);
* ``schema-valid requests refused``: a request the document calls valid got a 4xx
  that no failure of the source explains: constraints the document does not state
  (an empty question, ``k`` out of range). Reported, not part of the target.
"""

from __future__ import annotations

import argparse
import collections
import logging
import secrets
import tempfile
import time
from pathlib import Path
from typing import Any

from .report import Part, show

REPO = Path(__file__).resolve().parents[2]
SCHEMA_CHECKS = frozenset(
    {
        "status_code_conformance",
        "content_type_conformance",
        "response_headers_conformance",
        "response_schema_conformance",
    }
)
DOCUMENTATION_CHECKS = frozenset({"positive_data_acceptance"})
# Schema-valid is not always acceptable, and rightly: an upload (any text, any file)
# may not parse as DDL or documents (400); a string is not always one allowed SELECT
# (422), nor one that runs (400); a question may pass this server's limit (413).
ACCEPTED = ["2xx", "3xx", "401", "403", "404", "409", "413", "429"]
CONTENT_CHECKED = {  # by operation label; schemathesis ORs separate include filters
    r"^POST /v1/(catalogs|corpora)/\{name\}$": [*ACCEPTED, "400"],
    r"^POST /v1/(catalogs|corpora)/\{name\}/query$": [*ACCEPTED, "400", "422"],
}


class Counted:
    """The app, counting requests and the statuses it answers (the OpenAPI fetch aside)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.statuses: collections.Counter[int] = collections.Counter()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or scope["path"] == "/openapi.json":
            await self.app(scope, receive, send)
            return

        async def counting(message) -> None:
            if message["type"] == "http.response.start":
                self.statuses[message["status"]] += 1
            await send(message)

        await self.app(scope, receive, counting)


def run(examples_per_operation: int = 100, seed: int = 1) -> Part:
    """Fuzz every operation with up to ``examples_per_operation`` generated cases (plus examples and coverage)."""
    import schemathesis
    from schemathesis.engine import events, from_schema

    # The multipart parser logs each malformed header it refuses; the 400 says it already.
    logging.getLogger("python_multipart").setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory(prefix="schema-search-fuzz-") as home:
        key = secrets.token_urlsafe(16)
        counted = Counted(_app(Path(home), key))
        config = _config(examples_per_operation, seed, key)
        schema = schemathesis.openapi.from_asgi("/openapi.json", counted, config=config)
        started = time.perf_counter()
        failures: collections.Counter[str] = collections.Counter()
        operations: set[str] = set()
        details: list[str] = []
        seen: set[tuple[str, str]] = set()
        cases: collections.Counter[str] = collections.Counter()
        errors = 0
        for event in from_schema(schema).execute():
            if isinstance(event, events.ScenarioFinished):
                operations.add(event.recorder.label)
                cases[event.recorder.label] += len(event.recorder.cases)
                for case_id, checks in event.recorder.checks.items():
                    for check in checks:
                        if check.status.value != "failure":
                            continue
                        failures[check.name] += 1
                        if (event.recorder.label, check.name) not in seen:  # one line per operation and check
                            seen.add((event.recorder.label, check.name))
                            response = event.recorder.find_response(case_id=case_id)
                            details.append(_detail(event.recorder.label, check, response))
            elif isinstance(event, (events.NonFatalError, events.FatalError)):
                errors += 1
                error = getattr(event, "value", None) or getattr(event, "exception", None)
                details.append(f"schemathesis error: {' '.join(str(error).split())[:240]}")
        seconds = time.perf_counter() - started
    statuses = counted.statuses
    server_errors = sum(n for status, n in statuses.items() if status >= 500)
    violations = sum(n for name, n in failures.items() if name in SCHEMA_CHECKS)
    refused = sum(n for name, n in failures.items() if name in DOCUMENTATION_CHECKS)
    other = sum(failures.values()) - violations - refused - failures["not_a_server_error"]
    counts = {
        "operations": len(operations),
        "requests": sum(statuses.values()),
        "responses >= 500": server_errors,
        "schema violations": violations,
        "other check failures": other,
        "schema-valid requests refused": refused,
        "fuzzer errors": errors,
        "seconds": round(seconds, 1),
    }
    details.insert(0, "statuses: " + ", ".join(f"{s} x{n}" for s, n in sorted(statuses.items())))
    details.insert(1, "cases per operation: " + ", ".join(f"{label} {n}" for label, n in sorted(cases.items())))
    return Part(
        name="API fuzzing",
        counts=counts,
        target="0 responses >= 500, 0 schema violations, 0 other check failures, 0 fuzzer errors",
        at_target=server_errors == 0 and violations == 0 and other == 0 and errors == 0 and bool(operations),
        details=details,
    )


def _app(home: Path, admin_key: str):
    from schema_search.connectors.ddl import catalog_from_ddl
    from schema_search.http import create_app
    from schema_search.settings import Settings
    from schema_search.workspace import Workspace

    workspace = Workspace(Settings(home=home, dense=False, admin_key=admin_key))
    shop = (REPO / "sample_schemas" / "shop.sql").read_text()
    workspace.catalogs.index_catalog(catalog_from_ddl(shop, catalog="shop", dialect="sqlite"))
    workspace.corpora.index(REPO / "sample_docs" / "handbook", corpus="handbook")
    return create_app(workspace=workspace)


def _config(examples: int, seed: int, admin_key: str):
    from schemathesis.config import SchemathesisConfig

    return SchemathesisConfig.from_dict(
        {
            "seed": seed,
            "workers": 1,  # two cores: the app and the generator each want one
            "continue-on-failure": True,  # every example of an operation, not up to its first failure
            # What the coverage phase learns from our 422s makes the fuzzer discard many
            # drawn uploads; Hypothesis would then give up on that operation after ~10.
            "suppress-health-check": ["filter_too_much", "too_slow"],
            "cache": {"enabled": False},
            "generation": {"mode": "all", "max-examples": examples, "database": "none"},  # nothing written to the repo
            "phases": {"stateful": {"enabled": False}},
            "auth": {"openapi": {"AdminKey": {"api_key": admin_key}}},
            "checks": {"positive_data_acceptance": {"expected-statuses": ACCEPTED}},
            "operations": [
                {"include-name-regex": name, "checks": {"positive_data_acceptance": {"expected-statuses": statuses}}}
                for name, statuses in CONTENT_CHECKED.items()
            ]
            # DELETE only a collection that does not exist: deleting the fixture's would turn every later call into a 404.
            + [{"include-method": "DELETE", "parameters": {"name": "scratch"}}],
        }
    )


def _detail(label: str, check, response) -> str:
    """One failure in a line: the operation, the check, the status, and the request as curl."""
    info = check.failure_info
    title = getattr(info.failure, "title", None) or type(info.failure).__name__ if info else "failed"
    status = f" -> {response.status_code}" if response is not None else ""
    request = " ".join(info.code_sample.split())[:240] if info else ""
    return f"{label}: {check.name}: {title}{status}: {request}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eval.reliability.fuzz", description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=100, help="generated cases per operation (default 100)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    part = run(args.examples, args.seed)
    return show([part])


if __name__ == "__main__":
    raise SystemExit(main())
