#!/usr/bin/env bash
# Set up everything the tests need (the venv, a local PostgreSQL, Debian's Chromium and Tesseract) and run them.
# Exits non-zero when a test fails or when no test ran (pytest exit code 5).
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS=test,local-llm,ray bash scripts/setup.sh
SCHEMA_SEARCH_TEST_PG_URL=$(bash scripts/setup_postgres.sh | tail -n 1)
export SCHEMA_SEARCH_TEST_PG_URL
bash scripts/setup_chromium.sh
bash scripts/setup_tesseract.sh
# Tests never touch the network: models load from site-packages, litellm uses its local price map.
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 LITELLM_LOCAL_MODEL_COST_MAP=True
exec .venv/bin/python -m pytest tests schema_search eval "$@"
