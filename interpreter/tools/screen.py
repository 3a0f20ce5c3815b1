"""Drawing a player's screen at the terminal: the table view (``State.table_view``), or for a
game without a `table:` section a tidy generic view (``State.view``), then the choices.

Everything is drawn as lines of ``rich.text.Text`` no wider than the screen, so the number of
lines is known before anything is printed: a decision's screen (what happened since your last
decision, the table, the numbered choices) fits ``height`` lines, the recap giving way first.
``plain`` (pipes, ``NO_COLOR``) prints the same lines without colour.
"""

from __future__ import annotations

import os
import sys
from typing import Any, TextIO

from rich.console import Console
from rich.text import Text

from rulelang.printable import printable

from ..engine.compiler import seat_name

__all__ = ["Screen", "card_lines", "choice_lines", "generic_lines", "table_lines", "wants_plain"]

WIDTH = 100
HEIGHT = 40

_SECTION = "bold magenta"
_LABEL = "bold"
_CARD = "cyan"
_NOTE = "yellow"
_YOU = "bold green"
_DIM = "dim"


def seat(player: int | None) -> str:
    """A seat as people read it, as the engine's log names it ("Player 1"), or "-" for none."""
    return "-" if player is None else seat_name(player)


def wants_plain(stream: TextIO) -> bool:
    """No colour when the output is not a terminal, or NO_COLOR is set (https://no-color.org)."""
    return bool(os.environ.get("NO_COLOR")) or not getattr(stream, "isatty", lambda: False)()


def _fit(text: Text, width: int) -> Text:
    if text.cell_len > width:
        text = text.copy()
        text.truncate(width - 1)
        text.append("…")
    return text


def _wrap(head: Text, pieces: list[Text], width: int, indent: str = "    ") -> list[Text]:
    """``head`` then the pieces, separated by two spaces, wrapped to ``width`` with ``indent``."""
    lines = []
    line = head.copy()
    first = True
    for piece in pieces:
        sep = "" if first and not line.plain.strip() else "  " if not first else " "
        if line.plain.strip() and line.cell_len + len(sep) + piece.cell_len > width:
            lines.append(line)
            line = Text(indent)
            sep = ""
        line.append(sep)
        line.append_text(piece)
        first = False
    if line.plain.strip():
        lines.append(line)
    return [_fit(x, width) for x in lines]


# ---- the table view ------------------------------------------------------------------------


def _card_piece(card: dict) -> Text:
    t = Text("[", style=_DIM)
    t.append(card["name"], style=_CARD)
    if card.get("note"):
        t.append(" " + card["note"], style=_NOTE)
    t.append("]", style=_DIM)
    return t


def _face_down(item: dict) -> str:
    """A row the viewer cannot see: how many cards (unless that is secret too), and the ones
    they know and where ("2nd: Ruby")."""
    n = item.get("count")
    text = "secret" if n is None else f"{n} card{'' if n == 1 else 's'}, face down"
    known = item.get("known") or []
    if known:
        text += "; you know " + ", ".join(f"#{k['at'] + 1} {k['name']}" for k in known)
    return text


def _row(item: dict, width: int, indent: str, faces: bool = True) -> list[Text]:
    head = Text(indent)
    head.append(f"{item['label']}", style=_LABEL)
    cards = item.get("cards")
    if cards is None:
        head.append(": " + _face_down(item), style=_DIM)
        return [head]
    head.append(f" ({len(cards)}):" if cards else ": none")
    if not cards:
        return [head]
    if not faces or all(c["face"] == c["name"] for c in cards):
        return _wrap(head, [_card_piece(c) for c in cards], width, indent + "  ")
    # Cards with more on their face than a name: one line each, numbered as people count.
    lines = [head]
    for i, c in enumerate(cards, 1):
        line = Text(f"{indent}  {i}. ")
        line.append(c["face"], style=_CARD)
        if c.get("note"):
            line.append("  " + c["note"], style=_NOTE)
        if line.cell_len <= width:
            lines.append(line)
            continue
        # Too long for one line: go on below, under the card's name, at a word break.
        pad = " " * (len(indent) + 4 + len(str(i)))
        cut = line.plain.rfind(" ", 0, width)
        cut = cut if cut > len(pad) + 8 else width - 1
        rest = line[cut + 1:] if line.plain[cut] == " " else line[cut:]
        lines.append(_fit(line[:cut], width))
        lines.append(_fit(Text(pad) + rest, width))
    return lines


def _places(item: dict, width: int, indent: str) -> list[Text]:
    head = Text(indent)
    head.append(item["label"], style=_LABEL)
    head.append(":")
    pieces = []
    for place in item["places"]:
        t = Text(place["name"])
        if place.get("note"):
            t.append(" " + place["note"], style=_NOTE)
        pieces.append(t)
    # In columns, so a board of many places reads as a grid.
    col = min(max((p.cell_len for p in pieces), default=0) + 2, width - len(indent) - 2)
    per_line = max(1, (width - len(indent) - 2) // max(col, 1))
    lines = [head]
    for i in range(0, len(pieces), per_line):
        line = Text(indent + "  ")
        for p in pieces[i:i + per_line]:
            p = _fit(p, col - 2)
            line.append_text(p)
            line.append(" " * (col - p.cell_len))
        line.rstrip()
        lines.append(_fit(line, width))
    return lines


def _counter_piece(item: dict) -> Text:
    t = Text(f"{item['label']}: ", style=_LABEL)
    t.append(str(item["value"]))
    return t


def _track(item: dict, width: int, indent: str) -> Text:
    size, value = max(0, int(item["size"] or 0)), max(0, int(item["value"] or 0))
    t = Text(indent)
    t.append(f"{item['label']}: ", style=_LABEL)
    boxes = min(size, 40)
    t.append("■" * min(value, boxes), style=_NOTE)
    t.append("□" * max(0, boxes - value), style=_DIM)
    t.append(f" {value}/{size}")
    return _fit(t, width)


def _markers(item: dict, width: int, indent: str) -> Text:
    low, high = int(item["low"]), int(item["high"])
    at: dict[int, list[str]] = {}
    for mk in item["markers"]:
        name = mk["name"]
        short = name.replace("Player ", "P") if name.startswith("Player ") else name[:3]
        at.setdefault(mk["at"], []).append(short)
    t = Text(indent)
    t.append(f"{item['label']}: ", style=_LABEL)
    for pos in range(low, min(high, low + 30) + 1):
        here = at.get(pos)
        if here:
            t.append(f"{pos}:", style=_DIM)
            t.append(",".join(here), style=_NOTE)
            t.append(" ")
        else:
            t.append(f"{pos} ", style=_DIM)
    t.rstrip()
    return _fit(t, width)


def _grid(item: dict, width: int, indent: str) -> list[Text]:
    lines = []
    if item.get("label"):
        head = Text(indent)
        head.append(item["label"], style=_LABEL)
        lines.append(head)
    label_w = max((len(line["label"]) for line in item["lines"]), default=0)
    cell_w = max((len(c) for line in item["lines"] for c in line["cells"]), default=1)
    for line in item["lines"]:
        t = Text(indent + "  ")
        t.append(line["label"].ljust(label_w) + " ", style=_LABEL)
        for cell in line["cells"]:
            t.append(cell.ljust(cell_w))
        t.rstrip()
        lines.append(_fit(t, width))
    return lines


def _score(item: dict, width: int, indent: str) -> list[Text]:
    t = Text(indent)
    t.append("Score: ", style=_LABEL)
    total = f"{item['total']}" + (" + ?" if item.get("hidden") else "")
    t.append(total, style=_YOU)
    parts = [f"{line['label']} {'?' if line['value'] is None else line['value']}" for line in item["lines"]
             if line["value"] != 0]
    if parts:
        t.append(" (" + ", ".join(parts) + ")", style=_DIM)
    return _wrap(Text(""), [t], width)


def _items(items: list[dict], width: int, indent: str, compact: int = 0, mine: bool = True) -> list[Text]:
    """``compact``: 0 draws every card's face line; 1 only outside the other players' boards;
    2 none (names only, side by side). ``mine``: not inside another player's board."""
    lines: list[Text] = []
    counters: list[Text] = []

    def flush() -> None:
        if counters:
            lines.extend(_wrap(Text(indent), counters, width, indent + "  "))
            counters.clear()

    for item in items:
        kind = item["type"]
        if kind == "counter":
            piece = _counter_piece(item)
            if piece.cell_len > width // 2:  # a long one reads best on a line of its own
                flush()
            counters.append(piece)
            if piece.cell_len > width // 2:
                flush()
            continue
        if kind == "row" and not item.get("cards"):  # face down or empty: as short as a counter
            n = item.get("count", 0)
            value = "none" if item.get("cards") is not None or n == 0 else _face_down(item)
            counters.append(_counter_piece({"label": item["label"], "value": value}))
            continue
        flush()
        if kind == "section":
            head = Text(indent + "── ", style=_SECTION)
            head.append(item["label"], style=_SECTION)
            head.append(" ──", style=_SECTION)
            lines.append(head)
            lines.extend(_items(item["items"], width, indent + "  ", compact, mine))
        elif kind == "board":
            head = Text(indent + "── ", style=_YOU if item["you"] else _SECTION)
            head.append(item["label"] + (" (you)" if item["you"] else ""), style=_YOU if item["you"] else _SECTION)
            head.append(" ──", style=_YOU if item["you"] else _SECTION)
            lines.append(head)
            lines.extend(_items(item["items"], width, indent + "  ", compact, item["you"]))
        elif kind == "row":
            lines.extend(_row(item, width, indent, faces=compact == 0 or (compact == 1 and mine)))
        elif kind == "places":
            lines.extend(_places(item, width, indent))
        elif kind == "track":
            lines.append(_track(item, width, indent))
        elif kind == "markers":
            lines.append(_markers(item, width, indent))
        elif kind == "grid":
            lines.extend(_grid(item, width, indent))
        elif kind == "score":
            lines.extend(_score(item, width, indent))
        elif kind == "error":
            lines.append(_fit(Text(f"{indent}{item.get('label') or 'table'}: {item['message']}", style="red"), width))
    flush()
    return lines


def table_lines(view: dict, width: int = WIDTH, compact: int = 0) -> list[Text]:
    """The table view as lines; ``compact`` 1 or 2 draws fewer face lines (see ``_items``)."""
    return _items(view["items"], width, "", compact)


# ---- the generic view, for games without a `table:` section ---------------------------------


def generic_lines(view: dict, game: Any, width: int = WIDTH) -> list[Text]:
    """Today's state view, tidied: no empty zones, tokens per holder with 0 shown for players,
    values by their display names, players by seat name."""
    compiled = game.compiled
    you = view.get("you")
    lines: list[Text] = []
    zones = view.get("zones") or {}
    for key, zone in zones.items():
        base = key.split("#", 1)[0]
        if base == "box" or not zone.get("count"):
            continue
        owner = zone.get("owner")
        title = compiled.display_name(base)
        if owner is not None:
            title = f"{'your' if owner == you else seat(owner)} {title}"
        cards = zone.get("cards")
        if cards is None:
            n = zone.get("count") or 0
            head = Text(title, style=_LABEL)
            head.append(f": {n} card{'' if n == 1 else 's'}, face down", style=_DIM)
            lines.append(head)
            continue
        pieces = [_card_piece({"name": c, "face": c}) for c in cards]
        lines.extend(_wrap(Text(title + ":", style=_LABEL), pieces, width, "  "))
    tokens = view.get("tokens") or {}
    for token in compiled.token_sides:
        parts = []
        vis = compiled.token_visibility.get(token, "public")
        for p in range(view.get("players") or 0):
            if vis == "hidden" or (vis == "owner" and p != you):
                parts.append(f"{seat(p)} ?")  # a secret amount, not a zero
                continue
            held = (tokens.get(seat(p)) or {}).get(token, 0)
            parts.append(f"{seat(p)} {sum(held.values()) if isinstance(held, dict) else held}")
        lines.extend(_wrap(Text(compiled.display_name(token) + ":", style=_LABEL),
                           [Text(x) for x in parts], width, "  "))
    values = view.get("vars") or {}
    for name, value in values.items():
        t = compiled.var_types.get(name, "any")
        if isinstance(value, dict) and all(str(k).startswith("Player ") for k in value):
            shown = ", ".join(f"{k} {compiled.show(v, t)}" for k, v in value.items())
        else:
            shown = compiled.show(value, t)
        line = Text(compiled.display_name(name) + ": ", style=_LABEL)
        line.append(shown)
        lines.append(_fit(line, width))
    return lines


# ---- choices and cards ----------------------------------------------------------------------


def choice_lines(labels: list[str], prompt: str, width: int = WIDTH, rows: int = 20) -> list[Text]:
    """The prompt and numbered choices; many short choices go in columns to stay within ``rows``."""
    head = Text(prompt, style=_LABEL)
    digits = len(str(len(labels)))
    items = [f"{i:>{digits}}. {label}" for i, label in enumerate(labels, 1)]
    if len(items) + 1 <= rows:
        return [head] + [_fit(Text("  " + x), width) for x in items]
    cols = max(1, min((len(items) + rows - 2) // max(rows - 1, 1), 4))
    while cols < 6 and (len(items) + cols - 1) // cols + 1 > rows:
        cols += 1
    col_w = (width - 2) // cols
    per_col = (len(items) + cols - 1) // cols
    lines = [head]
    for r in range(per_col):
        line = Text("  ")
        for c in range(cols):
            i = c * per_col + r
            if i < len(items):
                cell = _fit(Text(items[i]), col_w - 1)
                line.append_text(cell)
                line.append(" " * (col_w - cell.cell_len))
        line.rstrip()
        lines.append(line)
    return lines


def _words(text: str, width: int, first: str = "", rest: str = "  ") -> list[str]:
    """Plain text wrapped at spaces: the first line starts with ``first``, the others ``rest``."""
    lines, line = [], first
    for word in text.split():
        if line.strip() and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = rest
        line += ("" if not line.strip() else " ") + word
    if line.strip():
        lines.append(line)
    return [x[:width] for x in lines]


def card_lines(face: str, text: str, width: int = WIDTH) -> list[Text]:
    """A card on request: its face line, then its rules text, both wrapped."""
    return ([Text(x, style=_CARD) for x in _words(face, width)]
            + [Text(x) for x in _words(text or "(no rules text)", width, "  ")])


class Screen:
    """Where lines go: a rich console on a stream, in colour or plain."""

    def __init__(self, stream: TextIO | None = None, plain: bool | None = None, width: int = WIDTH):
        self.stream = stream if stream is not None else sys.stdout
        self.plain = wants_plain(self.stream) if plain is None else plain
        self.width = width
        self.console = Console(file=self.stream, width=width, no_color=self.plain, highlight=False,
                               markup=False, emoji=False, color_system=None if self.plain else "auto",
                               force_terminal=not self.plain, soft_wrap=True)

    def print_lines(self, lines: list[Text]) -> None:
        # Names, labels and log lines come from rule files: their control characters are printed
        # as visible escapes (rulelang/printable.py), never sent to the terminal.
        for line in lines:
            if self.plain:
                self.stream.write(printable(line.plain) + "\n")
            else:
                self.console.print(self._printable(line))
        self.stream.flush()

    def _printable(self, line: Text) -> Text:
        if printable(line.plain) == line.plain:
            return line
        safe = Text()
        for segment in line.render(self.console, end=""):
            safe.append(printable(segment.text), style=segment.style)
        return safe
