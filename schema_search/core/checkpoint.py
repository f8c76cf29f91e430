"""The vectors an unfinished embedding has computed so far, kept on disk so a build cut short resumes.

A big corpus embeds for hours on a small machine. Its vectors are appended, a batch
at a time, to one file per collection (``embeddings.partial`` beside the generations,
see :mod:`store`); Ctrl-C, a kill or a crash loses at most the batch in flight, and
the next build of the collection reads the file back and encodes only what is not in
it. The store removes the file once a build goes live.

The file is a header, then records that are only ever appended::

    MAGIC, u32 n, n bytes of JSON {"model": ..., "dim": ...}
    u32 count, u32 crc32(payload), payload: count keys (KEY_BYTES ASCII each), count x dim float32

Appends are not fsynced (a power cut may lose the last seconds, which are simply
encoded again), so nothing in the file is trusted that its checksum does not vouch
for: reading stops at the first short or damaged record, and the next append cuts
the file there. A file from another model (another backend) is not read, and the
next append starts it over.
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

MAGIC = b"SSVECS1\n"
KEY_BYTES = 16  # dense._key: 16 hex digits of the text's SHA-1
_U32 = struct.Struct("<I")
_RECORD = struct.Struct("<II")


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during an embedding, saying what was kept of it (the CLI prints it).

    >>> str(Interrupted(14_500, 29_040, "chunk"))
    '14,500 of 29,040 chunks embedded and kept; run the same command to resume'
    """

    def __init__(self, kept: int, total: int, noun: str) -> None:
        super().__init__(f"{kept:,} of {total:,} {noun}s embedded and kept; run the same command to resume")
        self.kept, self.total = kept, total


class Checkpoint:
    """The vectors of model ``model`` saved so far at ``path``: :meth:`load` them, :meth:`append` more."""

    def __init__(self, path: Path, model: str) -> None:
        self.path = Path(path)
        self.model = model
        self._end: int | None = None  # bytes of the file that are valid records of this model; 0: start over
        self._dim = 0

    def load(self) -> dict[str, np.ndarray]:
        """key -> vector of every record that checks out; empty for a missing file or another model's."""
        try:
            data = self.path.read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            data = b""
        header = read_header(data)
        if header is None or header[0] != self.model:
            self._end = 0
            return {}
        self._dim, start = header[1], header[2]
        found, self._end = read_records(data, start, self._dim)
        return found

    def append(self, keys: Sequence[str], vectors: np.ndarray) -> None:
        """Add the vectors of ``keys`` with one write: a crash leaves the record whole or ignored."""
        if not len(keys):
            return
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if self._end is None:
            self.load()
        if self._end == 0 or self._dim != vectors.shape[1]:
            self.path.write_bytes(pack_header(self.model, vectors.shape[1]))
            self._dim, self._end = vectors.shape[1], self.path.stat().st_size
        record = pack_record(keys, vectors)
        with open(self.path, "r+b", buffering=0) as handle:
            handle.truncate(self._end)  # a damaged tail from a crash: later records would never be read
            handle.seek(self._end)
            handle.write(record)
        self._end += len(record)

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)
        self._end = None


def pack_header(model: str, dim: int) -> bytes:
    meta = json.dumps({"model": model, "dim": dim}).encode()
    return MAGIC + _U32.pack(len(meta)) + meta


def read_header(data: bytes) -> tuple[str, int, int] | None:
    """``(model, dim, where the records start)``, or None when ``data`` does not start with a header.

    >>> read_header(pack_header("all-MiniLM-L6-v2", 384))[:2]
    ('all-MiniLM-L6-v2', 384)
    >>> read_header(pack_header("m", 4)[:-1]) is None  # cut short
    True
    """
    if not data.startswith(MAGIC) or len(data) < len(MAGIC) + _U32.size:
        return None
    (size,) = _U32.unpack_from(data, len(MAGIC))
    start = len(MAGIC) + _U32.size + size
    try:
        meta = json.loads(data[len(MAGIC) + _U32.size : start])
        model, dim = str(meta["model"]), int(meta["dim"])
    except (ValueError, KeyError, TypeError):
        return None
    return (model, dim, start) if len(data) >= start and dim > 0 else None


def pack_record(keys: Sequence[str], vectors: np.ndarray) -> bytes:
    encoded = b"".join(key.encode("ascii") for key in keys)
    if len(encoded) != KEY_BYTES * len(keys) or len(vectors) != len(keys):
        raise ValueError(f"expected one {KEY_BYTES}-character key per vector")
    payload = encoded + np.ascontiguousarray(vectors, dtype="<f4").tobytes()
    return _RECORD.pack(len(keys), zlib.crc32(payload)) + payload


def read_records(data: bytes, start: int, dim: int) -> tuple[dict[str, np.ndarray], int]:
    """key -> vector of the whole, intact records from ``start`` on, and where they end.

    Reading stops at the first record that is cut short or fails its checksum: what
    follows a damaged record cannot be told apart from garbage. A record of no
    vectors is never written, so zeros (what a power cut may leave past the end of
    the data) are not one either.

    >>> a = pack_record(["k" * 16], np.ones((1, 2)))
    >>> b = pack_record(["j" * 16], np.zeros((1, 2)))
    >>> found, end = read_records(a + b, 0, 2)
    >>> sorted(found), end == len(a + b)
    (['jjjjjjjjjjjjjjjj', 'kkkkkkkkkkkkkkkk'], True)
    >>> found, end = read_records(a + b[:-1], 0, 2)  # the last write cut short
    >>> list(found), end == len(a)
    (['kkkkkkkkkkkkkkkk'], True)
    >>> flipped = a[:-1] + bytes([a[-1] ^ 1])
    >>> read_records(flipped + b, 0, 2)  # a damaged record, and all after it, ignored
    ({}, 0)
    >>> read_records(bytes(64), 0, 2)
    ({}, 0)
    """
    found: dict[str, np.ndarray] = {}
    at = end = start
    while at + _RECORD.size <= len(data):
        count, checksum = _RECORD.unpack_from(data, at)
        size = count * (KEY_BYTES + 4 * dim)
        payload = data[at + _RECORD.size : at + _RECORD.size + size]
        if count == 0 or len(payload) != size or zlib.crc32(payload) != checksum:
            break
        keys = payload[: count * KEY_BYTES]
        rows = np.frombuffer(payload, "<f4", count * dim, count * KEY_BYTES).reshape(count, dim)
        for n in range(count):
            found[keys[n * KEY_BYTES : (n + 1) * KEY_BYTES].decode("ascii")] = rows[n]
        at = end = at + _RECORD.size + size
    return found, end
