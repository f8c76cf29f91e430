"""Sharded generations in a data directory: written by a build with ``shards > 1``, reached in this process or on Ray.

What goes where is :mod:`core.shards`'s to say; this module writes a collection's items
into that layout, and picks how a server reaches the shards: every shard opened in
this process, or, with ``ray_address`` set (``serve --ray``), the Ray Serve
deployments of :mod:`cluster.serving`, imported only then (Ray is an extra).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from ..core import index
from ..core.build import Progress, coverage, write_dense
from ..core.dense import DenseIndex
from ..core.embedders import Embedder
from ..core.kind import ItemKind
from ..core.shards import (
    MANIFEST,
    SHARDS_DIR,
    Reach,
    ballast,
    ballast_documents,
    local_reach,
    shard_of,
    shard_vectors,
)
from ..errors import InvalidInput
from ..settings import Settings

Item = TypeVar("Item")


def check_shards(shards: int, sealed: bool) -> None:
    """Refuse a shard count a build cannot write, before anything is read.

    Raises:
        InvalidInput: fewer than one shard, or shards of a data directory whose generations are encrypted.
    """
    if shards < 1:
        raise InvalidInput(f"shards must be 1 or more, not {shards}", hint="--shards 3 splits a corpus three ways")
    if shards > 1 and sealed:
        raise InvalidInput(
            "sharded corpora are not encrypted yet, and this data directory encrypts every generation",
            hint="index it unsharded (no --shards), or in a data directory without a key-encryption key",
        )


@dataclass(frozen=True)
class Part:
    """One more index each shard holds beside its items' (a corpus's pages), already as index documents."""

    name: str
    fields: Sequence[str]
    documents: Sequence[dict[str, str]]  # each with its id (``index.ID``)
    owners: Sequence[str]  # what each belongs to, which decides its shard


def write_shards(
    path: Path,
    kind: ItemKind[Item],
    items: Sequence[Item],
    shards: int,
    owner: Callable[[Item], str],
    parts: Sequence[Part] = (),
    embedder: Embedder | None = None,
    previous: DenseIndex | None = None,
    progress: Progress | None = None,
    checkpoint: Path | None = None,
) -> dict:
    """Write ``items`` into generation ``path`` as ``shards`` shards; returns the manifest's entries.

    The vectors of all items are computed once (reusing ``previous``, resuming ``checkpoint``)
    and kept at the top level, where the next build finds them; each shard gets its rows.
    Every index of a shard gets its ballast (``core.shards.ballast``).

    Args:
        owner: what an item belongs to, which decides its shard (a passage: its document).
        parts: the other indexes each shard holds.
    """
    documents = [{index.ID: kind.id_of(item), **kind.document(item)} for item in items]
    manifest: dict = {"fields": list(kind.fields), "coverage": coverage(documents, kind.fields), "shards": shards}
    everything = None
    if embedder is not None:
        ids = [d[index.ID] for d in documents]
        manifest["dense"] = write_dense(path, kind, items, ids, embedder, previous, progress, checkpoint)
        everything = DenseIndex.load(path)
    every = [Part("index", kind.fields, documents, [owner(item) for item in items]), *parts]
    split = [_split(part, shards) for part in every]
    for number in progress(range(shards), "writing the shards") if progress else range(shards):
        folder = path / SHARDS_DIR / str(number)
        folder.mkdir(parents=True)
        added = {}
        for part, (mine, lengths, totals) in zip(every, split):
            extra = ballast(lengths[number], totals, len(part.documents))
            index.build([*mine[number], *ballast_documents(part.fields, extra)], part.fields, folder / part.name)
            added[part.name] = len(extra)
        if everything is not None:
            shard_vectors(everything, [d[index.ID] for d in split[0][0][number]]).save(folder)
        shard = {"shard": number, "of": shards, "items": len(split[0][0][number]), "ballast": added}
        (folder / MANIFEST).write_text(json.dumps(shard) + "\n")
    manifest["shard_sizes"] = [len(mine) for mine in split[0][0]]
    return manifest


def _split(part: Part, shards: int) -> tuple[list[list[dict]], list[list[list[int]]], list[int]]:
    """A part's documents by shard, their token counts per field by shard, and the collection's totals per field."""
    mine: list[list[dict]] = [[] for _ in range(shards)]
    lengths: list[list[list[int]]] = [[] for _ in range(shards)]
    totals = [0] * len(part.fields)
    for document, key in zip(part.documents, part.owners):
        counts = [len(index.terms(document[field])) for field in part.fields]
        number = shard_of(key, shards)
        mine[number].append(document)
        lengths[number].append(counts)
        totals = [t + c for t, c in zip(totals, counts)]
    return mine, lengths, totals


def reach(settings: Settings) -> Reach:
    """How this process reaches a sharded generation's shards: Ray Serve with ``ray_address``, else in process."""
    if settings.ray_address:
        from ..cluster.serving import ray_reach  # Ray is an extra: imported only when asked for

        return ray_reach(settings)
    return local_reach
