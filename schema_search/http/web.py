"""``/``: the web page, and its files under ``/ui``, from the package (``schema_search/web/static``).

The page is plain HTML, CSS and ES modules that call the API like any client: there is
no build step a fresh machine could not run, and nothing is loaded from elsewhere.
The Content-Security-Policy says so to the browser too (``'self'`` only), so a file
that tried to reach a CDN would fail in the browser tests, not only on an offline
machine. Frames are denied: the page's buttons write (with the admin key), and no
other site should be able to overlay them.
"""

from __future__ import annotations

from importlib.resources import files

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from starlette.responses import FileResponse, Response
from starlette.types import Receive, Scope, Send

ASSETS = "/ui"
FOLDER = files("schema_search.web") / "static"
POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)
HEADERS = {"Content-Security-Policy": POLICY, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}


class _Assets(StaticFiles):
    """The page's files, with the page's headers; revalidated on each load (ETag) so an upgrade shows at once."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                extra = [(k.lower().encode(), v.encode()) for k, v in {**HEADERS, "Cache-Control": "no-cache"}.items()]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await super().__call__(scope, receive, send_with_headers)


def install(app: FastAPI) -> None:
    """Serve the page at ``/`` and its files at ``/ui``."""
    app.mount(ASSETS, _Assets(directory=str(FOLDER)), name="web-assets")

    @app.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
    async def page() -> Response:
        return FileResponse(
            str(FOLDER / "index.html"), media_type="text/html", headers={**HEADERS, "Cache-Control": "no-cache"}
        )
