"""The baseline gate: the shipped default must not lose all-gold recall@10 silently.

Each file in ``eval/baselines/`` records one slice (benchmark folder, condition,
distractor folders, question limit) and the figures measured on it when it was last
accepted; ``python -m eval.tables ... --update-baseline`` rewrites it, so a change in the
figures shows in review. ``tests/test_eval_gate.py`` re-measures every slice and fails
when ``default`` recall@10 falls more than :data:`TOLERANCE` below its baseline.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from schema_search.settings import Settings

from .benchmarks import PER_DB, Benchmark, Database, load_benchmark, load_databases
from .configs import DEFAULT
from .runner import EvalRun, evaluate, prepare

BASELINES = Path(__file__).resolve().parents[1] / "baselines"
TOLERANCE = 0.01
METRIC = "recall@10"
GATE_KS = (10,)


@dataclass(frozen=True)
class GateCheck:
    slice: str
    baseline: float
    measured: float
    tolerance: float = TOLERANCE

    @property
    def passed(self) -> bool:
        return self.measured >= self.baseline - self.tolerance

    def __str__(self) -> str:
        verdict = "ok" if self.passed else "FAILED"
        return (
            f"{self.slice}: {DEFAULT} {METRIC} {self.measured:.4f} vs baseline {self.baseline:.4f} "
            f"(tolerance {self.tolerance}) {verdict}"
        )


def slice_name(baseline: dict) -> str:
    """A baseline's file stem, e.g. ``spider_dev-pooled-300``.

    >>> slice_name({"benchmark": "spider_dev", "condition": "pooled", "limit": 300})
    'spider_dev-pooled-300'
    >>> slice_name({"benchmark": "bird_dev", "condition": "per-db", "limit": None})
    'bird_dev-per-db-all'
    """
    return f"{baseline['benchmark']}-{baseline['condition']}-{baseline['limit'] or 'all'}"


def baseline_of(run: EvalRun, limit: int | None) -> dict:
    """What a baseline file holds: the slice, and every figure except latency (noise in a diff)."""
    record = run.to_json()
    record.pop("version")
    for result in record["results"]:
        result.pop("p50_ms")
        result.pop("p99_ms")
    return {
        "benchmark": run.benchmark,
        "condition": run.condition,
        "distractors": run.distractors,
        "limit": limit,
        **{key: record[key] for key in ("tables", "questions", "results")},
    }


def write_baseline(run: EvalRun, limit: int | None, folder: Path | None = None) -> Path:
    """Write (or rewrite) the baseline file of ``run``'s slice; returns its path."""
    folder = folder or BASELINES
    if run.result(DEFAULT) is None:
        raise ValueError(f"a baseline needs the {DEFAULT!r} configuration in the run")
    baseline = baseline_of(run, limit)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{slice_name(baseline)}.json"
    path.write_text(json.dumps(baseline, indent=2) + "\n", encoding="utf-8")
    return path


def load_baselines(folder: Path | None = None) -> list[dict]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted((folder or BASELINES).glob("*.json"))]


def baseline_figure(baseline: dict) -> float:
    return next(r[METRIC] for r in baseline["results"] if r["config"] == DEFAULT)


def check(baseline: dict, run: EvalRun) -> GateCheck:
    """Compare a re-measured run of a slice with its baseline."""
    measured = run.result(DEFAULT)
    if measured is None:
        raise ValueError(f"the run has no {DEFAULT!r} configuration")
    return GateCheck(slice_name(baseline), baseline_figure(baseline), measured.recall[10])


def slice_inputs(baseline: dict, root: Path) -> tuple[Benchmark, list[Database]]:
    """The benchmark (limited as recorded) and distractor databases of a baseline's slice."""
    benchmark = load_benchmark(root / baseline["benchmark"], baseline["limit"])
    distractors: list[Database] = []
    if baseline["condition"] != PER_DB:
        for name in baseline["distractors"]:
            distractors.extend(load_databases(root / name))
    return benchmark, distractors


def missing_folders(baseline: dict, root: Path) -> list[str]:
    return [n for n in [baseline["benchmark"], *baseline["distractors"]] if not (root / n).is_dir()]


def prepare_slice(baseline: dict, root: Path, settings: Settings | None = None):
    """Index a baseline's slice for the default configuration (a context manager)."""
    benchmark, distractors = slice_inputs(baseline, root)
    return prepare(benchmark, baseline["condition"], distractors, [DEFAULT], settings, baseline["distractors"])


def run_gate(root: Path, folder: Path | None = None, settings: Settings | None = None) -> list[GateCheck]:
    """Re-measure every baseline slice whose benchmark folders are under ``root``."""
    checks = []
    for baseline in load_baselines(folder):
        if missing_folders(baseline, root):
            continue
        with prepare_slice(baseline, root, settings) as prepared:
            checks.append(check(baseline, evaluate(prepared, GATE_KS)))
    return checks


def failures(checks: Sequence[GateCheck]) -> list[GateCheck]:
    return [c for c in checks if not c.passed]
