"""``python -m eval.visual.make_set``: write the visual test set into ``sample_docs/visual/``.

Five invented documents whose answers sit in pixels: a scanned handbook (image-only PDF,
one German page), a mainboard manual whose connector names are only in its layout figure,
a sales report whose numbers are only in its chart, an installation guide (DOCX) whose
wiring is only in its diagram, and a device manual that prints a logo and a frame on every
page beside two real figures. Everything is drawn here (DejaVu Sans, Pillow, fpdf2,
python-docx) with fixed seeds and dates, so a re-run writes the same files.

The scan's source text goes to ``eval/visual/sources/handbook-scan.json`` (page -> text),
for OCR word accuracy. Before writing, each file is checked: the scan has no text layer,
and no label a question asks about is in any text layer.
"""

from __future__ import annotations

import argparse
import io
import json
import re
import sys
import zipfile
from datetime import UTC, datetime
from pathlib import Path

from fpdf import FPDF
from PIL import Image

from . import figures
from .expected import DECORATION_WORD, FOLDER, SOURCES
from .scan import scanned, typed_page

DATE = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
THUMBNAIL = "docProps/thumbnail.jpeg"

HANDBOOK_HEAD = "Tarnholm Instruments - Employee Handbook, edition 2024"
HANDBOOK: list[tuple[str, list[str]]] = [
    (
        "1. Working hours and attendance",
        [
            "Core hours at Tarnholm run from 09:30 to 15:00, Monday to Thursday, and from 09:30 to 13:00 on "
            "Fridays. Outside core hours you may start and finish when it suits your team. Time is recorded in "
            "the Flexi portal; a balance of up to 40 plus hours may be carried into the next month.",
            "Visitors sign in at the reception in building C, room C-114, and receive an orange visitor badge. "
            "Employees who forget their own badge can borrow a grey day badge from the reception for one day only.",
            "The canteen opens at 11:15 and closes at 13:45. Coffee and fruit are free on every floor.",
        ],
    ),
    (
        "2. Travel and expenses",
        [
            "Book all trips through the travel desk at least ten working days ahead. Economy class is the rule "
            "for flights under six hours; for longer flights premium economy may be booked with the approval of "
            "your department head.",
            "The daily allowance is 42 euros for domestic trips and 65 euros for trips abroad. Hotel costs are "
            "reimbursed up to 140 euros per night, or 190 euros in London, Paris and Zurich. Using your own car "
            "is paid at 0.31 euros per kilometre.",
            "Submit receipts within 21 days of your return in the Expensa app. Claims sent later than 60 days "
            "after the trip are not paid.",
        ],
    ),
    (
        "3. Equipment and IT",
        [
            "Every employee receives a laptop on the first day. Laptops are replaced every 36 months; a broken "
            "screen is repaired by the IT service desk, extension 4417, within two working days.",
            "Remote access uses the VPN profile TH-Remote-7. Passwords must have at least 14 characters and are "
            "never shared, not even with the service desk.",
            "A lost badge must be reported the same day to security on extension 4400. The replacement costs "
            "15 euros and is deducted from the next salary payment.",
        ],
    ),
    (
        "4. Urlaub und Abwesenheit",
        [
            "Vollzeitbeschäftigte erhalten 28 Urlaubstage im Jahr. Resturlaub kann bis zum 31. März des "
            "Folgejahres genommen werden; danach verfällt er.",
            "Wer krank ist, meldet sich bis 10:00 Uhr bei der Teamleitung. Ab dem dritten Krankheitstag ist eine "
            "ärztliche Bescheinigung vorzulegen.",
            "Nach fünf Jahren Betriebszugehörigkeit kann ein unbezahltes Sabbatical von bis zu drei Monaten "
            "beantragt werden. Der Antrag geht spätestens sechs Monate vorher an die Personalabteilung.",
        ],
    ),
]

# Strings a question asks about that only a figure holds: none may be in the document's text.
HIDDEN: dict[str, tuple[str, ...]] = {
    "board-manual.pdf": (
        "REAR_IO", "ATX_12V1", "CPU1", "CPU_FAN1", "SYS_FAN1", "SYS_FAN2", "DIMM_A1", "ATX_24P1", "USB3_F1",
        "M.2_1", "M.2_2", "PCIE_X16_1", "PCIE_X1_2", "SATA3_1", "SATA3_4", "JBAT1", "JFP1", "22110", "2280",
    ),
    "sales-chart.pdf": ("812", "1 046", "1046", "1 130", "1130", "655", "594", "1 187", "1187", "1 342", "1342", "471"),
    "install-guide.docx": (
        "WAN", "LAN1", "LAN2", "LAN4", "PoE", "CONSOLE", "115200", "10 s", "factory defaults", "modem", "injector",
    ),
    "device-manual.pdf": (
        DECORATION_WORD, "HOLD", "freeze", "backlight", "COM", "V/OHM", "black lead",
        "14 h", "26 h", "40 h", "31 h", "22 h",
    ),
}  # fmt: skip

# The figures each document embeds, with the labels drawn on them (the builders below place them).
FIGURES = {
    "board-manual.pdf": (figures.board_layout,),
    "sales-chart.pdf": (figures.sales_chart,),
    "install-guide.docx": (figures.wiring_diagram,),
    "device-manual.pdf": (figures.front_panel, figures.battery_chart),
}


def make_set(folder: Path = FOLDER, sources: Path = SOURCES) -> dict[str, int]:
    """Write every file of the set; return each file's size in bytes."""
    folder.mkdir(parents=True, exist_ok=True)
    sources.mkdir(parents=True, exist_ok=True)
    files = {
        "handbook-scan.pdf": handbook_scan(sources / "handbook-scan.json"),
        "board-manual.pdf": board_manual(),
        "sales-chart.pdf": sales_chart(),
        "install-guide.docx": install_guide(),
        "device-manual.pdf": device_manual(),
    }
    for name, data in files.items():
        check(name, data)
        (folder / name).write_bytes(data)
    return {name: len(data) for name, data in files.items()}


# -- the documents -----------------------------------------------------------------


def handbook_scan(source: Path) -> bytes:
    """Four typed pages photographed back into pixels; no text layer. Writes their text to ``source``."""
    pdf = _pdf("Tarnholm Instruments Employee Handbook")
    texts = {}
    for number, (title, body) in enumerate(HANDBOOK, 1):
        paragraphs = [("head", HANDBOOK_HEAD), ("title", title), *(("body", p) for p in body)]
        paragraphs.append(("foot", f"Page {number} of {len(HANDBOOK)}"))
        page, lines = typed_page(paragraphs)
        texts[str(number)] = "\n".join(lines)
        pdf.add_page()
        # A scanner tilts each sheet its own way; the seed keeps the file reproducible.
        pdf.image(io.BytesIO(scanned(page, seed=number, tilt=(0.5, -0.4, 0.7, -0.6)[number - 1])), 0, 0, 210, 297)
    source.write_text(json.dumps(texts, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return bytes(pdf.output())


def board_manual() -> bytes:
    """Three pages of text about the KX-690 Pro; its layout figure on page 2 names every connector."""
    pdf = _pdf("Korvath KX-690 Pro Mainboard - User Manual")
    _text_page(
        pdf,
        "1. Specifications",
        [
            "The Korvath KX-690 Pro is an ATX mainboard (305 x 244 mm) for desktop processors of the Korvath K9 "
            "series, built on the Korvath Z8 chipset.",
            "Memory: four slots for DDR5 modules, up to 192 GB in total, at speeds up to 6400 MT/s. Install two "
            "modules for dual-channel operation.",
            "Expansion: one PCI Express 5.0 x16 slot for a graphics card, one PCI Express 4.0 x1 slot, and two "
            "sockets for NVMe solid-state drives. Storage: four SATA 6 Gb/s ports with RAID 0, 1 and 10.",
            "Networking: 2.5 Gb Ethernet and Wi-Fi 7 with two antenna connectors on the rear panel.",
        ],
    )
    _text_page(
        pdf,
        "2. Board layout",
        ["Figure 1 shows the board from above, with the rear panel at the top left."],
        figures.board_layout()[0],
    )
    _text_page(
        pdf,
        "3. Installing the board",
        [
            "Fit the rear panel shield into the case first. Lower the board onto the standoffs so that its ports "
            "meet the shield, then fasten it with nine screws.",
            "Connect both power cables from the power supply: the 24-pin main cable and the 8-pin processor "
            "cable. The board does not start without the 8-pin cable.",
            "If the system does not start after a memory change, clear the saved firmware settings with the "
            "jumper shown in the layout: switch the power supply off, short the jumper's pins with a "
            "screwdriver, wait, and start again.",
            "The cooler's fan goes on the header next to the processor socket; case fans go on the system fan "
            "headers. Fans run at full speed until the firmware has started.",
        ],
    )
    return bytes(pdf.output())


def sales_chart() -> bytes:
    """A sales report: a summary page, the quarterly chart (its numbers nowhere else), an outlook."""
    pdf = _pdf("Nordhavn Cycles - Sales Report 2024")
    _text_page(
        pdf,
        "Sales report 2024",
        [
            "Prepared by the controlling team of Nordhavn Cycles for the supervisory board.",
            "2024 was the first year in which e-bikes sold more than city bikes in the summer quarters. Revenue "
            "rose through spring and summer and fell back in the fourth quarter, as it does every year.",
            "The quarterly revenue of each product line is shown in the chart on the next page. All figures "
            "are unaudited and may change with the annual accounts.",
        ],
    )
    _text_page(pdf, None, ["Figure 1 (source: controlling, unaudited)"], figures.sales_chart()[0])
    _text_page(
        pdf,
        "Outlook 2025",
        [
            "For 2025 the board expects moderate growth. The new Fjord cargo bike launches in March 2025 at a "
            "list price of 3 490 euros.",
            "The dealer network grows from 64 to 80 shops, with the first dealers in Poland and Czechia.",
            "Risks are component prices, long delivery times for motors, and a wet summer.",
        ],
    )
    return bytes(pdf.output())


def install_guide() -> bytes:
    """A DOCX guide to the NX-200 gateway; how to cable it is only in its wiring diagram."""
    from docx import Document
    from docx.shared import Inches

    document = Document()
    properties = document.core_properties
    properties.title = "Halvard NX-200 Network Gateway - Installation Guide"
    properties.author = "Halvard Networks"
    properties.created = properties.modified = properties.last_printed = DATE.replace(tzinfo=None)
    properties.revision = 1
    properties.comments = "Invented for the schema_search visual test set."
    document.add_heading("Halvard NX-200 Network Gateway - Installation Guide", level=0)
    sections = [
        ("What is in the box", ["The NX-200 gateway, a power adapter, a wall bracket and two screws."]),
        (
            "Mounting",
            [
                "Fix the bracket to the wall with both screws, at least 30 cm above the floor. The vents must face "
                "up, and the gateway needs 10 cm of free space on every side.",
            ],
        ),
        (
            "Cabling",
            [
                "Connect the cables as shown in the wiring diagram below. Never power the gateway from its "
                "adapter and over Ethernet at the same time.",
            ],
        ),
        (
            "First start",
            [
                "The status light blinks green while the gateway starts and stays green once it is online; it "
                "turns red when no uplink is found. Setup takes about three minutes on first start.",
                "Open the setup page at http://192.168.50.1 in a browser and change the administrator password "
                "before anything else.",
            ],
        ),
    ]
    for heading, paragraphs in sections:
        document.add_heading(heading, level=1)
        for paragraph in paragraphs:
            document.add_paragraph(paragraph)
        if heading == "Cabling":
            document.add_picture(_png(figures.wiring_diagram()[0]), width=Inches(6.2))
    out = io.BytesIO()
    document.save(out)
    return _fixed_zip_times(out.getvalue())


def device_manual() -> bytes:
    """Six pages, each with the maker's logo and a frame; real figures on pages 3 and 5 only."""
    pdf = _pdf("OMT-40 Digital Multimeter - Operating Manual")
    logo, icon = figures.logo(), figures.caution_icon()
    pages = [
        (
            "1. Safety",
            [
                "The OMT-40 is rated CAT III 600 V. Never measure a voltage above 600 V, and never measure on "
                "circuits of more than 600 V to earth.",
                "Check the test leads for damaged insulation before each use. Keep your fingers behind the finger "
                "guards of the probes while measuring.",
            ],
            None,
        ),
        (
            "2. Getting started",
            [
                "The meter runs on two AA cells. Open the compartment on the back with a coin, insert the cells as "
                "marked, and close it again before measuring.",
                "The meter switches itself off after 15 minutes without use. Turn the dial to OFF and back to wake "
                "it up.",
            ],
            None,
        ),
        (
            "3. Controls and jacks",
            ["The front of the meter and what each part does is shown in Figure 1."],
            figures.front_panel()[0],
        ),
        (
            "4. Measuring",
            [
                "Voltage: turn the dial to the voltage you expect, touch the probes to the circuit, and read the "
                "display. Resistance: measure only on circuits without power.",
                "Caution: the fuse for the current range opens at 11 A. Replace it only with a fuse of the same "
                "rating, which is listed on the back of the meter.",
            ],
            None,
        ),
        (
            "5. Battery life",
            [
                "How long a pair of cells lasts depends on the temperature the meter is used at; Figure 2 shows "
                "the life measured with fresh alkaline cells."
            ],
            figures.battery_chart()[0],
        ),
        (
            "6. Specifications and care",
            [
                "Size 165 x 82 x 45 mm, weight 310 g with cells. Display: 6000 counts. Operating range -10 to "
                "50 degrees Celsius.",
                "Clean the case with a damp cloth and mild soap, never with solvents. Remove the cells when the "
                "meter is stored for more than a month.",
                "The warranty is three years from the date of purchase and does not cover fuses or test leads.",
            ],
            None,
        ),
    ]
    for number, (heading, body, figure) in enumerate(pages, 1):
        pdf.add_page()
        pdf.rect(10, 8, 190, 281)  # the frame every page of the manual is printed in
        pdf.image(logo, 15, 12, 36)  # the maker's mark, same on every page
        pdf.set_font("Helvetica", size=9)
        pdf.set_xy(120, 15)
        pdf.cell(75, 5, "OMT-40 Operating Manual", align="R")
        pdf.set_xy(20, 283 - 8)
        pdf.cell(170, 5, f"Page {number} of {len(pages)}", align="C")
        pdf.set_xy(20, 34)
        _write(pdf, heading, body)
        if number == 4:
            pdf.image(icon, 20, pdf.get_y() + 2, 6)  # a warning sign beside the caution: too small to be a figure
        if figure is not None:
            pdf.image(figure, 20, pdf.get_y() + 6, 170)
    return bytes(pdf.output())


# -- checks ------------------------------------------------------------------------


def check(name: str, data: bytes) -> None:
    """Refuse a file whose text layer holds what only its pixels may say.

    Raises:
        ValueError: the scan has text, or a hidden label is in a text layer.
    """
    text = _text_layer(name, data)
    if name == "handbook-scan.pdf" and text.strip():
        raise ValueError(f"{name} must have no text layer, but pypdf reads {text[:80]!r}")
    for hidden in HIDDEN.get(name, ()):
        if re.search(rf"(?<![\w/]){re.escape(hidden)}(?![\w/])", text, re.IGNORECASE):
            raise ValueError(f"{name}: {hidden!r} is in the text layer; only the figure may say it")


def _text_layer(name: str, data: bytes) -> str:
    if name.endswith(".docx"):
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            xml = archive.read("word/document.xml").decode("utf-8")
        return " ".join(re.findall(r"<w:t(?: [^>]*)?>([^<]*)</w:t>", xml))
    from pypdf import PdfReader

    return "\n".join(page.extract_text() or "" for page in PdfReader(io.BytesIO(data)).pages)


# -- helpers -----------------------------------------------------------------------


def _pdf(title: str) -> FPDF:
    pdf = FPDF(format="A4")
    pdf.set_creation_date(DATE)  # no clock in the file: a re-run writes the same bytes
    pdf.set_title(title)
    pdf.set_author("schema_search visual test set (invented)")
    pdf.set_auto_page_break(False)
    pdf.set_margins(20, 20, 20)
    return pdf


def _text_page(pdf: FPDF, heading: str | None, body: list[str], figure: Image.Image | None = None) -> None:
    pdf.add_page()
    pdf.set_xy(20, 20)
    _write(pdf, heading, body)
    if figure is not None:
        pdf.image(figure, 20, pdf.get_y() + 6, 170)


def _write(pdf: FPDF, heading: str | None, body: list[str]) -> None:
    if heading:
        pdf.set_font("Helvetica", "B", 16)
        pdf.multi_cell(170, 9, heading, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(3)
    pdf.set_font("Helvetica", size=11)
    for paragraph in body:
        pdf.multi_cell(170, 6, paragraph, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(3)


def _png(image: Image.Image) -> io.BytesIO:
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    out.seek(0)
    return out


def _fixed_zip_times(data: bytes) -> bytes:
    """The DOCX zip again with every entry dated 1980-01-01 (zip entries otherwise carry the time
    of writing), and without python-docx's template thumbnail: an image this set did not draw."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            if info.filename == THUMBNAIL:
                continue
            body = source.read(info.filename)
            if info.filename == "_rels/.rels":
                body = re.sub(rb'<Relationship [^>]*Target="docProps/thumbnail.jpeg"/>', b"", body)
            fixed = zipfile.ZipInfo(info.filename, (1980, 1, 1, 0, 0, 0))
            fixed.compress_type = zipfile.ZIP_DEFLATED
            target.writestr(fixed, body)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eval.visual.make_set", description="Write the visual test set.")
    parser.add_argument("--out", type=Path, default=FOLDER, help="folder for the files (default sample_docs/visual)")
    args = parser.parse_args(argv)
    sizes = make_set(args.out)
    for name, size in sizes.items():
        print(f"{size:>9,} bytes  {args.out / name}")
    print(f"{sum(sizes.values()):>9,} bytes in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
