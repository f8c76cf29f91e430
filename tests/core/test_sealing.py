"""Sealing: the KEK and the data key, records that open only in their place, and blind BM25 that ranks as plain."""

from __future__ import annotations

import base64
import os

import pytest
from cryptography.exceptions import InvalidTag

from schema_search.core import index, sealing
from schema_search.core.sealing import Sealer, Vault
from schema_search.errors import InvalidInput, KeyUnavailable

DOCUMENTS = [
    {"id": "a", "body": "the quick brown foxes jumping over the lazy dogs", "title": "Foxes"},
    {"id": "b", "body": "lazy dogs and one fox sleeping", "title": "Dogs"},
    {"id": "c", "body": "nothing here but fox fox fox", "title": "Nothing"},
    {"id": "d", "body": "invoices are kept for ten years", "title": "Retention"},
]


def test_a_sealed_record_opens_only_with_its_own_associated_data():
    sealer = Sealer(os.urandom(32))
    blob = sealer.seal("Refunds follow Policy 12", "chunk\0c\0S1")
    assert "Refunds" not in blob and sealer.open(blob, "chunk\0c\0S1") == "Refunds follow Policy 12"
    with pytest.raises(InvalidTag):  # moved to another chunk: refused, not garbage
        sealer.open(blob, "chunk\0c\0S2")
    assert sealer.seal("x", "a") != sealer.seal("x", "a")  # a fresh nonce each time


def test_blind_terms_are_keyed_and_stable():
    key = os.urandom(32)
    assert Sealer(key).blind("invoic") == Sealer(key).blind("invoic")
    assert Sealer(key).blind("invoic") != Sealer(os.urandom(32)).blind("invoic")
    assert len(Sealer(key).blind("invoic")) == 16


@pytest.mark.parametrize(
    ("words", "fields"),
    [
        (["fox", "dogs"], "body"),
        (["the", "lazy", "lazy", "dogs", "dog"], "body"),
        (["foxes"], "title"),
        (["invoices", "ten"], "body"),
    ],
)
def test_a_sealed_index_ranks_and_scores_exactly_as_the_plain_one(words, fields):
    sealer = Sealer(os.urandom(32))
    plain = index.FieldRanker(index.build(DOCUMENTS, ["body", "title"]))
    ids = {sealer.blind_id(d["id"]): d["id"] for d in DOCUMENTS}
    sealed = index.FieldRanker(index.build(DOCUMENTS, ["body", "title"], sealer=sealer), sealer, ids)
    assert sealed.rank(fields, words, 10) == plain.rank(fields, words, 10)
    assert sealed.containing_all(["body", "title"], words, 10) == plain.containing_all(["body", "title"], words, 10)
    terms = [t for w in words for t in index.terms(w)]
    assert sealed.frequencies(["body", "title"], terms) == plain.frequencies(["body", "title"], terms)


def test_a_sealed_index_holds_no_word_and_no_id(tmp_path):
    sealer = Sealer(os.urandom(32))
    index.build(DOCUMENTS, ["body", "title"], tmp_path / "index", sealer)
    blobs = b"".join(p.read_bytes() for p in (tmp_path / "index").rglob("*") if p.is_file())
    for word in (b"invoic", b"retention", b"fox", b"lazi"):
        assert word not in blobs.lower()


def test_key_fields_are_written_sealed_only_and_looked_up_whole(tmp_path):
    sealer = Sealer(os.urandom(32))
    keyed = [{**d, "keys": "L:pep:8 I:a.b" if d["id"] in "ab" else "I:a"} for d in DOCUMENTS]
    ids = {sealer.blind_id(d["id"]): d["id"] for d in DOCUMENTS}
    sealed = index.FieldRanker(index.build(keyed, ["body"], tmp_path / "index", sealer, keys=["keys"]), sealer, ids)
    assert sealed.holding("keys", "L:pep:8") == {"a", "b"} and sealed.holding("keys", "I:a") == {"c", "d"}
    assert sealed.holding("keys", "I:b") == set()  # a key is one token: no part of another
    assert sealed.rank("body", ["fox"], 10) == index.FieldRanker(index.build(DOCUMENTS, ["body"])).rank(
        "body", ["fox"], 10
    )
    blobs = b"".join(p.read_bytes() for p in (tmp_path / "index").rglob("*") if p.is_file())
    assert b"pep" not in blobs.lower()
    # No key field: a plain index (they are not written there), or a sealed one built before them.
    assert index.FieldRanker(index.build(keyed, ["body"], keys=["keys"])).holding("keys", "I:a") is None
    assert (
        index.FieldRanker(index.build(DOCUMENTS, ["body"], sealer=sealer), sealer, ids).holding("keys", "I:a") is None
    )


def test_the_kek_comes_from_a_file_of_32_bytes_or_base64(tmp_path):
    good = tmp_path / "kek.bin"
    good.write_bytes(os.urandom(32))
    assert sealing.load_kek(good) == good.read_bytes()
    assert sealing.load_kek(None, base64.b64encode(good.read_bytes()).decode()) == good.read_bytes()
    assert sealing.load_kek(None, None) is None
    short = tmp_path / "short.bin"
    short.write_bytes(b"12345")
    with pytest.raises(InvalidInput, match="holds 5 bytes") as error:
        sealing.load_kek(short)
    assert "head -c 32 /dev/urandom" in error.value.hint
    with pytest.raises(InvalidInput, match="cannot be read"):
        sealing.load_kek(tmp_path / "missing.bin")


def test_a_data_key_is_made_once_and_rotation_rewraps_it(tmp_path):
    old, new = os.urandom(32), os.urandom(32)
    sealer = Vault(tmp_path, old).writer()
    blob = sealer.seal("secret", "x")
    assert Vault(tmp_path, old).writer().key_id == sealer.key_id  # read back, not made again
    manifest = sealing.manifest_entries(sealer)
    assert sealing.rewrap(tmp_path, old, new) == sealer.key_id
    assert Vault(tmp_path, new).reader(manifest, "corpus 'c'").open(blob, "x") == "secret"  # nothing re-encrypted
    with pytest.raises(KeyUnavailable, match="another key-encryption key"):
        Vault(tmp_path, old).reader(manifest, "corpus 'c'")
    with pytest.raises(KeyUnavailable, match="no key-encryption key is configured"):
        Vault(tmp_path, None).reader(manifest, "corpus 'c'")
    assert Vault(tmp_path, None).reader({}, "corpus 'c'") is None  # a plain generation reads as before
