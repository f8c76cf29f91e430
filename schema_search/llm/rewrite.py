"""A follow-up question written out by a litellm model, the embedded ``local/smollm2`` included.

The model only writes the sentence; whether it is searched is decided by the caller
(:func:`schema_search.core.followup.accepted`), which falls back to the question as asked
on any failure raised here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

SYSTEM = (
    "Rewrite the user's last question so that it can be understood without the conversation. "
    "Replace words like 'it', 'that', 'they' with what they refer to. Keep the question's own words. "
    "Answer with the rewritten question only, one sentence."
)


_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="rewrite")


class RewriteFailed(RuntimeError):
    """The model gave no rewrite: not installed, unknown, timed out, or errored."""


def messages(question: str, history: Sequence[str]) -> list[dict[str, str]]:
    """The prompt: the earlier user messages, then the follow-up to write out.

    >>> messages("How do I test it?", ["How do I open a WebSocket endpoint?"])[1]["content"]
    'Earlier questions:\\n- How do I open a WebSocket endpoint?\\nLast question: How do I test it?\\nRewritten:'
    """
    earlier = "\n".join(f"- {m.strip()}" for m in history if m.strip())
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"Earlier questions:\n{earlier}\nLast question: {question}\nRewritten:"},
    ]


def first_line(text: str) -> str:
    """The answer's first non-empty line, without quotes or a "Rewritten:" label.

    >>> first_line('Rewritten: "How do I test a WebSocket endpoint?"\\nHope this helps')
    'How do I test a WebSocket endpoint?'
    """
    line = next((s.strip() for s in text.splitlines() if s.strip()), "")
    for label in ("Rewritten question:", "Rewritten:", "Question:"):
        if line.lower().startswith(label.lower()):
            line = line[len(label) :].strip()
    return line.strip("\"'` ")


def rewrite_with_model(
    question: str,
    history: Sequence[str],
    *,
    model: str,
    timeout: float,
    max_tokens: int = 80,
    complete: Callable[..., Any] | None = None,
) -> str:
    """The model's rewrite of ``question`` (unchecked), or :class:`RewriteFailed`.

    Args:
        complete: ``litellm.completion`` unless a test passes a fake.
    """
    try:
        if complete is None:
            from . import local  # registers the embedded provider; imports litellm quietly

            local.register()
            complete = local.litellm.completion
        # One thread per call, so a model that ignores ``timeout`` (the embedded one) is still not waited for.
        call = _POOL.submit(
            complete,
            model=model,
            messages=messages(question, history),
            timeout=timeout,
            max_tokens=max_tokens,
            temperature=0,
            drop_params=True,
            num_retries=0,  # a follow-up waits for one try only: the question as asked is the fallback
        )
        response = call.result(timeout=timeout)
        return first_line(response.choices[0].message.content or "")
    except TimeoutError:
        raise RewriteFailed(f"no answer within {timeout:g} s") from None
    except Exception as error:  # any failure: not installed, unknown model, timeout, provider error
        raise RewriteFailed(f"{type(error).__name__}: {' '.join(str(error).split())[:200]}") from None
