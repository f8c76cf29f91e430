"""What every router shares: who is calling (and so which space), the role checks, a bounded body read.

A request's key decides its space: the routes act in the Workspace of the key's space, so
another space's catalogs and corpora are simply unknown there (404, hint naming only the
caller's own). A key comes in ``Authorization: Bearer``, ``X-API-Key``, ``X-Read-Key`` (or
the web page's cookie) or ``X-Admin-Key``. The server's own keys keep their meaning: the
admin key (``SCHEMA_SEARCH_ADMIN_KEY``) acts on the default space and manages every space,
the read key (``SCHEMA_SEARCH_READ_KEY``) reads the default space. With no space key issued
and no server key set, anyone who reaches the server acts on the default space, as before.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Annotated
from urllib.parse import unquote

from fastapi import Depends, Path, Request, Security
from fastapi.security import APIKeyHeader

from ..core.store import NAME_PATTERN
from ..errors import Forbidden, InvalidInput, KeyRefused, KeyRequired, PayloadTooLarge, RoleRequired, Unauthorized
from ..settings import Settings
from ..spaces.keys import Role, allows, key_id
from ..spaces.registry import DEFAULT, Spaces
from ..workspace import Workspace
from .isolated import Isolated

# Where a key may come, strongest claim first: what a client sets on purpose before what the page's cookie carries.
KEY_HEADERS = ("x-api-key", "x-admin-key", "x-read-key")


@dataclass(frozen=True)
class Caller:
    """Who sent a request: the space it acts in, and what it may do there.

    ``role`` is ``None`` for a request with no key (or the legacy read key), which the
    server's own key settings judge as they always did (:func:`check_admin`).
    """

    space: str = DEFAULT
    role: Role | None = None
    key_id: str | None = None  # a space key's id; None for the server's keys and for no key
    server_admin: bool = False

    @property
    def anonymous(self) -> bool:
        return self.role is None


def get_spaces(request: Request) -> Spaces:
    return request.app.state.spaces


def get_caller(request: Request) -> Caller:
    """The caller the request's keys make; 401 for a key not in force, or for none once keys are issued.

    An unknown and a revoked key are refused in the same words: the answer must not tell
    someone holding an old key that it once worked.
    """
    known = getattr(request.state, "caller", None)  # several dependencies ask; the key store is read once
    if known is None:
        known = request.state.caller = _caller(request)
    return known


def _caller(request: Request) -> Caller:
    spaces = get_spaces(request)
    settings = spaces.settings
    sent = _sent_keys(request)
    admin = settings.admin_key.get_secret_value() if settings.admin_key else None
    reader = settings.read_key.get_secret_value() if settings.read_key else None
    refused = False
    for token in sent:
        if admin and _same(token, admin):
            return Caller(DEFAULT, "admin", server_admin=True)
        if key_id(token) is not None:
            found = spaces.keys.verify(token)
            if found is not None:
                return Caller(found.space, found.role, key_id=found.id)
            refused = True
    if reader and any(_same(token, reader) for token in sent):
        if spaces.keys.any_active():
            # Once keys are issued, anonymous writes are refused; the read key must not count as one.
            return Caller(DEFAULT, "read")
        return Caller(DEFAULT, None)  # judged by check_read_key and check_admin, as before spaces
    # Asked once: with keys issued it is a query of the key store, on every request.
    active = not refused and spaces.keys.any_active()
    if refused or (sent and active):
        raise KeyRefused(
            "The key sent is not accepted here.",
            hint="Check it against the one you were given; an operator can list keys with `schemasift keys list`.",
        )
    if active:
        raise KeyRequired(
            "This server needs a key.",
            hint="Send it as `Authorization: Bearer KEY` (or X-API-Key); an operator issues one with "
            "`schemasift keys create --space SPACE --role read`.",
        )
    return Caller()


def _sent_keys(request: Request) -> list[str]:
    sent = []
    auth = request.headers.get("authorization", "")
    if auth[:7].lower() == "bearer ":
        sent.append(auth[7:].strip())
    sent += [request.headers.get(h, "").strip() for h in KEY_HEADERS]
    sent.append(unquote(request.cookies.get(READ_KEY_COOKIE, "")).strip())  # the page percent-encodes it
    return [s for s in sent if s]


def _same(sent: str, expected: str) -> bool:
    return hmac.compare_digest(sent.encode(), expected.encode())


def get_workspace(request: Request) -> Workspace:
    """The Workspace of the caller's space: the only catalogs and corpora this request can name."""
    caller = get_caller(request)
    return get_spaces(request).workspace(caller.space)


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
CallerDep = Annotated[Caller, Depends(get_caller)]
SpacesDep = Annotated[Spaces, Depends(get_spaces)]
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


def check_write(
    caller: Caller, settings: Settings, presented: str | None, *, what: str = "Indexing", role: Role = "write"
) -> None:
    """Refuse a write the caller may not make: a space key by its role, anyone else by the server's admin key.

    Decided before any lookup, so a refusal says nothing of what exists.
    """
    if caller.server_admin:
        return
    if caller.anonymous:
        check_admin(settings, presented, required=False, what=what)
        return
    if not allows(caller.role, role):
        raise RoleRequired(
            f"{what} needs a key with the {role} role; this key's role is {caller.role}.",
            hint=f"Ask an admin of your space for a {role} key (`schemasift keys create --role {role}`).",
        )


def check_server_admin(caller: Caller, settings: Settings, presented: str | None, what: str = "Indexing") -> None:
    """Refuse what only the server's operator may do (URL sources, managing spaces) to anyone without the admin key."""
    if caller.server_admin:
        return
    check_admin(settings, presented, required=True, what=what)


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
    caller = get_caller(request)  # a key not in force, or none where keys are issued: 401 there
    settings = get_spaces(request).settings
    if not caller.anonymous or settings.read_key is None:
        return  # a space key of any role reads its own space
    reader = settings.read_key.get_secret_value()
    if not any(_same(token, reader) for token in _sent_keys(request)):
        raise Unauthorized(
            "This server needs a read key.",
            hint="Send it in the X-Read-Key header; the web page asks for it. The operator set it as SCHEMA_SEARCH_READ_KEY.",
        )


ReadKey = Depends(check_read_key)
