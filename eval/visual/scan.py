"""Pages that look scanned: typed text drawn onto paper-grey pixels, a little speckled and tilted.

What OCR meets on a real office scan, made reproducibly: the same seed draws the same
page, so the committed PDF and its source text stay a pair.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

FONTS = Path("/usr/share/fonts/truetype/dejavu")
# A4 at 150 dpi: what an office scanner's "document" preset gives.
PAGE_PX = (1240, 1754)
MARGIN = 130
PAPER, INK = 238, 35


def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    """DejaVu Sans, shipped with Debian: every glyph the sample documents use, German included."""
    return ImageFont.truetype(str(FONTS / ("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf")), size)


def wrap(text: str, face: ImageFont.FreeTypeFont, width: int) -> list[str]:
    """``text`` broken into lines no wider than ``width`` pixels, at spaces.

    >>> wrap("one two three", font(20), 90)
    ['one two', 'three']
    """
    lines: list[str] = []
    for word in text.split():
        if lines and face.getlength(f"{lines[-1]} {word}") <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines


def typed_page(paragraphs: list[tuple[str, str]]) -> tuple[Image.Image, list[str]]:
    """A clean page of ``(style, text)`` paragraphs, and the lines drawn on it, in reading order.

    ``style``: ``head`` (running header, small), ``title`` (bold), ``body`` or ``foot``.
    """
    faces = {"head": font(20), "title": font(34, bold=True), "body": font(26), "foot": font(20)}
    page = Image.new("L", PAGE_PX, PAPER)
    draw = ImageDraw.Draw(page)
    drawn: list[str] = []
    y = MARGIN
    for style, text in paragraphs:
        face = faces[style]
        if style == "foot":
            y = PAGE_PX[1] - MARGIN
        for line in wrap(text, face, PAGE_PX[0] - 2 * MARGIN):
            draw.text((MARGIN, y), line, font=face, fill=INK)
            drawn.append(line)
            y += int(face.size * 1.45)
        y += int(face.size * (1.2 if style in ("head", "title") else 0.8))
    return page, drawn


def scanned(page: Image.Image, seed: int, tilt: float) -> bytes:
    """``page`` as a scanner would hand it back: tilted by ``tilt`` degrees, softened,
    speckled with dust, as a greyscale JPEG."""
    rng = np.random.default_rng(seed)
    tilted = page.rotate(tilt, resample=Image.Resampling.BICUBIC, fillcolor=PAPER)
    soft = np.asarray(tilted.filter(ImageFilter.GaussianBlur(0.7)), dtype=np.int16)
    # Dust: a few dark specks; grain: a faint even noise that a JPEG mostly smooths away.
    specks = rng.random(soft.shape) < 0.0006
    grain = rng.normal(0, 4, soft.shape).astype(np.int16)
    noisy = np.clip(np.where(specks, 60, soft + grain), 0, 255).astype(np.uint8)
    out = io.BytesIO()
    Image.fromarray(noisy, "L").save(out, format="JPEG", quality=55, optimize=True)
    return out.getvalue()
