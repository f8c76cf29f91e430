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

stamp=.venv/.installed
wanted=$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -c1-16)
if [[ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]]; then
    echo "Installing schema_search and its dependencies into .venv..." >&2
    if ! .venv/bin/python -c "import llama_cpp" 2>/dev/null; then
        # The embedded description model's runtime has no wheel on PyPI: pip compiles it
        # once (~6 min on 2 cores) and reuses the built wheel from its cache afterwards.
        echo "  (first time: compiling llama-cpp-python, ~6 min on 2 cores)" >&2
    fi
    .venv/bin/python -m pip install -q --disable-pip-version-check torch==2.13.0
    .venv/bin/python -m pip install -q --disable-pip-version-check -e ".[test]"
    echo "$wanted" >"$stamp"
fi
