"""The shape of a restored state, checked against the compiled game before anything uses it.

A save's checksum is no signature: whoever forges a save can recompute it. So a restored state
is checked part by part (``api._consistency_problem`` checks cards, tokens, frames; this module
checks every value and key the runtime and ``view`` will trust): values are the rules' own kinds
(numbers within 10^18, texts, lists and bags, nested at most ``MAX_VALUE_DEPTH`` and at most
``MAX_ITEMS`` items), var keys name declared vars, a pending decision offers at least one
action of the kind its op makes, what others keep seeing of a choosing player is well formed.
Each check walks without recursion, so a value nested 900 deep is refused, not followed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .budget import MAX_INT, MAX_ITEMS, MAX_LASTING, MAX_LOG_LINE, MAX_VALUE_DEPTH
from .information import shown_of, start_of
from .runtime import MAX_COORDINATE
from .state import BranchStart, Frame, GameState, Pending

if TYPE_CHECKING:
    from .compiler import CompiledGame

MAX_SEED = 2**64


def value_problem(value: Any) -> str | None:
    """Why a value is not one the rules could have made (None if it is)."""
    todo = [(value, 0)]
    items = 0
    while todo:
        v, depth = todo.pop()
        if v is None or isinstance(v, bool):
            continue
        if type(v) is int:
            if not -MAX_INT <= v <= MAX_INT:
                return "a number past 10^18"
            continue
        if isinstance(v, str):
            if len(v) > MAX_ITEMS:
                return "a text too long"
            continue
        if isinstance(v, (list, dict)):
            if depth >= MAX_VALUE_DEPTH:
                return f"a value nested more than {MAX_VALUE_DEPTH} lists deep"
            items += len(v)
            if items > MAX_ITEMS:
                return f"a value of more than {MAX_ITEMS} items"
            if isinstance(v, dict):
                if not all(isinstance(k, str) for k in v):
                    return "a bag with keys that are not names"
                todo.extend((x, depth + 1) for x in v.values())
            else:
                todo.extend((x, depth + 1) for x in v)
            continue
        return f"a value of an unknown kind ({type(v).__name__})"
    return None


def _var_key_ok(g: CompiledGame, key: Any, players: int) -> bool:
    if not isinstance(key, str):
        return False
    for mark, per in (("#", "player"), ("@", "card")):
        name, sep, who = key.partition(mark)
        if sep:
            limit = players if per == "player" else len(g.card_names)
            return (name in g.var_inits and g.var_inits[name][0] == per and who.isdigit()
                    and int(who) < limit and str(int(who)) == who)
    return key in g.var_inits and g.var_inits[key][0] is None


def _token_key_ok(g: CompiledGame, key: Any, players: int) -> bool:
    if not isinstance(key, str):
        return False
    parts = key.split("|")
    if len(parts) != 3 or parts[1] not in g.token_sides or parts[2] not in g.token_sides[parts[1]]:
        return False
    holder = parts[0]
    if holder == "supply":
        return True
    if holder[:1] in ("p", "c") and holder[1:].isdigit():
        return int(holder[1:]) < (players if holder[0] == "p" else len(g.card_names))
    return holder.startswith("m:")


def _menu_value_ok(options: Any, v: Any) -> bool:
    """A menu's action is an option's index, or [index, item] for an option made `for` each item."""
    if type(v) is int:
        return 0 <= v < len(options) and options[v][4] is None
    return (isinstance(v, list) and len(v) == 2 and type(v[0]) is int and 0 <= v[0] < len(options)
            and options[v[0]][4] is not None)


def _pending_problem(g: CompiledGame, p: Pending, op: Any, players: int) -> str | None:
    if not isinstance(p.player, int) or isinstance(p.player, bool) or not 0 <= p.player < players:
        return f"a decision for player {p.player!r}"
    if not p.values:
        return "a decision with no action to choose"
    if len(p.values) != len(p.labels) or not all(isinstance(x, str) for x in p.labels):
        return "a decision whose labels do not match its actions"
    if not isinstance(p.prompt, str) or not isinstance(p.serial, int):
        return "a malformed decision"
    kind = type(op).__name__
    expected = {"_PickOp": "pick", "_MenuOp": "menu", "_MayOp": "may"}.get(kind)
    if expected is not None and p.kind != expected:
        return f"a {p.kind!r} decision where the rules make a {expected!r} one"
    if p.kind == "may" and (len(p.values) != 2 or p.values[0] is not True or p.values[1] is not False):
        return "a yes/no decision with other answers"
    if p.kind == "menu":
        options = getattr(op, "options", ())
        if not all(_menu_value_ok(options, v) for v in p.values):
            return "a menu decision offering options the rules do not have"
    for v in p.values:
        problem = value_problem(v)
        if problem:
            return f"a decision offering {problem}"
    return None


def _op_at(g: CompiledGame, stack: list) -> Any:
    if not stack:
        return None
    top = stack[-1]
    code = g.codes.get(top.code, ())
    return code[top.pc] if 0 <= top.pc < len(code) else None


def structure_problem(g: CompiledGame, s: GameState) -> str | None:  # noqa: C901 - one check per part
    """Why a restored state cannot be trusted (None if every part has the shape the runtime expects)."""
    players = s.num_players
    for name in ("seed", "rng"):
        v = getattr(s, name)
        if type(v) is not int or not 0 <= v < MAX_SEED:
            return f"{name} {v!r} is not from 0 to 2^64 - 1"
    for name in ("decisions", "round", "turn"):
        v = getattr(s, name)
        if type(v) is not int or not 0 <= v <= MAX_INT:
            return f"{name} {v!r}"
    if not isinstance(s.over, bool):
        return "over is not true or false"
    for key, value in s.vars.items():
        if not _var_key_ok(g, key, players):
            return f"an unknown var {str(key)[:60]!r}"
        problem = value_problem(value)
        if problem:
            return f"var {key}: {problem}"
    if not all(isinstance(x, str) for x in s.once):
        return "a malformed record of `once` options"
    if len(s.lasting) > MAX_LASTING:
        return f"more than {MAX_LASTING} lasting modifiers in force"
    for m in s.lasting:
        if not isinstance(m.name, str) or type(m.player) is not int or not -1 <= m.player < players:
            return f"a lasting modifier {str(m.name)[:40]!r} for player {m.player!r}"
    for entries in [s.log] + [b.log for b in s.branches]:
        for entry in entries:
            # [kind, player, text], or with a fourth item: the players who read it (log to ...)
            if not isinstance(entry, list) or len(entry) not in (3, 4):
                return "a malformed log entry"
            kind, player, text = entry[:3]
            if not isinstance(kind, str) or not isinstance(text, str) or len(text) > MAX_LOG_LINE + 200 or not (
                    player is None or (type(player) is int and 0 <= player < players)):
                return "a malformed log entry"
            if len(entry) == 4 and entry[3] is not None and not (
                    isinstance(entry[3], list) and all(type(q) is int and 0 <= q < players for q in entry[3])):
                return "a malformed audience of a log entry"
    for entries in [s.actions] + [b.actions for b in s.branches]:
        for player, value in entries:
            if type(player) is not int or not 0 <= player < players or value_problem(value):
                return "a malformed record of actions"
    frames = list(s.stack) + [f for b in s.branches for f in b.stack]
    for f in frames:
        if not isinstance(f.locals, dict):
            return "a frame with malformed local values"
        for key, value in f.locals.items():
            problem = value_problem(value) if isinstance(key, str) else "a name that is not text"
            if problem:
                return f"a local value {str(key)[:40]}: {problem}"
    if s.pending is not None:
        problem = _pending_problem(g, s.pending, _op_at(g, s.stack), players)
        if problem:
            return problem
    zone_keys = set(s.zones)
    for b in s.branches:
        if b.pending is not None:
            problem = _pending_problem(g, b.pending, _op_at(g, b.stack), players)
            if problem:
                return problem
        shown = shown_of(g, s, b)
        for key, value in shown["vars"].items():
            if not _var_key_ok(g, key, players) or value_problem(value):
                return "a malformed record of what others see of a choosing player"
        for key, count in shown["zones"].items():
            if key not in zone_keys or type(count) is not int or not 0 <= count <= len(g.card_names):
                return "a malformed record of what others see of a choosing player"
        for key, count in shown["tokens"].items():
            if not _token_key_ok(g, key, players) or type(count) is not int or count < 0:
                return "a malformed record of what others see of a choosing player"
        if b.start is not None:
            problem = _start_problem(g, s, b.player, start_of(g, s, b))
            if problem:
                return f"a malformed record of how a choosing player's part began ({problem})"
    if s.branches and any(b.start is not None for b in s.branches) and not _supply_kept(g, s):
        return "a malformed record of how a choosing player's part began (its supply)"
    return None


def _supply_kept(g: CompiledGame, s: GameState) -> bool:
    """Whether every part began with the same supply and, kind by kind, the supply and the
    choosing players hold as many tokens as they did then (parts trade only with the supply)."""
    starts = [b.start for b in s.branches]
    if any(st is None or st.supply != starts[0].supply for st in starts):
        return False
    holders = ["supply"] + [f"p{b.player}" for b in s.branches]

    def totals(tokens: dict) -> dict[str, int]:
        out: dict[str, int] = {}
        for key, count in tokens.items():
            parts = str(key).split("|")
            if len(parts) == 3 and parts[0] in holders and type(count) is int:
                out[parts[1]] = out.get(parts[1], 0) + count
        return {k: v for k, v in out.items() if v}
    then = dict(starts[0].supply)
    for b in s.branches:
        then.update(b.shown["tokens"])
    return totals(then) == totals(s.tokens)


def _start_problem(g: CompiledGame, s: GameState, player: int, start: BranchStart) -> str | None:  # noqa: C901
    """Why a `simultaneously` part could not be put back as `start` says (``information.resample``
    trusts it): the first frame, the player's own zones holding exactly the cards they hold now
    (a part moves its player's cards among their own zones only), and the cards' vars, cells
    and knowledge, the supply and the `once` marks in the state's own shapes."""
    f, players, n_cards = start.frame, s.num_players, len(g.card_names)
    if not (isinstance(f, Frame) and f.code in g.codes and f.pc == 0 and isinstance(f.locals, dict)
            and all(isinstance(k, str) and value_problem(v) is None for k, v in f.locals.items())):
        return "its first frame"
    own = str(player)
    if not isinstance(start.zones, dict) or any(
            key not in s.zones or key.rpartition("#")[2] != own or not isinstance(cards, list)
            or not all(type(c) is int and 0 <= c < n_cards for c in cards) for key, cards in start.zones.items()):
        return "its zones"
    then = sorted(c for cards in start.zones.values() for c in cards)
    mine = {k for k in s.zones if "#" in k and k.rpartition("#")[2] == own}
    now = sorted(c for key in mine for c in s.zones[key])
    if then != now or set(start.zones) != mine:
        return "its zones hold other cards than the player's zones"
    held = {str(c) for c in then}
    for key, value in start.vars.items():
        if not (_var_key_ok(g, key, players) and "@" in key and key.rpartition("@")[2] in held) or value_problem(value):
            return "its cards' vars"
    for key, cell in start.cells.items():
        if key not in held or not (isinstance(cell, list) and len(cell) == 3
                                   and all(type(x) is int and abs(x) <= MAX_COORDINATE for x in cell[:2])
                                   and cell[2] in ("north", "east", "south", "west")):
            return "its cells"
    for key, mask in start.known.items():
        if key not in held or type(mask) is not int or not 0 <= mask < 1 << players:
            return "its knowledge of cards"
    for key, count in start.supply.items():
        if not (_token_key_ok(g, key, players) and key.startswith("supply|")) or type(count) is not int or count < 0:
            return "its supply"
    if not isinstance(start.once, list) or not all(isinstance(x, str) for x in start.once):
        return "its `once` marks"
    return None
