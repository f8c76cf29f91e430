"""The page's browser tests: the real app over a real workspace, served by uvicorn, in Debian's Chromium.

One workspace (the crm sample as catalog ``crm``, the handbook as corpus ``handbook``, and
the others ``web_home`` names)
and one browser for the session; each test gets a fresh context and page that may reach
only the test server: any other request is aborted and fails the test, as does a console
error or an uncaught exception in the page.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import uvicorn
from playwright.sync_api import Browser, ConsoleMessage, Page, Request, Route, sync_playwright
from starlette.applications import Starlette
from starlette.routing import Mount

from schema_search.describe.run import describe_and_index
from schema_search.http import create_app
from schema_search.settings import Settings
from schema_search.workspace import Workspace
from tests.conftest import HANDBOOK, REPO, SAMPLES, tiny_catalog

CHROMIUM = Path("/usr/bin/chromium")
MARKDOWN_CORPUS = Path(__file__).parent / "markdown_corpus"
# Root in a container needs --no-sandbox; the rest keep Chromium from calling Google
# (updates, sync, field trials) on a network that has no way out.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
READ_KEY = "read-sesame"
ADMIN_KEY = "admin-sesame"
# The browser's own line for a 4xx answer or a refused connection: expected where a test asks for one.
HTTP_ERROR_LINE = re.compile(
    r"^Failed to load resource: (the server responded with a status of (401|403|404)\b|net::ERR_CONNECTION_REFUSED$)"
)


def artifacts() -> Path:
    folder = Path(os.environ.get("SCHEMA_SEARCH_TEST_ARTIFACTS") or REPO / "test-artifacts") / "web"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


class LiveServer:
    """The app under a real uvicorn server in a background thread, on a free port of 127.0.0.1."""

    def __init__(self, workspace: Workspace, prefix: str = "") -> None:
        """``prefix``: mount the app under it, as a proxy that forwards ``/search/`` to the server does."""
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.socket.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.socket.getsockname()[1]}{prefix}"
        app = create_app(workspace=workspace)
        if prefix:
            app = Starlette(routes=[Mount(prefix, app=app)])
        config = uvicorn.Config(app, log_level="warning", lifespan="on")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"The test server at {self.url} did not start.")
            time.sleep(0.02)
        return self

    def __exit__(self, *_exc) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.socket.close()


class RecordedDescriber:
    """Stands in for the LLM with one fixed answer per table, as a recorded response would."""

    model = "recorded/model"
    provider = "recorded"

    def describe(self, table, context: str) -> str:
        return f"Holds one row per {table.name} record, as a model would say it."


@pytest.fixture(scope="session")
def web_home(tmp_path_factory) -> Path:
    """A home with catalog crm (sample_schemas/crm.sql), corpus handbook, corpus notes (one
    handbook page without the manifest, so its URL is the file's path), corpus markdown
    (tests/web/markdown_corpus: Markdown to render, hostile Markdown, plain text), corpus manuals
    (a PDF whose diagram's labels only OCR reads), and catalog tiny with generated descriptions;
    indexed once."""
    home = tmp_path_factory.mktemp("web-home")
    workspace = Workspace(Settings(home=home, embedding_threads=1))
    workspace.catalogs.index(str(SAMPLES / "crm.sql"), catalog="crm")
    workspace.corpora.index(HANDBOOK, corpus="handbook")
    notes = tmp_path_factory.mktemp("notes")
    shutil.copy(HANDBOOK / "policies" / "refunds.md", notes / "refunds.md")
    workspace.corpora.index(notes, corpus="notes")
    workspace.corpora.index(MARKDOWN_CORPUS, corpus="markdown")
    manuals = tmp_path_factory.mktemp("manuals")
    shutil.copy(REPO / "sample_docs" / "visual" / "board-manual.pdf", manuals / "board-manual.pdf")
    workspace.corpora.index(manuals, corpus="manuals")
    workspace.catalogs.index_catalog(tiny_catalog())
    describe_and_index(workspace, "tiny", RecordedDescriber(), concurrency=1)
    return home


@pytest.fixture(scope="session")
def server(web_home: Path):
    with LiveServer(Workspace(Settings(home=web_home, embedding_threads=1))) as live:
        yield live


@pytest.fixture(scope="session")
def locked_server(web_home: Path):
    """The same home behind a read key and an admin key."""
    settings = Settings(home=web_home, embedding_threads=1, read_key=READ_KEY, admin_key=ADMIN_KEY)
    with LiveServer(Workspace(settings)) as live:
        yield live


@pytest.fixture(scope="session")
def prefixed_server(web_home: Path):
    """The same home with the app mounted under /search, as behind a proxy."""
    with LiveServer(Workspace(Settings(home=web_home, embedding_threads=1)), prefix="/search") as live:
        yield live


@pytest.fixture(scope="session")
def browser():
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: scripts/test.sh installs it (apt-get install chromium).")
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@dataclass
class Tab:
    """One test's page, with what it tried to reach and what it complained about."""

    page: Page
    base: str
    name: str
    outside: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    http_errors_expected: bool = False

    def open(self, hash_: str = "#/") -> Page:
        self.page.goto(f"{self.base}/{hash_}")
        return self.page

    def expect_http_errors(self) -> None:
        """This test asks for a 401, 403 or 404, or a refused connection: the browser's console line for it is expected."""
        self.http_errors_expected = True

    def shot(self, suffix: str = "") -> Path:
        path = artifacts() / f"{self.name}{suffix}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path

    def unexpected(self) -> list[str]:
        return [p for p in self.problems if not (self.http_errors_expected and HTTP_ERROR_LINE.match(p))]


def _tab(browser: Browser, base: str, request, viewport: dict) -> Tab:
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.set_default_timeout(10_000)
    tab = Tab(page, base, request.node.name)
    own = urlsplit(base).hostname

    def guard(route: Route, req: Request) -> None:
        if urlsplit(req.url).hostname == own or req.url.startswith(("data:", "about:")):
            route.continue_()
        else:
            tab.outside.append(req.url)
            route.abort()

    def console(message: ConsoleMessage) -> None:
        if message.type == "error":
            tab.problems.append(message.text)

    context.route("**/*", guard)
    page.on("console", console)
    page.on("pageerror", lambda error: tab.problems.append(f"uncaught: {error}"))
    return tab


@pytest.fixture
def viewport() -> dict:
    return {"width": 1280, "height": 900}


def _checked(tab: Tab):
    yield tab
    tab.shot()  # how the page ended, pass or fail
    tab.page.context.close()
    assert not tab.outside, f"the page tried to reach other hosts: {tab.outside}"
    assert not tab.unexpected(), f"console errors in the page: {tab.unexpected()}"


@pytest.fixture
def tab(browser: Browser, server: LiveServer, request, viewport: dict):
    yield from _checked(_tab(browser, server.url, request, viewport))


@pytest.fixture
def locked_tab(browser: Browser, locked_server: LiveServer, request, viewport: dict):
    yield from _checked(_tab(browser, locked_server.url, request, viewport))


@pytest.fixture
def prefixed_tab(browser: Browser, prefixed_server: LiveServer, request, viewport: dict):
    yield from _checked(_tab(browser, prefixed_server.url, request, viewport))
