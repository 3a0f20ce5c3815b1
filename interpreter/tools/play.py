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

from rich.text import Text

from rulelang.printable import printable

from . import screen

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
    return screen.seat(player)


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
            lines.append("      " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in breakdown.items()))
    names = ", ".join(seat_name(p) for p in sorted(winners)) or "nobody"
    lines.append(f"Winner{'s' if len(winners) > 1 else ''}: {names}")
    return "\n".join(lines)


_HELP = """Type the number of a choice and press Enter.
  i N     the card text of choice N's card
  c NAME  any card you can see, by its name or part of it
  v       show the table again
  ?       this help
  q       quit the game (end of input quits too)"""

_MAX_RECAP = 40


def _cards_seen(view: dict | None) -> list[dict]:
    """Every card the table view shows face up: [{"name", "face", "text"}]."""
    out: list[dict] = []

    def walk(items: list) -> None:
        for item in items:
            if item.get("type") == "row" and item.get("cards"):
                out.extend(item["cards"])
            walk(item.get("items") or [])
    walk((view or {}).get("items") or [])
    return out


class HumanAgent:
    """A person at the terminal. Draws the table (``screen``), reads a number from ``input``;
    re-asks on anything else. ``hotseat=True`` (several people at one terminal) asks to pass
    the terminal before showing a player's hidden cards. A decision with one legal action is
    taken at once (and said so) unless ``confirm_forced``."""

    name = "human"

    def __init__(self, input: TextIO | None = None, output: TextIO | None = None,
                 hotseat: bool = False, title: str = "", plain: bool | None = None,
                 confirm_forced: bool = False, width: int = screen.WIDTH, height: int = screen.HEIGHT) -> None:
        self.input = input if input is not None else sys.stdin
        self.output = output if output is not None else sys.stdout
        self.hotseat = hotseat
        self.title = title
        self.confirm_forced = confirm_forced
        self.width = width
        self.height = height
        self.screen = screen.Screen(self.output, plain=plain, width=width)
        self.forced: list[str] = []  # what was taken without asking, as told on screen
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

    def screen_lines(self, state: Any, player: int, actions: list, recap: list[str] | None = None) -> list:
        """The whole screen of a decision, as lines no wider than ``width`` and no more than
        ``height`` (the recap gives way first, then the choices go into columns)."""
        width, height = self.width, self.height
        view = state.table_view(player) if hasattr(state, "table_view") else None
        prompt = state.prompt_for(player) if hasattr(state, "prompt_for") else None
        labels = [getattr(a, "label", None) or str(getattr(a, "value", a)) for a in actions]
        if view is not None:  # every card's face if it fits, else fewer (the others' boards first)
            for compact in (0, 1, 2):
                table = screen.table_lines(view, width, compact)
                if len(table) + min(len(labels) + 1, 12) + 3 <= height:
                    break
        else:
            table = screen.generic_lines(state.view(player), state.game, width)
        room_for_choices = max(6, height - 2 - len(table) - 3)
        choices = screen.choice_lines(labels, f"{seat_name(player)}: {prompt or 'choose an action'}", width,
                                      rows=min(room_for_choices, len(labels) + 1))
        head = Text(f"{self.title or state.game.name} · round {state.s.round} · {seat_name(player)} to choose",
                    style="bold reverse")
        used = 1 + len(table) + len(choices) + 1  # the head, the table, the choices, the input line
        lines = [head]
        recap = recap or []
        room = height - used - 1
        if recap and room > 0:
            shown = recap[-room:]
            note = "Since your last decision:" if len(shown) == len(recap) else \
                f"Since your last decision ({len(recap) - len(shown)} earlier lines left out):"
            lines.append(Text(note, style="dim"))
            lines.extend(Text(x[: width]) for x in shown)
        lines.extend(table)
        lines.extend(choices)
        return lines

    def show(self, state: Any, player: int, actions: list, recap: list[str] | None = None) -> None:
        self.screen.print_lines(self.screen_lines(state, player, actions, recap))

    def card_info(self, state: Any, player: int, actions: list, arg: str) -> list:
        """`i N`: the card of choice N; `c NAME`: a card on the table (as this player sees it)."""
        g = state.game.compiled
        if arg.isdigit():
            n = int(arg)
            if not 1 <= n <= len(actions):
                return [Text(f"There is no choice {n}.")]
            action = actions[n - 1]
            label = getattr(action, "label", "")
            card = state.action_card(action)
            if card is not None:
                return screen.card_lines(g.card_faces[card], str(g.card_attrs[card].get("text") or ""), self.width)
            # Not a card by name: an attribute printed on cards (an effect, an ability) explains it.
            best: tuple[int, int] | None = None
            for card, face in enumerate(g.card_faces):
                if not g.card_attrs[card].get("text"):
                    continue
                for part in face.split(" - ")[1:]:
                    if len(part) >= 4 and part in label and (best is None or len(part) > best[0]):
                        best = (len(part), card)
            if best is not None:
                card = best[1]
                part = max((x for x in g.card_faces[card].split(" - ")[1:] if x in label), key=len)
                return screen.card_lines(part, str(g.card_attrs[card].get("text") or ""), self.width)
            return [Text(f"Choice {n} is not a card: {label}")]
        want = arg.lower()
        seen = _cards_seen(state.table_view(player)) if hasattr(state, "table_view") else []
        if not seen:  # a game without a table: the cards of the zones this player sees
            view = state.view(player)
            names = {c.split(" (+", 1)[0] for z in (view.get("zones") or {}).values() for c in (z.get("cards") or [])}
            seen = [{"name": nm, "face": g.card_faces[g.card_names.index(nm)],
                     "text": str(g.card_attrs[g.card_names.index(nm)].get("text") or "")}
                    for nm in sorted(names) if nm in g.card_names]
        hits = [c for c in seen if c["name"].lower() == want] or [c for c in seen if want in c["name"].lower()]
        if not hits:
            return [Text(f"No card called {arg!r} is in sight.")]
        lines, done = [], set()
        for c in hits:
            if (c["face"], c["text"]) not in done:
                done.add((c["face"], c["text"]))
                lines.extend(screen.card_lines(c["face"], c["text"], self.width))
        return lines[: self.height - 2]

    def choose(self, state: Any, player: int) -> Any:
        actions = list(state.legal_actions(player))
        if not actions:
            raise RuntimeError(f"{seat_name(player)} has no legal action at this decision")
        if len(actions) == 1 and not self.confirm_forced:
            note = f"{seat_name(player)}: {actions[0].label} (the only choice: taken for you)"
            self.forced.append(note)
            self._print(note)
            return actions[0]
        if self.hotseat:
            self._read(f"\n--- {seat_name(player)}'s decision: pass the terminal, then press Enter ---")
        self._print()
        recap = self.recap(state, player)
        self.show(state, player, actions, recap)
        while True:
            answer = self._read(f"[1-{len(actions)}, i N card text, ? help] > ").strip()
            low = answer.lower()
            if low in ("q", "quit", "exit"):
                raise QuitGame("quit")
            if low in ("?", "h", "help"):
                self._print(_HELP)
                continue
            if low == "v":
                self.show(state, player, actions)
                continue
            if low[:2] in ("i ", "c ") and answer[2:].strip():
                self.screen.print_lines(self.card_info(state, player, actions, answer[2:].strip()))
                continue
            if answer.isdigit() and 1 <= int(answer) <= len(actions):
                return actions[int(answer) - 1]
            self._print(f"Please type a number from 1 to {len(actions)} (q to quit, ? for help).")
