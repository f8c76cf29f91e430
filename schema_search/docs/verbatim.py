"""Verbatim keys: which references a text holds, told by exact tokens instead of by reading it.

Pinning asks of each candidate chunk whether its header or text holds a reference of the
question (:mod:`.references`). In a sealed corpus reading a chunk means decrypting it, and
only the passages a search returns may be decrypted. So a sealed build reduces each
chunk's header and text to keys, one per reference the text would match, and stores them
blinded as exact tokens; a search looks a reference's key up instead.

For every reference that has a key (:func:`labelled_key`, :func:`version_key`,
:func:`identifier_key`, :func:`call_key`), ``key in keys(text)`` is exactly ``bool(reference.pattern.search(text))``:
the argument is written beside each rule, and ``tests/docs/test_verbatim.py`` checks it on
real documents. A reference of another shape has no key, and is matched by reading.
"""

from __future__ import annotations

import re

# The index fields a sealed corpus keeps a chunk's keys in (exact tokens, never a BM25 channel).
HEADER = "verbatim_header"
TEXT = "verbatim_text"
FIELDS = (HEADER, TEXT)
# A name of more segments than this (``a.b.c`` has three) has no key: a run of N segments
# gives up to N * MAX_SEGMENTS keys, and longer dotted names are not what questions cite.
MAX_SEGMENTS = 16
# The letters that IGNORECASE matches to an ASCII letter: the ASCII ones and four more
# (Python's case folding: "İ" and "ı" match "i", "ſ" matches "s", the Kelvin sign "K"
# matches "k"). A label in the text may be written with any of them.
_FOLD = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})
_LABELLED = re.compile(r"(?<!\w)([A-Za-z\u0130\u0131\u017f\u212a]+)[ \u00a0-]?(\d+)(?!\w)")
_VERSION = re.compile(r"(?<![\w.])(v?\d+(?:\.\d+)+)(?!\w|\.\d)")
_VERSION_TEXT = re.compile(r"v?\d+(?:\.\d+)+")
_RUN = re.compile(r"\w+(?:\.\w+)*")
_WORD_AT = re.compile(r"\w")


def keys(text: str) -> set[str]:
    """The keys of every reference ``text`` holds: labelled numbers, versions, names and calls.

    >>> sorted(keys("PEP 8 in v3.12"))
    ['I:12', 'I:8', 'I:PEP', 'I:in', 'I:v3', 'I:v3.12', 'L:pep:8', 'L:v:3', 'V:v3.12']
    """
    return labelled_keys(text) | version_keys(text) | identifier_keys(text) | call_keys(text)


def labelled_key(label: str, number: str) -> str:
    """The key of a labelled number (``PEP 572``), matched in any case and with or without a separator.

    >>> labelled_key("PEP", "572") == labelled_key("pep", "572")
    True
    """
    return f"L:{label.translate(_FOLD).lower()}:{number}"


def labelled_keys(text: str) -> set[str]:
    """The keys of the labelled numbers in ``text``: those ``(?<!\\w)LABEL[ \\u00a0-]?NUM(?!\\w)`` finds, in any case.

    Nothing is lost to finditer taking matches that do not overlap. A reference's match
    starts at a letter ``p`` after a non-word character; from ``p`` the greedy run of
    letters is exactly its label (a separator or digit ends it), and the digits after are
    exactly its number (a non-word character ends them), so a match starts at ``p`` with
    both. No earlier match overlaps ``p``: one is letters, at most one separator, then
    digits, so the non-word character before ``p`` would be its separator, and ``p`` one
    of its digits.

    >>> sorted(labelled_keys("PEP 8, pep-8, PEP\\u00a08 and PEP8; not PEP 8a, _PEP 8, PEP  8"))
    ['L:pep:8']
    >>> sorted(labelled_keys("Python 3.12")), labelled_keys("xPEP 8")  # as the patterns of "Python 3", "xPEP 8"
    (['L:python:3'], {'L:xpep:8'})
    >>> sorted(labelled_keys("RFC 9457/RFC-7807 \\u017fec 3")), labelled_keys("PEP 08") == {"L:pep:08"}
    (['L:rfc:7807', 'L:rfc:9457', 'L:sec:3'], True)
    """
    return {labelled_key(label, number) for label, number in _LABELLED.findall(text)}


def version_key(text: str) -> str | None:
    """The key of a version reference (``3.12``, ``v2.0``), matched exactly; None for another shape.

    >>> version_key("3.12"), version_key("v2.0"), version_key("3")
    ('V:3.12', 'V:v2.0', None)
    """
    return f"V:{text}" if _VERSION_TEXT.fullmatch(text) else None


def version_keys(text: str) -> set[str]:
    """The keys of the versions in ``text``: the TEXTs whose ``(?<![\\w.])TEXT(?!\\w|\\.\\d)`` matches it.

    A match of TEXT at ``p`` is one of the pattern here at ``p``, with the same text: ``v``
    is taken when TEXT has it; each run of digits is taken whole, as in TEXT (a ``.`` or,
    at the end, a non-word character follows it); and the groups stop where TEXT does, its
    end being followed by no ``.digit``. No earlier match overlaps ``p``: it would be all
    ``v``, digits and dots, and the character before ``p`` is none of them.

    >>> sorted(version_keys("3.12 and v3.12, not 3.12.1, 3.12a, x3.12, 3.12.0b1"))
    ['V:3.12', 'V:3.12.1', 'V:v3.12']
    >>> version_keys("Python 3.12."), version_keys("1.2..3")
    ({'V:3.12'}, {'V:1.2'})
    """
    return {f"V:{found}" for found in _VERSION.findall(text)}


def identifier_key(name: str) -> str | None:
    """The key of a name matched with its case (``HTTPException``, ``typing.Protocol``); None for another shape.

    >>> identifier_key("typing.Protocol"), identifier_key("a b"), identifier_key("f()"), identifier_key("a..b")
    ('I:typing.Protocol', None, None, None)
    """
    if not _RUN.fullmatch(name) or name.count(".") >= MAX_SEGMENTS:
        return None
    return f"I:{name}"


def identifier_keys(text: str) -> set[str]:
    """The keys of the names in ``text``: the NAMEs (word characters and single inner dots) that
    ``(?<!\\w)NAME(?!\\w)`` finds, of up to :data:`MAX_SEGMENTS` segments.

    They are the runs of segments inside each maximal dotted run of word characters. A
    NAME found at ``p``..``e`` lies inside one such run (its dots each have a word
    character after them, so the run goes on to ``e``), ``p`` starts a segment of it (a
    dot or the run's start is before it) and ``e`` ends one. Conversely any run of whole
    segments has a non-word character, or the text's edge, on either side.

    >>> sorted(identifier_keys("call app.get_db() then a.b.c."))
    ['I:a', 'I:a.b', 'I:a.b.c', 'I:app', 'I:app.get_db', 'I:b', 'I:b.c', 'I:c', 'I:call', 'I:get_db', 'I:then']
    """
    found: set[str] = set()
    for run in _RUN.findall(text):
        segments = run.split(".")
        for start in range(len(segments)):
            for end in range(start + 1, min(start + MAX_SEGMENTS, len(segments)) + 1):
                found.add("I:" + ".".join(segments[start:end]))
    return found


def call_key(name: str) -> str | None:
    """The key of a call cited in backticks (``Depends()``, ``app.get()``), matched with its case; None otherwise.

    Questions cite FastAPI's and Python's functions this way; without a key each such
    question read every candidate chunk of a sealed corpus.

    >>> call_key("Header()"), call_key("app.get()"), call_key("Depends(get_db)"), call_key("()")
    ('C:Header', 'C:app.get', None, None)
    """
    if not name.endswith("()") or identifier_key(name[:-2]) is None:
        return None
    return f"C:{name[:-2]}"


def call_keys(text: str) -> set[str]:
    """The keys of the calls in ``text``: the NAMEs for which ``(?<!\\w)NAME\\(\\)(?!\\w)`` finds ``NAME()``.

    Such a NAME ends where a maximal dotted run ends (``(`` follows it), so its segments are
    a tail of that run, starting after a dot or at the run's start: exactly the tails
    below, for a run followed by ``()`` and then a non-word character or the end.

    >>> sorted(call_keys("use app.Header() or Form(), not Body()x or Query ()"))
    ['C:Form', 'C:Header', 'C:app.Header']
    """
    found: set[str] = set()
    for run in _RUN.finditer(text):
        end = run.end()
        if text[end : end + 2] != "()" or _WORD_AT.match(text, end + 2):
            continue
        segments = run.group().split(".")
        for start in range(max(0, len(segments) - MAX_SEGMENTS), len(segments)):
            found.add("C:" + ".".join(segments[start:]))
    return found


def chunk_keys(context: str, text: str) -> dict[str, str]:
    """The verbatim fields of a chunk: its header's keys, and its text's, each sorted and space-separated.

    >>> chunk_keys("PEP 8", "x")
    {'verbatim_header': 'I:8 I:PEP L:pep:8', 'verbatim_text': 'I:x'}
    """
    return {HEADER: " ".join(sorted(keys(context))), TEXT: " ".join(sorted(keys(text)))}
