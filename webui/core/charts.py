"""Small SVG charts drawn on the server, readable on a 390 px phone: lines with their names at the
end, bars in rows. Labels never overlap: end labels are spread apart (``spread``) in a column of
their own, the chart grows taller when there are many, and bar charts put one label per row."""
from __future__ import annotations

import unicodedata
from typing import Sequence

from markupsafe import Markup, escape

PALETTE = ("#c62828", "#1565c0", "#2e7d32", "#f9a825", "#6a1b9a", "#ef6c00", "#00838f", "#d81b60",
           "#5d4037", "#546e7a")
"""The seat colours of the phone page (app.css ``--seat0`` …): the same person, the same colour."""


def seat_colours(people: Sequence[tuple[str, Sequence[int]]]) -> dict[str, str]:
    """A colour per person that follows the seat colours: ``people`` as (name, their seats, most sat
    first), the first person first; each gets the colour of their first seat no one before took,
    else the next seat colour free (so Ann, always in seat 1, is red on the phone and on the charts)."""
    taken: set[str] = set()
    out: dict[str, str] = {}
    for name, seats in people:
        wanted = [PALETTE[s % len(PALETTE)] for s in seats]
        free = [c for c in wanted + list(PALETTE) if c not in taken]
        out[name] = free[0] if free else PALETTE[len(out) % len(PALETTE)]
        taken.add(out[name])
    return out


FONT = 12.0
"""Label font size in SVG units (the chart is drawn 360 wide and shown at the phone's width)."""
GAP = FONT + 3
"""Smallest distance between two label baselines."""
WIDTH = 360
BOLD = FONT * 1.15
"""The size to estimate bold labels at: Chromium's bold sans (DejaVu) is about 15 % wider than the
0.62 em estimate, and a long name at a line's end was measured leaving its chart."""


def text_width(text: str, size: float = FONT) -> float:
    """An estimate of a label's width: wide (CJK) characters a full em, others about 0.62 em."""
    return sum(size if unicodedata.east_asian_width(ch) in "WF" else size * 0.62 for ch in text)


def fit(text: str, width: float, size: float = FONT) -> str:
    """``text`` shortened with an ellipsis to fit ``width``."""
    if text_width(text, size) <= width:
        return text
    while text and text_width(text + "…", size) > width:
        text = text[:-1]
    return text + "…"


def _pieces(text: str) -> list[str]:
    """``text`` in the pieces a line may break between: after a space, and around every wide (CJK)
    character (Japanese breaks between any two characters)."""
    pieces: list[str] = []
    for ch in text:
        wide = unicodedata.east_asian_width(ch) in "WF"
        if not pieces or wide or pieces[-1].endswith(" ") or unicodedata.east_asian_width(pieces[-1][-1]) in "WF":
            pieces.append(ch)
        else:
            pieces[-1] += ch
    return pieces


def wrap(text: str, width: float, size: float = FONT) -> list[str]:
    """``text`` in lines no wider than ``width``, broken between words (or CJK characters), never
    cut: a word wider than a line is broken inside, with a hyphen after a letter."""
    lines: list[str] = []
    line = ""
    for piece in _pieces(" ".join(text.split())):
        if text_width((line + piece).rstrip(), size) <= width or not line.strip():
            line += piece
        else:
            lines.append(line.rstrip())
            line = piece.lstrip()   # a line never starts with the space it broke at
        while text_width(line.rstrip(), size) > width and len(line.strip()) > 1:   # one word too wide
            cut = len(line)
            while cut > 2 and text_width(line[:cut - 1] + "-", size) > width:   # a line keeps a character
                cut -= 1
            head = line[:cut - 1]
            lines.append(head + ("-" if head[-1:].isalpha() and line[cut - 1:cut].isalpha() else ""))
            line = line[cut - 1:]
    if line.strip():
        lines.append(line.rstrip())
    return lines


def spread(wanted: Sequence[float], gap: float, low: float, high: float,
           lines: Sequence[int] = ()) -> list[float]:
    """Positions as near ``wanted`` as possible, in the same order, at least ``gap`` apart and within
    [low, high]; a label of ``lines[i]`` lines needs that many gaps below its position (the caller
    makes the range tall enough: ``(sum(lines) - 1) * gap <= high - low``)."""
    span = [gap * (lines[i] if i < len(lines) else 1) for i in range(len(wanted))]
    order = sorted(range(len(wanted)), key=lambda i: (wanted[i], i))
    ys = [min(max(wanted[i], low), high - span[i] + gap) for i in order]
    for k in range(1, len(ys)):              # push down what sits too close to the one above
        ys[k] = max(ys[k], ys[k - 1] + span[order[k - 1]])
    if ys and ys[-1] + span[order[-1]] - gap > high:   # then back up from the bottom edge
        ys[-1] = high - span[order[-1]] + gap
        for k in range(len(ys) - 2, -1, -1):
            ys[k] = min(ys[k], ys[k + 1] - span[order[k]])
    out = [0.0] * len(wanted)
    for k, i in enumerate(order):
        out[i] = ys[k]
    return out


def _nice_ticks(lo: float, hi: float, count: int = 4) -> list[float]:
    if hi <= lo:
        return [lo]
    raw = (hi - lo) / count
    magnitude = 10 ** len(str(int(raw))) / 10 if raw >= 1 else 1
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    start = int(lo // step) * step
    ticks, v = [], start
    while v <= hi + 1e-9:
        if v >= lo - 1e-9:
            ticks.append(v)
        v += step
    return ticks


def _fmt(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:.1f}"


def line_chart(lines: Sequence[tuple[str, Sequence[tuple[float, float]]]], *, label: str,
               x_first: float | None = None, height: int = 170, colours: Sequence[str] = ()) -> Markup:
    """Lines of (x, y) points, each named at its last point (``Ann 42``); dots mark every point so
    a line of one point still shows. ``label`` is the chart's accessible name; ``colours`` one per
    line (default: the seat colours in order). A name too long for the label column is wrapped onto
    more lines (``wrap``), never cut; the labels are spread so that no two touch."""
    lines = [(name, list(points)) for name, points in lines if points]
    if not lines:
        return Markup("")
    xs = [x for _, pts in lines for x, _ in pts]
    ys = [y for _, pts in lines for _, y in pts]
    x_lo, x_hi = (min(xs) if x_first is None else x_first), max(xs)
    y_lo, y_hi = min(min(ys), 0), max(max(ys), 0)
    ticks = _nice_ticks(y_lo, y_hi)
    y_lo, y_hi = min(y_lo, ticks[0]), max(y_hi, ticks[-1])
    texts = [f"{name} {_fmt(pts[-1][1])}" for name, pts in lines]
    label_w = min(max(text_width(t, BOLD) for t in texts) + 8, WIDTH * 0.4)
    # room for the longest word, if it leaves the lines half the width: a name broken inside a word
    # is the last resort
    longest = max(text_width(piece.strip(), BOLD) for t in texts for piece in _pieces(t))
    label_w = max(label_w, min(longest + 8, WIDTH * 0.5))
    wrapped = [wrap(t, label_w - 4, BOLD) for t in texts]
    rows = sum(len(w) for w in wrapped)
    height = max(height, int(rows * GAP + 40))
    left, top, bottom = 30.0, 12.0, 22.0
    right = WIDTH - label_w - 6
    plot_h = height - top - bottom

    def px(x: float) -> float:
        return left + (right - left) * ((x - x_lo) / (x_hi - x_lo) if x_hi > x_lo else 0.5)

    def py(y: float) -> float:
        return top + plot_h * (1 - (y - y_lo) / ((y_hi - y_lo) or 1))

    parts = [f'<svg class="chart" viewBox="0 0 {WIDTH} {height}" role="img" aria-label="{escape(label)}">']
    for t in ticks:   # horizontal grid with the value on the left
        y = py(t)
        cls = "zero" if t == 0 and y_lo < 0 else "grid"
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{right}" y2="{y:.1f}" class="{cls}"/>')
        parts.append(f'<text x="{left - 4}" y="{y + 4:.1f}" text-anchor="end" class="tick">{_fmt(t)}</text>')
    step = max(1, int((x_hi - x_lo) // max(1, (right - left) // 34)) + 1) if x_hi > x_lo else 1
    x = x_lo
    while x <= x_hi:   # x ticks at least 34 units apart: numbers never touch
        parts.append(f'<text x="{px(x):.1f}" y="{height - 6}" text-anchor="middle" class="tick">{_fmt(x)}</text>')
        x += step
    # a label of several lines is centred on its line's end; its first line is what ``spread`` places
    ends = spread([py(pts[-1][1]) + 4 - GAP * (len(w) - 1) / 2 for (_, pts), w in zip(lines, wrapped)],
                  GAP, top + 4, height - bottom + 4, [len(w) for w in wrapped])
    for i, ((name, pts), rows_of, end) in enumerate(zip(lines, wrapped, ends)):
        colour = colours[i] if i < len(colours) else PALETTE[i % len(PALETTE)]
        if len(pts) > 1:
            points = " ".join(f"{px(a):.1f},{py(b):.1f}" for a, b in pts)
            parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2.5" points="{points}"/>')
        for a, b in pts:
            parts.append(f'<circle cx="{px(a):.1f}" cy="{py(b):.1f}" r="3" fill="{colour}"/>')
        lx, ly = px(pts[-1][0]), py(pts[-1][1])
        mid = end - 4 + GAP * (len(rows_of) - 1) / 2
        parts.append(f'<line x1="{lx:.1f}" y1="{ly:.1f}" x2="{right + 4:.1f}" y2="{mid:.1f}" '
                     f'stroke="{colour}" class="leader"/>')
        # the whole label stays one text (its accessible words); each line of it is a tspan
        spans = "".join(f'<tspan x="{right + 6:.1f}" dy="{0 if k == 0 else GAP:g}">{escape(row)}</tspan>'
                        for k, row in enumerate(rows_of))
        parts.append(f'<text x="{right + 6:.1f}" y="{end:.1f}" fill="{colour}" class="end">{spans}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))


NAME_COLUMN = 120
"""Widest name column beside the bars; longer names go on a line of their own above their bar."""


def bar_rows(rows: Sequence[tuple[str, float, str]], *, label: str, colours: Sequence[str] | None = None) -> Markup:
    """One bar per row: (name, share 0–1, the words at the bar's end, e.g. ``3 wins · 43%``);
    ``colours`` one per row (default: the seat colours in order; ``[]``: one neutral colour). Names
    are never cut to fit beside their bar: when one is wider than ``NAME_COLUMN``, every name stands
    on its own line above its bar (the bars then use the whole width)."""
    if not rows:
        return Markup("")
    value_w = max(text_width(r[2], BOLD) for r in rows) + 8
    widest = max(text_width(r[0], BOLD) for r in rows) + 8
    above = widest > NAME_COLUMN
    name_w = 0.0 if above else widest
    row_h = 40 if above else 24
    height = len(rows) * row_h + 6
    bar_x, bar_end = (0.0 if above else name_w + 4), WIDTH - value_w
    parts = [f'<svg class="chart bars" viewBox="0 0 {WIDTH} {height}" role="img" aria-label="{escape(label)}">']
    for i, (name, share, words) in enumerate(rows):
        y = 4 + i * row_h + (16 if above else 0)
        if colours is None:
            colour = PALETTE[i % len(PALETTE)]
        else:
            colour = colours[i] if i < len(colours) else "#8a3b12"
        width = max(0.0, min(1.0, share)) * (bar_end - bar_x - 4)
        if above:
            parts.append(f'<text x="0" y="{y - 3}" class="name">{escape(fit(name, WIDTH, BOLD))}</text>')
        else:
            parts.append(f'<text x="{name_w}" y="{y + 15}" text-anchor="end" class="name">'
                         f'{escape(fit(name, name_w - 6, BOLD))}</text>')
        parts.append(f'<rect x="{bar_x}" y="{y + 3}" width="{width:.1f}" height="16" rx="3" fill="{colour}"/>')
        parts.append(f'<text x="{bar_x + width + 4:.1f}" y="{y + 15}" class="value">{escape(words)}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))


TICK = 10.0
"""Axis label font size (``.chart text.tick``)."""


def column_chart(columns: Sequence[tuple[str, str, int]], *, label: str, height: int = 150,
                 colour: str = "#8a3b12") -> Markup:
    """A calendar-like bar chart: one column per period, oldest first, as (short label, group label,
    count) — e.g. ("Nov", "2026", 3) — with the short labels under the columns and a group label
    (the year) under the first column of each group. A label is drawn only where it cannot touch
    its neighbour (every k-th month when the columns are narrow), and a column's count sits on it
    only when it fits the column's width."""
    if not columns:
        return Markup("")
    left, right, top, bottom = 24.0, 4.0, 14.0, 34.0
    plot_w, plot_h = WIDTH - left - right, height - top - bottom
    slot = plot_w / len(columns)
    most = max(c for _, _, c in columns) or 1
    ticks = [t for t in _nice_ticks(0, most, 3) if float(t).is_integer()]
    most = max(most, ticks[-1])
    widest = max(text_width(s, TICK) for s, _, _ in columns) + 6
    every = max(1, int(-(-widest // slot)))          # label every k-th column so labels never touch
    parts = [f'<svg class="chart columns" viewBox="0 0 {WIDTH} {height}" role="img" aria-label="{escape(label)}">']
    for t in ticks:
        y = top + plot_h * (1 - t / most)
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{WIDTH - right}" y2="{y:.1f}" class="grid"/>')
        parts.append(f'<text x="{left - 4}" y="{y + 3.5:.1f}" text-anchor="end" class="tick">{_fmt(t)}</text>')
    groups = [(left + i * slot + 1, g) for i, (_, g, _) in enumerate(columns) if g and (i == 0 or columns[i - 1][1] != g)]
    kept, limit = [], float(WIDTH)
    for gx, group in reversed(groups):   # from the right: a first year of a month or two gives way
        if gx + text_width(group, TICK) + 4 <= limit:
            kept.append((gx, group))
            limit = gx
    for gx, group in kept:
        parts.append(f'<text x="{gx:.1f}" y="{height - 6}" class="tick group">{escape(group)}</text>')
    for i, (short, group, count) in enumerate(columns):
        x = left + i * slot
        h = plot_h * count / most
        bar_w = max(1.0, slot * 0.72)
        cx = x + slot / 2
        title = f"{short} {group}: {count}"
        parts.append(f'<rect x="{cx - bar_w / 2:.1f}" y="{top + plot_h - h:.1f}" width="{bar_w:.1f}" '
                     f'height="{h:.1f}" rx="2" fill="{colour}"><title>{escape(title)}</title></rect>')
        if count and text_width(str(count), TICK) + 2 <= slot:
            parts.append(f'<text x="{cx:.1f}" y="{top + plot_h - h - 3:.1f}" text-anchor="middle" '
                         f'class="tick count">{count}</text>')
        if i % every == 0:
            parts.append(f'<text x="{cx:.1f}" y="{height - bottom + 13}" text-anchor="middle" '
                         f'class="tick">{escape(short)}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))
