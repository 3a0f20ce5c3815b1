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
    w, h, left, bottom, top = 210 + 90 * players * len(variants), 260, 50, 40, 20
    plot_h = h - bottom - top
    body = []
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
    w, h, left, bottom, top = 210 + 90 * players * len(variants), 280, 50, 40, 20
    plot_h = h - bottom - top

    def y(v: float) -> float:
        return top + plot_h * (1 - (v - lo) / (hi - lo))

    body = []
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
    w, h, left, bottom, top = 660, 240, 50, 40, 20
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
    body.append(_text(left + plot_w / 2, h - 6, "decisions per game"))
    body += _legend(variants, w - LEGEND + 20, top + 10)
    return _svg(w, h, body, "how long the games are, in decisions (share of games per bin)")


def hbar_chart(variants: list[Variant], values: list[list[float]], labels: list[str], title: str,
               unit: str = "") -> str:
    """Horizontal grouped bars: one row per label, one bar per variant."""
    if not labels:
        return ""
    row = 8 + 12 * len(variants)
    w, left, top = 860, 260, 10
    h = max(top + row * len(labels) + 10, 60)
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
"""


def html_report(title: str, meta: dict, warnings_text: str | None, variants: list[Variant],
                violation: Violation | None, violation_text: str | None, dynamic_note: str | None) -> str:
    """The whole page as one string."""
    parts = [f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{_e(title)}</title>"
             f"<style>{CSS}</style></head><body>", f"<h1>{_e(title)}</h1>"]
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
    if variants:
        parts.append("<h2>Balance</h2>")
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
        parts.append("<figure>" + hbar_chart(variants, vals, names, "procedure calls per game") +
                     "<figcaption>Calls per game of each procedure and trigger.</figcaption></figure>")
        cards = sorted({k for v in variants for k in v.card_picks},
                       key=lambda k: -max(v.card_picks.get(k, 0) for v in variants))[:30]
        vals = [[v.card_picks.get(k, 0) / v.finished if v.finished else 0 for k in cards] for v in variants]
        if cards:
            parts.append("<figure>" + hbar_chart(variants, vals, cards, "times each card is chosen per game") +
                         "<figcaption>How often each card is picked in a choice, per game (top 30)."
                         "</figcaption></figure>")
        parts.append("<h2>The numbers</h2>")
        parts.append(_table(variants))
    parts.append("</body></html>")
    return "\n".join(parts)
