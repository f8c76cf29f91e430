"""Question sets: one JSON object per line, ``{"question", "gold_urls", "lang", "kind"?, "note"?}``.

``gold_urls`` are the pages that answer the question; empty for a question the
corpus does not answer (then the right result is ``off_topic``). Pages are compared
without their fragment: a chunk's ``url#anchor`` counts for its page.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from schema_search.errors import SourceError, first_line


@dataclass(frozen=True)
class DocQuestion:
    text: str
    gold: tuple[str, ...]
    lang: str = "en"
    kind: str = ""

    @property
    def answerable(self) -> bool:
        return bool(self.gold)


@dataclass(frozen=True)
class QuestionSet:
    name: str
    questions: tuple[DocQuestion, ...]


def page(url: str) -> str:
    """The page a URL points into.

    >>> page("https://fastapi.tiangolo.com/tutorial/first-steps/#check-it")
    'https://fastapi.tiangolo.com/tutorial/first-steps/'
    """
    return url.split("#", 1)[0]


def load_questions(path: Path) -> QuestionSet:
    """Read a question file.

    Raises:
        SourceError: the file cannot be read, or a line is not JSON or has no ``question``.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise SourceError(
            f"Cannot read the questions file {path}: {first_line(error)}",
            hint="Give a .jsonl file of question records, e.g. eval/docs_questions/fastapi.jsonl.",
        ) from None
    questions = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            questions.append(
                DocQuestion(
                    text=record["question"],
                    gold=tuple(page(u) for u in record.get("gold_urls", ())),
                    lang=record.get("lang", "en"),
                    kind=record.get("kind", ""),
                )
            )
        except (json.JSONDecodeError, KeyError, TypeError) as error:
            raise SourceError(
                f"{path}, line {number}: not a question record ({error}).",
                hint='Each line: {"question": "...", "gold_urls": ["https://..."]}.',
            ) from None
    return QuestionSet(path.stem, tuple(questions))
