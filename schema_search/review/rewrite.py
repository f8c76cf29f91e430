"""The entry a reviewer sees: written from the question and the pages read, never from the visitor's answer.

The visitor's answer addressed one person (their name, "your product line", a call to
action); a corpus entry must address every later reader. A model writes it from the
question and the pages (:data:`PROMPT`, one ``write_entry`` tool call); with no model, or
when the model fails, :func:`deterministic` takes the page's own sentences that share most
words with the question. Either way it is titled from the source and masked.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..core.personal import mask
from .models import PageSnapshot, Rewrite

# Page text a model is given per page: enough for a policy page, bounded for small contexts.
PAGE_CHARS = 6_000
SENTENCES = 4
_WORD = re.compile(r"\w+", re.UNICODE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_STOP = frozenset(
    "a an and are as at be by can do does for from has have how i in is it its may must of on or our should "
    "that the their this to was we what when where which who why will with you your".split()
)

PROMPT = """Write a short reference entry for a company's knowledge base from the public page(s) below.
It must answer the question for any reader: no names of a person asked, no "you"/"your", no call to action.
Use only what the pages say; keep every number exactly as the pages give it. Title it after the source page.
Call write_entry with the title and the body (Markdown, a few sentences)."""

TOOL = {
    "type": "function",
    "function": {
        "name": "write_entry",
        "description": "The entry: a title taken from the source page, and a body of a few sentences.",
        "parameters": {
            "type": "object",
            "properties": {"title": {"type": "string"}, "body": {"type": "string"}},
            "required": ["title", "body"],
        },
    },
}


def messages(question: str, pages: Sequence[PageSnapshot]) -> list[dict[str, str]]:
    """What the model is asked: the question and the pages, nothing of the answer."""
    shown = "\n\n".join(f"Page {p.title!r} ({p.url}):\n{p.text[:PAGE_CHARS]}" for p in pages)
    return [{"role": "system", "content": PROMPT}, {"role": "user", "content": f"Question: {question}\n\n{shown}"}]


def finished(title: str, body: str, pages: Sequence[PageSnapshot], by: str, region: str | None = None) -> Rewrite:
    """A rewrite masked, and with its sources named under it (a model may forget them)."""
    sources = "\n".join(f"- Source: [{p.title}]({p.url})" for p in pages)
    body = body.strip()
    if not all(p.url in body for p in pages):
        body = f"{body}\n\n{sources}"
    return Rewrite(title=mask(title.strip() or pages[0].title, region), body=mask(body, region), by=by)


def deterministic(question: str, pages: Sequence[PageSnapshot], region: str | None = None) -> Rewrite:
    """The source's title, the question, and the page's sentences nearest the question, with the URL.

    >>> page = PageSnapshot(url="https://gov.example/passport", title="Passports",
    ...     text="Passports are valid for 10 years. Renew 9 months before travel. Photos cost money.")
    >>> r = deterministic("How long is a passport valid and when to renew?", [page])
    >>> r.title, r.body.splitlines()[:3]
    ('Passports', ['**How long is a passport valid and when to renew?**', '', 'Passports are valid for 10 years. Renew 9 months before travel.'])
    """
    wanted = _words(question)
    chosen = []
    for page in pages:
        sentences = [s.strip() for s in _SENTENCE.split(page.text) if len(s.strip()) > 3]
        scored = sorted(range(len(sentences)), key=lambda i: -len(wanted & _words(sentences[i])))
        best = sorted(i for i in scored[:SENTENCES] if wanted & _words(sentences[i]))
        chosen += [sentences[i] for i in best]
    body = f"**{question.strip()}**\n\n{' '.join(chosen) or '(the page has no sentence on the question)'}"
    return finished(pages[0].title if pages else question, body, pages, "deterministic", region)


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 1}
