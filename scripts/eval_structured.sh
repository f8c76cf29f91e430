#!/usr/bin/env bash
# The structured-index evals: PEP fields next to email.parser, count/filter/group accuracy
# (gold from email.parser and PostgreSQL) next to top-k search, and placeholder pairings.
# Writes eval/results/structured-*.json. Reuses the PEPs corpus scripts/eval_docs.sh embedded
# in ./.eval_work/peps (a corpus without a structured index gets one, re-embedding nothing);
# without it the PEPs are indexed and embedded first, about 15 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
PG_URL=$(bash scripts/setup_postgres.sh | tail -n 1)
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 LITELLM_LOCAL_MODEL_COST_MAP=True
HOME_DIR=${EVAL_WORK:-.eval_work}/peps
py=.venv/bin/python
$py -m eval.structured.fields_check --json eval/results/structured-fields.json
$py -m eval.structured.run --pg-url "$PG_URL" --home "$HOME_DIR" --json eval/results/structured-accuracy.json
$py -m eval.structured.placeholders --home "$HOME_DIR" --json eval/results/structured-placeholders.json
