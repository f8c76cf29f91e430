"""The page's files, without a browser: what index.html names exists and is served with the
page's policy, the modules import only each other and the vendored markdown-it, nothing
reaches another host, nothing writes API data as markup, the vendored file is the one its
README names, and the wheel ships every file."""

from __future__ import annotations

import hashlib
import re
import tomllib
from fnmatch import fnmatch
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from schema_search.http import create_app
from schema_search.settings import Settings
from tests.conftest import REPO

STATIC = REPO / "schema_search" / "web" / "static"
FILES = sorted(p for p in STATIC.rglob("*") if p.is_file())
SCRIPTS = sorted((STATIC / "js").glob("*.js"))
VENDOR = STATIC / "vendor"
MARKDOWN_IT = VENDOR / "markdown-it.min.js"
# The SVG namespace is a name, never fetched.
SVG_NS = "http://www.w3.org/2000/svg"
IMPORT = re.compile(r"""^\s*(?:import|export)\s[^'"]*?from\s+["']([^"']+)["']|^\s*import\s+["']([^"']+)["']""", re.M)
DYNAMIC_IMPORT = re.compile(r"""\bimport\(\s*["']([^"']+)["']""")
# A vendored file's licence banner ("/*! name version url @license */") names its home; it reaches nothing.
BANNER = re.compile(r"/\*!.*?\*/", re.S)


@pytest.fixture(scope="module")
def client(tmp_path_factory) -> TestClient:
    settings = Settings(home=tmp_path_factory.mktemp("page-files-home"), embedding_threads=1)
    with TestClient(create_app(settings)) as c:
        yield c


def html() -> str:
    return (STATIC / "index.html").read_text()


def test_what_the_page_names_is_there_and_served_with_its_policy(client: TestClient):
    # Relative to the page, so a server mounted under a prefix serves them under it too.
    names = re.findall(r'(?:src|href)="(ui/[^"]+)"', html())
    assert {"ui/style.css", "ui/js/main.js"} <= set(names)
    assert not re.findall(r'(?:src|href)="/', html()), "a root-absolute address breaks under a prefix"
    for name in names:
        assert (STATIC / name.removeprefix("ui/")).is_file(), name
        response = client.get("/" + name)
        assert response.status_code == 200, name
        assert "script-src 'self'" in response.headers["content-security-policy"]
        assert response.headers["x-content-type-options"] == "nosniff"
    page = client.get("/")
    assert page.status_code == 200 and page.text == html()
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]


def test_the_html_has_no_inline_script_style_or_handler():
    text = html()
    assert all("src=" in tag for tag in re.findall(r"<script\b[^>]*>", text))
    assert not re.search(r"<script\b[^>]*>\s*[^<\s]", text), "inline script"
    assert "<style" not in text
    assert not re.search(r"\sstyle=", text)
    assert not re.search(r"\son[a-z]+=", text)


def test_the_modules_import_each_other_only_and_main_reaches_every_one():
    reached, pending = set(), [STATIC / "js" / "main.js"]
    while pending:
        module = pending.pop()
        if module in reached:
            continue
        reached.add(module)
        for match in IMPORT.finditer(module.read_text()):
            target = match.group(1) or match.group(2)
            assert target.startswith("./") and target.endswith(".js"), f"{module.name} imports {target}"
            path = (module.parent / target).resolve()
            assert path.is_file(), f"{module.name} imports {target}, which is not there"
            pending.append(path)
    assert reached == set(SCRIPTS), f"not imported by anything: {sorted(p.name for p in set(SCRIPTS) - reached)}"


def test_only_markdown_js_loads_the_vendored_file():
    # Loaded on first use, by path from the module: the page works offline and under a prefix.
    loads = {p.name: DYNAMIC_IMPORT.findall(p.read_text()) for p in SCRIPTS}
    assert {k: v for k, v in loads.items() if v} == {"markdown.js": ["../vendor/markdown-it.min.js"]}
    assert (STATIC / "js" / "../vendor/markdown-it.min.js").resolve() == MARKDOWN_IT


def test_the_vendored_file_is_the_one_its_readme_names(client: TestClient):
    readme = (VENDOR / "README").read_text()
    assert readme.startswith("markdown-it 14.") and "npm pack markdown-it@" in readme
    assert f"sha256 {hashlib.sha256(MARKDOWN_IT.read_bytes()).hexdigest()}" in readme
    assert "MIT" in readme and "Permission is hereby granted" in (VENDOR / "LICENSE").read_text()
    served = client.get("/ui/vendor/markdown-it.min.js")
    assert served.status_code == 200 and "javascript" in served.headers["content-type"]
    assert served.headers["content-security-policy"].startswith("default-src 'self'; script-src 'self';")


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_no_file_reaches_another_host(path: Path):
    urls = re.findall(r"""(?:https?:)?//[a-z0-9.-]+\.[a-z]{2,}[^\s"'`)]*""", BANNER.sub("", path.read_text()), re.I)
    assert [u for u in urls if u != SVG_NS] == []


@pytest.mark.parametrize("path", [*SCRIPTS, MARKDOWN_IT], ids=lambda p: p.name)
def test_no_module_writes_markup(path: Path):
    code = path.read_text()
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
        assert sink not in code, f"{path.name} uses {sink}"


def test_the_wheel_ships_every_file():
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    globs = pyproject["tool"]["setuptools"]["package-data"]["schema_search"]
    for path in FILES:
        relative = path.relative_to(REPO / "schema_search").as_posix()
        assert any(fnmatch(relative, g) and relative.count("/") == g.count("/") for g in globs), relative
