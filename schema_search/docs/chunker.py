"""Sections -> chunks sized in tokens for the embedding model, paragraphs kept whole.

Within a section, whole blocks (paragraphs, code blocks) are accumulated up to the
target; a block larger than a chunk is split, text at sentence ends (``.!?`` and
``。！？；``), code at line ends. Chunks never cross a section boundary, and the
next chunk of a section starts with the last sentences of the previous one
(the overlap). The target covers everything the model reads: the context header,
the overlap and the text.

Sizes are estimated from characters, at about 4 characters per token for Latin
text and about 1 for CJK text, interpolated by the text's CJK share, so mixed
Chinese/English text lands between. When the embedding model's own tokenizer is
at hand, every chunk is also counted with it and split again if it exceeds the
model's cap, so no chunk is ever cut off by the model.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..core.analyzer import cjk_share
from ..core.embedders import TokenCounter
from .corpus import Section, embedding_input

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)|(?<=[。！？；])")
# [CLS] and [SEP]: word pieces the model adds to every input.
SPECIAL_TOKENS = 2
# Below this many tokens of room a chunk is all header; keep at least this much text.
MIN_TEXT_TOKENS = 32


@dataclass(frozen=True)
class Chunking:
    """How big chunks are.

    Attributes:
        target_tokens: the size a chunk grows to, context header and overlap included.
        overlap_tokens: how much of the previous chunk of the same section a chunk repeats.
        max_tokens: the model's cap; with ``counter``, no chunk's embedding input exceeds it.
        counter: the embedding model's tokenizer, when loaded.
    """

    target_tokens: int = 200
    overlap_tokens: int = 30
    max_tokens: int = 256
    counter: TokenCounter | None = field(default=None, compare=False, repr=False)

    def describe(self) -> dict:
        return {
            "target_tokens": self.target_tokens,
            "overlap_tokens": self.overlap_tokens,
            "max_tokens": self.max_tokens,
            "checked_with_tokenizer": self.counter is not None,
        }


def chars_per_token(text: str) -> float:
    """About 4 for Latin text, about 1 for CJK, in between by the CJK share.

    >>> chars_per_token("plain words"), chars_per_token("后台任务"), round(chars_per_token("用 Depends 注入"), 2)
    (4.0, 1.0, 3.1)
    """
    return 4.0 - 3.0 * cjk_share(text)


def estimate_tokens(text: str) -> int:
    """Tokens an embedding model's word-piece tokenizer makes of ``text``, estimated from characters.

    >>> estimate_tokens("abcd" * 10), estimate_tokens("后台任务")
    (10, 4)
    """
    return math.ceil(len(text) / chars_per_token(text)) if text else 0


def chunk_section(section: Section, header: str, chunking: Chunking) -> list[str]:
    r"""The texts of the chunks of one section, whose chunks carry the context ``header``.

    >>> from schema_search.docs.corpus import Block
    >>> s = Section(("Use",), None, tuple(Block(f"Sentence {i} is here.") for i in range(8)))
    >>> chunks = chunk_section(s, "Guide > Use", Chunking(target_tokens=40, overlap_tokens=0))
    >>> [len(c.split("\n\n")) for c in chunks]  # 40 - 3 (header) - 2 (special) = 35 tokens: 5 blocks of 6
    [5, 3]
    >>> chunk_section(s, "Guide > Use", Chunking(target_tokens=40, overlap_tokens=6))[1].split("\n\n")[0]
    'Sentence 4 is here.'
    """
    budget = max(chunking.target_tokens - estimate_tokens(header + "\n") - SPECIAL_TOKENS, MIN_TEXT_TOKENS)
    units = [piece for block in section.blocks for piece in _fit(block.text, block.code, budget)]
    texts = list(_accumulate(units, budget, chunking.overlap_tokens))
    if chunking.counter is not None:
        texts = [piece for text in texts for piece in _within_cap(text, header, chunking)]
    return texts


def _accumulate(units: list[tuple[str, bool]], budget: int, overlap: int) -> Iterator[str]:
    """Join units into chunks of at most ``budget`` estimated tokens, each after an overlap tail."""
    current: list[str] = []
    size = 0
    last_was_code = False
    for text, code in units:
        cost = estimate_tokens(text) + 1
        if current and size + cost > budget:
            yield "\n\n".join(current)
            # Code is not repeated: half a function says nothing on its own.
            tail = _tail(current[-1], overlap) if overlap and not last_was_code else ""
            fits = tail and estimate_tokens(tail) + 1 + cost <= budget
            current, size = ([tail], estimate_tokens(tail) + 1) if fits else ([], 0)
        current.append(text)
        size += cost
        last_was_code = code
    if current:
        yield "\n\n".join(current)


def _tail(text: str, overlap: int) -> str:
    """The last whole sentences of ``text`` that fit in ``overlap`` tokens (none if the last is longer).

    >>> _tail("One two. Three four. Five six.", 4)
    'Five six.'
    """
    sentences = [s for s in _SENTENCE_END.split(text) if s.strip()]
    kept: list[str] = []
    for sentence in reversed(sentences):
        if estimate_tokens(" ".join([sentence, *kept])) > overlap:
            break
        kept.insert(0, sentence)
    return " ".join(kept)


def _fit(text: str, code: bool, budget: int) -> list[tuple[str, bool]]:
    """A block as pieces of at most ``budget`` tokens: whole if it fits, else at sentence or line ends."""
    if estimate_tokens(text) <= budget:
        return [(text, code)]
    parts = text.split("\n") if code else [s for s in _SENTENCE_END.split(text) if s.strip()]
    joiner = "\n" if code else " "
    pieces: list[str] = []
    current = ""
    for part in (piece for sentence in parts for piece in _hard_split(sentence, budget)):
        candidate = f"{current}{joiner}{part}" if current else part
        if current and estimate_tokens(candidate) > budget:
            pieces.append(current)
            current = part
        else:
            current = candidate
    if current.strip():
        pieces.append(current)
    return [(piece, code) for piece in pieces]


def _hard_split(text: str, budget: int) -> list[str]:
    """A sentence or line longer than ``budget`` tokens, cut at spaces (or anywhere, in CJK text)."""
    if estimate_tokens(text) <= budget:
        return [text]
    width = max(int(budget * chars_per_token(text)), 1)
    pieces = []
    while len(text) > width:
        cut = text.rfind(" ", 0, width)
        cut = cut if cut > width // 2 else width
        pieces.append(text[:cut].rstrip())
        text = text[cut:].lstrip()
    return [*pieces, text] if text else pieces


def _within_cap(text: str, header: str, chunking: Chunking) -> list[str]:
    """``text`` as is when the model's tokenizer counts it within the cap, else halves of it, recursively."""
    counter = chunking.counter
    assert counter is not None
    if counter.count_tokens(embedding_input(header, text)) <= chunking.max_tokens:
        return [text]
    first, second = _halves(text)
    if not second:  # one unbreakable word piece run; the model will cut it, nothing else can
        return [text]
    return _within_cap(first, header, chunking) + _within_cap(second, header, chunking)


def _halves(text: str) -> tuple[str, str]:
    """Split near the middle, at the best boundary there: paragraph, line, sentence, space, anywhere."""
    middle = len(text) // 2
    for boundary in ("\n\n", "\n", ". ", "。", " "):
        left, right = text.rfind(boundary, 0, middle + 1), text.find(boundary, middle)
        candidates = [i for i in (left, right) if i > 0]
        if candidates:
            cut = min(candidates, key=lambda i: abs(i - middle)) + len(boundary)
            return text[:cut].strip(), text[cut:].strip()
    return text[:middle], text[middle:]
