"""The docs baseline gate: a slice of the FastAPI docs with the dev questions, the shipped default.

The slice is indexed once (dense channel included); the default is measured as
shipped, next to the BM25-over-pages peer, and with ranking broken on purpose, to
prove the gate notices.
"""

from __future__ import annotations

import pytest

from eval.docs import configs, followups, gate
from eval.docs.questions import load_questions, page
from eval.docs.runner import evaluate
from schema_search.core import ranking
from schema_search.settings import Settings
from schema_search.workspace import Workspace

from ..conftest import SHARED

CORPUS = SHARED / "docs_corpora" / "fastapi"

pytestmark = [pytest.mark.skipif(not CORPUS.is_dir(), reason=f"docs corpus not found at {CORPUS}"), pytest.mark.slow]


@pytest.fixture(scope="module")
def sliced(tmp_path_factory) -> Workspace:
    folder = gate.build_slice(CORPUS, tmp_path_factory.mktemp("slice"))
    workspace = Workspace(Settings(home=tmp_path_factory.mktemp("home"), embedding_threads=1))
    workspace.corpora.index(folder, corpus="slice")
    return workspace


def measure(workspace: Workspace) -> dict[str, float]:
    built = configs.build(workspace, "slice", [configs.DEFAULT, configs.PEER_BM25])
    run = evaluate(built, [load_questions(gate.QUESTIONS)], (5, 10))
    results = next(iter(run.sets.values()))
    passages = {f"{r.config} passages": r.passage_recall[5] for r in results if r.passage_recall}
    return {r.config: r.recall[5] for r in results} | passages


def test_default_page_recall_at_5_holds_its_baseline_and_beats_the_bm25_peer(sliced):
    figures = measure(sliced)
    baseline = gate.load_baseline()
    assert figures["default"] >= baseline["page_recall@5"] - gate.TOLERANCE, figures
    assert figures["default"] >= figures[configs.PEER_BM25], figures
    # What five passages hand an agent: the pages they cover.
    assert figures["default passages"] >= baseline["passage_recall@5"] - gate.TOLERANCE, figures


def test_gate_fails_when_fusion_is_inverted(sliced, monkeypatch):
    fused = ranking.rrf
    monkeypatch.setattr(ranking, "rrf", lambda *args, **kwargs: [(t, -s) for t, s in fused(*args, **kwargs)[::-1]])
    assert measure(sliced)["default"] < gate.load_baseline()["page_recall@5"] - gate.TOLERANCE


def test_follow_ups_with_their_history_find_what_the_written_out_question_finds(sliced):
    """The follow-ups of the first half whose gold pages the slice holds (where the rules were chosen)."""
    pages = {page(d.url) for d in sliced.corpora.searcher("slice").corpus.documents}
    items = [i for i in followups.load(followups.FOLLOWUPS, "first") if set(i.gold) <= pages]
    assert len(items) >= 15
    texts, _, rate, _ = followups.rewritten(sliced, items)
    alone = followups.recall(sliced, "slice", items, [i.question for i in items])["R@5"]
    rewritten = followups.recall(sliced, "slice", items, texts)["R@5"]
    full = followups.recall(sliced, "slice", items, [i.full_question for i in items])["R@5"]
    assert rate >= 0.9 and rewritten >= alone + 0.30 and rewritten >= full - 0.05, (rate, alone, rewritten, full)
