"""Chunk -> its search document (``headings``, ``body``) and its embedding text.

* ``headings``: the context header: document label and title, then the heading path.
* ``body``: the chunk's own text, without markup that is not words (HTML tags, link targets).

The header is in the embedding input and in the headings channel, never in the
body: a title word must not count once per chunk of its page in body BM25.
"""

from __future__ import annotations

import re

from ..core.analyzer import words
from ..core.kind import ItemKind
from . import verbatim
from .corpus import Chunk, embedding_input

FIELDS = ("headings", "body")
_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_LINK_TARGET = re.compile(r"\]\([^)\s]*(?:\s+\"[^\"]*\")?\)")


def index_text(text: str) -> str:
    """The words of a chunk's text as the body field indexes them.

    >>> index_text('See <abbr title="x">ASGI</abbr> and [the guide](https://a.b/c "t").')
    'see asgi and the guide'
    """
    return " ".join(words(_LINK_TARGET.sub("]", _TAG.sub(" ", text))))


def chunk_document(chunk: Chunk) -> dict[str, str]:
    return {"headings": " ".join(words(chunk.context)), "body": index_text(chunk.text)}


def embedding_text(chunk: Chunk) -> str:
    return embedding_input(chunk.context, chunk.text)


CHUNKS: ItemKind[Chunk] = ItemKind(
    noun="chunk",
    fields=FIELDS,
    id_of=lambda chunk: chunk.id,
    document=chunk_document,
    embedding_text=embedding_text,
    # A sealed corpus's pins look references up here instead of decrypting candidates (docs.references).
    key_fields=verbatim.FIELDS,
    keys=lambda chunk: verbatim.chunk_keys(chunk.context, chunk.text),
)
