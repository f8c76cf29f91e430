"""The MCP server: a factory whose tools are a few lines over the agent tools for tables and documents.

One server may serve several catalogs and several corpora (:mod:`schema_search.tools.served`); each
table tool takes the ``catalog`` it means, each document tool the ``corpus``, and may
leave it out when only one is served. ``list_sources`` says what is served, and each
catalog's table list is a resource (``schema-search://catalogs/NAME/tables``). Nothing
is opened when the server is made, so ``initialize`` answers at once: an unknown name
is an error in each answer about it, not a server that exits before the handshake, and
the embedding model loads at the first search.

Every tool is read-only (annotated so) and returns both a text rendering, with schema
and document text fenced as data, and structured content (some clients drop one of the
two). The citation ledger is kept per client session: the ``Mcp-Session-Id`` of a
stateful HTTP session, else one ledger for the process (stdio serves exactly one
client). What any session was given is kept server-wide too, so an ID issued to another
session (a reconnected client, a stateless one) resolves and is reported apart.
``resolve_citations`` resolves table and passage IDs alike.

Arguments no tool can take are refused before any tool sees them, and arguments of the
wrong type or range are answered in words, not a validator's dump (:mod:`.arguments`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.resources import FunctionResource
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field, ValidationError

from .. import __version__
from ..core.followup import MAX_HISTORY_MESSAGES
from ..errors import SchemaSearchError
from ..preflight.gate import ExecuteResult
from ..preflight.gate import description as execute_description
from ..preflight.gate import tags as execute_tags
from ..sql.validate import Validation
from ..structured.placeholders import Rendered
from ..tool_tags import with_required
from ..tools import collections as collection_tools
from ..tools import docs as doc_tools
from ..tools import served
from ..tools import tables as table_tools
from ..tools.citations import CitationReport, Ledger, Ledgers
from ..tools.collections import CollectionResult, CollectionTools, DescribeResult
from ..tools.docs import CiteBy, DocTools, GetDocumentResult, SearchDocsResult
from ..tools.execute import execute_text
from ..tools.fence import visible
from ..tools.served import Served, SourcesResult
from ..tools.tables import GetTableResult, SearchTablesResult
from ..workspace import Workspace
from .arguments import argument_error, unreadable_arguments

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
_LOCAL_SESSION = "local"


class SchemaSearchServer(MCPServer):
    """The SDK's server, refusing arguments no tool can take before any tool sees them, and
    saying in words what is wrong with an argument the input schema refuses."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context | None = None) -> Any:
        why = unreadable_arguments(name, arguments)
        if why:
            raise ToolError(why)  # the SDK answers it as a tool error (isError), like the tools' own
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as error:
            tool = self._tool_manager.get_tool(name)
            if tool is None or not isinstance(error.__cause__, ValidationError):
                raise
            raise ToolError(argument_error(name, error.__cause__, tool.parameters)) from None


def create_server(
    workspace: Workspace,
    catalogs: str | Sequence[str] | None = (),
    corpora: Sequence[str] = (),
    cite: CiteBy = "ids",
) -> MCPServer:
    """An MCP server over catalogs and/or corpora. Nothing runs, and nothing is opened, until the caller runs it.

    ``catalogs``: one name or several. An unknown name does not raise: the server starts and
    every answer about it (list_sources included) is an error saying so, with the fix.
    ``cite="urls"`` shows passages by URL instead of short ID: what ``python -m eval.csr run --cite urls``
    compares against.
    """
    catalogs = [catalogs] if isinstance(catalogs, str) else list(catalogs or ())
    corpora = list(corpora)
    sources = Served(workspace, catalogs, corpora, cite)
    ledgers = Ledgers()
    server = SchemaSearchServer(
        "schemasift",
        version=__version__,
        log_level="WARNING",
        instructions=_instructions(sources, cite, workspace.settings.execute_max_rows),
    )

    def ledger(ctx: Context) -> Ledger:
        headers = ctx.headers or {}
        return ledgers(headers.get("mcp-session-id") or _LOCAL_SESSION)

    @server.tool(description=_LIST_SOURCES, annotations=READ_ONLY)
    def list_sources() -> Annotated[CallToolResult, SourcesResult]:
        return _answer(sources.list_sources, served.sources_text)

    if sources.tables:
        _add_table_tools(server, sources, ledger, workspace.settings.max_k)
    if sources.executes():
        _add_execute_tool(server, sources, ledger, workspace.settings.execute_max_rows)
    if sources.docs is not None:
        _add_doc_tools(server, sources.docs, ledger, cite, workspace.settings.max_k)
    if sources.collections is not None:
        _add_collection_tools(server, sources.collections, ledger)

    @server.tool(description=_RESOLVE, annotations=READ_ONLY)
    def resolve_citations(
        text: Annotated[str, Field(description="The answer, with [T3fa21c] / [S3fa21c]-style citations.")],
        ctx: Context,
    ) -> Annotated[CallToolResult, CitationReport]:
        return _answer(lambda: ledger(ctx).resolve(text), table_tools.citations_text)

    for name in sources.tables:
        server.add_resource(
            FunctionResource(
                uri=served.tables_uri(name),
                name=f"{name}-tables",
                title=f"Tables of catalog {name}",
                description=f"Every table and view of catalog {name!r}, with its ID (for get_table).",
                mime_type="text/plain",
                fn=lambda name=name: sources.table_list(name),
            )
        )
    _declare_only_what_is_offered(server, resources=bool(sources.tables))
    return server


def _declare_only_what_is_offered(server: MCPServer, resources: bool) -> None:
    """Drop the SDK's handlers for what this server does not offer, so ``initialize`` does not declare it.

    The SDK registers list handlers for prompts and resources whatever a server holds, and
    derives its capabilities from them: a client would be told of prompts that do not exist.
    """
    handlers = server._lowlevel_server._request_handlers  # the SDK has no public way to unregister
    unused = ["prompts/list", "prompts/get"]
    if not resources:
        unused += ["resources/list", "resources/templates/list", "resources/read"]
    for method in unused:
        handlers.pop(method, None)


_LIST_SOURCES = (
    "What this server serves: each catalog (tables, views, SQL dialect, whether queries can run on its database, "
    "the operator's instructions) and each corpus (documents, passages), with the tools to call for each and "
    "why one cannot be searched, if so. Call it first when you do not know which catalog or corpus to use."
)

_RESOLVE = (
    "Replace the [T3fa21c] / [S3fa21c]-style IDs in a finished answer with the tables and URLs they stand "
    "for, and its {{link:N}} placeholders with their values; list IDs and placeholders never returned to you "
    "and URLs no result carried. Call it on your final answer."
)


def _instructions(sources: Served, cite: CiteBy, max_rows: int) -> str:
    catalogs, corpora = list(sources.tables), sources.corpora
    parts = []
    if len(catalogs) > 1 or (catalogs and corpora) or len(corpora) > 1:
        parts.append("Call list_sources to see what each catalog and corpus holds.")
    if catalogs:
        which = (
            f"the catalog {catalogs[0]!r}"
            if len(catalogs) == 1
            else f"the catalogs {', '.join(map(repr, catalogs))} (pass catalog=NAME)"
        )
        parts.append(
            f"Schema retrieval over {which}: call search_tables with the question, get_table "
            "for a table's full DDL, validate_sql before you answer with SQL."
        )
    if corpora:
        parts.append(
            f"Document retrieval over {', '.join(map(repr, corpora))}: call search_docs with the question, "
            "get_document to read a passage's whole page."
        )
    if catalogs or corpora:
        parts.append(
            "For how many / which ones by a field or size / per category / most and fewest, call describe_collection "
            "then query_collection: it counts every document exactly, where a search sees only its top passages."
            + ("" if cite == "urls" else " Call resolve_citations on your final answer.")
        )
    else:
        parts.append("Nothing is served: list_sources says why.")
    if catalogs:
        parts.append(table_tools.NOTICE)
    if corpora:
        parts.append(doc_tools.URL_NOTICE if cite == "urls" else doc_tools.NOTICE)
    if catalogs or corpora:
        parts.append(collection_tools.NOTICE)
    if catalogs and sources.executes():
        # The [notice] tags of execute_sql's description: every client is told, whatever its model reads.
        parts += [
            "execute_sql runs read-only queries only after a checklist the user approved.",
            *execute_tags(max_rows).notice,
        ]
    return " ".join(parts)


def _k(noun: str, max_k: int) -> Any:
    return Annotated[
        int | None, Field(description=f"How many {noun} at most, 1 to {max_k} (default 10).", ge=1, le=max_k)
    ]


def _catalog_argument(sources: Served) -> Any:
    names = ", ".join(map(repr, sources.tables))
    only = f"default: {names}, the only one served" if len(sources.tables) == 1 else f"one of {names}; required"
    return Annotated[str | None, Field(description=f"Which catalog ({only}).")]


def _add_table_tools(server: MCPServer, sources: Served, ledger: Callable[[Context], Ledger], max_k: int) -> None:
    # Annotations set after the signature: the catalog names and k's bound are this server's.
    Catalog, K = _catalog_argument(sources), _k("tables", max_k)

    def search_tables(
        question: Annotated[str, Field(description="The question, in plain language.")],
        ctx: Context,
        k: int | None = None,
        catalog: str | None = None,
        history: History = None,
    ) -> Annotated[CallToolResult, SearchTablesResult]:
        return _answer(
            lambda: sources.search_tables(question, k, ledger(ctx), catalog, history), table_tools.search_text
        )

    def get_table(
        table_or_source_id: Annotated[
            str, Field(description="schema.table, a bare table name, or an ID like T3fa21c.")
        ],
        ctx: Context,
        catalog: str | None = None,
    ) -> Annotated[CallToolResult, GetTableResult]:
        return _answer(lambda: sources.get_table(table_or_source_id, ledger(ctx), catalog), table_tools.table_text)

    def validate_sql(
        sql: Annotated[str, Field(description="The SQL to check.")],
        dialect: Annotated[
            str | None, Field(description="sqlglot dialect (postgres, sqlite, duckdb, ...); default: the catalog's.")
        ] = None,
        catalog: str | None = None,
    ) -> Annotated[CallToolResult, Validation]:
        return _answer(lambda: sources.validate_sql(sql, dialect, catalog), table_tools.validation_text)

    search_tables.__annotations__["k"] = K
    for tool in (search_tables, get_table, validate_sql):
        tool.__annotations__["catalog"] = Catalog
        server.tool(description=table_tools.DESCRIPTIONS[tool.__name__], annotations=READ_ONLY)(tool)


def _add_execute_tool(server: MCPServer, sources: Served, ledger: Callable[[Context], Ledger], max_rows: int) -> None:
    described = execute_description(max_rows)

    def execute_sql(
        sql: Annotated[str, Field(description="One read-only query, as validate_sql accepts it.")],
        question: Annotated[str, Field(description="The user's question, in their words.")],
        ctx: Context,
        approval: Annotated[
            str | None,
            Field(
                description="The verdict id of a ready checklist the user agreed to; leave out to get the checklist."
            ),
        ] = None,
        answers: Annotated[
            dict[str, str] | None,
            Field(description="The user's answers to the checklist's questions: slot key -> value."),
        ] = None,
        catalog: str | None = None,
    ) -> Annotated[CallToolResult, ExecuteResult]:
        return _answer(
            lambda: sources.execute_sql(sql, question, approval, answers, ledger(ctx), catalog), execute_text
        )

    execute_sql.__annotations__["catalog"] = _catalog_argument(sources)
    # Read-only, but not idempotent: each call records a verdict, and an approved one runs the query.
    annotations = ToolAnnotations(
        read_only_hint=True, destructive_hint=False, idempotent_hint=False, open_world_hint=False
    )
    server.tool(description=described, annotations=annotations)(execute_sql)
    # The [required] tags made binding in the input schema itself, not left to the model to read.
    registered = server._tool_manager.get_tool("execute_sql")
    registered.parameters = with_required(registered.parameters, execute_tags(max_rows))


# The conversation's earlier user messages: a follow-up ("how do I test it?") is written out with them.
History = Annotated[
    list[str] | None,
    Field(
        description="The user's earlier messages in this conversation, oldest first; send them when the "
        'question is a follow-up ("and for cookies?", "how do I test it?"). Nothing is stored.',
        max_length=MAX_HISTORY_MESSAGES,
    ),
]


def _add_doc_tools(
    server: MCPServer, tools: DocTools, ledger: Callable[[Context], Ledger], cite: CiteBy, max_k: int
) -> None:
    described = doc_tools.descriptions(cite)
    source = "A source ID like S3fa21c, from search_docs." if cite == "ids" else "A passage's URL, from search_docs."

    def search_docs(
        question: Annotated[str, Field(description="The question, in plain language.")],
        ctx: Context,
        k: int | None = None,
        corpus: Annotated[str | None, Field(description="Which corpus; default: every one served.")] = None,
        history: History = None,
        turn: Annotated[
            str | None,
            Field(
                description="This conversation turn's label (e.g. its number): searching the same question again "
                "in the same turn returns the next batch of results, once."
            ),
        ] = None,
    ) -> Annotated[CallToolResult, SearchDocsResult]:
        session = (ctx.headers or {}).get("mcp-session-id") or _LOCAL_SESSION  # as the ledger is kept
        return _answer(
            lambda: tools.search_docs(question, k, ledger(ctx), corpus, history, session, turn),
            doc_tools.search_docs_text,
        )

    search_docs.__annotations__["k"] = _k("passages", max_k)  # this server's bound
    server.tool(description=described["search_docs"], annotations=READ_ONLY)(search_docs)

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
        collection: Annotated[
            str | None, Field(description="Which corpus or catalog; default: every one served.")
        ] = None,
    ) -> Annotated[CallToolResult, DescribeResult]:
        return _answer(lambda: tools.describe_collection(ledger(ctx), collection), collection_tools.describe_text)

    @server.tool(description=collection_tools.DESCRIPTIONS["query_collection"], annotations=READ_ONLY)
    def query_collection(
        ctx: Context,
        sql: Annotated[str | None, Field(description="One read-only SELECT over the collection's tables.")] = None,
        query: Annotated[dict[str, Any] | None, Field(description="Instead of sql: the JSON query form.")] = None,
        collection: Annotated[
            str | None, Field(description="Which corpus or catalog; needed when several are served.")
        ] = None,
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
