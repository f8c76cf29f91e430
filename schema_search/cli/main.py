"""The ``schemasift`` command: argument wiring, the error contract, and ``serve``.

Errors print one clear message to stderr and exit 1 (2 for a wrong call, as argparse
does); ``--json`` prints exactly what the HTTP API returns for the same call. stdout carries the result only; notes,
warnings and progress go to stderr. :func:`command_line` is that contract for any
parser: the eval suite's commands (``python -m eval.tables`` ...) run through it too.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from .. import __version__
from ..errors import InvalidInput, SchemaSearchError
from ..settings import Settings
from . import agent, describe, docs, encryption, mcp, moved, spaces, structured, tables
from . import examples as examples_cli
from . import review as review_cli
from .output import HelpFormatter, add_ray, examples, on_ray

# Exit codes: a command that could not do what was asked, and one given wrong arguments
# (argparse's own code), differ, so a script can tell "fix the call" from "it failed".
FAILED = 1
USAGE = 2
PIPE_CLOSED = 141
# Options every command takes, before or after its name: (flags, keywords for add_argument).
GLOBAL_OPTIONS = (
    (("--home",), {"metavar": "DIR", "help": "data directory (default: $SCHEMA_SEARCH_HOME, else the user data dir)"}),
    (
        ("--config",),
        {
            "dest": "config_file",
            "metavar": "FILE",
            "type": Path,
            "help": "TOML file of catalogs, corpora and settings (default: $SCHEMA_SEARCH_CONFIG_FILE or $SCHEMA_SEARCH_CONFIG, "
            "else ./schema-search.toml when it exists)",
        },
    ),
    (
        ("--space",),
        {
            "metavar": "NAME",
            "help": "space to act in (default: $SCHEMA_SEARCH_SPACE, else default); see `schemasift spaces`",
        },
    ),
)


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    forwarded = moved.forward(argv, GLOBAL_OPTIONS)  # `eval`, `docs eval`, `csr`: now the eval suite's
    if forwarded is not None:
        return forwarded
    return command_line(_parser(), argv)


def command_line(parser: argparse.ArgumentParser, argv: Sequence[str] | None = None) -> int:
    """Run ``parser``'s command over ``argv``: the global options on every subcommand, the
    settings made once, and every error a message on stderr with exit code ``FAILED``."""
    args = prepared(parser).parse_args(argv)  # a usage error exits USAGE here, as argparse does
    if not getattr(args, "run", None):  # no command, or a command group (``docs``) without its subcommand
        getattr(args, "print_help", parser.print_help)(sys.stderr)
        return USAGE
    try:
        settings = _settings(
            getattr(args, "home", None), getattr(args, "config_file", None), getattr(args, "space", None)
        )
        if not getattr(args, "rooted", False):  # spaces, keys, encryption, serve and mcp take the whole data directory
            settings = spaces.in_space(settings)
        elif getattr(args, "space", None) and not getattr(args, "takes_space", False):
            raise InvalidInput(
                "--space does not apply to this command: it acts on every space (the server: each request's key decides).",
                hint="Leave --space out; `keys create` takes its space as `keys create --space NAME` after the subcommand.",
            )
        return args.run(args, settings)
    except SchemaSearchError as error:
        print(f"error: {error.detail}", file=sys.stderr)
        if error.hint:
            print(f"hint: {error.hint}", file=sys.stderr)
        return FAILED
    except BrokenPipeError:
        # The reader went away (`| head -1`): what it read was what it wanted. stdout is pointed
        # at /dev/null so the interpreter's last flush cannot raise again; 141 as for SIGPIPE.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return PIPE_CLOSED
    except KeyboardInterrupt as stop:
        # A build cut short says what it kept and how to go on (core.checkpoint.Interrupted);
        # a plain Ctrl-C still says why the command ended. A bar may hold the terminal's line.
        fresh = "\n" if sys.stderr.isatty() else ""
        print(f"{fresh}interrupted: {stop}" if str(stop) else f"{fresh}interrupted", file=sys.stderr)
        return 130


def _settings(home: str | None, config_file: Path | None = None, space: str | None = None) -> Settings:
    """Settings from the environment; a malformed variable is a clear error, its value never printed."""
    from pydantic import ValidationError
    from pydantic_settings import SettingsError

    # Only what was given: a field left out keeps its environment value and default.
    given = {key: value for key, value in (("home", home), ("config_file", config_file), ("space", space)) if value}
    try:
        return Settings(**given)
    except (ValidationError, SettingsError) as error:
        problems = getattr(error, "errors", lambda: [])()
        where = "; ".join(
            f"SCHEMA_SEARCH_{'_'.join(str(p) for p in e['loc'][:1]).upper()}: {e['msg']}" for e in problems
        )
        raise InvalidInput(
            f"A setting is malformed: {where or type(error).__name__}.",
            hint="Fix the environment variable (see the Configuration table in the README).",
        ) from None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="schemasift",
        description="Find the few tables (with columns and join keys), or the passages of your documents, that answer a question.",
        **examples(
            "schemasift index sample_schemas/shop.sql --catalog shop",
            'schemasift search "which customers ordered last month?" --catalog shop',
            "schemasift table orders --catalog shop --home /tmp/ss",
        ),
    )
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {__version__}", help="print the version and exit"
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", help="one of:")
    tables.add_commands(commands)
    examples_cli.add_commands(commands)
    docs.add_commands(commands)
    structured.add_commands(commands)

    serve = commands.add_parser(
        "serve",
        help="run the HTTP API (catalogs and corpora)",
        **examples("schemasift serve", "schemasift serve --host 0.0.0.0 --port 8000 --workers 2"),
    )
    serve.add_argument("--host", default=None, help="address to listen on (default: $SCHEMA_SEARCH_HOST, 127.0.0.1)")
    serve.add_argument("--port", type=int, default=None, help="port to listen on (default: $SCHEMA_SEARCH_PORT, 8000)")
    serve.add_argument(
        "--workers",
        type=int,
        default=None,
        help="worker processes (default: SCHEMA_SEARCH_WORKERS, else one per core, at most 4)",
    )
    add_ray(serve, "serve sharded corpora")
    serve.set_defaults(run=_serve, rooted=True)  # the server's keys decide each request's space

    describe.add_commands(commands)
    mcp.add_commands(commands)
    spaces.add_commands(commands)
    encryption.add_commands(commands)
    agent.add_commands(commands)
    review_cli.add_commands(commands)
    moved.add_commands(commands)
    return prepared(parser)


def prepared(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """``parser`` with the global options on it and on every command below it, and help that keeps examples."""
    for command in [parser, *_subcommands(parser)]:
        command.formatter_class = HelpFormatter  # examples keep their lines, prose still wraps
        _add_global_options(command, suppress=command is not parser)
    return parser


def _add_global_options(parser: argparse.ArgumentParser, suppress: bool) -> None:
    """Give ``parser`` the global options; on a subcommand their default is SUPPRESS.

    argparse copies a subparser's defaults over the namespace, so a plain default there
    would overwrite ``--home`` given before the command; SUPPRESS leaves it alone. An
    option a command already has for itself (``eval --config NAME``) keeps its meaning
    there; the global one is then given before the command.
    """
    taken = set(parser._option_string_actions)
    for flags, options in GLOBAL_OPTIONS:
        if taken.intersection(flags):
            continue
        parser.add_argument(*flags, **options, **({"default": argparse.SUPPRESS} if suppress else {}))


def _subcommands(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """Every parser below ``parser`` (``docs``, ``docs index``, ...), whoever built it."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command in dict.fromkeys(action.choices.values()):  # aliases map to the same parser
                found += [command, *_subcommands(command)]
    return found


def _serve(args: argparse.Namespace, settings: Settings) -> int:
    from ..http.serve import serve

    settings = on_ray(args, settings, join=False)
    if args.ray:  # workers are fresh processes that read their settings from the environment
        os.environ["SCHEMA_SEARCH_RAY_ADDRESS"] = args.ray
    return serve(settings, args.host or settings.host, args.port or settings.port, args.workers)
