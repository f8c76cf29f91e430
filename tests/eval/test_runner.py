"""The eval suite end to end on a tiny benchmark written to tmp_path."""

import json
import re

import pytest

from eval.tables import benchmarks, configs, gate, report
from eval.tables.__main__ import main
from eval.tables.runner import evaluate, prepare, run_eval
from schema_search.errors import InvalidInput, SourceError
from schema_search.settings import Settings


def _table(name, columns, fks=()):
    return {
        "name": name,
        "natural_name": None,
        "description": None,
        "columns": [{"name": c, "type": "text", "description": None, "natural_name": c} for c in columns],
        "primary_key": [columns[0]],
        "foreign_keys": [{"columns": [a], "ref_table": t, "ref_columns": [b]} for a, t, b in fks],
    }


CONCERTS = {
    "db_id": "concert_singer",
    "tables": [
        _table("singer", ["singer_id", "name", "country", "age"]),
        _table("stadium", ["stadium_id", "location", "capacity"]),
        _table(
            "concert", ["concert_id", "concert_name", "stadium_id", "year"], [("stadium_id", "stadium", "stadium_id")]
        ),
        _table(
            "singer_in_concert",
            ["concert_id", "singer_id"],
            [("concert_id", "concert", "concert_id"), ("singer_id", "singer", "singer_id")],
        ),
    ],
}
PETS = {
    "db_id": "pets_1",
    "tables": [
        _table("student", ["stuid", "lname", "fname", "age"]),
        _table("pets", ["petid", "pettype", "pet_age", "weight"]),
        _table("has_pet", ["stuid", "petid"], [("stuid", "student", "stuid"), ("petid", "pets", "petid")]),
    ],
}
DISTRACTOR = {
    "db_id": "music_festival",
    "tables": [_table("festival_singer", ["festival_id", "singer_name", "country"])],
}
QUESTIONS = [
    {"id": "q0", "db_id": "concert_singer", "question": "How many singers do we have?", "gold_tables": ["singer"]},
    {"id": "q1", "db_id": "pets_1", "question": "What is the average weight of the pets?", "gold_tables": ["pets"]},
    {
        "id": "q2",
        "db_id": "pets_1",
        "question": "First names of students who have a pet",
        "evidence": "pet owners are in has_pet",
        "gold_tables": ["student", "has_pet"],
    },
    {
        "id": "q3",
        "db_id": "concert_singer",
        "question": "Which stadium location hosted the most concerts?",
        "gold_tables": ["stadium", "concert"],
    },
]
BM25_CONFIGS = ["default", "names", "text", "body", "merged", "rrf-equal", "peer-bm25"]


def _write(folder, schemas, questions=None):
    folder.mkdir()
    (folder / "schemas.jsonl").write_text("".join(json.dumps(s) + "\n" for s in schemas))
    if questions is not None:
        (folder / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions))
    return folder


@pytest.fixture
def bench(tmp_path):
    return _write(tmp_path / "tiny_dev", [CONCERTS, PETS], QUESTIONS)


@pytest.fixture
def distractors(tmp_path):
    # pets_1 again is the same database twice: it is left out, not pooled twice.
    return _write(tmp_path / "tiny_train", [DISTRACTOR, PETS])


@pytest.fixture
def settings(tmp_path):
    return Settings(home=tmp_path / "home", dense=False)


def test_questions_carry_gold_table_ids_and_evidence(bench):
    loaded = benchmarks.load_benchmark(bench)
    assert loaded.name == "tiny_dev" and loaded.tables == 7
    q2 = loaded.questions[2]
    assert q2.gold == ("pets_1.student", "pets_1.has_pet")
    assert q2.text == "First names of students who have a pet pet owners are in has_pet" and q2.has_evidence
    assert [q.id for q in benchmarks.load_benchmark(bench, limit=2).questions] == ["q0", "q2"]


def test_bad_benchmark_files_are_reported(tmp_path):
    with pytest.raises(SourceError, match="questions.jsonl does not exist"):
        benchmarks.load_benchmark(_write(tmp_path / "no_questions", [CONCERTS]))
    wrong = dict(QUESTIONS[0], gold_tables=["singers"])
    with pytest.raises(SourceError, match="concert_singer.singers"):
        benchmarks.load_benchmark(_write(tmp_path / "wrong_gold", [CONCERTS], [wrong]))


def test_pooled_run_reports_every_configuration_in_the_json_shape(bench, distractors, settings):
    run = run_eval(
        benchmarks.load_benchmark(bench),
        benchmarks.POOLED,
        benchmarks.load_databases(distractors),
        BM25_CONFIGS,
        settings=settings,
        distractor_names=["tiny_train"],
    )
    record = run.to_json()
    assert {k: record[k] for k in ("benchmark", "condition", "tables", "questions")} == {
        "benchmark": "tiny_dev",
        "condition": "pooled",
        "tables": 8,  # 7 + the festival table; the repeated pets_1 is not pooled twice
        "questions": 4,
    }
    assert [r["config"] for r in record["results"]] == BM25_CONFIGS
    assert list(record["results"][0]) == [
        "config",
        "recall@1",
        "recall@5",
        "recall@10",
        "recall@20",
        "table_recall@10",
        "mrr",
        "mean_candidates",
        "p50_ms",
        "p99_ms",
    ]
    by_config = {r.config: r for r in run.results}
    assert by_config["default"].recall[10] == 1.0  # a tiny catalog: everything is found by k=10
    assert by_config["merged"].recall == by_config["body"].recall
    for result in run.results:
        assert all(0.0 <= v <= 1.0 for v in [*result.recall.values(), *result.table_recall.values(), result.mrr])
        assert result.recall[1] <= result.recall[5] <= result.recall[10] <= result.recall[20]
        assert set(result.per_db) == {"concert_singer", "pets_1"}


def test_per_db_searches_only_the_questions_database(bench, distractors, settings):
    loaded = benchmarks.load_benchmark(bench)
    with prepare(
        loaded, benchmarks.PER_DB, benchmarks.load_databases(distractors), ["default", "peer-bm25"], settings
    ) as prepared:
        assert prepared.tables == 7
        for q in loaded.questions:
            for config in prepared.configs_by_db[q.db_id].values():
                assert all(t.startswith(q.db_id + ".") for t in config.rank(q.text, 20))
        run = evaluate(prepared, ks=(1, 3))
    assert run.condition == "per-db" and run.ks == (1, 3) and run.headline_k == 3
    assert "table_recall@3" in run.to_json()["results"][0]


def test_unknown_configuration_names_the_available_ones(bench, settings):
    with pytest.raises(InvalidInput, match="Unknown configuration 'bm42'") as error:
        run_eval(benchmarks.load_benchmark(bench), configs=["bm42"], settings=settings)
    assert "peer-bm25" in error.value.hint and "SCHEMA_SEARCH_DENSE" in error.value.hint


@pytest.mark.slow
def test_dense_channel_and_peer_dense_join_the_run(bench):
    """With the dense channel built, the eval reports it (and body+dense RRF) without being told."""
    settings = Settings(dense=True, embedding_threads=1)
    loaded = benchmarks.load_benchmark(bench)
    with prepare(loaded, settings=settings, configs=None) as prepared:
        # No table is described and a benchmark has no rows: those fields get no rows of their own.
        expected = [c for c in configs.available(["names", "text", "body", "dense"]) if c != "default-no-novelty"]
        assert prepared.config_names == expected
        assert {"dense", "rrf-body+dense", "peer-dense"} <= set(prepared.config_names)
        peer = prepared.configs_by_db["pets_1"]["peer-dense"]
        assert peer.rank("What is the average weight of the pets?", 1) == ["pets_1.pets"]


def test_report_is_one_offline_page_with_a_line_per_configuration(bench, settings):
    run = run_eval(benchmarks.load_benchmark(bench), configs=["default", "body", "peer-bm25"], settings=settings)
    page = report.render(run, generated_at="2024-01-01 00:00")
    assert page.count("<polyline") == 3 and "<svg" in page
    assert "<script" not in page and not re.search(r"(src|href)=", page)
    assert "evidence</code> text is appended" in page  # q2 has evidence
    assert ">concert_singer<" in page and ">pets_1<" in page


def test_cli_eval_writes_json_report_and_baseline(bench, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SCHEMA_SEARCH_DENSE", "false")
    monkeypatch.setattr(gate, "BASELINES", tmp_path / "baselines")
    out, page = tmp_path / "out.json", tmp_path / "out.html"
    argv = [str(bench), "--config", "default", "names", "--limit", "3", "-k", "1", "10"]
    assert main([*argv, "--json", str(out), "--report", str(page), "--update-baseline"]) == 0
    printed = capsys.readouterr().out
    assert "tiny_dev pooled: 7 tables, 3 questions" in printed and "default" in printed
    assert json.loads(out.read_text())["results"][1]["config"] == "names"
    assert page.read_text().startswith("<!DOCTYPE html>")
    baseline = json.loads((tmp_path / "baselines" / "tiny_dev-pooled-3.json").read_text())
    assert baseline["limit"] == 3 and "p50_ms" not in baseline["results"][0]


def test_cli_eval_refuses_bad_arguments(bench, capsys):
    assert main([str(bench), "--limit", "0"]) == 1
    assert "--limit 0" in capsys.readouterr().err
    assert main([str(bench.parent / "nope")]) == 1
    assert "does not exist" in capsys.readouterr().err


def test_gate_check_allows_the_tolerance_and_no_more():
    ok = gate.GateCheck("b-pooled-300", baseline=0.90, measured=0.8901)
    failed = gate.GateCheck("b-pooled-300", baseline=0.90, measured=0.8899)
    assert ok.passed and not failed.passed
    assert "FAILED" in str(failed)
