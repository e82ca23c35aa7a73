"""The ``/stats`` histogram: a small PNG written with the standard library alone (``zlib``, ``struct``).

One panel per die size: a bar per face (its share of the dice), the fair share as a red line, the
die's name and dice count in a 3 × 5 pixel font. A paletted PNG of a few kilobytes, rendered in a
few milliseconds; no plotting library to install, import or keep in memory. The text answer beside
it says everything the picture shows (screen readers).
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Mapping, Sequence

WIDTH = 640
PANEL_HEIGHT = 150
MARGIN = 12
LABEL_HEIGHT = 16
SCALE = 2  # the font's pixels, doubled

# Palette: background, axis, bar, fair-share line, text, hand-entered bar.
_PALETTE = (
    (0xFF, 0xFF, 0xFF),
    (0x99, 0x99, 0x99),
    (0x58, 0x65, 0xF2),
    (0xE7, 0x4C, 0x3C),
    (0x22, 0x22, 0x22),
)
BACKGROUND, AXIS, BAR, FAIR, TEXT = range(5)

_FONT = {
    "0": ("111", "101", "101", "101", "111"),
    "1": ("010", "110", "010", "010", "111"),
    "2": ("111", "001", "111", "100", "111"),
    "3": ("111", "001", "111", "001", "111"),
    "4": ("101", "101", "111", "001", "001"),
    "5": ("111", "100", "111", "001", "111"),
    "6": ("111", "100", "111", "101", "111"),
    "7": ("111", "001", "010", "010", "010"),
    "8": ("111", "101", "111", "101", "111"),
    "9": ("111", "101", "111", "001", "111"),
    "d": ("001", "001", "111", "101", "111"),
    "n": ("000", "000", "110", "101", "101"),
    "=": ("000", "111", "000", "111", "000"),
    " ": ("000", "000", "000", "000", "000"),
}


class _Canvas:
    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self.rows = [bytearray(width) for _ in range(height)]

    def rect(self, x0: int, y0: int, x1: int, y1: int, colour: int) -> None:
        x0, x1 = max(0, x0), min(self.width, x1)
        if x1 <= x0:
            return
        run = bytes([colour]) * (x1 - x0)
        for y in range(max(0, y0), min(self.height, y1)):
            self.rows[y][x0:x1] = run

    def text(self, x: int, y: int, text: str, colour: int = TEXT) -> None:
        for char in text:
            glyph = _FONT.get(char, _FONT[" "])
            for gy, line in enumerate(glyph):
                for gx, bit in enumerate(line):
                    if bit == "1":
                        px, py = x + gx * SCALE, y + gy * SCALE
                        self.rect(px, py, px + SCALE, py + SCALE, colour)
            x += 4 * SCALE

    def png(self) -> bytes:
        raw = b"".join(b"\x00" + bytes(row) for row in self.rows)

        def chunk(kind: bytes, data: bytes) -> bytes:
            body = kind + data
            return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 3, 0, 0, 0)  # 8-bit paletted
        palette = b"".join(bytes(colour) for colour in _PALETTE)
        return (
            b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", header)
            + chunk(b"PLTE", palette)
            + chunk(b"IDAT", zlib.compress(raw, 6))
            + chunk(b"IEND", b"")
        )


def render(panels: Sequence[tuple[int, Mapping[int, int]]]) -> bytes:
    """A PNG of one bar chart per ``(sides, {face: dice})``, in the order given."""
    height = MARGIN + max(1, len(panels)) * (PANEL_HEIGHT + MARGIN)
    canvas = _Canvas(WIDTH, height)
    for index, (sides, counts) in enumerate(panels):
        top = MARGIN + index * (PANEL_HEIGHT + MARGIN)
        dice = sum(counts.get(face, 0) for face in range(1, sides + 1))
        canvas.text(MARGIN, top, f"d{sides}  n={dice}")
        chart_top = top + LABEL_HEIGHT
        bottom = top + PANEL_HEIGHT
        left, right = MARGIN, WIDTH - MARGIN
        canvas.rect(left, bottom, right, bottom + 1, AXIS)
        if not dice:
            continue
        fair = dice / sides
        tallest = max(max(counts.get(face, 0) for face in range(1, sides + 1)), fair) or 1
        span = bottom - chart_top
        slot = (right - left) / sides
        gap = 1 if slot >= 3 else 0
        for face in range(1, sides + 1):
            x0 = left + round((face - 1) * slot)
            x1 = left + round(face * slot) - gap
            bar = round(span * counts.get(face, 0) / tallest)
            canvas.rect(x0, bottom - bar, max(x1, x0 + 1), bottom, BAR)
        line = bottom - round(span * fair / tallest)
        canvas.rect(left, line, right, line + 1, FAIR)
    return canvas.png()
