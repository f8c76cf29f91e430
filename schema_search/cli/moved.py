"""Commands that moved to the eval suite: ``eval``, ``docs eval`` and ``csr`` forward there, with a note.

The eval suite measures the product and is not part of it: it is not installed with the
package and the package never imports it. It runs from a checkout of the repository
(``python -m eval.tables``, ``python -m eval.docs``, ``python -m eval.csr``). The old
spellings keep working where that checkout is: the command runs the suite as a program
of its own, with the same arguments, the global options given before the command passed
on as their environment variables, and says where it moved.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

# (words of the old command) -> (the eval suite's module, what it does)
MOVED: dict[tuple[str, ...], tuple[str, str]] = {
    ("eval",): ("eval.tables", "measure recall on a benchmark folder"),
    ("docs", "eval"): ("eval.docs", "measure page recall on question files over one corpus"),
    ("csr",): ("eval.csr", "citation survival: run agents through the MCP server, then score"),
}
# The environment variable each global option sets for the program it forwards to.
_GLOBAL_ENV = {"--home": "SCHEMA_SEARCH_HOME", "--config": "SCHEMA_SEARCH_CONFIG_FILE"}


def add_commands(commands: argparse._SubParsersAction, group: str | None = None) -> None:
    """List the moved commands (of ``group``, e.g. ``docs``) in the help; :func:`forward` runs them.

    Each is marked with its new module (``moved``): it takes no arguments of its own.
    """
    for words, (module, doing) in MOVED.items():
        if words[:-1] == ((group,) if group else ()):
            listed = commands.add_parser(words[-1], help=f"(moved: python -m {module}) {doing}", add_help=False)
            listed.set_defaults(moved=module)


def forward(argv: Sequence[str], global_options) -> int | None:
    """Run a moved command in the eval suite and return its exit code; ``None`` when ``argv``
    is not one (the command line is then the product's own).

    >>> forward(["search", "revenue", "--catalog", "shop"], [(("--home",), {}), (("--config",), {})]) is None
    True
    """
    flags = {flag for names, _ in global_options for flag in names}
    given: dict[str, str] = {}
    words = list(argv)
    while words and words[0].startswith("-"):  # the global options before the command
        flag, sep, value = words[0].partition("=")
        if flag not in flags:
            return None  # --version, --help, or a mistake: the product's parser answers
        if not sep:
            if len(words) < 2:
                return None
            value, words = words[1], words[1:]
        given[flag] = value
        words = words[1:]
    for old, (module, _) in MOVED.items():
        if tuple(words[: len(old)]) == old:
            return _run(" ".join(old), module, words[len(old) :], given)
    return None


def _run(old: str, module: str, rest: Sequence[str], given: dict[str, str]) -> int:
    checkout = Path(__file__).resolve().parents[2]
    where = checkout / module.replace(".", "/") / "__main__.py"
    if not where.is_file():
        print(
            f"error: `schemasift {old}` moved to the eval suite, which runs from a checkout of the repository "
            f"(python -m {module}) and is not installed with the package.",
            file=sys.stderr,
        )
        print("hint: clone the repository and run the command there.", file=sys.stderr)
        return 2
    print(
        f"note: `schemasift {old}` is now `python -m {module}` (the eval suite, in a checkout); "
        "this spelling forwards to it and will be removed in a later release.",
        file=sys.stderr,
    )
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, [str(checkout), environment.get("PYTHONPATH")]))
    environment.update({_GLOBAL_ENV[flag]: value for flag, value in given.items()})
    try:
        return subprocess.call([sys.executable, "-m", module, *rest], env=environment)
    except KeyboardInterrupt:
        return 130
