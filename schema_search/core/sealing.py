"""Encryption at rest: the key-encryption key, each data directory's data key, and sealing with it.

Two levels of key, so that changing the one the operator holds re-encrypts nothing:

* the **key-encryption key** (KEK): 32 bytes the operator keeps (``SCHEMA_SEARCH_KEK_FILE``
  or ``SCHEMA_SEARCH_KEK``). It only ever wraps data keys;
* a **data key** per data directory (the root home, and each ``spaces/<name>/``): 32 random
  bytes, stored wrapped by the KEK in ``<home>/datakey.json`` beside the fingerprint of the
  KEK that wrapped it. Rotation re-wraps this file; no index is touched.

From the data key, HKDF derives one key per use: AES-256-GCM for text (:meth:`Sealer.seal`,
a random 96-bit nonce each time, the record's name as associated data so two ciphertexts
cannot be swapped), and HMAC-SHA256 keys for BM25 terms (:meth:`Sealer.blind`), item ids
(:meth:`Sealer.blind_id`) and the content keys that let a re-index reuse vectors
(:meth:`Sealer.digest`). A blind term is deterministic, so BM25 ranks exactly as on the
words; it also means equal words have equal blind terms (see the README's "Encryption at rest").
"""

from __future__ import annotations

import base64
import binascii
import fcntl
import hashlib
import hmac
import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from ..errors import IndexUnreadable, InvalidInput, KeyUnavailable

KEY_BYTES = 32
NONCE_BYTES = 12
DATAKEY_FILE = "datakey.json"
# Held while ``datakey.json`` is made or re-wrapped (see :func:`_locked`).
LOCK_FILE = "datakey.lock"
# Associated data of a wrapped data key: a blob wrapped for anything else does not open as one.
_WRAP_AAD = b"schemasift data key v1"
MAKE_ONE = "head -c 32 /dev/urandom > kek.bin"
# Manifest keys of a sealed generation.
SEALED = "sealed"
DATA_KEY = "data_key"


def load_kek(path: Path | None = None, encoded: str | None = None) -> bytes | None:
    """The key-encryption key from a file of 32 bytes, else from base64; None when neither is set.

    Raises:
        InvalidInput: the file is missing, unreadable or not 32 bytes long, or the base64 is not 32 bytes.

    >>> len(load_kek(encoded=base64.b64encode(bytes(32)).decode()))
    32
    """
    if path is not None:
        try:
            key = Path(path).read_bytes()
        except OSError as error:
            raise InvalidInput(
                f"The key-encryption key file {str(path)!r} cannot be read ({error.strerror or error}).",
                hint=f"Point SCHEMA_SEARCH_KEK_FILE at a file of 32 random bytes; make one with `{MAKE_ONE}`.",
            ) from None
        where = f"The key-encryption key file {str(path)!r}"
    elif encoded:
        try:
            key = base64.b64decode(encoded.strip(), validate=True)
        except (binascii.Error, ValueError):
            key = b""
        where = "SCHEMA_SEARCH_KEK"
    else:
        return None
    if len(key) != KEY_BYTES:
        raise InvalidInput(
            f"{where} holds {len(key)} bytes; a key-encryption key is exactly {KEY_BYTES}.",
            hint=f"Make one with `{MAKE_ONE}` (or base64 of 32 bytes in SCHEMA_SEARCH_KEK).",
        )
    return key


def fingerprint(kek: bytes) -> str:
    """What names a KEK in ``datakey.json`` without revealing it: 16 hex digits of an HMAC.

    >>> fingerprint(bytes(32))
    'fc9d841c4624f85e'
    """
    return hmac.new(kek, b"schemasift kek fingerprint", hashlib.sha256).hexdigest()[:16]


def _derive(key: bytes, use: str) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=KEY_BYTES, salt=None, info=use.encode()).derive(key)


def wrap(data_key: bytes, kek: bytes) -> dict:
    """The record ``datakey.json`` holds: the data key sealed with the KEK, and the KEK's fingerprint."""
    nonce = os.urandom(NONCE_BYTES)
    sealed = AESGCM(kek).encrypt(nonce, data_key, _WRAP_AAD)
    return {
        "version": 1,
        "id": key_id(data_key),
        "kek": fingerprint(kek),
        "wrapped": base64.b64encode(nonce + sealed).decode(),
    }


def unwrap(record: dict, kek: bytes, where: Path) -> bytes:
    """The data key of ``record``; a KEK other than the one that wrapped it is a clear error, not garbage."""
    found = fingerprint(kek)
    if record.get("kek") != found:
        raise KeyUnavailable(
            f"The data key of {str(where)!r} was wrapped by another key-encryption key "
            f"(fingerprint {record.get('kek')}; the one configured is {found}).",
            hint="Configure the key it was made with (SCHEMA_SEARCH_KEK_FILE), or re-wrap it with that key: "
            "`schemasift encryption rotate --old-kek-file OLD --new-kek-file NEW`.",
        )
    blob = base64.b64decode(record["wrapped"])
    return AESGCM(kek).decrypt(blob[:NONCE_BYTES], blob[NONCE_BYTES:], _WRAP_AAD)


def key_id(data_key: bytes) -> str:
    """A data key's name in manifests: stable across rotations (it depends on the data key only)."""
    return hmac.new(data_key, b"schemasift data key id", hashlib.sha256).hexdigest()[:16]


def read_record(home: Path) -> dict | None:
    try:
        return json.loads((Path(home) / DATAKEY_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None


@contextmanager
def _locked(home: Path) -> Iterator[None]:
    """Held while ``datakey.json`` of ``home`` is made or re-wrapped.

    An exclusive ``flock`` on ``datakey.lock``, not a ``threading.Lock``: it also excludes other
    processes (``serve --workers``, a CLI run beside the server). And since each call opens the
    lock file anew, it excludes other threads of this process too: a flock belongs to the open
    file, so two opens of one file conflict even in one process. Several threads can make the
    first data key of one home at once (each Catalogs, Corpora, review queue and turns store
    holds its own :class:`Vault`), and without the lock two of them could each make a key and
    one of them seal data with the key that lost, which then never opens again.
    """
    home.mkdir(parents=True, exist_ok=True)
    fd = os.open(home / LOCK_FILE, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def _fsync_dir(folder: Path) -> None:
    """Make a rename or link in ``folder`` durable: without it a crash can undo a creation or a rotation."""
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_record(home: Path, record: dict, exclusive: bool = False) -> bool:
    """Write ``datakey.json`` atomically; ``exclusive``: only when there is none yet (False: one was there).

    Call it under :func:`_locked`. The temporary file has a name of its own (two writers never
    share one), is synced before it takes the place of ``datakey.json``, and the folder after.
    """
    home = Path(home)
    home.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=home, prefix=f".{DATAKEY_FILE}.", suffix=".tmp")  # mode 0600
    tmp = Path(name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(json.dumps(record, indent=2))
            out.flush()
            os.fsync(out.fileno())
        if exclusive:
            try:
                os.link(tmp, home / DATAKEY_FILE)  # fails when another writer (an older release: no lock) made one
            except FileExistsError:
                return False
        else:
            os.replace(tmp, home / DATAKEY_FILE)
        _fsync_dir(home)
    finally:
        tmp.unlink(missing_ok=True)
    return True


def ensure_data_key(home: Path, kek: bytes) -> dict:
    """The record of ``home``'s data key, made (wrapped by ``kek``) when there is none yet.

    Always the record read back from disk: a caller that lost a race to make it gets the one
    that won, never a key that exists only in its memory.
    """
    home = Path(home)
    if read_record(home) is None:
        with _locked(home):
            if read_record(home) is None:
                write_record(home, wrap(os.urandom(KEY_BYTES), kek), exclusive=True)
    record = read_record(home)
    if record is None:  # removed between the write and this read: nothing was sealed with it yet
        raise KeyUnavailable(
            f"{str(home / DATAKEY_FILE)!r} was removed as it was made.",
            hint="Run the command again; if this repeats, check what deletes files in the data directory.",
        )
    return record


def rewrap(home: Path, old: bytes, new: bytes) -> str | None:
    """Re-wrap the data key of ``home`` with ``new``; returns its id, None when ``home`` has none."""
    home = Path(home)
    if read_record(home) is None:
        return None
    with _locked(home):
        record = read_record(home)
        if record is None:
            return None
        data_key = unwrap(record, old, home)
        write_record(home, wrap(data_key, new))
    return key_id(data_key)


class Sealer:
    """Seals and opens the records of one data directory with its data key."""

    def __init__(self, data_key: bytes) -> None:
        self.key_id = key_id(data_key)
        self._aead = AESGCM(_derive(data_key, "text"))
        self._terms = _derive(data_key, "terms")
        self._ids = _derive(data_key, "ids")
        self._content = _derive(data_key, "content")
        self.blind = lru_cache(maxsize=1 << 18)(self._blind)

    def seal(self, text: str, aad: str) -> str:
        """``text`` encrypted, as base64 of nonce + ciphertext + tag; ``aad`` binds it to its place."""
        return base64.b64encode(self.seal_bytes(text.encode("utf-8"), aad)).decode("ascii")

    def open(self, blob: str, aad: str) -> str:
        """The text :meth:`seal` sealed with the same ``aad``; anything else raises ``InvalidTag``."""
        return self.open_bytes(base64.b64decode(blob), aad).decode("utf-8")

    def seal_bytes(self, data: bytes, aad: str) -> bytes:
        nonce = os.urandom(NONCE_BYTES)
        return nonce + self._aead.encrypt(nonce, data, aad.encode("utf-8"))

    def open_bytes(self, blob: bytes, aad: str) -> bytes:
        return self._aead.decrypt(blob[:NONCE_BYTES], blob[NONCE_BYTES:], aad.encode("utf-8"))

    def _blind(self, term: str) -> str:
        """An analysed term as the index stores it: 16 hex digits of its HMAC (64 bits: no collisions in practice)."""
        return hmac.new(self._terms, term.encode("utf-8"), hashlib.sha256).hexdigest()[:16]

    def blind_id(self, item: str) -> str:
        """An item id as the index and vectors file store it: a table's id is its name."""
        return hmac.new(self._ids, item.encode("utf-8"), hashlib.sha256).hexdigest()[:16]

    def digest(self, text: str) -> str:
        """A keyed content key (the vectors' reuse key): a plain hash would confirm a guessed text."""
        return hmac.new(self._content, text.encode("utf-8"), hashlib.sha256).hexdigest()[:16]


@dataclass
class Vault:
    """The data key of one data directory, under the configured KEK (None: encryption off)."""

    home: Path
    kek: bytes | None

    def __post_init__(self) -> None:
        self.home = Path(self.home)
        self._sealer: Sealer | None = None

    @property
    def on(self) -> bool:
        return self.kek is not None

    def writer(self) -> Sealer | None:
        """The sealer new generations are written with (the data key made on first use); None when off."""
        if self.kek is None:
            return None
        if self._sealer is None:
            # The key read back from disk, whoever made it: never one only this call holds.
            self._sealer = Sealer(unwrap(ensure_data_key(self.home, self.kek), self.kek, self.home))
        return self._sealer

    def reader(self, manifest: dict, what: str) -> Sealer | None:
        """The sealer a generation with ``manifest`` is read with; None for one written in plain text.

        Raises:
            KeyUnavailable: it is sealed, and no KEK is configured, or the data key is
                missing or is another one than the generation was sealed with.
        """
        if not manifest.get(SEALED):
            return None
        if self.kek is None:
            raise KeyUnavailable(
                f"The {what} is stored encrypted and no key-encryption key is configured.",
                hint="Set SCHEMA_SEARCH_KEK_FILE to the file of 32 bytes it was written with; nothing stored is lost.",
            )
        if self._sealer is None:
            self._sealer = self._open()
        if manifest.get(DATA_KEY) not in (None, self._sealer.key_id):
            raise KeyUnavailable(
                f"The {what} was sealed with data key {manifest.get(DATA_KEY)}; {str(self.home)!r} holds "
                f"{self._sealer.key_id}.",
                hint=f"Restore the {DATAKEY_FILE} it was written with, or re-index it.",
            )
        return self._sealer

    def _open(self) -> Sealer:
        assert self.kek is not None
        record = read_record(self.home)
        if record is None:
            raise KeyUnavailable(
                f"{str(self.home / DATAKEY_FILE)!r} is missing: the encrypted data here cannot be opened.",
                hint=f"Restore {DATAKEY_FILE} from a backup of this data directory; without it, re-index.",
            )
        return Sealer(unwrap(record, self.kek, self.home))


def manifest_entries(sealer: Sealer | None) -> dict:
    """What a generation's manifest says of its sealing (nothing for one in plain text)."""
    return {SEALED: True, DATA_KEY: sealer.key_id} if sealer is not None else {}


# A whole file sealed (catalog.json, structured.json, examples): these bytes, then nonce + ciphertext + tag.
FILE_MAGIC = b"SCHEMASIFT-SEALED-1\n"


def write_file(path: Path, text: str, sealer: Sealer | None, aad: str) -> None:
    """Write ``text`` to ``path``, sealed with ``aad`` when there is a ``sealer``."""
    if sealer is None:
        Path(path).write_text(text, encoding="utf-8")
    else:
        Path(path).write_bytes(FILE_MAGIC + sealer.seal_bytes(text.encode("utf-8"), aad))


def read_file(path: Path, sealer: Sealer | None, aad: str, *, required: bool = False) -> str:
    """The text of ``path``, opened when it is sealed (a plain file reads as it is, unless ``required``).

    ``required``: the file belongs to a generation whose manifest says it is sealed (pass
    ``sealer is not None``). Then a plain file is refused: someone who can write the data
    directory but holds no key must not be able to swap in content of their own.

    Raises:
        ValueError: the file is sealed and no ``sealer`` was given.
        IndexUnreadable: ``required`` and the file is plain, or does not open (changed, or
            another file's): the generation is damaged or was tampered with.
        InvalidTag: not ``required``, and the file does not open.
    """
    path = Path(path)
    what = f"The file {path.name!r} of {str(path.parent)!r}"
    data = path.read_bytes()
    if not data.startswith(FILE_MAGIC):
        if required:
            raise damaged(what, "is stored in plain text in a sealed generation")
        return data.decode("utf-8")
    if sealer is None:
        raise ValueError(f"{path.name} is sealed and no key was given")
    if not required:
        return sealer.open_bytes(data[len(FILE_MAGIC) :], aad).decode("utf-8")
    with opening(what):
        return sealer.open_bytes(data[len(FILE_MAGIC) :], aad).decode("utf-8")


def damaged(what: str, why: str, hint: str | None = None) -> IndexUnreadable:
    """The error for a record of a sealed generation that is plain or does not open: ``what`` ``why``."""
    return IndexUnreadable(
        f"{what} {why}: the data is damaged or was tampered with, and is not used.",
        hint=hint
        or "Re-index it to write it afresh (check first who else can write the data directory); "
        "restoring the data directory from a backup also works.",
    )


@contextmanager
def opening(what: str, hint: str | None = None) -> Iterator[None]:
    """Around opening one sealed record: one that does not open is :func:`damaged`, not a bare ``InvalidTag``.

    A record opens only with its data key and in its own place (its associated data); a
    changed byte, a truncated blob or a record moved from elsewhere fails its tag. Wrap the
    opening only: a ``ValueError`` raised inside is taken for a damaged record.
    """
    try:
        yield
    except (InvalidTag, ValueError) as error:  # ValueError: bad base64, a blob too short for its nonce
        raise damaged(what, f"does not open ({type(error).__name__})", hint) from None


# A sealed value in a database column (turns, the review queue): this prefix, the data key's id, ":", then
# :meth:`Sealer.seal`'s base64. A plain value (JSON, a question) never starts with it.
VALUE_PREFIX = "sealed:"


def seal_value(text: str, sealer: Sealer | None, aad: str) -> str:
    """``text`` as a column stores it: sealed with ``aad`` when there is a ``sealer``, else as it is."""
    if sealer is None:
        return text
    return f"{VALUE_PREFIX}{sealer.key_id}:{sealer.seal(text, aad)}"


def is_sealed_value(value: str) -> bool:
    return value.startswith(VALUE_PREFIX)


def open_value(value: str, vault: Vault, aad: str, what: str) -> str:
    """The text of a column's ``value``, opened when :func:`seal_value` sealed it (a plain one reads as it is).

    Raises:
        KeyUnavailable: it is sealed, and no KEK is configured or the data key is another one.
        IndexUnreadable: it is sealed and does not open (changed, or moved from another row).
    """
    if not is_sealed_value(value):
        return value
    key, _, blob = value[len(VALUE_PREFIX) :].partition(":")
    sealer = vault.reader({SEALED: True, DATA_KEY: key}, what)
    assert sealer is not None
    with opening(
        f"A value of the {what} stored in {str(vault.home)!r}",
        hint="It cannot be read back; check who else can write the data directory, or restore it from a backup.",
    ):
        return sealer.open(blob, aad)


def is_sealed_file(path: Path) -> bool:
    with open(path, "rb") as handle:
        return handle.read(len(FILE_MAGIC)) == FILE_MAGIC
