"""The public-source fallback, driven by a scripted model against a local web of fixed pages.

An unanswerable question with the fallback on gets a labelled public answer that lands in the
review queue; approving its rewritten, masked entry puts it in the corpus the next search reads.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from schema_search.agent.answer import answer
from schema_search.agent.public import LABEL, PublicSourceFailed, PublicWeb
from schema_search.review.queue import ReviewQueue
from schema_search.review.reviews import REVIEWED, Reviews
from schema_search.settings import Settings
from schema_search.tools.collections import CollectionTools
from schema_search.tools.docs import DocTools
from schema_search.workspace import Workspace

from ..review.web import passport_web, serving
from .test_agent import call, say
from .test_answer import DocModel

HANDBOOK = Path(__file__).parents[2] / "sample_docs" / "handbook"
QUESTION = "Passport renewal?"  # no word of it is in the handbook: search_docs finds nothing


@pytest.fixture
def web():
    with serving(passport_web()) as web:
        yield web


def workspace(tmp_path: Path, web, on: bool = True) -> Workspace:
    settings = Settings(
        home=tmp_path / "home",
        dense=False,
        public_sources=on,
        public_search_url=web.url,
        public_allow_private=True,  # the test web is on 127.0.0.1
        phone_region="GB",
    )
    ws = Workspace(settings)
    shutil.copytree(HANDBOOK, tmp_path / "handbook")
    ws.corpora.index(tmp_path / "handbook", corpus="handbook")
    return ws


def ask(ws: Workspace, model: DocModel):
    collections, docs = CollectionTools(ws, ["handbook"]), DocTools(ws, ["handbook"])
    return answer(QUESTION, collections=collections, docs=docs, model="scripted", complete=model)


def url_of(messages: list[dict[str, Any]], path: str) -> str:
    return re.search(rf"http://127\.0\.0\.1:\d+{path}", messages[-1]["content"]).group(0)


def searched_and_read() -> DocModel:
    return DocModel(
        lambda m: call("search_docs", {"question": QUESTION}),
        lambda m: call("search_web", {"query": "passport renewal"}, "c2"),
        lambda m: call("read_page", {"url": url_of(m, "/passports")}, "c3"),
        lambda m: call(
            "answer",
            {"text": "Dear Ann, your passport is valid for 10 years; renew it 9 months before, in 3 weeks [W1]."},
            "c4",
        ),
        # The rewrite: a recorded response of a model given the question and the page, not the answer.
        lambda m: call(
            "write_entry",
            {
                "title": "Passports: validity and renewal",
                "body": "An adult passport is valid for 10 years. Renew it 9 months before it expires. "
                "Contact passports@gov.example.",
            },
            "c5",
        ),
    )


def test_off_by_default_the_web_is_never_offered(tmp_path: Path, web) -> None:
    ws = workspace(tmp_path, web, on=False)
    model = DocModel(lambda m: call("search_docs", {"question": QUESTION}), lambda m: say("Not covered."))
    result = ask(ws, model)
    assert "search_web" not in model.tools and not result.public_read and result.review_entry is None
    assert web.hits == []


def test_a_public_answer_is_labelled_recorded_and_approved_into_the_next_search(tmp_path: Path, web) -> None:
    ws = workspace(tmp_path, web)
    model = searched_and_read()
    result = ask(ws, model)

    # Labelled by the platform: its mark, the domain, the label; read and seen listed apart.
    assert result.tools[:3] == ["search_docs", "search_web", "read_page"] and result.ok
    assert f"[W1: 127.0.0.1, {LABEL}]" in result.text
    assert [(p.mark, p.cited, p.url.endswith("/passports")) for p in result.public_read] == [("W1", True, True)]
    assert [r.url.rsplit("/", 1)[1] for r in result.public_seen] == ["visa"]
    assert "Seen in web results, not read:" in result.text

    # Recorded: the page as read (masked), the numbers no source holds, a rewrite from the page.
    entry = ReviewQueue(ws.settings.home).get(result.review_entry)
    assert entry.status == "pending" and entry.read == [result.public_read[0].url]
    assert entry.seen == [result.public_seen[0].url]
    assert "[e-mail]" in entry.pages[0].text and "[phone]" in entry.pages[0].text
    assert "passports@gov.example" not in entry.pages[0].text
    assert entry.unsourced_numbers == ["3"]  # "in 3 weeks": on no page
    assert entry.rewrite.title == "Passports: validity and renewal" and entry.rewrite.by == "scripted"
    assert "Ann" not in entry.rewrite.body and "[e-mail]" in entry.rewrite.body
    # The rewrite model saw the question and the page, never the visitor's answer.
    rewrite_prompt = model.calls[-1][-1]["content"]
    assert "Dear Ann" not in rewrite_prompt and "valid for 10 years" in rewrite_prompt

    approved = Reviews(ws).approve(entry.id, body=entry.rewrite.body + "\nCall +44 20 7946 0958.")
    assert approved.status == "approved" and approved.indexed.corpus.documents == 1
    found = ws.corpora.search(REVIEWED, "passport renewal valid years")
    assert found.results and found.results[0].title == "Passports: validity and renewal"
    assert "[phone]" in (tmp_path / "home" / REVIEWED / approved.path).read_text()


def test_an_answer_from_a_snippet_is_sent_back_to_read_then_refused(tmp_path: Path, web) -> None:
    ws = workspace(tmp_path, web)
    snippet = "A passport is valid for 10 years."
    model = DocModel(
        lambda m: call("search_docs", {"question": QUESTION}),
        lambda m: call("search_web", {"query": "passport"}, "c2"),
        lambda m: call("answer", {"text": snippet}, "c3"),
        lambda m: say(snippet),
        lambda m: call("answer", {"text": snippet}, "c5"),
    )
    result = ask(ws, model)
    assert "Not delivered" in model.calls[3][-1]["content"] and "Not delivered" in model.calls[4][-1]["content"]
    assert result.withheld and snippet not in result.text and not result.ok
    assert result.review_entry is None and "/passports" not in web.hits


def test_a_model_that_reads_after_the_reminder_is_delivered(tmp_path: Path, web) -> None:
    ws = workspace(tmp_path, web)
    model = DocModel(
        lambda m: call("search_docs", {"question": QUESTION}),
        lambda m: call("search_web", {"query": "passport"}, "c2"),
        lambda m: say("Valid for 10 years."),
        lambda m: call("read_page", {"url": url_of(m[:-2], "/passports")}, "c4"),
        lambda m: say("Valid for 10 years [W1]."),
    )
    result = ask(ws, model)
    assert result.withheld is None and result.public_read[0].cited and result.review_entry is not None


def test_a_rejected_page_is_not_offered_again(tmp_path: Path, web) -> None:
    ws = workspace(tmp_path, web)
    first = ask(ws, searched_and_read())
    Reviews(ws).reject(first.review_entry)
    model = DocModel(
        lambda m: call("search_docs", {"question": QUESTION}),
        lambda m: call("search_web", {"query": "passport renewal"}, "c2"),
        lambda m: call("read_page", {"url": url_of(m, "/visa")}, "c3"),
        lambda m: say("A visa costs 80 EUR [W1]."),
    )
    ask(ws, model)
    shown = model.calls[2][-1]["content"]
    assert "/passports" not in shown and "/visa" in shown and "rejected" in shown


def test_private_addresses_are_not_read_unless_allowed() -> None:
    with pytest.raises(PublicSourceFailed, match="private network"):
        PublicWeb("http://127.0.0.1:1").check_address("http://127.0.0.1:8000/x")
    with pytest.raises(PublicSourceFailed, match="http"):
        PublicWeb("http://127.0.0.1:1").check_address("file:///etc/passwd")
