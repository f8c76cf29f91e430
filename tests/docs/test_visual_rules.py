"""The pure rules of reading pixels, on synthetic page objects (no PDF, no Tesseract): which
objects are figures and which decoration, which pages are scans, where a figure's section
goes, and each module's own doctests."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import time
from xml.etree import ElementTree

import pytest

import schema_search.docs.visual
from schema_search.docs.corpus import Block, Derived, Section
from schema_search.docs.visual.docx import Picture, part_name, pictures
from schema_search.docs.visual.figures import (
    MAX_GROUPED,
    Drawn,
    PageView,
    capped,
    find_figures,
    groups,
    repeated_keys,
    too_large,
)
from schema_search.docs.visual.options import Visual
from schema_search.docs.visual.place import Insert, marker, place
from schema_search.docs.visual.scans import is_scan

MODULES = sorted(m.name for m in pkgutil.iter_modules(schema_search.docs.visual.__path__, "schema_search.docs.visual."))
A4 = (595.0, 842.0)


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    failed, attempted = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert failed == 0, f"{failed} of {attempted} doctests of {name} failed (run pytest -s to see them)"


def page(number: int, *objects: Drawn, chars: int = 1500) -> PageView:
    return PageView(number, *A4, chars, objects)


LOGO = Drawn("image", (30, 780, 80, 820), pixels=(240, 240), key="logo")
FRAME = Drawn("path", (14, 14, 581, 828), segments=5)
PHOTO = Drawn("image", (60, 300, 535, 640), pixels=(1600, 1100), key="photo")


def test_a_logo_and_a_frame_on_every_page_are_decoration_and_the_one_photo_a_figure():
    pages = [page(1, LOGO, FRAME), page(2, LOGO, FRAME, PHOTO), page(3, LOGO, FRAME)]
    repeated = repeated_keys(pages)
    assert repeated == {"logo"}
    found = [find_figures(p, repeated) for p in pages]
    assert [len(f.figures) for f in found] == [0, 1, 0]
    assert found[1].figures[0].box == PHOTO.box and found[1].figures[0].kind == "image"
    assert sum(f.decorations for f in found) == 6


def test_an_image_on_half_the_pages_is_the_templates_once_in_a_long_document_a_figure():
    banner = Drawn("image", (60, 700, 535, 800), pixels=(1600, 300), key="banner")
    two_of_four = [page(1, banner), page(2, banner), page(3), page(4)]
    assert repeated_keys(two_of_four) == {"banner"}
    two_of_ten = [page(n, *((banner,) if n in (3, 7) else ())) for n in range(1, 11)]
    assert repeated_keys(two_of_ten) == set()  # shown twice in ten pages: the text refers to it


def test_tiny_images_are_decoration_but_many_side_by_side_are_a_montage():
    icon = Drawn("image", (100, 100, 112, 112), pixels=(32, 32), key="icon")
    assert find_figures(page(1, icon)).figures == ()
    small = [Drawn("image", (60 + 90 * i, 400, 140 + 90 * i, 470), pixels=(300, 260), key=f"t{i}") for i in range(5)]
    assert find_figures(page(1, small[0])).figures == ()  # 1.1% of the page alone
    [montage] = find_figures(page(1, *small)).figures
    assert montage.kind == "montage" and montage.box == (60, 400, 500, 470)


def test_many_vector_paths_are_a_drawing_a_few_strays_and_a_tables_rules_are_not():
    bars = [Drawn("path", (100 + 40 * i, 200, 130 + 40 * i, 220 + 25 * i)) for i in range(8)]
    axes = [Drawn("path", (95, 195, 440, 196)), Drawn("path", (95, 195, 96, 430))]
    [chart] = find_figures(page(1, *bars, *axes)).figures
    assert chart.kind == "drawing" and chart.box == (95, 195, 440, 430)
    strays = [Drawn("path", (60, 500, 300, 501)), Drawn("path", (60, 520, 300, 521)), Drawn("path", (60, 540, 70, 550))]
    assert find_figures(page(1, *strays)).figures == ()
    rules = [Drawn("path", (60, 300 + 18 * i, 530, 300.8 + 18 * i)) for i in range(12)]
    found = find_figures(page(1, *rules))
    assert found.figures == () and found.decorations == 0  # a table's rules are layout, not decoration


def test_figures_come_top_to_bottom_and_far_apart_objects_are_separate_figures():
    top = Drawn("image", (60, 600, 300, 780), pixels=(800, 600), key="a")
    bottom = Drawn("image", (60, 100, 300, 280), pixels=(800, 600), key="b")
    assert [f.box for f in find_figures(page(1, bottom, top)).figures] == [top.box, bottom.box]
    assert groups([top.box, bottom.box]) == [[0], [1]]


def test_an_image_declaring_too_many_pixels_is_set_aside_even_among_objects_past_the_cap():
    bomb = Drawn("image", (60, 300, 535, 640), pixels=(100_000, 100_000), key="bomb")
    assert too_large(page(1, bomb), 40_000_000) == (bomb,)
    marks = [Drawn("path", (i % 500, i // 500, i % 500 + 1, i // 500 + 1)) for i in range(2000)]
    [collapsed] = too_large(page(1, *capped([*marks, bomb])), 40_000_000)  # its page is never rendered
    assert collapsed.kind == "form" and collapsed.pixels == bomb.pixels


def test_scans_are_pages_of_pixels_and_a_searchable_scan_is_not_one():
    scan = Drawn("image", (0, 0, *A4), pixels=(2480, 3508), key="s1")
    assert is_scan(page(1, scan, chars=0))
    assert is_scan(page(1, scan, chars=60))  # a Bates number and a date stamped on it
    assert not is_scan(page(1, scan, chars=2800))  # its OCR layer is there already
    assert not is_scan(page(1, LOGO, FRAME, chars=0), {"logo"})  # an empty page of the template
    outlines = [Drawn("path", (60 + 7 * i, 700, 66 + 7 * i, 712)) for i in range(40)]
    assert is_scan(page(1, *outlines, chars=0))  # text converted to outlines is paths


def test_a_figure_sits_between_the_text_above_and_below_it_and_an_unread_one_leaves_no_trace():
    section = Section(
        ("Page 4",),
        "page=4",
        (Block("Above."), Block(marker("0")), Block("Between."), Block(marker("1")), Block("Below.")),
    )
    read = Insert("Figure 2", "Ingest\nWarehouse", Derived("figure", 4, "ocr", 0.93))
    placed = place((section,), {"0": read})
    assert [(s.headings, [b.text for b in s.blocks]) for s in placed] == [
        (("Page 4",), ["Above."]),
        (("Page 4", "Figure 2"), ["Ingest\nWarehouse"]),
        (("Page 4",), ["Between.", "Below."]),
    ]
    assert (
        placed[1].anchor == "page=4" and placed[1].derived.note() == "figure on page 4, read by OCR (confidence 0.93)"
    )


def test_options_come_from_the_settings():
    from schema_search.settings import Settings

    settings = Settings(docs_ocr=False, vision_model="openai/gpt-4o-mini", docs_visual_max_pages=7)
    visual = Visual.from_settings(settings)
    assert (visual.ocr, visual.figures, visual.vision_model, visual.max_pages) == (False, True, "openai/gpt-4o-mini", 7)
    assert visual.describes and not Visual(figures=False, vision_model="openai/gpt-4o-mini").describes


def test_a_page_of_thousands_of_objects_is_classified_in_well_under_a_second():
    # Each a 70 pt square image 100 pt from the next: all candidates, none near another.
    many = [
        Drawn("image", (x, y, x + 70, y + 70), pixels=(300, 300))
        for x in range(0, 12_000, 100)
        for y in range(0, 10_000, 100)
    ]
    assert len(many) > 20 * MAX_GROUPED
    started = time.monotonic()
    found = find_figures(PageView(1, 12_000, 10_000, objects=tuple(many)))
    assert time.monotonic() - started < 1.0  # pairwise over all 12,000 took half a minute
    assert len(found.figures) <= MAX_GROUPED + 1 and all(
        f.kind in ("image", "montage", "drawing") for f in found.figures
    )
    assert len(capped(many)) == MAX_GROUPED + 1


W_NAMESPACES = (
    'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
    'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" '
    'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
    'xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture" '
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" '
    'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" '
    'xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" '
    'xmlns:v="urn:schemas-microsoft-com:vml"'
)
INLINE = (
    '<w:drawing><wp:inline><wp:extent cx="2540000" cy="1270000"/><a:graphic><a:graphicData><pic:pic>'
    '<pic:blipFill><a:blip r:embed="rId5"/></pic:blipFill></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing>'
)
# A picture in a text box, as Word writes it: the box (a wps shape) holds a paragraph holding the
# picture, and mc:Fallback the same box again in VML for readers that know no wps.
TEXT_BOX = (
    f'<w:p {W_NAMESPACES}><w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><wp:anchor>'
    '<wp:extent cx="3810000" cy="2540000"/><a:graphic><a:graphicData><wps:wsp><wps:txbx><w:txbxContent>'
    f"<w:p><w:r>{INLINE}</w:r></w:p></w:txbxContent></wps:txbx></wps:wsp></a:graphicData></a:graphic>"
    "</wp:anchor></w:drawing></mc:Choice><mc:Fallback><w:pict><v:shape><v:textbox><w:txbxContent><w:p><w:r>"
    '<w:pict><v:shape><v:imagedata r:id="rId5"/></v:shape></w:pict></w:r></w:p></w:txbxContent></v:textbox>'
    "</v:shape></w:pict></mc:Fallback></mc:AlternateContent></w:r></w:p>"
)


def test_a_docx_picture_in_a_text_box_is_found_once_at_its_own_size():
    relations = {"rId5": part_name("media/image1.png")}
    assert pictures(ElementTree.fromstring(TEXT_BOX), relations, 0) == [
        Picture("0", "word/media/image1.png", (200.0, 100.0))
    ]
    twice = ElementTree.fromstring(f"<w:p {W_NAMESPACES}><w:r>{INLINE}</w:r><w:r>{INLINE}</w:r></w:p>")
    assert len(pictures(twice, relations, 0)) == 1  # the same image twice at one place is one figure
    assert part_name("../media/image%201.png") == "media/image 1.png"
