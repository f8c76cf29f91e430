"""Describe tables with any litellm model, the embedded ``local/smollm2`` included.

Remote providers (``openai/...``, ``anthropic/...``, ``ollama/...``, an
OpenAI-compatible ``api_base``) read their keys from their usual environment variables
(``OPENAI_API_KEY``, ...); keys are never logged, and errors are redacted before they
are shown. ``local/...`` models run in-process (see :mod:`schema_search.llm.local`).
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable
from typing import Any

from ..llm.secrets import redact
from ..tables.catalog import Table
from .describer import DescriptionFailed, EmptyDescription, ProviderUnavailable
from .prompt import clean_description, prompt_messages


class LiteLLMDescriber:
    """Describes tables with any litellm model; ``local/...`` runs the embedded model.

    Args:
        model: a litellm model string, e.g. ``local/smollm2``, ``openai/gpt-4o-mini``,
            ``anthropic/claude-3-5-haiku-latest``, ``ollama/llama3.2``.
        api_base: an OpenAI-compatible (or Ollama) server URL, when not the provider's own.
        timeout: seconds per call (remote providers; the embedded model is bounded by
            ``max_tokens`` instead).
        retries: further attempts after a rate limit, timeout, connection or server error.
        backoff: seconds before the first retry; doubles each time, with jitter.
        max_tokens: the longest answer asked for.
        threads: CPU threads of the embedded model (default: half the cores).
        completion: the function called; ``litellm.completion`` unless a test passes one.
        sleep: how to wait between retries (tests pass a no-op).
    """

    def __init__(
        self,
        model: str,
        *,
        api_base: str | None = None,
        timeout: float = 60.0,
        retries: int = 3,
        backoff: float = 1.0,
        max_tokens: int = 100,
        threads: int | None = None,
        completion: Callable[..., Any] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.litellm = _import_litellm(threads)
        self.model = model
        self.api_base = api_base
        self.timeout, self.retries, self.backoff, self.max_tokens = timeout, retries, backoff, max_tokens
        self.completion = completion or self.litellm.completion
        self.sleep = sleep
        self.provider = self._provider()
        # The embedded model answers one call at a time (and uses the cores itself).
        self.max_concurrency = 1 if self.provider == "local" else None
        self.missing_keys = self._missing_keys()
        if self.missing_keys and api_base is None and completion is None:
            # Fail before the first table, not after retries: the call cannot succeed.
            raise ProviderUnavailable(
                model, self.provider, f"{' / '.join(self.missing_keys)} is not set", self._hint("auth")
            )

    def describe(self, table: Table, context: str) -> str:
        messages = prompt_messages(table, context)
        # Greedy first; small models sometimes answer with the DDL alone, and a second,
        # sampled try (fixed seed: reruns give the same text) usually writes prose.
        for sampling in ({"temperature": 0}, {"temperature": 0.7, "seed": 1}):
            text = clean_description(self._complete(messages, sampling))
            if text:
                return text
        raise EmptyDescription("the model returned no description (only code or nothing), twice")

    def _complete(self, messages: list[dict[str, str]], sampling: dict[str, Any]) -> str:
        """One answer, with retries and backoff on transient errors."""
        extra = dict(sampling)
        if self.api_base and self.missing_keys:
            extra["api_key"] = "none"  # local OpenAI-compatible servers ignore the key, the client needs one
        for attempt in range(self.retries + 1):
            try:
                response = self.completion(
                    model=self.model,
                    messages=messages,
                    api_base=self.api_base,
                    timeout=self.timeout,
                    max_tokens=self.max_tokens,
                    drop_params=True,  # a model that refuses temperature or seed still answers
                    num_retries=0,  # retries are ours, so they are counted and backed off once
                    **extra,
                )
            except Exception as error:
                kind = self._kind(error)
                if kind == "table":
                    raise DescriptionFailed(self._reason(error)) from None
                if kind in TRANSIENT and attempt < self.retries:
                    self.sleep(self.backoff * 2**attempt * (1 + random.random() / 2))
                    continue
                reason = self._reason(error) + (f" (after {attempt + 1} attempts)" if attempt else "")
                raise ProviderUnavailable(self.model, self.provider, reason, self._hint(kind)) from None
            return response.choices[0].message.content or ""
        raise AssertionError("unreachable")

    def _kind(self, error: Exception) -> str:
        """What an error means for the run: one table's problem, or the provider's."""
        lt = self.litellm
        text = str(error).lower()
        if isinstance(error, (lt.ContextWindowExceededError, lt.ContentPolicyViolationError)):
            return "table"
        if isinstance(error, lt.AuthenticationError) or "missing credentials" in text or "api key" in text:
            return "auth"  # some providers report a missing key as a server error
        if isinstance(error, (lt.PermissionDeniedError, lt.PaymentRequiredError)):
            return "refused"
        if isinstance(error, lt.NotFoundError):
            return "not_found"
        if isinstance(error, lt.BadRequestError):
            return "table"
        if isinstance(error, lt.RateLimitError):
            return "rate_limit"
        if isinstance(error, _openai_connection_error()) or "connection error" in text or "connection refused" in text:
            return "connection"  # timeouts included
        if isinstance(error, lt.APIError) or isinstance(error, _openai_error()):
            return "server"
        return "table"

    def _hint(self, kind: str) -> str:
        keys = " / ".join(self.missing_keys) or f"{self.provider.upper()}_API_KEY"
        hints = {
            "auth": f"Set {keys} in the environment (keys are read only from there).",
            "refused": f"The {self.provider} account refused the call: check its permissions and quota.",
            "not_found": "Check the model name (--model or SCHEMA_SEARCH_DESCRIBE_MODEL).",
            "connection": (
                f"Check that {self.api_base or f'the {self.provider} API'} is reachable "
                "(SCHEMA_SEARCH_DESCRIBE_API_BASE names a local server; raise SCHEMA_SEARCH_DESCRIBE_TIMEOUT "
                "for a slow one)."
            ),
            "rate_limit": "Wait and re-run, lower --concurrency, or raise SCHEMA_SEARCH_DESCRIBE_RETRIES.",
        }
        hint = hints.get(kind, f"The {self.provider} service failed; re-run later.")
        if self.provider != "local":
            hint += " Or use the embedded model: --model local/smollm2 (no key, no network)."
        return hint

    def _provider(self) -> str:
        try:
            return self.litellm.get_llm_provider(self.model, api_base=self.api_base)[1]
        except Exception:
            raise ProviderUnavailable(
                self.model,
                self.model.split("/", 1)[0],
                f"litellm does not know which provider serves {self.model!r}",
                "Name the provider in the model, e.g. --model openai/gpt-4o-mini, anthropic/claude-3-5-haiku-latest, "
                "ollama/llama3.2, or the embedded local/smollm2 (no key).",
            ) from None

    def _missing_keys(self) -> list[str]:
        try:
            missing = self.litellm.validate_environment(self.model, api_base=self.api_base).get("missing_keys")
        except Exception:
            return []
        return [k for k in missing or () if k.endswith(("_KEY", "_TOKEN"))]

    @staticmethod
    def _reason(error: Exception) -> str:
        message = " ".join(str(getattr(error, "message", None) or error).split())
        name = type(error).__name__
        message = re.sub(rf"^((litellm\.)?{name}:\s*)+", "", message)  # litellm repeats the class name
        # Provider errors sometimes echo a key back; never let one reach a terminal or a log.
        return redact(f"{name}: {message}")[:400]


TRANSIENT = {"rate_limit", "connection", "server"}


def _import_litellm(threads: int | None = None):
    from ..llm import local as local_llm  # sets LITELLM_LOCAL_MODEL_COST_MAP before importing litellm

    local_llm.register(threads)
    return local_llm.litellm


def _openai_connection_error() -> type[Exception]:
    import openai  # litellm's dependency; its connection error also covers timeouts

    return openai.APIConnectionError


def _openai_error() -> type[Exception]:
    import openai

    return openai.APIError
