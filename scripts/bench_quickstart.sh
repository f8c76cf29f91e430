#!/usr/bin/env bash
# Time the first quick start the way a new user meets it: a fresh clone of this checkout's
# last commit, a new venv, an empty pip cache and an empty model cache. Beside it, timed in
# the same run: `pip install` of the core dependencies alone (torch and pyproject.toml's
# dependencies) into another new venv with another empty pip cache.
#
#   bash scripts/bench_quickstart.sh        # prints both times; the quick start's output goes to a log
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
PYTHON=${PYTHON:-python3}
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"

deps=$("$PYTHON" -c 'import sys, tomllib; print("\n".join(tomllib.load(open(sys.argv[1], "rb"))["project"]["dependencies"]))' "$repo/pyproject.toml")
"$PYTHON" -m venv "$work/reference"
started=$SECONDS
PIP_CACHE_DIR=$work/pip-reference "$work/reference/bin/pip" install -q --disable-pip-version-check torch==2.13.0
# shellcheck disable=SC2086
PIP_CACHE_DIR=$work/pip-reference "$work/reference/bin/pip" install -q --disable-pip-version-check $deps
reference=$((SECONDS - started))
rm -rf "$work/reference" "$work/pip-reference"

git clone -q "$repo" "$work/clone"
started=$SECONDS
if ! (cd "$work/clone" && PIP_CACHE_DIR=$work/pip-quickstart XDG_CACHE_HOME=$work/cache SCHEMA_SEARCH_QUICKSTART_SERVE=0 bash scripts/quickstart.sh) >"$work/quickstart.log" 2>&1; then
    cat "$work/quickstart.log"
    echo "the quick start failed" >&2
    exit 1
fi
quickstart=$((SECONDS - started))
grep -q "^Q: " "$work/quickstart.log" || { cat "$work/quickstart.log"; echo "no answer printed" >&2; exit 1; }

printf '%-62s %5d s\n' "first quick start (fresh clone, venv, caches; answers printed)" "$quickstart"
printf '%-62s %5d s\n' "reference: pip install of the core dependencies alone" "$reference"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
