"""Corpora with headers for the structured index: inline front matter, and fourteen real PEPs (tests/fixtures)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from schema_search.docs.chunker import Chunking
from schema_search.docs.corpus import Corpus
from schema_search.docs.sources import read_corpus
from schema_search.structured.collection import Collection
from schema_search.structured.sources import corpus_collection

from ..conftest import REPO

PEPS = REPO / "tests" / "fixtures" / "peps_sample"  # laid out as ../shared/docs_corpora/peps
PEP_NUMBERS = (8, 20, 254, 257, 286, 365, 375, 464, 482, 572, 604, 609, 781, 8000)

NOTES = {
    "a.md": "---\ntitle: Alpha\nprice: 19.90\ndraft: false\nversion: '3.10'\ntags: [x, y]\nhomepage: https://a.example/\n"
    "created: 2024-01-31\nrare: only here\n---\n# Alpha\n\nSome words here.\n",
    "b.md": "---\ntitle: Beta\nprice: 5\ndraft: true\nversion: '3.9'\ntags: [y]\nhomepage: https://b.example/x\n"
    "created: 2023-12-01\n---\n# Beta\n\nMore words in this one, a few more.\n",
    "c.md": "---\ntitle: Gamma\nprice: 7.5\ndraft: no\nversion: '3.12'\ntags: [z, x]\nhomepage: https://c.example/\n"
    "created: 2022-06-15\n---\n# Gamma\n\nShort.\n",
    "d.md": "---\ntitle: Delta\nprice: 12\ndraft: yes\nversion: '2.7'\ntags: [x]\nhomepage: https://d.example/\n"
    "created: 2021-03-02\n---\n# Delta\n\nThe last note, with words.\n",
    "e.md": "---\ntitle: Epsilon\nprice: 1.25\ndraft: false\nversion: '3.11'\ntags: [w]\nhomepage: https://e.example/\n"
    "created: 2020-07-04\n---\n# Epsilon\n\nOne more.\n",
    "f.md": "---\ntitle: Zeta\nprice: 3\ndraft: true\nversion: '3.13'\ntags: [x, w]\nhomepage: https://f.example/\n"
    "created: 2019-09-09\n---\n# Zeta\n\nAnd a sixth one to make five percent mean something.\n",
}


def write_notes(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in NOTES.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def copy_peps(folder: Path) -> Path:
    """The sample PEPs in a folder of their own (tests that index them must not write beside the fixture)."""
    shutil.copytree(PEPS, folder)
    return folder


def read(folder: Path, name: str) -> Corpus:
    return read_corpus(folder, name, Chunking())


@pytest.fixture(scope="session")
def notes_collection(tmp_path_factory: pytest.TempPathFactory) -> Collection:
    return corpus_collection(read(write_notes(tmp_path_factory.mktemp("notes")), "notes"))


@pytest.fixture(scope="session")
def peps_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_peps(tmp_path_factory.mktemp("peps") / "corpus")


@pytest.fixture(scope="session")
def peps_collection(peps_folder: Path) -> Collection:
    return corpus_collection(read(peps_folder, "peps"))
