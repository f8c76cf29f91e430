"""The CLI's conventions: --version, global options anywhere, stdout for results only, help and
examples on every command, ``delete``, views, and progress that does not run ahead."""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import subprocess
import sys
import weakref

import pytest

from eval.csr import __main__ as eval_csr
from eval.docs import __main__ as eval_docs
from eval.tables import __main__ as eval_tables
from schema_search import __version__
from schema_search.cli import main
from schema_search.cli.main import _parser, prepared
from schema_search.cli.output import confirm
from schema_search.core.index import open_index
from schema_search.settings import Settings
from schema_search.workspace import Workspace

from ..conftest import HANDBOOK, SAMPLES

DDL = """
CREATE TABLE crm.accounts (id BIGINT PRIMARY KEY, name TEXT, industry TEXT);
CREATE TABLE crm.contacts (id BIGINT PRIMARY KEY, account_id BIGINT REFERENCES crm.accounts(id), email TEXT);
ALTER TABLE crm.nope ADD COLUMN x INT;
"""


def _subcommands(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """Every parser under ``parser``, nested groups (``docs ...``) included."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command in dict.fromkeys(action.choices.values()):
                found += [command, *_subcommands(command)]
    return found


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("SCHEMA_SEARCH_DENSE", "false")
    monkeypatch.delenv("SCHEMA_SEARCH_HOME", raising=False)
    (tmp_path / "crm.sql").write_text(DDL)
    return tmp_path / "home"


def _index(home, tmp_path, name="crm"):
    return main(["index", str(tmp_path / "crm.sql"), "--catalog", name, "--dialect", "postgres", "--home", str(home)])


def test_version_prints_the_package_version(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.strip() == f"schemasift {__version__}"


@pytest.mark.parametrize("where", ["before", "after"])
def test_home_works_before_and_after_the_command(home, tmp_path, capsys, where):
    assert _index(home, tmp_path) == 0
    capsys.readouterr()
    search = ["search", "industry", "--catalog", "crm"]
    argv = ["--home", str(home), *search] if where == "before" else [*search, "--home", str(home)]
    assert main(argv) == 0
    assert "crm.accounts" in capsys.readouterr().out


def test_home_after_a_nested_command_and_not_overwritten_by_its_default(home, tmp_path, capsys):
    assert main(["docs", "index", str(HANDBOOK), "--corpus", "hb", "--home", str(home)]) == 0
    capsys.readouterr()
    assert main(["--home", str(home), "docs", "search", "vacation days", "--corpus", "hb"]) == 0
    assert main(["docs", "search", "vacation days", "--corpus", "hb", "--home", str(home)]) == 0
    assert "passages in corpus 'hb'" in capsys.readouterr().out


def test_every_command_takes_the_global_options_even_those_built_elsewhere():
    parser = _parser()
    for command in _subcommands(parser):
        flags = set(command._option_string_actions)
        assert {"--home", "--config"} <= flags, command.prog
    args = parser.parse_args(["ask", "q?", "--catalog", "c", "--model", "m", "--home", "/tmp/h", "--config", "c.toml"])
    assert (str(args.home), str(args.config_file)) == ("/tmp/h", "c.toml")
    args = parser.parse_args(["--home", "/tmp/h", "mcp", "--catalog", "c"])
    assert args.home == "/tmp/h" and args.config_file is None


def test_config_file_is_passed_to_settings(home, tmp_path, capsys):
    config = tmp_path / "schema-search.toml"
    config.write_text("")
    assert _index(home, tmp_path) == 0
    capsys.readouterr()
    assert main(["catalogs", "--json", "--home", str(home), "--config", str(tmp_path / "missing.toml")]) == 1
    assert "missing.toml" in capsys.readouterr().err
    assert main(["catalogs", "--json", "--home", str(home), "--config", str(config)]) == 0


def test_index_warnings_go_to_stderr_and_json_stdout_is_only_json(home, tmp_path, capsys):
    assert _index(home, tmp_path) == 0
    captured = capsys.readouterr()
    assert "warning:" in captured.err and "warning:" not in captured.out
    assert captured.out.startswith("Indexed catalog 'crm'")
    assert main(["index", str(tmp_path / "crm.sql"), "--catalog", "crm", "--home", str(home), "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["catalog"]["warnings"]
    assert "Reading" in captured.err


def _commands(parser=None):
    """Every command, without those that moved to the eval suite (they only forward; see test_cli.py)."""
    parser = parser or _parser()
    return [c for c in [parser, *_subcommands(parser)] if not c.get_default("moved")]


@pytest.mark.parametrize(
    "parser, prefix",
    [
        (_parser, "schemasift"),
        *[(module.parser, f"python -m {module.__package__}") for module in (eval_tables, eval_docs, eval_csr)],
    ],
    ids=["schemasift", "eval.tables", "eval.docs", "eval.csr"],
)
def test_every_argument_has_help_and_every_command_examples(parser, prefix):
    missing_help, no_examples = [], []
    for command in _commands(prepared(parser())):
        missing_help += [f"{command.prog} {a.dest}" for a in command._actions if not a.help]
        lines = (command.epilog or "").splitlines()
        examples = [line for line in lines[1:] if line.startswith(f"  {prefix}")]
        if not lines or lines[0] != "examples:" or not 1 <= len(examples) <= 3:
            no_examples.append(command.prog)
    assert not missing_help, missing_help
    assert not no_examples, no_examples


def test_examples_keep_their_lines_in_the_help(capsys):
    with pytest.raises(SystemExit):
        main(["index", "--help"])
    out = capsys.readouterr().out
    assert "\nexamples:\n  schemasift index sample_schemas/shop.sql --catalog shop\n" in out


def test_the_examples_parse():
    parser = _parser()
    for command in _commands():
        for line in (command.epilog or "").splitlines()[1:]:
            words = re.findall(r"'[^']*'|\"(?:\\\\.|[^\"])*\"|\S+", line.strip())[1:]
            words = [w[1:-1] if w[:1] in "'\"" else w for w in words]
            try:
                parser.parse_args(words)
            except SystemExit:  # pragma: no cover - the message names the line
                pytest.fail(f"{command.prog}: example does not parse: {line}")


def test_delete_catalog_then_search_is_not_found_and_others_stay(home, tmp_path, capsys):
    assert _index(home, tmp_path, "crm") == 0 and _index(home, tmp_path, "other") == 0
    workspace = Workspace(Settings(home=home, dense=False))
    workspace.catalogs.searcher("other")
    capsys.readouterr()
    assert main(["delete", "--catalog", "crm", "--yes", "--home", str(home)]) == 0
    assert capsys.readouterr().out.strip() == "Deleted catalog 'crm'."
    assert not (home / "catalogs" / "crm").exists()
    assert main(["search", "industry", "--catalog", "crm", "--home", str(home)]) == 1
    assert "No catalog named 'crm'" in capsys.readouterr().err
    assert main(["search", "industry", "--catalog", "other", "--home", str(home)]) == 0
    # The same workspace (an HTTP server's) forgets the searcher it had open.
    workspace.catalogs.delete("other")
    with pytest.raises(Exception, match="No catalog named 'other'"):
        workspace.catalogs.search("other", "industry")
    assert (home / "catalogs").is_dir() and not (home / "catalogs" / "other").exists()


def test_workspace_delete_drops_its_cached_searcher(tmp_path):
    from ..conftest import tiny_catalog

    workspace = Workspace(Settings(home=tmp_path, dense=False))
    workspace.catalogs.index_catalog(tiny_catalog("a"))
    opened = weakref.ref(workspace.catalogs.searcher("a"))
    workspace.catalogs.delete("a")
    import gc

    gc.collect()
    assert opened() is None  # nothing keeps the deleted generation's index open


def test_delete_refuses_without_yes_when_not_on_a_terminal(home, tmp_path, capsys, monkeypatch):
    assert _index(home, tmp_path) == 0
    monkeypatch.setattr("sys.stdin", io.StringIO("y\n"))
    capsys.readouterr()
    assert main(["delete", "--catalog", "crm", "--home", str(home)]) == 1
    assert "--yes" in capsys.readouterr().err
    assert (home / "catalogs" / "crm").is_dir()


def test_delete_of_an_unknown_catalog_or_corpus_is_a_clear_error(home, capsys):
    assert main(["delete", "--catalog", "nope", "--yes", "--home", str(home)]) == 1
    assert "No catalog named 'nope'" in capsys.readouterr().err
    assert main(["docs", "delete", "--corpus", "nope", "--yes", "--home", str(home)]) == 1
    assert "No corpus named 'nope'" in capsys.readouterr().err


def test_docs_delete_removes_the_corpus(home, capsys):
    assert main(["docs", "index", str(HANDBOOK), "--corpus", "hb", "--home", str(home)]) == 0
    capsys.readouterr()
    assert main(["docs", "delete", "--corpus", "hb", "--yes", "--home", str(home)]) == 0
    assert "Deleted corpus 'hb'." in capsys.readouterr().out
    assert not (home / "corpora" / "hb").exists()
    assert main(["docs", "search", "vacation", "--corpus", "hb", "--home", str(home)]) == 1
    assert "No corpus named 'hb'" in capsys.readouterr().err


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_confirm_asks_on_a_terminal_on_stderr():
    err = io.StringIO()
    assert confirm("Delete catalog 'x'?", False, _Terminal("y\n"), err)
    assert err.getvalue() == "Delete catalog 'x'? [y/N] "
    assert not confirm("Delete catalog 'x'?", False, _Terminal("\n"), io.StringIO())
    assert confirm("Delete?", True, io.StringIO(""), io.StringIO())


def test_view_shows_its_definition_and_unknown_types(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SCHEMA_SEARCH_DENSE", "false")
    home = str(tmp_path / "home")
    assert main(["index", str(SAMPLES / "shop.sql"), "--catalog", "shop", "--home", home]) == 0
    capsys.readouterr()
    assert main(["table", "v_category_sales", "--catalog", "shop", "--home", home]) == 0
    out = capsys.readouterr().out
    assert "  category_id INT,\n  category_name TEXT,\n  units_sold,  -- type unknown\n" in out
    assert "SUM(oi.quantity) AS units_sold" in out  # the definition
    assert main(["table", "v_category_sales", "--catalog", "shop", "--home", home, "--json"]) == 0
    detail = json.loads(capsys.readouterr().out)
    assert {c["name"]: c["type"] for c in detail["columns"]} == {
        "category_id": "INT",
        "category_name": "TEXT",
        "units_sold": None,
        "revenue": None,
    }
    assert detail["definition"].startswith("CREATE VIEW v_category_sales AS")


# -- progress ------------------------------------------------------------------------


class Recorder:
    """A progress wrapper that counts like tqdm (an item is done when the next is asked for)."""

    def __init__(self, encoded):
        self.encoded = encoded  # how many texts the model has encoded so far
        self.events: list[tuple[str, int, int, int]] = []  # (label, done, total, encoded then)
        self.ended: dict[str, int] = {}

    def __call__(self, items, label):
        total = len(items)

        def run():
            self.events.append((label, 0, total, self.encoded()))
            for done, item in enumerate(items, 1):
                yield item
                self.events.append((label, done, total, self.encoded()))
            self.ended[label] = self.encoded()

        return run()


class Spy:
    """The real model, with a count of what it encoded (the test observes; the model works)."""

    def __init__(self, embedder):
        self.embedder, self.name, self.texts = embedder, embedder.name, 0

    def encode(self, texts):
        texts = list(texts)
        vectors = self.embedder.encode(texts)
        self.texts += len(texts)
        return vectors

    def __getattr__(self, name):
        return getattr(self.embedder, name)


def test_index_progress_reports_embedding_and_never_runs_ahead(tmp_path, monkeypatch):
    settings = Settings(home=tmp_path, embedding_threads=1)
    workspace = Workspace(settings)
    spy = Spy(workspace.embedder())
    monkeypatch.setattr(workspace, "embedder", lambda: spy)
    recorder = Recorder(lambda: spy.texts)
    workspace.catalogs.index(str(SAMPLES / "shop.sql"), catalog="shop", progress=recorder)
    embedding = [e for e in recorder.events if e[0] == "embedding"]
    assert embedding and embedding[0][2] == 12  # the phase is reported, for every table
    # No count claims more tables embedded than the model has encoded...
    assert all(done <= encoded for _, done, _, encoded in embedding), embedding
    # ...and the phase ends (100%) only when the last encode (the floor's calibration) is done.
    assert recorder.ended["embedding"] == spy.texts > 12


def test_writing_the_index_ends_after_the_index_is_committed(tmp_path):
    from schema_search.core.build import write_indexes
    from schema_search.tables.documents import TABLES

    from ..conftest import tiny_catalog

    committed = {}

    def recorder(items, label):
        yield from items
        if label == "writing the index":
            committed["searchable"] = open_index(tmp_path / "gen" / "index").searcher().num_docs

    (tmp_path / "gen").mkdir()
    tables = tiny_catalog().tables
    write_indexes(tmp_path / "gen", TABLES, tables, progress=recorder)
    assert committed["searchable"] == len(tables)


@pytest.mark.parametrize(
    "command",
    [
        ["search", "account contacts", "--catalog", "crm"],
        ["search", "accounts", "--catalog", "crm", "--json"],
        ["table", "accounts", "--catalog", "crm"],
    ],
)
def test_a_reader_that_goes_away_ends_the_command_quietly(home, tmp_path, command):
    # `schemasift search ... | head -1`: the pipe closes before the command writes.
    assert _index(home, tmp_path) == 0
    child = subprocess.Popen(
        [sys.executable, "-m", "schema_search.cli", *command, "--home", str(home)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "SCHEMA_SEARCH_DENSE": "false"},
    )
    child.stdout.close()  # the reader is gone before the first line
    err = child.stderr.read().decode()
    assert child.wait(timeout=120) == 141, err
    assert "Traceback" not in err and "BrokenPipe" not in err


def test_a_long_cell_is_cut_with_an_ellipsis_and_whole_in_json(home, tmp_path, capsys):
    assert _index(home, tmp_path) == 0
    capsys.readouterr()
    sql = "SELECT string_agg(table_id || '.' || name, ', ' ORDER BY table_id, position) AS all_columns FROM columns"
    assert main(["query", sql, "--catalog", "crm", "--home", str(home), "--json"]) == 0
    ((whole,),) = json.loads(capsys.readouterr().out)["rows"]
    assert len(whole) > 40
    assert main(["query", sql, "--catalog", "crm", "--home", str(home)]) == 0
    assert capsys.readouterr().out.splitlines()[2] == whole[:39] + "…"
