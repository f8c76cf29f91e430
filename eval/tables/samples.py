"""The sample cases: CRM questions of the kinds benchmarks lack, values in a live database, off-topic questions.

``sample_schemas/`` holds a 221-table CRM schema (``crm.sql``) with rows for it
(``crm_data.sql``), and cases written the way people ask:

* ``crm_cases.jsonl``: the original 50 (tuned on), then *entity* cases (the question
  names a customer, agent or vendor that only a foreign key reaches) and *business*
  cases (words no table name uses), asked of the DDL;
* ``crm_value_cases.jsonl``: questions that name a stored value ("contacts of
  xmagnet"), asked of the CRM loaded into PostgreSQL and indexed from its URL, so
  value hints are sampled; and once more with value hints off;
* ``off_topic.jsonl``: questions no CRM answers, asked of the CRM and the shop;
* ``shop_cases.jsonl``: the small SQLite shop.

Each configuration is the shipped default or one new stage switched off::

    .venv/bin/python -m eval.tables.samples --json eval/results/samples.json

The PostgreSQL part needs a server where the URL's role may create databases
(``scripts/setup_postgres.sh`` prints one); without one it is left out, and said so.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from schema_search.settings import Settings
from schema_search.tables.search import SearchConfig
from schema_search.workspace import Workspace

SAMPLES = Path(__file__).resolve().parents[2] / "sample_schemas"
PG_URL = os.environ.get(
    "SCHEMA_SEARCH_TEST_PG_URL", "postgresql://schema_search:schema_search@127.0.0.1:5432/schema_search_test"
)
KS = (5, 10)
# name -> what to switch off in the shipped SearchConfig.
ABLATIONS = {
    "default": {},
    "no entity completion": {"complete_entities": False},
    "no join completion": {"complete_joins": False},
    # The shipped ranking over the live database indexed with SCHEMA_SEARCH_VALUE_HINTS=false
    # (the DDL sets have no values either way).
    "no value hints": {},
}
NO_VALUES = "no value hints"


def cases(name: str) -> list[dict]:
    return [json.loads(line) for line in (SAMPLES / name).read_text(encoding="utf-8").splitlines() if line.strip()]


def groups() -> dict[str, list[dict]]:
    """The DDL case sets: the original 50 (which ranking was tuned on), then the new ones by kind."""
    every = cases("crm_cases.jsonl")
    out = {"crm original (tuned on)": [c for c in every if "kind" not in c]}
    for kind in ("entity", "business"):
        out[f"crm {kind} (held out)"] = [c for c in every if c.get("kind") == kind]
    out["crm all"] = every
    return out


def recall(workspace: Workspace, catalog: str, config: SearchConfig, items: Sequence[dict]) -> dict[int, float]:
    """All-gold recall at each k: a case counts when every gold table is in the first k."""
    searcher = workspace.catalogs.searcher(catalog)
    hits = {k: 0 for k in KS}
    for case in items:
        for k in KS:
            found = {r.id for r in searcher.search(case["question"], k, config).ranked}
            hits[k] += set(case["gold_tables"]) <= found
    return {k: hits[k] / len(items) for k in KS}


def off_topic_share(workspace: Workspace, catalog: str, config: SearchConfig, questions: Sequence[str]) -> float:
    searcher = workspace.catalogs.searcher(catalog)
    return sum(searcher.search(q, 10, config).off_topic for q in questions) / len(questions)


def configured(workspace: Workspace, change: dict) -> SearchConfig:
    return replace(workspace.catalogs.config(), **change)


@contextmanager
def crm_database(admin_url: str = PG_URL) -> Iterator[str]:
    """A scratch PostgreSQL database with ``crm.sql`` and ``crm_data.sql`` loaded; its URL. Dropped after.

    Raises:
        sqlalchemy.exc.OperationalError: the server is not reachable.
    """
    from sqlalchemy import create_engine, make_url

    admin = create_engine(
        make_url(admin_url).set(drivername="postgresql+psycopg2"),
        connect_args={"connect_timeout": 3},
        isolation_level="AUTOCOMMIT",
    )
    name = f"ss_sample_{uuid.uuid4().hex[:8]}"
    try:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
        url = admin.url.set(database=name)
        loader = create_engine(url)
        try:
            raw = loader.raw_connection()
            try:
                with raw.cursor() as cursor:
                    cursor.execute((SAMPLES / "crm.sql").read_text(encoding="utf-8"))
                    cursor.execute((SAMPLES / "crm_data.sql").read_text(encoding="utf-8"))
                raw.commit()
            finally:
                raw.close()
        finally:
            loader.dispose()
        yield url.set(drivername="postgresql").render_as_string(hide_password=False)
    finally:
        _drop(admin, name)
        admin.dispose()


def _drop(admin, name: str, tries: int = 20) -> None:
    """Drop database ``name``; a moment later when an autovacuum worker holds it.

    ``WITH (FORCE)`` ends the sessions of our own role, but only a superuser may end an
    autovacuum worker, which a freshly loaded database often has: it finishes in moments.
    """
    from sqlalchemy.exc import ProgrammingError

    for attempt in range(tries):
        try:
            with admin.connect() as connection:
                connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            return
        except ProgrammingError as error:
            if "must be a member of the role" not in str(error) or attempt == tries - 1:
                raise
            time.sleep(0.5)


def run(pg_url: str | None = PG_URL, settings: Settings | None = None) -> dict:
    """Every set under every configuration; ``pg_url`` ``None`` leaves the value cases out."""
    off_topic = [c["question"] for c in cases("off_topic.jsonl")]
    with tempfile.TemporaryDirectory(prefix="schema-search-samples-") as home:
        workspace = Workspace((settings or Settings()).model_copy(update={"home": Path(home)}))
        workspace.catalogs.index(str(SAMPLES / "crm.sql"), catalog="crm")
        workspace.catalogs.index(str(SAMPLES / "shop.sql"), catalog="shop")
        rows: dict[str, dict] = {}
        for name, change in ABLATIONS.items():
            config = configured(workspace, change)
            row = {
                f"{group} ({len(items)})": recall(workspace, "crm", config, items) for group, items in groups().items()
            }
            row[f"shop ({len(cases('shop_cases.jsonl'))})"] = recall(
                workspace, "shop", config, cases("shop_cases.jsonl")
            )
            row["off topic, crm"] = off_topic_share(workspace, "crm", config, off_topic)
            row["off topic, shop"] = off_topic_share(workspace, "shop", config, off_topic)
            rows[name] = row
        note = None
        if pg_url:
            try:
                with crm_database(pg_url) as url:
                    workspace.catalogs.index(url, catalog="crm_live")
                    unsampled = Workspace(workspace.settings.model_copy(update={"value_hints": False}))
                    unsampled.catalogs.index(url, catalog="crm_live_no_values")
                    values = cases("crm_value_cases.jsonl")
                    for name, change in ABLATIONS.items():
                        config = configured(workspace, change)
                        live = "crm_live_no_values" if name == NO_VALUES else "crm_live"
                        rows[name][f"crm values, live PostgreSQL ({len(values)})"] = recall(
                            workspace, live, config, values
                        )
                        rows[name][f"crm values, DDL only ({len(values)})"] = recall(workspace, "crm", config, values)
            except Exception as error:  # noqa: BLE001 - any failure to reach the server is reported, not fatal
                note = f"value cases left out: {type(error).__name__}: {str(error).strip().splitlines()[0]}"
        else:
            note = "value cases left out: no PostgreSQL URL"
    return {"rows": rows, "note": note, "off_topic_questions": len(off_topic)}


def markdown(result: dict) -> str:
    rows = result["rows"]
    sets = list(next(iter(rows.values())))
    lines = ["| set | " + " | ".join(rows) + " |", "|---|" + "---:|" * len(rows)]
    for name in sets:
        cells = []
        for config in rows:
            value = rows[config].get(name)
            if value is None:
                cells.append("")
            elif isinstance(value, dict):
                cells.append(" / ".join(f"{value[k]:.2f}" for k in KS))
            else:
                cells.append(f"{value:.2f}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append(
        f"All-gold recall@{KS[0]} / @{KS[1]}; off topic: share of {result['off_topic_questions']} "
        "off-topic questions answered `off_topic`."
    )
    if result["note"]:
        lines.append(f"Note: {result['note']}.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pg-url", default=PG_URL, help="a PostgreSQL role that may create databases")
    parser.add_argument("--no-pg", action="store_true", help="leave the value cases (PostgreSQL) out")
    parser.add_argument("--json", type=Path, help="write the figures as JSON")
    args = parser.parse_args(argv)
    result = run(None if args.no_pg else args.pg_url)
    print(markdown(result))
    if args.json:
        serialisable = {
            **result,
            "rows": {
                c: {
                    s: ({f"recall@{k}": round(v[k], 4) for k in KS} if isinstance(v, dict) else round(v, 4))
                    for s, v in r.items()
                }
                for c, r in result["rows"].items()
            },
        }
        args.json.write_text(json.dumps(serialisable, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
