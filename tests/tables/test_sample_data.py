"""The sample fixtures are consistent: cases name real tables, value cases name real values,
off-topic questions are off topic, and crm_data.sql loads on top of crm.sql.

Fast: no model, no index. The load test needs PostgreSQL at ``SCHEMA_SEARCH_TEST_PG_URL``
(a role with CREATEDB); without one it skips, except under ``CI``, where it fails.
"""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from schema_search.connectors.ddl import catalog_from_ddl

from ..conftest import SAMPLES
from ..connectors.test_sqlalchemy import PG_URL, pg_admin  # noqa: F401 - pg_admin is a fixture: skips without a server

# Words too common to say which table a question is about, even when a row holds them.
_COMMON = """a an and any are as at be by did do does for from get got has have how in is it its
    list me more most my of on or our per show that the their them there these they this
    those to us was we were what when where which who whose why with all each every many
    much still yet not than then into out over under been being can could should would
    open active new last next year month week day today now right give tell write find"""
STOPWORDS = frozenset(_COMMON.split())


def _jsonl(name):
    return [json.loads(line) for line in (SAMPLES / name).read_text().splitlines() if line.strip()]


def _words(text):
    return set(re.findall(r"[a-z0-9]+", text.lower()))


@pytest.fixture(scope="module")
def crm_catalog():
    return catalog_from_ddl((SAMPLES / "crm.sql").read_text(), catalog="crm", dialect="postgres")


@pytest.fixture(scope="module")
def data_literals():
    """The string literals of crm_data.sql, by the table whose statement holds them."""
    literals: dict[str, list[str]] = {}
    table = None
    for line in (SAMPLES / "crm_data.sql").read_text().splitlines():
        if line.startswith("--"):
            continue
        start = re.match(r"(?:INSERT INTO|UPDATE)\s+([a-z_]+\.[a-z_0-9]+)", line)
        if start:
            table = start.group(1)
        if table:
            literals.setdefault(table, []).extend(s.replace("''", "'") for s in re.findall(r"'((?:[^']|'')*)'", line))
    return literals


def test_every_gold_table_is_a_table_or_view_of_crm_sql(crm_catalog):
    ids = {t.id for t in crm_catalog.tables}
    assert (len(ids), sum(t.kind == "view" for t in crm_catalog.tables)) == (221, 9)
    for name in ("crm_cases.jsonl", "crm_value_cases.jsonl"):
        for case in _jsonl(name):
            gold = case["gold_tables"]
            assert gold and len(gold) == len(set(gold)), case["id"]
            assert all(g == g.lower() for g in gold), case["id"]
            assert set(gold) <= ids, (case["id"], sorted(set(gold) - ids))


def test_case_ids_are_unique_and_numbered():
    cases, values = _jsonl("crm_cases.jsonl"), _jsonl("crm_value_cases.jsonl")
    every = [c["id"] for c in cases + values]
    assert len(every) == len(set(every)), [i for i, n in Counter(every).items() if n > 1]
    assert [c["id"] for c in cases] == [f"crm_{n}" for n in range(1, len(cases) + 1)]
    assert [c["id"] for c in values] == [f"crm_v{n}" for n in range(1, len(values) + 1)]
    assert all(c["question"].strip() for c in cases + values)


def test_the_new_cases_say_their_kind():
    cases = _jsonl("crm_cases.jsonl")
    assert all("kind" not in c for c in cases[:50])  # the original 50 stay as they were
    kinds = Counter(c["kind"] for c in cases[50:])
    assert set(kinds) == {"entity", "business"} and kinds["entity"] >= 14 and kinds["business"] >= 10, kinds
    values = _jsonl("crm_value_cases.jsonl")
    assert len(values) >= 10 and {c["kind"] for c in values} == {"value"}


def test_value_cases_name_a_value_that_a_gold_table_holds(data_literals):
    for case in _jsonl("crm_value_cases.jsonl"):
        assert case["values"], case["id"]
        for value in case["values"]:
            assert value.lower() in case["question"].lower(), (case["id"], value)
            holders = [t for t, strings in data_literals.items() if any(value.lower() in s.lower() for s in strings)]
            assert set(holders) & set(case["gold_tables"]), (case["id"], value, holders)


def test_value_cases_share_a_distinctive_word_with_the_data(crm_catalog, data_literals):
    identifiers = set()
    for table in crm_catalog.tables:
        identifiers |= _words(table.id.replace("_", " ").replace(".", " "))
        for column in table.columns:
            identifiers |= _words(column.name.replace("_", " "))
    data_words = set().union(*(_words(s) for strings in data_literals.values() for s in strings))
    for case in _jsonl("crm_value_cases.jsonl"):
        distinctive = {w for w in _words(case["question"]) if len(w) > 2} - STOPWORDS - identifiers
        assert distinctive & data_words, (case["id"], sorted(distinctive))


def test_data_file_covers_the_requested_values(data_literals):
    accounts = data_literals["crm.accounts"]
    for name in ("xmagnet", "Acme Ltd", "Acme GmbH", "Nordwind Logistics"):
        assert name in accounts
    assert sum(1 for s in accounts if s.startswith("Acme ")) >= 2  # the same word on two companies, on purpose
    # Plain fixed literals: nothing that changes from one load to the next.
    text = (SAMPLES / "crm_data.sql").read_text().lower()
    for volatile in ("now()", "random(", "current_date", "current_timestamp", "gen_random_uuid"):
        assert volatile not in text, volatile


def test_off_topic_questions_are_plain_and_off_topic(crm_catalog):
    lines = _jsonl("off_topic.jsonl")
    assert len(lines) >= 12
    assert all(set(x) == {"id", "question"} and x["question"].strip() for x in lines)
    assert [x["id"] for x in lines] == [f"off_{n}" for n in range(1, len(lines) + 1)]
    questions = [x["question"] for x in lines]
    assert {"how do I bake sourdough bread", "Tell me a joke about penguins"} <= set(questions)
    for opening in ("what", "which", "how", "show me", "list", "give me"):
        assert any(q.lower().startswith(opening) for q in questions), opening
    shop = catalog_from_ddl((SAMPLES / "shop.sql").read_text(), catalog="shop", dialect="sqlite")

    def singular(word):
        return word[:-1] if word.endswith("s") and len(word) > 3 else word

    table_words = {
        singular(w) for t in crm_catalog.tables + shop.tables for w in _words(t.name.replace("_", " ")) if len(w) > 2
    }
    for question in questions:
        clash = {singular(w) for w in _words(question) - STOPWORDS} & table_words
        assert not clash, (question, clash)


@pytest.fixture(scope="module")
def sample_db(request):
    """A scratch database with crm.sql and crm_data.sql loaded (``eval.tables.samples``); dropped afterwards."""
    request.getfixturevalue("pg_admin")  # skips without a server
    from sqlalchemy import create_engine

    from eval.tables.samples import crm_database

    with crm_database(PG_URL) as url:
        engine = create_engine(url.replace("postgresql://", "postgresql+psycopg2://", 1))
        try:
            yield engine
        finally:
            engine.dispose()


@pytest.mark.postgres
def test_crm_data_loads_on_crm_sql(sample_db):
    with sample_db.connect() as connection:

        def scalar(sql):
            return connection.exec_driver_sql(sql).scalar()

        counts = {
            t: scalar(f"SELECT count(*) FROM {t}")
            for t in (
                "crm.accounts",
                "crm.contacts",
                "crm.opportunities",
                "billing.invoices",
                "support.tickets",
                "health.members",
            )
        }
        assert counts == {
            "crm.accounts": 32,
            "crm.contacts": 54,
            "crm.opportunities": 38,
            "billing.invoices": 81,
            "support.tickets": 34,
            "health.members": 19,
        }
        tables = (
            connection.exec_driver_sql(
                "SELECT table_schema || '.' || table_name FROM information_schema.tables "
                "WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')"
            )
            .scalars()
            .all()
        )
        assert len(tables) == 212
        empty = [t for t in tables if not scalar(f"SELECT EXISTS (SELECT 1 FROM {t})")]
        assert not empty, empty
        for view in (
            "analytics.v_pmpm",
            "analytics.v_mrr",
            "analytics.v_open_ar",
            "analytics.v_pipeline_by_stage",
            "analytics.v_csat_by_agent",
            "health.v_active_members",
            "crm.v_account_primary_contact",
        ):
            assert scalar(f"SELECT count(*) FROM {view}") > 0, view
        assert (
            scalar(
                "SELECT count(*) FROM crm.accounts WHERE account_name IN ('xmagnet', 'Acme Ltd', 'Acme GmbH', 'Nordwind Logistics')"
            )
            == 4
        )
        # The identity sequences were moved past the explicit ids: a plain insert gets a fresh one.
        assert scalar("INSERT INTO crm.tags (tag_name) VALUES ('probe') RETURNING tag_id") > 8
