"""Figures without matplotlib: inline SVG charts and PNG heat maps as data URIs.

What the HTML report (:func:`snl_numeric.report`) draws, so that a plain install
(no ``plot`` extra) writes a complete, self-contained page: no script, no external
resource, every text escaped. SVGs scale with the page (``viewBox``, no fixed width);
ids are unique per figure (``uid``).
"""

from __future__ import annotations

import base64
import math
import struct
import zlib
from collections.abc import Sequence
from html import escape

import numpy as np

from .._core.grid import grid_shape, square_xy
from .html import GOAL_COLOR, LADDER_COLOR, SNAKE_COLOR

__all__ = ["bars_svg", "board_svg_figure", "colour_map", "distribution_svg", "png_data_uri",
           "heat_rgb", "nice_ticks", "SEQUENTIAL", "DIVERGING", "RED_GREEN", "CATEGORICAL"]

#: Anchor colours of the colour maps (linear interpolation between them).
SEQUENTIAL = ((68, 1, 84), (59, 82, 139), (33, 145, 140), (94, 201, 98), (253, 231, 37))
DIVERGING = ((33, 102, 172), (146, 197, 222), (247, 247, 247), (244, 165, 130), (178, 24, 43))
RED_GREEN = ((215, 48, 39), (252, 141, 89), (255, 255, 191), (145, 207, 96), (26, 152, 80))
CATEGORICAL = ("#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#ff9da6",
               "#9d755d", "#bab0ac", "#eeca3b")
_FONT = 'font-family="system-ui, sans-serif"'


def colour_map(values: np.ndarray, anchors: Sequence[tuple[int, int, int]] = SEQUENTIAL
               ) -> np.ndarray:
    """RGB (uint8, shape ``values.shape + (3,)``) of ``values`` in [0, 1] along ``anchors``.

    Examples
    --------
    >>> colour_map(np.array([0.0, 1.0])).tolist()
    [[68, 1, 84], [253, 231, 37]]
    """
    a = np.asarray(anchors, dtype=np.float64)
    pos = np.clip(np.nan_to_num(values, nan=0.0), 0.0, 1.0) * (len(a) - 1)
    i = np.minimum(pos.astype(np.int64), len(a) - 2)
    w = (pos - i)[..., None]
    return np.rint(a[i] * (1 - w) + a[i + 1] * w).astype(np.uint8)


def _hex(rgb: np.ndarray) -> str:
    return "#{:02x}{:02x}{:02x}".format(*(int(c) for c in rgb))


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """About ``count`` round tick values covering ``[lo, hi]``.

    Examples
    --------
    >>> nice_ticks(0, 147)
    [0.0, 50.0, 100.0]
    """
    span = hi - lo
    if not span > 0:
        return [float(lo)]
    raw = span / count
    step = 10 ** math.floor(math.log10(raw))
    step *= next(m for m in (1, 2, 5, 10) if step * m >= raw)
    first = math.ceil(lo / step) * step
    return [float(round(first + k * step, 12)) for k in range(int((hi - first) / step + 1e-9) + 1)]


def _label(x: float) -> str:
    return f"{x:g}" if abs(x) < 1e6 else f"{x:.2g}"


def _svg(width: float, height: float, title: str, body: list[str]) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:.0f} {height:.0f}" '
            f'role="img" {_FONT} font-size="13"><title>{escape(title)}</title>'
            + "".join(body) + "</svg>")


def distribution_svg(pmf: np.ndarray, cdf: np.ndarray, *, last: int, marks: dict[str, float],
                     title: str, unit: str = "throws") -> str:
    """Bars of ``pmf[0 .. last]`` with the cdf as a line (right axis) and labelled vertical
    marks (mean, median, ...); ``unit`` names the horizontal axis."""
    w, h, left, right, top, bottom = 560.0, 280.0, 54.0, 44.0, 14.0, 40.0
    pw, ph = w - left - right, h - top - bottom
    p = pmf[: last + 1]
    ymax = float(p.max()) * 1.1 or 1.0
    dx = pw / (last + 1)

    def x(k: float) -> float:
        return left + (k + 0.5) * dx

    body = []
    for k in np.flatnonzero(p > 0).tolist():
        bh = ph * p[k] / ymax
        body.append(f'<rect x="{x(k) - dx * 0.45:.2f}" y="{top + ph - bh:.2f}" '
                    f'width="{dx * 0.9:.2f}" height="{bh:.2f}" fill="#4c78a8"/>')
    line = " ".join(f"{x(k):.2f},{top + ph * (1 - c):.2f}" for k, c in enumerate(cdf[: last + 1]))
    body.append(f'<polyline points="{line}" fill="none" stroke="#e45756" stroke-width="1.8"/>')
    for tick in nice_ticks(0, last):
        body.append(f'<line x1="{x(tick):.2f}" x2="{x(tick):.2f}" y1="{top + ph}" '
                    f'y2="{top + ph + 4}" stroke="#333"/><text x="{x(tick):.2f}" '
                    f'y="{top + ph + 16}" text-anchor="middle">{_label(tick)}</text>')
    for tick in nice_ticks(0, ymax, 4):
        y = top + ph * (1 - tick / ymax)
        body.append(f'<text x="{left - 6}" y="{y + 4:.2f}" text-anchor="end">{tick:.3g}</text>'
                    f'<line x1="{left}" x2="{left + pw}" y1="{y:.2f}" y2="{y:.2f}" '
                    'stroke="#ddd"/>')
    for c in (0.0, 0.5, 1.0):
        y = top + ph * (1 - c)
        body.append(f'<text x="{left + pw + 6}" y="{y + 4:.2f}" fill="#e45756">{c:g}</text>')
    for i, (name, k) in enumerate(marks.items()):
        if 0 <= k <= last:
            body.append(f'<line x1="{x(k):.2f}" x2="{x(k):.2f}" y1="{top}" y2="{top + ph}" '
                        'stroke="#333" stroke-dasharray="4 3"/>'
                        f'<text x="{x(k) + 4:.2f}" y="{top + 12 + 14 * i}">{escape(name)}</text>')
    body.append(f'<line x1="{left}" x2="{left + pw}" y1="{top + ph}" y2="{top + ph}" '
                'stroke="#333"/>')
    body.append(f'<text x="{left + pw / 2}" y="{h - 6}" text-anchor="middle">{unit}</text>'
                f'<text x="14" y="{top + ph / 2}" text-anchor="middle" '
                f'transform="rotate(-90 14 {top + ph / 2})">P(T = k)</text>'
                f'<text x="{w - 10}" y="{top + ph / 2}" text-anchor="middle" fill="#e45756" '
                f'transform="rotate(90 {w - 10} {top + ph / 2})">P(T ≤ k)</text>')
    return _svg(w, h, title, body)


def bars_svg(labels: Sequence[str], values: np.ndarray, colours: Sequence[str], *, title: str,
             xlabel: str, uid: str = "bars") -> str:
    """Horizontal bars, one per label, around a zero line; infinite values run to the edge
    (hatched, marked "∞"), NaN ones are left empty."""
    n = len(labels)
    w, left, right, top, row = 560.0, 78.0, 20.0, 10.0, 22.0
    h = top + n * row + 44.0
    pw = w - left - right
    finite = values[np.isfinite(values)]
    edge = float(np.abs(finite).max()) * 1.1 if len(finite) and finite.any() else 1.0
    lo = -edge if (values < 0).any() else 0.0
    hi = edge if (values > 0).any() or lo == 0 else 0.0

    def x(v: float) -> float:
        return left + pw * (v - lo) / (hi - lo)

    body = [f'<defs><pattern id="{uid}-hatch" width="6" height="6" patternUnits="userSpaceOnUse" '
            'patternTransform="rotate(45)"><rect width="3" height="6" fill="white" '
            'fill-opacity="0.55"/></pattern></defs>']
    for tick in nice_ticks(lo, hi):
        body.append(f'<line x1="{x(tick):.2f}" x2="{x(tick):.2f}" y1="{top}" '
                    f'y2="{top + n * row}" stroke="#e5e5e5"/><text x="{x(tick):.2f}" '
                    f'y="{top + n * row + 16}" text-anchor="middle">{_label(tick)}</text>')
    for i, (name, v, colour) in enumerate(zip(labels, values.tolist(), colours, strict=True)):
        y = top + i * row
        body.append(f'<text x="{left - 6}" y="{y + row * 0.68:.2f}" text-anchor="end">'
                    f"{escape(name)}</text>")
        if math.isnan(v):
            continue
        shown = max(min(v, hi), lo)
        x0, x1 = sorted((x(0.0), x(shown)))
        bar = (f'x="{x0:.2f}" y="{y + 3:.2f}" width="{max(x1 - x0, 0.5):.2f}" '
               f'height="{row - 6:.2f}"')
        body.append(f'<rect {bar} fill="{colour}"><title>{escape(name)}: {v:+.6g}</title></rect>')
        if math.isinf(v):
            body.append(f'<rect {bar} fill="url(#{uid}-hatch)"/><text x="{x1 - 4 if v > 0 else x0 + 4:.2f}" '
                        f'y="{y + row * 0.7:.2f}" text-anchor="{"end" if v > 0 else "start"}" '
                        'fill="white" font-weight="bold">∞</text>')
    body.append(f'<line x1="{x(0.0):.2f}" x2="{x(0.0):.2f}" y1="{top}" y2="{top + n * row}" '
                'stroke="#333"/>')
    body.append(f'<text x="{left + pw / 2}" y="{h - 6}" text-anchor="middle">'
                f"{escape(xlabel)}</text>")
    return _svg(w, h, title, body)


def board_svg_figure(board, *, values: np.ndarray | None = None,
                     colours: Sequence[str] | None = None, title: str, numbers: bool = True,
                     jumps: bool = True) -> str:
    """The board as printed (square 1 bottom-left, boustrophedon; square 0 left of it),
    squares filled with ``colours`` (one per square), else by ``values`` in [0, 1] on the
    sequential map, else a checker; ladders green, snakes red (curved), each ending in a
    dot; the goal gold, the start outlined."""
    size = board.size
    rows, n = grid_shape(size)
    cell = 40.0
    w, h = (n + 1) * cell, rows * cell
    xs, ys = square_xy(np.arange(size + 1), size)
    cx, cy = (xs + 1.5) * cell, (rows - 0.5 - ys) * cell
    if colours is None and values is not None:
        colours = [_hex(c) for c in colour_map(values)]
    body = []
    for k in range(size + 1):
        fill = colours[k] if colours is not None else (
            "#f5f0e1" if (xs[k] + ys[k]) % 2 else "#e6dcc3")
        if k == size and colours is None:
            fill = GOAL_COLOR
        edge = ' stroke="#000" stroke-width="2.5"' if k == board.start else \
            ' stroke="#fff" stroke-width="1"'
        body.append(f'<rect x="{cx[k] - cell / 2:.1f}" y="{cy[k] - cell / 2:.1f}" '
                    f'width="{cell}" height="{cell}" fill="{fill}"{edge}>'
                    f"<title>square {k}</title></rect>")
    if numbers:
        for k in range(size + 1):
            dark = colours is not None and _dark(colours[k])
            body.append(f'<text x="{cx[k] - cell / 2 + 3:.1f}" y="{cy[k] - cell / 2 + 12:.1f}" '
                        f'font-size="10" fill="{"#fff" if dark else "#333"}">{k}</text>')
    if jumps:
        for s, d in board.jumps.items():
            colour = LADDER_COLOR if d > s else SNAKE_COLOR
            if d > s:
                path = f"M{cx[s]:.1f},{cy[s]:.1f} L{cx[d]:.1f},{cy[d]:.1f}"
            else:  # a curve: bend sideways by a quarter of the length
                mx, my = (cx[s] + cx[d]) / 2, (cy[s] + cy[d]) / 2
                bx, by = mx - (cy[d] - cy[s]) / 4, my + (cx[d] - cx[s]) / 4
                path = f"M{cx[s]:.1f},{cy[s]:.1f} Q{bx:.1f},{by:.1f} {cx[d]:.1f},{cy[d]:.1f}"
            body.append(f'<path d="{path}" fill="none" stroke="{colour}" stroke-width="3.5" '
                        f'stroke-opacity="0.85" stroke-linecap="round"><title>{s}→{d}</title>'
                        f'</path><circle cx="{cx[d]:.1f}" cy="{cy[d]:.1f}" r="5" '
                        f'fill="{colour}"/>')
    return _svg(w, h, title, body)


def _dark(colour: str) -> bool:
    r, g, b = (int(colour[i: i + 2], 16) for i in (1, 3, 5))
    return 0.299 * r + 0.587 * g + 0.114 * b < 110


def heat_rgb(values: np.ndarray, anchors: Sequence[tuple[int, int, int]], *, lo: float,
             hi: float, centre: float | None = None, nan: tuple[int, int, int] = (255, 255, 255),
             over: tuple[int, int, int] = (0, 0, 0)) -> np.ndarray:
    """``values`` (2-D) as RGB on ``anchors`` from ``lo`` to ``hi`` (``centre``: the middle
    anchor, each side scaled apart); NaN white, ``+inf`` black, row 0 at the bottom."""
    v = np.asarray(values, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        if centre is None:
            u = (v - lo) / (hi - lo) if hi > lo else np.full(v.shape, 0.5)
        else:
            u = np.where(v < centre, 0.5 * (v - lo) / max(centre - lo, 1e-300),
                         0.5 + 0.5 * (v - centre) / max(hi - centre, 1e-300))
    rgb = colour_map(u, anchors)
    rgb[np.isnan(v)] = nan
    rgb[np.isposinf(v)] = over
    return rgb[::-1]


def png_data_uri(rgb: np.ndarray) -> str:
    """An RGB image (``(h, w, 3)`` uint8) as a ``data:image/png;base64`` URI (zlib only).

    Examples
    --------
    >>> png_data_uri(np.zeros((1, 1, 3), dtype=np.uint8))[:30]
    'data:image/png;base64,iVBORw0K'
    """
    rgb = np.ascontiguousarray(rgb, dtype=np.uint8)
    h, w, _ = rgb.shape
    raw = b"".join(b"\x00" + rgb[i].tobytes() for i in range(h))

    def chunk(tag: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + tag + data
                + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF))

    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")
