"""What the adapters share: numbering a game's choice values as action ids, and encoding a
player's view as a fixed-length list of numbers (the observation tensor). Plain Python: no
numpy, no OpenSpiel. The layouts are documented in docs/adapters.md.

Action ids, for a game with ``M`` whole-number ids and enum members ``e_0 .. e_{E-1}``:

* ``0 .. M-1``: the whole number with that value (a card id, a seat, a number chosen from a
  range, the index of a menu option);
* ``M .. M+E-1``: the enum members, in the order the rule files declare them;
* ``M+E``: skip (``may choose`` taken as none), ``M+E+1``: no, ``M+E+2``: yes (``may``);
* ``M+E+3 .. M+E+2+K``: the negative whole numbers -1 .. -K;
* ``M+E+3+K ..``: the zones, for choices whose options are zones (``choose pile in [deck, discard[c]]``),
  by their state keys in declaration order (``box`` first; per-player zones seat by seat up to the
  most players the game allows);
* then, in a game with a grid zone, the spots (a cell and a facing) of rows and columns from -R to R,
  R the number of cards (no laid card can lie further from the first), row by row, then column,
  then facing (north, east, south, west).

``M`` is the largest of the number of cards, the most players, the longest menu and one more
than the largest whole number written in the rule files; ``int_actions`` overrides it. ``K``
is the largest negative number written in the rule files (``negative_actions`` overrides it). The same
value always has the same id, whatever the decision, so an id's meaning never depends on the
order in which the legal actions were listed.
"""

from __future__ import annotations

import json
from typing import Any

import attrs

from rulelang import nodes
from rulelang.checker import check
from rulelang.parser import load_sources

from ..engine.api import Game, State

_FACINGS = ("north", "east", "south", "west")


class EncodingError(ValueError):
    """A choice value or view that has no place in the game's encoding; says which and why."""


def _int_literals(node: Any, seen: set[int], found: list[int]) -> None:
    """Every whole number written in a syntax tree (a walk over the attrs nodes)."""
    if id(node) in seen:
        return
    seen.add(id(node))
    if isinstance(node, nodes.Lit):
        value = node.value
        if isinstance(value, int) and not isinstance(value, bool):
            found.append(value)
        return
    if isinstance(node, nodes.Neg) and isinstance(node.operand, nodes.Lit):
        value = node.operand.value
        if isinstance(value, int) and not isinstance(value, bool):
            found.append(-value)
        return
    if attrs.has(type(node)):
        for field in attrs.fields(type(node)):
            _int_literals(getattr(node, field.name), seen, found)
    elif isinstance(node, (list, tuple)):
        for item in node:
            _int_literals(item, seen, found)
    elif isinstance(node, dict):
        for item in node.values():
            _int_literals(item, seen, found)


def literal_range(game: Game) -> tuple[int, int]:
    """The smallest and the largest whole number written in the game's rule files (0 if none)."""
    modules, sources = load_sources(game.source_path, game.house)
    program = check(modules, sources)
    found: list[int] = [0]
    seen: set[int] = set()
    for module in modules:
        _int_literals(module, seen, found)
    _int_literals(list(program.consts.values()), seen, found)
    return min(found), max(found)


def _menu_sizes(game: Game) -> list[int]:
    return [len(op.options) for code in game.compiled.codes.values() for op in code
            if type(op).__name__ == "_MenuOp"]


def zone_keys(game: Game, players: int | None = None) -> list[str]:
    """Every zone's state key (``box``, ``deck``, ``hand#2``, ``expedition[red]#0``), in declaration
    order, per-player zones seat by seat for ``players`` (the most the game allows if not given)."""
    n = game.max_players if players is None else players
    keys = ["box"]
    for name, (per_player, _) in game.compiled.zone_decls.items():
        keys += [f"{name}#{p}" for p in range(n)] if per_player else [name]
    return keys


@attrs.define
class ActionIds:
    """The stable numbering of a game's choice values (see the module's doc)."""

    int_count: int
    members: list[str]
    negative_count: int = 0
    zones: list[str] = attrs.Factory(list)
    spot_radius: int = 0  # spots of rows and columns -R..R have ids (games with a grid zone)

    @classmethod
    def for_game(cls, game: Game, int_actions: int | None = None, negative_actions: int | None = None) -> ActionIds:
        members: list[str] = []
        for values in game.compiled.enums.values():
            members += [m for m in values if m not in members]
        if int_actions is None or negative_actions is None:
            low, high = literal_range(game)
            if int_actions is None:
                int_actions = max([len(game.compiled.card_names), game.max_players, high + 1, *_menu_sizes(game)])
            if negative_actions is None:
                negative_actions = -low
        if int_actions < 1 or negative_actions < 0:
            raise EncodingError(f"int_actions is a whole number from 1 and negative_actions one from 0, "
                                f"not {int_actions} and {negative_actions}")
        radius = len(game.compiled.card_names) if game.compiled.zone_grids else 0
        return cls(int_actions, members, negative_actions, zone_keys(game), radius)

    @property
    def _spot_count(self) -> int:
        return (2 * self.spot_radius + 1) ** 2 * 4 if self.spot_radius else 0

    @property
    def size(self) -> int:
        return self.int_count + len(self.members) + 3 + self.negative_count + len(self.zones) + self._spot_count

    @property
    def _first_zone(self) -> int:
        return self.int_count + len(self.members) + 3 + self.negative_count

    @property
    def _first_spot(self) -> int:
        return self._first_zone + len(self.zones)

    def id_of(self, value: Any) -> int:
        if value is None:
            return self.int_count + len(self.members)
        if value is False or value is True:
            return self.int_count + len(self.members) + 1 + int(value)
        if isinstance(value, int):
            if 0 <= value < self.int_count:
                return value
            if -self.negative_count <= value < 0:
                return self.int_count + len(self.members) + 2 - value
            raise EncodingError(f"the choice value {value} has no action id: whole numbers go from "
                                f"{-self.negative_count} to {self.int_count - 1} (raise int_actions or "
                                "negative_actions to widen them)")
        if isinstance(value, str) and value in self.members:
            return self.int_count + self.members.index(value)
        if isinstance(value, str) and value in self.zones:
            return self._first_zone + self.zones.index(value)
        if (isinstance(value, list) and len(value) == 3 and value[2] in _FACINGS
                and all(isinstance(x, int) and abs(x) <= self.spot_radius for x in value[:2]) and self.spot_radius):
            width = 2 * self.spot_radius + 1
            cell = (value[0] + self.spot_radius) * width + value[1] + self.spot_radius
            return self._first_spot + cell * 4 + _FACINGS.index(value[2])
        raise EncodingError(f"the choice value {value!r} has no action id (ids are given to whole numbers, "
                            "cards, players, enum members, zones, spots of a grid, yes/no and skip)")

    def value_of(self, action_id: int) -> Any:
        if 0 <= action_id < self.int_count:
            return action_id
        k = action_id - self.int_count
        if 0 <= k < len(self.members):
            return self.members[k]
        k -= len(self.members)
        if 3 <= k < 3 + self.negative_count:
            return 2 - k
        if 0 <= action_id - self._first_zone < len(self.zones):
            return self.zones[action_id - self._first_zone]
        if 0 <= action_id - self._first_spot < self._spot_count:
            cell, facing = divmod(action_id - self._first_spot, 4)
            row, column = divmod(cell, 2 * self.spot_radius + 1)
            return [row - self.spot_radius, column - self.spot_radius, _FACINGS[facing]]
        return {0: None, 1: False, 2: True}.get(k, ("no such action", action_id))

    def describe(self, action_id: int) -> str:
        """A name for an action id outside any decision (when its label is not at hand)."""
        value = self.value_of(action_id)
        if isinstance(value, tuple):
            return f"action {action_id} (unused)"
        return {None: "skip", False: "no", True: "yes"}.get(value, str(value)) if not isinstance(value, int) \
            else f"#{value}"


def legal_ids(ids: ActionIds, state: State, player: int) -> dict[int, Any]:
    """The legal actions of a player as {action id: Action}, in ascending id order. Two
    actions with the same value are the same choice (the engine applies the first), so the
    first is kept."""
    out: dict[int, Any] = {}
    for action in state.legal_actions(player):
        out.setdefault(ids.id_of(action.value), action)
    return dict(sorted(out.items()))


# ---- the observation tensor ------------------------------------------------------------------


def _card_name(text: Any, names: dict[str, int]) -> int | None:
    if not isinstance(text, str):
        return None
    if text in names:
        return names[text]
    base = text.split(" (", 1)[0]  # a card shown with what lies on it: "Name (+2 tokens)"
    return names.get(base)


@attrs.define
class ViewEncoder:
    """Encodes ``state.view(player)`` as a fixed-length list of floats, the same layout for
    every state of a game with a given number of players (see docs/adapters.md):

    * who: seat of the viewer (one-hot), who is deciding (multi-hot), the active player
      (one-hot, plus one slot for nobody), round, turn, and whether the game is over;
    * zones, in declaration order (per-player zones seat by seat): the number of cards,
      1 if their faces are hidden from the viewer, then for every distinct card name how many
      visible cards of that name the zone holds (and, for a grid zone, where the first of them
      lies: row, column, facing 1 to 4, or three zeros);
    * tokens: for the supply, each player and each enum member, the count of every token on
      every side; tokens lying on cards are summed in one more holder;
    * values (vars), in the order of the view: a number or a truth value as itself, an enum
      member, card name or text as 1 + its index in the game's vocabulary (0 for none or an
      unknown word), a list as its length and then its first items (as many as the longest
      the list was at the start, at least 8), a map (bag, per-player value) key by key as the
      keys were at the start.
    """

    players: int
    card_names: list[str]
    holders: list[str]
    tokens: list[tuple[str, str]]
    vocabulary: dict[str, int]
    var_shapes: list[tuple[str, Any]]
    size: int = 0

    @classmethod
    def for_game(cls, game: Game, players: int, first_view: dict) -> ViewEncoder:
        g = game.compiled
        card_names = list(dict.fromkeys(g.card_names))
        members: list[str] = []
        for values in g.enums.values():
            members += [m for m in values if m not in members]
        holders = ["supply"] + [g.player_name(p) for p in range(players)] + members
        tokens = [(t, side) for t, sides in g.token_sides.items() for side in sides]
        words = list(dict.fromkeys(members + card_names + [g.player_name(p) for p in range(players)]))
        encoder = cls(players, card_names, holders, tokens, {w: i + 1 for i, w in enumerate(words)},
                      [(name, _shape(value)) for name, value in first_view["vars"].items()])
        encoder.size = len(encoder.encode(first_view))
        return encoder

    def encode(self, view: dict) -> list[float]:
        n = self.players
        out: list[float] = [0.0] * n
        out[view["you"]] = 1.0
        deciding = [0.0] * n
        for p in (view.get("decision") or {}).get("players", []):
            deciding[p] = 1.0
        out += deciding
        active = [0.0] * (n + 1)
        active[view["active_player"] if isinstance(view.get("active_player"), int) else n] = 1.0
        out += active
        out += [float(view.get("round") or 0), float(view.get("turn") or 0), float(bool(view.get("over")))]
        names = {name: i for i, name in enumerate(self.card_names)}
        for zone in view["zones"].values():
            counts = [0.0] * len(self.card_names)
            for text in zone["cards"] or ():
                i = _card_name(text, names)
                if i is not None:
                    counts[i] += 1
            out += [float(zone["count"]), 0.0 if zone["cards"] is not None else 1.0] + counts
            if "cells" in zone:  # a grid: where the first card of each name lies (row, column, facing 1-4)
                where = [0.0] * (3 * len(self.card_names))
                for text, (row, column, facing) in zip(zone["cards"] or (), zone["cells"], strict=False):
                    i = _card_name(text, names)
                    if i is not None and where[3 * i + 2] == 0.0:
                        where[3 * i: 3 * i + 3] = [float(row), float(column), float(_FACINGS.index(facing) + 1)]
                out += where
        index = {(h, t, s): i for i, (h, (t, s)) in
                 enumerate((h, ts) for h in [*self.holders, "cards"] for ts in self.tokens)}
        counts = [0.0] * len(index)
        for holder, held in view["tokens"].items():
            where = holder if holder in self.holders else "cards"
            for token, value in held.items():
                sides = value if isinstance(value, dict) else {self._first_side(token): value}
                for side, count in sides.items():
                    i = index.get((where, token, side))
                    if i is not None:
                        counts[i] += float(count)
        out += counts
        for name, shape in self.var_shapes:
            out += self._value(view["vars"].get(name), shape)
        return out

    def _first_side(self, token: str) -> str:
        return next(s for t, s in self.tokens if t == token)

    def _value(self, value: Any, shape: Any) -> list[float]:
        if isinstance(shape, dict):
            given = value if isinstance(value, dict) else {}
            return [x for key, sub in shape.items() for x in self._value(given.get(key), sub)]
        if isinstance(shape, int):  # a list of at most `shape` items
            items = list(value) if isinstance(value, list) else []
            head = [self._scalar(x) for x in items[:shape]]
            return [float(len(items))] + head + [0.0] * (shape - len(head))
        return [self._scalar(value)]

    def _scalar(self, value: Any) -> float:
        if isinstance(value, bool):
            return float(value)
        if isinstance(value, (int, float)):
            return float(value)
        if isinstance(value, str):
            return float(self.vocabulary.get(value, self.vocabulary.get(value.split(" (", 1)[0], 0)))
        if isinstance(value, (list, dict)):
            return float(len(value))
        return 0.0


def _shape(value: Any) -> Any:
    """The layout of a value as it is at the start: a map's keys, a list's width, or a scalar."""
    if isinstance(value, dict):
        return {key: _shape(sub) for key, sub in value.items()}
    if isinstance(value, list):
        return max(len(value), 8)
    return None


def _plain(value: Any) -> Any:
    """JSON for the parts of a state: attrs records as their fields, without history."""
    if attrs.has(type(value)):
        return {f.name: getattr(value, f.name) for f in attrs.fields(type(value)) if f.name not in _HISTORY}
    return str(value)


_HISTORY = ("log", "actions")


def state_text(state: State) -> str:
    """The whole state as canonical text, without its history (log and actions taken): two
    states with the same text play on identically."""
    return json.dumps(_plain(state.s), separators=(",", ":"), default=_plain)
