"""Which PDF pages are scans: pages whose words are pixels, to be rendered and read by OCR.

A page is a scan when its text layer is empty or nearly so while it shows something
(an image, or paths: text converted to outlines is paths), or when one image covers most
of it and the text layer holds no more than a stamp (a page number, a Bates label, a
"Confidential" line a scanner or a printer added). A searchable scan, whose invisible
OCR layer holds the page's words, is not one: its text layer is read as any other.

A page whose only objects are the template's decoration (a logo, a frame: see
:mod:`.figures`) is not a scan but an empty page; rendering it would find nothing. An image
covering most of a page counts even when other pages show the same one: two scans of a
blank form are alike, and the same picture is no template's logo.
"""

from __future__ import annotations

from .figures import PageView, area, decoration

# Non-space characters of a text layer that is as good as none.
MIN_CHARS = 20
# Characters a stamped scan carries at most, and the share of the page its image covers.
STAMP_CHARS = 100
COVER_SHARE = 0.6


def is_scan(page: PageView, repeated: set[str] = frozenset()) -> bool:
    """Whether ``page`` is read by rendering it and running OCR.

    >>> from .figures import Drawn
    >>> photo = Drawn("image", (0, 0, 600, 800), pixels=(2480, 3508), key="p1")
    >>> is_scan(PageView(1, 600, 800, chars=0, objects=(photo,)))
    True
    >>> is_scan(PageView(1, 600, 800, chars=42, objects=(photo,)))  # "Page 3 of 12 - Confidential ..."
    True
    >>> is_scan(PageView(1, 600, 800, chars=2400, objects=(photo,)))  # an OCR layer, or a slide's text
    False
    >>> is_scan(PageView(1, 600, 800, chars=0, objects=(Drawn("path", (5, 5, 595, 795), segments=5),)))
    False
    >>> is_scan(PageView(1, 600, 800, chars=0))  # a blank page
    False
    >>> is_scan(PageView(1, 600, 800, chars=0, objects=(photo,)), repeated={"p1"})  # the same scan twice
    True
    """
    full = [d for d in page.objects if d.kind == "image" and area(d.box) >= COVER_SHARE * page.width * page.height]
    if page.chars < MIN_CHARS:
        return bool(full) or any(decoration(d, page, repeated) is None for d in page.objects)
    return bool(full) and page.chars <= STAMP_CHARS
