"""Judges of whether a cited passage supports a claim: none, an NLI cross-encoder, or any litellm model.

A verdict is ``supported``, ``unsupported`` or ``unchecked``. With no judge every
claim is unchecked, and an unchecked claim is never counted as supported: a score
that assumed support would reward citing anything. Verdicts are cached per
(claim, passage): the same pair recurs across runs and citation styles.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Literal, Protocol

from schema_search.errors import SchemaSearchError, first_line

Verdict = Literal["supported", "unsupported", "unchecked"]
# Passages go to a judge cut to this many characters (a chunk is ~1,500; a whole page can be 20,000).
PASSAGE_CHARS = 4000
NLI_MODEL = "cross-encoder/nli-deberta-v3-xsmall"

PROMPT = "Passage:\n{passage}\n\nClaim: {claim}\n\nDoes the passage support the claim? Answer with one word: yes or no."


class JudgeNotReady(SchemaSearchError):
    status = 400


class Judge(Protocol):
    name: str

    def __call__(self, claim: str, passage: str) -> Verdict: ...


class NoJudge:
    name = "none"

    def __call__(self, claim: str, passage: str) -> Verdict:
        return "unchecked"


class ModelJudge:
    """Asks a litellm model (``local/smollm2`` included) a yes/no question per claim."""

    def __init__(self, model: str, complete: Callable[..., object]) -> None:
        self.name, self.complete = model, complete
        self._cache: dict[tuple[str, str], Verdict] = {}

    def __call__(self, claim: str, passage: str) -> Verdict:
        key = (claim, passage[:PASSAGE_CHARS])
        if key not in self._cache:
            prompt = PROMPT.format(passage=key[1], claim=claim)
            response = self.complete(
                model=self.name, messages=[{"role": "user", "content": prompt}], max_tokens=5, temperature=0
            )
            self._cache[key] = verdict_of(_content(response))
        return self._cache[key]


class NliJudge:
    """An NLI cross-encoder run locally: supported when entailment is the likeliest label.

    The model is ``$SCHEMA_SEARCH_NLI_MODEL`` (a folder, or a name already in the
    Hugging Face cache); nothing is downloaded.
    """

    def __init__(self, model: str | None = None) -> None:
        self.name = model or os.environ.get("SCHEMA_SEARCH_NLI_MODEL") or NLI_MODEL
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        try:
            from sentence_transformers import CrossEncoder

            self._model = CrossEncoder(self.name, device="cpu")
        except Exception as error:  # missing files surface as OSError, ValueError or hub errors
            raise JudgeNotReady(
                f"The NLI model {self.name!r} is not on this machine ({first_line(error)}).",
                hint="Set SCHEMA_SEARCH_NLI_MODEL to a local cross-encoder NLI model folder, "
                "or judge with a model (--judge local/smollm2, --judge gpt-4o-mini), or --judge none.",
            ) from None
        labels = {i: str(label).lower() for i, label in self._model.model.config.id2label.items()}
        entail = [i for i, label in labels.items() if label.startswith("entail")]
        if not entail:
            raise JudgeNotReady(
                f"{self.name!r} has no entailment label (its labels: {', '.join(labels.values())}).",
                hint="Use an NLI cross-encoder, e.g. cross-encoder/nli-deberta-v3-xsmall.",
            )
        self._entail = entail[0]
        self._cache: dict[tuple[str, str], Verdict] = {}

    def __call__(self, claim: str, passage: str) -> Verdict:
        key = (claim, passage[:PASSAGE_CHARS])
        if key not in self._cache:
            scores = self._model.predict([(key[1], claim)])[0]
            self._cache[key] = "supported" if int(scores.argmax()) == self._entail else "unsupported"
        return self._cache[key]


def verdict_of(reply: str) -> Verdict:
    """A yes/no reply as a verdict; anything else is unchecked, never supported.

    >>> verdict_of("Yes."), verdict_of(" no, it does not"), verdict_of("Maybe")
    ('supported', 'unsupported', 'unchecked')
    """
    word = re.match(r"\W*(\w+)", reply or "")
    answer = word.group(1).lower() if word else ""
    return "supported" if answer == "yes" else "unsupported" if answer == "no" else "unchecked"


def make_judge(spec: str, api_base: str | None = None) -> Judge:
    """``none``, ``nli``, or a litellm model name."""
    if spec == "none":
        return NoJudge()
    if spec == "nli":
        return NliJudge()
    from schema_search.agent.ask import litellm_complete

    return ModelJudge(spec, litellm_complete(spec, api_base))


def _content(response: object) -> str:
    from schema_search.agent.loop import assistant_message

    return str(assistant_message(response).get("content") or "")
