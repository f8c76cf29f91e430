"""llama-cpp-python, the embedded model's runtime, installed the first time a local model is called.

It has no wheel on PyPI: pip compiles it (~6 min on 2 cores). Indexing and searching
never need it, so it is not installed with the package (the quick start would wait for
a compiler for a model it never calls); ``describe``, ``ask`` and ``csr run`` with a
``local/`` model install it into the running environment, saying so, and pip keeps
the built wheel in its cache for the next environment.
"""

from __future__ import annotations

import importlib
import shlex
import subprocess
import sys
from importlib import metadata
from typing import Callable, Sequence

PACKAGE = "llama-cpp-python"
EXTRA = "local-llm"
FALLBACK_REQUIREMENT = "llama-cpp-python>=0.3"


class RuntimeMissing(RuntimeError):
    """The runtime is not installed and could not be installed here."""


def requirement() -> str:
    """The requirement the package's ``local-llm`` extra declares (one place says the version).

    >>> requirement().startswith("llama-cpp-python")
    True
    """
    try:
        for line in metadata.requires("schema-search") or ():
            name, _, marker = line.partition(";")
            if name.strip().startswith(PACKAGE) and EXTRA in marker:
                return name.strip().replace(" ", "")
    except metadata.PackageNotFoundError:
        pass
    return FALLBACK_REQUIREMENT


def installed() -> bool:
    try:
        importlib.import_module("llama_cpp")
        return True
    except ImportError:
        return False


def ensure(
    say: Callable[[str], None] = lambda line: print(line, file=sys.stderr, flush=True),
    run: Callable[[Sequence[str]], int] = lambda command: subprocess.call(list(command)),
) -> None:
    """Import llama_cpp, installing it first into this environment when it is missing.

    Args:
        say: where the progress lines go (stderr).
        run: runs the pip command and returns its exit code (tests pass a fake).

    Raises:
        RuntimeMissing: not in a virtual environment (we never pip-install into a
            system Python), or pip failed; the message gives the command to run.
    """
    if installed():
        return
    command = [sys.executable, "-m", "pip", "install", "--disable-pip-version-check", requirement()]
    shown = shlex.join([sys.executable, "-m", "pip", "install", requirement()])  # quoted: ">=" is a shell redirect
    if sys.prefix == sys.base_prefix:
        raise RuntimeMissing(
            f"The embedded model needs {PACKAGE}, which is not installed, and this Python is not a virtual "
            f"environment, so it is not installed for you. Install it with: {shown}"
        )
    say(
        f"The embedded model's runtime ({PACKAGE}) is not installed yet: installing it into {sys.prefix}. "
        "pip compiles it once (~6 min on 2 cores) and keeps the built wheel in its cache."
    )
    if run(command) != 0:
        raise RuntimeMissing(
            f"Installing {PACKAGE} failed (see pip's output above). It needs a C++ compiler and cmake; "
            f"retry with: {shown}"
        )
    importlib.invalidate_caches()
    if not installed():
        raise RuntimeMissing(f"{PACKAGE} was installed but cannot be imported; retry with: {shown}")
    say(f"{PACKAGE} installed.")
