"""describe: cache by content hash, comments kept, progress kept on failure, re-indexing, CLI."""

from __future__ import annotations

import threading
import time
from dataclasses import replace

import pytest

from schema_search.cli import main
from schema_search.describe.describer import DescriptionFailed, EmptyDescription, ProviderUnavailable
from schema_search.describe.descriptions import read_descriptions
from schema_search.describe.run import (
    CACHE_FILE,
    PROMPT_VERSION,
    DescribeError,
    describe_and_index,
    describe_catalog,
)
from schema_search.tables.catalog import Column

from ..conftest import tiny_catalog


class FakeDescriber:
    """Says which table it described; can fail on chosen tables."""

    def __init__(self, model="fake/model", refuse_at=None, fail=(), tag="about", slow_from=None):
        self.model = model
        self.provider = "fake"
        self.refuse_at, self.fail, self.tag, self.slow_from = refuse_at, set(fail), tag, slow_from
        self.calls: list[str] = []
        self._lock = threading.Lock()

    def describe(self, table, context):
        with self._lock:
            self.calls.append(table.id)
        if self.slow_from is not None and len(self.calls) > self.slow_from:
            time.sleep(1)
        if table.id == self.refuse_at:
            raise ProviderUnavailable(self.model, "fake", "AuthenticationError: bad key", "Set FAKE_API_KEY.")
        if table.id in self.fail:
            raise DescriptionFailed("ContextWindowExceededError: too long")
        return f"Zebra ledger {self.tag} {table.name}. {context}".strip()


def live(workspace, name="tiny"):
    return workspace.catalogs.searcher(name).catalog


def test_describes_every_table_with_provenance_and_keeps_comments(tiny_workspace):
    before = live(tiny_workspace)
    run = describe_and_index(tiny_workspace, "tiny", FakeDescriber(), concurrency=3)
    after = live(tiny_workspace)
    assert sorted(run.described) == sorted(t.id for t in before.tables)
    for old, new in zip(before.tables, after.tables):
        assert new.comment == old.comment and new.columns == old.columns  # DB comments never overwritten
        d = new.description
        assert d.text.startswith(f"Zebra ledger about {new.name}")
        assert (d.model, d.prompt_version, d.content_hash) == ("fake/model", PROMPT_VERSION, old.content_hash())
        assert d.generated_at.endswith("Z")
    accounts = after.table("crm.accounts")
    assert "Referenced by: crm.contacts (account_id)." in accounts.description.text  # the context reached it


def test_descriptions_are_searched_in_their_own_field_only(tiny_workspace):
    describe_and_index(tiny_workspace, "tiny", FakeDescriber(), concurrency=1)
    candidates = tiny_workspace.catalogs.search("tiny", "zebra ledger", k=10).candidates
    # Only the descriptions say "zebra ledger"; a description's match is not keyword
    # evidence on its own (a model wrote it), so the relevance floor keeps only the
    # tables the dense model also finds nearer than unrelated text.
    assert candidates
    for c in candidates:
        assert c.channels["descriptions"] and all(c.channels[f] is None for f in ("names", "text", "body"))


def test_rerun_skips_unchanged_tables_and_restores_from_the_cache(tiny_workspace):
    describe_and_index(tiny_workspace, "tiny", FakeDescriber(), concurrency=2)
    generation = tiny_workspace.catalogs.store.current("tiny").id

    again = FakeDescriber()
    run = describe_and_index(tiny_workspace, "tiny", again)
    assert again.calls == [] and run.fresh == 5
    assert tiny_workspace.catalogs.store.current("tiny").id == generation  # nothing changed: no new generation

    # Re-indexing from the source drops descriptions; one table changed meanwhile.
    catalog = tiny_catalog()
    contacts = catalog.table("crm.contacts")
    changed = replace(contacts, columns=(*contacts.columns, Column("phone", "TEXT")))
    tiny_workspace.catalogs.index_catalog(
        catalog.with_tables(changed if t.id == contacts.id else t for t in catalog.tables)
    )
    third = FakeDescriber(tag="now")
    run = describe_and_index(tiny_workspace, "tiny", third)
    assert third.calls == ["crm.contacts"]
    assert sorted(run.reused) == sorted(t.id for t in catalog.tables if t.id != "crm.contacts")
    assert live(tiny_workspace).table("crm.contacts").description.text.startswith("Zebra ledger now")
    assert live(tiny_workspace).table("crm.accounts").description.text.startswith("Zebra ledger about")


def test_only_all_and_a_new_model_describe_again(tiny_workspace):
    describe_and_index(tiny_workspace, "tiny", FakeDescriber())
    everything = FakeDescriber()
    assert len(describe_and_index(tiny_workspace, "tiny", everything, only="all").described) == 5
    other = FakeDescriber(model="fake/other")
    describe_and_index(tiny_workspace, "tiny", other)
    assert len(other.calls) == 5
    assert {t.description.model for t in live(tiny_workspace).tables} == {"fake/other"}


def test_a_refusing_provider_stops_the_run_and_keeps_what_was_described(tiny_workspace):
    order = [t.id for t in tiny_catalog().tables]
    refusing = FakeDescriber(refuse_at=order[2])
    with pytest.raises(DescribeError) as caught:
        describe_and_index(tiny_workspace, "tiny", refusing, concurrency=1)
    error = caught.value
    assert order[2] in error.detail and "fake/model" in error.detail and "provider fake" in error.detail
    assert "Set FAKE_API_KEY." in error.hint and "2 tables described" in error.hint
    assert refusing.calls == order[:3]  # nothing was sent after the refusal
    kept = {t.id for t in live(tiny_workspace).tables if t.description}
    assert kept == set(order[:2])  # indexed before the error was raised
    assert len(read_descriptions(tiny_workspace.catalogs.store.root / "tiny" / CACHE_FILE)) == 2

    resumed = FakeDescriber()
    describe_and_index(tiny_workspace, "tiny", resumed)
    assert resumed.calls == order[2:]
    assert all(t.description for t in live(tiny_workspace).tables)


def test_ctrl_c_indexes_what_was_described(tiny_workspace):
    order = [t.id for t in tiny_catalog().tables]
    ticks = []

    def progress(total):
        def tick():
            ticks.append(1)
            if len(ticks) == 2:
                raise KeyboardInterrupt  # Ctrl-C lands on the main thread, here while the 3rd call runs

        return tick

    slow = FakeDescriber(slow_from=2)
    run = describe_and_index(tiny_workspace, "tiny", slow, concurrency=1, progress=progress)
    assert run.interrupted and run.described == order[:3]  # the call in flight is kept, queued ones never start
    assert slow.calls == order[:3]
    assert {t.id for t in live(tiny_workspace).tables if t.description} == set(order[:3])


def test_one_failing_table_does_not_stop_the_others(tiny_workspace):
    run = describe_and_index(tiny_workspace, "tiny", FakeDescriber(fail={"crm.contacts"}))
    assert run.failed == {"crm.contacts": "ContextWindowExceededError: too long"} and run.stopped is None
    assert len(run.described) == 4
    assert live(tiny_workspace).table("crm.contacts").description is None


def test_a_run_where_nothing_works_stops_but_later_failures_only_count():
    catalog = tiny_catalog()
    run = describe_catalog(catalog, FakeDescriber(fail={t.id for t in catalog.tables}), concurrency=1)
    assert run.stopped is not None and "the first 5 tables" in run.stopped[1].reason
    bigger = catalog.with_tables([*catalog.tables, *(replace(t, schema="copy") for t in catalog.tables)])
    failing = {t.id for t in bigger.tables[1:]}
    run = describe_catalog(bigger, FakeDescriber(fail=failing), concurrency=1)
    assert run.stopped is None and len(run.failed) == 9 and len(run.described) == 1


def test_empty_answers_never_stop_a_run():
    class Echo(FakeDescriber):
        def describe(self, table, context):
            raise EmptyDescription("the model returned no description")

    run = describe_catalog(tiny_catalog(), Echo(), concurrency=1)
    assert run.stopped is None and len(run.empty) == 5 and run.failed == {}


def test_progress_counts_every_table_to_describe():
    ticks = []
    run = describe_catalog(tiny_catalog(), FakeDescriber(), progress=lambda total: lambda: ticks.append(total))
    assert ticks == [5] * 5 and len(run.described) == 5


def test_cli_describe(tiny_workspace, monkeypatch, capsys):
    import schema_search.describe.run as describe

    monkeypatch.setattr(describe, "litellm_describer", lambda settings, model=None: FakeDescriber(model or "fake/x"))
    home = ["--home", str(tiny_workspace.settings.home)]
    assert main([*home, "describe", "--catalog", "tiny", "--model", "fake/y", "--only", "ALL"]) == 0
    out = capsys.readouterr().out
    assert "Described 5 tables" in out and "0 failed" in out
    assert main([*home, "table", "crm.accounts", "--catalog", "tiny"]) == 0
    assert "Description (fake/y): Zebra ledger about accounts" in capsys.readouterr().out


def test_cli_describe_without_a_key_says_what_to_set(tiny_workspace, monkeypatch, capsys):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    home = ["--home", str(tiny_workspace.settings.home)]
    assert main([*home, "describe", "--catalog", "tiny", "--model", "openai/gpt-4o-mini"]) == 1
    err = capsys.readouterr().err
    assert "error: " in err and "OPENAI_API_KEY" in err and "Traceback" not in err
    assert main([*home, "describe", "--catalog", "nope"]) == 1
    assert "No catalog named 'nope'" in capsys.readouterr().err


@pytest.mark.slow
def test_embedded_model_describes_a_small_catalog_end_to_end(tmp_path, capsys):
    """The default model (SmolLM2-135M via llama.cpp, through litellm): no key, no network."""
    ddl = tmp_path / "shop.sql"
    ddl.write_text(
        "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, email TEXT);\n"
        "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id), total REAL);\n"
        "CREATE TABLE order_items (order_id INTEGER REFERENCES orders(id), sku TEXT, qty INTEGER);\n"
    )
    home = ["--home", str(tmp_path / "home")]
    assert main([*home, "index", str(ddl), "--catalog", "shop", "--dialect", "sqlite"]) == 0
    assert main([*home, "describe", "--catalog", "shop"]) == 0
    assert "Described 3 tables" in capsys.readouterr().out
    from schema_search.settings import Settings
    from schema_search.workspace import Workspace

    tables = Workspace(Settings(home=tmp_path / "home")).catalogs.searcher("shop").catalog.tables
    assert len(tables) == 3
    for table in tables:
        assert table.description.model == "local/smollm2" and len(table.description.text) > 20
