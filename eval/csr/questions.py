"""The questions file: one JSON object per line, ``{id, question, gold_urls}``.

Empty ``gold_urls`` marks a question the documents do not answer: the right answer
declines instead of citing. A ``note`` is kept; other keys (``lang``, ...) are ignored.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from schema_search.errors import InvalidInput


class Question(BaseModel):
    id: str
    question: str = Field(min_length=1)
    gold_urls: list[str] = Field(description="Pages that answer it; empty when the documents do not.")
    note: str | None = None

    @property
    def in_docs(self) -> bool:
        return bool(self.gold_urls)


def load_questions(path: Path, limit: int | None = None) -> list[Question]:
    """Every question in ``path``; a line without ``id`` gets ``q<line number>``.

    Raises:
        InvalidInput: the file is missing, a line is not a question, or two share an id.
    """
    if not path.is_file():
        raise InvalidInput(f"No questions file {str(path)!r}.", hint="Give a JSONL file of {id, question, gold_urls}.")
    questions: list[Question] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            if not isinstance(raw, dict):
                raise ValueError("not a JSON object")
            raw.setdefault("id", f"q{number}")
            raw["id"] = str(raw["id"])
            questions.append(Question.model_validate(raw))
        except (ValueError, ValidationError) as error:
            reason = (
                "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors())
                if isinstance(error, ValidationError)
                else str(error)
            )
            raise InvalidInput(
                f"{path}:{number} is not a question ({reason}).",
                hint='Each line: {"id": "q1", "question": "...", "gold_urls": ["https://..."]} (empty list if the docs do not answer it).',
            ) from None
    seen: set[str] = set()
    for question in questions:
        if question.id in seen:
            raise InvalidInput(
                f"Two questions in {path} have the id {question.id!r}.", hint="Give each question its own id."
            )
        seen.add(question.id)
    if not questions:
        raise InvalidInput(f"{path} has no questions.", hint="Give one JSON object per line.")
    return questions[:limit] if limit else questions
