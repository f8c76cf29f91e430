"""An answer as claims: its sentences, each with the citations written in or right after it.

Citations usually close a sentence (``... middleware. [S3fa21c]``): citations that
come before the first word of a piece of text belong to the sentence before it. A
closing list (``Sources: [S1] [S2]``) cites the answer as a whole: its claim is
marked ``sources_list`` and the scorer judges its citations against the sentences
above it. Pure functions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .mentions import Mention

# A sentence ends at . ! ? (or their CJK forms) before a space, or at a line break.
_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])|\n+")
# ... but not after an abbreviation or a list number: "e.g. [S1]" and "1. Install" go on.
_ABBREVIATION = re.compile(r"(?:\b(?:e\.g|i\.e|etc|vs|cf|approx|incl|resp)\.|^\s*\d+\.)$", re.IGNORECASE)
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_SOURCES = re.compile(r"^[\s*_#>]*(?:sources?|references?|citations?|see also|refs?)[\s*_:,;.]*$", re.IGNORECASE)
# Declining means saying the documents do not answer it; the patterns name the documents
# (or the asker's question) so "nothing in the way" or "no relevant limit" is not a decline.
_DOCS = (
    r"(?:docs|documentation|documents?|passages?|sources?|provided (?:text|context|material)|context|search results?)"
)
_DECLINE = re.compile(
    rf"\b(?:(?:the )?{_DOCS} (?:do|does|did) ?n[o']t (?:cover|mention|say|contain|include|describe|answer|discuss|address|"
    r"have|provide|seem)"
    rf"|(?:not|isn't|is not|aren't|are not) (?:covered|mentioned|described|documented|discussed|addressed|answered)"
    rf"(?: (?:in|by) (?:the )?{_DOCS})?"
    rf"|no (?:information|mention|details?|passages?) (?:about|on|regarding|of|in)"
    rf"|nothing (?:in|about) (?:the )?{_DOCS}|(?:not|isn't) (?:in|part of) (?:the )?{_DOCS}"
    r"|(?:cannot|can't|could not|couldn't|unable to) (?:find|answer|help)"
    rf"|outside (?:the )?(?:scope|{_DOCS})|i (?:don't|do not) know)\b"
    r"|(?:没有(?:相关)?(?:信息|内容|提到)|未提及|无法回答|記載されていません|見つかりません)",
    re.IGNORECASE,
)


@dataclass
class Claim:
    text: str  # the sentence without its citations (a markdown link keeps its text)
    start: int = 0
    end: int = 0
    mentions: list[Mention] = field(default_factory=list)
    sources_list: bool = False


def claims(answer: str, found: list[Mention]) -> list[Claim]:
    """The sentences of ``answer``, each with the mentions (from ``found``) that fall in it.

    >>> from .mentions import mentions
    >>> text = "Add CORSMiddleware. [S3fa21c] Set allow_origins [S00beef], e.g. ['*'].\\nIt is fast."
    >>> [(c.text, [m.target for m in c.mentions]) for c in claims(text, mentions(text))]
    [('Add CORSMiddleware.', ['S3fa21c']), ("Set allow_origins, e.g. ['*'].", ['S00beef']), ('It is fast.', [])]
    >>> text = "Use [the middleware](https://x.dev/cors) for it.\\n\\nSources: [S3fa21c]"
    >>> [(c.text, c.sources_list) for c in claims(text, mentions(text))]
    [('Use the middleware for it.', False), ('Sources:', True)]
    """
    result: list[Claim] = []
    for start, end in _pieces(answer, found):
        inside = [m for m in found if start <= m.start < end]
        text = _without_mentions(answer[start:end], start, inside)
        bare = _without_mentions(answer[start:end], start, inside, labels=False)
        if inside and result and result[-1].sources_list and not re.search(r"\w", bare):
            result[-1].mentions.extend(inside)  # "- [CORS](https://...)" under "Sources:"
            continue
        first_word = _first_word(answer, start, end, inside)
        leading = [m for m in inside if m.start < first_word]
        if leading and result:  # "... first sentence. [S1] Second sentence": S1 cites the first
            result[-1].mentions.extend(leading)
            inside = [m for m in inside if m not in leading]
        if first_word >= end:  # nothing but citations
            if inside:
                result.append(Claim("", start, end, inside))
            continue
        result.append(Claim(text, start, end, inside, sources_list=bool(_SOURCES.match(text))))
    return result


def declines(answer: str) -> bool:
    """Whether an answer says the documents do not answer the question.

    >>> declines("The documentation does not cover visas."), declines("Use a visa [S3fa21c].")
    (True, False)
    >>> declines("Nothing in the way blocks it; it has no relevant limit.")
    False
    """
    return bool(_DECLINE.search(answer))


def _pieces(answer: str, found: list[Mention]) -> list[tuple[int, int]]:
    """Sentence spans; an abbreviation's full stop, or one inside a citation ("[Step 1. Install](url)"), ends none."""
    spans: list[tuple[int, int]] = []
    position = 0
    for boundary in [*_END.finditer(answer), None]:
        end = boundary.start() if boundary else len(answer)
        if boundary is not None and (
            _ABBREVIATION.search(answer[position:end]) or any(m.start < end < m.end for m in found)
        ):
            continue  # the sentence goes on
        if end > position:
            spans.append((position, end))
        position = boundary.end() if boundary else end
    return spans


def _first_word(answer: str, start: int, end: int, inside: list[Mention]) -> int:
    """Where the first word outside a citation begins (``end`` when there is none)."""
    piece = answer[start:end]
    bullet = _BULLET.match(piece)
    cursor = bullet.end() if bullet else 0
    for mention in sorted(inside, key=lambda m: m.start):
        word = re.search(r"\w", piece[cursor : mention.start - start])
        if word:
            return start + cursor + word.start()
        if mention.label:  # a markdown link's text is words of the sentence
            return mention.start
        cursor = max(cursor, mention.end - start)
    word = re.search(r"\w", piece[cursor:])
    return start + cursor + word.start() if word else end


def _without_mentions(piece: str, offset: int, inside: list[Mention], labels: bool = True) -> str:
    text = piece
    for mention in sorted({(m.start, m.end, m.label) for m in inside}, reverse=True):
        a, b, label = mention[0] - offset, mention[1] - offset, mention[2]
        text = text[:a] + (label if labels else "") + text[b:]
    text = re.sub(r"[(\[]\s*(?:see|source|sources)?\s*[)\]]", "", text, flags=re.IGNORECASE)  # what held a citation
    text = re.sub(
        r"(?<![\w*_~])[*_~]{2,3}(?![\w*_~])|[,;]+(?=\s*(?:[.,;]|$))", "", text
    )  # emphasis and commas it leaves
    return re.sub(r"\s+([.,;:!?])", r"\1", " ".join(_BULLET.sub("", text).split()))
