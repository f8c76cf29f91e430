#!/usr/bin/env bash
# Citation survival on the FastAPI docs: `python -m eval.csr run` then `score` (judged by the same model
# unless JUDGE=none|nli|MODEL), figures into eval/results/csr-fastapi-MODEL.json and the HTML report
# beside the transcripts. By default the embedded model (no key, offline):
# 20 questions (4 off-topic) x 2 pipelines x 2 citation styles x 3 runs, 45 minutes on 2 cores.
# Another model the same way: MODEL=gpt-4o-mini RUNS=3 LIMIT=30 bash scripts/eval_csr.sh
# The corpus is indexed into ./.eval_work/csr the first time (about 6 minutes), then reused;
# transcripts go to ./.eval_work/csr-runs/ and an interrupted run resumes where it stopped.
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS=local-llm bash scripts/setup.sh >/dev/null
D=${DOCS_CORPORA:-../shared/docs_corpora}
W=${EVAL_WORK:-.eval_work}
MODEL=${MODEL:-local/smollm2}
slug=$(echo "$MODEL" | tr -c 'A-Za-z0-9._\n-' '-')
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 LITELLM_LOCAL_MODEL_COST_MAP=True SCHEMA_SEARCH_EMBEDDING_THREADS=1
export SCHEMA_SEARCH_HOME=$W/csr
ss=.venv/bin/schemasift
csr=(.venv/bin/python -m eval.csr)
$ss corpora | grep -q '^fastapi ' || $ss docs index "$D/fastapi" --corpus fastapi
out=$W/csr-runs/fastapi-$slug
"${csr[@]}" run eval/csr/fastapi.jsonl --corpus fastapi --model "$MODEL" --limit "${LIMIT:-20}" --runs "${RUNS:-3}" \
    --max-turns "${MAX_TURNS:-4}" --out "$out"
# Every answer with its citations, claims and tool calls (~1 MB each) stays beside the transcripts;
# the figures (configurations and comparisons) go to eval/results/.
"${csr[@]}" score "$out" --judge "${JUDGE:-$MODEL}" --json "$out/score.json" --report "$out/report.html"
mkdir -p eval/results
.venv/bin/python -c 'import json, sys; d = json.load(open(sys.argv[1])); d.pop("conversations")
json.dump(d, open(sys.argv[2], "w"), indent=1); print("wrote", sys.argv[2])' "$out/score.json" "eval/results/csr-fastapi-$slug.json"
