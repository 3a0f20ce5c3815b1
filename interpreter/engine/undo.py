"""Undoing a failed action: a journal of what it changed, instead of a copy of the whole state.

``State.apply`` used to copy the whole state before every action so that an action failing
halfway could be undone; that copy was up to a fifth of the time of a random playout. Now
``Undo(state)`` notes the small control part of the state (counters, the frames' positions and
locals, the log's length) and gives the machine a ``Journal`` that keeps the old contents of
each zone, card location, token count and var the first time the action changes it. When the
action fails, ``Undo.restore`` puts all of it back in place; when it succeeds, both are dropped.

The machine's changes to zones, cells, tokens and vars all go through ``Machine.move_card``,
``Machine.shuffle``, ``Machine.transfer``, the `flip` effect and the compiler's putters of vars:
those are the places that write to the journal. A part of the state this module does not know
(a field added to ``GameState`` later) is deep-copied by ``Undo``, so it is undone too.
"""

from __future__ import annotations

import copy
from typing import Any

import attrs

from .state import Branch, Frame, GameState

_MISSING = object()


class Journal:
    """The old contents of what one action changed, each noted the first time it changes."""

    __slots__ = ("zones", "where", "tokens", "vars", "cells", "known")

    def __init__(self) -> None:
        self.zones: dict[str, list[int]] = {}
        self.where: dict[int, str] = {}
        self.tokens: dict[str, int] | None = None
        self.vars: dict[str, Any] = {}
        self.cells: dict[str, Any] = {}
        self.known: dict[str, Any] = {}

    def zone(self, key: str, cards: list[int]) -> None:
        if key not in self.zones:
            self.zones[key] = cards[:]

    def card(self, card: int, where: str) -> None:
        if card not in self.where:
            self.where[card] = where

    def all_tokens(self, tokens: dict[str, int]) -> None:
        if self.tokens is None:
            self.tokens = dict(tokens)

    def cell(self, key: str, cells: dict[str, list]) -> None:
        if key not in self.cells:
            self.cells[key] = cells.get(key, _MISSING)

    def knowledge(self, key: str, known: dict[str, int]) -> None:
        """Who knows card `key` (GameState.known), before it changes."""
        if key not in self.known:
            self.known[key] = known.get(key, _MISSING)

    def var(self, key: str, values: dict[str, Any]) -> None:
        if key not in self.vars:
            self.vars[key] = values.get(key, _MISSING)


# The fields Undo handles itself; any other field of GameState is deep-copied.
_HANDLED = {"num_players", "seed", "rng", "zones", "where", "tokens", "vars", "stack", "pending", "active",
            "round", "turn", "once", "lasting", "over", "decisions", "log", "actions", "branches", "cells",
            "known", "chance", "unordered", "chance_at", "tape"}
_OTHER_FIELDS = tuple(f.name for f in attrs.fields(GameState) if f.name not in _HANDLED)


class Undo(Journal):
    """What it takes to put a state back as it was before one action: the control part noted
    when the action begins, and the journal the machine writes (the undo is its own journal:
    one object fewer per action)."""

    __slots__ = ("scalars", "frames", "once", "once_length", "lasting", "log", "actions", "branches",
                 "branch_parts", "info", "others")

    def __init__(self, s: GameState, acting: Branch | None = None) -> None:
        # Journal.__init__, written out: an Undo is made for every action
        self.zones = {}
        self.where = {}
        self.tokens = None
        self.vars = {}
        self.cells = {}
        self.known = {}
        self.scalars = (s.rng, s.pending, s.active, s.round, s.turn, s.over, s.decisions)
        # Frames change in place (their position, their locals); their values never do.
        stack = s.stack
        if len(stack) == 1:  # (most often: no comprehension's call for one frame)
            f = stack[0]
            self.frames = [(f, f.pc, f.locals.copy())]
        else:
            self.frames = [(f, f.pc, f.locals.copy()) for f in stack]
        # `once` marks are only ever added at its end, or the list replaced whole: the list and
        # its length put it back (no copy)
        self.once = s.once
        self.once_length = len(s.once)
        self.lasting = [(m, m.remaining) for m in s.lasting] if s.lasting else None
        self.log = len(s.log)
        self.actions = len(s.actions)
        # The branches of a `simultaneously`, noted like the main stack (their frames' positions
        # and locals, their logs' lengths) rather than copied: one action changes one branch.
        # `acting`: the branch whose decision the action answers, when known; then the others
        # waiting for their players are not noted (nothing runs a waiting branch: Machine.run).
        self.branches = s.branches
        self.branch_parts = [(b, b.stack[:], [(f, f.pc, dict(f.locals)) for f in b.stack], b.pending, b.count,
                              len(b.log), len(b.actions)) for b in s.branches
                             if acting is None or b is acting or b.pending is None] if s.branches else None
        # What players know of cards (journaled: the dict itself is kept) and explicit chance
        # (flat: copied rather than journaled).
        self.info = (s.known, s.chance, {k: v[:] for k, v in s.unordered.items()} if s.unordered else {},
                     s.chance_at, s.tape[:] if s.tape else [])
        self.others = {name: copy.deepcopy(getattr(s, name)) for name in _OTHER_FIELDS} if _OTHER_FIELDS else None

    @property
    def journal(self) -> Journal:
        return self

    def restore(self, s: GameState) -> None:
        j = self
        for key, cards in j.zones.items():
            s.zones[key][:] = cards  # in place: whatever holds the list sees it restored
        for card, where in j.where.items():
            s.where[card] = where
        if j.tokens is not None:
            s.tokens.clear()
            s.tokens.update(j.tokens)
        for key, value in j.vars.items():
            if value is _MISSING:
                s.vars.pop(key, None)
            else:
                s.vars[key] = value
        for key, mask in j.known.items():
            if mask is _MISSING:
                s.known.pop(key, None)
            else:
                s.known[key] = mask
        for key, cell in j.cells.items():
            if cell is _MISSING:
                s.cells.pop(key, None)
            else:
                s.cells[key] = cell
        s.rng, s.pending, s.active, s.round, s.turn, s.over, s.decisions = self.scalars
        stack: list[Frame] = []
        for f, pc, local_values in self.frames:
            f.pc, f.locals = pc, local_values
            stack.append(f)
        s.stack = stack
        del self.once[self.once_length:]
        s.once = self.once
        if self.lasting is None:
            s.lasting = []
        else:
            for m, remaining in self.lasting:
                m.remaining = remaining
            s.lasting = [m for m, _ in self.lasting]
        del s.log[self.log:]
        del s.actions[self.actions:]
        for b, frames, positions, pending, count, log_length, actions_length in self.branch_parts or ():
            for f, pc, local_values in positions:
                f.pc, f.locals = pc, local_values
            b.stack, b.pending, b.count = frames, pending, count
            del b.log[log_length:]
            del b.actions[actions_length:]
        s.branches = self.branches
        s.known, s.chance, s.unordered, s.chance_at, s.tape = self.info
        for name, value in (self.others or {}).items():
            setattr(s, name, value)
