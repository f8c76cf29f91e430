"""Identifier pinning: a name or reference written verbatim in the question wins.

Someone who writes ``v_pmpm`` or ``ecm_template_link`` has told us the table, and
someone who writes ``PEP 572`` or ``HTTPException`` has told us what the passage
must contain; no fusion should be able to rank those below items that merely share
words with the question. Only identifier-shaped names pin (with ``_``, a digit, an
inner capital, or quoted in backticks/double quotes), so the plain word "singer" in
"how many singers" pins nothing. Each item kind decides which of its items a name
points at (tables: by name; chunks: by containing it); this module finds the names
and puts the pinned items first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*(?:\.[A-Za-z_][A-Za-z0-9_$]*)?")
_QUOTED = re.compile(r"`([^`]+)`|\"([^\"]+)\"")
# "PEP 572", "RFC 9457", "Article 18", "pep-8": a word naming a series, then its number.
_LABELLED = re.compile(r"(?<![\w.])([A-Za-z][A-Za-z]{1,15})[ -]?(\d+)(?![\w.])")
# "3.12", "v2.4.1": versions, never numbers.
_VERSION = re.compile(r"(?<![\w.])v?\d+(?:\.\d+)+(?![\w.]*\w)")
# Words that precede a number in plain speech ("in 2018", "top 5"), not a series name.
_NOT_LABELS = frozenset(
    "a an and are as at be by for from in into is it of on or over than the to under up with within "
    "about after before between last first next top page pages line lines step steps".split()
)


def identifier_shaped(name: str) -> bool:
    """Whether ``name`` looks like an identifier rather than a plain word.

    A word in capitals alone (``MIN``, ``COUNT``, ``OWNER``) is SQL, an acronym or
    emphasis, not a name: BIRD's evidence writes ``MIN(Age)`` and ``COUNT(id)``, and
    they pinned the hockey tables (column ``Min``) for 168 of its 1,534 questions.
    A case change inside the word (``CDSCode``, ``contactList``) still counts.

    >>> [identifier_shaped(n) for n in ("v_pmpm", "CDSCode", "k12", "singer", "Singer", "MIN", "SAT")]
    [True, True, True, False, False, False, False]
    """
    if "_" in name or any(ch.isdigit() for ch in name):
        return True
    return any(ch.isupper() for ch in name[1:]) and any(ch.islower() for ch in name)


def mentioned(question: str) -> list[str]:
    """Names the question writes verbatim: quoted spans, and identifier-shaped words.

    >>> mentioned("rows in ecm_template_link where `Free Meal Count (K-12)` > 3 and k12")
    ['Free Meal Count (K-12)', 'ecm_template_link', 'k12']
    """
    quoted = [a or b for a, b in _QUOTED.findall(question)]
    bare = [t for t in _TOKEN.findall(_QUOTED.sub(" ", question)) if identifier_shaped(t)]
    return list(dict.fromkeys(quoted + bare))


def pinned(question: str, names: Mapping[str, Sequence[str]]) -> list[str]:
    """Tables the question names verbatim, in the order it names them.

    >>> pinned("what is in v_pmpm?", {"v_pmpm": ("analytics.v_pmpm",), "plans": ("billing.plans",)})
    ['analytics.v_pmpm']
    """
    found: list[str] = []
    for name in mentioned(question):
        found.extend(names.get(name.lower(), ()))
    return list(dict.fromkeys(found))


def references(question: str) -> list[str]:
    """What the question cites verbatim besides identifiers: labelled numbers and versions.

    >>> references("Does PEP 572 change anything in 3.8? See RFC 9457 and pep-8, not page 3")
    ['PEP 572', 'RFC 9457', 'pep-8', '3.8']
    """
    labelled = [m.group(0) for m in _LABELLED.finditer(question) if m.group(1).lower() not in _NOT_LABELS]
    return list(dict.fromkeys(labelled + _VERSION.findall(question)))


def pin_first(ranked: Iterable[str], pins: Sequence[str]) -> list[str]:
    """``pins`` first, then the rest of ``ranked`` in its order.

    >>> pin_first(["a", "b", "c"], ["c"])
    ['c', 'a', 'b']
    """
    pinned_set = set(pins)
    return [*pins, *(t for t in ranked if t not in pinned_set)]


# A reference in too many documents pins only the passages before a clear gap in their
# distances to the question: a gap at least this wide (cosine distance) ...
MIN_GAP = 0.08
# ... and this many times the median step between neighbours. Set before any measurement,
# from the case the rule answers (answers at 0.27 and 0.31, noise from 0.51: a 0.20 gap
# over steps of about 0.01); eval.docs.identifiers reports what they do.
GAP_RATIO = 3.0


def before_gap(distances: Mapping[str, float], most: int) -> list[str]:
    """The items nearest the question before the largest gap in their sorted distances, or none.

    Used when a verbatim reference matches more passages than the answer can hold: sorted
    by distance, the answer-bearing ones sit apart from the rest when there is a clear gap
    within the first ``most``; an even slope means they are indistinguishable, and any few
    of them would be a sample, not the answer.

    >>> before_gap({"a": 0.27, "b": 0.31, "c": 0.51, "d": 0.52, "e": 0.53, "f": 0.55}, most=5)
    ['a', 'b']
    >>> before_gap({"a": 0.30, "b": 0.32, "c": 0.34, "d": 0.36, "e": 0.38}, most=3)
    []
    """
    ordered = sorted(distances.items(), key=lambda pair: (pair[1], pair[0]))
    if len(ordered) < 2 or most < 1:
        return []
    steps = [b[1] - a[1] for a, b in zip(ordered, ordered[1:])]
    typical = sorted(steps)[len(steps) // 2]
    # Only a gap the answer can hold counts: after at most ``most`` items.
    at = max(range(min(most, len(steps))), key=lambda i: (steps[i], -i))
    if steps[at] < MIN_GAP or steps[at] < GAP_RATIO * typical:
        return []
    return [item for item, _ in ordered[: at + 1]]
