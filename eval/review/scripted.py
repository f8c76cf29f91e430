"""A scripted agent for the measurement: fixed rules in place of a model, labelled as such in every report.

It searches the documents; answers from the first passage when there is one; when the
platform offers the web, searches it, reads the first result and answers with the page's
sentence that shares most words with the question, citing the mark it was given. It never
writes a rewrite (the platform's deterministic rewrite stands in). What it measures is the
platform: the floor, the offer, the labels, the queue, the rejection, not a model's skill.
"""

from __future__ import annotations

import json
import re
from typing import Any

_WORD = re.compile(r"\w+")
_FENCED = re.compile(r"<document-data[^>]*>\n(.*?)\n</document-data>", re.S)


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2}


def _call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    call = {"id": f"call_{name}", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
    return {"choices": [{"message": {"role": "assistant", "content": None, "tool_calls": [call]}}]}


def _say(text: str) -> dict[str, Any]:
    return {"choices": [{"message": {"role": "assistant", "content": text}}]}


def _best_sentence(question: str, text: str) -> str:
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n+", text) if len(s.strip()) > 3]
    return max(sentences, key=lambda s: len(_words(question) & _words(s)), default="")


def scripted(*, model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]], **_: Any) -> dict[str, Any]:
    names = {t["function"]["name"] for t in tools}
    if "write_entry" in names:
        return _say("")  # no model rewrite: the platform's deterministic one is used
    question = next(m["content"] for m in messages if m["role"] == "user")
    last = messages[-1]
    if last["role"] == "user":
        return _call("search_docs", {"question": question})
    name, content = last.get("name"), last.get("content", "")
    if name == "search_docs" and "search_web" in names and "may now call search_web" in content:
        return _call("search_web", {"query": question})
    if name == "search_docs":
        found = re.search(r"^\[(S[0-9a-f]+)\]", content, re.M)
        fenced = _FENCED.search(content)
        if not found or not fenced:
            return _say("The documents do not cover this.")
        return _call("answer", {"text": f"{_best_sentence(question, fenced.group(1))} [{found.group(1)}]"})
    if name == "search_web":
        url = re.search(r"^- (https?://\S+)", content, re.M)
        return _call("read_page", {"url": url.group(1)}) if url else _say("Neither the documents nor the web cover it.")
    if name == "read_page":
        mark = re.match(r"\[(W\d+)\]", content).group(1)
        return _call("answer", {"text": f"{_best_sentence(question, _FENCED.search(content).group(1))} [{mark}]"})
    return _say("The documents do not cover this.")
