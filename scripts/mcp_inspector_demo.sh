#!/usr/bin/env bash
# One `schemasift mcp --config sample_schemas/schema-search.toml` server (catalogs crm and shop, corpus
# handbook) driven by the MCP Inspector CLI, a client this project did not write: list the tools and the
# sources, search each catalog and the corpus, then execute_sql on the sample SQLite database: a batch of
# questions for "revenue of Acme last month", a ready checklist once answered, the rows after the approval,
# and the approval refused when a value changes. Prints the transcript.
#
# Needs the quick start's data (bash scripts/quickstart.sh) and npm (the Inspector is installed into a
# temporary folder from the npm registry; the test suite never does this).
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
HOME_DIR=${SCHEMA_SEARCH_HOME:-$REPO/.schema_search_home}
INSPECTOR_VERSION=${INSPECTOR_VERSION:-0.15.0}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

[ -f sample_schemas/shop.db ] || .venv/bin/python scripts/make_sample_db.py >&2
for catalog in crm shop; do
  [ -d "$HOME_DIR/catalogs/$catalog" ] || { echo "Run bash scripts/quickstart.sh first (no catalog $catalog in $HOME_DIR)." >&2; exit 2; }
done
(cd "$work" && npm install --silent --no-audit --no-fund "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" >&2)

# The Inspector's own --config names a client config file: the same shape Claude Desktop and Cursor read.
cat > "$work/mcp.json" <<EOF
{"mcpServers": {"schemasift": {
  "command": "$REPO/.venv/bin/schemasift",
  "args": ["mcp", "--config", "$REPO/sample_schemas/schema-search.toml"],
  "env": {"SCHEMA_SEARCH_HOME": "$HOME_DIR", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}}}}
EOF

call() {  # call TITLE INSPECTOR-ARGS...: print the request and the text the server answered
  local title=$1; shift
  echo "### $title"
  echo "\$ mcp-inspector --cli --config mcp.json --server schemasift $(printf '%q ' "$@")"
  "$work/node_modules/.bin/mcp-inspector" --cli --config "$work/mcp.json" --server schemasift "$@" \
    | .venv/bin/python -c '
import json, sys
reply = json.load(sys.stdin)
if "tools" in reply:
    print("tools:", ", ".join(t["name"] for t in reply["tools"]))
elif "resources" in reply:
    print("resources:", ", ".join(r["uri"] for r in reply["resources"]))
else:
    print(("isError: true\n" if reply.get("isError") else "") + "\n".join(c.get("text", "") for c in reply["content"]))'
  echo
}

QUESTION="What was the revenue of Acme last month?"
JOINS="FROM order_items oi JOIN orders o ON o.order_id = oi.order_id JOIN products p ON p.product_id = oi.product_id JOIN suppliers s ON s.supplier_id = p.supplier_id"
VAGUE="SELECT SUM(oi.quantity * oi.unit_price) AS revenue $JOINS WHERE s.company_name LIKE '%Acme%' AND o.placed_at >= date('now', 'start of month', '-1 month') AND o.placed_at < date('now', 'start of month')"
EXACT="SELECT SUM(oi.quantity * oi.unit_price) AS revenue $JOINS WHERE s.company_name = 'Acme GmbH' AND o.placed_at >= '2026-11-01' AND o.placed_at < '2026-12-01'"
ANSWERS='answers={"value:main.suppliers.company_name": "Acme GmbH", "time:main.orders.placed_at": "November 2026, Europe/Berlin"}'

call "tools/list" --method tools/list
call "resources/list" --method resources/list
call "list_sources" --method tools/call --tool-name list_sources
call "search_tables on crm" --method tools/call --tool-name search_tables --tool-arg catalog=crm \
  --tool-arg "question=Which contacts opened an email from a campaign?" --tool-arg k=3
call "search_docs on handbook" --method tools/call --tool-name search_docs \
  --tool-arg "question=Who has to approve a refund of 800 euros?" --tool-arg k=2
call "execute_sql, underspecified" --method tools/call --tool-name execute_sql --tool-arg catalog=shop \
  --tool-arg "question=$QUESTION" --tool-arg "sql=$VAGUE"
call "execute_sql, the user's answers" --method tools/call --tool-name execute_sql --tool-arg catalog=shop \
  --tool-arg "question=$QUESTION" --tool-arg "sql=$EXACT" --tool-arg "$ANSWERS"
# Each Inspector CLI call is a new session: the answers come again, the verdict is read from the log.
verdict=$(tail -n 1 "$HOME_DIR/verdicts.jsonl" | .venv/bin/python -c 'import json, sys; print(json.load(sys.stdin)["verdict"])')
call "execute_sql, approved ($verdict)" --method tools/call --tool-name execute_sql --tool-arg catalog=shop \
  --tool-arg "question=$QUESTION" --tool-arg "sql=$EXACT" --tool-arg "$ANSWERS" --tool-arg "approval=$verdict"
# The user changes their mind (Acme Ltd); the SQL follows, but the approval was for Acme GmbH.
call "execute_sql, the same approval after the answer changed to Acme Ltd" --method tools/call --tool-name execute_sql \
  --tool-arg catalog=shop --tool-arg "question=$QUESTION" --tool-arg "sql=${EXACT/Acme GmbH/Acme Ltd}" \
  --tool-arg "${ANSWERS/Acme GmbH/Acme Ltd}" --tool-arg "approval=$verdict"
