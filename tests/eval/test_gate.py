"""The baseline gate on the real benchmarks: CI-sized slices, the shipped default.

Each slice (300 questions, pooled with the train schemas as distractors) is indexed
once; the default configuration is then measured as shipped and with ranking broken
on purpose, to prove the gate notices.
"""

from contextlib import ExitStack

import pytest

from eval.tables import gate
from eval.tables.runner import evaluate
from schema_search.core import ranking
from schema_search.settings import Settings

from ..conftest import SHARED

ROOT = SHARED / "benchmarks"

pytestmark = [
    pytest.mark.skipif(not ROOT.is_dir(), reason=f"benchmark files not found at {ROOT}"),
    pytest.mark.slow,
]


@pytest.fixture(scope="module")
def slices(tmp_path_factory):
    baselines = gate.load_baselines()
    assert baselines, f"no baseline files in {gate.BASELINES}: run `schemasift eval ... --update-baseline`"
    settings = Settings(home=tmp_path_factory.mktemp("home"), embedding_threads=1)
    with ExitStack() as stack:
        yield [
            (baseline, stack.enter_context(gate.prepare_slice(baseline, ROOT, settings)))
            for baseline in baselines
            if not gate.missing_folders(baseline, ROOT)
        ]


def measure(slices):
    return [gate.check(baseline, evaluate(prepared, gate.GATE_KS)) for baseline, prepared in slices]


def test_default_recall_at_10_holds_its_baseline(slices):
    checks = measure(slices)
    assert {c.slice for c in checks} >= {"spider_dev-pooled-300", "bird_dev-pooled-300"}
    failed = gate.failures(checks)
    assert not failed, "\n".join(map(str, failed))


def test_gate_fails_when_fusion_is_inverted(slices, monkeypatch):
    # Negated scores, not just a reversed list: later stages re-sort by score.
    fused = ranking.rrf
    monkeypatch.setattr(ranking, "rrf", lambda *args, **kwargs: [(t, -s) for t, s in fused(*args, **kwargs)[::-1]])
    checks = measure(slices)
    assert len(gate.failures(checks)) == len(checks), "\n".join(map(str, checks))


def test_gate_fails_when_only_the_names_channel_counts(slices, monkeypatch):
    monkeypatch.setattr(Settings, "weights", lambda self: {"names": 1.0})
    checks = measure(slices)
    assert gate.failures(checks), "\n".join(map(str, checks))
