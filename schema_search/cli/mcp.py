"""``schema-search mcp``: argument wiring over the MCP factory."""

from __future__ import annotations

import argparse
import sys

from ..settings import Settings
from ..workspace import Workspace


def add_commands(commands: argparse._SubParsersAction) -> None:
    mcp = commands.add_parser(
        "mcp", help="serve a catalog and/or corpora to agents over MCP (stdio or streamable HTTP)"
    )
    mcp.add_argument("--catalog", help="catalog whose tables to serve (search_tables, get_table, validate_sql)")
    mcp.add_argument(
        "--corpus", action="append", default=[], metavar="NAME",
        help="corpus to serve (search_docs, get_document); repeat for several",
    )
    mcp.add_argument(
        "--cite", choices=("ids", "urls"), default="ids",
        help="show passages with short source IDs (default) or by raw URL only (to compare, as csr run does)",
    )
    mcp.add_argument("--transport", choices=("stdio", "http"), default="stdio", help="default: stdio")
    mcp.add_argument("--host", default=None, help="HTTP address (default: $SCHEMA_SEARCH_HOST, 127.0.0.1)")
    mcp.add_argument("--port", type=int, default=None, help="HTTP port (default: $SCHEMA_SEARCH_MCP_PORT, 8001)")
    mcp.set_defaults(run=_mcp)


def mcp_server(args: argparse.Namespace, settings: Settings):
    """The server ``schema-search mcp`` runs, made after what crashed writers left is cleaned away.

    An MCP server only searches, so no writer of its own would ever sweep the
    half-built generations a killed ``index`` left; they go at its start instead.
    """
    from ..mcp import create_server

    workspace = Workspace(settings)
    workspace.store.tidy()
    workspace.corpus_store.tidy()
    return create_server(workspace, args.catalog, args.corpus, args.cite)


def _mcp(args: argparse.Namespace, settings: Settings) -> int:
    from ..mcp_input import serve_stdio

    server = mcp_server(args, settings)
    served = ", ".join([*([f"catalog {args.catalog!r}"] if args.catalog else []), *(f"corpus {c!r}" for c in args.corpus)])
    # stdout belongs to the protocol on stdio: messages go to stderr.
    if args.transport == "stdio":
        print(f"MCP server for {served} on stdio", file=sys.stderr)
        serve_stdio(server)
        return 0
    host, port = args.host or settings.host, args.port or settings.mcp_port
    print(f"MCP server for {served} on http://{host}:{port}/mcp", file=sys.stderr)
    server.run("streamable-http", host=host, port=port)
    return 0
