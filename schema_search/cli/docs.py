"""Document commands: ``docs index``, ``docs search``, ``docs show``, ``docs eval``, and ``corpora``.

``docs fields`` and ``docs query`` live in :mod:`.structured`."""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from pathlib import Path

from ..docs.crawl.config import CrawlConfig
from ..docs.crawl.urls import is_url
from ..docs.models import ChunkResult, CorpusIndexResult, DocsSearchResponse
from ..docs.sites.detect import SITES
from ..docs.visual.options import PAGES_LABEL
from ..errors import InvalidInput
from ..settings import Settings
from ..workspace import Workspace
from . import moved, structured
from .output import (
    add_history,
    add_ray,
    add_shards,
    confirm,
    counted,
    examples,
    on_ray,
    print_json,
    print_table,
    print_warnings,
    progress,
)

SNIPPET_CHARS = 300
UNITS = {
    "loading the model": "model",
    "reading": "file",
    PAGES_LABEL: "page",
    "indexing": "chunk",
    "writing the index": "chunk",
    "embedding": "chunk",
    "fetching": "page",
}


def add_commands(commands: argparse._SubParsersAction) -> None:
    docs = commands.add_parser(
        "docs",
        help="index and search documents (Markdown, reStructuredText, HTML, text, PDF, DOCX)",
        **examples(
            "schemasift docs index sample_docs --corpus handbook",
            'schemasift docs search "how do I rotate a key?" --corpus handbook',
            "schemasift docs show S1dbb6c --corpus handbook",
        ),
    )
    docs.set_defaults(print_help=docs.print_help)
    group = docs.add_subparsers(dest="docs_command", metavar="COMMAND", help="one of:")

    index = group.add_parser(
        "index",
        help="read a folder of documents, or fetch a site's pages, chunk them and index them as a corpus",
        description=(
            "Read every supported file under FOLDER (recursively), cut it into token-sized chunks at its "
            'headings, and index it as a corpus. A manifest.jsonl in FOLDER ({"path", "url", "title"} per '
            "line) gives each file's URL and title; else a front-matter url, else --url-template, else the "
            "URL the site's generator gives the page (MkDocs, VitePress, Docusaurus: --site), else the "
            "relative path. Re-running replaces the corpus atomically. Given an http(s) URL instead, fetch the "
            "site's pages (those its llms.txt or sitemaps list under the URL, else those linked from it), as "
            "its robots.txt allows, into a mirror folder in the data directory (crawls/NAME/), and index that; "
            "re-running refreshes the mirror: unchanged pages answer 304 and are not downloaded again."
        ),
        **examples(
            "schemasift docs index sample_docs --corpus handbook",
            "schemasift docs index site/docs --corpus site --url-template 'https://docs.example.com/{path}/'",
            "schemasift docs index https://docs.example.com/ --corpus example --max-pages 200",
        ),
    )
    # A string, not a Path: Path("https://x") would fold the URL's "//".
    index.add_argument(
        "folder", metavar="FOLDER_OR_URL", help="folder of documents, read recursively; or a documentation site's URL"
    )
    index.add_argument("--corpus", required=True, help="corpus name to create or replace")
    index.add_argument(
        "--url-template",
        help="URL of a file without a manifest entry: {path} (relative, no suffix), {stem}, {name}, {file}; "
        "e.g. https://docs.example.com/{path}/",
    )
    index.add_argument(
        "--site",
        choices=SITES,
        default="auto",
        help="the generator that builds FOLDER, for its page URLs, titles, heading anchors and syntax (default: "
        "auto, from mkdocs.yml, .vitepress/config.*, docusaurus.config.* in FOLDER or a parent; plain: none)",
    )
    pixels = index.add_argument_group("scans and figures (PDF, DOCX)")
    pixels.add_argument(
        "--vision-model",
        metavar="MODEL",
        help="a litellm model with image input that describes figures (e.g. openai/gpt-4o-mini); "
        "default: SCHEMA_SEARCH_VISION_MODEL, else none (figures are read by OCR, and no model is called)",
    )
    pixels.add_argument("--no-ocr", action="store_true", help="leave scanned pages unread (SCHEMA_SEARCH_DOCS_OCR)")
    pixels.add_argument(
        "--no-figures", action="store_true", help="leave figures unread, text layer only (SCHEMA_SEARCH_DOCS_FIGURES)"
    )
    crawling = index.add_argument_group("fetching a URL")
    crawling.add_argument(
        "--max-pages", type=int, default=CrawlConfig.max_pages, help="pages at most (default %(default)s)"
    )
    crawling.add_argument(
        "--delay",
        type=float,
        default=CrawlConfig.delay_s,
        help="seconds between two requests to the site (default %(default)s; robots.txt's Crawl-delay raises it)",
    )
    crawling.add_argument(
        "--concurrency", type=int, default=CrawlConfig.concurrency, help="requests at once (default %(default)s)"
    )
    cluster = index.add_argument_group("beyond one machine")
    add_ray(cluster, "embed the chunks")
    add_shards(cluster, "corpus by document")
    index.add_argument("--json", action="store_true", help="print the result as JSON")
    index.set_defaults(run=_index)

    search = group.add_parser(
        "search",
        help="find the passages that answer a question, with citable source IDs",
        **examples(
            'schemasift docs search "how do I rotate a key?" --corpus handbook',
            'schemasift docs search "retention policy" --corpus handbook -k 3 --json',
            'schemasift docs search "how do I test it?" --history "how do I open a websocket?" --corpus fastapi',
        ),
    )
    search.add_argument("question", help="the question, in plain language (quote it)")
    search.add_argument("--corpus", required=True, help="corpus to search")
    search.add_argument("-k", type=int, default=None, help="how many passages (default 10)")
    add_history(search)
    search.add_argument("--json", action="store_true", help="print the HTTP response body")
    search.set_defaults(run=_search)

    show = group.add_parser(
        "show",
        help="show a chunk, or a whole document, by source ID",
        **examples(
            "schemasift docs show S1dbb6c --corpus handbook",
            "schemasift docs show D81c0e2 --corpus handbook --json",
        ),
    )
    show.add_argument("source_id", help="an ID like S3fa21c, from search results")
    show.add_argument("--corpus", required=True, help="corpus the ID is from")
    show.add_argument("--json", action="store_true", help="print the HTTP response body")
    show.set_defaults(run=_show)

    delete = group.add_parser(
        "delete",
        help="delete a corpus and its index (asks first; --yes in scripts)",
        description="Delete a corpus: its chunks, index, embeddings and structured index. Catalogs go with "
        "`schemasift delete`.",
        **examples("schemasift docs delete --corpus handbook", "schemasift docs delete --corpus handbook --yes"),
    )
    delete.add_argument("--corpus", required=True, help="corpus to delete")
    delete.add_argument("--yes", action="store_true", help="do not ask (needed when stdin is not a terminal)")
    delete.set_defaults(run=_delete)

    structured.add_docs_commands(group)
    moved.add_commands(group, "docs")

    corpora = commands.add_parser(
        "corpora", help="list indexed corpora", **examples("schemasift corpora", "schemasift corpora --json")
    )
    corpora.add_argument("--json", action="store_true", help="print the list as JSON, warnings included")
    corpora.set_defaults(run=_corpora)


def _index(args: argparse.Namespace, settings: Settings) -> int:
    settings = on_ray(args, settings).model_copy(
        update={
            "vision_model": args.vision_model or settings.vision_model,
            "docs_ocr": settings.docs_ocr and not args.no_ocr,
            "docs_figures": settings.docs_figures and not args.no_figures,
        }
    )
    if is_url(args.folder):
        result = _index_url(args, settings)
    else:
        print(f"Reading {args.folder} ...", file=sys.stderr)
        result = Workspace(settings).corpora.index(
            Path(args.folder),
            corpus=args.corpus,
            url_template=args.url_template,
            progress=progress(UNITS),
            site=args.site,
            shards=args.shards,
        )
    if args.json:
        return print_json(result)
    if result.crawl:
        c = result.crawl
        print(
            f"Fetched {c.url} (pages from {c.discovery}): {c.pages} pages; {c.fetched} downloaded, {c.unchanged} "
            f"unchanged, {c.new} new, {c.removed} removed, {c.failed} failed."
        )
    info = result.corpus
    print(f"Indexed corpus {info.name!r}: {info.documents} documents, {info.chunks} chunks in {result.seconds:.2f} s.")
    if info.visual:
        rows = [(path, *("–" if v.get(f) is None else v[f] for f in VISUAL_FIELDS)) for path, v in info.visual.items()]
        print_table(VISUAL_HEAD, rows)
    print_warnings(info.warnings, "schemasift corpora --json")
    return 0


# What reading PDFs and DOCX files beyond their text layer did, per document.
VISUAL_FIELDS = ("pages", "pages_ocr", "figures_found", "figures_described", "decorations_skipped", "vision_calls")
VISUAL_HEAD = (
    "read beyond the text layer",
    "pages",
    "OCR'd",
    "figures",
    "described",
    "decorations skipped",
    "vision calls",
)


def _index_url(args: argparse.Namespace, settings: Settings) -> CorpusIndexResult:
    if args.url_template:
        raise InvalidInput(
            "--url-template is for a folder: a crawled page is cited by its own URL.",
            hint="Leave --url-template out when indexing a URL.",
        )
    if args.site != "auto":
        raise InvalidInput(
            "--site is for a folder: a crawled page is read as the site serves it.",
            hint="Leave --site out when indexing a URL.",
        )
    crawl = CrawlConfig(max_pages=args.max_pages, delay_s=args.delay, concurrency=args.concurrency)
    print(f"Fetching {args.folder} ...", file=sys.stderr)
    return Workspace(settings).corpora.index_url(
        args.folder, corpus=args.corpus, crawl=crawl, progress=progress(UNITS), shards=args.shards
    )


def _search(args: argparse.Namespace, settings: Settings) -> int:
    response = Workspace(settings).corpora.search(args.corpus, args.question, args.k, args.history)
    if args.json:
        return print_json(response)
    if response.retrieval_question and response.retrieval_question != response.question:
        why = f" ({response.rewrite.why}; written by {response.rewrite.by})" if response.rewrite else ""
        print(f"searched as: {response.retrieval_question}{why}\n")
    if response.coverage:
        found = response.coverage
        print(
            f"second pass: no passage showed {found.looked_for}; searched {found.searched!r} and added "
            f"{counted(len(found.added), 'passage')}{': ' + ', '.join(found.added) if found.added else ''}\n"
        )
    print(search_text(response))
    return 0


def search_text(response: DocsSearchResponse) -> str:
    """A response as a person reads it in a terminal."""
    if not response.results:
        if response.off_topic:
            return f"Nothing in corpus {response.corpus!r} relates to this question."
        return "No passage matches this question."
    unrelated = response.results[0].unrelated_distance
    level = f" (unrelated text sits at distance {unrelated:.2f})" if unrelated is not None else ""
    lines = [f"{counted(len(response.results), 'passage')} in corpus {response.corpus!r}{level}:", ""]
    for number, result in enumerate(response.results, 1):
        fetched = f"  (fetched {result.fetched[:10]})" if result.fetched else ""
        lines += [f"{number}. {_headline(result)}", f"   {result.url}{fetched}"]
        if result.derived:  # the words were read from pixels, not written as text: say so where it is cited
            lines.append(f"   from a {result.derived.note}")
        snippet = " ".join(result.text.split())
        snippet = snippet if len(snippet) <= SNIPPET_CHARS else snippet[:SNIPPET_CHARS].rsplit(" ", 1)[0] + " ..."
        lines += textwrap.wrap(snippet, 100, initial_indent="   ", subsequent_indent="   ") + [""]
    return "\n".join(lines).rstrip()


def _headline(result: ChunkResult) -> str:
    place = " > ".join([result.title, *result.heading_path])
    ranks = " ".join(f"{channel} #{rank}" for channel, rank in result.channels.items() if rank is not None)
    marks = [m for m, on in (("pinned", result.pinned), ("nearest, kept", result.added)) if on]
    distance = f"distance {result.distance:.2f}" if result.distance is not None else ""
    return "  ".join(part for part in (f"[{result.source_id}] {place}", distance, ranks, *marks) if part)


def _show(args: argparse.Namespace, settings: Settings) -> int:
    detail = Workspace(settings).corpora.source(args.corpus, args.source_id)
    if args.json:
        return print_json(detail)
    place = " > ".join([detail.title, *detail.heading_path])
    print(f"[{detail.source_id}] {place}  ({detail.kind} of {detail.format} document [{detail.document_id}])")
    print(detail.url + (f"  (fetched {detail.fetched})" if detail.fetched else ""))
    for key, values in detail.fields.items():
        print(f"{key}: {'; '.join(values)}")
    print()
    print(detail.text)
    if detail.chunks:
        print(f"\nchunks: {' '.join(detail.chunks)}")
    return 0


def _corpora(args: argparse.Namespace, settings: Settings) -> int:
    infos = Workspace(settings).corpora.infos()
    if args.json:
        print(json.dumps([i.model_dump(mode="json") for i in infos], indent=2, ensure_ascii=False))
        return 0
    if not infos:
        print("No corpora yet. Create one with `schemasift docs index FOLDER --corpus NAME`.")
        return 0
    rows = [
        (
            i.name,
            str(i.documents),
            str(i.chunks),
            "yes" if i.dense else "no",
            str(len(i.warnings)),
            origin(i.source),
        )
        for i in infos
    ]
    print_table(("corpus", "documents", "chunks", "dense", "warnings", "source"), rows)
    return 0


def origin(source: dict) -> str:
    """Where a corpus was read from, in a word: its folder, its site, or an upload (which keeps no folder).

    >>> origin({"kind": "folder", "path": "/docs"}), origin({"kind": "upload", "path": None})
    ('/docs', '(uploaded)')
    >>> origin({"kind": "url", "url": "https://docs.example.com/", "path": "/home/crawls/site"})
    'https://docs.example.com/'
    """
    if source.get("url"):  # a crawl's folder is its mirror: the site is what it was read from
        return str(source["url"])
    if source.get("path"):
        return str(source["path"])
    return "(uploaded)" if source.get("kind") == "upload" else "–"


def _delete(args: argparse.Namespace, settings: Settings) -> int:
    workspace = Workspace(settings)
    workspace.corpora.store.current(args.corpus)  # an unknown name fails before anyone is asked
    if not confirm(f"Delete corpus {args.corpus!r}?", args.yes):
        print("Nothing deleted.", file=sys.stderr)
        return 1
    workspace.corpora.delete(args.corpus)
    print(f"Deleted corpus {args.corpus!r}.")
    return 0
