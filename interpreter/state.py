"""The running state of a game: plain data.

Everything that changes during play lives here, as flat containers of ints, strings and
lists, so a state clones cheaply, saves to JSON with cattrs and compares with ``==``.
What never changes (card names, printed values, compiled code) lives in the compiled game.
"""

from __future__ import annotations

from typing import Any

import attrs

MASK64 = (1 << 64) - 1
SAVE_FORMAT = "rulelang-state"
SAVE_VERSION = 1


@attrs.define
class Frame:
    """One running procedure: which code, where in it, and its local values."""

    code: str
    pc: int
    locals: dict[str, Any]


@attrs.define
class Pending:
    """A decision the game waits for."""

    player: int
    prompt: str
    kind: str  # pick, menu, may
    values: list[Any]
    labels: list[str]


@attrs.define
class Lasting:
    """A lasting modifier in force: until the end of `remaining` more turns/rounds (of `player`)."""

    name: str
    player: int  # -1: not tied to a player
    unit: str  # turn, round, game
    remaining: int


@attrs.define
class GameState:
    num_players: int
    seed: int
    rng: int
    zones: dict[str, list[int]]
    where: list[str]  # the zone key of each card, by card id
    tokens: dict[str, int]  # "holder|token|side" -> count
    vars: dict[str, Any]  # "name", "name#player" or "name@card"
    stack: list[Frame] = attrs.Factory(list)
    pending: Pending | None = None
    active: int | None = None
    round: int = 0
    turn: int = 0
    once: list[str] = attrs.Factory(list)
    lasting: list[Lasting] = attrs.Factory(list)
    over: bool = False
    decisions: int = 0
    log: list[list] = attrs.Factory(list)  # [kind, player or None, text]
    actions: list[list] = attrs.Factory(list)  # [player, value] of every applied action

    def copy(self) -> GameState:
        """A deep, independent copy (hand-written: it is the hot path of search and validation)."""
        return GameState(
            self.num_players, self.seed, self.rng,
            {k: v[:] for k, v in self.zones.items()},
            self.where[:],
            dict(self.tokens),
            {k: (v[:] if isinstance(v, list) else v) for k, v in self.vars.items()},
            [Frame(f.code, f.pc, {k: (v[:] if isinstance(v, list) else v) for k, v in f.locals.items()})
             for f in self.stack],
            None if self.pending is None else Pending(self.pending.player, self.pending.prompt,
                                                      self.pending.kind, self.pending.values[:],
                                                      self.pending.labels[:]),
            self.active, self.round, self.turn, self.once[:],
            [Lasting(m.name, m.player, m.unit, m.remaining) for m in self.lasting],
            self.over, self.decisions, self.log[:], self.actions[:],
        )


# ---- the seeded generator (splitmix64): same numbers on every machine and process ----------


def rng_next(state: int) -> tuple[int, int]:
    state = (state + 0x9E3779B97F4A7C15) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


def rng_below(state: int, bound: int) -> tuple[int, int]:
    """A uniform integer in [0, bound), by rejection so there is no modulo bias."""
    limit = (1 << 64) - ((1 << 64) % bound)
    while True:
        state, x = rng_next(state)
        if x < limit:
            return state, x % bound


def rng_shuffle(state: int, items: list) -> int:
    """Fisher-Yates in place; returns the new generator state."""
    for i in range(len(items) - 1, 0, -1):
        state, j = rng_below(state, i + 1)
        items[i], items[j] = items[j], items[i]
    return state
