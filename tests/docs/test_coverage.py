"""The coverage second pass: the passage holding the asked-for fact is added when the first search lacks it."""

from __future__ import annotations

from schema_search.settings import Settings
from schema_search.workspace import Workspace


def _corpus(tmp_path, **settings) -> Workspace:
    folder = tmp_path / "docs"
    folder.mkdir(parents=True)
    (folder / "starter.md").write_text(
        "# Starter plan\n\nThe Starter plan gives you unlimited notebooks, sync on three devices and "
        "version history for your Starter workspace.\n"
    )
    (folder / "pricing.md").write_text("# Pricing\n\n| Plan | Monthly |\n|---|---|\n| Starter | €8 |\n| Team | €14 |\n")
    (folder / "usage.md").write_text("# Usage\n\nCreate a notebook, then share it with your team.\n")
    workspace = Workspace(Settings(home=tmp_path / "home", dense=False, **settings))
    workspace.corpora.index(folder, corpus="product")
    return workspace


def test_a_price_question_answered_by_a_page_without_a_price_gets_the_price(tmp_path):
    workspace = _corpus(tmp_path)
    response = workspace.corpora.search("product", "How much does the Starter plan cost per month?", 1)
    assert [r.title for r in response.results] == ["Pricing"]  # in place of the Starter page's last passage
    assert response.coverage is not None and response.coverage.looked_for == "a price"
    assert "price" in response.coverage.searched and response.coverage.added == [response.results[0].source_id]


def test_nothing_changes_when_the_fact_is_there_or_the_pass_is_off(tmp_path):
    workspace = _corpus(tmp_path)
    found = workspace.corpora.search("product", "What does the pricing table say for Team?", 2)
    assert found.coverage is None
    off = _corpus(tmp_path / "off", docs_coverage_pass=False)
    plain = off.corpora.search("product", "How much does the Starter plan cost per month?", 1)
    assert plain.coverage is None and [r.title for r in plain.results] == ["Starter plan"]
