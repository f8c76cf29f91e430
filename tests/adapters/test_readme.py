"""The README is part of the product: its settings table and commands must stay true."""

import re

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
