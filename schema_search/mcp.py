"""The MCP server: a factory whose tools are a few lines over :class:`~schema_search.tools.SchemaTools`.

Every tool is read-only (annotated so) and returns both a text rendering, with schema
text fenced as data, and structured content. The citation ledger is kept per client
session: the ``Mcp-Session-Id`` of a stateful HTTP session, else one ledger for the
process (stdio serves exactly one client). Stateless HTTP clients of one server
cannot be told apart, so they share that ledger.
"""

from __future__ import annotations

from typing import Annotated, Any, Callable

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field

from . import __version__
from .citations import CitationReport, Ledger, Ledgers
from .errors import SchemaSearchError
from .sqlcheck import Validation
from .tools import (
    DESCRIPTIONS,
    NOTICE,
    GetTableResult,
    SchemaTools,
    SearchTablesResult,
    citations_text,
    search_text,
    table_text,
    validation_text,
)
from .workspace import Workspace

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
_LOCAL_SESSION = "local"


def create_server(workspace: Workspace, catalog: str) -> MCPServer:
    """An MCP server over one catalog. Nothing runs until the caller runs it.

    Raises:
        CatalogNotFound: there is no such catalog.
    """
    tools = SchemaTools(workspace, catalog)
    ledgers = Ledgers()
    server = MCPServer(
        "schema-search",
        version=__version__,
        log_level="WARNING",
        instructions=(
            f"Schema retrieval over the catalog {catalog!r}. Call search_tables with the question, "
            "get_table for a table's full DDL, validate_sql before you answer with SQL, and "
            "resolve_citations on your final answer. " + NOTICE
        ),
    )

    def ledger(ctx: Context) -> Ledger:
        headers = ctx.headers or {}
        return ledgers(headers.get("mcp-session-id") or _LOCAL_SESSION)

    @server.tool(description=DESCRIPTIONS["search_tables"], annotations=READ_ONLY)
    def search_tables(
        question: Annotated[str, Field(description="The question, in plain language.")],
        ctx: Context,
        k: Annotated[int | None, Field(description="How many tables at most (default 10).", ge=1)] = None,
    ) -> Annotated[CallToolResult, SearchTablesResult]:
        return _answer(lambda: tools.search_tables(question, k, ledger(ctx)), search_text)

    @server.tool(description=DESCRIPTIONS["get_table"], annotations=READ_ONLY)
    def get_table(
        table_or_source_id: Annotated[str, Field(description="schema.table, a bare table name, or an ID like T3fa21c.")],
        ctx: Context,
    ) -> Annotated[CallToolResult, GetTableResult]:
        return _answer(lambda: tools.get_table(table_or_source_id, ledger(ctx)), table_text)

    @server.tool(description=DESCRIPTIONS["validate_sql"], annotations=READ_ONLY)
    def validate_sql(
        sql: Annotated[str, Field(description="The SQL to check.")],
        dialect: Annotated[
            str | None, Field(description="sqlglot dialect (postgres, sqlite, duckdb, ...); default: the catalog's.")
        ] = None,
    ) -> Annotated[CallToolResult, Validation]:
        return _answer(lambda: tools.validate_sql(sql, dialect), validation_text)

    @server.tool(description=DESCRIPTIONS["resolve_citations"], annotations=READ_ONLY)
    def resolve_citations(
        text: Annotated[str, Field(description="The answer, with [T3fa21c]-style citations.")],
        ctx: Context,
    ) -> Annotated[CallToolResult, CitationReport]:
        return _answer(lambda: tools.resolve_citations(text, ledger(ctx)), citations_text)

    return server


def _answer(call: Callable[[], BaseModel], text: Callable[[Any], str]) -> CallToolResult:
    """The tool's result as readable text plus structured content; our errors as tool errors."""
    try:
        result = call()
    except SchemaSearchError as error:
        raise ToolError(str(error)) from None
    return CallToolResult(
        content=[TextContent(type="text", text=text(result))],
        structured_content=result.model_dump(mode="json"),
    )
