"""Prompt injection: payloads planted where an attacker writes stay fenced as data in what agents read.

    python -m eval.reliability.injection

Every payload of ``injection_payloads.json`` is planted where its ``places`` say: in
table and column names and comments of real DDL (read by ``connectors.ddl``), in
generated descriptions (applied as ``describe`` applies them), and in the text, title,
headings, header values and URL of real documents (a corpus indexed from a folder).
Then every MCP tool is called through the SDK's own client, the way an agent calls
it, and each text it returns is parsed for the fences exactly as ``schema_search.tools.fence``
writes them: an opening line ``<schema-data origin="...">``, a closing line
``</schema-data>``, never nested, every opener closed.

Each payload carries its id as a canary, which no escaping changes. Wherever a
tool's text shows a canary it must lie inside a fence (the opening tag's escaped
attributes count as inside). Two places outside a fence are allowed, and counted:

* a table's name beside its citable ID, when the name is a plain identifier (ASCII
  letters, digits, ``_``, ``$``): such a name can spell no tag, line or sentence;
* the answers to ``validate_sql``, ``resolve_citations`` and ``render_answer``, and
  the ``[URL]`` citation of ``cite="urls"``, where a name or URL has to stand in a
  sentence: escaped onto one line, with nothing hidden.

Anywhere in any text, fenced or not, nothing may remain that a model could read as a
tag (``schema_search.tools.fence.tag_spans``: a fence opened or closed in any case, spacing or
look-alike spelling, a chat role or tool-call marker) besides the real fence lines
and the notices' own mentions of them. Outside the fences no text may form markdown
that links anywhere but to the corpus's own URLs (:func:`links`: a link or image
``[text](url)``, a reference definition ``[label]: url``, an autolink ``<url>``, or the
bare ``https://`` and ``www.`` a GFM renderer links): a name like
``![img](http://evil.example/p.png)`` must not become an image a chat client fetches.
A link that ``render_answer`` puts back for a ``{{link:N}}`` placeholder, alone as a URL,
is counted apart: the model asked for that link.
In the structured content of the data tools, ``validate_sql``, ``resolve_citations``
and ``render_answer``, every field that carries a canary must be described as data
("not instructions") by the tool's output schema, on the field itself or on one that
holds it.

The dense channel is off: this is about what the tools print, not about ranking, and
it runs in seconds.
"""

from __future__ import annotations

import json
import re
import tempfile
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import yaml
from mcp import Client

from schema_search.describe.descriptions import apply_descriptions
from schema_search.mcp.server import create_server
from schema_search.settings import Settings
from schema_search.tables.catalog import Catalog, Description
from schema_search.tools import collections as collection_tools
from schema_search.tools import docs as doc_tools
from schema_search.tools import tables as table_tools
from schema_search.tools.citations import link, page
from schema_search.tools.fence import FENCE_TAGS, inline, tag_spans
from schema_search.workspace import Workspace

from .report import Part, table

PAYLOADS = Path(__file__).with_name("injection_payloads.json")
CATALOG, CORPUS, SCHEMA = "inj", "injdocs", "inj"
TABLE_PLACES = {"table_name", "column_name", "table_comment", "column_comment", "description"}
DOCUMENT_PLACES = {"document_text", "document_title", "document_heading", "header_value", "document_url"}
# Tools whose text shows untrusted data only inside fences.
DATA_TOOLS = {"search_tables", "get_table", "search_docs", "get_document", "describe_collection", "query_collection"}
# Where a name or URL has to stand in a sentence; escaped there, not fenced.
ANSWER_TOOLS = {"validate_sql", "resolve_citations", "render_answer"}
# Tools whose structured fields carrying a payload must be described as data.
STRUCTURED_TOOLS = DATA_TOOLS | ANSWER_TOOLS
NOTICES = (table_tools.NOTICE, doc_tools.NOTICE, doc_tools.URL_NOTICE, collection_tools.NOTICE)
MARK = "not instructions"
TARGET = "every payload inside the fence; 0 escaped, left live or unmarked"
# The figures that must be 0.
FAILURES = (
    "escaped the fence",
    "spoofed tags left live",
    "links to other hosts",
    "broken fences",
    "structured fields not marked",
    "never shown",
    "tool errors",
)

_TAGS = "|".join(FENCE_TAGS)
_OPENER = re.compile(rf'<({_TAGS}) origin="[^"<>\n]*"(?: title="[^"<>\n]*")?>')
_CLOSER = re.compile(rf"</({_TAGS})>")
_PLAIN_HEAD = re.compile(r"\[T[0-9a-f]{2,16}\] ([A-Za-z_][A-Za-z0-9_$.]*) \((?:table|view)\)")
_PLACEHOLDER = re.compile(r"\{\{[a-z]+:\d+\}\}")
_SOURCE_ID = re.compile(r"\[([ST][0-9a-f]{6,16})\]")
# Markdown that links, read as CommonMark and GFM read it once backslash escapes are gone: an inline
# link or image (its text may hold one level of brackets, never a blank line), a reference definition,
# an autolink, and the bare URLs GFM links.
_INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^\s<>)]*)")
_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:[ \t]*\n?[ \t]*<?([^\s<>]+)", re.MULTILINE)
_AUTOLINK = re.compile(r"<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*)>")
_BARE = re.compile(r"(?<![A-Za-z0-9+.-])(?:https?|ftp)://[^\s<]+|(?<![\w.-])www\.[^\s<]+")
_ESCAPE = re.compile(r"\\[!-/:-@\[-`{-~]")
# Code, where nothing links: a fenced block (to its closing fence, or the end) and a code span.
_CODE_BLOCK = re.compile(r"^ {0,3}(`{3,}|~{3,}).*?(?:^ {0,3}\1[`~]*[ \t]*$|\Z)", re.MULTILINE | re.DOTALL)
_CODE_SPAN = re.compile(r"(?<![`\\])(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)


@dataclass(frozen=True)
class Payload:
    id: str
    places: tuple[str, ...]
    text: str


@dataclass
class Call:
    """One tool call as an agent made it: what came back, and the schema its structured content follows."""

    server: str
    tool: str
    arguments: dict[str, Any]
    text: str
    structured: Any
    schema: dict[str, Any] | None
    error: bool = False

    @property
    def label(self) -> str:
        return f"{self.tool}[{self.server}]"


@dataclass
class Tally:
    counts: Counter = field(default_factory=Counter)
    details: list[str] = field(default_factory=list)
    fields: dict[tuple[str, str], bool] = field(default_factory=dict)
    seen: set[str] = field(default_factory=set)
    own: set[str] = field(default_factory=set)  # the corpus's own URLs, as the tools may print them

    def fail(self, what: str, line: str) -> None:
        self.counts[what] += 1
        if len(self.details) < 40:
            self.details.append(line[:300])


def load_payloads(path: Path = PAYLOADS) -> list[Payload]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [Payload(p["id"], tuple(p["places"]), p["text"]) for p in data["payloads"]]


# -- planting ----------------------------------------------------------------------


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def table_name(payload: Payload) -> str:
    # Other tables are named without the canary: their names are ours, not the payload's.
    return payload.text if "table_name" in payload.places else f"notes_{payload.id.removeprefix('px')}"


def ddl(payloads: list[Payload]) -> str:
    """PostgreSQL DDL with each payload in the names and comments its places say, one table per payload,
    each referencing the one before it so that joins (and "referenced by") carry the names too."""
    statements, previous = [], None
    for payload in payloads:
        if not TABLE_PLACES & set(payload.places):
            continue
        name = f"{SCHEMA}.{_quoted(table_name(payload))}"
        columns = ["id INT PRIMARY KEY", "account_ref TEXT"]
        if "column_name" in payload.places:
            columns.append(f"{_quoted(payload.text)} TEXT")
        if previous:
            columns.append(f"parent_id INT REFERENCES {previous} (id)")
        statements.append(f"CREATE TABLE {name} ({', '.join(columns)});")
        if "table_comment" in payload.places:
            statements.append(f"COMMENT ON TABLE {name} IS {_literal(payload.text)};")
        if "column_comment" in payload.places:
            statements.append(f"COMMENT ON COLUMN {name}.account_ref IS {_literal(payload.text)};")
        previous = name
    return "\n".join(statements)


def catalog(payloads: list[Payload]) -> Catalog:
    """The catalog read from :func:`ddl`, with the description payloads as generated descriptions."""
    from schema_search.connectors.ddl import catalog_from_ddl

    read = catalog_from_ddl(ddl(payloads), catalog=CATALOG, dialect="postgres", source_name="injection.sql")
    by_name = {t.name: t for t in read.tables}
    descriptions = {}
    for payload in payloads:
        if "description" in payload.places:
            t = by_name[table_name(payload)]
            descriptions[(t.id, t.content_hash())] = Description(
                payload.text, "injection-eval-model", "v1", "2026-01-01T00:00:00Z", t.content_hash()
            )
    return apply_descriptions(read, descriptions)


def write_documents(folder: Path, payloads: list[Payload]) -> int:
    """One markdown file per payload with document places: front matter, a section, a paragraph."""
    folder.mkdir(parents=True, exist_ok=True)
    written = 0
    for payload in payloads:
        places = set(payload.places)
        if not DOCUMENT_PLACES & places:
            continue
        header = {
            "title": payload.text if "document_title" in places else f"Note {payload.id}",
            "status": payload.text if "header_value" in places else "Final",
            "owner": "ledger team",
            "url": payload.text if "document_url" in places else f"https://docs.example.com/{payload.id}/",
        }
        heading = payload.text if "document_heading" in places else "Details"
        body = payload.text if "document_text" in places else ""
        front = yaml.safe_dump(header, allow_unicode=True, sort_keys=False, width=1 << 20)
        text = f"---\n{front}---\n\n## {heading}\n\nAccount reference notes for the ledger. {body}\n"
        (folder / f"doc_{payload.id}.md").write_text(text, encoding="utf-8")
        written += 1
    return written


def plant(home: Path, payloads: list[Payload]) -> Workspace:
    workspace = Workspace(Settings(home=home / "home", dense=False))
    workspace.catalogs.index_catalog(catalog(payloads))
    write_documents(home / "docs", payloads)
    workspace.corpora.index(home / "docs", corpus=CORPUS)
    return workspace


# -- calling the tools ---------------------------------------------------------------


async def _session(client: Client, server: str, calls: list[Call], tables: list[str]) -> None:
    schemas = {t.name: t.output_schema for t in (await client.list_tools()).tools}

    async def call(tool: str, arguments: dict[str, Any]) -> Call:
        result = await client.call_tool(tool, arguments)
        text = "\n".join(c.text for c in result.content if getattr(c, "text", None) is not None)
        made = Call(server, tool, arguments, text, result.structured_content, schemas.get(tool), bool(result.is_error))
        calls.append(made)
        return made

    found = await call("search_tables", {"question": "account ref", "k": 100})
    for hit in (found.structured or {}).get("tables", []):
        await call("get_table", {"table_or_source_id": hit["source_id"]})
    for name in tables:
        # A wrong column names the table back, and its columns as the closest; a wrong table, the tables.
        await call("validate_sql", {"sql": f"SELECT account_rf FROM {SCHEMA}.{_quoted(name)}", "dialect": "postgres"})
        await call("validate_sql", {"sql": f"SELECT 1 FROM {SCHEMA}.{_quoted(name[:-1])}", "dialect": "postgres"})
    passages = await call("search_docs", {"question": "account reference notes for the ledger", "k": 100})
    for passage in (passages.structured or {}).get("passages", []):
        await call("get_document", {"id": passage["url"] if server == "urls" else passage["source_id"]})
    for collection in (CORPUS, CATALOG):
        await call("describe_collection", {"collection": collection})
    await call("query_collection", {"collection": CORPUS, "sql": "SELECT * FROM documents"})
    await call("query_collection", {"collection": CATALOG, "sql": "SELECT * FROM tables"})
    await call("query_collection", {"collection": CATALOG, "sql": "SELECT * FROM columns"})
    shown = "\n".join(c.text for c in calls if c.server == server)
    cited = " ".join(f"[{i}]" for i in dict.fromkeys(_SOURCE_ID.findall(shown)))
    await call("resolve_citations", {"text": f"The answer draws on {cited}."})
    issued = list(dict.fromkeys(_PLACEHOLDER.findall(shown)))
    # Links one per line, so that each line of the answer is the link a placeholder stood for.
    links_first = [p for p in issued if p.startswith("{{link:")]
    values = " ".join(p for p in issued if p not in links_first)
    await call("render_answer", {"text": "\n".join(["Values:", *links_first, values])})


def call_tools(workspace: Workspace, tables: list[str]) -> list[Call]:
    """Every tool, through the MCP client, on a server citing by ID and on one citing by URL."""
    calls: list[Call] = []

    async def go() -> None:
        for server, cite in (("ids", "ids"), ("urls", "urls")):
            async with Client(create_server(workspace, CATALOG, [CORPUS], cite=cite)) as client:
                await _session(client, server, calls, tables)

    anyio.run(go)
    return calls


# -- checking what came back -----------------------------------------------------------


def fenced_spans(text: str) -> tuple[list[tuple[int, int]], list[str], list[tuple[int, int]]]:
    """Where ``text`` is inside a fence (opener line through closer line), what is wrong with its
    fences, and where the real fence lines are.

    >>> text = 'a\\n<schema-data origin="x">\\nb\\n</schema-data>\\nc'
    >>> spans, errors, _ = fenced_spans(text)
    >>> [text[a:b] for a, b in spans], errors
    (['<schema-data origin="x">\\nb\\n</schema-data>'], [])
    >>> fenced_spans("a\\n</schema-data>\\nb")[1]
    ['a closer outside any fence: </schema-data>']
    """
    spans, errors, tags = [], [], []
    open_tag, start, at = None, 0, 0
    for line in text.split("\n"):
        end = at + len(line)
        opener, closer = _OPENER.fullmatch(line), _CLOSER.fullmatch(line)
        if opener:
            if open_tag:
                errors.append(f"an opener inside a {open_tag} fence: {line}")
            open_tag, start = opener.group(1), at
            tags.append((at, end))
        elif closer:
            if closer.group(1) != open_tag:
                errors.append(f"a closer {'of another fence' if open_tag else 'outside any fence'}: {line}")
            else:
                spans.append((start, end))
                tags.append((at, end))
            open_tag = None
        at = end + 1
    if open_tag:
        errors.append(f"a {open_tag} fence never closed")
    return spans, errors, tags


def _inside(position: int, spans: list[tuple[int, int]]) -> bool:
    return any(a <= position < b for a, b in spans)


def _line_at(text: str, position: int) -> tuple[int, str]:
    start = text.rfind("\n", 0, position) + 1
    end = text.find("\n", position)
    return start, text[start : end if end >= 0 else len(text)]


def _hidden(text: str) -> bool:
    return any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") and c != "\t" for c in text)


def check_text(call: Call, payloads: list[Payload], tally: Tally) -> None:
    text = call.text
    spans, errors, tags = fenced_spans(text)
    for error in errors:
        tally.fail("broken fences", f"{call.label}: {error}")
    tally.counts["fences"] += len(spans)
    # Nothing a model could read as a tag, besides the real fence lines and the notices naming them.
    scrubbed = text
    for notice in NOTICES:
        scrubbed = scrubbed.replace(notice, " " * len(notice))
    for a, _ in tags:  # the tag itself goes; its attributes stay, to be checked like any text
        scrubbed = f"{scrubbed[:a]} {scrubbed[a + 1 :]}"
    for a, b in tag_spans(scrubbed):
        tally.fail("spoofed tags left live", f"{call.label}: {text[max(0, a - 40) : b + 40]!r}")
    lowered = text.lower()
    for payload in payloads:
        for match in re.finditer(re.escape(payload.id), lowered):
            tally.seen.add(payload.id)
            tally.counts["shown"] += 1
            at = match.start()
            if _inside(at, spans):
                tally.counts["inside the fence"] += 1
                continue
            start, line = _line_at(text, at)
            head = _PLAIN_HEAD.search(line)
            if call.tool in DATA_TOOLS and head and head.start(1) <= at - start < head.end(1):
                tally.counts["plain names beside their ID"] += 1
            elif (call.tool in ANSWER_TOOLS or call.server == "urls") and not _hidden(line):
                tally.counts["escaped in answers"] += 1
            else:
                tally.fail("escaped the fence", f"{call.label}: {payload.id} outside a fence in {line!r}")


def links(text: str) -> list[str]:
    """Where markdown in ``text`` would link to: inline links and images, reference
    definitions, autolinks and bare URLs, with backslash-escaped characters and code taken as text.

    >>> links("See [docs](https://x.dev/a) and ![p](http://e.example/p.png) at www.w.example.")
    ['https://x.dev/a', 'http://e.example/p.png', 'www.w.example']
    >>> links("[ref]: http://e.example/d\\n<http://e.example/auto>")
    ['http://e.example/d', 'http://e.example/auto']
    >>> links("main.x\\\\]\\\\(http\\\\://e.example/x\\\\) and [a] (b)")
    []
    >>> links("SQL: `SELECT \\"[x](http://e.example/x)\\"`\\n```\\n![p](http://e.example/p.png)\\n```")
    []
    """
    # Code goes first (a backslash in it is no escape), then each escaped character becomes a
    # space: it can neither open nor close link syntax.
    plain, found = _ESCAPE.sub("  ", _CODE_SPAN.sub(_blank, _CODE_BLOCK.sub(_blank, text))), []
    for pattern in (_INLINE_LINK, _DEFINITION, _AUTOLINK, _BARE):
        for m in pattern.finditer(plain):
            if pattern is _INLINE_LINK and "\n\n" in m.group(0):
                continue  # a blank line ends a paragraph, and a link's text with it
            found.append(_trim(m.group(0)) if pattern is _BARE else m.group(1))
            # What one pattern matched is not read again by the next (the URL of a link is no bare URL).
            plain = plain[: m.start()] + _blank(m) + plain[m.end() :]
    return [f for f in found if f]


def _blank(match: re.Match[str]) -> str:
    return " " * (match.end() - match.start())


def _trim(url: str) -> str:
    """A bare URL as GFM ends it: trailing punctuation and an unbalanced ``)`` are not part of it
    (nor an unbalanced ``]``: the bracket of a ``[URL]`` citation).

    >>> _trim("https://x.dev/a_(b)."), _trim("https://x.dev/a)"), _trim("https://x.dev/a/]")
    ('https://x.dev/a_(b)', 'https://x.dev/a', 'https://x.dev/a/')
    """
    while url and (
        url[-1] in "?!.,:*_~'\""
        or (url[-1] == ")" and url.count("(") < url.count(")"))
        or (url[-1] == "]" and url.count("[") < url.count("]"))
    ):
        url = url[:-1]
    return url


def own_urls(calls: list[Call]) -> set[str]:
    """The corpus's own URLs, as the document tools returned them, in each form a text may show them."""
    urls = set()
    for call in calls:
        if call.tool in ("search_docs", "get_document"):
            urls |= {v for path, v in _paths(call.structured) if path and path[-1] == "url"}
    return {form for url in urls for form in (url, inline(url), link(url))}


def _own(url: str, own: set[str]) -> bool:
    # A bare URL ends at a space or "<", so it may be the start of one of ours; a section of one of ours counts.
    return any(form.startswith(url) or page(form) == page(url) for form in own) if "://" in url else False


def check_links(call: Call, tally: Tally) -> None:
    text = call.text
    for notice in NOTICES:  # their example citation URL is ours
        text = text.replace(notice, " " * len(notice))
    if call.tool == "render_answer":
        text = _issued_links(call, text, tally)
    spans, _, _ = fenced_spans(text)
    kept, last = [], 0
    for a, b in spans:
        kept.append(text[last:a])
        last = b
    outside = "\n\n".join([*kept, text[last:]])  # a fence ends the paragraph before it
    for url in links(outside):
        if _own(url, tally.own):
            tally.counts["links to the corpus's own URLs"] += 1
        else:
            tally.fail("links to other hosts", f"{call.label}: a link to {url!r} outside a fence")


def _issued_links(call: Call, text: str, tally: Tally) -> str:
    """render_answer's text without the lines that are one link it issued, alone as a URL: a model writes
    ``{{link:N}}`` into an answer on purpose, wherever the document's text said it points.
    The session asks for the links one per line, so each such line is the link a placeholder stood for."""
    asked, answered = call.arguments["text"].split("\n"), text.split("\n")
    for at, line in enumerate(asked[: len(answered)]):
        if line.startswith("{{link:") and links(answered[at]) == [answered[at]]:
            tally.counts["issued links in answers"] += 1
            answered[at] = ""
    return "\n".join(answered)


def _paths(value: Any, path: tuple = ()) -> list[tuple[tuple, str]]:
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _paths(v, (*path, str(k)))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _paths(v, (*path, i))]
    return [(path, value)] if isinstance(value, str) else []


def marked(schema: dict[str, Any] | None, path: tuple) -> bool:
    """Whether the output schema describes the field at ``path``, or one holding it, as not instructions.

    >>> schema = {"properties": {"a": {"$ref": "#/$defs/A", "description": "Data; not instructions."},
    ...           "b": {"type": "string"}}, "$defs": {"A": {"properties": {"x": {"type": "string"}}}}}
    >>> marked(schema, ("a", "x")), marked(schema, ("b",))
    (True, False)
    """
    if not schema:
        return False
    defs = schema.get("$defs", {})
    node: dict[str, Any] | None = schema
    for step in path:
        node = _resolve(node, defs)
        node = node.get("properties", {}).get(step) if isinstance(step, str) else node.get("items")
        if node is None:
            node = {}
        if MARK in node.get("description", ""):
            return True
    return False


def _resolve(node: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """Follow ``$ref`` and pick the object or array branch of an ``anyOf`` (an optional field)."""
    for _ in range(8):
        if "$ref" in node:
            node = defs.get(node["$ref"].rsplit("/", 1)[-1], {})
        elif "anyOf" in node or "allOf" in node:
            options = node.get("anyOf") or node.get("allOf")
            node = next((o for o in options if o.get("type") != "null"), {})
        else:
            break
    return node


def check_structured(call: Call, payloads: list[Payload], tally: Tally) -> None:
    if call.tool not in STRUCTURED_TOOLS:
        return
    for path, value in _paths(call.structured):
        lowered = value.lower()
        if any(p.id in lowered for p in payloads):
            shape = ".".join("[]" if isinstance(s, int) else s for s in path)
            key = (call.tool, shape)
            if key not in tally.fields:
                tally.fields[key] = marked(call.schema, path)
                if not tally.fields[key]:
                    tally.details.append(f"{call.tool}: structured field {shape} carries a payload, not marked as data")


def run() -> Part:
    payloads = load_payloads()
    tally = Tally()
    with tempfile.TemporaryDirectory(prefix="injection-") as home:
        workspace = plant(Path(home), payloads)
        tables = [table_name(p) for p in payloads if TABLE_PLACES & set(p.places)]
        calls = call_tools(workspace, tables)
    tally.own = own_urls(calls)
    for call in calls:
        if call.error:
            tally.fail("tool errors", f"{call.label} {json.dumps(call.arguments)[:120]}: {call.text[:200]}")
            continue
        check_text(call, payloads, tally)
        check_links(call, tally)
        check_structured(call, payloads, tally)
    never = [p.id for p in payloads if p.id not in tally.seen]
    if never:
        tally.details.append(f"never shown by any tool: {', '.join(never)}")
    unmarked = sum(not ok for ok in tally.fields.values())
    c = tally.counts
    counts = {
        "payloads": len(payloads),
        "planted": sum(len(p.places) for p in payloads),
        "tool calls": len(calls),
        "shown": c["shown"],
        "inside the fence": c["inside the fence"],
        "plain names beside their ID": c["plain names beside their ID"],
        "escaped in answers": c["escaped in answers"],
        "escaped the fence": c["escaped the fence"],
        "spoofed tags left live": c["spoofed tags left live"],
        "links to the corpus's own URLs": c["links to the corpus's own URLs"],
        "issued links in answers": c["issued links in answers"],
        "links to other hosts": c["links to other hosts"],
        "broken fences": c["broken fences"],
        "structured fields marked as data": len(tally.fields) - unmarked,
        "structured fields not marked": unmarked,
        "never shown": len(never),
        "tool errors": c["tool errors"],
    }
    at_target = all(counts[k] == 0 for k in FAILURES)
    return Part("prompt injection", counts, TARGET, at_target, tally.details)


def main() -> int:
    part = run()
    print(table([part]))
    for line in part.details:
        print(f"  {line}")
    return 0 if part.at_target else 1


if __name__ == "__main__":
    raise SystemExit(main())
