"""The MCP server: a factory whose tools are a few lines over the agent tools for tables and documents.

One server may serve a catalog, one or more corpora, or both. Every tool is
read-only (annotated so) and returns both a text rendering, with schema and
document text fenced as data, and structured content (some clients drop one of
the two). The citation ledger is kept per client session: the ``Mcp-Session-Id``
of a stateful HTTP session, else one ledger for the process (stdio serves exactly
one client). Stateless HTTP clients of one server cannot be told apart, so they
share that ledger. ``resolve_citations`` resolves table and passage IDs alike.

Arguments no tool can take are refused before any tool sees them (:mod:`.mcp_input`).
"""

from __future__ import annotations

from typing import Annotated, Any, Callable, Sequence

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field

from . import __version__
from .agent import collection_tools, doc_tools, table_tools
from .agent.citations import CitationReport, Ledger, Ledgers
from .agent.collection_tools import CollectionResult, CollectionTools, DescribeResult
from .agent.doc_tools import CiteBy, DocTools, GetDocumentResult, SearchDocsResult
from .agent.fence import visible
from .agent.sqlcheck import Validation
from .agent.table_tools import GetTableResult, SchemaTools, SearchTablesResult
from .errors import InvalidInput, SchemaSearchError
from .mcp_input import unreadable_arguments
from .structured.placeholders import Rendered
from .workspace import Workspace

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
_LOCAL_SESSION = "local"


class SchemaSearchServer(MCPServer):
    """The SDK's server, refusing arguments no tool can take before any tool sees them."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context | None = None) -> Any:
        why = unreadable_arguments(name, arguments)
        if why:
            raise ToolError(why)  # the SDK answers it as a tool error (isError), like the tools' own
        return await super().call_tool(name, arguments, context)


def create_server(
    workspace: Workspace, catalog: str | None = None, corpora: Sequence[str] = (), cite: CiteBy = "ids"
) -> MCPServer:
    """An MCP server over a catalog and/or corpora. Nothing runs until the caller runs it.

    ``cite="urls"`` shows passages by URL instead of short ID: what ``csr run --cite urls``
    compares against.

    Raises:
        InvalidInput: neither a catalog nor a corpus was given.
        CatalogNotFound, CorpusNotFound: one of them does not exist.
    """
    if catalog is None and not corpora:
        raise InvalidInput("Nothing to serve.", hint="Give --catalog NAME, --corpus NAME, or both.")
    tables = SchemaTools(workspace, catalog) if catalog else None
    docs = DocTools(workspace, list(corpora), cite) if corpora else None
    collections = CollectionTools(workspace, list(corpora), catalog)
    ledgers = Ledgers()
    server = SchemaSearchServer("schema-search", version=__version__, log_level="WARNING", instructions=_instructions(catalog, corpora, cite))

    def ledger(ctx: Context) -> Ledger:
        headers = ctx.headers or {}
        return ledgers(headers.get("mcp-session-id") or _LOCAL_SESSION)

    if tables is not None:
        _add_table_tools(server, tables, ledger)
    if docs is not None:
        _add_doc_tools(server, docs, ledger, cite)
    _add_collection_tools(server, collections, ledger)

    @server.tool(description=_RESOLVE, annotations=READ_ONLY)
    def resolve_citations(
        text: Annotated[str, Field(description="The answer, with [T3fa21c] / [S3fa21c]-style citations.")],
        ctx: Context,
    ) -> Annotated[CallToolResult, CitationReport]:
        return _answer(lambda: ledger(ctx).resolve(text), table_tools.citations_text)

    return server


_RESOLVE = (
    "Replace the [T3fa21c] / [S3fa21c]-style IDs in a finished answer with the tables and URLs they stand "
    "for, and its {{link:N}} placeholders with their values; list IDs and placeholders never returned to you "
    "and URLs no result carried. Call it on your final answer."
)


def _instructions(catalog: str | None, corpora: Sequence[str], cite: CiteBy) -> str:
    parts = []
    if catalog:
        parts.append(
            f"Schema retrieval over the catalog {catalog!r}: call search_tables with the question, get_table "
            "for a table's full DDL, validate_sql before you answer with SQL."
        )
    if corpora:
        parts.append(
            f"Document retrieval over {', '.join(map(repr, corpora))}: call search_docs with the question, "
            "get_document to read a passage's whole page."
        )
    parts.append(
        "For how many / which ones by a field or size / per category / most and fewest, call describe_collection "
        "then query_collection: it counts every document exactly, where a search sees only its top passages."
        + ("" if cite == "urls" else " Call resolve_citations on your final answer.")
    )
    if catalog:
        parts.append(table_tools.NOTICE)
    if corpora:
        parts.append(doc_tools.URL_NOTICE if cite == "urls" else doc_tools.NOTICE)
    parts.append(collection_tools.NOTICE)
    return " ".join(parts)


def _add_table_tools(server: MCPServer, tools: SchemaTools, ledger: Callable[[Context], Ledger]) -> None:
    @server.tool(description=table_tools.DESCRIPTIONS["search_tables"], annotations=READ_ONLY)
    def search_tables(
        question: Annotated[str, Field(description="The question, in plain language.")],
        ctx: Context,
        k: Annotated[int | None, Field(description="How many tables at most (default 10).", ge=1)] = None,
    ) -> Annotated[CallToolResult, SearchTablesResult]:
        return _answer(lambda: tools.search_tables(question, k, ledger(ctx)), table_tools.search_text)

    @server.tool(description=table_tools.DESCRIPTIONS["get_table"], annotations=READ_ONLY)
    def get_table(
        table_or_source_id: Annotated[str, Field(description="schema.table, a bare table name, or an ID like T3fa21c.")],
        ctx: Context,
    ) -> Annotated[CallToolResult, GetTableResult]:
        return _answer(lambda: tools.get_table(table_or_source_id, ledger(ctx)), table_tools.table_text)

    @server.tool(description=table_tools.DESCRIPTIONS["validate_sql"], annotations=READ_ONLY)
    def validate_sql(
        sql: Annotated[str, Field(description="The SQL to check.")],
        dialect: Annotated[
            str | None, Field(description="sqlglot dialect (postgres, sqlite, duckdb, ...); default: the catalog's.")
        ] = None,
    ) -> Annotated[CallToolResult, Validation]:
        return _answer(lambda: tools.validate_sql(sql, dialect), table_tools.validation_text)


def _add_doc_tools(server: MCPServer, tools: DocTools, ledger: Callable[[Context], Ledger], cite: CiteBy) -> None:
    described = doc_tools.descriptions(cite)
    source = "A source ID like S3fa21c, from search_docs." if cite == "ids" else "A passage's URL, from search_docs."

    @server.tool(description=described["search_docs"], annotations=READ_ONLY)
    def search_docs(
        question: Annotated[str, Field(description="The question, in plain language.")],
        ctx: Context,
        k: Annotated[int | None, Field(description="How many passages at most (default 10).", ge=1)] = None,
        corpus: Annotated[str | None, Field(description="Which corpus; default: every one served.")] = None,
    ) -> Annotated[CallToolResult, SearchDocsResult]:
        return _answer(lambda: tools.search_docs(question, k, ledger(ctx), corpus), doc_tools.search_docs_text)

    def get_document(
        id: str,
        ctx: Context,
        corpus: Annotated[str | None, Field(description="Which corpus; default: every one served.")] = None,
    ) -> Annotated[CallToolResult, GetDocumentResult]:
        return _answer(lambda: tools.get_document(id, ledger(ctx), corpus), doc_tools.document_text)

    # Set here, not in the signature: the parameter's description depends on the citation style.
    get_document.__annotations__["id"] = Annotated[str, Field(description=source)]
    server.tool(description=described["get_document"], annotations=READ_ONLY)(get_document)


def _add_collection_tools(server: MCPServer, tools: CollectionTools, ledger: Callable[[Context], Ledger]) -> None:
    @server.tool(description=collection_tools.DESCRIPTIONS["describe_collection"], annotations=READ_ONLY)
    def describe_collection(
        ctx: Context,
        collection: Annotated[str | None, Field(description="Which corpus or catalog; default: every one served.")] = None,
    ) -> Annotated[CallToolResult, DescribeResult]:
        return _answer(lambda: tools.describe_collection(ledger(ctx), collection), collection_tools.describe_text)

    @server.tool(description=collection_tools.DESCRIPTIONS["query_collection"], annotations=READ_ONLY)
    def query_collection(
        ctx: Context,
        sql: Annotated[str | None, Field(description="One read-only SELECT over the collection's tables.")] = None,
        query: Annotated[dict[str, Any] | None, Field(description="Instead of sql: the JSON query form.")] = None,
        collection: Annotated[str | None, Field(description="Which corpus or catalog; needed when several are served.")] = None,
    ) -> Annotated[CallToolResult, CollectionResult]:
        return _answer(lambda: tools.query_collection(ledger(ctx), sql, query, collection), collection_tools.query_text)

    @server.tool(description=collection_tools.DESCRIPTIONS["render_answer"], annotations=READ_ONLY)
    def render_answer(
        text: Annotated[str, Field(description="The answer, with {{link:N}}-style placeholders.")],
        ctx: Context,
    ) -> Annotated[CallToolResult, Rendered]:
        return _answer(lambda: tools.render_answer(text, ledger(ctx)), collection_tools.rendered_text)


def _answer(call: Callable[[], BaseModel], text: Callable[[Any], str]) -> CallToolResult:
    """The tool's result as readable text plus structured content; our errors as tool errors."""
    try:
        result = call()
    except SchemaSearchError as error:
        # A message may name tables or documents (an ambiguous name lists its matches): escaped like any name.
        raise ToolError(visible(str(error))) from None
    return CallToolResult(
        content=[TextContent(type="text", text=text(result))],
        structured_content=result.model_dump(mode="json"),
    )
