"""``/v1/corpora``: list, show, search, show a chunk or document, index uploaded documents, delete."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request, Response
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser

from ..docs import uploads
from ..docs.models import CorpusIndexResult, CorpusInfo, DocsSearchRequest, DocsSearchResponse, SourceDetail
from ..errors import InvalidInput, SourceError, UnsupportedMediaType
from ..settings import Settings
from ..structured.models import FieldsResponse, QueryRequest, QueryResponse
from ..workspace import Workspace
from .deps import AdminKey, CallerDep, IsolatedDep, Name, ReadKey, WorkspaceDep, check_write, content_type, read_body
from .problems import problem_responses
from .sniff import is_form

router = APIRouter(prefix="/v1/corpora", tags=["corpora"], dependencies=[ReadKey], responses=problem_responses(401))
MULTIPART = "multipart/form-data"
# 20 MB of text is ~100,000 chunks to embed: many minutes on two cores; a child past
# half an hour is stopped.
TIME_LIMIT_S = 1800.0


@router.get("", responses=problem_responses(409, 503))
def list_corpora(ws: WorkspaceDep) -> list[CorpusInfo]:
    return ws.corpora.infos()


@router.get("/{name}", responses=problem_responses(404, 409, 422, 503))
def get_corpus(name: Name, ws: WorkspaceDep) -> CorpusInfo:
    return ws.corpora.info(name)


@router.post("/{name}/search", tags=["search"], responses=problem_responses(404, 409, 413, 422, 503))
async def search(name: Name, request: DocsSearchRequest, ws: WorkspaceDep) -> DocsSearchResponse:
    # On the event loop like the catalogs' search; opening a new generation in the thread pool.
    if not ws.corpora.is_open(name):
        await run_in_threadpool(ws.corpora.searcher, name)
    turn = None if request.turn is None else str(request.turn)
    asked = (name, request.question, request.k, request.history, request.session, turn)
    if ws.rewrite_waits(request.history):  # a model's rewrite waits on I/O: not on the event loop
        return await run_in_threadpool(ws.corpora.search, *asked)
    return ws.corpora.search(*asked)


@router.get("/{name}/fields", tags=["structured"], responses=problem_responses(404, 409, 422, 503))
def get_fields(name: Name, ws: WorkspaceDep) -> FieldsResponse:
    """The corpus's queryable tables and columns, with header-field coverage and the fields left out."""
    return ws.corpora.fields(name)


@router.post("/{name}/query", tags=["structured"], responses=problem_responses(400, 404, 409, 413, 422, 503))
def query(name: Name, request: QueryRequest, ws: WorkspaceDep) -> QueryResponse:
    """Count, filter, group: one read-only SELECT (`sql`) or the JSON form (`query`), run in a locked-down DuckDB."""
    return ws.corpora.query(name, request)


@router.get("/{name}/documents/{source_id}", responses=problem_responses(404, 409, 422, 503))
def get_document(name: Name, source_id: str, ws: WorkspaceDep) -> SourceDetail:
    """A chunk, or a whole document, by source ID (``S3fa21c``)."""
    return ws.corpora.source(name, source_id)


@router.post(
    "/{name}",
    responses=problem_responses(400, 403, 409, 413, 415, 422, 503),
    openapi_extra={
        "requestBody": {
            "required": True,
            "description": (
                "The documents: a zip or tar(.gz) archive of a folder (a manifest.jsonl in it gives URLs and "
                "titles), or multipart/form-data with one or more `files` (their file names may hold folders)."
            ),
            "content": {
                "application/zip": {"schema": {"type": "string", "format": "binary", "minLength": 1}},
                "application/gzip": {"schema": {"type": "string", "format": "binary", "minLength": 1}},
                "application/x-tar": {"schema": {"type": "string", "format": "binary", "minLength": 1}},
                MULTIPART: {
                    "schema": {
                        "type": "object",
                        "properties": {
                            "files": {"type": "array", "items": {"type": "string", "format": "binary"}, "minItems": 1}
                        },
                        "required": ["files"],
                    }
                },
            },
        }
    },
)
async def create_corpus(
    name: Name,
    request: Request,
    ws: WorkspaceDep,
    isolated: IsolatedDep,
    caller: CallerDep,
    admin_key: AdminKey = None,
    url_template: Annotated[
        str | None, Query(description="URL of a file without a manifest entry: {path}, {stem}, {name}, {file}.")
    ] = None,
    site: Annotated[
        Literal["auto", "mkdocs", "vitepress", "docusaurus", "plain"],
        Query(
            description="The generator that builds the uploaded folder, for its page URLs, titles, heading anchors "
            "and syntax: auto (from mkdocs.yml, .vitepress/config.*, docusaurus.config.* in the upload), or plain."
        ),
    ] = "auto",
) -> CorpusIndexResult:
    media_type = content_type(request)
    if media_type not in uploads.ZIP_TYPES | uploads.TAR_TYPES | {MULTIPART}:
        sent = f"a {media_type} body" if media_type else "a body without a Content-Type"
        raise UnsupportedMediaType(
            f"Cannot index {sent} as a corpus.",
            hint="Send a zip or tar(.gz) archive (Content-Type application/zip, application/gzip, application/x-tar) "
            "or multipart/form-data with the documents in `files`.",
        )
    body = await read_body(request, ws.settings.max_upload_bytes, "documents")
    if media_type != MULTIPART and is_form(body):
        raise UnsupportedMediaType(
            f"The body is a multipart/form-data envelope, sent as {media_type}.",
            hint="Send it as multipart/form-data with its boundary (curl -F files=@a.md sets both), or send the archive itself.",
        )
    check_write(caller, ws.settings, admin_key)
    files = await _form_files(request, body, ws.settings.max_upload_files) if media_type == MULTIPART else None
    # Unpacking and indexing are CPU-bound: in the thread pool, off the event loop; a large
    # upload in a child process (see isolated.py).
    args = (ws.settings, name, body if files is None else b"", media_type, files, url_template, site)
    return await run_in_threadpool(
        isolated.run, len(body), _index_upload, *args, what="the documents", time_limit_s=TIME_LIMIT_S
    )


@router.delete("/{name}", status_code=204, response_class=Response, responses=problem_responses(403, 404, 409, 422))
async def delete_corpus(name: Name, ws: WorkspaceDep, caller: CallerDep, admin_key: AdminKey = None) -> Response:
    """Delete the corpus, every generation of it; searches of it answer 404 from then on.

    Needs the admin key where the server sets one, like every write (see ``DELETE
    /v1/catalogs/{name}``). 409 while another process indexes it.
    """
    check_write(caller, ws.settings, admin_key, what="Deleting a corpus")
    await run_in_threadpool(ws.corpora.delete, name)
    return Response(status_code=204)


def _index_upload(
    s: Settings,
    name: str,
    body: bytes,
    media_type: str,
    files: list[tuple[str, bytes]] | None,
    template: str | None,
    site: str = "auto",
) -> CorpusIndexResult:
    """Unpack the upload and index it as a new generation of corpus ``name`` (here or in a child process)."""
    with tempfile.TemporaryDirectory(prefix="schema-search-upload-") as scratch:
        folder = Path(scratch)
        if files is None:
            uploads.unpack(body, media_type, folder, s.max_upload_files, s.max_upload_bytes)
        else:
            uploads.write_files(files, folder, s.max_upload_files, s.max_upload_bytes)
        return Workspace(s).corpora.index(folder, corpus=name, url_template=template, origin="upload", site=site)


async def _form_files(request: Request, body: bytes, max_files: int) -> list[tuple[str, bytes]]:
    async def stream():
        yield body

    try:
        form = await MultiPartParser(request.headers, stream(), max_files=max_files).parse()
    except MultiPartException as error:
        raise InvalidInput(
            f"The multipart body does not parse: {error.message}", hint="Send files in a `files` field."
        ) from None
    parts = form.getlist("files")
    files = [(item.filename, await item.read()) for item in parts if isinstance(item, UploadFile) and item.filename]
    if not files and parts:
        # Documents the schema allows (`files` is a list of strings), but nothing says what kind
        # each is: like any upload no reader can read, a bad source, not a malformed request.
        raise SourceError(
            f"The upload's {len(parts)} `files` part(s) carry no file name, so no reader knows what they are.",
            hint="Send each document as a file with its name (curl -F files=@notes.md).",
        )
    if not files:
        raise InvalidInput("The form holds no files.", hint="Send each document in a `files` field with its file name.")
    return files
