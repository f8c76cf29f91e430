"""An answer as claims: its sentences, each with the citations written in or right after it.

Citations usually close a sentence (``... middleware. [S3fa21c]``): a piece of text
that holds only citations belongs to the sentence before it. Pure functions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .mentions import Mention

# A sentence ends at . ! ? (or their CJK forms) before a space, or at a line break.
_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])|\n+")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_DECLINE = re.compile(
    r"\b(?:not (?:covered|mentioned|described|documented|discussed|included|addressed|answered)"
    r"|(?:do|does|did) ?n[o']t (?:cover|mention|say|contain|include|describe|answer|discuss|address|have|provide)"
    r"|no (?:information|mention|passages?|relevant|details?|documentation)"
    r"|nothing (?:in|about|relevant)|(?:cannot|can't|could not|couldn't|unable to) (?:find|answer|help)"
    r"|outside (?:the )?(?:scope|documentation|docs)|not (?:in|part of) the (?:docs|documentation|documents|passages)"
    r"|i don't know|i do not know)\b|(?:没有|未提及|无法回答|記載されていません|ありません)",
    re.IGNORECASE,
)


@dataclass
class Claim:
    text: str = field(metadata={"doc": "The sentence without its citations."})
    start: int = 0
    end: int = 0
    mentions: list[Mention] = field(default_factory=list)


def claims(answer: str, found: list[Mention]) -> list[Claim]:
    """The sentences of ``answer``, each with the mentions (from ``found``) that fall in it.

    >>> from .mentions import mentions
    >>> text = "Add CORSMiddleware. [S3fa21c]\\nSet allow_origins [S00beef]. It is fast."
    >>> [(c.text, [m.target for m in c.mentions]) for c in claims(text, mentions(text))]
    [('Add CORSMiddleware.', ['S3fa21c']), ('Set allow_origins.', ['S00beef']), ('It is fast.', [])]
    """
    pieces: list[Claim] = []
    position = 0
    for boundary in [*(m for m in _END.finditer(answer)), None]:
        end = boundary.start() if boundary else len(answer)
        if end > position:
            pieces.append(Claim(answer[position:end], position, end))
        position = boundary.end() if boundary else end
    result: list[Claim] = []
    for piece in pieces:
        inside = [m for m in found if piece.start <= m.start < piece.end]
        text = piece.text
        for mention in sorted(inside, key=lambda m: m.start, reverse=True):
            a, b = mention.start - piece.start, mention.end - piece.start
            text = text[:a] + text[b:]
        text = re.sub(r"\s+([.,;:!?])", r"\1", " ".join(_BULLET.sub("", text).split()))
        if not _words(text) and result:  # only citations: they cite the sentence before
            result[-1].mentions.extend(inside)
            result[-1].end = piece.end
            continue
        if text or inside:
            result.append(Claim(text, piece.start, piece.end, inside))
    return result


def declines(answer: str) -> bool:
    """Whether an answer says the documents do not answer the question.

    >>> declines("The documentation does not cover visas."), declines("Use a visa [S3fa21c].")
    (True, False)
    """
    return bool(_DECLINE.search(answer))


def _words(text: str) -> bool:
    return bool(re.search(r"\w", text))
