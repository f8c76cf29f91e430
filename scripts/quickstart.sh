#!/usr/bin/env bash
# Quick start: set up, index the sample CRM schema and the sample handbook, ask each a question, count the tables.
# No API key, no network beyond the package registry, no external server.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export SCHEMA_SEARCH_HOME=${SCHEMA_SEARCH_HOME:-$PWD/.schema_search_home}
ss=.venv/bin/schema-search

$ss index sample_schemas/crm.sql --catalog crm
question=${1:-"Which contacts opened or clicked an email from a campaign?"}
echo
echo "Q: $question"
$ss search "$question" --catalog crm -k 5
echo
echo "Counted with SQL, not search: tables per schema"
$ss query "SELECT schema, count(*) AS tables FROM tables WHERE kind = 'table' GROUP BY schema ORDER BY tables DESC LIMIT 5" --catalog crm

echo
$ss docs index sample_docs/handbook --corpus handbook
docs_question=${2:-"Who has to approve a refund of 800 euros?"}
echo
echo "Q: $docs_question"
$ss docs search "$docs_question" --corpus handbook -k 3
echo
echo "The sample shop database (two Acme suppliers), indexed for execute_sql behind its checklist"
.venv/bin/python scripts/make_sample_db.py
$ss index sqlite:///sample_schemas/shop.db --catalog shop

echo
echo "Next: .venv/bin/schema-search serve --config sample_schemas/schema-search.toml"
echo "      then open http://127.0.0.1:8000/ (search, why each result ranked, tables and their joins; API docs at /docs)"
echo "      .venv/bin/schema-search mcp --config sample_schemas/schema-search.toml   (MCP over stdio: crm, shop, handbook)"
echo "      SCHEMA_SEARCH_HOME=$SCHEMA_SEARCH_HOME"
