"""The review queue and its adapters: record, edit, approve into the corpus `reviewed`, reject; CLI and HTTP."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from schema_search.cli.main import main
from schema_search.errors import EntryDecided, EntryNotFound, KeyUnavailable
from schema_search.http.app import create_app
from schema_search.review.models import NewEntry, PageSnapshot
from schema_search.review.numbers import unsourced_numbers
from schema_search.review.queue import ReviewQueue
from schema_search.review.reviews import REVIEWED, Reviews
from schema_search.review.rewrite import deterministic
from schema_search.settings import Settings
from schema_search.workspace import Workspace

PAGE = PageSnapshot(
    url="https://gov.example/passports",
    title="Passports: validity and renewal",
    text="An adult passport is valid for 10 years. Renew it 9 months before it expires. Write to [e-mail].",
)
QUESTION = "How long is a passport valid?"


def entry(url: str = PAGE.url) -> NewEntry:
    page = PAGE.model_copy(update={"url": url})
    return NewEntry(
        question=QUESTION,
        answer="Dear Ann, valid for 10 years [W1].",
        read=[url],
        pages=[page],
        unsourced_numbers=[],
        rewrite=deterministic(QUESTION, [page]),
    )


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(home=tmp_path / "home", dense=False)


def test_the_deterministic_rewrite_takes_the_page_not_the_answer() -> None:
    rewrite = deterministic(QUESTION, [PAGE])
    assert rewrite.title == PAGE.title and "valid for 10 years" in rewrite.body and "Ann" not in rewrite.body
    assert PAGE.url in rewrite.body and rewrite.by == "deterministic"


def test_numbers_no_source_holds() -> None:
    assert unsourced_numbers("Valid 10 years, renew 9 months before, in 3 weeks [W1].", [PAGE.text]) == ["3"]


def test_record_edit_reject_and_the_rejected_pages(settings: Settings) -> None:
    queue = ReviewQueue(settings.home)
    first, second = queue.record(entry()), queue.record(entry("https://other.example/p"))
    assert [e.id for e in queue.entries("pending")] == [first, second]
    edited = Reviews(Workspace(settings)).edit(first, title="Passports", body="Call +44 20 7946 0958.")
    assert (
        edited.rewrite.title == "Passports"
        and edited.rewrite.body == "Call [phone]."
        and edited.rewrite.by == "reviewer"
    )
    queue.decide(second, "rejected")
    assert queue.rejected_urls() == {"https://other.example/p"}
    with pytest.raises(EntryDecided):
        queue.decide(second, "approved")
    with pytest.raises(EntryNotFound):
        queue.get(99)


def test_approve_writes_the_entry_and_the_next_search_finds_it(settings: Settings) -> None:
    ws = Workspace(settings)
    entry_id = ReviewQueue(settings.home).record(entry())
    approved = Reviews(ws).approve(entry_id, title="Passport validity")
    text = (settings.home / REVIEWED / approved.path).read_text()
    assert text.startswith('---\ntitle: "Passport validity"\nurl: "https://gov.example/passports"\napproved_at: ')
    hit = ws.corpora.search(REVIEWED, "passport valid years").results[0]
    assert hit.title == "Passport validity" and hit.url.startswith("https://gov.example/passports")


def test_a_decision_made_meanwhile_wins(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    queue = ReviewQueue(settings.home)
    entry_id = queue.record(entry())
    stale = queue.get(entry_id)
    queue.decide(entry_id, "rejected")
    # The check saw it pending (a reject landed between the check and the update): the update changes nothing.
    checked = iter([stale])
    real = queue.pending
    monkeypatch.setattr(queue, "pending", lambda i, doing: next(checked, None) or real(i, doing))
    with pytest.raises(EntryDecided):
        queue.decide(entry_id, "approved")
    assert queue.get(entry_id).status == "rejected"


def test_a_failed_indexing_leaves_the_entry_pending_and_no_file(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = Workspace(settings)
    reviews = Reviews(ws)
    spam = reviews.queue.record(entry("https://spam.example/p"))
    reviews.edit(spam, title="Spam", body="Buy zorbleflax pills today.")
    index = ws.corpora.index

    def fails(*args, **kwargs):
        raise RuntimeError("busy")

    monkeypatch.setattr(ws.corpora, "index", fails)
    with pytest.raises(RuntimeError):
        reviews.approve(spam)
    assert reviews.get(spam).status == "pending" and list((settings.home / REVIEWED).iterdir()) == []
    reviews.reject(spam)
    (settings.home / REVIEWED / "00099-stray.md").write_text("# Stray\n\nzorbleflax")  # left by an older version

    monkeypatch.setattr(ws.corpora, "index", index)
    approved = reviews.approve(reviews.queue.record(entry()))
    assert [p.name for p in (settings.home / REVIEWED).iterdir()] == [approved.path]
    assert approved.indexed.corpus.documents == 1
    assert not ws.corpora.search(REVIEWED, "zorbleflax pills").results


def test_sealed_the_queue_and_the_approved_entry_leave_no_text_in_the_data_directory(tmp_path: Path) -> None:
    kek = tmp_path / "kek.bin"
    kek.write_bytes(os.urandom(32))
    ws = Workspace(Settings(home=tmp_path / "home", dense=False, kek_file=kek))
    reviews = Reviews(ws)
    entry_id = reviews.queue.record(entry())
    reviews.edit(entry_id, body="Valid for 10 years; renew 9 months before it expires.")
    approved = reviews.approve(entry_id, title="Passport validity")
    assert approved.path is None and approved.indexed.corpus.source["kind"] == "review queue"
    hit = ws.corpora.search(REVIEWED, "passport valid years").results[0]
    assert hit.title == "Passport validity" and hit.url.startswith("https://gov.example/passports")
    assert not (tmp_path / "home" / REVIEWED).exists()
    blobs = [p.read_bytes() for p in (tmp_path / "home").rglob("*") if p.is_file()]
    for text in (QUESTION, "Passport validity", "renew 9 months", "Dear Ann", "valid for 10 years"):
        assert not any(text.encode() in blob for blob in blobs), text
    # A second approval indexes both entries again (from the sealed queue), with the first one's time.
    second = reviews.approve(reviews.queue.record(entry("https://other.example/visas")), title="Visas")
    assert second.indexed.corpus.documents == 2
    assert reviews.get(entry_id).rewrite.title == "Passport validity"  # reads back with the key
    assert reviews.queue.rejected_urls() == set()
    with pytest.raises(KeyUnavailable, match="no key-encryption key is configured"):
        ReviewQueue(tmp_path / "home").get(entry_id)


def test_the_cli(settings: Settings, capsys: pytest.CaptureFixture) -> None:
    entry_id = ReviewQueue(settings.home).record(entry())
    home = ["--home", str(settings.home)]
    assert main(["review", "list", *home]) == 0
    assert f"{entry_id}  pending" in capsys.readouterr().out
    assert main(["review", "show", str(entry_id), *home]) == 0
    out = capsys.readouterr().out
    assert "Rewritten entry (by deterministic): Passports: validity and renewal" in out and "Dear Ann" in out
    assert main(["review", "reject", str(entry_id), *home]) == 0
    assert main(["review", "approve", str(entry_id), *home]) == 1
    assert "was rejected" in capsys.readouterr().err


def test_http_needs_the_admin_key_and_approves(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "home", dense=False, admin_key="k")
    entry_id = ReviewQueue(settings.home).record(entry())
    client = TestClient(create_app(settings))
    refused = client.get("/v1/review")
    assert refused.status_code == 403 and refused.headers["content-type"] == "application/problem+json"
    key = {"X-Admin-Key": "k"}
    assert [e["id"] for e in client.get("/v1/review", headers=key).json()] == [entry_id]
    assert client.get("/v1/review/99", headers=key).status_code == 404
    edited = client.patch(f"/v1/review/{entry_id}", json={"body": "Valid 10 years."}, headers=key)
    assert edited.json()["rewrite"]["body"] == "Valid 10 years."
    approved = client.post(f"/v1/review/{entry_id}/approve", headers=key)
    assert approved.status_code == 200 and approved.json()["indexed"]["corpus"]["name"] == REVIEWED
    again = client.post(f"/v1/review/{entry_id}/reject", headers=key)
    assert again.status_code == 409 and "approved" in json.loads(again.text)["detail"]
