"""The ``schema-search`` command: argument wiring, the error contract, and ``serve``.

Errors print one clear message to stderr and exit 2; ``--json`` prints exactly what
the HTTP API returns for the same call.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from ..errors import InvalidInput, SchemaSearchError
from ..settings import Settings
from . import agent, csr, describe, docs, eval, mcp, structured, tables


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    if not getattr(args, "run", None):  # a command group (``docs``) without its subcommand
        args.print_help()
        return 2
    try:
        settings = _settings(args.home)
        return args.run(args, settings)
    except SchemaSearchError as error:
        print(f"error: {error.detail}", file=sys.stderr)
        if error.hint:
            print(f"hint: {error.hint}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def _settings(home: str | None) -> Settings:
    """Settings from the environment; a malformed variable is a clear error, its value never printed."""
    from pydantic import ValidationError
    from pydantic_settings import SettingsError

    try:
        return Settings(**({"home": home} if home else {}))
    except (ValidationError, SettingsError) as error:
        problems = getattr(error, "errors", lambda: [])()
        where = "; ".join(f"SCHEMA_SEARCH_{'_'.join(str(p) for p in e['loc'][:1]).upper()}: {e['msg']}" for e in problems)
        raise InvalidInput(
            f"A setting is malformed: {where or type(error).__name__}.",
            hint="Fix the environment variable (see the Configuration table in the README).",
        ) from None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="schema-search",
        description="Find the few tables (with columns and join keys), or the passages of your documents, that answer a question.",
    )
    parser.add_argument("--home", help="data directory (default: $SCHEMA_SEARCH_HOME or the user data dir)")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    tables.add_commands(commands)
    docs.add_commands(commands)
    structured.add_commands(commands)

    serve = commands.add_parser("serve", help="run the HTTP API (catalogs and corpora)")
    serve.add_argument("--host", default=None)
    serve.add_argument("--port", type=int, default=None)
    serve.add_argument(
        "--workers", type=int, default=None, help="worker processes (default: SCHEMA_SEARCH_WORKERS, else one per core, at most 4)"
    )
    serve.set_defaults(run=_serve)

    describe.add_commands(commands)
    mcp.add_commands(commands)
    agent.add_commands(commands)
    csr.add_commands(commands)
    eval.add_commands(commands)
    return parser


def _serve(args: argparse.Namespace, settings: Settings) -> int:
    from ..http.serve import serve

    return serve(settings, args.host or settings.host, args.port or settings.port, args.workers)
