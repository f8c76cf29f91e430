"""The litellm describer with recorded responses: cleaning, retries, errors, redaction."""

from __future__ import annotations

from functools import partial

import pytest

from schema_search.describe.describer import DescriptionFailed, EmptyDescription, ProviderUnavailable
from schema_search.describe.litellm_describer import LiteLLMDescriber

from ..conftest import tiny_catalog

TABLE = tiny_catalog().table("crm.contacts")


@pytest.fixture(scope="module")
def litellm():
    from schema_search.llm.local import litellm  # sets LITELLM_LOCAL_MODEL_COST_MAP first

    return litellm


def describer(completion, **kwargs):
    return LiteLLMDescriber(
        "openai/gpt-4o-mini", completion=completion, sleep=kwargs.pop("sleep", lambda s: None), **kwargs
    )


def test_a_recorded_response_is_cleaned(litellm):
    answer = "Description: People at customer accounts. People at customer accounts.\n One row per person."
    d = describer(partial(litellm.completion, mock_response=answer))
    assert d.describe(TABLE, "") == "People at customer accounts. One row per person."


def test_the_prompt_and_call_settings_reach_the_provider(litellm):
    seen = {}

    def completion(**kwargs):
        seen.update(kwargs)
        return litellm.completion(**kwargs, mock_response="ok")

    LiteLLMDescriber("openai/gpt-4o-mini", completion=completion, timeout=7, max_tokens=99).describe(
        TABLE, "Referenced by: x."
    )
    assert seen["timeout"] == 7 and seen["max_tokens"] == 99 and seen["num_retries"] == 0
    user = seen["messages"][-1]["content"]
    assert "CREATE TABLE crm.contacts" in user and "Referenced by: x." in user


def flaky(litellm, errors):
    """A completion that raises the given errors first, then answers."""
    pending = list(errors)

    def completion(**kwargs):
        if pending:
            raise pending.pop(0)
        return litellm.completion(**kwargs, mock_response="Recovered.")

    return completion


def rate_limit(litellm):
    return litellm.RateLimitError("slow down", llm_provider="openai", model="gpt-4o-mini")


def test_transient_errors_are_retried_with_exponential_backoff(litellm):
    waits = []
    d = describer(
        flaky(litellm, [rate_limit(litellm), rate_limit(litellm)]), retries=3, backoff=1.0, sleep=waits.append
    )
    assert d.describe(TABLE, "") == "Recovered."
    assert len(waits) == 2 and 1.0 <= waits[0] <= 1.5 and 2.0 <= waits[1] <= 3.0


def test_retries_run_out_into_a_clear_provider_error(litellm):
    d = describer(flaky(litellm, [rate_limit(litellm)] * 5), retries=2)
    with pytest.raises(ProviderUnavailable) as caught:
        d.describe(TABLE, "")
    error = caught.value
    assert error.provider == "openai" and "after 3 attempts" in error.reason and "RateLimitError" in error.reason
    assert "--concurrency" in error.hint and "local/smollm2" in error.hint


def test_a_refused_key_is_not_retried_and_the_key_is_never_shown(litellm, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-very-secret-123")
    refused = litellm.AuthenticationError(
        "Incorrect API key provided: sk-test-very-secret-123", llm_provider="openai", model="gpt-4o-mini"
    )
    waits = []
    d = describer(flaky(litellm, [refused]), sleep=waits.append)
    with pytest.raises(ProviderUnavailable) as caught:
        d.describe(TABLE, "")
    assert waits == []
    assert "sk-test-very-secret-123" not in caught.value.reason and "***" in caught.value.reason
    assert "OPENAI_API_KEY" in caught.value.hint


def test_a_table_too_long_fails_alone(litellm):
    too_long = litellm.ContextWindowExceededError("too many tokens", model="gpt-4o-mini", llm_provider="openai")
    with pytest.raises(DescriptionFailed, match="ContextWindowExceededError"):
        describer(flaky(litellm, [too_long])).describe(TABLE, "")
    with pytest.raises(EmptyDescription, match="no description"):
        describer(partial(litellm.completion, mock_response="   ")).describe(TABLE, "")


def test_an_answer_of_only_code_is_asked_again_with_sampling(litellm):
    answers = ["```sql\nCREATE TABLE crm.contacts (id BIGINT);\n```", "People at customer accounts."]
    temperatures = []

    def completion(**kwargs):
        temperatures.append(kwargs["temperature"])
        return litellm.completion(**kwargs, mock_response=answers[len(temperatures) - 1])

    assert describer(completion).describe(TABLE, "") == "People at customer accounts."
    assert temperatures == [0, 0.7]


def test_a_missing_key_fails_before_the_first_table(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ProviderUnavailable) as caught:
        LiteLLMDescriber("anthropic/claude-3-5-haiku-latest")
    assert caught.value.reason == "ANTHROPIC_API_KEY is not set" and "ANTHROPIC_API_KEY" in caught.value.hint


def test_an_unknown_provider_or_local_model_is_named():
    with pytest.raises(ProviderUnavailable, match="which provider"):
        LiteLLMDescriber("no-such-model-anywhere")
    local = LiteLLMDescriber("local/no-such-model", retries=0)
    assert local.max_concurrency == 1  # the embedded model takes one call at a time
    with pytest.raises(ProviderUnavailable) as caught:
        local.describe(TABLE, "")
    assert "local/smollm2" in caught.value.reason and caught.value.provider == "local"


def test_an_unreachable_server_says_where(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    d = LiteLLMDescriber("openai/m", api_base="http://127.0.0.1:9/v1", retries=1, backoff=0, timeout=5)
    with pytest.raises(ProviderUnavailable) as caught:
        d.describe(TABLE, "")
    assert "after 2 attempts" in caught.value.reason and "http://127.0.0.1:9/v1" in caught.value.hint
