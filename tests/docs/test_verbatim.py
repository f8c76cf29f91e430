"""Verbatim keys answer as the references' patterns do: ``key in keys(text)`` iff ``pattern.search(text)``.

Texts are passages of real documents (the sample docs, and a few hundred of FastAPI's and
the PEPs' when the shared corpora are here), each also rewritten the ways references vary
(case, separators, version suffixes, letters Python folds to ASCII); references are what
the question extractor makes of those texts' own words.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from schema_search.docs import verbatim
from schema_search.docs.references import Reference, references

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "docs_corpora"
SEED = 7
PASSAGES = 300  # from each shared corpus
OTHERS = 60  # references of other passages checked against each text
# Every labelled number counts as cited, whatever its case (as in a corpus known by that label).
LABELS = frozenset({"pep", "rfc", "policy", "article", "python", "http", "section", "issue", "bpo", "gh", "oauth2"})


def _passages(folder: Path, n: int | None, rng: random.Random) -> list[str]:
    files = sorted(p for p in folder.rglob("*") if p.suffix in {".md", ".rst", ".txt", ".html"})
    paragraphs = [
        part.strip()
        for path in files
        for part in re.split(r"\n\s*\n", path.read_text(encoding="utf-8", errors="replace"))
        if part.strip()
    ]
    return paragraphs if n is None or len(paragraphs) <= n else rng.sample(paragraphs, n)


def _variants(text: str, rng: random.Random) -> list[str]:
    """``text``, and it rewritten where references differ by a character."""
    pick = lambda *options: lambda _: rng.choice(options)  # noqa: E731
    return [
        text,
        re.sub(r"(?<=[A-Za-z]) (?=\d)", pick("", "-", "\u00a0", "  ", "_"), text),
        re.sub(r"(?<=\d)(?=[\s,;)]|$)", pick(".1", "a", ".", ".x", ""), text),
        re.sub(r"[A-Za-z]", lambda m: m.group().swapcase() if rng.random() < 0.3 else m.group(), text),
        text.replace("s", "\u017f").replace("k", "\u212a").replace("i", "\u0131"),
        re.sub(r"\.", pick(".", "..", ". ", ""), text),
    ]


def _references(text: str, rng: random.Random) -> list[Reference]:
    """What the extractor makes of ``text`` whole, and of a few windows of its words as questions."""
    found = references(text, LABELS)
    words = text.split()
    for _ in range(3):
        at = rng.randrange(max(len(words), 1))
        found += references(" ".join(words[at : at + 8]), LABELS)
    return found


@pytest.fixture(scope="module")
def passages() -> list[str]:
    rng = random.Random(SEED)
    found = _passages(REPO / "sample_docs", None, rng)
    for corpus in ("fastapi", "peps"):
        if (SHARED / corpus).is_dir():
            found += _passages(SHARED / corpus, PASSAGES, rng)
    return found


def test_a_key_is_in_a_texts_keys_exactly_when_the_references_pattern_matches_it(passages):
    rng = random.Random(SEED)
    texts = [variant for text in passages for variant in _variants(text, rng)]
    pool = {(r.text, r.header_only): r for text in passages for r in _references(text, rng)}
    keyed = [r for r in pool.values() if r.key is not None]
    checked = matched = 0
    for text in texts:
        keys = verbatim.keys(text)
        for reference in _references(text, rng) + rng.sample(keyed, min(OTHERS, len(keyed))):
            if reference.key is None:
                continue
            found = bool(reference.pattern.search(text))
            assert (reference.key in keys) == found, (reference, text)
            checked, matched = checked + 1, matched + found
    kinds = {r.key[0] for r in keyed}
    # Calls (`Header()`) come from FastAPI's passages, when ../shared is there; the edge cases cover them anyway.
    assert {"L", "V", "I"} <= kinds and matched > 1000 and checked > 10 * matched // 2
    # The rest are backticked spans of other shapes (``handbook/``, a command line): read, as before.
    assert len(keyed) > 0.5 * len(pool)


@pytest.mark.parametrize(
    ("question", "text", "found"),
    [
        ("PEPS 8", "see PEP\u017f 8", True),  # "ſ" folds to "s" in IGNORECASE
        ("see Kelvin 5", "\u212aelvin-5", True),
        ("RFC 9457", "rfc9457, not RFC 94570", True),
        ("RFC 9457", "RFC 94570 or RFC 9457a", False),
        ("in 3.12", "Python 3.12.1", False),
        ("in 3.12", "ends with 3.12.", True),
        ("in v2.0", "tag v2.0-rc", True),
        ("use `a.b.c`", "x.a.b.c.d", True),
        ("use `a.b.c`", "a.b.cd", False),
        ("the HTTPException", "fastapi.HTTPException(", True),
        ("the HTTPException", "HTTPExceptions", False),
        ("use `Header()`", "from fastapi import Header; x = Header()", True),
        ("use `Header()`", "Header() or app.Header()x", True),
        ("use `Header()`", "Header ()", False),
        ("use `Header()`", "XHeader() and Header()y", False),
        ("use `app.get()`", "@my.app.get()", True),
    ],
)
def test_edge_cases(question, text, found):
    reference = references(question, LABELS)[-1]
    assert reference.key is not None and bool(reference.pattern.search(text)) is found
    assert (reference.key in verbatim.keys(text)) is found


def test_other_shapes_have_no_key_and_are_read():
    found = {r.text: r.key for r in references("what does `Depends(get_db)` do, and `a b`?")}
    assert references("and `Depends()`?")[-1].key == "C:Depends"
    assert found == {"Depends(get_db)": None, "a b": None, "get_db": "I:get_db"}
    dotted = ".".join("abcdefghijklmnopq")  # 17 segments
    assert verbatim.identifier_key(dotted) is None and verbatim.identifier_key(dotted[2:]) is not None
