"""The peer's chunker: LangChain's ``RecursiveCharacterTextSplitter`` defaults, re-implemented.

1,000 characters, 200 overlap, separators ``["\\n\\n", "\\n", " ", ""]``, separators kept
at the start of the following piece, chunks stripped: what most RAG tutorials ship.
It is written out here (not imported) so the peer needs no LangChain install, and
it shares nothing with our chunker.
"""

from __future__ import annotations

import re

SEPARATORS = ("\n\n", "\n", " ", "")


def split_text(text: str, chunk_size: int = 1000, chunk_overlap: int = 200, separators=SEPARATORS) -> list[str]:
    """Split like ``RecursiveCharacterTextSplitter(chunk_size, chunk_overlap)``.

    >>> split_text("aaaa bbbb cccc dddd", chunk_size=10, chunk_overlap=5)
    ['aaaa bbbb', 'bbbb cccc', 'cccc dddd']
    """
    separator = separators[-1]
    rest: tuple[str, ...] = ()
    for i, candidate in enumerate(separators):
        if candidate == "" or candidate in text:
            separator, rest = candidate, separators[i + 1 :]
            break
    splits = _split_keeping(text, separator)
    chunks: list[str] = []
    good: list[str] = []
    for piece in splits:
        if len(piece) < chunk_size:
            good.append(piece)
            continue
        if good:
            chunks.extend(_merge(good, chunk_size, chunk_overlap))
            good = []
        if not rest:
            chunks.append(piece)
        else:
            chunks.extend(split_text(piece, chunk_size, chunk_overlap, rest))
    if good:
        chunks.extend(_merge(good, chunk_size, chunk_overlap))
    return chunks


def _split_keeping(text: str, separator: str) -> list[str]:
    if not separator:
        return list(text)
    parts = re.split(f"({re.escape(separator)})", text)
    pieces = [parts[0]] + [parts[i] + parts[i + 1] for i in range(1, len(parts) - 1, 2)]
    return [p for p in pieces if p]


def _merge(splits: list[str], chunk_size: int, chunk_overlap: int) -> list[str]:
    docs: list[str] = []
    current: list[str] = []
    total = 0
    for piece in splits:
        if total + len(piece) > chunk_size and current:
            doc = "".join(current).strip()
            if doc:
                docs.append(doc)
            while total > chunk_overlap or (total + len(piece) > chunk_size and total > 0):
                total -= len(current[0])
                current.pop(0)
        current.append(piece)
        total += len(piece)
    doc = "".join(current).strip()
    if doc:
        docs.append(doc)
    return docs
