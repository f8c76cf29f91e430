"""What every router shares: the workspace dependency, the admin-key check, a bounded body read."""

from __future__ import annotations

import hmac
from typing import Annotated
from urllib.parse import unquote

from fastapi import Depends, Path, Request, Security
from fastapi.security import APIKeyHeader

from ..core.store import NAME_PATTERN
from ..errors import Forbidden, InvalidInput, PayloadTooLarge, Unauthorized
from ..settings import Settings
from ..workspace import Workspace
from .isolated import Isolated


def get_workspace(request: Request) -> Workspace:
    return request.app.state.workspace


def get_isolated(request: Request) -> Isolated:
    return request.app.state.isolated


# A security scheme rather than a plain header parameter: OpenAPI then shows which
# routes write, and clients generated from it know where the key goes.
admin_key_header = APIKeyHeader(
    name="X-Admin-Key",
    scheme_name="AdminKey",
    description="Needed by every write when the server sets SCHEMA_SEARCH_ADMIN_KEY, and always for URL sources.",
    auto_error=False,  # optional: a server without a key takes writes without one
)


# Module level, not inside create_app: FastAPI resolves these string annotations
# (from __future__ import annotations) in the module's namespace.
WorkspaceDep = Annotated[Workspace, Depends(get_workspace)]
IsolatedDep = Annotated[Isolated, Depends(get_isolated)]
AdminKey = Annotated[str | None, Security(admin_key_header)]
# The pattern is documented, not checked here: the workspace refuses a bad name in its own words.
Name = Annotated[str, Path(description="Catalog or corpus name.", json_schema_extra={"pattern": NAME_PATTERN.pattern})]


async def read_body(request: Request, limit: int, what: str) -> bytes:
    """The request body, refused past ``limit`` bytes before it is all read.

    The app's body limit (:mod:`.body_limit`) has refused larger bodies already; this
    is the backstop for a router mounted without it.
    """
    hint = f"Split the {what} or raise SCHEMA_SEARCH_MAX_UPLOAD_BYTES."
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limit:
        raise PayloadTooLarge(f"The upload is {declared} bytes; the limit is {limit}.", hint=hint)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise PayloadTooLarge(f"The upload exceeds the limit of {limit} bytes.", hint=hint)
        chunks.append(chunk)
    body = b"".join(chunks)
    if not body.strip():
        raise InvalidInput("The request body is empty.", hint=f"Send the {what} in the body; see /docs.")
    return body


def content_type(request: Request) -> str:
    return request.headers.get("content-type", "").split(";")[0].strip().lower()


def check_admin(settings: Settings, presented: str | None, *, required: bool, what: str = "Indexing") -> None:
    """Refuse a write without the admin key, where the server sets one (or always, when ``required``).

    Args:
        what: the write, as the refusal names it ("Deleting a catalog").
    """
    expected = settings.admin_key.get_secret_value() if settings.admin_key else None
    if expected is None:
        if required:
            raise Forbidden("No admin key is configured on this server.", hint="Set SCHEMA_SEARCH_ADMIN_KEY.")
        return
    if presented is None:
        raise Forbidden(f"{what} needs the admin key.", hint="Send it in the X-Admin-Key header.")
    if not hmac.compare_digest(presented.encode(), expected.encode()):
        raise Forbidden(
            f"{what} needs the admin key; the key sent is not this server's.",
            hint="Check the X-Admin-Key header against SCHEMA_SEARCH_ADMIN_KEY.",
        )


# What a frame or a link loads (an eval report's page) cannot carry a header: the web page
# also keeps the read key in this cookie, SameSite=Strict and only for /v1/eval, so no
# other site's page can make the browser send it.
READ_KEY_COOKIE = "schema_search_read_key"


def check_read_key(request: Request) -> None:
    """Refuse a read without the read key, where the server sets one; the admin key will do too.

    The key comes in ``X-Read-Key`` (or ``X-Admin-Key``), or in the web page's cookie
    (:data:`READ_KEY_COOKIE`).

    A dependency of the read routers. Not an OpenAPI security scheme: most servers set
    no read key, and the document would then mark every read as needing one.
    """
    settings = get_workspace(request).settings
    if settings.read_key is None:
        return
    keys = [k.get_secret_value().encode() for k in (settings.read_key, settings.admin_key) if k is not None]
    sent = [request.headers.get(h, "").encode() for h in ("x-read-key", "x-admin-key")]
    sent.append(unquote(request.cookies.get(READ_KEY_COOKIE, "")).encode())  # the page percent-encodes it
    if not any(s and hmac.compare_digest(s, k) for s in sent for k in keys):
        raise Unauthorized(
            "This server needs a read key.",
            hint="Send it in the X-Read-Key header; the web page asks for it. The operator set it as SCHEMA_SEARCH_READ_KEY.",
        )


ReadKey = Depends(check_read_key)
