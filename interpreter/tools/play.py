"""Playing at the terminal: text rendering of a player's view and the human agent.

Everything shown to a person comes from ``state.view(player)`` (which hides what that
player may not see), the decision's legal actions, and the game log since that
person's previous decision.

Keys at the prompt: a number picks that action, ``v`` shows the table again, ``?``
shows help, ``q`` (or end of input) quits. Quitting raises :class:`QuitGame`; the
``rulelang play`` command turns it into exit status 130, the status a shell gives a
program stopped with Ctrl-C, so scripts can tell an abandoned game (130) from a
finished one (0) and an error (1).
"""

from __future__ import annotations

import shutil
import sys
from typing import Any, TextIO

from rulelang.printable import printable

__all__ = [
    "HumanAgent",
    "QuitGame",
    "format_log_entry",
    "render_actions",
    "render_result",
    "render_view",
    "seat_name",
    "seat_names",
    "seat_scores",
]

QUIT_EXIT_CODE = 130


class QuitGame(Exception):
    """A person asked to stop the game (``q`` or end of input)."""


def seat_name(player: int | None) -> str:
    """How a seat is shown to people, as the engine names players in its log: seat 0
    (the first name in ``--agents``, zone key ``hand#0``) is "Player 1"."""
    return "-" if player is None else f"Player {player + 1}"


def seat_names(players: list[int] | None) -> str:
    """Several seats for people: "Player 1, Player 3", or "nobody"."""
    return ", ".join(seat_name(p) for p in players or []) or "nobody"


def seat_scores(scores: list | None) -> str:
    """Scores by seat for people: "Player 1 31, Player 2 13"."""
    return ", ".join(f"{seat_name(i)} {v}" for i, v in enumerate(scores or []))


def _width() -> int:
    return max(40, min(shutil.get_terminal_size((100, 24)).columns, 120))


def _wrap_items(items: list[str], indent: str, width: int) -> list[str]:
    """Lay out ``[Card]`` boxes in rows no wider than ``width``."""
    lines: list[str] = []
    line = indent
    for item in items:
        if line.strip() and len(line) + 1 + len(item) > width:
            lines.append(line.rstrip())
            line = indent
        line += item + " "
    if line.strip():
        lines.append(line.rstrip())
    return lines


def _fmt_value(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_fmt_value(v)}" for k, v in value.items()) or "{}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_fmt_value(v) for v in value) + "]"
    if value is None:
        return "none"
    return str(value)


def _zone_title(key: str, zone: dict, you: int | None) -> str:
    base = key.split("#", 1)[0]
    owner = zone.get("owner")
    if owner is None:
        return base
    if owner == you:
        return f"your {base}"
    return f"{seat_name(owner)} {base}"


def _render_zone(key: str, zone: dict, you: int | None, width: int) -> list[str]:
    title = _zone_title(key, zone, you)
    count = zone.get("count")
    cards = zone.get("cards")
    if count is None:  # hidden while players choose at the same time
        return [f"  {title}: (hidden for now)"]
    if cards is None:
        return [f"  {title}: {count} card{'' if count == 1 else 's'}, face down"]
    head = f"  {title} ({count}):"
    if not cards:
        return [head + " (empty)"]
    boxes = [f"[{c}]" for c in cards]
    rows = _wrap_items(boxes, "    ", width)
    if len(head) + 1 + len(rows[0].strip()) <= width and len(rows) == 1:
        return [head + " " + rows[0].strip()]
    return [head, *rows]


def _zone_order(zones: dict, you: int | None) -> list[str]:
    """Shared zones first (in the game's order), then yours, then the others' by seat."""
    shared = [k for k, z in zones.items() if z.get("owner") is None]
    mine = [k for k, z in zones.items() if z.get("owner") is not None and z.get("owner") == you]
    others = sorted(
        (k for k, z in zones.items() if z.get("owner") is not None and z.get("owner") != you),
        key=lambda k: (zones[k].get("owner"), list(zones).index(k)),
    )
    return shared + mine + others


def _render_tokens(tokens: dict) -> list[str]:
    lines = []
    for holder, held in tokens.items():
        parts = []
        for token, amount in held.items():
            if isinstance(amount, dict):
                total = sum(v for v in amount.values() if isinstance(v, int))
                if total == 0:
                    continue
                held_sides = [(side, n) for side, n in amount.items() if n]
                if len(held_sides) == 1:
                    parts.append(f"{token} {total} ({held_sides[0][0]})")
                else:
                    parts.append(f"{token} {total} ({', '.join(f'{side} {n}' for side, n in held_sides)})")
            elif amount:
                parts.append(f"{token} {amount}")
        if parts:
            lines.append(f"  {holder}: " + ", ".join(parts))
    return lines


def render_view(view: dict, title: str = "", width: int | None = None) -> str:
    """Turn ``state.view(player)`` into text for a person."""
    width = width or _width()
    you = view.get("you")
    lines: list[str] = []
    head = []
    if title:
        head.append(title)
    head.append(f"round {view.get('round', '?')}, turn {view.get('turn', '?')}")
    active = view.get("active_player")
    if active is not None:
        head.append("your turn" if active == you else f"{seat_name(active)}'s turn")
    if you is not None:
        head.append(f"you are {seat_name(you)}")
    banner = " | ".join(head)
    lines.append("=" * min(width, max(len(banner), 20)))
    lines.append(banner)
    lines.append("=" * min(width, max(len(banner), 20)))

    zones = view.get("zones") or {}
    shown = [k for k in _zone_order(zones, you) if k.split("#", 1)[0] != "box"]
    if shown:
        lines.append("Zones:")
        for key in shown:
            lines.extend(_render_zone(key, zones[key], you, width))

    token_lines = _render_tokens(view.get("tokens") or {})
    if token_lines:
        lines.append("Tokens:")
        lines.extend(token_lines)

    variables = view.get("vars") or {}
    if variables:
        lines.append("Values:")
        for name, value in variables.items():
            lines.append(f"  {name} = {_fmt_value(value)}")
    return "\n".join(lines)


def format_log_entry(entry: Any) -> str:
    """One ``LogEntry(kind, player, text)`` as a line (the engine's text already names
    the player who chose)."""
    return f"  {getattr(entry, 'text', entry)}"


def render_actions(actions: list, prompt: str = "") -> str:
    lines = [prompt or "Choose:"]
    digits = len(str(len(actions)))
    for i, action in enumerate(actions, 1):
        label = getattr(action, "label", None) or _fmt_value(getattr(action, "value", action))
        lines.append(f"  {i:>{digits}}. {label}")
    return "\n".join(lines)


def render_result(state: Any) -> str:
    """Final scores (with each player's breakdown) and the winners."""
    scores = state.scores()
    winners = set(state.winners())
    lines = ["Game over.", "Scores:"]
    for p, score in enumerate(scores):
        mark = "  <- winner" if p in winners else ""
        lines.append(f"  {seat_name(p)}: {score}{mark}")
        try:
            breakdown = state.score_breakdown(p)
        except Exception:  # the breakdown is a courtesy; the total above is what counts
            breakdown = {}
        if breakdown:
            lines.append("      " + ", ".join(f"{k} {v}" for k, v in breakdown.items()))
    names = ", ".join(seat_name(p) for p in sorted(winners)) or "nobody"
    lines.append(f"Winner{'s' if len(winners) > 1 else ''}: {names}")
    return "\n".join(lines)


_HELP = """Type the number of an action and press Enter.
  v  show the table again
  ?  this help
  q  quit the game (end of input quits too)"""

_MAX_RECAP = 40


class HumanAgent:
    """A person at the terminal. Reads a number from ``input``; re-asks on anything
    else. ``hotseat=True`` (several people at one terminal) asks to pass the terminal
    before showing a player's hidden cards."""

    name = "human"

    def __init__(self, input: TextIO | None = None, output: TextIO | None = None,
                 hotseat: bool = False, title: str = "") -> None:
        self.input = input if input is not None else sys.stdin
        self.output = output if output is not None else sys.stdout
        self.hotseat = hotseat
        self.title = title
        self._seen: dict[int, int] = {}

    def _print(self, text: str = "") -> None:
        print(printable(text), file=self.output, flush=True)

    def _read(self, prompt: str) -> str:
        self.output.write(printable(prompt))
        self.output.flush()
        line = self.input.readline()
        if line == "":
            self._print()
            raise QuitGame("end of input")
        return line.strip()

    def recap(self, state: Any, player: int) -> list[str]:
        """Log lines since this player's previous decision (everything, the first time)."""
        # Only the lines this player reads: a line addressed to another seat stays off this screen.
        log = list(state.log_for(player) if hasattr(state, "log_for") else getattr(state, "log", []) or [])
        start = self._seen.get(player, 0)
        if start > len(log):
            start = 0
        new = [format_log_entry(e) for e in log[start:]]
        self._seen[player] = len(log)
        if len(new) > _MAX_RECAP:
            new = [f"  ... ({len(new) - _MAX_RECAP} earlier lines)"] + new[-_MAX_RECAP:]
        return new

    def show(self, state: Any, player: int, actions: list) -> None:
        self._print(render_view(state.view(player), self.title))
        decision = getattr(state, "decision", None)
        prompt = getattr(decision, "prompt", "") if decision is not None else ""
        self._print(render_actions(actions, f"{seat_name(player)}: {prompt or 'choose an action'}"))

    def choose(self, state: Any, player: int) -> Any:
        actions = list(state.legal_actions(player))
        if not actions:
            raise RuntimeError(f"{seat_name(player)} has no legal action at this decision")
        if self.hotseat:
            self._read(f"\n--- {seat_name(player)}'s decision: pass the terminal, then press Enter ---")
        self._print()
        first = player not in self._seen
        recap = self.recap(state, player)
        if recap:
            self._print("So far:" if first else "Since your last decision:")
            for line in recap:
                self._print(line)
        self.show(state, player, actions)
        while True:
            answer = self._read(f"[1-{len(actions)}, ? for help] > ").lower()
            if answer in ("q", "quit", "exit"):
                raise QuitGame("quit")
            if answer in ("?", "h", "help"):
                self._print(_HELP)
                continue
            if answer == "v":
                self.show(state, player, actions)
                continue
            if answer.isdigit() and 1 <= int(answer) <= len(actions):
                return actions[int(answer) - 1]
            self._print(f"Please type a number from 1 to {len(actions)} (q to quit, ? for help).")
