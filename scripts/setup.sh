#!/usr/bin/env bash
# Create .venv and install schema_search into it (idempotent; quick when nothing changed).
#
# torch is pinned and installed first: the pinned version is a CPU wheel on local disk,
# while an unpinned torch pulled in by sentence-transformers would be a multi-GB CUDA build.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
if [[ ! -x .venv/bin/python ]]; then
    echo "Creating .venv with $($PYTHON --version)..." >&2
    "$PYTHON" -m venv .venv
fi

# EXTRAS: the optional dependency groups to add (comma-separated): the quick start needs
# none; the tests need `test` and `local-llm` (the embedded LLM's runtime, which pip
# compiles once, ~6 min on 2 cores, and keeps in its cache).
extras=${EXTRAS-}
stamp=.venv/.installed
wanted=$( (cat pyproject.toml scripts/setup.sh; echo "$extras") | sha256sum | cut -c1-16)
if [[ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]]; then
    echo "Installing schema_search${extras:+ [$extras]} and its dependencies into .venv..." >&2
    .venv/bin/python -m pip install -q --disable-pip-version-check torch==2.13.0
    if [[ ",$extras," == *",local-llm,"* && ! -f .venv/.llama-portable ]]; then
        # The embedded model's runtime, built portable and past pip's wheel cache, which may
        # hold a build for another CPU (schema_search/llm/runtime.py says why); once per venv.
        echo "  (first time: compiling llama-cpp-python, ~6 min on 2 cores)" >&2
        .venv/bin/python -m pip uninstall -q -y llama-cpp-python 2>/dev/null || true
        .venv/bin/python schema_search/llm/runtime.py
        touch .venv/.llama-portable
    fi
    # The distribution was called schema-search before it took a name of its own on PyPI:
    # an old editable install would own the same import package and the old command.
    .venv/bin/python -m pip uninstall -q -y schema-search 2>/dev/null || true
    .venv/bin/python -m pip install -q --disable-pip-version-check -e ".${extras:+[$extras]}"
    echo "$wanted" >"$stamp"
fi
