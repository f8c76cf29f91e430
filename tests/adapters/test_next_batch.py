"""A repeat search in the same conversation turn gets the next batch of its ranking, once."""

from __future__ import annotations

import os

import anyio
from fastapi.testclient import TestClient
from mcp import Client

from schema_search.http import create_app
from schema_search.mcp.server import create_server
from schema_search.settings import Settings
from schema_search.workspace import Workspace
from schema_search.workspace.batches import TURNS_FILE, Batches, words

from ..conftest import HANDBOOK

QUESTION = "how do refunds and support work?"


def _workspace(tmp_path) -> Workspace:
    workspace = Workspace(Settings(home=tmp_path / "home", dense=False))
    workspace.corpora.index(HANDBOOK, corpus="handbook")
    return workspace


def _ids(response) -> list[str]:
    return [r.source_id for r in response.results]


def test_a_repeat_in_the_same_turn_gets_the_next_batch_once(tmp_path):
    workspace = _workspace(tmp_path)
    search = workspace.corpora.search
    ranking = _ids(search("handbook", QUESTION, 6))  # the wider pool, ranked once: what the turn's batches split
    first = search("handbook", QUESTION, 2, session="s1", turn="1")
    again = search("handbook", "How do refunds and support work", 2, session="s1", turn="1")  # the same, retyped
    assert (first.batch, again.batch) == (1, 2)
    assert _ids(first) == ranking[:2] and _ids(again) == ranking[2:4]
    assert not set(_ids(first)) & set(_ids(again))
    assert again.question == "How do refunds and support work"  # echoed as asked this time
    third = search("handbook", QUESTION, 2, session="s1", turn="1")
    assert third.batch == 1 and _ids(third) == ranking[:2]  # once per turn: then a search as usual
    assert search("handbook", QUESTION, 2, session="s1", turn="2").batch == 1  # a new turn starts over
    assert search("handbook", "who is on call?", 2, session="s1", turn="2").batch == 1  # another question


def test_the_repeat_may_reach_another_worker_and_is_still_given_once(tmp_path):
    # `serve` runs several worker processes on one port: each has its own Workspace over one data directory.
    first_worker = _workspace(tmp_path)
    second_worker = Workspace(Settings(home=tmp_path / "home", dense=False))
    first = first_worker.corpora.search("handbook", QUESTION, 2, session="s1", turn="1")
    again = second_worker.corpora.search("handbook", QUESTION, 2, session="s1", turn="1")
    assert (first.batch, again.batch) == (1, 2) and not set(_ids(first)) & set(_ids(again))
    assert first_worker.corpora.search("handbook", QUESTION, 2, session="s1", turn="1").batch == 1  # given once


def test_a_sealed_data_directory_keeps_its_turns_sealed(tmp_path):
    kek = tmp_path / "kek.bin"
    kek.write_bytes(os.urandom(32))
    workspace = Workspace(Settings(home=tmp_path / "home", dense=False, kek_file=kek))
    workspace.corpora.index(HANDBOOK, corpus="handbook")
    first = workspace.corpora.search("handbook", QUESTION, 2, session="visitor-42", turn="1")
    again = workspace.corpora.search("handbook", QUESTION, 2, session="visitor-42", turn="1")
    assert (first.batch, again.batch) == (1, 2) and not set(_ids(first)) & set(_ids(again))
    stored = (tmp_path / "home" / TURNS_FILE).read_bytes()
    for text in ("refunds", "visitor-42", *(r.text[:40] for r in again.results)):
        assert text.encode() not in stored
    # A turn sealed with a key not at hand is no repeat: the search runs as usual.
    workspace.corpora.search("handbook", QUESTION, 2, session="s2", turn="1")
    keyless = Workspace(Settings(home=tmp_path / "home", dense=False))
    keyless.batches = Batches(tmp_path / "home" / TURNS_FILE)
    assert keyless.batches.repeat(("handbook", "s2", "1"), words(QUESTION)) is None


def test_a_data_directory_that_cannot_be_written_keeps_turns_in_memory(tmp_path):
    workspace = _workspace(tmp_path)
    workspace.batches = Batches(tmp_path / "not-a-folder" / "turns.sqlite3")
    (tmp_path / "not-a-folder").write_text("a file where the folder would be")
    first = workspace.corpora.search("handbook", QUESTION, 2, session="s1", turn="1")
    assert workspace.corpora.search("handbook", QUESTION, 2, session="s1", turn="1").batch == 2 == first.batch + 1


def test_without_a_session_nothing_changes(tmp_path):
    workspace = _workspace(tmp_path)
    plain = workspace.corpora.search("handbook", QUESTION, 3)
    assert plain.batch is None
    assert _ids(workspace.corpora.search("handbook", QUESTION, 3)) == _ids(plain)


def test_http_and_mcp_give_the_next_batch(tmp_path):
    workspace = _workspace(tmp_path)
    client = TestClient(create_app(Settings(home=tmp_path / "home", dense=False)))
    body = {"question": QUESTION, "k": 2, "session": "conv-7", "turn": 3}
    first, again = (client.post("/v1/corpora/handbook/search", json=body).json() for _ in range(2))
    assert (first["batch"], again["batch"]) == (1, 2)
    assert not {r["source_id"] for r in first["results"]} & {r["source_id"] for r in again["results"]}

    async def twice():
        async with Client(create_server(workspace, corpora=["handbook"])) as mcp:
            ask = {"question": QUESTION, "k": 2, "turn": "1"}
            return [await mcp.call_tool("search_docs", ask) for _ in range(2)]

    one, two = anyio.run(twice)
    assert "next batch" not in one.content[0].text
    assert "The next batch of the same ranking" in two.content[0].text
    assert two.structured_content["batch"] == 2


def test_the_eval_reports_what_the_next_batch_adds(tmp_path, capsys, monkeypatch):
    import json

    monkeypatch.setenv("SCHEMA_SEARCH_DENSE", "false")
    from eval.docs import batches

    _workspace(tmp_path)
    questions = tmp_path / "q.jsonl"
    gold = ["https://handbook.example.com/policies/refunds/", "https://handbook.example.com/support/"]
    questions.write_text(json.dumps({"question": QUESTION, "gold_urls": gold}) + "\n")
    home = str(tmp_path / "home")
    assert batches.main([str(questions), "--corpus", "handbook", "--home", home, "-k", "1"]) == 0
    out = capsys.readouterr().out
    assert "next batch given: 1 of 1; passages in both batches: 0" in out


def test_a_turn_or_k_of_the_wrong_kind_is_refused_and_a_whole_float_k_taken(tmp_path):
    _workspace(tmp_path)
    client = TestClient(create_app(Settings(home=tmp_path / "home", dense=False)))
    for bad in ({"turn": False}, {"k": True}, {"k": "3"}, {"k": 2.5}):
        refused = client.post("/v1/corpora/handbook/search", json={"question": QUESTION, **bad})
        assert refused.status_code == 422 and refused.headers["content-type"] == "application/problem+json", bad
    assert len(client.post("/v1/corpora/handbook/search", json={"question": QUESTION, "k": 2.0}).json()["results"]) == 2
