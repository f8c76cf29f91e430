"""``schemasift mcp``: argument wiring over the MCP factory.

What it serves: the ``--catalog``/``--corpus`` flags when any is given, else every
catalog and corpus the config file names, else every one in the data directory; all of
them in one space, its configured key's (``SCHEMA_SEARCH_API_KEY``), else ``--space``'s.
"""

from __future__ import annotations

import argparse
import sys

from ..settings import Settings
from ..spaces.registry import space_settings
from ..workspace import Workspace
from .output import examples
from .spaces import served_space


def add_commands(commands: argparse._SubParsersAction) -> None:
    mcp = commands.add_parser(
        "mcp",
        help="serve catalogs and/or corpora to agents over MCP (stdio or streamable HTTP)",
        **examples(
            "schemasift mcp --config sample_schemas/schema-search.toml",
            "schemasift mcp --catalog crm --corpus handbook",
            "schemasift mcp --corpus fastapi --corpus peps --transport http --port 8001",
        ),
    )
    mcp.add_argument(
        "--catalog",
        action="append",
        default=[],
        metavar="NAME",
        help="catalog whose tables to serve (search_tables, get_table, validate_sql); repeat for several "
        "(default: those the config file names, else every catalog in the data directory)",
    )
    mcp.add_argument(
        "--corpus",
        action="append",
        default=[],
        metavar="NAME",
        help="corpus to serve (search_docs, get_document); repeat for several",
    )
    mcp.add_argument(
        "--cite",
        choices=("ids", "urls"),
        default="ids",
        help="show passages with short source IDs (default) or by raw URL only (to compare, as the eval suite's csr run does)",
    )
    mcp.add_argument("--transport", choices=("stdio", "http"), default="stdio", help="default: stdio")
    mcp.add_argument("--host", default=None, help="HTTP address (default: $SCHEMA_SEARCH_HOST, 127.0.0.1)")
    mcp.add_argument("--port", type=int, default=None, help="HTTP port (default: $SCHEMA_SEARCH_MCP_PORT, 8001)")
    mcp.set_defaults(run=_mcp, rooted=True, takes_space=True)  # its key decides the space, else --space (served_space)


def served(args: argparse.Namespace, settings: Settings, workspace: Workspace) -> tuple[list[str], list[str]]:
    """The catalogs and corpora to serve: the flags', else the config file's, else the data directory's."""
    catalogs = [args.catalog] if isinstance(args.catalog, str) else list(args.catalog or [])
    corpora = list(args.corpus or [])
    if catalogs or corpora:
        return catalogs, corpora
    if settings.sources:
        return list(settings.sources.catalogs), list(settings.sources.corpora)
    return workspace.catalogs.store.names(), workspace.corpora.store.names()


def mcp_server(args: argparse.Namespace, settings: Settings):
    """The server ``schemasift mcp`` runs (see :func:`_serving`)."""
    return _serving(args, settings)[0]


def _serving(args: argparse.Namespace, settings: Settings) -> tuple[object, list[str], list[str]]:
    """The server ``schemasift mcp`` runs, and the catalogs and corpora it serves, made after
    what crashed writers left is cleaned away.

    An MCP server only searches, so no writer of its own would ever sweep the
    half-built generations a killed ``index`` left; they go at its start instead.
    A name that does not exist is reported on stderr, and the server starts anyway:
    each answer about it says what is wrong (a client would only see "connection closed").
    """
    from ..mcp.server import create_server

    # One space's Workspace: the tools can name no catalog or corpus of another.
    settings = space_settings(settings, served_space(settings))
    workspace = Workspace(settings)
    workspace.catalogs.store.tidy()
    workspace.corpora.store.tidy()
    catalogs, corpora = served(args, settings, workspace)
    _warn_unknown(catalogs, workspace.catalogs.store.names(), "catalog")
    _warn_unknown(corpora, workspace.corpora.store.names(), "corpus")
    return create_server(workspace, catalogs, corpora, args.cite), catalogs, corpora


def _warn_unknown(names: list[str], known: list[str], noun: str) -> None:
    for name in names:
        if name not in known:
            print(
                f"warning: no {noun} named {name!r} (known: {', '.join(known) or 'none'}); its tools will say so",
                file=sys.stderr,
            )


def _mcp(args: argparse.Namespace, settings: Settings) -> int:
    from ..mcp.arguments import serve_stdio

    server, catalogs, corpora = _serving(args, settings)
    served_text = ", ".join([*(f"catalog {c!r}" for c in catalogs), *(f"corpus {c!r}" for c in corpora)]) or "nothing"
    # stdout belongs to the protocol on stdio: messages go to stderr.
    if args.transport == "stdio":
        print(f"MCP server for {served_text} on stdio", file=sys.stderr)
        serve_stdio(server)
        return 0
    host, port = args.host or settings.host, args.port or settings.mcp_port
    print(f"MCP server for {served_text} on http://{host}:{port}/mcp", file=sys.stderr)
    server.run("streamable-http", host=host, port=port)
    return 0
