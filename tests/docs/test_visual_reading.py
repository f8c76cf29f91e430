"""PDFs and DOCX files read beyond their text layer, end to end: real PDFium, real Tesseract,
in the sandbox's child. Every input is drawn here (fpdf2, python-docx, Pillow); a vision
model is a recorded litellm response, never the network."""

from __future__ import annotations

import dataclasses
import io
import struct
import time
import zipfile
import zlib
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from eval.visual.robustness import pdf_of, png_chunk
from schema_search import sandbox
from schema_search.docs import readers
from schema_search.docs.readers.docx import read_docx
from schema_search.docs.readers.pdf import read_pdf
from schema_search.docs.visual.options import Visual
from schema_search.docs.visual.worker import NO_TESSERACT

from .conftest import diagram, font, ocr

A6 = (105, 148)  # mm: small pages read fast
SCAN_LINES = ("Quarterly warehouse report", "Invoices are reconciled every", "night by the billing service.")


def typed(lines: tuple[str, ...], size=(620, 877), text_size=26, top=60) -> Image.Image:
    """A typed page as a scanner sees it: black words on white pixels."""
    image = Image.new("L", size, 255)
    draw = ImageDraw.Draw(image)
    for number, line in enumerate(lines):
        draw.text((50, top + number * int(text_size * 1.6)), line, font=font(text_size), fill=0)
    return image


def logo() -> Image.Image:
    image = Image.new("RGB", (240, 120), "navy")
    ImageDraw.Draw(image).text((30, 35), "ACME", font=font(44), fill="white")
    return image


def scanned_pdf(path: Path, pages: int) -> Path:
    from fpdf import FPDF

    pdf = FPDF(format=A6)
    for number in range(1, pages + 1):
        pdf.add_page()
        pdf.image(typed((*SCAN_LINES, f"Page number {number}")), x=0, y=0, w=A6[0], h=A6[1])
    pdf.output(str(path))
    return path


def text(section) -> str:
    return "\n".join(block.text for block in section.blocks)


@ocr
def test_an_image_only_page_is_transcribed_by_ocr_with_its_confidence(tmp_path, no_model):
    fmt, doc = readers.read(scanned_pdf(tmp_path / "scan.pdf", 1), Visual())
    assert fmt == "pdf" and readers.read(tmp_path / "scan.pdf")[1].sections == ()  # no text layer at all
    [page] = doc.sections
    assert page.headings == ("Page 1",) and page.anchor == "page=1"
    assert "warehouse report" in text(page).lower() and "billing service" in text(page).lower()
    assert page.derived.kind == "scan" and page.derived.by == "ocr" and page.derived.confidence > 0.7
    assert doc.visual["pages_ocr"] == 1 and doc.visual["languages"] == ["eng"] and doc.visual["warnings"] == []


@ocr
def test_a_page_on_its_side_is_turned_upright_and_a_german_page_read_in_german(tmp_path, no_model):
    from fpdf import FPDF

    german = ("Die Rechnungen werden jede Nacht", "vom Abrechnungsdienst geprüft und", "mit dem Hauptbuch abgeglichen.")
    pdf = FPDF(format=A6)
    for image in (typed(SCAN_LINES), typed(SCAN_LINES).rotate(90, expand=True), typed(german)):
        pdf.add_page()
        pdf.image(image, x=0, y=0, w=A6[0], h=A6[1])
    pdf.output(str(tmp_path / "mixed.pdf"))
    _, doc = readers.read(tmp_path / "mixed.pdf", Visual())
    upright, turned, german_page = (text(s) for s in doc.sections)
    assert "billing service" in upright and "billing service" in turned
    assert "geprüft" in german_page and doc.visual["languages"] == ["eng", "deu"]


@ocr
def test_a_diagrams_labels_become_a_figure_section_between_the_text_above_and_below_it(tmp_path, no_model):
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("helvetica", size=12)
    pdf.multi_cell(0, 8, "The pipeline loads invoices in two stages, shown below.")
    pdf.image(diagram(), x=20, y=50, w=170)
    pdf.set_xy(10, 140)
    pdf.multi_cell(0, 8, "After loading, the totals are checked against the ledger.")
    path = tmp_path / "pipeline.pdf"
    pdf.output(str(path))
    assert "Warehouse" not in text(readers.read(path)[1].sections[0])  # the labels are pixels only

    _, doc = readers.read(path, Visual())
    assert [s.headings for s in doc.sections] == [("Page 1",), ("Page 1", "Figure 1"), ("Page 1",)]
    above, figure, below = doc.sections
    assert "two stages" in text(above) and "ledger" in text(below)
    assert "Ingest" in text(figure) and "Warehouse" in text(figure) and figure.anchor == "page=1"
    assert figure.derived.kind == "figure" and figure.derived.page == 1 and figure.derived.by == "ocr"
    assert figure.derived.confidence > 0.7
    assert doc.visual["figures_found"] == doc.visual["figures_described"] == 1 and doc.visual["vision_calls"] == 0


@ocr
def test_a_figure_inside_a_form_xobject_is_found_where_the_form_places_it(tmp_path, no_model):
    import pypdfium2 as pdfium
    from fpdf import FPDF

    figure = FPDF(unit="pt", format=(800, 360))  # an included PDF figure, as LaTeX places one
    figure.add_page()
    figure.image(diagram(), x=0, y=0, w=800, h=360)
    page = FPDF(unit="pt", format=(595, 842))
    page.add_page()
    page.set_font("helvetica", size=12)
    page.multi_cell(0, 16, "The stages of the pipeline are drawn below.")
    page.set_xy(28, 500)
    page.multi_cell(0, 16, "Each stage runs nightly.")
    document = pdfium.PdfDocument(bytes(page.output()))
    source = pdfium.PdfDocument(bytes(figure.output()))  # kept open until the document is saved
    placed = source.page_as_xobject(0, document).as_pageobject()
    placed.set_matrix(pdfium.PdfMatrix().scale(0.6, 0.6).translate(60, 400))  # 480 x 216 pt, top at y=616
    target = document[0]
    target.insert_obj(placed)
    target.gen_content()
    out = io.BytesIO()
    document.save(out)

    doc = read_pdf(out.getvalue(), Visual())
    assert [s.headings for s in doc.sections] == [("Page 1",), ("Page 1", "Figure 1"), ("Page 1",)]
    assert "drawn below" in text(doc.sections[0]) and "nightly" in text(doc.sections[2])
    assert "Warehouse" in text(doc.sections[1])


def template_pdf(path: Path) -> Path:
    """Three pages, each with the company's logo and a frame; page 2 also holds a real figure."""
    from fpdf import FPDF

    pdf = FPDF()
    for number in (1, 2, 3):
        pdf.add_page()
        pdf.image(logo(), x=12, y=10, w=30)
        pdf.rect(6, 6, 198, 285)
        pdf.set_font("helvetica", size=12)
        pdf.set_xy(12, 40)
        pdf.multi_cell(0, 8, f"Section {number} of the operations handbook, with its own text.")
        if number == 2:
            pdf.image(diagram(), x=20, y=70, w=170)
    pdf.output(str(path))
    return path


@ocr
def test_the_templates_logo_and_frame_are_skipped_on_every_page_and_only_the_figure_read(tmp_path, no_model):
    _, doc = readers.read(template_pdf(tmp_path / "handbook.pdf"), Visual())
    figures = [s for s in doc.sections if s.derived is not None]
    assert [(s.headings, s.derived.page) for s in figures] == [(("Page 2", "Figure 1"), 2)]
    assert not any("ACME" in text(s) for s in doc.sections)
    report = doc.visual
    assert (report["figures_found"], report["figures_described"], report["decorations_skipped"]) == (1, 1, 6)


@ocr
def test_a_vision_model_describes_the_figure_and_the_ocr_labels_follow(tmp_path, monkeypatch):
    from schema_search.llm.providers import import_litellm

    litellm = import_litellm()
    complete, calls = litellm.completion, []

    def recorded(**kwargs):
        calls.append(kwargs)
        return complete(**kwargs, mock_response="A flow diagram: Ingest (left) feeds Warehouse (right).")

    monkeypatch.setattr(litellm, "completion", recorded)
    _, doc = readers.read(template_pdf(tmp_path / "handbook.pdf"), Visual(vision_model="openai/gpt-4o-mini"))
    [figure] = [s for s in doc.sections if s.derived is not None]
    assert text(figure).startswith("A flow diagram: Ingest (left) feeds Warehouse (right).")
    assert "Text in the figure:" in text(figure) and "Warehouse" in text(figure).split("Text in the figure:")[1]
    assert figure.derived.by == "vision:openai/gpt-4o-mini" and figure.derived.confidence is None
    [call] = calls  # the logo and the frame never reach the model
    image = call["messages"][0]["content"][1]
    assert image["type"] == "image_url" and image["image_url"]["url"].startswith("data:image/png;base64,")
    assert doc.visual["vision_calls"] == 1 and doc.visual["vision_cost_usd"] >= 0


@ocr
def test_a_failing_vision_model_leaves_the_ocr_labels_and_one_warning(tmp_path, monkeypatch):
    def refused(png, model, timeout):
        raise RuntimeError("AuthenticationError: no key for openai")

    monkeypatch.setattr("schema_search.docs.visual.vision.describe", refused)
    _, doc = readers.read(template_pdf(tmp_path / "handbook.pdf"), Visual(vision_model="openai/gpt-4o-mini"))
    [figure] = [s for s in doc.sections if s.derived is not None]
    assert figure.derived.by == "ocr" and "Warehouse" in text(figure)
    [warning] = doc.visual["warnings"]
    assert "openai/gpt-4o-mini failed" in warning and "no key" in warning and doc.visual["vision_calls"] == 1


def test_without_tesseract_a_scan_reads_as_before_with_a_warning(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # a child started now finds no tesseract
    _, doc = readers.read(scanned_pdf(tmp_path / "scan.pdf", 1), Visual(memory_mb=1500))
    assert doc.sections == () and doc.visual["pages_ocr"] == 0
    assert doc.visual["warnings"] == ["tesseract is not installed: scanned pages and figure labels were not read"]


@ocr
def test_a_docx_diagram_is_a_figure_at_its_paragraphs_place_and_icons_and_header_logo_are_not(tmp_path, no_model):
    import docx
    from docx.shared import Inches

    def png(image: Image.Image) -> io.BytesIO:
        out = io.BytesIO()
        image.save(out, format="PNG")
        out.seek(0)
        return out

    document = docx.Document()
    document.core_properties.title = "Pipeline guide"
    document.add_heading("Architecture", level=1)
    document.add_paragraph("The pipeline has two stages.")
    document.add_picture(png(diagram()), width=Inches(5))
    document.add_paragraph("After the diagram comes the ledger check.")
    for _ in range(3):  # a bullet icon, three times
        document.add_paragraph().add_run().add_picture(png(logo()), width=Inches(0.6))
    document.sections[0].header.paragraphs[0].add_run().add_picture(png(logo()), width=Inches(1))
    path = tmp_path / "guide.docx"
    document.save(str(path))

    fmt, doc = readers.read(path, Visual())
    assert fmt == "docx" and doc.title == "Pipeline guide"
    assert [s.headings for s in doc.sections] == [("Architecture",), ("Architecture", "Figure 1"), ("Architecture",)]
    before, figure, after = doc.sections
    assert "two stages" in text(before) and "ledger" in text(after)
    assert "Ingest" in text(figure) and "Warehouse" in text(figure) and "ACME" not in text(figure)
    assert figure.derived.kind == "figure" and figure.derived.page is None and figure.derived.by == "ocr"
    assert doc.visual["pages"] is None and doc.visual["decorations_skipped"] == 3
    [plain] = readers.read(path)[1].sections  # without Visual, as before: the text alone
    assert plain.blocks == before.blocks + after.blocks and doc.visual["warnings"] == []


def test_a_malformed_pdf_is_a_readable_error(tmp_path):
    with pytest.raises(ValueError, match="not a readable PDF"):
        read_pdf(b"%PDF-1.7\n1 0 obj << /Type /Catalog >> garbage", Visual())


def bomb_pdf() -> bytes:
    """One page of text and an image that declares 100,000 x 100,000 pixels in 1 kB of zlib."""
    stream = zlib.compress(bytes(1_000_000), 9)
    content = b"BT /F1 12 Tf 72 760 Td (The text layer of this page outlives the image bomb.) Tj ET q 400 0 0 300 90 300 cm /Im1 Do Q"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 6 0 R"
        b" /Resources << /XObject << /Im1 4 0 R >> /Font << /F1 5 0 R >> >> >>",
        b"<< /Type /XObject /Subtype /Image /Width 100000 /Height 100000 /ColorSpace /DeviceGray"
        b" /BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
    ]
    return pdf_of(objects)


def test_a_pdf_image_declaring_too_many_pixels_is_never_decoded_and_the_page_keeps_its_text():
    doc = read_pdf(bomb_pdf(), Visual())
    assert "outlives the image bomb" in text(doc.sections[0]) and doc.sections[0].derived is None
    [warning] = doc.visual["warnings"]
    assert "100,000 x 100,000 pixels" in warning and "docs_visual_max_pixels" in warning


def bomb_png() -> bytes:
    """A PNG header declaring 100,000 x 100,000 gray pixels, and almost no data."""
    header = struct.pack(">IIBBBBB", 100_000, 100_000, 8, 0, 0, 0, 0)
    idat = zlib.compress(bytes(100_001 * 4))
    return b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", header) + png_chunk(b"IDAT", idat) + png_chunk(b"IEND", b"")


def test_a_docx_image_declaring_too_many_pixels_is_skipped_with_a_warning(tmp_path):
    import docx
    from docx.shared import Inches

    document = docx.Document()
    document.add_paragraph("Before the bomb.")
    document.add_picture(io.BytesIO(bomb_png()), width=Inches(4))
    document.add_paragraph("After the bomb.")
    path = tmp_path / "bomb.docx"
    document.save(str(path))
    doc = read_docx(path.read_bytes(), Visual())
    assert [text(s) for s in doc.sections] == ["Before the bomb.\nAfter the bomb."]
    [warning] = doc.visual["warnings"]
    assert "image 1" in warning and "docs_visual_max_pixels" in warning


@ocr
def test_pages_past_max_pages_keep_their_text_layer_with_a_warning(tmp_path):
    _, doc = readers.read(scanned_pdf(tmp_path / "long.pdf", 3), Visual(max_pages=1))
    assert [s.headings for s in doc.sections] == [("Page 1",)] and doc.visual["pages_ocr"] == 1
    [warning] = doc.visual["warnings"]
    assert "pages 2-3" in warning and "docs_visual_max_pages" in warning


@ocr
def test_the_documents_deadline_stops_ocr_and_keeps_what_was_read(tmp_path):
    path = scanned_pdf(tmp_path / "slow.pdf", 12)
    started = time.monotonic()
    _, doc = readers.read(path, Visual(seconds=2.0))
    elapsed = time.monotonic() - started
    assert 1 <= doc.visual["pages_ocr"] < 12 and len(doc.sections) == doc.visual["pages_ocr"]
    assert doc.visual["seconds"] < 2.0 + 1.0 and elapsed < 2.0 + 8  # the child's start is outside the clock
    assert any("docs_visual_seconds" in w and "-12" in w for w in doc.visual["warnings"])


@ocr
def test_a_page_too_large_for_the_memory_cap_is_a_warning_and_the_rest_is_read(tmp_path):
    from fpdf import FPDF

    pdf = FPDF(unit="pt", format=(595, 842))
    pdf.add_page(format=(14_000, 14_000))  # 389 x 389 cm: 1.5 GB of pixels at 200 dpi
    pdf.image(typed(("A poster nobody can render",)), x=0, y=0, w=14_000, h=14_000)
    pdf.add_page()
    pdf.image(typed(SCAN_LINES), x=0, y=0, w=595, h=842)
    path = tmp_path / "poster.pdf"
    pdf.output(str(path))
    _, doc = readers.read(path, Visual(memory_mb=400, max_pixels=2_000_000_000))
    assert [s.headings for s in doc.sections] == [("Page 2",)] and "billing service" in text(doc.sections[0])
    assert any(w.startswith("page 1") or "out of memory" in w for w in doc.visual["warnings"]), doc.visual


def test_when_the_reading_process_cannot_start_a_pdf_keeps_its_text_layer(tmp_path, monkeypatch):
    from schema_search import sandbox

    class Dead(sandbox.Child):
        def call(self, request, *, limit_s, frame=None):
            raise sandbox.Stopped("The query process did not start.")

    monkeypatch.setattr("schema_search.docs.visual.session.shared_child", lambda *args, **kwargs: Dead(0))
    path = template_pdf(tmp_path / "handbook.pdf")
    _, doc = readers.read(path, Visual())
    assert doc.sections == readers.read(path)[1].sections
    assert "did not start" in doc.visual["warnings"][0]


# --- hostile and damaged files, and the child's limits ---------------------------------------


def png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def docx_of(*images: bytes) -> bytes:
    """A DOCX of a paragraph, then each image (``word/media/image1.png`` on), then a paragraph."""
    import docx
    from docx.shared import Inches

    document = docx.Document()
    document.add_paragraph("Before the images.")
    for number in range(len(images)):  # distinct placeholders, each its own member, replaced below
        document.add_picture(io.BytesIO(png(diagram().rotate(number))), width=Inches(4))
    document.add_paragraph("After the images.")
    out = io.BytesIO()
    document.save(out)
    return rezip(out.getvalue(), {f"word/media/image{n}.png": data for n, data in enumerate(images, 1)})


def rezip(data: bytes, members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    """``data``'s zip with ``members`` replaced (``method`` for them, deflated for the rest)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            if info.filename in members:
                target.writestr(info.filename, members[info.filename], compress_type=method)
            else:
                target.writestr(info.filename, source.read(info.filename))
    return out.getvalue()


def damaged(data: bytes, member: str, *, flag: int = 0, method: int | None = None, garble: bool = False) -> bytes:
    """``data``'s zip with ``member``'s headers changed (a flag bit set, another method) or its stream garbled."""
    out = bytearray(data)
    info = zipfile.ZipFile(io.BytesIO(data)).getinfo(member)
    local = info.header_offset
    name_length, extra_length = struct.unpack("<HH", out[local + 26 : local + 30])
    start = local + 30 + name_length + extra_length
    if garble:
        out[start : start + info.compress_size] = b"\xff" * info.compress_size
    central = out.find(b"PK\x01\x02")  # the central directory's first entry
    while central != -1:
        length = struct.unpack("<H", out[central + 28 : central + 30])[0]
        if out[central + 46 : central + 46 + length] == member.encode():
            for offset, flags, methods in ((local, 6, 8), (central, 8, 10)):
                out[offset + flags : offset + flags + 2] = struct.pack("<H", info.flag_bits | flag)
                if method is not None:
                    out[offset + methods : offset + methods + 2] = struct.pack("<H", method)
        central = out.find(b"PK\x01\x02", central + 4)
    return bytes(out)


@pytest.fixture
def fake_model(monkeypatch):
    """A vision model that describes every figure alike: figures are read with or without Tesseract."""
    monkeypatch.setattr("schema_search.docs.visual.vision.describe", lambda png, model, timeout: ("A figure.", 0.0))
    return Visual(vision_model="fake/model")


def test_a_damaged_encrypted_or_oddly_compressed_docx_image_is_a_warning_and_the_text_is_read(fake_model):
    data = docx_of(png(diagram()), png(logo().resize((480, 240))), png(diagram().rotate(180)))
    data = damaged(data, "word/media/image1.png", garble=True)  # zlib.error
    data = damaged(data, "word/media/image2.png", flag=0x1)  # RuntimeError: encrypted
    data = damaged(data, "word/media/image3.png", method=99)  # NotImplementedError
    doc = read_docx(data, fake_model)
    assert [text(s) for s in doc.sections] == ["Before the images.\nAfter the images."]
    first, second, third = doc.visual["warnings"]
    assert first.startswith("image 1 (word/media/image1.png)") and "damaged" in first
    assert "image 2" in second and "encrypted" in second and "image 3" in third and "method 99" in third


@pytest.mark.parametrize(
    "how", [{"garble": True}, {"flag": 0x1}, {"method": 99}], ids=["damaged", "encrypted", "unknown-method"]
)
def test_a_docx_whose_document_xml_cannot_be_inflated_is_a_readable_error(how):
    data = damaged(docx_of(), "word/document.xml", **how)
    for visual in (None, Visual()):
        with pytest.raises(ValueError, match="not a readable DOCX file"):
            read_docx(data, visual)


def test_docx_images_are_inflated_one_at_a_time_in_the_child_within_a_total(fake_model, monkeypatch):
    opened = []
    open_member = zipfile.ZipFile.open

    def recorded(self, name, *args, **kwargs):
        opened.append(getattr(name, "filename", name))
        return open_member(self, name, *args, **kwargs)

    pictures = [png(diagram()), png(diagram().rotate(180)), png(diagram().transpose(Image.Transpose.FLIP_LEFT_RIGHT))]
    data = docx_of(*pictures)
    monkeypatch.setattr("schema_search.docs.visual.figure_text.MAX_DOCUMENT_BYTES", len(pictures[0]) * 3 // 2)
    monkeypatch.setattr(zipfile.ZipFile, "open", recorded)  # in this process only, not the child's
    doc = read_docx(data, fake_model)
    assert not any(name.startswith("word/media/") for name in opened), opened
    assert doc.visual["figures_found"] == 1 and [s.headings[-1] for s in doc.sections if s.derived] == ["Figure 1"]
    [warning] = doc.visual["warnings"]
    assert warning.startswith("images 2 to 3 were not read") and f"{len(pictures[0]) * 3 // 2:,} bytes" in warning


def test_a_bzip2_docx_image_is_refused_unread(fake_model):
    data = rezip(docx_of(png(diagram())), {"word/media/image1.png": png(diagram())}, zipfile.ZIP_BZIP2)
    doc = read_docx(data, fake_model)
    [warning] = doc.visual["warnings"]
    assert "image 1" in warning and "stored or deflated" in warning and doc.visual["figures_found"] == 0


def eps() -> bytes:
    return b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 400 300\nnewpath 0 0 moveto 400 300 lineto stroke\n%%EOF\n"


def test_the_child_decodes_no_eps_nor_an_image_shown_at_under_one_dpi():
    from schema_search.docs.visual import worker

    data = rezip(docx_of(png(diagram()), png(diagram().rotate(180))), {"word/media/image1.png": eps()})
    state: dict = {}
    worker.open_docx({"data": data}, state)
    request = {"seconds": 30, "limit": 10**7, "max_pixels": 40_000_000, "language": "eng", "ocr": False}
    request |= {"images": False, "size": None, "page": (612.0, 792.0), "repeated": False}
    refused = worker.read_image({**request, "member": "word/media/image1.png"}, state)
    assert "EPS" in refused["failed"] and "not a PNG" in refused["failed"]  # Ghostscript never ran
    huge = worker.read_image({**request, "member": "word/media/image2.png", "size": (200_000.0, 90_000.0)}, state)
    assert "failed" not in huge and huge["transcript"] is None and huge["bytes"] > 0  # 0 dpi, rounded


def test_the_documents_child_starts_without_secrets_in_a_tmpdir_of_its_own_and_ends_with_its_group(monkeypatch):
    import os

    from schema_search.docs.visual.report import Report
    from schema_search.docs.visual.session import Session

    monkeypatch.setenv("ACME_SERVICE_API_KEY", "sk-live-0123456789")
    monkeypatch.setenv("DEPLOY_PASSWORD_FILE", "/run/secrets/deploy")
    session = Session(Visual(memory_mb=1400), Report())
    environment = session.child.environment()
    assert "ACME_SERVICE_API_KEY" not in environment and "DEPLOY_PASSWORD_FILE" not in environment
    assert environment["PATH"] == os.environ["PATH"]
    with session:  # starts the child
        process, tmp = session.child._process, session.child._tmp
        assert os.getpgid(process.pid) == process.pid and Path(tmp).is_dir()
    session.child.close()
    assert process.poll() is not None and not Path(tmp).exists()


class Scripted(sandbox.Child):
    """A child that answers by script (``op`` name -> reply, or an exception to raise), recording each request."""

    def __init__(self, script: dict) -> None:
        super().__init__(0)
        self.script, self.requests = script, []

    def call(self, request, *, limit_s, frame=None):
        name = request["op"].rpartition(":")[2]
        self.requests.append((name, request, limit_s))
        reply = self.script.get(name, {})
        if callable(reply):
            reply = reply(request)
        if isinstance(reply, Exception):
            raise reply
        return {"ok": True, **reply}


def scripted(monkeypatch, script: dict) -> Scripted:
    child = Scripted(script)
    monkeypatch.setattr("schema_search.docs.visual.session.shared_child", lambda *args, **kwargs: child)
    return child


def test_the_child_is_given_the_time_left_less_the_grace_the_parent_waits_beyond_it(monkeypatch):
    from schema_search.docs.visual.report import Report
    from schema_search.docs.visual.session import Session

    child = scripted(monkeypatch, {"tesseract_languages": {"languages": ["eng"]}})
    with Session(Visual(seconds=10), Report()) as session:
        session.call("tesseract_languages")
    _, request, limit_s = child.requests[-1]
    assert request["seconds"] < 10 - sandbox.GRACE_S + 0.01 and limit_s - request["seconds"] == pytest.approx(
        2 * sandbox.GRACE_S
    )


def text_pdf(pages: int) -> bytes:
    from fpdf import FPDF

    pdf = FPDF(format=A6)
    pdf.set_font("helvetica", size=10)
    for number in range(1, pages + 1):
        pdf.add_page()
        pdf.multi_cell(0, 6, f"The text layer of page {number} outlives the reader.")
    return bytes(pdf.output())


def test_pages_pdfium_crashed_on_keep_their_text_layer_by_pypdf(monkeypatch):
    scripted(
        monkeypatch,
        {
            "open_pdf": {"pages": 3, "title": None},
            "view_pages": sandbox.Stopped("memory"),
            "tesseract_languages": {"languages": ["eng"]},
        },
    )
    doc = read_pdf(text_pdf(3), Visual())
    assert [s.headings for s in doc.sections] == [("Page 1",), ("Page 2",), ("Page 3",)]
    assert "page 3 outlives" in text(doc.sections[2])
    assert any(w.startswith("pages 1-3 were read by their text layer only") for w in doc.visual["warnings"])


def test_a_pdf_pdfium_did_not_open_in_time_keeps_its_text_layer_by_pypdf():
    data = text_pdf(2)
    doc = read_pdf(data, Visual(seconds=0.5))  # less than the grace: nothing is sent to the child
    assert doc.sections == read_pdf(data).sections
    [warning] = doc.visual["warnings"]
    assert "docs_visual_seconds" in warning and "pypdf" in warning


def test_when_the_time_is_up_the_rest_of_the_pages_are_not_even_classified(monkeypatch, fake_model):
    from schema_search.docs.visual.figures import Drawn, PageView

    def slow(request):
        time.sleep(0.6)
        figure = Drawn("image", (20, 100, 280, 380), pixels=(800, 800), key="f")
        return {"views": [(PageView(n, 298, 420, 40, (figure,)), f"page {n}") for n in (1, 2)]}

    scripted(monkeypatch, {"open_pdf": {"pages": 2, "title": None}, "view_pages": slow})

    def classified(*args):
        raise AssertionError("a page was classified after the time was up")

    monkeypatch.setattr("schema_search.docs.visual.pdf.find_figures", classified)
    doc = read_pdf(text_pdf(2), dataclasses.replace(fake_model, seconds=1.3))
    assert [text(s) for s in doc.sections] == ["page 1", "page 2"]
    assert any(w.startswith("pages 1-2 kept their text layer only") for w in doc.visual["warnings"])


def test_without_tesseract_or_a_model_no_figure_is_rendered_nor_counted(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # a child started now finds no tesseract
    visual = Visual(memory_mb=1500)
    pdf = readers.read(template_pdf(tmp_path / "handbook.pdf"), visual)[1]
    assert pdf.visual["figures_found"] == 0 and pdf.visual["warnings"] == [NO_TESSERACT]
    docx = read_docx(docx_of(png(diagram())), visual)
    assert docx.visual["figures_found"] == 0 and docx.visual["warnings"] == [NO_TESSERACT]


def test_side_by_side_figures_cut_the_text_between_them_once():
    import pypdfium2 as pdfium
    from fpdf import FPDF

    from schema_search.docs.visual.pages import text_pieces

    pdf = FPDF(unit="pt", format=(595, 842))
    pdf.add_page()
    pdf.set_font("helvetica", size=12)
    for line, top in (("Above both figures.", 100), ("Beside the shorter one.", 390), ("Below both figures.", 600)):
        pdf.text(60, top, line)  # fpdf measures from the top: PDF heights 742, 452, 242
    document = pdfium.PdfDocument(bytes(pdf.output()))
    # The taller figure (top 780, bottom 300) comes first, the shorter beside it ends at 500.
    pieces = text_pieces(document, 1, [300, 500])
    joined = "\n".join(pieces)
    assert [joined.count(line) for line in ("Above both", "Beside the shorter", "Below both")] == [1, 1, 1]
    assert "Below both" in pieces[-1] and "Above both" in pieces[0]
