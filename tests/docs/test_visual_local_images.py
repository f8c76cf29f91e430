"""Image files shown by Markdown, MDX and HTML pages, read as a DOCX's images are: real Tesseract, in
the sandbox's child. Every image is drawn here with Pillow; nothing is fetched."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from schema_search.docs import readers
from schema_search.docs.readers.html import read_html
from schema_search.docs.readers.markdown import read_markdown
from schema_search.docs.visual.options import Visual
from schema_search.docs.visual.session import Session

from .conftest import diagram as drawn_diagram
from .conftest import font, ocr


@pytest.fixture
def sent(monkeypatch) -> list[str]:
    """The files the child was asked to read, in order."""
    paths: list[str] = []
    call = Session.call

    def recorded(self, op, **request):
        if op == "read_image_file":
            paths.append(Path(request["path"]).name)
        return call(self, op, **request)

    monkeypatch.setattr(Session, "call", recorded)
    return paths


def diagram(path: Path) -> Path:
    return saved(drawn_diagram(), path)


def logo(path: Path, size=(240, 120)) -> Path:
    image = Image.new("RGB", (240, 120), "navy")
    ImageDraw.Draw(image).text((30, 35), "ACME", font=font(44), fill="white")
    return saved(image.resize(size), path)


def saved(image: Image.Image, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path, format="PNG")
    return path


def bomb(path: Path) -> Path:
    """A PNG header declaring 100,000 x 100,000 gray pixels, and almost no data."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 100_000, 100_000, 8, 0, 0, 0, 0)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(bytes(400_004)))
        + chunk(b"IEND", b"")
    )
    return path


def page(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def text(section) -> str:
    return "\n".join(block.text for block in section.blocks)


GUIDE = """# Pipeline guide

## Architecture

The pipeline has two stages.

![The pipeline](img/pipeline%20v2.png "Stages")

After the diagram comes the ledger check.
"""


@ocr
def test_a_markdown_diagram_is_a_figure_after_the_paragraph_before_it(tmp_path, no_model, sent):
    diagram(tmp_path / "docs" / "img" / "pipeline v2.png")
    path = page(tmp_path / "docs" / "guide.md", GUIDE)

    fmt, doc = readers.read(path, Visual())
    assert fmt == "markdown" and doc.title == "Pipeline guide"
    assert [s.headings for s in doc.sections] == [("Architecture",), ("Architecture", "Figure 1"), ("Architecture",)]
    before, figure, after = doc.sections
    assert "two stages" in text(before) and "![The pipeline]" in text(before) and "ledger" in text(after)
    assert "Ingest" in text(figure) and "Warehouse" in text(figure)
    assert figure.derived.kind == "figure" and figure.derived.page is None and figure.derived.by == "ocr"
    assert doc.visual["figures_described"] == 1 and doc.visual["warnings"] == [] and sent == ["pipeline v2.png"]
    # Without Visual, or with figures off, the page reads exactly as it did: its text alone.
    plain = readers.read(path)[1]
    assert plain == read_markdown(GUIDE) == readers.read(path, Visual(figures=False))[1]
    assert plain.sections[0].blocks == before.blocks + after.blocks and plain.visual is None


@ocr
def test_an_html_img_is_a_figure_at_its_place_and_the_header_logo_is_not(tmp_path, no_model, sent):
    diagram(tmp_path / "site" / "pipeline.png")
    logo(tmp_path / "site" / "logo.png")
    html = (
        '<html><head><title>Guide</title></head><body><header><img src="logo.png"></header>'
        '<h2 id="arch">Architecture</h2><p>The pipeline has two stages.</p>'
        '<figure><img src="./pipeline.png" alt="The pipeline" width="600" height="270"></figure>'
        "<p>After the diagram comes the ledger check.</p></body></html>"
    )
    path = page(tmp_path / "site" / "guide.html", html)

    _, doc = readers.read(path, Visual())
    assert [(s.headings, s.anchor) for s in doc.sections] == [
        (("Architecture",), "arch"),
        (("Architecture", "Figure 1"), "arch"),
        (("Architecture",), "arch"),
    ]
    before, figure, after = doc.sections
    assert "two stages" in text(before) and "ledger" in text(after) and "Warehouse" in text(figure)
    assert figure.derived.kind == "figure" and sent == ["pipeline.png"]
    assert readers.read(path)[1] == read_html(html)


@ocr
def test_a_tiny_icon_and_an_image_shown_three_times_are_skipped_and_counted(tmp_path, no_model, sent):
    logo(tmp_path / "icon.png", size=(48, 48))
    logo(tmp_path / "badge.png")
    path = page(
        tmp_path / "notes.mdx",
        "import X from './x'\n\n# Notes\n\n![icon](icon.png) Tip.\n\n"
        + "".join(f"Step {n} ![badge](badge.png)\n\n" for n in (1, 2, 3)),
    )

    _, doc = readers.read(path, Visual())
    assert all(s.derived is None for s in doc.sections) and "ACME" not in str(doc.sections)
    assert doc.visual["decorations_skipped"] == 4 and doc.visual["figures_found"] == 0
    assert sent == ["icon.png"]  # the repeated badge is the template's, never opened


@ocr
def test_paths_out_of_the_folder_absolute_paths_and_urls_are_not_read(tmp_path, no_model, sent):
    corpus = tmp_path / "corpus"
    diagram(corpus / "shared" / "flow.png")
    secret = diagram(tmp_path / "secret.png")
    (corpus / "docs" / "img").mkdir(parents=True)
    (corpus / "docs" / "img" / "link.png").symlink_to(secret)
    body = "\n\n".join(
        f"Image {n}: ![{n}]({source})"
        for n, source in enumerate(
            (
                "../shared/flow.png",  # inside the corpus, outside the page's folder
                "../../secret.png",  # outside the corpus
                str(secret),  # absolute: the site's root or the machine's, not read and not warned about
                "img/link.png",  # a link out
                "img/gone.png",  # missing
                "https://example.com/flow.png",
                "data:image/png;base64,iVBORw0KGgo=",
            ),
            1,
        )
    )
    path = page(corpus / "docs" / "guide.md", body + "\n")

    _, doc = readers.read(path, Visual())  # the folder being indexed not given: the page's own folder only
    assert doc.visual["warnings"] == [
        "image 1 (../shared/flow.png) was not read: it is outside the page's folder (the folder being indexed was not given)",
        "image 2 (../../secret.png) was not read: it is outside the page's folder (the folder being indexed was not given)",
        "image 4 (img/link.png) was not read: it is a link to a file outside the folder being indexed",
        "image 5 (img/gone.png) was not read: there is no such file",
    ]
    assert sent == [] and all(s.derived is None for s in doc.sections)
    assert [b.text for s in doc.sections for b in s.blocks] == [
        b.text for s in read_markdown(body).sections for b in s.blocks
    ]

    _, doc = readers.read(path, Visual(), root=corpus)
    assert sent == ["flow.png"] and [s.headings for s in doc.sections if s.derived] == [("Figure 1",)]
    assert len(doc.visual["warnings"]) == 3 and "outside the folder being indexed" in doc.visual["warnings"][0]


def test_only_remote_images_start_nothing_and_the_page_reads_as_before(tmp_path, sent):
    text_ = "# Badges\n\n![build](https://ci.example.com/badge.svg)\n\n<img src='http://x.dev/a.png'>\n"
    path = page(tmp_path / "readme.md", text_)
    assert readers.read(path, Visual())[1] == read_markdown(text_) and sent == []


def test_an_image_declaring_too_many_pixels_is_skipped_with_a_warning_and_the_text_kept(tmp_path, sent):
    bomb(tmp_path / "bomb.png")
    path = page(tmp_path / "bomb.md", "Before the bomb.\n\n![bomb](bomb.png)\n\nAfter the bomb.\n")
    _, doc = readers.read(path, Visual())
    assert [text(s) for s in doc.sections] == ["Before the bomb.\n![bomb](bomb.png)\nAfter the bomb."]
    [warning] = doc.visual["warnings"]
    assert warning.startswith("image 1 (bomb.png) declares") and "docs_visual_max_pixels" in warning
