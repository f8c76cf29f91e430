"""The page's Review tab in Chromium: a queued public answer shown as its rewritten entry,
edited, approved into the corpus `reviewed` (which the next search finds), another rejected."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from schema_search.review.models import NewEntry, PageSnapshot
from schema_search.review.queue import ReviewQueue
from schema_search.review.rewrite import deterministic
from schema_search.settings import Settings
from schema_search.workspace import Workspace

from .conftest import LiveServer, _checked, _tab

ADMIN = "review-sesame"
QUESTION = "How long is an adult passport valid?"


def _entry(url: str, title: str, text: str) -> NewEntry:
    page = PageSnapshot(url=url, title=title, text=text)
    return NewEntry(
        question=QUESTION,
        answer="Dear Ann, it is valid for 10 years [W1]. Call me on [phone].",  # masked, as the agent records it
        read=[url],
        pages=[page],
        unsourced_numbers=["0134"],
        rewrite=deterministic(QUESTION, [page]),
    )


@pytest.fixture
def review_tab(browser: Browser, tmp_path: Path, request, viewport: dict):
    settings = Settings(home=tmp_path / "home", embedding_threads=1, admin_key=ADMIN)
    queue = ReviewQueue(settings.home)
    queue.record(
        _entry(
            "https://gov.example/passports",
            "Passports: validity and renewal",
            "An adult passport is valid for 10 years. Renew it 9 months before it expires.",
        )
    )
    queue.record(_entry("https://spam.example/passports", "Cheap passports", "Buy a passport today."))
    with LiveServer(Workspace(settings)) as live:
        tab = _tab(browser, live.url, request, viewport)
        tab.settings = settings
        yield from _checked(tab)


def test_a_reviewer_edits_approves_and_rejects_and_the_next_search_finds_the_entry(review_tab):
    review_tab.expect_http_errors()  # the first load, before the key is typed, is refused
    page = review_tab.open("#/review")
    expect(page.get_by_role("heading", name="Review queue")).to_be_visible()
    page.get_by_label("Admin key", exact=True).fill(ADMIN)
    page.get_by_role("button", name="Load").click()
    cards = page.locator("article.review-entry")
    expect(cards).to_have_count(2)
    first = cards.filter(has_text="Passports: validity and renewal")
    # The entry is written from the page, not from the visitor's answer (which greeted Ann).
    value = first.get_by_label("Entry body").input_value()
    assert "valid for 10 years" in value and "https://gov.example/passports" in value and "Ann" not in value
    expect(first).to_contain_text("Numbers no source contains: 0134")
    first.get_by_label("Entry title").fill("Adult passport: validity and renewal")
    review_tab.shot("-before-approval")
    first.get_by_role("button", name="Approve").click()
    expect(cards).to_have_count(1)  # the pending list reloads without it
    cards.first.get_by_role("button", name="Reject").click()
    expect(page.get_by_text("No pending entries.")).to_be_visible()

    workspace = Workspace(review_tab.settings)
    found = workspace.corpora.search("reviewed", "how many years is a passport valid", 3)
    assert found.results and found.results[0].title == "Adult passport: validity and renewal"
    queue = ReviewQueue(review_tab.settings.home)
    assert sorted(e.status for e in queue.entries()) == ["approved", "rejected"]
    assert queue.rejected_urls() == {"https://spam.example/passports"}
