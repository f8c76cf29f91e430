"""Hostile files for the pixel reader, made at run time and indexed one per child process.

A truncated PDF, a 500-page scan (one small image on every page: the page limit must cut
it short), and a decompression bomb, a PNG that declares 100,000 x 100,000 pixels, in a
PDF and in a DOCX. Each case is a folder with the file and a small Markdown note, so the
corpus indexes even when the file is refused, and what the index says about the file
(warnings, pages read, chunks) is the outcome.

A child process per case, with a memory ceiling and a time limit: a reader that decodes the
bomb or never stops is reported as such instead of taking the measurement down with it.

    python -m eval.visual.robustness CASE_FOLDER --home DIR    (the child; prints one JSON line)
"""

from __future__ import annotations

import functools
import io
import json
import resource
import struct
import subprocess
import sys
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

from .expected import FOLDER
from .scan import font

BOMB_SIDE = 100_000  # pixels each way: 10 gigapixels declared, in a 1.2 MB file
LONG_SCAN_PAGES = 500
NOTE = "# Robustness case\n\nThis folder holds one hostile file beside this note.\n"


@dataclass(frozen=True)
class Case:
    name: str
    file: str
    expect: str
    make: Callable[[Path], None]


def _truncated(path: Path) -> None:
    data = (FOLDER / "board-manual.pdf").read_bytes()
    path.write_bytes(data[: len(data) * 2 // 5])  # the figure's stream and the cross-reference table lost


def _long_scan(path: Path, pages: int = LONG_SCAN_PAGES) -> None:
    from fpdf import FPDF

    # A whole sheet at a coarse 75 dpi: small in bytes, and still a page-sized scan to the reader.
    sheet = Image.new("L", (620, 877), 240)
    draw = ImageDraw.Draw(sheet)
    for row, line in enumerate(["Delivery note archive", "Box 17, scanned sheet", "Kept for ten years"]):
        draw.text((60, 80 + row * 40), line, font=font(24), fill=30)
    out = io.BytesIO()
    sheet.save(out, format="PNG")
    pdf = FPDF(format="A4")
    for _ in range(pages):
        pdf.add_page()
        pdf.image(io.BytesIO(out.getvalue()), 0, 0, 210, 297)  # one image object, filling every page
    path.write_bytes(bytes(pdf.output()))


@functools.cache
def bomb_rows() -> bytes:
    """The deflated rows of a ``BOMB_SIDE`` squared black-and-white image, all zero: 1.2 MB that
    inflate to 1.25 GB (10 GB once a reader makes the pixels 8-bit). A few seconds to make."""
    rows = zlib.compressobj(9)
    row = bytes(1 + BOMB_SIDE // 8)  # PNG filter byte 0, then the row's bits
    block = row * 1000
    return b"".join(rows.compress(block) for _ in range(BOMB_SIDE // 1000)) + rows.flush()


def bomb_png() -> bytes:
    """A valid PNG of :func:`bomb_rows`."""
    header = struct.pack(">IIBBBBB", BOMB_SIDE, BOMB_SIDE, 1, 0, 0, 0, 0)
    signature = b"\x89PNG\r\n\x1a\n"
    return signature + png_chunk(b"IHDR", header) + png_chunk(b"IDAT", bomb_rows()) + png_chunk(b"IEND", b"")


def png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _bomb_pdf(path: Path) -> None:
    """One page of text with the bomb's pixel data drawn on it, as a PDF embeds a PNG (its IDAT as a
    FlateDecode stream with the PNG predictor)."""
    idat = bomb_rows()
    text = b"BT /F1 12 Tf 72 770 Td (This page holds one very large image below its text.) Tj ET"
    draw = b"q 400 0 0 400 100 250 cm /Im1 Do Q"
    content = text + b"\n" + draw
    image = (
        f"<< /Type /XObject /Subtype /Image /Width {BOMB_SIDE} /Height {BOMB_SIDE} /ColorSpace /DeviceGray "
        f"/BitsPerComponent 1 /Filter /FlateDecode /DecodeParms << /Predictor 15 /Colors 1 /BitsPerComponent 1 "
        f"/Columns {BOMB_SIDE} >> /Length {len(idat)} >>"
    ).encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> /XObject << /Im1 6 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        image + b"\nstream\n" + idat + b"\nendstream",
    ]
    path.write_bytes(pdf_of(objects))


def pdf_of(objects: list[bytes]) -> bytes:
    """A PDF of ``objects`` (numbered from 1, the first the catalog) with its cross-reference table.

    Written by hand because a PDF library will not write an image that declares what it does not
    hold: that lie is what a hostile file tells a reader.
    """
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def _bomb_docx(path: Path) -> None:
    from docx import Document
    from docx.shared import Inches

    document = Document()
    document.add_paragraph("This document holds one very large image below its text.")
    document.add_picture(io.BytesIO(bomb_png()), width=Inches(6), height=Inches(6))
    document.save(path)


CASES = (
    Case("malformed PDF", "truncated.pdf", "a warning naming the file; the rest of the folder indexed", _truncated),
    Case(
        f"{LONG_SCAN_PAGES}-page scan",
        "long-scan.pdf",
        "the page-limit warning; pages up to the limit read, within the time limit",
        _long_scan,
    ),
    Case(
        "decompression bomb in a PDF",
        "bomb.pdf",
        "the image skipped with a pixel-limit warning; the page's text indexed",
        _bomb_pdf,
    ),
    Case(
        "decompression bomb in a DOCX",
        "bomb.docx",
        "the image skipped with a pixel-limit warning; the paragraph indexed",
        _bomb_docx,
    ),
)


def run_cases(scratch: Path, memory_gb: float = 6.0, seconds: float = 600.0) -> list[dict[str, Any]]:
    """Make each case under ``scratch`` and index it in a child process; what happened to each."""
    report = []
    for number, case in enumerate(CASES):
        folder = scratch / f"case-{number}"
        folder.mkdir(parents=True)
        (folder / "note.md").write_text(NOTE, encoding="utf-8")
        case.make(folder / case.file)
        outcome = _child(folder, scratch / f"home-{number}", case.file, memory_gb, seconds)
        size = (folder / case.file).stat().st_size
        report.append({"case": case.name, "file": case.file, "bytes": size, "expected": case.expect} | outcome)
    return report


def _child(folder: Path, home: Path, file: str, memory_gb: float, seconds: float) -> dict[str, Any]:
    command = [sys.executable, "-m", "eval.visual.robustness", str(folder), "--home", str(home), "--file", file]
    ceiling = int(memory_gb * 2**30)

    def limit() -> None:  # in the child, before it starts: the bomb may not take the machine's memory
        resource.setrlimit(resource.RLIMIT_AS, (ceiling, ceiling))

    started = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=seconds, preexec_fn=limit)
    except subprocess.TimeoutExpired:
        return {"outcome": f"timed out after {seconds:.0f} s", "seconds": round(time.perf_counter() - started, 1)}
    lines = done.stdout.strip().splitlines()
    if done.returncode == 0 and lines:
        return json.loads(lines[-1])
    how = f"signal {-done.returncode}" if done.returncode < 0 else f"exit code {done.returncode}"
    return {
        "outcome": f"crashed ({how})",
        "seconds": round(time.perf_counter() - started, 1),
        "error": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "",
    }


def index_case(folder: Path, home: Path, file: str) -> dict[str, Any]:
    """Index ``folder`` with pixels read and without the dense channel (reading is what is tested here)."""
    from schema_search.errors import SchemaSearchError
    from schema_search.settings import Settings
    from schema_search.workspace import Workspace

    settings = Settings(home=home, dense=False, docs_ocr=True, docs_figures=True)
    workspace = Workspace(settings)
    started = time.perf_counter()
    try:
        workspace.corpora.index(folder, corpus="case")
    except SchemaSearchError as error:
        return {"outcome": "refused", "seconds": round(time.perf_counter() - started, 1), "error": error.detail}
    except MemoryError:
        return {"outcome": "out of memory", "seconds": round(time.perf_counter() - started, 1)}
    seconds = time.perf_counter() - started
    stored = workspace.corpora.searcher("case").corpus
    document = next((d for d in stored.documents if d.path == file), None)
    chunks = [c for c in stored.chunks if document is not None and c.document == document.id]
    visual = (document.visual if document else None) or {}
    pages = {c.url.rsplit("#page=", 1)[-1] for c in chunks if "#page=" in c.url}
    return {
        "outcome": "indexed" if chunks else ("listed without text" if document else "not indexed"),
        "seconds": round(seconds, 1),
        "chunks": len(chunks),
        "pages_with_text": len(pages),
        "pages_ocr": visual.get("pages_ocr"),
        "warnings": _warnings(stored.warnings, visual.get("warnings", ()), file),
    }


def _warnings(corpus: tuple[str, ...], reader: tuple[str, ...] | list[str], file: str) -> list[str]:
    """The corpus's warnings about ``file``, then the reader's own that the corpus did not repeat.

    >>> _warnings(("a.pdf: page 1: too big", "b.pdf: no text"), ["page 1: too big", "slow"], "a.pdf")
    ['a.pdf: page 1: too big', 'slow']
    """
    about = [w for w in corpus if w.startswith(f"{file}:")]
    return about + [w for w in reader if f"{file}: {w}" not in about]


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m eval.visual.robustness", description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--file", required=True, help="the case's file, as named in the folder")
    args = parser.parse_args(argv)
    print(json.dumps(index_case(args.folder, args.home, args.file)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
