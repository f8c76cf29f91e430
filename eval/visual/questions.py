"""The visual question set: one JSON object per line, gold given as document paths and pages.

``{"question", "gold": [{"path", "page"?}], "where": "figure"|"scan"|"text", "lang", "answer"?, "note"}``.
``where`` says what holds the answer: a figure, a scanned page, or the text layer (a control).
``answer``: a short string the passage that answers must contain (compared as letters and
digits only, so ``13:00`` matches an OCR'd ``13.00``, and from word edge to word edge, so
``COM`` is not found in "compartment"); absent where the answer is a position no string states.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from schema_search.errors import SourceError

WHERE = ("figure", "scan", "text")
# The quick slice: this many questions of each kind, the first in the file.
QUICK = {"figure": 2, "scan": 1, "text": 1}


@dataclass(frozen=True)
class VisualQuestion:
    text: str
    gold: tuple[tuple[str, int | None], ...]  # (document path, page); page None: anywhere in it
    where: str
    lang: str = "en"
    answer: str | None = None
    note: str = ""

    @property
    def files(self) -> set[str]:
        return {path for path, _ in self.gold}


def load_questions(path: Path) -> list[VisualQuestion]:
    """Read a visual question file.

    Raises:
        SourceError: a line is not JSON, lacks ``question`` or ``gold``, or has an unknown ``where``.
    """
    questions = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            gold = tuple((g["path"], g.get("page")) for g in record["gold"])
            question = VisualQuestion(
                record["question"], gold, record["where"], record.get("lang", "en"), record.get("answer"),
                record.get("note", ""),
            )  # fmt: skip
        except (json.JSONDecodeError, KeyError, TypeError) as error:
            raise SourceError(
                f"{path}, line {number}: not a visual question record ({error}).",
                hint='Each line: {"question": "...", "gold": [{"path": "x.pdf", "page": 2}], "where": "figure"}.',
            ) from None
        if question.where not in WHERE:
            raise SourceError(f"{path}, line {number}: where {question.where!r} is not one of {', '.join(WHERE)}.")
        questions.append(question)
    return questions


def quick_slice(questions: list[VisualQuestion]) -> list[VisualQuestion]:
    """The first questions of each kind, as many as :data:`QUICK` says, in file order."""
    left = dict(QUICK)
    chosen = []
    for question in questions:
        if left.get(question.where, 0) > 0:
            chosen.append(question)
            left[question.where] -= 1
    return chosen


def answer_key(text: str) -> str:
    """What an answer is compared as: its letters and digits, lower-cased.

    >>> answer_key("M.2_1"), answer_key("13:00"), answer_key("1 342")
    ('m21', '1300', '1342')
    """
    return re.sub(r"[\W_]+", "", text.lower())


def holds_answer(answer: str, passages: list[str]) -> bool:
    """Whether one of ``passages`` contains ``answer``, compared as letters and digits (so OCR's
    spacing and punctuation do not matter), starting and ending where words do.

    >>> holds_answer("TH-Remote-7", ["uses the VPN profile TH Remote-7."])
    True
    >>> holds_answer("1 342", ["E-bikes 1342 EUR"]), holds_answer("COM", ["the compartment"])
    (True, False)
    """
    key = answer_key(answer)
    return bool(key) and any(_at_word_edges(key, passage) for passage in passages)


def _at_word_edges(key: str, passage: str) -> bool:
    words = [answer_key(w) for w in re.split(r"[\W_]+", passage.lower())]
    joined, edges, at = "", {0}, 0
    for word in filter(None, words):
        joined += word
        at += len(word)
        edges.add(at)
    start = joined.find(key)
    while start >= 0:
        if start in edges and start + len(key) in edges:
            return True
        start = joined.find(key, start + 1)
    return False
