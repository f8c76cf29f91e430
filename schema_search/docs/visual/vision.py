"""A figure described by a vision model, through litellm, in this process.

Only when ``Visual.vision_model`` is set; with ``None`` nothing here runs and litellm is not
imported. The image goes as a base64 ``data:`` URL in an OpenAI-style ``image_url`` part,
which litellm passes to every provider with image input. The prompt asks for what a reader
would search a figure for: the labels and where they are, what connects to what, a chart's
axes, trend and numbers; a description of the picture's look finds nothing.
"""

from __future__ import annotations

import base64

from ...llm.secrets import redact

PROMPT = (
    "This image is a figure from a document. Describe it for a search index, in plain text without a preamble, "
    "in at most 200 words. Transcribe every label, title and legend exactly, and say where each one is "
    "(top left, centre, ...) and what it points to or connects with. For a chart, give its kind, its axes "
    "and their units, the trend, and the numbers shown. For a diagram, the steps or parts and how they connect. "
    "For a photo or screenshot, what it shows and any text in it."
)
MAX_TOKENS = 600


def describe(png: bytes, model: str, timeout: float) -> tuple[str, float]:
    """``(description, cost in USD)`` of the figure in ``png``; the cost is 0 when litellm
    does not know the model's price.

    Raises:
        Exception: whatever litellm raises (no key, a refused or failed call); the caller
            warns with :func:`reason` and describes no more figures of the document.
    """
    from ...llm.providers import import_litellm, stdout_to_stderr

    litellm = import_litellm()
    url = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
    messages = [
        {
            "role": "user",
            "content": [{"type": "text", "text": PROMPT}, {"type": "image_url", "image_url": {"url": url}}],
        }
    ]
    with stdout_to_stderr():
        response = litellm.completion(model=model, messages=messages, max_tokens=MAX_TOKENS, timeout=timeout)
    text = (response.choices[0].message.content or "").strip()
    try:
        cost = float(litellm.completion_cost(completion_response=response) or 0.0)
    except Exception:  # litellm raises for a model it has no price for
        cost = 0.0
    return text, cost


def reason(error: Exception) -> str:
    """A model's failure in one line, with no secret a provider echoed back.

    >>> import os; os.environ["VISION_TEST_API_KEY"] = "sk-abcdefgh123"
    >>> reason(RuntimeError("AuthenticationError: bad key sk-abcdefgh123\\nmore"))
    'RuntimeError: AuthenticationError: bad key ***'
    >>> del os.environ["VISION_TEST_API_KEY"]
    """
    text = (str(error).strip().splitlines() or [""])[0]
    return f"{type(error).__name__}: {redact(text)[:300]}"
