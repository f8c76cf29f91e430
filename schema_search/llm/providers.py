"""litellm, imported so that it stays quiet, and which of its providers serves a model.

litellm prints to stdout: a red "Provider List" banner when it does not know a model,
a red "Give Feedback / Get Help" banner before every provider error, and, below
WARNING, its log records. ``ask --json`` must print nothing but JSON, and under
``NO_COLOR`` nothing may carry a colour code, so every caller imports litellm through
:func:`import_litellm` (banners off) and ``ask`` runs inside :func:`stdout_to_stderr`
(log records too go to stderr). Knowing the
provider costs no network call, so a model litellm cannot serve fails before a catalog
is opened or an index loaded.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import threading
from collections.abc import Iterator


class UnknownProvider(ValueError):
    """litellm does not know which provider serves the model."""


def import_litellm():
    """The litellm module, with its banners off (import it only to call a model: ~2.5 s)."""
    # Before the import: otherwise litellm downloads its model price map.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True  # no "Give Feedback / Get Help" or "Provider List" banners
    litellm.set_verbose = False
    return litellm


def provider_of(model: str, api_base: str | None = None) -> str:
    """The litellm provider that serves ``model`` (``local`` for the embedded one), without a network call.

    Raises:
        UnknownProvider: litellm would refuse the model on its first call.
    """
    if model.startswith("local/"):
        return "local"
    litellm = import_litellm()
    try:
        with stdout_to_stderr():
            return litellm.get_llm_provider(model, api_base=api_base)[1]
    except Exception:  # litellm raises BadRequestError, and ValueError for malformed names
        raise UnknownProvider(model) from None


# The key a well-known provider reads, by the model's prefix, as litellm names them: checked
# before litellm is imported (2.5 s here, 20 s and more on a loaded machine), so a missing key
# fails at once. litellm's own check still runs for every other model
# (tests/llm/test_providers.py holds this table to litellm's answers).
PROVIDER_KEYS = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "mistral": "MISTRAL_API_KEY",
    "groq": "GROQ_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "cohere": "COHERE_API_KEY",
}
# OpenAI's model families, which litellm serves without a prefix ("gpt-99" it does not know).
_BARE_OPENAI = re.compile(r"(gpt-(3\.5|4|5)|o[134])(-|o|\.|$)")


def missing_key(model: str, api_base: str | None = None) -> str | None:
    """The environment variable a well-known provider needs for ``model`` and lacks, else ``None``.

    Costs no import: ``None`` means "not known to be missing", and litellm decides later.

    >>> missing_key("openai/gpt-4o-mini", "http://127.0.0.1:8080/v1"), missing_key("local/smollm2")
    (None, None)
    """
    if api_base is not None:  # a server of one's own: its key, if any, is its business
        return None
    prefix, slash, _ = model.partition("/")
    provider = prefix.lower() if slash else ("openai" if _BARE_OPENAI.match(model) else None)
    key = PROVIDER_KEYS.get(provider or "")
    return key if key and not os.environ.get(key) else None


_redirect = threading.Lock()
_depth = 0
_stdout = None


@contextlib.contextmanager
def stdout_to_stderr() -> Iterator[None]:
    """Whatever is printed inside goes to stderr: stdout carries the command's result only.

    ``sys.stdout`` is global, so while any thread is inside, every thread's prints go
    to stderr; the first to enter saves stdout and the last to leave puts it back.
    """
    global _depth, _stdout
    with _redirect:
        if _depth == 0:
            _stdout, sys.stdout = sys.stdout, sys.stderr
        _depth += 1
    try:
        yield
    finally:
        with _redirect:
            _depth -= 1
            if _depth == 0:
                sys.stdout, _stdout = _stdout, None
