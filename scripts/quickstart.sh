#!/usr/bin/env bash
# Quick start: set up, index the sample CRM schema, the sample handbook and the sample shop database, ask
# questions, count the tables, and start the HTTP server with the web page on http://127.0.0.1:8000/.
# No API key, no network beyond the package registry, no external server.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export SCHEMA_SEARCH_HOME=${SCHEMA_SEARCH_HOME:-$PWD/.schema_search_home}
ss=.venv/bin/schemasift

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
# The web page: the HTTP server in the background, so the page is there when this ends.
# SCHEMA_SEARCH_QUICKSTART_SERVE=0 leaves it out (scripts/bench_quickstart.sh does).
port=8000
answers() {  # whether http://127.0.0.1:$port$1 answers 2xx (with the venv's Python: curl may be missing)
    .venv/bin/python -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)' \
        "http://127.0.0.1:$port$1" 2>/dev/null
}
serve=(.venv/bin/schemasift serve --config sample_schemas/schema-search.toml --port "$port" --workers 1)
if [[ "${SCHEMA_SEARCH_QUICKSTART_SERVE:-1}" == "0" ]]; then
    echo "Next: ${serve[*]}, then open http://127.0.0.1:$port/"
elif answers /healthz; then
    echo "A server already answers on port $port: open http://127.0.0.1:$port/ (restart it to serve this data)."
else
    nohup "${serve[@]}" >"$SCHEMA_SEARCH_HOME/serve.log" 2>&1 &
    pid=$!
    for _ in $(seq 60); do
        answers /readyz && break
        kill -0 "$pid" 2>/dev/null || { cat "$SCHEMA_SEARCH_HOME/serve.log" >&2; echo "the server did not start" >&2; exit 1; }
        sleep 1
    done
    answers /readyz || echo "The server is still starting (log: $SCHEMA_SEARCH_HOME/serve.log)."
    echo "The web page: open http://127.0.0.1:$port/ (search crm, shop or handbook and see why each result ranked)."
    echo "      API docs at http://127.0.0.1:$port/docs; the server runs in the background: kill $pid stops it (log: $SCHEMA_SEARCH_HOME/serve.log)."
fi
echo "Also: .venv/bin/schemasift mcp --config sample_schemas/schema-search.toml   (MCP over stdio: crm, shop, handbook)"
echo "      SCHEMA_SEARCH_HOME=$SCHEMA_SEARCH_HOME"
