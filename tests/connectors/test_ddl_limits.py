"""DDL past SCHEMA_SEARCH_MAX_DDL_BYTES is refused before it is read, with the size, the limit and the variable."""

from __future__ import annotations

import pytest

from schema_search.cli import main
from schema_search.connectors import ddl
from schema_search.errors import PayloadTooLarge

TABLE = "CREATE TABLE crm.accounts (id BIGINT PRIMARY KEY, name TEXT);\n"


def _sparse(path, size: int):
    """A file of ``size`` bytes that takes no disk and no time to write (what a 200 MB dump looks like to stat)."""
    with open(path, "wb") as file:
        file.truncate(size)
    return path


def test_a_file_over_the_default_limit_is_refused_without_reading_it(tmp_path, monkeypatch):
    big = _sparse(tmp_path / "dump.sql", 200_000_000)
    monkeypatch.setattr(type(big), "read_text", lambda *a, **k: pytest.fail("the file was read"))
    with pytest.raises(PayloadTooLarge) as refused:
        ddl.introspect(str(big), catalog="dump")
    message = str(refused.value)
    assert "200,000,000 bytes" in message and "100,000,000" in message and "SCHEMA_SEARCH_MAX_DDL_BYTES" in message
    assert str(big) in message


def test_the_files_of_a_folder_count_together(tmp_path):
    for name in ("a.sql", "b.sql"):
        (tmp_path / name).write_text(TABLE)
    size = 2 * len(TABLE)
    with pytest.raises(
        PayloadTooLarge, match=f"The 2 DDL files in .* are together {size} bytes; the limit is {size - 1}"
    ):
        ddl.introspect(str(tmp_path), catalog="c", max_bytes=size - 1)
    assert len(ddl.introspect(str(tmp_path), catalog="c", max_bytes=size).tables) == 1


def test_text_is_measured_in_utf8_bytes():
    text = TABLE + "COMMENT ON TABLE crm.accounts IS 'Kunden – Übersicht';\n"  # two 2-byte and one 3-byte characters
    size = len(text.encode())
    assert size > len(text)
    with pytest.raises(PayloadTooLarge, match=f"is {size} bytes; the limit is {size - 1} bytes"):
        ddl.catalog_from_ddl(text, catalog="c", dialect="postgres", max_bytes=size - 1)
    assert ddl.catalog_from_ddl(text, catalog="c", dialect="postgres", max_bytes=size).tables[0].comment


def test_the_cli_says_so_at_once_and_exits_1(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SCHEMA_SEARCH_HOME", str(tmp_path / "home"))
    big = _sparse(tmp_path / "dump.sql", 200_000_000)
    assert main(["index", str(big), "--catalog", "dump"]) == 1
    error = capsys.readouterr().err
    assert "200,000,000 bytes" in error and "SCHEMA_SEARCH_MAX_DDL_BYTES" in error


def test_parsing_reports_progress_for_text_too():
    seen = {}

    def progress(items, label):
        seen[label] = len(items)
        return items

    ddl.catalog_from_ddl(TABLE * 3, catalog="c", dialect="postgres", progress=progress)
    assert seen == {"parsing": 3}
