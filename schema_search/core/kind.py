"""An item kind: what the core needs to know to index and search one kind of item.

Tables and document chunks are the two kinds today. Each declares its text fields
(each becomes one BM25 channel with its own term statistics) and what the embedding
model reads for one item; everything else (index generations, rankings, fusion, the
floor, pins) is the same code for both.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

Item = TypeVar("Item")


@dataclass(frozen=True)
class ItemKind(Generic[Item]):
    """How one kind of item becomes search documents.

    Attributes:
        noun: what one item is called (``table``, ``chunk``).
        fields: the BM25 fields, in channel order.
        id_of: the item's id, unique in its collection.
        document: field -> the item's text for that field (words already split,
            see ``analyzer.words``); an empty string where it has none.
        embedding_text: what the dense model reads for the item.
        key_fields: exact-token fields of a sealed index (``core.index``), never BM25
            channels: what a search must know of an item it may not decrypt.
        keys: key field -> the item's keys there, space-separated.
    """

    noun: str
    fields: tuple[str, ...]
    id_of: Callable[[Item], str]
    document: Callable[[Item], Mapping[str, str]]
    embedding_text: Callable[[Item], str]
    key_fields: tuple[str, ...] = ()
    keys: Callable[[Item], Mapping[str, str]] | None = None
