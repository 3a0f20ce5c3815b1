"""The HTML page of ``rulelang validate --report FILE.html``: one self-contained file.

Tables and inline SVG plots (no scripts, no fonts, no files beside it): win rates with their
95% intervals, score box plots, game-length histograms, procedure calls and card choices,
the static warnings and any invariant violation with its choices.
"""

from __future__ import annotations

import html
import math
import time
from typing import Any

from .validate import Variant, Violation, balance_rows, describe

COLORS = ["#4c78a8", "#f58518", "#54a24b", "#e45756"]
LEGEND = 150  # pixels kept at the right of each plot for its legend


def _e(x: Any) -> str:
    return html.escape(str(x), quote=True)


def _svg(width: int, height: int, body: list[str], title: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img" aria-label="{_e(title)}">'
            f'<title>{_e(title)}</title>' + "".join(body) + "</svg>")


def _text(x: float, y: float, s: Any, anchor: str = "middle", size: int = 11, extra: str = "") -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
            f'font-family="sans-serif" {extra}>{_e(s)}</text>')


def _axis_titles(w: int, h: int, x_title: str, y_title: str, left: int = 50, top: int = 20,
                 bottom: int = 40) -> list[str]:
    """Axis titles: x under the plot, y turned up along the left edge."""
    cy = top + (h - top - bottom) / 2
    return [_text(left + (w - LEGEND - left) / 2, h - 4, x_title, size=12, extra='font-weight="bold"'),
            _text(12, cy, y_title, size=12, extra=f'font-weight="bold" transform="rotate(-90 12 {cy:.1f})"')]


def _legend(variants: list[Variant], x: float, y: float) -> list[str]:
    out = []
    for i, v in enumerate(variants):
        out.append(f'<rect x="{x}" y="{y + 16 * i - 9}" width="10" height="10" fill="{COLORS[i % 4]}"/>')
        out.append(_text(x + 14, y + 16 * i, v.label, anchor="start"))
    return out


def _ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    if hi <= lo:
        return [lo]
    raw = (hi - lo) / count
    mag = 10 ** math.floor(math.log10(raw))
    step = min((m * mag for m in (1, 2, 5, 10) if m * mag >= raw), default=raw)
    first = math.ceil(lo / step) * step
    out = []
    t = first
    while t <= hi + 1e-9:
        out.append(round(t, 10))
        t += step
    return out


def win_rate_chart(variants: list[Variant]) -> str:
    """Grouped bars of the win rate per seat, with whiskers for the 95% Wilson interval."""
    players = variants[0].players
    w, h, left, bottom, top = 260 + 90 * players * len(variants), 280, 60, 50, 20
    plot_h = h - bottom - top
    body = _axis_titles(w, h, "seat", "win rate (% of games)", left, top, bottom)
    for t in (0, 0.25, 0.5, 0.75, 1.0):
        y = top + plot_h * (1 - t)
        body.append(f'<line x1="{left}" x2="{w - LEGEND}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>')
        body.append(_text(left - 6, y + 4, f"{int(t * 100)}%", anchor="end"))
    fair = top + plot_h * (1 - 1 / players)
    body.append(f'<line x1="{left}" x2="{w - LEGEND}" y1="{fair:.1f}" y2="{fair:.1f}" stroke="#999" '
                f'stroke-dasharray="4 3"/>')
    group = (w - LEGEND - left) / players
    bar = group * 0.8 / len(variants)
    for seat in range(players):
        gx = left + group * seat + group * 0.1
        for i, v in enumerate(variants):
            rate, lo, hi = v.win_rate(seat)
            x = gx + bar * i
            y = top + plot_h * (1 - rate)
            body.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar - 2:.1f}" height="{top + plot_h - y:.1f}" '
                        f'fill="{COLORS[i % 4]}"><title>{_e(v.label)}: {100 * rate:.1f}% '
                        f'({100 * lo:.1f}-{100 * hi:.1f})</title></rect>')
            cx = x + (bar - 2) / 2
            ylo, yhi = top + plot_h * (1 - lo), top + plot_h * (1 - hi)
            body.append(f'<line x1="{cx:.1f}" x2="{cx:.1f}" y1="{ylo:.1f}" y2="{yhi:.1f}" stroke="#222"/>')
            for yy in (ylo, yhi):
                body.append(f'<line x1="{cx - 4:.1f}" x2="{cx + 4:.1f}" y1="{yy:.1f}" y2="{yy:.1f}" stroke="#222"/>')
        body.append(_text(gx + group * 0.4, h - bottom + 16, f"Player {seat + 1}"))
    body += _legend(variants, w - LEGEND + 20, top + 10)
    return _svg(w, h, body, "win rate per seat with 95% intervals; the dashed line is an equal share")


def score_boxplot(variants: list[Variant]) -> str:
    """Box plots of the scores: per seat and variant (min, quartiles, max, and the mean as a dot)."""
    players = variants[0].players
    all_scores = [x for v in variants for s in v.scores for x in s]
    if not all_scores:
        return ""
    lo, hi = min(all_scores), max(all_scores)
    if hi == lo:
        hi = lo + 1
    w, h, left, bottom, top = 260 + 90 * players * len(variants), 300, 60, 50, 20
    plot_h = h - bottom - top

    def y(v: float) -> float:
        return top + plot_h * (1 - (v - lo) / (hi - lo))

    body = _axis_titles(w, h, "seat", "final score (points)", left, top, bottom)
    for t in _ticks(lo, hi):
        body.append(f'<line x1="{left}" x2="{w - LEGEND}" y1="{y(t):.1f}" y2="{y(t):.1f}" stroke="#eee"/>')
        body.append(_text(left - 6, y(t) + 4, f"{t:g}", anchor="end"))
    group = (w - LEGEND - left) / players
    box = group * 0.8 / len(variants)
    for seat in range(players):
        gx = left + group * seat + group * 0.1
        for i, v in enumerate(variants):
            d = describe(v.scores[seat])
            if d["n"] is None:
                continue
            x = gx + box * i + 3
            bw = box - 6
            cx = x + bw / 2
            c = COLORS[i % 4]
            body.append(f'<line x1="{cx:.1f}" x2="{cx:.1f}" y1="{y(d["min"]):.1f}" y2="{y(d["max"]):.1f}" stroke="{c}"/>')
            body.append(f'<rect x="{x:.1f}" y="{y(d["q3"]):.1f}" width="{bw:.1f}" '
                        f'height="{max(1.0, y(d["q1"]) - y(d["q3"])):.1f}" fill="{c}" fill-opacity="0.35" '
                        f'stroke="{c}"><title>{_e(v.label)}: median {d["median"]:g}, quartiles '
                        f'{d["q1"]:g}-{d["q3"]:g}, range {d["min"]:g}-{d["max"]:g}</title></rect>')
            body.append(f'<line x1="{x:.1f}" x2="{x + bw:.1f}" y1="{y(d["median"]):.1f}" '
                        f'y2="{y(d["median"]):.1f}" stroke="{c}" stroke-width="2"/>')
            body.append(f'<circle cx="{cx:.1f}" cy="{y(d["mean"]):.1f}" r="3" fill="#222"/>')
        body.append(_text(gx + group * 0.4, h - bottom + 16, f"Player {seat + 1}"))
    body += _legend(variants, w - LEGEND + 20, top + 10)
    return _svg(w, h, body, "final scores per seat: box = quartiles, line = median, dot = mean")


def length_histogram(variants: list[Variant], bins: int = 20) -> str:
    """Histograms of the number of decisions per game, one outline per variant."""
    values = [x for v in variants for x in v.lengths]
    if not values:
        return ""
    lo, hi = min(values), max(values)
    width = max(1.0, (hi - lo + 1) / bins)
    w, h, left, bottom, top = 700, 260, 60, 50, 20
    plot_w, plot_h = w - left - LEGEND, h - bottom - top
    counts = []
    for v in variants:
        c = [0] * bins
        for x in v.lengths:
            c[min(bins - 1, int((x - lo) / width))] += 1
        counts.append([k / max(1, len(v.lengths)) for k in c])
    peak = max(max(c) for c in counts) or 1
    body = [f'<line x1="{left}" x2="{left + plot_w}" y1="{top + plot_h}" y2="{top + plot_h}" stroke="#999"/>']
    for i, c in enumerate(counts):
        pts = []
        for b, k in enumerate(c):
            x0 = left + plot_w * b / bins
            x1 = left + plot_w * (b + 1) / bins
            yy = top + plot_h * (1 - k / peak)
            pts += [f"{x0:.1f},{yy:.1f}", f"{x1:.1f},{yy:.1f}"]
        poly = f"{left},{top + plot_h} " + " ".join(pts) + f" {left + plot_w},{top + plot_h}"
        body.append(f'<polygon points="{poly}" fill="{COLORS[i % 4]}" fill-opacity="0.25" '
                    f'stroke="{COLORS[i % 4]}"/>')
    for t in _ticks(lo, hi):
        x = left + plot_w * (t - lo) / (width * bins)
        body.append(_text(x, top + plot_h + 16, f"{t:g}"))
    for t in (0.0, 0.5, 1.0):
        yy = top + plot_h * (1 - t)
        body.append(_text(left - 6, yy + 4, f"{100 * peak * t:.0f}%", anchor="end"))
    body += _axis_titles(w, h, "game length (decisions per game)", "share of games (%)", left, top, bottom)
    body += _legend(variants, w - LEGEND + 20, top + 10)
    return _svg(w, h, body, "how long the games are, in decisions (share of games per bin)")


def hbar_chart(variants: list[Variant], values: list[list[float]], labels: list[str], title: str,
               unit: str = "", x_title: str = "") -> str:
    """Horizontal grouped bars: one row per label, one bar per variant; ``x_title`` names the
    bars' length with its unit."""
    if not labels:
        return ""
    row = 8 + 12 * len(variants)
    w, left, top = 860, 260, 10
    h = max(top + row * len(labels) + 34, 84)
    peak = max((x for vals in values for x in vals), default=0) or 1
    plot_w = w - left - LEGEND - 50
    body = []
    for r, label in enumerate(labels):
        y0 = top + row * r
        body.append(_text(left - 8, y0 + row / 2 + 4, label if len(label) < 40 else label[:38] + "...",
                          anchor="end"))
        for i, vals in enumerate(values):
            x = vals[r]
            bw = plot_w * x / peak
            body.append(f'<rect x="{left}" y="{y0 + 4 + 12 * i}" width="{bw:.1f}" height="10" '
                        f'fill="{COLORS[i % 4]}"><title>{_e(variants[i].label)}: {x:.2f}{unit}</title></rect>')
            body.append(_text(left + bw + 4, y0 + 13 + 12 * i, f"{x:.2f}", anchor="start", size=9))
    if x_title:
        body.append(_text(left + plot_w / 2, h - 6, x_title, size=12, extra='font-weight="bold"'))
    body += _legend(variants, w - LEGEND + 20, top + 10)
    return _svg(w, h, body, title)


def _table(variants: list[Variant]) -> str:
    out = ['<table><tr><th></th>' + "".join(f"<th>{_e(v.label)}</th>" for v in variants) + "</tr>"]
    for label, cells in balance_rows(variants, top=40):
        if not label and not cells:
            continue
        cls = ' class="head"' if all(c == "" for c in cells) else ""
        out.append(f"<tr{cls}><td>{_e(label)}</td>" + "".join(f"<td>{_e(c)}</td>" for c in cells) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


CSS = """
body { font-family: sans-serif; margin: 2em auto; max-width: 72em; color: #222; line-height: 1.4; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; font-size: 0.9em; }
td, th { padding: 2px 10px; text-align: left; white-space: pre; font-family: monospace; }
tr.head td { font-weight: bold; font-family: sans-serif; padding-top: 0.8em; }
pre { background: #f6f6f6; padding: 0.8em; overflow-x: auto; font-size: 0.85em; }
.bad { color: #b00; font-weight: bold; } .ok { color: #070; font-weight: bold; }
figure { margin: 1em 0; } figcaption { font-size: 0.85em; color: #555; }
.verdict { background: #f3f7fb; border-left: 4px solid #4c78a8; padding: 0.2em 1em; }
.verdict li { margin: 0.3em 0; }
"""


def llr_chart(result: Any) -> str:
    """Each question's larger log-likelihood ratio after every pair, with the two bounds."""
    from .sprt import bounds

    tests = [(q, t) for q, t in result.tests if t.history]
    if not tests:
        return ""
    lower, upper = bounds()
    w, h, left, bottom, top = 760, 300, 60, 50, 20
    plot_w, plot_h = w - left - LEGEND, h - bottom - top
    n_max = max(len(t.history) for _, t in tests)
    lo, hi = lower - 1.5, upper + 1.5

    def y(v: float) -> float:
        v = min(hi, max(lo, v))
        return top + plot_h * (1 - (v - lo) / (hi - lo))

    def x(i: int) -> float:
        return left + plot_w * i / max(1, n_max)

    body = _axis_titles(w, h, "paired games played", "log-likelihood ratio (H1 against H0)", left, top, bottom)
    for t in _ticks(lo, hi):
        body.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y(t):.1f}" y2="{y(t):.1f}" stroke="#eee"/>')
        body.append(_text(left - 6, y(t) + 4, f"{t:g}", anchor="end"))
    for t in _ticks(0, n_max):
        body.append(_text(x(int(t)), top + plot_h + 16, f"{t:g}"))
    for bound, name in ((upper, "H1: changed"), (lower, "H0: no change")):
        body.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y(bound):.1f}" y2="{y(bound):.1f}" '
                    f'stroke="#b00" stroke-dasharray="5 3"/>')
        body.append(_text(left + plot_w - 4, y(bound) - 4, f"{name} ({bound:+.2f})", anchor="end", size=10))
    for i, (q, t) in enumerate(tests):
        pts = " ".join(f"{x(k + 1):.1f},{y(max(up, down)):.1f}" for k, (up, down) in enumerate(t.history))
        body.append(f'<polyline points="{pts}" fill="none" stroke="{COLORS[i % 4]}" stroke-width="1.5"/>')
        body.append(f'<rect x="{w - LEGEND + 10}" y="{top + 16 * i}" width="10" height="10" fill="{COLORS[i % 4]}"/>')
        body.append(_text(w - LEGEND + 24, top + 16 * i + 9, q.key, anchor="start"))
    return _svg(w, h, body, "the sequential tests: evidence after each paired game")


def _rows_table(header: list[str], rows: list[list[str]]) -> str:
    out = ["<table><tr>" + "".join(f"<th>{_e(h)}</th>" for h in header) + "</tr>"]
    for r in rows:
        cls = ' class="head"' if len(r) > 1 and all(c == "" for c in r[1:]) else ""
        out.append(f"<tr{cls}>" + "".join(f"<td>{_e(c)}</td>" for c in r) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def _sequential_html(result: Any) -> list[str]:
    from .sequential import TEST_HEADER, metric_rows, test_rows

    parts = ["<h2>Balance: the sequential tests</h2>",
             f"<p>{result.pairs} {'paired games (the same seeds for the base game and the house rules)' if result.house else 'games'}"
             f", budget {result.budget}; agents {_e(', '.join(result.agents))}; {_e(result.backend)}.</p>",
             _rows_table(TEST_HEADER, test_rows(result))]
    chart = llr_chart(result)
    if chart:
        parts.append("<figure>" + chart + "<figcaption>The larger of each question's two one-sided "
                     "log-likelihood ratios after every pair; a question stops when it crosses a dashed bound."
                     "</figcaption></figure>")
    labels = ["base"] + (["with house rules"] if result.house else [])
    parts.append("<h2>Metrics</h2><p>Each metric's formula is in docs/testing.md; 95 % intervals in "
                 "brackets.</p>")
    parts.append(_rows_table(["metric"] + labels, [[label] + cells for label, cells in metric_rows(result, top=40)]))
    return parts


def _matchups_html(m: Any) -> list[str]:
    parts = ["<h2>Matchups</h2>",
             f"<p>Win rate of the row's agent in one seat against the column's agent in the other seat"
             f"{'s' if m.players > 2 else ''}; {m.games} games a cell, seats rotated; a fair share is "
             f"{100 / m.players:.0f} %.</p>"]
    for label in m.labels:
        rows = []
        for a in m.agents:
            cells = []
            for b in m.agents:
                r = m.rate(label, a, b)
                cells.append("-" if r is None else f"{100 * r[0]:.0f} % ({100 * r[1]:.0f}-{100 * r[2]:.0f})")
            rows.append([a] + cells)
        parts.append(f"<h3>{_e(label)}</h3>" + _rows_table([""] + [f"vs {b}" for b in m.agents], rows))
    return parts


def html_report(title: str, meta: dict, warnings_text: str | None, variants: list[Variant],
                violation: Violation | None, violation_text: str | None, dynamic_note: str | None,
                sequential: Any = None, matchups: Any = None, verdict: list[str] | None = None) -> str:
    """The whole page as one string: the verdict first, then the details."""
    parts = [f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{_e(title)}</title>"
             f"<style>{CSS}</style></head><body>", f"<h1>{_e(title)}</h1>"]
    if verdict:
        parts.append('<h2 id="verdict">Verdict</h2><div class="verdict">')
        for block in verdict:
            lines = block.splitlines()
            parts.append(f"<p><b>{_e(lines[0])}</b></p>")
            items = [ln.strip().removeprefix("- ") for ln in lines[1:]]
            if items:
                parts.append("<ul>" + "".join(f"<li>{_e(i)}</li>" for i in items) + "</ul>")
        parts.append("</div>")
    parts.append("<p>" + "<br>".join(f"<b>{_e(k)}</b>: {_e(v)}" for k, v in meta.items()) +
                 f"<br><b>written</b>: {_e(time.strftime('%Y-%m-%d %H:%M'))}</p>")
    if warnings_text is not None:
        parts.append("<h2>Static analysis</h2>")
        parts.append(f"<pre>{_e(warnings_text)}</pre>")
    if dynamic_note is not None:
        parts.append("<h2>Invariants over explored games</h2>")
        if violation is None:
            parts.append(f'<p class="ok">{_e(dynamic_note)}</p>')
        else:
            parts.append(f'<p class="bad">{_e(dynamic_note)}</p><pre>{_e(violation_text or "")}</pre>')
    if sequential is not None:
        parts += _sequential_html(sequential)
    if variants:
        parts.append("<h2>Balance: the games in figures</h2>")
        parts.append("<figure>" + win_rate_chart(variants) +
                     "<figcaption>Win rate per seat; whiskers: 95% Wilson interval; dashed: an equal share."
                     "</figcaption></figure>")
        parts.append("<figure>" + score_boxplot(variants) +
                     "<figcaption>Final scores per seat: box from the first to the third quartile, thick "
                     "line at the median, whiskers to the minimum and maximum, dot at the mean.</figcaption></figure>")
        parts.append("<figure>" + length_histogram(variants) +
                     "<figcaption>Decisions per game (share of each variant's games).</figcaption></figure>")
        names = sorted({k for v in variants for k in v.calls},
                       key=lambda k: -max(v.calls.get(k, 0) for v in variants))
        vals = [[v.calls.get(k, 0) / v.finished if v.finished else 0 for k in names] for v in variants]
        parts.append("<figure>" + hbar_chart(variants, vals, names, "procedure calls per game",
                                             x_title="calls per game") +
                     "<figcaption>Calls per game of each procedure and trigger.</figcaption></figure>")
        cards = sorted({k for v in variants for k in v.card_picks},
                       key=lambda k: -max(v.card_picks.get(k, 0) for v in variants))[:30]
        vals = [[v.card_picks.get(k, 0) / v.finished if v.finished else 0 for k in cards] for v in variants]
        if cards:
            parts.append("<figure>" + hbar_chart(variants, vals, cards, "times each card is chosen per game",
                                                 x_title="times chosen per game") +
                         "<figcaption>How often each card is picked in a choice, per game (top 30)."
                         "</figcaption></figure>")
        parts.append("<h2>The numbers</h2>")
        parts.append(_table(variants))
    if matchups is not None:
        parts += _matchups_html(matchups)
    parts.append("</body></html>")
    return "\n".join(parts)
