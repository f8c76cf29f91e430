"""The local provider's glue, with llama.cpp replaced by a scripted one: tools in, tool calls out, context kept."""

from __future__ import annotations

import json

import pytest

from schema_search.llm import local
from schema_search.llm.tool_prompt import parse_calls, plain_messages

SEARCH = {
    "type": "function",
    "function": {
        "name": "search_docs",
        "description": "Find passages.",
        "parameters": {"type": "object", "properties": {"question": {"type": "string"}}, "required": ["question"]},
    },
}


class ScriptedLlama:
    """Words as tokens; replies with what the script says and records the prompt it was given."""

    def __init__(self, reply: str) -> None:
        self.reply, self.prompts = reply, []

    def tokenize(self, data: bytes, add_bos: bool = False) -> list[bytes]:
        return data.split()

    def detokenize(self, tokens: list[bytes]) -> bytes:
        return b" ".join(tokens)

    def create_chat_completion(self, messages, **params):
        self.prompts.append((messages, params))
        return {"choices": [{"message": {"content": self.reply}, "finish_reason": "stop"}], "usage": {}}


@pytest.fixture
def scripted(monkeypatch):
    def install(reply: str) -> ScriptedLlama:
        llama = ScriptedLlama(reply)
        local.register()
        monkeypatch.setattr(local._handler, "_load", lambda path: llama)
        return llama

    return install


def test_a_tool_call_in_the_reply_comes_back_as_a_litellm_tool_call(scripted):
    llama = scripted('<tool_call>{"name": "search_docs", "arguments": {"question": "cors"}}</tool_call>')
    response = local.litellm.completion(
        model="local/smollm2", messages=[{"role": "user", "content": "How do I enable CORS?"}], tools=[SEARCH]
    )
    (call,) = response.choices[0].message.tool_calls
    assert call.function.name == "search_docs" and json.loads(call.function.arguments) == {"question": "cors"}
    assert response.choices[0].finish_reason == "tool_calls"
    prompt, params = llama.prompts[0]
    assert "search_docs(question: string)" in prompt[0]["content"] and params["max_tokens"] == local.DEFAULT_MAX_TOKENS
    assert prompt[-1]["content"] == "How do I enable CORS?" and "(example)" in prompt[1]["content"]


def test_plain_text_is_the_answer_and_a_broken_call_keeps_its_raw_arguments(scripted):
    scripted("Use CORSMiddleware [S3fa21c].")
    response = local.litellm.completion(
        model="local/smollm2", messages=[{"role": "user", "content": "cors?"}], tools=[SEARCH]
    )
    assert (
        response.choices[0].message.content == "Use CORSMiddleware [S3fa21c]."
        and not response.choices[0].message.tool_calls
    )
    text, calls = parse_calls('<tool_call>{"name": "search_docs", "arguments": {...}}</tool_call>', [SEARCH])
    assert text == "" and calls[0]["arguments"].startswith("{")  # the loop answers: arguments are not JSON


def test_earlier_calls_and_results_are_written_back_as_plain_turns():
    calls = [{"id": "c1", "type": "function", "function": {"name": "search_docs", "arguments": '{"question": "cors"}'}}]
    plain = plain_messages(
        [
            {"role": "system", "content": "Answer from the docs."},
            {"role": "user", "content": "cors?"},
            {"role": "assistant", "content": "", "tool_calls": calls},
            {"role": "tool", "tool_call_id": "c1", "name": "search_docs", "content": "[S3fa21c] CORS - https://x"},
        ],
        [SEARCH],
    )
    assert {m["role"] for m in plain} <= {"system", "user", "assistant"}
    assert plain[0]["content"].startswith("Answer from the docs.") and "Tools:" in plain[0]["content"]
    assert plain[-2]["content"] == '<tool_call>{"name": "search_docs", "arguments": {"question": "cors"}}</tool_call>'
    assert plain[-1]["content"] == "Result of search_docs:\n[S3fa21c] CORS - https://x"


def test_a_conversation_longer_than_the_context_has_its_longest_middle_turn_cut():
    llama = ScriptedLlama("")
    messages = [
        {"role": "system", "content": "rules " * 60},
        {"role": "user", "content": "result " * 500},
        {"role": "assistant", "content": "call " * 40},
        {"role": "user", "content": "the question"},
    ]
    fitted = local.fit(messages, llama, budget=200)
    assert fitted[0] == messages[0] and fitted[-1] == messages[-1]  # instructions and the question stay whole
    assert fitted[1]["content"].endswith(local.CUT)
    assert sum(len(m["content"].split()) + local.TURN_TOKENS for m in fitted) <= 200
    assert local.fit(messages[:1], llama, budget=100) == messages[:1]
    squeezed = local.fit(messages, llama, budget=120)  # the middle alone cannot make room: the system turn is cut too
    assert squeezed[0]["content"].endswith(local.CUT) and squeezed[-1] == messages[-1]


def test_a_required_call_is_held_to_the_offered_tools_by_a_grammar(scripted):
    llama = scripted('<tool_call>{"name": "search_docs", "arguments": {"question": "cors"}}</tool_call>')
    messages = [{"role": "user", "content": "cors?"}]
    local.litellm.completion(model="local/smollm2", messages=messages, tools=[SEARCH])
    local.litellm.completion(model="local/smollm2", messages=messages, tools=[SEARCH], tool_choice="required")
    free, held = (params for _, params in llama.prompts)
    assert "grammar" not in free  # "auto": a plain-text reply may be the answer
    rules = held["grammar"]._grammar
    assert rules.startswith('root ::= "<tool_call>" call "</tool_call>"') and '"\\"search_docs\\""' in rules


def test_the_embedded_model_under_its_grammar_makes_a_valid_call():
    """The real SmolLM2, one forced call: the reply is the named tool with JSON arguments (~2 s on one thread)."""
    pytest.importorskip("llama_cpp")
    if not local.runtime.installed():
        pytest.skip("the embedded model is not installed")
    local.register(threads=1)
    submit = {
        "type": "function",
        "function": {
            "name": "submit_sql",
            "parameters": {
                "type": "object",
                "properties": {
                    "sql": {"type": "string", "pattern": '^(SELECT|WITH|select|with) [^"\\\\]{0,60}$'},
                    "explanation": {"type": "string", "maxLength": 40},
                },
                "required": ["sql", "explanation"],
            },
        },
    }
    response = local.litellm.completion(
        model="local/smollm2",
        messages=[{"role": "user", "content": "How many rows does the table orders have?"}],
        tools=[SEARCH, submit],
        tool_choice={"type": "function", "function": {"name": "submit_sql"}},
        max_tokens=120,
    )
    (call,) = response.choices[0].message.tool_calls
    arguments = json.loads(call.function.arguments)
    assert call.function.name == "submit_sql" and arguments["sql"].upper().startswith(("SELECT ", "WITH "))
    assert len(arguments["explanation"]) <= 40
