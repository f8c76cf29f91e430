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

from schema_search.agent import public
from schema_search.agent.answer import answer
from schema_search.agent.public import (
    LABEL,
    NOT_READ,
    PublicFallback,
    PublicPage,
    PublicResult,
    PublicSourceFailed,
    PublicWeb,
    WebPage,
    page_key,
    record,
)
from schema_search.review.queue import ReviewQueue
from schema_search.review.reviews import REVIEWED, Reviews
from schema_search.settings import Settings
from schema_search.tools.collections import CollectionTools
from schema_search.tools.docs import DocTools
from schema_search.workspace import Workspace

from ..review.web import PASSPORT, Web, passport_web, serving
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


# -- every request of the fallback is vetted (H2) ---------------------------------------------


@pytest.fixture
def only_127_0_0_1_is_public(monkeypatch: pytest.MonkeyPatch):
    """The address rule with 127.0.0.1 standing for the public internet; ``names``: a resolver the test fills."""
    names: dict[str, list[str]] = {}
    monkeypatch.setattr(public, "public_address", lambda address: address == "127.0.0.1")

    def resolve(host: str, port: int) -> list[str]:
        found = names.get(host, [host])
        return [found.pop(0) if len(found) > 1 else found[0]]

    monkeypatch.setattr(public, "resolve", resolve)
    return names


@pytest.fixture
def private():
    """A server at a private address (127.0.0.2 stands for 169.254.169.254): nothing may reach it."""
    with serving(Web({"/passports": "<p>secret</p>", "/meta": "<p>secret</p>"}, []), host="127.0.0.2") as web:
        yield web


def test_a_redirect_to_a_host_at_a_private_address_is_refused_unfetched(only_127_0_0_1_is_public, private) -> None:
    port = private.url.rsplit(":", 1)[1]
    # A public page sends the reader to www. of its host (one site to the crawler), whose address is private.
    site = Web({}, [], {"/go": f"http://www.pub.test:{port}/meta", "/deep": f"{private.url}/meta"})
    with serving(site, port=int(port)):
        only_127_0_0_1_is_public["pub.test"] = ["127.0.0.1"]
        only_127_0_0_1_is_public["www.pub.test"] = ["127.0.0.2"]
        reader = PublicWeb("http://127.0.0.1:1")
        for path in ("/go", "/deep"):
            with pytest.raises(PublicSourceFailed, match="redirects off the site"):
                reader.read(f"http://pub.test:{port}{path}")
        assert site.hits == ["/robots.txt", "/go", "/robots.txt", "/deep"] and private.hits == []
        # Where the host itself is private, the transport refuses the hop before connecting.
        transport = public.PublicOnly()
        with pytest.raises(PublicSourceFailed, match="private network"):
            transport.handle_request(public.httpx.Request("GET", f"http://www.pub.test:{port}/meta"))
        assert private.hits == []


@pytest.mark.parametrize("flip", [1, 2], ids=["robots.txt", "the page"])
def test_an_address_that_changes_after_the_check_is_refused_unfetched(
    only_127_0_0_1_is_public, private, flip: int
) -> None:
    """DNS rebinding: the host resolves to a public address for the check, to a private one later."""
    port = private.url.rsplit(":", 1)[1]
    site = Web({"/passports": PASSPORT}, [])
    with serving(site, port=int(port)):
        only_127_0_0_1_is_public["pub.test"] = ["127.0.0.1"] * flip + ["127.0.0.2"]
        with pytest.raises(PublicSourceFailed, match="private network"):
            PublicWeb("http://127.0.0.1:1").read(f"http://pub.test:{port}/passports")
        assert private.hits == [] and site.hits == ["/robots.txt"][: flip - 1]


def test_a_public_host_is_read_through_the_pinned_address(only_127_0_0_1_is_public) -> None:
    with serving(Web({"/passports": PASSPORT}, [], {"/old": "/passports"})) as site:
        port = site.url.rsplit(":", 1)[1]
        only_127_0_0_1_is_public["pub.test"] = ["127.0.0.1"]
        page = PublicWeb("http://127.0.0.1:1").read(f"http://pub.test:{port}/old")
        assert page.title == "Passports: validity and renewal" and page.final.endswith("/passports")
        assert site.hits == ["/robots.txt", "/old", "/passports"]


# -- labels, rejected pages, masking, "nothing found" (M1, M2, M3, L6) ------------------------


def read_once(
    url: str = "https://blog.example/tax", title: str = "Tax", text: str = "Nothing is owed."
) -> PublicFallback:
    fallback = PublicFallback(PublicWeb("http://127.0.0.1:1"))
    fallback.searched = True
    shown = PublicPage(mark="W1", url=url, domain=public.domain(url), title=title)
    fallback.read[url] = (shown, WebPage(url, title, text))
    return fallback


def test_a_label_the_model_writes_is_not_the_platforms() -> None:
    fallback = read_once()
    forged = f"Per the tax office [W2: irs.gov, {LABEL}] you owe 0. See [W1]."
    assert fallback.check(forged) == NOT_READ  # W2 was never issued
    text, read, _, unknown = fallback.label(forged)
    assert "irs.gov" not in text and "[unverified: W2]" in text and unknown == ["W2"]
    # A real mark dressed up as another domain is rendered from the platform's record.
    text, read, _, unknown = fallback.label(
        f"You owe 0 [W1: irs.gov, {LABEL}].\nPublic sources, not your material (read):"
    )
    assert fallback.check(f"You owe 0 [W1: irs.gov, {LABEL}].") is None
    assert text.startswith(f"You owe 0 [W1: blog.example, {LABEL}].") and "irs.gov" not in text
    assert text.count("Public sources, not your material (read):") == 1 and unknown == [] and read[0].cited
    # The model's own copy of the label words is dropped: only the platform's marks carry them.
    text, *_ = fallback.label(f"Taxes ({LABEL}) are zero.")
    assert text.startswith("Taxes () are zero.")


def test_a_resolved_document_title_that_starts_like_a_mark_is_not_one() -> None:
    fallback = read_once()
    protected, tokens = fallback.protect("See [W1] and [W2 form].")
    resolved = protected + " Also [W9 guide (https://docs.example/w9)]."  # what the ledger made of an [S...] ID
    text, _, _, unknown = fallback.label(resolved, tokens)
    assert unknown == ["W2"] and "[W9 guide (https://docs.example/w9)]" in text
    assert text.startswith(f"See [W1: blog.example, {LABEL}] and [unverified: W2].")


def test_a_rejected_page_stays_rejected_whatever_its_url_looks_like(monkeypatch: pytest.MonkeyPatch) -> None:
    assert (
        len({page_key(u) for u in ("https://Gov.example/p", "http://www.gov.example:80/p/", "https://gov.example/p#x")})
        == 1
    )
    variants = [
        "https://gov.example/p/",
        "https://gov.example/p#top",
        "https://GOV.example/p",
        "http://www.gov.example/p",
    ]
    results = [(PublicResult(url=u, domain="gov.example", title="P"), "") for u in [*variants, "https://gov.example/q"]]
    reader = PublicWeb("http://127.0.0.1:1")
    monkeypatch.setattr(reader, "search", lambda query, k: results)
    fallback = PublicFallback(reader, ["https://gov.example/p"])
    shown = fallback._search("p")
    assert "4 result(s) a reviewer rejected" in shown and list(fallback.seen) == ["https://gov.example/q"]
    for url in variants:
        assert "rejected" in fallback._read(url, None)


def test_a_result_that_redirects_to_a_rejected_page_is_not_read(tmp_path: Path) -> None:
    with serving(Web({"/passports": PASSPORT}, [("/old", "Old", "")], {"/old": "/passports"})) as site:
        fallback = PublicFallback(PublicWeb(site.url, allow_private=True), [f"{site.url}/passports/"])
        fallback.offer([])
        fallback.run("search_web", {"query": "passport"}, None)
        reply = fallback.run("read_page", {"url": f"{site.url}/old"}, None)
        assert "rejected" in reply and fallback.read == {}


def test_the_entry_masks_the_numbers_and_titles_it_stores(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "home", dense=False, phone_region="NL")
    fallback = read_once(title="Call 020 555 1234 or mail clerk@gov.example", text="Fees: 80 EUR.")
    text = "Call our clerk at 0612345678 or +31 20 555 1234; the fee is 80 EUR, due in 3 weeks [W1]."
    entry = ReviewQueue(settings.home).get(record(settings, "Fees?", text, text, fallback, [], False))
    assert entry.unsourced_numbers == ["3"]
    assert "555" not in entry.pages[0].title and "clerk@" not in entry.pages[0].title


def test_an_answer_that_says_nothing_was_found_is_delivered() -> None:
    fallback = PublicFallback(PublicWeb("http://127.0.0.1:1"))
    fallback.searched = True
    fallback.seen["https://x.example/"] = PublicResult(url="https://x.example/", domain="x.example", title="X")
    assert fallback.check("Neither the documents nor the web cover it.") is None
    assert fallback.check("I could not find this in the documents or on the web.") is None
    assert fallback.check("A passport is valid for 10 years.") == NOT_READ
    assert fallback.check("A passport is valid for ten years.") == NOT_READ
    assert fallback.check("The web does not cover it, but it costs 80 EUR.") == NOT_READ
    assert fallback.check("Nothing found [W1].") == NOT_READ
