"""Which of a page's images and vector paths are figures, and which are the template's decoration.

A report's logo sits on every page, a frame or a coloured band encloses each one, rules
underline headings: none of them says anything a reader would look up, and described on
every page they would drown the real figures. The rules, each for a reason:

- **repeated**: the same image content (by hash) on at least 3 pages, or on half the pages
  of a document of 2 or more, is a logo or a letterhead, not a figure the text refers to;
- **tiny**: an image under 64 px on a side, or under 1.5% of the page's area, is an icon,
  a bullet or a spacer, too small to hold a label Tesseract could read (unless several
  side by side make a montage);
- **frame**: a path of a few segments whose box spans 85% of the page's width and height
  is a page border or a background;
- **stray paths**: fewer than 8 paths near each other (a rule, an underline, a box around
  a note) are layout, and so is a group made only of thin horizontal and vertical lines
  (a table's grid, whose text is in the text layer);
- **oversized**: an image declaring more pixels than the limit is not decoded at all
  (:func:`too_large`: its page is not rendered).

What is left is grouped by nearness (objects within 12 points of each other): a group with
an image is a figure (``image``, or ``montage`` for several), a group of 8 or more paths is
a ``drawing`` (a diagram or a chart), each when it covers at least 1.5% of the page.

Only the first three rules are counted as decorations skipped (``Found.decorations``, as a
DOCX's images are): stray paths and a table's rules are the page's layout, not something
set aside. Grouping compares every pair, so a page has :data:`MAX_GROUPED` objects at most
(:func:`capped`); past that the rest are one object.

Coordinates are PDF points, ``(left, bottom, right, top)``, y growing upwards.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

Box = tuple[float, float, float, float]

REPEATED_PAGES = 3
REPEATED_SHARE = 0.5
TINY_SIDE_PX = 64
TINY_SHARE = 0.015
FRAME_SPAN = 0.85
FRAME_SEGMENTS = 8
DRAWING_PATHS = 8
RULE_THICKNESS = 2.0
GAP = 12.0
# Past this many objects on one page, grouping them pairwise costs seconds: the rest are one.
MAX_GROUPED = 500


@dataclass(frozen=True)
class Drawn:
    """One image or vector path on a page.

    Attributes:
        kind: ``image``, ``path``, or ``form`` (a form XObject: a group of objects drawn as one).
        box: where it is on the page.
        pixels: an image's own width and height, as it declares them.
        key: an image's content hash (the same picture placed twice has the same key).
        segments: a path's segments; the number of objects in a form.
    """

    kind: str
    box: Box
    pixels: tuple[int, int] = (0, 0)
    key: str = ""
    segments: int = 1


@dataclass(frozen=True)
class PageView:
    """A page as the classification sees it: its size, its text layer's size, its objects."""

    number: int
    width: float
    height: float
    chars: int = 0
    objects: tuple[Drawn, ...] = ()


@dataclass(frozen=True)
class Figure:
    """A region of a page worth reading: ``kind`` is ``image``, ``montage`` or ``drawing``."""

    page: int
    box: Box
    kind: str


@dataclass(frozen=True)
class Found:
    """One page's figures (top to bottom), and how many of its objects were decoration."""

    figures: tuple[Figure, ...] = ()
    decorations: int = 0


def capped(objects: Iterable[Drawn], most: int = MAX_GROUPED) -> tuple[Drawn, ...]:
    """The first ``most`` of ``objects``, the rest as one ``form`` over all of them: its
    segments their weight, its pixels the largest image's among them (so :func:`too_large`
    still sees it).

    >>> dots = (Drawn("path", (i, i, i + 1, i + 1)) for i in range(1000))
    >>> kept = capped([Drawn("image", (0, 0, 5, 5), pixels=(9000, 9000)), *dots], most=3)
    >>> len(kept), kept[-1].kind, kept[-1].box, kept[-1].segments
    (4, 'form', (2, 2, 1000, 1000), 998)
    """
    kept: list[Drawn] = []
    box, weight, pixels = None, 0, (0, 0)
    for drawn in objects:
        if len(kept) < most:
            kept.append(drawn)
            continue
        box = drawn.box if box is None else union([box, drawn.box])
        weight += _weight(drawn)
        if drawn.pixels[0] * drawn.pixels[1] > pixels[0] * pixels[1]:
            pixels = drawn.pixels
    if box is not None:
        kept.append(Drawn("form", box, pixels, segments=weight))
    return tuple(kept)


def repeated_keys(pages: Sequence[PageView]) -> set[str]:
    """The image keys that are on so many pages they are the template's.

    >>> logo, chart = Drawn("image", (0, 0, 9, 9), key="logo"), Drawn("image", (0, 0, 9, 9), key="chart")
    >>> sorted(repeated_keys([PageView(n, 10, 10, objects=(logo,) + ((chart,) if n == 1 else ())) for n in (1, 2, 3)]))
    ['logo']
    >>> repeated_keys([PageView(1, 10, 10, objects=(chart,)), PageView(2, 10, 10)])  # once in two pages: a figure
    set()
    """
    seen: dict[str, set[int]] = defaultdict(set)
    for page in pages:
        for drawn in page.objects:
            if drawn.kind == "image" and drawn.key:
                seen[drawn.key].add(page.number)
    return {
        key
        for key, numbers in seen.items()
        if len(numbers) >= 2 and (len(numbers) >= REPEATED_PAGES or len(numbers) >= REPEATED_SHARE * len(pages))
    }


def decoration(drawn: Drawn, page: PageView, repeated: set[str] = frozenset()) -> str | None:
    """Why ``drawn`` alone is decoration (``repeated``, ``tiny``, ``frame``), or ``None``.

    >>> page = PageView(1, 600, 800)
    >>> decoration(Drawn("image", (10, 10, 40, 40), pixels=(300, 300)), page)  # 900 of 480,000 points
    'tiny'
    >>> decoration(Drawn("image", (50, 300, 550, 600), pixels=(48, 2000)), page)
    'tiny'
    >>> decoration(Drawn("path", (10, 10, 590, 790), segments=5), page)
    'frame'
    >>> decoration(Drawn("image", (50, 300, 550, 600), pixels=(800, 480), key="k"), page, {"k"})
    'repeated'
    >>> decoration(Drawn("image", (50, 300, 550, 600), pixels=(800, 480), key="k"), page) is None
    True
    """
    if drawn.kind == "image":
        if drawn.key and drawn.key in repeated:
            return "repeated"
        if min(drawn.pixels) < TINY_SIDE_PX or area(drawn.box) < TINY_SHARE * page.width * page.height:
            return "tiny"
        return None
    left, bottom, right, top = drawn.box
    spans = right - left >= FRAME_SPAN * page.width and top - bottom >= FRAME_SPAN * page.height
    return "frame" if spans and drawn.segments <= FRAME_SEGMENTS else None


def find_figures(page: PageView, repeated: set[str] = frozenset()) -> Found:
    """The figures of ``page``, top to bottom, after its decoration is set aside.

    >>> page = PageView(2, 600, 800, objects=(
    ...     Drawn("image", (20, 760, 60, 790), pixels=(120, 120), key="logo"),   # repeated elsewhere
    ...     Drawn("path", (10, 10, 590, 790), segments=5),                      # the frame
    ...     Drawn("image", (60, 400, 540, 640), pixels=(800, 400), key="diagram"),
    ...     Drawn("path", (60, 392, 540, 393)),                                 # a rule just under it
    ... ))
    >>> found = find_figures(page, {"logo"})
    >>> [(f.kind, f.box) for f in found.figures], found.decorations
    ([('image', (60, 392, 540, 640))], 2)
    >>> bars = tuple(Drawn("path", (100 + 30 * i, 100, 120 + 30 * i, 100 + 20 * i)) for i in range(10))
    >>> [f.kind for f in find_figures(PageView(1, 600, 800, objects=bars)).figures]
    ['drawing']
    >>> grid = tuple(Drawn("path", (100, 100 + 20 * i, 400, 100.5 + 20 * i)) for i in range(10))
    >>> find_figures(PageView(1, 600, 800, objects=grid))  # a table's rules: layout, not decoration
    Found(figures=(), decorations=0)
    >>> thumbs = tuple(Drawn("image", (100 + 60 * i, 100, 150 + 60 * i, 150), pixels=(200, 200)) for i in range(4))
    >>> [f.kind for f in find_figures(PageView(1, 600, 800, objects=thumbs)).figures]  # each tiny, together a montage
    ['montage']
    """
    judged = {id(d): decoration(d, page, repeated) for d in page.objects}
    # Images small by area stay in the running: several of them side by side are a montage.
    candidates = [d for d in page.objects if judged[id(d)] in (None, "tiny") and not _pixel_tiny(d)]
    paths = [d for d in candidates if d.kind != "image"]
    if len(paths) > MAX_GROUPED:  # a map or a plot of many marks: one drawing, beside the images
        candidates = [d for d in candidates if d.kind == "image"] + [
            Drawn("form", union([d.box for d in paths]), segments=sum(_weight(d) for d in paths))
        ]
    candidates = list(capped(candidates))
    figures, inside = [], set()
    for group in groups([d.box for d in candidates]):
        members = [candidates[i] for i in group]
        kind = _figure_kind(members, page)
        if kind:
            figures.append(Figure(page.number, union([d.box for d in members]), kind))
            inside.update(id(d) for d in members)
    figures.sort(key=lambda f: -f.box[3])
    decorations = sum(_weight(d) for d in page.objects if judged[id(d)] and id(d) not in inside)
    return Found(tuple(figures), decorations)


def too_large(page: PageView, max_pixels: int | None) -> tuple[Drawn, ...]:
    """The images of ``page`` that declare more than ``max_pixels`` pixels: never to be decoded.

    >>> too_large(PageView(1, 600, 800, objects=(Drawn("image", (0, 0, 9, 9), pixels=(9000, 9000)),)), 1_000_000)
    (Drawn(kind='image', box=(0, 0, 9, 9), pixels=(9000, 9000), key='', segments=1),)
    """
    return tuple(d for d in page.objects if max_pixels and d.pixels[0] * d.pixels[1] > max_pixels)


def _figure_kind(members: list[Drawn], page: PageView) -> str | None:
    if area(union([d.box for d in members])) < TINY_SHARE * page.width * page.height:
        return None
    images = sum(d.kind == "image" for d in members)
    if images:
        return "image" if images == 1 else "montage"
    paths = [d for d in members if d.kind != "image"]
    if sum(_weight(d) for d in paths) >= DRAWING_PATHS and not all(d.kind == "path" and _rule(d.box) for d in paths):
        return "drawing"
    return None


def _weight(drawn: Drawn) -> int:
    """Objects ``drawn`` stands for: a form (or the paths merged into one) its objects, else itself."""
    return drawn.segments if drawn.kind == "form" else 1


def _pixel_tiny(drawn: Drawn) -> bool:
    return drawn.kind == "image" and min(drawn.pixels) < TINY_SIDE_PX


def groups(boxes: Sequence[Box], gap: float = GAP) -> list[list[int]]:
    """Indexes of ``boxes`` grouped by nearness: boxes within ``gap`` of each other, directly
    or through others, are one group; groups in the order of their first box.

    >>> groups([(0, 0, 10, 10), (15, 0, 25, 10), (100, 100, 110, 110), (30, 0, 40, 10)])
    [[0, 1, 3], [2]]
    """
    parent = list(range(len(boxes)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, a in enumerate(boxes):
        for j in range(i):
            if _near(a, boxes[j], gap):
                parent[root(i)] = root(j)
    found: dict[int, list[int]] = {}
    for i in range(len(boxes)):
        found.setdefault(root(i), []).append(i)
    return sorted(found.values(), key=lambda g: g[0])


def union(boxes: Sequence[Box]) -> Box:
    """The smallest box holding all of ``boxes``.

    >>> union([(0, 0, 10, 10), (5, -5, 20, 8)])
    (0, -5, 20, 10)
    """
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def _near(a: Box, b: Box, gap: float) -> bool:
    return a[0] - gap <= b[2] and b[0] - gap <= a[2] and a[1] - gap <= b[3] and b[1] - gap <= a[3]


def _rule(box: Box) -> bool:
    return min(box[2] - box[0], box[3] - box[1]) <= RULE_THICKNESS


def area(box: Box) -> float:
    """The area of ``box`` in square points.

    >>> area((0, 0, 10, 20)), area((5, 5, 0, 0))
    (200, 0.0)
    """
    return max(0.0, box[2] - box[0]) * max(0.0, box[3] - box[1])


def pixels_at(width: float, height: float, dpi: int) -> int:
    """Pixels of a ``width`` by ``height`` point area rendered at ``dpi``.

    >>> pixels_at(595, 842, 200)  # A4
    3866367
    """
    return round(width * dpi / 72) * round(height * dpi / 72)
