"""The table as one player sees it: the game's `table:` section, compiled once and evaluated
into plain JSON-able data (a "table view") that the terminal and the browser both draw.

Only what the section names is shown. Cards of a zone the viewer may not see are shown as a
count; while players choose at the same time, the others' things are read as they were when
the choosing began (the same rule as ``State.view``). The checker has already refused any
expression that reads the cards of a zone that is not public (E309), so what an item computes
cannot depend on hidden cards.

A table view::

    {"game": "...", "you": 0, "round": 3, "items": [item, ...]}

and its items (every one has "type"; "label" where the rule file gives one)::

    {"type": "section", "label", "items"}
    {"type": "board", "label": "Player 2", "player": 1, "you": false, "items"}
    {"type": "row", "label", "count", "cards": [{"name", "face", "text", "note"}] or null when hidden,
        "known": [{"at", "name", "face", "text"}] (only when hidden: the cards the viewer knows, by place);
        "count" is null when even how many is the board's player's secret}
    {"type": "places", "label", "places": [{"name", "note"}]}
    {"type": "counter", "label", "value": "text"}
    {"type": "track", "label", "value", "size"}
    {"type": "markers", "label", "low", "high", "markers": [{"name", "player", "at"}]}
    {"type": "grid", "label", "lines": [{"label", "cells": ["text", ...]}]}
    {"type": "score", "player", "total", "hidden": bool, "lines": [{"label", "value" or null}]}
    {"type": "error", "label", "message"}      (an item whose rule failed; the rest still shows)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

from rulelang import nodes as n
from rulelang.diagnostics import RuleRuntimeError

from .information import card_visible, shown_of, supply_seen
from .runtime import RULE_FAULTS, Machine, python_error

Fn = Callable[[Any, dict], Any]
_BOARD = "$board"  # the local naming whose board is being drawn (no rule file name has a $)


@attrs.frozen
class CompiledItem:
    kind: str
    label: str
    fns: tuple  # the item's expressions, compiled
    types: tuple  # their checker types
    var: str | None
    note: Fn | None
    note_type: str
    when: Fn | None
    children: tuple
    zone_key: Fn | None  # a row naming a zone: the zone's key in the state
    pos: n.Pos
    private: bool = False  # reads the board's player's own secrets: shown on the viewer's own board only


def compile_table(c: Any, decl: n.TableDecl | None) -> tuple[CompiledItem, ...] | None:
    """The `table:` section as closures, built by the compiler ``c`` (its ``expr`` and ``type_of``)."""
    if decl is None:
        return None
    return tuple(_compile_item(c, item) for item in decl.items)


def _zone_key(c: Any, e: Any) -> Fn | None:
    cat, name = c.p.resolved.get(id(e), ("", None))
    if cat == "zone":
        return lambda m, L: name
    if cat == "pzone" and isinstance(e, n.Attr):
        owner = c.expr(e.obj)
        return lambda m, L: f"{name}#{owner(m, L)}"
    return None


def _compile_item(c: Any, item: n.TableItem) -> CompiledItem:
    fns = tuple(c.expr(e) for e in item.exprs)
    types = tuple(c.type_of(e) for e in item.exprs)
    return CompiledItem(
        kind=item.kind, label=item.label, fns=fns, types=types, var=item.var,
        note=c.text(item.note) if item.note is not None else None,
        note_type=c.type_of(item.note) if item.note is not None else "",
        when=c.expr(item.when) if item.when is not None else None,
        children=tuple(_compile_item(c, child) for child in item.children),
        zone_key=_zone_key(c, item.exprs[0]) if item.kind == "row" else None,
        pos=item.pos, private=id(item) in c.p.table_private)


# ---- evaluating -----------------------------------------------------------------------------


class _Viewer:
    """What evaluation needs besides the machine: who looks, and whose things are secret now."""

    def __init__(self, player: int, secret: dict[int, dict]):
        self.player = player
        self.secret = secret  # player -> their things as shown when the simultaneous choosing began


def viewer_state(game: Any, state: Any, player: int) -> tuple[Any, dict[int, dict]]:
    """A copy of the state as ``player`` may read it: the others still choosing at the same time
    have their vars and tokens as they were when the choosing began."""
    shown = {b.player: shown_of(game, state, b) for b in state.branches if b.player != player}
    if not shown:
        return state, {}
    s = state.copy()
    for p, things in shown.items():
        for key in [k for k in s.vars if k.endswith(f"#{p}")]:
            if key in things["vars"]:
                s.vars[key] = things["vars"][key]
        for key in [k for k in s.tokens if k.startswith(f"p{p}|")]:
            del s.tokens[key]
        s.tokens.update(things["tokens"])
    supply = supply_seen(game, state, player)
    if supply is not None:  # nor what they paid to the supply or took from it
        s.tokens = {k: v for k, v in s.tokens.items() if not k.startswith("supply|")}
        s.tokens.update(supply)
    return s, shown


def evaluate(game: Any, state: Any, player: int) -> dict:
    """The table view of ``state`` for ``player`` (see the module's doc)."""
    s, secret = viewer_state(game, state, player)
    m = Machine(game, s)
    viewer = _Viewer(player, secret)
    items = _items(game.layout or (), m, {"viewer": player}, viewer)
    return {"game": game.title, "you": player, "round": s.round, "items": items}


def _items(items: tuple, m: Machine, L: dict, viewer: _Viewer) -> list[dict]:
    out = []
    for item in items:
        try:
            if item.private and L.get(_BOARD) != viewer.player:
                out.append(_secret(item))  # another player's own secret (rulelang/flow.py)
                continue
            if item.when is not None and not item.when(m, L):
                continue
            out.extend(_item(item, m, L, viewer))
        except RuleRuntimeError as err:
            out.append({"type": "error", "label": item.label, "message": str(err)})
        except RULE_FAULTS as err:
            out.append({"type": "error", "label": item.label,
                        "message": f"{item.pos}: this cannot be shown ({python_error(err)})"})
    return out


def _secret(item: CompiledItem) -> dict:
    """An item that shows its player's secret, on another player's board: that it is secret."""
    if item.kind == "row":
        return {"type": "row", "label": item.label, "count": None, "cards": None}
    return {"type": "counter", "label": item.label, "value": "?"}


def _card(game: Any, card: int, note: str | None) -> dict:
    return {"name": game.card_names[card], "face": game.card_faces[card],
            "text": str(game.card_attrs[card].get("text") or ""), "note": note}


def _item(item: CompiledItem, m: Machine, L: dict, viewer: _Viewer) -> list[dict]:  # noqa: C901 - one case per kind
    g = m.game
    kind = item.kind
    if kind == "section":
        return [{"type": "section", "label": item.label, "items": _items(item.children, m, L, viewer)}]
    if kind == "board":
        among = item.fns[0](m, L) if item.fns else list(range(m.s.num_players))
        order = sorted(among, key=lambda q: (q != viewer.player, q))  # the viewer's own board first
        boards = []
        for q in order:
            inner = dict(L)
            inner[item.var] = q
            inner[_BOARD] = q
            boards.append({"type": "board", "label": g.player_name(q), "player": q, "you": q == viewer.player,
                           "items": _items(item.children, m, inner, viewer)})
        return boards
    if kind == "row":
        value = item.fns[0](m, L)
        cards = list(value) if isinstance(value, list) else [] if value is None else [value]
        if item.zone_key is not None:
            key = item.zone_key(m, L)
            per_player, vis = g.zone_decls[key.split("#", 1)[0]]
            owner = int(key.split("#", 1)[1]) if per_player else None
            if owner in viewer.secret:  # still choosing: how many they had when the choosing began
                return [{"type": "row", "label": item.label, "count": viewer.secret[owner]["zones"].get(key, 0),
                         "cards": None}]
            if not (vis == "public" or (vis == "owner" and owner == viewer.player)):
                row = {"type": "row", "label": item.label, "count": len(cards), "cards": None}
                # The cards of it the viewer knows (they looked, or saw them go there), in place.
                known = [{"at": i, **_card(g, c, None)} for i, c in enumerate(cards)
                         if card_visible(g, m.s, c, viewer.player)]
                if known:
                    row["known"] = known
                return [row]
        shown = []
        for card in cards:
            note = None
            if item.note is not None:
                note = item.note(m, {**L, item.var: card})
            shown.append(_card(g, card, note))
        return [{"type": "row", "label": item.label, "count": len(cards), "cards": shown}]
    if kind == "places":
        value = item.fns[0](m, L)
        elem = item.types[0][5:] if item.types[0].startswith("list:") else "card" if item.types[0] == "zone" else "any"
        places = []
        for x in value or []:
            note = item.note(m, {**L, item.var: x}) if item.note is not None else None
            places.append({"name": g.show(x, elem), "note": note})
        return [{"type": "places", "label": item.label, "places": places}]
    if kind == "counter":
        return [{"type": "counter", "label": item.label, "value": g.show(item.fns[0](m, L), item.types[0])}]
    if kind == "track":
        return [{"type": "track", "label": item.label, "value": item.fns[0](m, L), "size": item.fns[1](m, L)}]
    if kind == "markers":
        low, high, markers = item.fns[0](m, L), item.fns[1](m, L), item.fns[2](m, L)
        elem = item.types[2][5:] if item.types[2].startswith("list:") else "any"
        shown = []
        for x in markers or []:
            at = item.fns[3](m, {**L, item.var: x})
            shown.append({"name": g.show(x, elem), "player": x if elem == "player" else None, "at": at})
        return [{"type": "markers", "label": item.label, "low": low, "high": high, "markers": shown}]
    if kind == "grid":
        lines = []
        for line in item.children:
            cells = line.fns[0](m, L)
            if not cells:  # a line with no cells is left out: a grid may show a window of a board that grows
                continue
            elem = line.types[0][5:] if line.types[0].startswith("list:") else "any"
            lines.append({"label": line.label, "cells": [g.show(x, elem) if not isinstance(x, str) else x
                                                          for x in cells or []]})
        return [{"type": "grid", "label": item.label, "lines": lines}]
    if kind == "score":
        return [_score(item, m, L, viewer.player)]
    raise AssertionError(f"unknown table item {kind}")


def _score(item: CompiledItem, m: Machine, L: dict, viewer: int) -> dict:
    """The running score of the board's player: every line the viewer may read (the others
    are shown as unknown until the end, and left out of the total)."""
    g = m.game
    player = L.get(_BOARD)
    if player is None:
        return {"type": "error", "label": "score", "message": f"{item.pos}: `score` belongs inside a `board`"}
    lines, total, hidden = [], 0, False
    for label, f in g.score_lines:
        secret = label in g.hidden_score_lines or (label in g.owner_score_lines and player != viewer)
        if secret and not m.s.over:
            lines.append({"label": label.replace("_", " "), "value": None})
            hidden = True
            continue
        value = f(m, player)
        total += value
        lines.append({"label": label.replace("_", " "), "value": value})
    return {"type": "score", "player": player, "total": total, "hidden": hidden, "lines": lines}
