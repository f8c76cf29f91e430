"""Sealing: the KEK and the data key, records that open only in their place, and blind BM25 that ranks as plain."""

from __future__ import annotations

import base64
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from cryptography.exceptions import InvalidTag

from schema_search.core import index, sealing
from schema_search.core.sealing import Sealer, Vault
from schema_search.errors import IndexUnreadable, InvalidInput, KeyUnavailable

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


def test_threads_making_the_first_data_key_of_a_home_all_get_the_one_on_disk(tmp_path):
    kek = os.urandom(32)
    threads = 8
    for number in range(25):
        home = tmp_path / f"home{number}"
        start = threading.Barrier(threads)

        def first_use(home=home, start=start) -> str:
            start.wait()
            return Vault(home, kek).writer().key_id  # each caller its own Vault, as Catalogs, Corpora, ... do

        with ThreadPoolExecutor(threads) as pool:
            ids = set(pool.map(lambda _: first_use(), range(threads)))
        on_disk = sealing.key_id(sealing.unwrap(sealing.read_record(home), kek, home))
        assert ids == {on_disk}
        assert sorted(p.name for p in home.iterdir()) == ["datakey.json", "datakey.lock"]  # no temporary file left


def test_rotation_replaces_the_key_file_whole_and_leaves_no_temporary_file(tmp_path):
    old, new = os.urandom(32), os.urandom(32)
    made = Vault(tmp_path, old).writer().key_id
    assert sealing.rewrap(tmp_path, old, new) == made
    assert Vault(tmp_path, new).writer().key_id == made
    assert sorted(p.name for p in tmp_path.iterdir()) == ["datakey.json", "datakey.lock"]
    assert (tmp_path / "datakey.json").stat().st_mode & 0o077 == 0  # the wrapped key: its owner's only


def test_a_sealed_generation_refuses_a_plain_file_and_a_changed_one(tmp_path):
    sealer = Sealer(os.urandom(32))
    path = tmp_path / "catalog.json"
    sealing.write_file(path, '{"name": "shop"}', sealer, "catalog\0shop")
    assert sealing.read_file(path, sealer, "catalog\0shop", required=True) == '{"name": "shop"}'
    data = bytearray(path.read_bytes())
    data[-5] ^= 1
    path.write_bytes(bytes(data))
    with pytest.raises(IndexUnreadable, match="damaged or was tampered with") as error:
        sealing.read_file(path, sealer, "catalog\0shop", required=True)
    assert "Re-index" in error.value.hint
    path.write_text('{"name": "mine"}')  # written by someone with no key
    with pytest.raises(IndexUnreadable, match="plain text in a sealed generation"):
        sealing.read_file(path, sealer, "catalog\0shop", required=True)
    assert sealing.read_file(path, None, "catalog\0shop") == '{"name": "mine"}'  # a plain generation reads as before


def test_a_changed_sealed_value_is_a_clear_error(tmp_path):
    vault = Vault(tmp_path, os.urandom(32))
    value = sealing.seal_value('{"q": 1}', vault.writer(), "entry\x001")
    assert sealing.open_value(value, vault, "entry\x001", "review queue") == '{"q": 1}'
    with pytest.raises(IndexUnreadable, match="review queue .* damaged or was tampered with"):
        sealing.open_value(value, vault, "entry\x002", "review queue")  # moved to another row
    flipped = value[:-10] + ("A" if value[-10] != "A" else "B") + value[-9:]
    with pytest.raises(IndexUnreadable, match="damaged or was tampered with"):
        sealing.open_value(flipped, vault, "entry\x001", "review queue")
