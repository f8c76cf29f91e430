"""The README is part of the product: its settings table and commands must stay true."""

import re
from pathlib import Path

from schema_search.settings import Settings

from ..conftest import REPO

README = (REPO / "README.md").read_text()


def test_every_setting_is_documented_in_the_readme_table():
    documented = set(re.findall(r"^\| `SCHEMA_SEARCH_([A-Z_]+)` \|", README, flags=re.M))
    expected = {name.upper() for name in Settings.model_fields}
    missing, stale = expected - documented, documented - expected
    assert not missing, f"add rows to README's Configuration table for: {sorted(missing)}"
    assert not stale, f"README documents settings that no longer exist: {sorted(stale)}"


def test_every_setting_has_a_description():
    assert all(field.description for field in Settings.model_fields.values())


def test_ci_runs_the_readme_test_command():
    assert "bash scripts/test.sh" in README
    assert "scripts/test.sh" in (REPO / ".ci" / "run").read_text()


def _module_map() -> list[tuple[str, str]]:
    """(room, what it owns) per row of the README's table under "Where things live"."""
    section = README.split("### Where things live", 1)[1].split("Where does it happen?", 1)[0]
    rows = [line.split("|")[1:-1] for line in section.splitlines() if line.startswith("| ") and "---" not in line]
    return [(cells[1], cells[2]) for cells in rows[1:]]


def _folder(room: str) -> Path:
    if room in ("eval/", "connectors/"):
        return REPO / room
    return REPO / "schema_search" / room


def test_the_readme_module_map_matches_the_tree():
    named, missing = set(), []
    for rooms, owns in _module_map():
        here = re.findall(r"`([a-z_]+(?:/|\.py))`", rooms)
        named.update(here)
        missing += [room for room in here if not _folder(room).exists()]
        folders = [_folder(room) for room in here if room.endswith("/")]
        if folders:  # every file the row names is in one of its rooms
            files = re.findall(r"`([a-z_]+\.py)`", owns)
            missing += [f for f in files if not any(list(folder.rglob(f)) for folder in folders)]
    rooms = {f"{p.name}/" for p in (REPO / "schema_search").iterdir() if (p / "__init__.py").exists()}
    rooms |= {p.name for p in (REPO / "schema_search").glob("*.py") if p.name != "__init__.py"}
    assert not missing, f"the README's module map names what is not there: {missing}"
    assert rooms <= named, f"add these to the README's module map: {sorted(rooms - named)}"


def test_where_it_happens_names_real_files():
    section = README.split("Where does it happen?", 1)[1].split("\n\n", 2)[1]
    paths = re.findall(r"`([a-z_]+/[a-z_]+\.py|[a-z_]+\.py)`", section)
    assert paths and all((REPO / "schema_search" / p).is_file() for p in paths), paths
