"""The game behind ``rulelang serve``, without any web framework: seats and their tokens, the
message each seat is sent, actions from the browser (refused with a message, the game
unchanged, when they come from the wrong seat, are stale or name no action), computer players,
saving to a game log and resuming from one, and step-through replays of a log.

Everything a seat is sent is built from what the engine gives that seat: ``state.view(seat)``,
``state.table_view(seat)``, the seat's own log and its own legal actions. Nothing else of the
state goes into a seat's message (the engine's decision serials neither: a seat gets its own
count of decisions, so it learns nothing about how often the others chose).
"""

from __future__ import annotations

import json
import re
import secrets
from typing import Any

import attrs

from ..agents import agent_seed, make_agent
from ..engine.api import Game, IllegalAction, State
from ..tools.play import seat_name
from ..tools.simulate import (
    LogError,
    _norm,
    _resolve_game_path,
    _resolve_house,
    _same,
    load_log,
    log_from_state,
    save_log,
)

__all__ = ["MAX_LOG_LINES", "Replay", "Table", "encode", "restore_from_log"]

MAX_LOG_LINES = 200  # the newest log lines a seat is sent (its page keeps no more)


def encode(message: dict) -> str:
    """A message as the socket sends it: compact JSON, keys in the order they were built, so
    equal messages are equal text (the secrecy tests compare them byte for byte)."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


def new_token() -> str:
    """An unguessable token for a URL (128 random bits)."""
    return secrets.token_urlsafe(16)


def seat_log(state: State, seat: int | None) -> list[str]:
    """The log lines a seat reads (every line for ``None``, the omniscient replay)."""
    if seat is None:
        return [e.text for e in state.log]
    log_for = getattr(state, "log_for", None)
    if log_for is not None:
        return [e.text for e in log_for(seat)]
    return list(state.view(seat).get("log") or [])


def result_of(state: State) -> dict | None:
    """Scores (with each seat's breakdown) and winners, once the game is over."""
    if not state.is_over:
        return None
    scores = state.scores()
    lines = []
    for p in range(state.num_players):
        try:
            breakdown = state.score_breakdown(p)
        except Exception:  # the breakdown is a courtesy; the total is what counts
            breakdown = {}
        lines.append({"seat": p, "name": seat_name(p), "score": scores[p],
                      "lines": [{"label": k.replace("_", " "), "value": v} for k, v in breakdown.items()]})
    return {"scores": lines, "winners": [seat_name(p) for p in state.winners()]}


def board_of(state: State, seat: int) -> dict:
    """What a seat sees of the table: the game's layout if it has one, else the generic view."""
    table = state.table_view(seat) if hasattr(state, "table_view") else None
    if table is not None:
        return {"table": table, "view": None}
    view = state.view(seat)
    return {"table": None, "view": {k: view[k] for k in ("zones", "tokens", "vars", "round", "turn",
                                                         "active_player", "modifiers") if k in view}}


def card_texts(game: Game) -> tuple[re.Pattern | None, dict[str, str]]:
    """A pattern finding card names in action labels (longest first, whole words), and each
    named card's text (its rules text, else its face line when that says more than its name)."""
    names = game.compiled.card_names
    info: dict[str, str] = {}
    for card, name in enumerate(names):
        text = game.card_text(card) or (game.card_face(card) if game.card_face(card) != name else "")
        if text and name not in info:
            info[name] = text
    if not info:
        return None, info
    alternatives = "|".join(re.escape(n) for n in sorted(info, key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)"), info


def label_card_text(texts: tuple[re.Pattern | None, dict[str, str]], label: str) -> str | None:
    """The text of the card an action's label names, if it names one."""
    pattern, info = texts
    found = pattern.search(label) if pattern is not None else None
    return info[found.group(0)] if found else None


@attrs.define
class Ticket:
    """A seat's count of the decisions it has been offered, and the engine decision it stands for."""

    number: int = 0
    serial: int | None = None


@attrs.define
class Table:
    """One game being played by the seats in the browser (and computer players)."""

    game: Game
    state: State
    agents: list[str]  # one name per seat: human, random, greedy, ...
    game_path: str
    seed: int
    save_path: str | None = None  # where Save (and every action, when autosave) writes the game log
    autosave: bool = False
    tokens: dict[str, int] = attrs.Factory(dict)  # seat token -> seat
    hotseat_token: str | None = None
    bots: dict[int, Any] = attrs.Factory(dict)  # seat -> agent
    seen: dict[int, int] = attrs.Factory(dict)  # seat -> its log length when it last decided
    tickets: dict[int, Ticket] = attrs.Factory(dict)
    version: int = 0  # bumped by every change, so the server knows to send again
    texts: Any = None  # card names in labels -> card text (see card_texts), built once

    @classmethod
    def start(cls, game: Game, state: State, agents: list[str], game_path: str, seed: int,
              save_path: str | None = None, autosave: bool = False) -> Table:
        if len(agents) != state.num_players:
            raise ValueError(f"{len(agents)} agents given for {state.num_players} players")
        table = cls(game, state, list(agents), game_path, seed, save_path, autosave)
        table.texts = card_texts(game)
        for seat, name in enumerate(agents):
            # Every seat has a page; a computer seat's page only watches (its URL is printed when
            # nobody plays, to watch the computer players from one side).
            table.tokens[new_token()] = seat
            if name != "human":
                table.bots[seat] = make_agent(name, agent_seed(seed, seat))
        if len(table.human_seats) > 1:
            table.hotseat_token = new_token()
        return table

    # ---- seats
    @property
    def human_seats(self) -> list[int]:
        return [s for s in sorted(self.tokens.values()) if s not in self.bots]

    def token_of(self, seat: int) -> str:
        return next(t for t, s in self.tokens.items() if s == seat)

    def seat_of(self, token: str) -> int | None:
        return self.tokens.get(token) if isinstance(token, str) else None

    def hotseat_seats(self, token: str) -> list[dict] | None:
        """The human seats one browser plays in turn (with their tokens), for the hot-seat token."""
        if self.hotseat_token is None or not isinstance(token, str) or not secrets.compare_digest(
                token, self.hotseat_token):
            return None
        return [{"seat": s, "name": seat_name(s), "token": self.token_of(s)} for s in self.human_seats]

    def ticket(self, seat: int) -> int:
        """The seat's decision number: it moves on each time the seat is offered a new decision."""
        actions = self.state.legal_actions(seat)
        serial = actions[0].decision if actions else None
        t = self.tickets.setdefault(seat, Ticket())
        if serial is not None and serial != t.serial:
            t.number += 1
            t.serial = serial
        elif serial is None:
            t.serial = None
        return t.number

    def waiting(self) -> list[int]:
        d = self.state.decision
        return list(d.players) if d is not None else []

    # ---- what a seat is sent
    def message(self, seat: int) -> dict:
        """Everything the seat's page shows, from what the engine lets this seat see."""
        state = self.state
        waiting = self.waiting()
        actions = state.legal_actions(seat) if seat not in self.bots else []
        ticket = self.ticket(seat)
        d = state.decision
        decision = None
        if d is not None:
            decision = {"waiting": [{"seat": p, "name": seat_name(p), "agent": self.agents[p]} for p in waiting],
                        "simultaneous": d.simultaneous, "yours": bool(actions), "ticket": ticket,
                        # only the seat's own prompt: another's would tell what it chose so far
                        "prompt": (state.view(seat).get("decision") or {}).get("prompt") if actions else None,
                        "actions": [{"index": i, "label": a.label, "text": label_card_text(self.texts, a.label)}
                                    for i, a in enumerate(actions)]}
        log = seat_log(state, seat)
        since = min(self.seen.get(seat, 0), len(log))
        start = max(0, len(log) - MAX_LOG_LINES)
        return {
            "type": "state", "mode": "play", "game": self.game.name, "seat": seat, "name": seat_name(seat),
            "seats": [{"seat": p, "name": seat_name(p), "agent": a} for p, a in enumerate(self.agents)],
            **board_of(state, seat),
            "decision": decision, "log": log[start:], "since": max(0, since - start),
            "over": state.is_over, "result": result_of(state),
            "can_save": self.save_path is not None,
        }

    # ---- acting
    def act(self, seat: int, ticket: Any, index: Any) -> str | None:
        """Carry out the seat's choice; a refusal comes back as a message and changes nothing."""
        state = self.state
        if state.is_over:
            return "the game is over"
        if seat in self.bots:
            return f"{seat_name(seat)} is played by the {self.agents[seat]} agent"
        actions = state.legal_actions(seat)
        if not actions:
            names = ", ".join(seat_name(p) for p in self.waiting()) or "nobody"
            return f"it is not {seat_name(seat)}'s decision now; waiting for {names}"
        if not _is_int(ticket) or ticket != self.ticket(seat):
            return "that choice answers a decision that is already over; the table has been sent again"
        if not _is_int(index) or not 0 <= index < len(actions):
            return f"there is no action {index!r} at this decision (there are {len(actions)})"
        return self._apply(seat, actions[index])

    def _apply(self, seat: int, action: Any) -> str | None:
        before = len(seat_log(self.state, seat))
        try:
            self.state.apply(action)
        except IllegalAction as err:
            return str(err)
        except Exception as err:  # a rule that fails while carrying out the choice; the engine kept the state
            return f"the rules could not carry out this choice: {err}"
        self.seen[seat] = before
        # The seat's next decision is a new one even when the engine numbers it as the last (two
        # simultaneous steps in a row can repeat a serial), so its ticket moves on here too.
        t = self.tickets.setdefault(seat, Ticket())
        t.number += 1
        actions = self.state.legal_actions(seat)
        t.serial = actions[0].decision if actions else None
        self.version += 1
        if self.autosave and self.save_path:
            self.save()
        return None

    def bot_to_move(self) -> int | None:
        """A computer seat the game waits for, if any."""
        if self.state.is_over:
            return None
        return next((p for p in self.waiting() if p in self.bots and self.state.legal_actions(p)), None)

    def bot_choice(self, seat: int) -> Any:
        """The computer player's action (on the current state; the caller applies it)."""
        return self.bots[seat].choose(self.state, seat)

    def play_bot(self, seat: int, action: Any) -> str | None:
        if action not in self.state.legal_actions(seat):
            return "the game moved on while the computer player was thinking"
        return self._apply(seat, action)

    # ---- saving
    def log(self) -> dict:
        return log_from_state(self.game, self.state, self.game_path, self.agents)

    def save(self, path: str | None = None) -> str:
        path = path or self.save_path
        if not path:
            raise ValueError("no file to save to")
        save_log(path, self.log())
        return path


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


# ---- game logs ----------------------------------------------------------------------------------


def restore_from_log(log_path: str, game_path: str | None = None,
                     house: list[str] | None = None) -> tuple[Game, list[State], dict, str]:
    """Load the game of a log (``game_path``, or a relative path in the log inside the log's own
    folder: a log never chooses which files are read) and play its actions: the game, the states
    from the start to the last action (one more than there are actions), the log, the game's path.

    Raises ``LogError`` for a log that cannot be read or whose actions are not legal."""
    import interpreter

    log = load_log(log_path)
    path = _resolve_game_path(log, log_path, game_path)
    house = _resolve_house(log, log_path, house or None)
    game = interpreter.load(path, options=dict(log["options"]), house=house)
    state = game.new_game(players=log["players"], seed=log["seed"])
    states = [state.clone()]
    for i, (player, value) in enumerate(log["actions"]):
        match = next((a for a in state.legal_actions(player) if _same(_norm(a.value), value)), None)
        if match is None:
            raise LogError(f"{log_path}: action {i + 1} of {len(log['actions'])}, [{player}, "
                           f"{json.dumps(value)[:80]}], is not legal at that point")
        state.apply(match)
        states.append(state.clone())
    return game, states, log, path


@attrs.define
class Replay:
    """A finished or saved game, step by step: after ``k`` actions, from a seat or everyone's side."""

    game: Game
    states: list[State]
    moves: list[dict]  # per action: who acted and what they chose (the label at the time)
    log_path: str
    token: str = attrs.Factory(new_token)

    @classmethod
    def from_log(cls, log_path: str, game_path: str | None = None, house: list[str] | None = None) -> Replay:
        game, states, log, _ = restore_from_log(log_path, game_path, house)
        moves = []
        for before, (player, value) in zip(states, log["actions"], strict=False):
            label = next((a.label for a in before.legal_actions(player) if _same(_norm(a.value), value)), "?")
            moves.append({"seat": player, "name": seat_name(player), "label": label})
        # (a seat's side of the replay shows only its own choices by label: see `message`)
        return cls(game, states, moves, log_path)

    @property
    def steps(self) -> int:
        return len(self.states) - 1

    def message(self, step: Any, seat: Any) -> dict | None:
        """The table after ``step`` actions as ``seat`` saw it (``None``: every seat's table and
        the whole log). None for a step or seat out of range."""
        players = self.states[0].num_players
        if not _is_int(step) or not 0 <= step <= self.steps:
            return None
        if seat is not None and not (_is_int(seat) and 0 <= seat < players):
            return None
        state = self.states[step]
        seats = [seat] if seat is not None else list(range(players))
        log = seat_log(state, seat)
        before = len(seat_log(self.states[step - 1], seat)) if step else 0
        start = max(0, len(log) - MAX_LOG_LINES)
        return {
            "type": "replay", "mode": "replay", "game": self.game.name, "step": step, "steps": self.steps,
            "seat": seat, "players": [{"seat": p, "name": seat_name(p)} for p in range(players)],
            "boards": [{"seat": p, "name": seat_name(p), **board_of(state, p)} for p in seats],
            "moves": [m if seat is None or m["seat"] == seat else {**m, "label": None} for m in self.moves],
            "log": log[start:], "since": max(0, min(before, len(log)) - start),
            "over": state.is_over, "result": result_of(state),
        }
