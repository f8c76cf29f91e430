"""The figures of the visual test set, drawn with Pillow: what they say is said nowhere else.

Each function returns the image and the labels on it, so the generator can check that no
label leaked into a document's text layer (a question about a label must need the figure).
Labels are dark on light, in DejaVu Sans at 22 px or more: legible to OCR, as a real
manual's figure is.
"""

from __future__ import annotations

from PIL import Image, ImageDraw

from .scan import font

INK = (20, 20, 20)
LINE = (60, 60, 60)
PAPER = (255, 255, 255)


def board_layout() -> tuple[Image.Image, list[str]]:
    """The KX-690 Pro mainboard from above: components as outlines, each named beside it, and a legend.

    Names sit on the board next to their part, as on a silkscreen: OCR loses words boxed in
    tightly by lines, and a real layout drawing leaves them room too.
    """
    image = Image.new("RGB", (1600, 1240), PAPER)
    draw = ImageDraw.Draw(image)
    draw.rectangle((40, 40, 1560, 1000), fill=(214, 230, 206), outline=LINE, width=4)  # the board
    parts = [
        # (label, outline, where the label goes: "below" or "right" of it)
        ("REAR_IO", (70, 60, 250, 380), "below"),
        ("ATX_12V1", (330, 60, 470, 105), "below"),
        ("CPU1", (420, 200, 740, 500), "below"),
        ("CPU_FAN1", (820, 60, 960, 100), "below"),
        ("SYS_FAN1", (1080, 60, 1220, 100), "below"),
        ("DIMM_A1", (870, 170, 910, 570), "below"),
        ("DIMM_A2", (1000, 170, 1040, 570), "below"),
        ("DIMM_B1", (1130, 170, 1170, 570), "below"),
        ("DIMM_B2", (1260, 170, 1300, 570), "below"),
        ("ATX_24P1", (1420, 200, 1520, 400), "below"),
        ("USB3_F1", (1420, 500, 1520, 545), "below"),
        ("M.2_1", (260, 560, 660, 590), "right"),
        ("PCIE_X16_1", (100, 650, 760, 680), "right"),
        ("M.2_2", (260, 750, 660, 780), "right"),
        ("PCIE_X1_2", (100, 840, 420, 870), "right"),
        ("SATA3_1", (1120, 700, 1160, 735), "right"),
        ("SATA3_2", (1340, 700, 1380, 735), "right"),
        ("SATA3_3", (1120, 780, 1160, 815), "right"),
        ("SATA3_4", (1340, 780, 1380, 815), "right"),
        ("SYS_FAN2", (560, 920, 660, 955), "right"),
        ("JBAT1", (960, 920, 1010, 955), "right"),
        ("JFP1", (1200, 900, 1320, 960), "right"),
    ]
    face = font(24, bold=True)
    for label, box, side in parts:
        draw.rectangle(box, fill=(250, 250, 250), outline=LINE, width=3)
        if side == "below":
            draw.text(((box[0] + box[2]) / 2, box[3] + 14), label, font=face, fill=INK, anchor="mt")
        else:
            draw.text((box[2] + 16, (box[1] + box[3]) / 2), label, font=face, fill=INK, anchor="lm")
    legend = [
        "LEGEND",
        "JBAT1: clear CMOS jumper (short pins 1-2 for 5 s)",
        "JFP1: front panel header (power switch, reset, LEDs)",
        "M.2_1: PCIe 5.0 x4 SSD, up to 22110",
        "M.2_2: PCIe 4.0 x4 SSD, 2280 only",
        "USB3_F1: front USB 3.2 Gen 1 header",
    ]
    for row, text in enumerate(legend):
        draw.text((60, 1030 + row * 34), text, font=font(26, bold=row == 0), fill=INK)
    return image, [label for label, _, _ in parts] + legend


def sales_chart() -> tuple[Image.Image, list[str]]:
    """Revenue by quarter 2024 for two product lines, as grouped bars with their values on top."""
    series = {"City bikes": (812, 1046, 1130, 655), "E-bikes": (594, 1187, 1342, 471)}
    colours = {"City bikes": (120, 160, 210), "E-bikes": (235, 170, 90)}
    image = Image.new("RGB", (1600, 1000), PAPER)
    draw = ImageDraw.Draw(image)
    title = "Revenue by quarter 2024 (EUR thousand)"
    draw.text((800, 30), title, font=font(40, bold=True), fill=INK, anchor="mt")
    left, bottom, top, right, peak = 190, 860, 140, 1520, 1600
    axis_face, value_face = font(26), font(26, bold=True)
    labels = [title]
    for tick in range(0, peak + 1, 400):
        y = bottom - (bottom - top) * tick / peak
        draw.line((left, y, right, y), fill=(215, 215, 215), width=2)
        draw.text((left - 14, y), f"{tick:,}".replace(",", " "), font=axis_face, fill=INK, anchor="rm")
    draw.line((left, top, left, bottom), fill=LINE, width=3)
    draw.line((left, bottom, right, bottom), fill=LINE, width=3)
    axis = "EUR thousand"
    draw.text((left, top - 30), axis, font=axis_face, fill=INK, anchor="mb")
    labels.append(axis)
    slot = (right - left) / 4
    for quarter in range(4):
        name = f"Q{quarter + 1} 2024"
        x0 = left + quarter * slot + slot * 0.15
        draw.text((left + (quarter + 0.5) * slot, bottom + 16), name, font=axis_face, fill=INK, anchor="mt")
        labels.append(name)
        for offset, (line, values) in enumerate(series.items()):
            bar_left = x0 + offset * slot * 0.36
            y = bottom - (bottom - top) * values[quarter] / peak
            draw.rectangle((bar_left, y, bar_left + slot * 0.32, bottom), fill=colours[line], outline=LINE)
            text = f"{values[quarter]:,}".replace(",", " ")
            draw.text((bar_left + slot * 0.16, y - 8), text, font=value_face, fill=INK, anchor="mb")
            labels.append(text)
    for row, (line, colour) in enumerate(colours.items()):
        x = 420 + row * 420
        draw.rectangle((x, 940, x + 36, 970), fill=colour, outline=LINE)
        draw.text((x + 50, 955), line, font=axis_face, fill=INK, anchor="lm")
        labels.append(line)
    return image, labels


def wiring_diagram() -> tuple[Image.Image, list[str]]:
    """The NX-200 gateway's ports, and what is plugged into each: devices as icons named beside them."""
    image = Image.new("RGB", (1600, 900), PAPER)
    draw = ImageDraw.Draw(image)
    face = font(26)
    draw.rectangle((300, 330, 1300, 590), fill=(236, 236, 236), outline=LINE, width=4)
    draw.text((800, 350), "NX-200 rear panel", font=font(30, bold=True), fill=INK, anchor="mt")
    ports = ["DC 12V", "WAN", "LAN1", "LAN2", "LAN3", "LAN4/PoE-IN", "CONSOLE"]
    centres = {}
    for number, port in enumerate(ports):
        x = 370 + number * 142
        draw.rectangle((x - 26, 430, x + 26, 480), fill=PAPER, outline=LINE, width=3)
        # Named under its socket, two lines down for the long ones, never inside a box.
        draw.text((x, 500 + (number % 2) * 36), port, font=font(22, bold=True), fill=INK, anchor="mt")
        centres[port] = x
    devices = [
        ("Fibre modem", "WAN", (120, 120), "above"),
        ("Office switch", "LAN2", (560, 120), "above"),
        ("PoE injector (48 V)", "LAN4/PoE-IN", (1000, 120), "above"),
        ("12 V power adapter", "DC 12V", (60, 720), "below"),
        ("Laptop (USB serial, 115200 baud)", "CONSOLE", (820, 720), "below"),
    ]
    for name, port, (x, y), side in devices:
        draw.rounded_rectangle((x, y, x + 70, y + 46), radius=8, fill=(220, 226, 236), outline=LINE, width=3)
        draw.text((x + 90, y + 23), name, font=face, fill=INK, anchor="lm")
        start = (x + 35, y + 46) if side == "above" else (x + 35, y)
        draw.line((*start, centres[port], 330 if side == "above" else 590), fill=LINE, width=4)
    reset = "RESET: hold 10 s for factory defaults"
    draw.text((800, 860), reset, font=font(26, bold=True), fill=INK, anchor="mm")
    return image, ["NX-200 rear panel", *ports, *(d[0] for d in devices), reset]


def front_panel() -> tuple[Image.Image, list[str]]:
    """The OMT-40 multimeter's front: display, buttons, dial and jacks, each with a callout."""
    image = Image.new("RGB", (1500, 1100), PAPER)
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((80, 40, 620, 1060), radius=50, fill=(230, 226, 210), outline=LINE, width=5)
    draw.rectangle((140, 100, 560, 280), fill=(200, 214, 196), outline=LINE, width=3)
    draw.text((350, 190), "-0.000", font=font(70, bold=True), fill=INK, anchor="mm")
    buttons = [("HOLD", 160), ("RANGE", 300), ("LIGHT", 440)]
    for name, x in buttons:
        draw.rounded_rectangle((x, 320, x + 100, 380), radius=12, fill=PAPER, outline=LINE, width=3)
        draw.text((x + 50, 350), name, font=font(22, bold=True), fill=INK, anchor="mm")
    draw.ellipse((210, 440, 490, 720), fill=(245, 245, 245), outline=LINE, width=5)
    draw.text((350, 580), "DIAL", font=font(26, bold=True), fill=INK, anchor="mm")
    jacks = [("10A", 180), ("COM", 350), ("V/OHM", 520)]
    for name, x in jacks:
        draw.ellipse((x - 40, 860, x + 40, 940), fill=(40, 40, 40) if name == "COM" else (190, 40, 40))
        draw.text((x, 970), name, font=font(24, bold=True), fill=INK, anchor="mt")
    callouts = [
        ("HOLD: freeze the reading on the display", 350),
        ("RANGE: switch to manual range", 400),
        ("LIGHT: backlight on for 30 s", 450),
        ("DIAL: OFF, VAC, VDC, OHM, DIODE, mA, 10A", 580),
        ("10A: red lead, currents up to 10 A for 30 s", 870),
        ("COM: black lead, always", 920),
        ("V/OHM: red lead, volts, ohms, diode", 970),
    ]
    face = font(26)
    for text, y in callouts:
        draw.line((600, y, 680, y), fill=LINE, width=3)
        draw.text((690, y), text, font=face, fill=INK, anchor="lm")
    return image, [text for text, _ in callouts] + [b for b, _ in buttons] + [j for j, _ in jacks]


def battery_chart() -> tuple[Image.Image, list[str]]:
    """Battery life against temperature, a line through five labelled points."""
    points = [(-10, 14), (0, 26), (20, 40), (40, 31), (50, 22)]
    image = Image.new("RGB", (1500, 900), PAPER)
    draw = ImageDraw.Draw(image)
    title = "Battery life (hours) by temperature, 2 x AA alkaline"
    draw.text((750, 30), title, font=font(36, bold=True), fill=INK, anchor="mt")
    left, right, top, bottom = 170, 1430, 130, 760
    face = font(26)
    draw.line((left, top, left, bottom), fill=LINE, width=3)
    draw.line((left, bottom, right, bottom), fill=LINE, width=3)

    def at(celsius: float, hours: float) -> tuple[float, float]:
        return left + (right - left) * (celsius + 20) / 80, bottom - (bottom - top) * hours / 50

    labels = [title]
    for celsius in range(-20, 61, 20):
        x, _ = at(celsius, 0)
        draw.text((x, bottom + 14), f"{celsius} °C", font=face, fill=INK, anchor="mt")
    for hours in range(0, 51, 10):
        _, y = at(-20, hours)
        draw.text((left - 14, y), f"{hours} h", font=face, fill=INK, anchor="rm")
    draw.line([at(c, h) for c, h in points], fill=(30, 90, 170), width=6)
    for celsius, hours in points:
        x, y = at(celsius, hours)
        draw.ellipse((x - 10, y - 10, x + 10, y + 10), fill=(30, 90, 170))
        text = f"{hours} h at {celsius} °C"
        # On a white patch: the line must not run through the words.
        patch = draw.textbbox((x, y - 26), text, font=font(24, bold=True), anchor="mb")
        draw.rectangle((patch[0] - 6, patch[1] - 6, patch[2] + 6, patch[3] + 6), fill=PAPER)
        draw.text((x, y - 26), text, font=font(24, bold=True), fill=INK, anchor="mb")
        labels.append(text)
    draw.text((750, 860), "Temperature", font=face, fill=INK, anchor="mm")
    return image, labels


def logo() -> Image.Image:
    """The maker's mark printed in every page header of the device manual: a decoration."""
    image = Image.new("RGB", (420, 120), PAPER)
    draw = ImageDraw.Draw(image)
    draw.polygon([(10, 100), (60, 15), (110, 100)], fill=(20, 70, 140))
    draw.text((130, 60), "OSKARVIK", font=font(44, bold=True), fill=(20, 70, 140), anchor="lm")
    return image


def caution_icon() -> Image.Image:
    """A small warning triangle beside a caution paragraph: too small to be a figure."""
    image = Image.new("RGB", (48, 42), PAPER)
    draw = ImageDraw.Draw(image)
    draw.polygon([(24, 2), (46, 40), (2, 40)], fill=(250, 200, 0), outline=INK)
    draw.text((24, 26), "!", font=font(24, bold=True), fill=INK, anchor="mm")
    return image
