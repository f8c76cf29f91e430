#!/usr/bin/env bash
# Re-measure everything eval/README.md reports for documents: every question set over its
# corpus, every configuration, into eval/results/docs-*.json, and the token counts per
# language. Indexes into ./.eval_work (kept: re-runs reuse its embeddings). About 50
# minutes on 2 cores the first time (the PEPs are 29,000 chunks), minutes afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
D=${DOCS_CORPORA:-../shared/docs_corpora}
Q=eval/docs_questions
W=${EVAL_WORK:-.eval_work}
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
docs_eval=(.venv/bin/python -m eval.docs)
mkdir -p eval/results
"${docs_eval[@]}" $Q/fastapi_dev.jsonl $Q/fastapi.jsonl $Q/off_topic.jsonl --source "$D/fastapi" --work "$W/fastapi" \
    --json eval/results/docs-fastapi.json
"${docs_eval[@]}" $Q/fastapi_cjk.jsonl --source "$D/fastapi_cjk" --work "$W/fastapi_cjk" --json eval/results/docs-fastapi_cjk.json
# A VitePress site with questions written before any run over it (eval/data/vite_docs/README.md).
"${docs_eval[@]}" $Q/vite.jsonl $Q/off_topic.jsonl --source eval/data/vite_docs/pages --work "$W/vite" \
    --url-template "https://vite.dev/{path}" --json eval/results/docs-vite.json
"${docs_eval[@]}" $Q/peps.jsonl $Q/off_topic.jsonl --source "$D/peps" --work "$W/peps" --json eval/results/docs-peps.json
.venv/bin/python -m eval.docs.tokens "$D/fastapi" "$D/fastapi_cjk" "$D/peps" --json eval/results/docs-tokens.json
