"""The running state of a game: plain data.

Everything that changes during play lives here, as flat containers of ints, strings and
lists, so a state clones cheaply, saves to JSON with cattrs and compares with ``==``.
What never changes (card names, printed values, compiled code) lives in the compiled game.
"""

from __future__ import annotations

import functools
import sys
from array import array
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
    """A decision the game waits for.

    Never changed once parked (``Machine.park`` numbers it first; its lists are its own): a state
    and its copies share it, and whoever needs another makes a new one (``attrs.evolve``)."""

    player: int
    prompt: str
    kind: str  # pick, menu, may
    values: list[Any]
    labels: list[str]
    serial: int = 0  # which decision this is; actions carry it so stale ones are refused


@attrs.define
class BranchStart:
    """What a `simultaneously` part needs to be put back where it stood when the step began,
    besides ``Branch.shown`` (the player's vars and tokens then): the part's first frame and the
    player's own things a part may change (``Machine.shared_change`` refuses any other).

    A determinisation (``information.resample``) puts the other players' parts back and runs
    them again, since what they did so far is not the seat's to know. Never changed once made,
    so copies of the state share it.

    `zones`, `vars`, `cells` and `known` are all None when the part's code cannot change a card
    (``information.step_parts``): they are then the state's own, as long as the step lasts, and
    ``information.start_of`` makes them from the state holding the part (saves write them). The
    part's ``Branch.shown`` then leaves out its zones' sizes (None) and the vars the part cannot
    set, for ``information.shown_of`` to make the same way."""

    frame: Frame  # the part's first frame, as it began
    zones: dict[str, list[int]] | None  # the player's own zones (key `name#p`) -> their cards
    vars: dict[str, Any] | None  # the vars of those cards (`name@card`)
    cells: dict[str, list] | None  # where those cards lay on grids
    known: dict[str, int] | None  # who knew those cards
    supply: dict[str, int]  # the supply's tokens ("supply|token|side" -> count)
    once: list[str]  # the `once` marks made before the step


@attrs.define
class Branch:
    """One player's part of a `simultaneously` block: their own frames, decision and log."""

    player: int
    stack: list[Frame]
    pending: Pending | None = None
    count: int = 0  # decisions this branch has made
    log: list[list] = attrs.Factory(list)
    actions: list[list] = attrs.Factory(list)
    shown: dict[str, Any] = attrs.Factory(dict)  # the player's own things as others last saw them (see BranchStart)
    start: BranchStart | None = None  # None in saves made before it was kept: see BranchStart


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
    branches: list[Branch] = attrs.Factory(list)  # a simultaneous step in progress
    # Cards laid on grid zones: card id (as text, for JSON) -> [row, column, facing].
    cells: dict[str, list] = attrs.Factory(dict)
    # card id (as text) -> bit mask of the players who know that card beyond what its zone shows
    known: dict[str, int] = attrs.Factory(dict)
    # Explicit-chance mode (see interpreter/engine/chance.py): "seeded" or "explicit"; the zones
    # whose order nobody knows yet, as zone key -> [first position, how many]; and, at a chance
    # node, what is being carried out ([player, value, decision], or [] for the setup) with the
    # outcomes already chosen for it.
    chance: str = "seeded"
    unordered: dict[str, list[int]] = attrs.Factory(dict)
    chance_at: list | None = None
    tape: list = attrs.Factory(list)

    def copy(self, share_history: bool = False) -> GameState:
        """An independent copy (hand-written: it is the hot path of search and validation).

        Containers of the state are copied; the values in vars are shared, since nothing changes
        them in place (a `set` stores a new list or bag: ``Machine.set_var``). With
        ``share_history``, the log and the list of actions are shared too: whoever then changes
        either state first gives it its own (``State.clone`` and ``State._own_history``)."""
        # (what is usually empty is tested first: even an empty comprehension costs a call; the
        # zones and frames in plain loops, which cost no call at all: a fifth less for a small
        # game, the same for a big one, measured; but many zones' lists are copied in C, by one
        # call for them all: 4 % less for games of 30 zones, and 7 % more for a game of 3)
        zones = self.zones
        if len(zones) > _FEW_ZONES:
            # (a copy of the dict, its values then replaced in C: a dict made from the pairs would
            # grow, and be rebuilt, several times on the way)
            copied = zones.copy()
            copied.update(zip(zones, map(_list_copy, zones.values()), strict=False))  # (same length)
            zones = copied
        else:
            zones = {}
            for key, cards in self.zones.items():
                zones[key] = cards[:]
        stack = _copy_frames(self.stack)
        # Made field by field rather than by GameState(...) (its attrs __init__, a Python call
        # from C that also tests each defaulted argument): every field, as
        # tests/test_apply_paths.py (test_a_copy_has_every_field...) checks.
        copy = _new(GameState)
        copy.num_players = self.num_players
        copy.seed = self.seed
        copy.rng = self.rng
        copy.zones = zones
        copy.where = self.where[:]
        copy.tokens = self.tokens.copy()
        copy.vars = self.vars.copy()  # values are never changed in place (Machine.set_var): shared
        copy.stack = stack
        copy.pending = self.pending  # never changed in place (see Pending)
        copy.active = self.active
        copy.round = self.round
        copy.turn = self.turn
        copy.once = self.once[:] if self.once else []  # (usually empty: a new list costs less than a slice)
        copy.lasting = [Lasting(m.name, m.player, m.unit, m.remaining) for m in self.lasting] if self.lasting else []
        copy.over = self.over
        copy.decisions = self.decisions
        if share_history:
            copy.log = self.log
            copy.actions = self.actions
        else:
            copy.log = self.log[:] if self.log else []  # (empty in a new game)
            copy.actions = self.actions[:] if self.actions else []
        copy.branches = _copy_branches(self.branches, share_history) if self.branches else []
        copy.cells = {k: v[:] for k, v in self.cells.items()} if self.cells else {}
        copy.known = self.known.copy()
        copy.chance = self.chance
        copy.unordered = {k: v[:] for k, v in self.unordered.items()} if self.unordered else {}
        copy.chance_at = self.chance_at
        copy.tape = self.tape[:] if self.tape else []
        return copy


def _copy_value(v: Any) -> Any:
    """Values are ints, strings, lists and dicts (bags); copy containers, nested ones too."""
    if v.__class__ is list and (not v or v[0].__class__ in _PLAIN_ITEMS):
        return v[:]  # (what the lines below make of a list of plain items, found without isinstance)
    if isinstance(v, list):
        return [_copy_value(x) for x in v] if v and isinstance(v[0], _CONTAINERS) else v[:]
    if isinstance(v, dict):
        return {k: _copy_value(x) for k, x in v.items()}
    return v


_CONTAINERS = (list, dict)
_PLAIN_ITEMS = frozenset((int, str, bool, type(None)))  # the classes of items that are no containers
_new = object.__new__
_list_copy = list.copy
_FEW_ZONES = 8


def _copy_frame(f: Frame) -> Frame:
    # Made field by field rather than by Frame(...), as _copy_branches: every field of the class
    # (tests/test_state_copy.py checks).
    copy = _new(Frame)
    copy.code = f.code
    copy.pc = f.pc
    if not f.locals:
        copy.locals = {}
        return copy
    copy.locals = local_values = f.locals.copy()  # in C; then only the containers are copied again
    for k, v in local_values.items():
        # A rule's local may be a zone's own list (`let h = hand`), which moves change in place:
        # the copy gets its own. The engine's own locals (`$items3`: a `for` loop's items, made for
        # the loop and only read) are never changed in place: shared.
        kind = v.__class__  # (looked up once: most values are neither)
        if kind is list:  # most often a list of cards, numbers or names: one C copy
            if k[0] != "$":
                local_values[k] = v[:] if not v or v[0].__class__ not in _CONTAINERS else _copy_value(v)
        elif kind is dict:
            local_values[k] = _copy_value(v)
    return copy


def _copy_frames(frames: list[Frame]) -> list[Frame]:
    """``[_copy_frame(f) for f in frames]``, its lines written out in one loop: a state's stack
    and each part's are copied by one call rather than a call per frame (a clone of a game whose
    players choose at once copies half a dozen frames)."""
    out = []
    for f in frames:
        copy = _new(Frame)
        copy.code = f.code
        copy.pc = f.pc
        if not f.locals:
            copy.locals = {}
        else:
            copy.locals = local_values = f.locals.copy()
            for k, v in local_values.items():  # (as in _copy_frame)
                kind = v.__class__
                if kind is list:
                    if k[0] != "$":
                        local_values[k] = v[:] if not v or v[0].__class__ not in _CONTAINERS else _copy_value(v)
                elif kind is dict:
                    local_values[k] = _copy_value(v)
        out.append(copy)
    return out


def _copy_branches(branches: list[Branch], share_history: bool = False) -> list[Branch]:
    """A copy of each part of a `simultaneously` step, in one loop (no call per part).

    Made field by field rather than by Branch(...) (its attrs __init__, a Python call from C):
    every field of the (slotted) class, as tests/test_state_copy.py checks. `pending`, `shown`
    and `start` are never changed in place (a new one replaces them), so they are shared. With
    ``share_history`` (``State.clone``), so are each part's log and actions, as the state's own
    are: whatever changes either state first gives its parts their own (``State._own_history``)."""
    out = []
    for b in branches:
        copy = _new(Branch)
        copy.player = b.player
        copy.stack = _copy_frames(b.stack) if b.stack else []
        copy.pending = b.pending
        copy.count = b.count
        if share_history:
            copy.log = b.log
            copy.actions = b.actions
        else:
            copy.log = b.log[:]
            copy.actions = b.actions[:]
        copy.shown = b.shown
        copy.start = b.start
        out.append(copy)
    return out


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
    """Fisher-Yates in place; returns the new generator state. The numbers of ``rng_below`` (and
    so of ``rng_next``), written out: a shuffle is most of the setup of a small card game."""
    n = len(items)
    if _PACKED_FROM <= n <= _PACKED_UPTO:
        return _rng_shuffle_packed(state, items)
    if n > _FEW:
        return _rng_shuffle_long(state, items)
    for i in range(n - 1, 0, -1):
        state = (state + 0x9E3779B97F4A7C15) & MASK64
        z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        x = z ^ (z >> 31)
        if x >= _LOWEST_LIMIT:  # (one draw in 2**58 at most) rejected when past this bound's limit
            limit = _LIMITS[i + 1]
            while x >= limit:
                state = (state + 0x9E3779B97F4A7C15) & MASK64
                z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
                z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
                x = z ^ (z >> 31)
        j = x % (i + 1)
        items[i], items[j] = items[j], items[i]
    return state


def _rng_shuffle_long(state: int, items: list, top: int | None = None) -> int:
    """``rng_shuffle`` of more than ``_FEW`` items: each bound's limit worked out as it comes.
    ``top``: the draws from the one swapping `items[top]` on (the earlier ones made already)."""
    for i in range(len(items) - 1 if top is None else top, 0, -1):
        bound = i + 1
        limit = _LIMITS[bound] if bound <= _FEW else _TWO_64 - _TWO_64 % bound
        while True:
            state = (state + 0x9E3779B97F4A7C15) & MASK64
            z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
            x = z ^ (z >> 31)
            if x < limit:
                break
        j = x % bound
        items[i], items[j] = items[j], items[i]
    return state


def _rng_shuffle_packed(state: int, items: list) -> int:
    """``rng_shuffle`` with its draws' numbers worked out together: the generator's states of a
    shuffle's N-1 draws are its state plus 1..N-1 times the same constant, so all of them can be
    laid side by side in one big number, 128 bits apart (room for each one's 64-bit product), and
    each of ``rng_next``'s mixing steps done once for all of them: a shift masked to each one's
    64 bits, an exclusive or, a product by the constant masked likewise. Each draw is then read
    back from the bytes; the swaps are those of the loop, in its order. A draw that might be past
    its bound's rejection limit (at most one in 2**58) hands over, at that draw, to the loop that
    rejects and draws again (``_rng_shuffle_long``), so the numbers are always exactly the loop's
    (tests/test_state_copy.py compares them). Per card about half of the loop's instructions
    (its operations on 64-bit numbers, each a new object, were a twentieth of a playout)."""
    n = len(items)
    draws = n - 1
    increments, mask = _packed_lanes(draws)
    z = (int.from_bytes(state.to_bytes(16, "little") * draws, "little") + increments) & mask
    z ^= (z >> 30) & mask
    z = (z * 0xBF58476D1CE4E5B9) & mask
    z ^= (z >> 27) & mask
    z = (z * 0x94D049BB133111EB) & mask
    z ^= (z >> 31) & mask
    words = array("Q", z.to_bytes(16 * draws, "little"))
    if _BIG_ENDIAN:
        words.byteswap()
    # (below every bound's limit: a draw under it is kept by the loop whatever its bound)
    lowest = _LOWEST_LIMIT if n <= _FEW else min(_LOWEST_LIMIT, _TWO_64 - n)
    for i, x in zip(range(draws, 0, -1), words[::2], strict=True):
        if x >= lowest:
            return _rng_shuffle_long((state + 0x9E3779B97F4A7C15 * (draws - i)) & MASK64, items, i)
        j = x % (i + 1)
        items[i], items[j] = items[j], items[i]
    return (state + 0x9E3779B97F4A7C15 * draws) & MASK64


@functools.lru_cache(maxsize=128)
def _packed_lanes(draws: int) -> tuple[int, int]:
    """For ``_rng_shuffle_packed`` of `draws` draws: the constant added to the state for each
    draw (k times it for the k-th, at bit 128(k-1)), and the mask of each one's low 64 bits."""
    counts = b"".join(k.to_bytes(16, "little") for k in range(1, draws + 1))
    return (0x9E3779B97F4A7C15 * int.from_bytes(counts, "little"),
            int.from_bytes((b"\xff" * 8 + b"\x00" * 8) * draws, "little"))


_TWO_64 = 1 << 64
# The rejection limit of each small bound (`rng_below`'s), worked out once: two operations on
# numbers past 64 bits fewer per card of a shuffle (a shuffle is a third of a small game's start)
_FEW = 64
_LIMITS = tuple(_TWO_64 - _TWO_64 % bound if bound else 0 for bound in range(_FEW + 1))
# The least of them (a draw below it is below every one): most draws need no other comparison
_LOWEST_LIMIT = min(_LIMITS[1:])
# From how many items (to how many) a shuffle's draws are worked out together
# (``_rng_shuffle_packed``): fewer cost more so, measured; more would keep big numbers per size.
_PACKED_FROM = 6
_PACKED_UPTO = 1024
_BIG_ENDIAN = sys.byteorder == "big"
