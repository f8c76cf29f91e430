#!/usr/bin/env bash
# Re-measure everything eval/README.md reports: both benchmarks, pooled and per-db, every
# configuration, into eval/results/; with --baselines also rewrite eval/baselines/ (the
# gate's slices). About 10 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BENCHMARKS:-../shared/benchmarks}
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
tables_eval=(.venv/bin/python -m eval.tables)
if [[ "${1:-}" == "--baselines" ]]; then
    "${tables_eval[@]}" "$B/spider_dev" --distractors "$B/spider_train_schemas" --limit 300 --update-baseline
    "${tables_eval[@]}" "$B/bird_dev" --distractors "$B/bird_train_schemas" --limit 300 --update-baseline
fi
mkdir -p eval/results
for pair in "spider_dev spider_train_schemas" "bird_dev bird_train_schemas"; do
    read -r bench train <<<"$pair"
    "${tables_eval[@]}" "$B/$bench" --distractors "$B/$train" \
        --json "eval/results/$bench-pooled.json" --report "eval/results/$bench-pooled.html"
    "${tables_eval[@]}" "$B/$bench" --per-db --json "eval/results/$bench-per-db.json" --report "eval/results/$bench-per-db.html"
done
