"""What the tests of reading pixels (scans, figures) share."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

# The tests that read words need the real Tesseract (never a fake: its confidence and its misreadings
# are the point). The tests' setup installs it (scripts/setup_tesseract.sh); a machine without it skips them.
ocr = pytest.mark.skipif(shutil.which("tesseract") is None, reason="needs tesseract (bash scripts/setup_tesseract.sh)")


@pytest.fixture
def no_model(monkeypatch):
    """Fails the test if a vision model is called."""

    def called(*args, **kwargs):
        raise AssertionError("a vision model was called without vision_model")

    monkeypatch.setattr("schema_search.docs.visual.vision.describe", called)


DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")


def font(size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(DEJAVU), size) if DEJAVU.exists() else ImageFont.load_default(size=size)


def diagram() -> Image.Image:
    """Two labelled boxes joined by a line: labels that exist only as pixels."""
    image = Image.new("RGB", (800, 360), "white")
    draw = ImageDraw.Draw(image)
    for left, label in ((40, "Ingest"), (480, "Warehouse")):
        draw.rectangle((left, 100, left + 280, 260), outline="black", width=4)
        draw.text((left + 30, 160), label, font=font(40), fill="black")
    draw.line((320, 180, 480, 180), fill="black", width=4)
    return image
