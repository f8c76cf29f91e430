"""A folder with a scanned handbook and manuals with diagrams, indexed and searched as a user does it."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from schema_search.cli.main import main as cli
from schema_search.http import create_app
from schema_search.settings import Settings
from schema_search.workspace import Workspace

from ..conftest import REPO

VISUAL = REPO / "sample_docs" / "visual"


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    home = tmp_path_factory.mktemp("home")
    Workspace(Settings(home=home, dense=False)).corpora.index(VISUAL, corpus="manuals")
    return home


def test_a_label_only_in_a_diagram_finds_its_page_cited_as_a_figure(home):
    found = Workspace(Settings(home=home, dense=False)).corpora.search("manuals", "Where is the JBAT1 jumper?", 3)
    top = found.results[0]
    assert top.url.startswith("board-manual.pdf#page=") and "JBAT1" in top.text
    assert top.derived is not None and top.derived.kind == "figure" and top.derived.by == "ocr"
    assert top.derived.note.startswith(f"figure on page {top.derived.page}, read by OCR (confidence")


def test_a_scanned_page_is_searchable_and_marked(home):
    found = Workspace(Settings(home=home, dense=False)).corpora.search("manuals", "core working hours on Fridays", 3)
    scanned = [r for r in found.results if r.url.startswith("handbook-scan.pdf")]
    assert scanned and scanned[0].derived.kind == "scan" and 0 < scanned[0].derived.confidence <= 1


def test_http_reports_each_documents_reading_and_marks_results(home):
    client = TestClient(create_app(Settings(home=home, dense=False)))
    info = client.get("/v1/corpora/manuals").json()
    manual = info["visual"]["device-manual.pdf"]
    assert manual["decorations_skipped"] > 0 and manual["figures_described"] == manual["figures_found"] > 0
    assert info["visual"]["handbook-scan.pdf"]["pages_ocr"] == info["visual"]["handbook-scan.pdf"]["pages"]
    assert manual["vision_calls"] == 0  # no model configured: none is called
    hit = client.post("/v1/corpora/manuals/search", json={"question": "Where is the JBAT1 jumper?", "k": 1}).json()
    detail = client.get(f"/v1/corpora/manuals/documents/{hit['results'][0]['source_id']}").json()
    assert hit["results"][0]["derived"]["kind"] == detail["derived"]["kind"] == "figure"


def test_the_cli_says_where_a_passage_was_read_from(home, capsys):
    assert (
        cli(["docs", "search", "--corpus", "manuals", "Where is the JBAT1 jumper?", "-k", "1", "--home", str(home)])
        == 0
    )
    assert "from a figure on page" in capsys.readouterr().out


def test_without_ocr_and_figures_the_labels_are_not_there(tmp_path):
    workspace = Workspace(Settings(home=tmp_path, dense=False, docs_ocr=False, docs_figures=False))
    workspace.corpora.index(VISUAL, corpus="manuals")
    found = workspace.corpora.search("manuals", "Where is the JBAT1 jumper?", 5)
    assert not any("JBAT1" in r.text for r in found.results) and not any(r.derived for r in found.results)
    assert "handbook-scan.pdf: no text" in " ".join(workspace.corpora.info("manuals").warnings)


def test_an_agent_reads_that_the_passage_came_from_a_figure(home):
    import anyio
    from mcp import Client

    from schema_search.mcp.server import create_server

    async def ask():
        server = create_server(Workspace(Settings(home=home, dense=False)), corpora=["manuals"])
        async with Client(server) as client:
            return await client.call_tool("search_docs", {"question": "Where is the JBAT1 jumper?", "k": 1})

    found = anyio.run(ask)
    assert "; from a figure on page 2, read by OCR" in found.content[0].text
    assert found.structured_content["passages"][0]["derived"].startswith("figure on page 2")
