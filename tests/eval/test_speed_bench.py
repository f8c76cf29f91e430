"""The speed benchmark runs end to end at a tiny size: every phase measured, its reference beside it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from eval.speed.synthetic import changed, synthetic_catalog

from ..conftest import REPO


def test_the_synthetic_catalog_is_the_same_every_run_and_a_migration_touches_one_percent():
    first, second = synthetic_catalog(500), synthetic_catalog(500)
    assert first == second and len({t.id for t in first.tables}) == 500
    after, touched = changed(first, 0.01)
    assert touched == 5 and sum(a != b for a, b in zip(first.tables, after.tables)) == 5


@pytest.mark.slow  # builds twice, starts two servers
def test_the_benchmark_measures_every_phase_and_writes_json_and_markdown(tmp_path):
    out, table = tmp_path / "speed.json", tmp_path / "speed.md"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "eval.speed",
            "--scales",
            "150",
            "--queries",
            "20",
            "--requests",
            "300",
            "--http-seconds",
            "3",
            "--connections",
            "4",
            "2",
            "--workers",
            "1",
            "--json",
            str(out),
            "--markdown",
            str(table),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    scale = report["scales"]["150"]
    assert scale["build_s"] > 0 and scale["build_bm25_s"] > 0 and scale["reindex_changed"] == 2
    assert scale["search"]["questions"] == 20 and scale["search"]["bare_encode_p50_ms"] > 0
    http = scale["http"]
    assert http["search"]["errors"] == 0 and http["search"]["requests"] >= 300 and http["healthz"]["rps"] > 0
    assert [o["connections"] for o in http["other_connections"]] == [2]
    # Both measured (at 150 tables the two differ by less than the noise between runs).
    assert http["memory_after_load_mb"]["pss"] > 0 and report["empty_server"]["memory_mb"]["pss"] > 0
    assert "machine: " in done.stdout and "build, dense included (s)" in done.stdout
    assert table.read_text().count("|") > 20
