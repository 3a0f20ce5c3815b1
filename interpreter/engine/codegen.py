"""The code-generating backend: a game's expressions and defines as one generated Python module.

The reference compiler (``compiler.py``) turns every expression into a tree of closures, one
Python call per node. Here every expression an op reads becomes one function of generated Python
source, and every ``define`` one function with a memo, all in one module built with a single
``compile()`` call. Ops stay as they are; only what they evaluate gets faster.

Safety: no rule text becomes source. Identifiers in the generated code are made here from
indices (``_e12``, ``_d3``, ``_v4``, ``_k7``); every string and every other constant a rule
holds lives in the module's namespace and is read by such a name; only ints, bools and None
are written as literals, by ``repr`` of a value whose exact type was checked. So an author's
name, however hostile, can only ever be data. (See docs/limits.md.)

Equivalence: the generated code does the same work in the same order as the reference and
charges the same units through ``Machine.charge``. Helpers below copy the reference's
semantics. On any failure a generated function restores the budget and the define memo as
they were when it started and re-runs the reference closure of the same expression, which
raises the same error at its exact rule position: the slow path is only taken on errors.
A define whose body loops and reads nothing but vars keeps its results past the define memo, which
forgets them whenever the state changes (`CodeGen.define`): used again only for the very same
values read, paying again what the body paid.
"""

from __future__ import annotations

import ast
import operator
import re
import threading
import types
from collections import Counter, _count_elements  # type: ignore[attr-defined] - Counter's own C loop
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any

import attrs

from rulelang import nodes as n
from rulelang import registry
from rulelang.checker import elem_type
from rulelang.diagnostics import RuleRuntimeError

from .budget import (
    MAX_INT,
    MAX_ITEMS,
    MAX_LOG_LINE,
    MAX_TEXT,
    STEPS_PER_CALL,
    charge_text,
    charge_value,
    check_int,
    value_size,
)
from .cache import cache_dir, compile_cached, load_generated, store_generated
from .runtime import _LOG_CHECKED, FUNCTIONS, RULE_FAULTS, draw_cards, ended
from .state import Pending, _copy_value
from .undo import _MISSING

if TYPE_CHECKING:
    from .compiler import _Compiler

Fn = Callable[[Any, dict], Any]

# Types whose values are always hashable (ints, strings, None): a define over them can be memoised.
_HASHABLE = {"int", "bool", "text", "card", "player", "kind", "side", "none", "facing"}
# Types whose values never are: memoising a define over them would only raise and catch.
_UNHASHABLE_PREFIXES = ("list:", "bag:", "enum_list:")
_UNHASHABLE = {"map", "zone", "spot"}


def _hashable(t: str) -> bool | None:
    """True, False, or None when the type does not say."""
    if t in _HASHABLE or t.startswith(("enum:", "choice:")):
        return True
    if t in _UNHASHABLE or t.startswith(_UNHASHABLE_PREFIXES):
        return False
    return None


def _scalar(t: str) -> bool:
    """A type whose values are never lists or dicts (so `==` charges nothing)."""
    return _hashable(t) is True


def _flat(t: str) -> bool:
    """A type of lists or maps that never hold lists or maps: paid for by length alone.

    Zones hold card ids (the state's checks make it so); for the other types this trusts the
    checker's types, so a save whose vars hold values of other types than declared can make the
    generated code pay less than the reference for them (never more)."""
    return t == "zone" or t.startswith("bag:") or (t.startswith("list:") and _scalar(t[5:]))


# ---- helpers the generated code calls: each copies the reference's semantics -----------------


_CONTAINERS = frozenset((list, dict))


class _Missing:
    __slots__ = ()


_MISS = _Missing()
_LIST_OR_MAP = (list, dict)  # (isinstance of a constant pair: no tuple built per call of the helpers below)


class _Lazy:
    """A regular expression compiled when first used: by the generator, which a load from the
    cache never runs (compiling one costs about a millisecond, at every import otherwise)."""

    __slots__ = ("args", "compiled")

    def __init__(self, *args) -> None:
        self.args = args
        self.compiled: re.Pattern | None = None

    def __getattr__(self, name: str):  # (match, search, sub: the compiled expression's own)
        if self.compiled is None:
            self.compiled = re.compile(*self.args)
        return getattr(self.compiled, name)


# The helpers below pay with the budget written out in place (``Machine.charge`` does the same
# and raises when the budget is spent): they run hundreds of thousands of times per game.

def _items(m, v):
    """A value's items as a new list, paid for by their number (``_iter``, copied)."""
    return list(_iter(m, v))


def _items_paid_flat(m, v):
    """`_items(m, _paid_flat(m, v))` in one call: the same two charges, the same items."""
    return list(_iter_paid_flat(m, v))


def _size(x) -> int:
    """What `charge_value` charges for a list or map (its items, nested ones too), refusing one
    too big as it does; lists of plain items, lists of such lists and lists of those (three
    levels: far inside MAX_VALUE_DEPTH) without a walk."""
    total = len(x)
    for v in (x.values() if x.__class__ is dict else x):
        if v.__class__ in _CONTAINERS:
            items = v.values() if v.__class__ is dict else v
            if not _CONTAINERS.isdisjoint(map(type, items)):
                for w in items:  # a third level: counted the same way, if it is the last
                    if w.__class__ in _CONTAINERS:
                        if not _CONTAINERS.isdisjoint(map(type, w.values() if w.__class__ is dict else w)):
                            return value_size(x)
                        total += len(w)
                        if total > MAX_ITEMS:
                            break
            total += len(v)
            if total > MAX_ITEMS:  # stop at once: the items may be one huge list many times over
                break
    if total > MAX_ITEMS:
        raise RuleRuntimeError(f"a value of more than {MAX_ITEMS} items (nested items counted)")
    return total


def _iter(m, v, per=0):
    """A value's items for a comprehension to iterate, paid for by their number: the value
    itself (no copy); nothing for an empty one. `per`: what each item's work pays besides, paid
    here for all of them (see `CodeGen.gen`)."""
    if not v:
        return ()
    b = m.budget
    b.used += len(v) * (1 + per)
    if b.used > b.limit:
        m.charge(0)
    return v


def _iter_paid_flat(m, v, per=0):
    """`_iter(m, _paid_flat(m, v))` in one call: the same two charges, the same items."""
    if v.__class__ is list or isinstance(v, _LIST_OR_MAP):
        n = len(v)
        if n > MAX_ITEMS:
            raise RuleRuntimeError(f"a value of more than {MAX_ITEMS} items")
        b = m.budget
        b.used += (2 + per) * n
        if b.used > b.limit:
            m.charge(0)
        return v
    return _iter(m, v, per)


def _iter_range(m, low, high, per=0):
    """`_iter_paid_flat(m, range(low, high))` without the list: the same checks and charges
    (`range` refuses a long one; its list is paid for, then iterated)."""
    if high - low > MAX_ITEMS:
        raise RuleRuntimeError(f"range({low}, {high}) is too long")
    n = high - low + 1
    if n > 0:
        if n > MAX_ITEMS:
            raise RuleRuntimeError(f"a value of more than {MAX_ITEMS} items")
        b = m.budget
        b.used += (2 + per) * n
        if b.used > b.limit:
            m.charge(0)
    return range(low, high + 1)


def _add_flat(m, x, y, times=1):
    """`x + y` of two lists of plain items (the types say so), paid for `times` times by its
    length (what `add_values` and then `_paid_flat` come to); anything else as add_values does."""
    if x.__class__ is list and y.__class__ is list:
        n = len(x) + len(y)
        if n > MAX_ITEMS:
            raise RuleRuntimeError("a list grew too long")
        b = m.budget
        b.used += times * n
        if b.used > b.limit:
            m.charge(0)
        return x + y
    from .compiler import add_values  # the reference's `+` (compiler.py imports this module)

    return _flat_paid(m, add_values(m, x, y, None), times - 1)


def _add_built(m, x, y, times=1):
    """`_add_flat(m, _charged_flat(m, x), _charged_flat(m, y), times)` in one call, for two lists
    just built: each paid for by its length, then the joined list `times` times over."""
    if x.__class__ is list and y.__class__ is list:
        nx, ny = len(x), len(y)
        if nx > MAX_ITEMS or ny > MAX_ITEMS or nx + ny > MAX_ITEMS:
            return _add_flat(m, _paid_flat(m, x), _paid_flat(m, y), times)  # refused there, as before
        b = m.budget
        b.used += nx + ny + times * (nx + ny)
        if b.used > b.limit:
            m.charge(0)
        return x + y
    return _add_flat(m, _paid_flat(m, x), _paid_flat(m, y), times)


def _extreme_built(pick, flat):
    """`flat(m, _add_built(m, x, y))` in one call (`pick`: min or max, `flat`: _min_flat or
    _max_flat): the same charges, the same answer."""

    def fused(m, x, y):
        if x.__class__ is list and y.__class__ is list and len(x) + len(y) <= MAX_ITEMS:
            n = len(x) + len(y)
            b = m.budget
            b.used += 3 * n  # each list built, the joined one, and that one given to min() or max()
            if b.used > b.limit:
                m.charge(0)
            return pick(x + y) if n else 0
        return flat(m, _add_built(m, x, y))

    return fused


def _built_else(x):
    """min() or max() of a joined list written in place in a define's body (see `CodeGen.call`)
    when it is empty (0, as `_max_built` gives) or too long (refused: the slow path reports it)."""
    if x:
        raise RuleRuntimeError(f"a value of more than {MAX_ITEMS} items")
    return 0


class _Unusual(Exception):  # noqa: N818 - a signal, not an error
    """A choice written out (``CodeGen.pick``) met what only the op itself does (nothing to choose from)."""


def _too_many():
    """A range written in place in a define's body (see `CodeGen.first_of`) that is too long:
    refused (the slow path reports it as the reference does)."""
    raise RuleRuntimeError(f"a value of more than {MAX_ITEMS} items")


def _unhoisted():
    """A read hoisted out of a define's loops found nothing (see `CodeGen.hoisted`)."""
    raise RuleRuntimeError("a player's var or zone read for a value that is no player")


def _over():
    """A define's body whose tally (see `_loop_tally`) shows the budget spent: the reference,
    re-run, fails at the rule where it runs out."""
    raise RuleRuntimeError("the budget ran out")


def _paid_call(m):
    """What a call of a define costs when its result is remembered; always true."""
    b = m.budget
    b.used += STEPS_PER_CALL
    if b.used > b.limit:
        m.charge(0)
    return True


def _charged(m, out, times=1):
    """A list or map just built: paid for by its items (nested ones too), `times` times."""
    if not out:  # nothing to pay for (most lists built by some games' conditions are empty)
        return out
    b = m.budget
    b.used += times * _size(out)
    if b.used > b.limit:
        m.charge(0)
    return out


def _charged_lists(m, out, times=1):
    """A list just built whose items the types say are flat lists or bags (of numbers, cards,
    names): paid for by its items as `_charged` pays, `times` times, their lengths summed in
    one go rather than by `_size`'s walk (which still counts any other list, a none among them)."""
    if not out:
        return out
    if _CONTAINERS.issuperset(map(type, out)):
        n = len(out) + sum(map(len, out))
        if n > MAX_ITEMS:
            raise RuleRuntimeError(f"a value of more than {MAX_ITEMS} items (nested items counted)")
    else:
        n = _size(out)
    b = m.budget
    b.used += times * n
    if b.used > b.limit:
        m.charge(0)
    return out


def _charged_paid(m, out):
    """`_paid(m, _charged(m, out))`: a list built and given to a built-in, paid for twice
    (`_charged`'s body, written out: a call fewer on a path of many defines' loops)."""
    if not out:
        return out
    b = m.budget
    b.used += 2 * _size(out)
    if b.used > b.limit:
        m.charge(0)
    return out


def _flatten_lists(m, parts, built=0):
    """`_paid_lists(m, flatten(m, _charged_paid(m, parts)))` of a list just built whose items the
    types say are lists of flat lists or bags (`flatten([xs, ys])`): the parts joined, paid for in
    one payment of what those three charge (the list built and given to flatten(), twice its
    items with theirs and their items'; the result, once its items with theirs), without
    `_size`'s walk. `built` 1: every part is a list just built and not yet paid for either
    (`_charged_lists` of each, its items with theirs, once: `CodeGen.flattened`), paid in the
    same payment. Anything else (a part that is not a list, an item that is not a list or a
    bag, a list too long) goes those calls' way, which raise what they raise."""
    out = []
    for part in parts:
        if part.__class__ is not list:
            break
        out += part
    else:
        if not out:  # (no items: nothing to count, the list of parts paid for alone)
            b = m.budget
            b.used += 2 * len(parts)
            if b.used > b.limit:
                m.charge(0)
            return out
        size = len(out) + sum(map(len, out)) if _CONTAINERS.issuperset(map(type, out)) else MAX_ITEMS + 1
        if size <= MAX_ITEMS:
            b = m.budget
            b.used += 2 * len(parts) + (3 + built) * size
            if b.used > b.limit:
                m.charge(0)
            return out
    if built:
        parts = [_charged_lists(m, part) for part in parts]
    return _paid_lists(m, FUNCTIONS["flatten"](m, _charged_paid(m, parts)))


def _token_sum(tokens: dict, keys: tuple) -> int:
    """How many of a token of several sides a holder has (``CodeGen.token_read``): each side's
    count, in the order of its sides, as ``Machine.token_count`` adds them."""
    total = 0
    for key in keys:
        total += tokens.get(key, 0)
    return total


def _paid(m, x):
    """An argument given to a built-in: a list or a map is paid for by its items."""
    if x.__class__ is list or isinstance(x, _LIST_OR_MAP):
        b = m.budget
        b.used += _size(x)
        if b.used > b.limit:
            m.charge(0)
    return x


def _paid_lists(m, x):
    """`_paid(m, x)` of a value whose type says it is a list of flat lists or bags (a built-in's
    result): for a list of such, what `_size` comes to, their lengths summed in one go
    (`_charged_lists`); anything else as `_paid` pays it."""
    if x.__class__ is not list:
        return _paid(m, x)
    return _charged_lists(m, x)  # (paid once: its `times` is 1)


def _paid_flat(m, x):
    """A value whose type says it holds no lists or maps (a zone, a list of numbers or cards, a
    bag): paid for by its length without walking it, which is what `charge_value` comes to for
    such a value."""
    if x.__class__ is list or isinstance(x, _LIST_OR_MAP):
        n = len(x)
        if n > MAX_ITEMS:
            raise RuleRuntimeError(f"a value of more than {MAX_ITEMS} items")
        b = m.budget
        b.used += n
        if b.used > b.limit:
            m.charge(0)
    return x


_charged_flat = _paid_flat  # a list of numbers, cards, players or members just built


# Fused forms of the most used built-ins: the reference's charging around the call, and the call.

def _count(m, x, pay=_paid):
    if x.__class__ is list and not x:  # an empty list: nothing to pay for (most, in some games)
        return 0
    return len(pay(m, x)) if x is not None else 0


def _sum(m, x, pay=_paid):
    return check_int(sum(v for v in pay(m, x) if v is not None))


def _bag(m, x, pay=_paid):
    # `bag(have)[e]` inside a define over each `e` counts the same list again and again: the
    # counts are remembered, for the op, by the list's identity (values never change in place;
    # the entry keeps the list, so its id is not reused while remembered). Paid for every time.
    if x.__class__ is list and not x:  # no items: nothing to pay for, nothing to count
        return {}
    key = id(x)  # a number: no define's key (a tuple) is ever equal to it
    memo = m.memo
    known = memo.get(key)
    if known is not None and known[0] is x:
        if pay is _paid_flat and x.__class__ is list:  # its length, paid in place
            b = m.budget
            b.used += len(x) + len(known[1])
            if b.used > b.limit:
                m.charge(0)
            return known[1]
        pay(m, x)
        b = m.budget
        b.used += len(known[1])
        if b.used > b.limit:
            m.charge(0)
        return known[1]
    out: dict = {}
    _count_elements(out, pay(m, x))
    b = m.budget  # counts of items already paid for: flat and no bigger (charge_value's sum)
    b.used += len(out)
    if b.used > b.limit:
        m.charge(0)
    memo[key] = (x, out)
    return out


def _bag_flat(m, x):
    """`_bag(m, x, _paid_flat)` (a list of plain items, most often), with the list's own path first."""
    if x.__class__ is not list:
        return _bag(m, x, _paid_flat)
    if not x:  # no items: nothing to pay for, nothing to count
        return {}
    memo = m.memo
    known = memo.get(id(x))
    if known is not None and known[0] is x:
        out = known[1]
    else:
        if len(x) > MAX_ITEMS:
            raise RuleRuntimeError(f"a value of more than {MAX_ITEMS} items")
        out = {}
        _count_elements(out, x)
        memo[id(x)] = (x, out)  # (see `_bag`)
    b = m.budget  # the list by its length, its counts by theirs, as `_bag` pays
    b.used += len(x) + len(out)
    if b.used > b.limit:
        m.charge(0)
    return out


def _any(m, x, pay=_paid):
    return any(pay(m, x))


def _all(m, x, pay=_paid):
    return all(pay(m, x))


def _flat_paid(m, x, times):
    """`_paid_flat` `times` times over (a flat list just built and paid for is paid for again
    when a built-in is given it)."""
    if x.__class__ is list or isinstance(x, _LIST_OR_MAP):
        n = len(x)
        if n > MAX_ITEMS:
            raise RuleRuntimeError(f"a value of more than {MAX_ITEMS} items")
        b = m.budget
        b.used += times * n
        if b.used > b.limit:
            m.charge(0)
    return x


def _truth_flat(test):
    """any() or all() (`test`) of a flat list, paid for in place (they run in most conditions of
    some games): `test(_flat_paid(m, x, times))` without the call."""

    def fused(m, x, times=1):
        if x.__class__ is list or isinstance(x, _LIST_OR_MAP):
            n = len(x)
            if n > MAX_ITEMS:
                raise RuleRuntimeError(f"a value of more than {MAX_ITEMS} items")
            b = m.budget
            b.used += times * n
            if b.used > b.limit:
                m.charge(0)
        return test(x)

    return fused


_any_flat = _truth_flat(any)
_all_flat = _truth_flat(all)


# any() and all() of a comprehension look at its items one by one and stop at the deciding one
# (the reference's `truth_of_gen`); what each item looked at pays is paid when they stop, in one
# sum (the items pay their own work as they go, so the budget is never far behind).

def _items_until(m, truths, times, stop_at):
    """any() (`stop_at` True) or all() (False) of the items of `truths` (each kept item's
    value), stopping at the first whose truth is `stop_at`; each item looked at pays `times`."""
    n = 0
    found = not stop_at
    for x in truths:
        n += 1
        if (not x) is not stop_at:
            found = stop_at
            break
    if n:
        b = m.budget
        b.used += n * times
        if b.used > b.limit:
            m.charge(0)
    return found


def _any_kept(m, holds):
    """any() of a filter (`holds`: each item's condition): the item that satisfies it pays 1."""
    for x in holds:
        if x:
            b = m.budget
            b.used += 1
            if b.used > b.limit:
                m.charge(0)
            return True
    return False


def _all_kept(m, holds):
    """all() of a filter (`holds`: each item's condition): each item that satisfies it pays 1."""
    n = 0
    found = True
    for x in holds:
        if not x:
            found = False
            break
        n += 1
    if n:
        b = m.budget
        b.used += n
        if b.used > b.limit:
            m.charge(0)
    return found


def _count_flat(m, x, times=1):
    if x.__class__ is list:  # (`_flat_paid`, written out for a list: no second call)
        n = len(x)
        if n > MAX_ITEMS:
            raise RuleRuntimeError(f"a value of more than {MAX_ITEMS} items")
        b = m.budget
        b.used += times * n
        if b.used > b.limit:
            m.charge(0)
        return n
    return len(_flat_paid(m, x, times)) if x is not None else 0


def _count_equal(m, x, v):
    """`count(y in x where y == v)` of flat items (`_count_flat(m, [y for y in _iter(m, x) if
    y == v])`): a list's own count() for a list, its C loop comparing as `==` does; the same
    charges, the items iterated and those kept."""
    if x.__class__ is not list:
        return _count_flat(m, [y for y in _iter(m, x) if y == v])
    n = x.count(v)
    if n > MAX_ITEMS:
        raise RuleRuntimeError(f"a value of more than {MAX_ITEMS} items")
    b = m.budget
    b.used += len(x) + n
    if b.used > b.limit:
        m.charge(0)
    return n


def _sum_flat(m, x, times=1):
    if x.__class__ is list:  # (`_flat_paid` and `check_int`, written out for a list)
        n = len(x)
        if n > MAX_ITEMS:
            raise RuleRuntimeError(f"a value of more than {MAX_ITEMS} items")
        b = m.budget
        b.used += times * n
        if b.used > b.limit:
            m.charge(0)
        try:
            total = sum(x)  # numbers, without a generator
        except TypeError:  # a none among them (or worse): as the reference, nones left out
            return check_int(sum(v for v in x if v is not None))
        return total if total.__class__ is int and -MAX_INT <= total <= MAX_INT else check_int(total)
    xs = _flat_paid(m, x, times)
    try:
        return check_int(sum(xs))
    except TypeError:
        return check_int(sum(v for v in xs if v is not None))


def _extreme_flat(pick, name):
    """max() or min() (`pick`, the built-in `name`) of a flat list: `_flat_paid` in place for a
    list, the built-in's own implementation for anything else."""

    def fused(m, x, times=1):
        if x.__class__ is list:  # `_flat_paid`, in place
            n = len(x)
            if n > MAX_ITEMS:
                raise RuleRuntimeError(f"a value of more than {MAX_ITEMS} items")
            b = m.budget
            b.used += times * n
            if b.used > b.limit:
                m.charge(0)
            return pick(x) if x else 0
        return FUNCTIONS[name](m, _flat_paid(m, x, times))

    return fused


_max_flat = _extreme_flat(max, "max")
_min_flat = _extreme_flat(min, "min")
_max_built = _extreme_built(max, _max_flat)
_min_built = _extreme_built(min, _min_flat)


# Built-in names whose values change as the game goes (read from the state, not kept).
_STATE_NAMES = frozenset(("players", "player_count", "active_player", "round_number", "turn_number", "box"))
# Built-in functions whose answer and charges depend only on their arguments (and the game's
# cards, which never change): a define calling only these may keep its results past the memo's
# forgetting (see `define`), and a pure define may keep them for the game (see MAX_PURE_KEPT).
_ARGUMENT_FUNCTIONS = frozenset((
    "count", "sum", "max", "min", "any", "all", "abs", "rank_high", "rank_low", "rank_dense", "first",
    "last", "reversed", "distinct", "flatten", "range", "lookup", "take", "index_of", "bag", "size",
    "shortfall", "cards", "card_named", "cards_named"))
# Built-in functions whose answer and charges depend on their arguments and the number of players:
# a pure define, whose kept results are keyed by the number of players too, may call them.
_SEAT_FUNCTIONS = frozenset(("players_from", "next_player", "previous_player", "others"))
# Generated source reading the state, calling a define or the reference: never in a kept body.
def _zone_free_result(body, t: str) -> bool:
    """Whether a define's result can never be a zone's own list (which changes in place as
    cards move, so a result kept past the memo must not be one): a plain value, or a list made
    anew (`[...]`, a comprehension). Then the body may read zones and still keep its results,
    checked against the cards the zones held (see `CodeGen.define`)."""
    return _scalar(t) or isinstance(body, (n.Gen, n.ListLit))


_UNKEPT = re.compile(r"m\.s\.|m\.token_count|_refs|\bL\[|\b_d\d+\(|_no_value")
# How many define results a game keeps at most (see `define`): past it, they are forgotten. Each
# entry holds the values its body read and its result, lists of at most KEPT_ITEMS items each.
KEPT_MAX = 10_000
KEPT_ITEMS = 256
_CARD_KEY_TABLE = 2_000  # the most cards for which a var of cards has a table of its keys (`CodeGen.key`)

_FUSED_1 = {"count": "_count", "sum": "_sum", "bag": "_bag", "any": "_any", "all": "_all"}
_FUSED_FLAT = {"count": "_count_flat", "sum": "_sum_flat", "any": "_any_flat", "all": "_all_flat",
               "max": "_max_flat", "min": "_min_flat"}


def _mul(x, y):
    if not (isinstance(x, int) and isinstance(y, int)):
        raise RuleRuntimeError("`*` multiplies numbers")
    return check_int(x * y)


def _div(x, y):
    if y == 0:
        raise RuleRuntimeError("division by zero")
    return x // y


def _mod(x, y):
    if y == 0:
        raise RuleRuntimeError("division by zero")
    return x % y


def _eq(m, x, y):
    if isinstance(x, _LIST_OR_MAP):
        charge_value(m, x)
    return x == y


def _in(m, x, y):
    y = y or ()
    if isinstance(y, _LIST_OR_MAP):
        charge_value(m, y)
    return x in y


def _in_flat(m, x, y):
    """`in` a zone, a list of numbers, cards or players, or a bag: paid for by its length."""
    if not y:
        return x in ()  # an empty list or bag, or none: nothing to pay for
    if y.__class__ is list or isinstance(y, _LIST_OR_MAP):
        n = len(y)
        if n > MAX_ITEMS:
            raise RuleRuntimeError(f"a value of more than {MAX_ITEMS} items")
        b = m.budget
        b.used += n
        if b.used > b.limit:
            m.charge(0)
    return x in y


def _count_in_lists(m, xs, x, times):
    """`count(s for s in xs where x in s)` of a list of flat lists, in one call: what `_iter`
    pays for `xs`, `_in_flat` for each item and `_charged_lists` (`times` times) for the list of
    the items kept, paid at once when the loop ends (an overrun raises there, and the slow path
    reports it where the reference does). Items that are not lists (a none) or too long go the
    helpers' way, item by item, as before: nothing is paid here until the end."""
    if not xs:  # (most often: nothing to pay for, no list made)
        return 0
    if xs.__class__ is list:
        paid = len(xs)
        n = kept = 0
        for s in xs:
            if s.__class__ is list:
                k = len(s)
                if k > MAX_ITEMS:
                    break
                paid += k
                if x in s:
                    n += 1
                    kept += k
            elif s:
                break
        else:
            if n + kept <= MAX_ITEMS:
                b = m.budget
                b.used += paid + times * (n + kept)
                if b.used > b.limit:
                    m.charge(0)
                return n
    return len(_charged_lists(m, [s for s in _iter(m, xs) if _in_flat(m, x, s)], times))


def _ordered(m, x, y, cmp):
    """`<` and the like on values that may be lists: none refused, lists paid for."""
    if x is None or y is None:
        raise RuleRuntimeError("cannot compare none")
    if isinstance(x, _LIST_OR_MAP):
        charge_value(m, x)
    return cmp(x, y)


_ORDER = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


def _is(m, c, kind):
    return c is not None and m.game.card_kinds[c] == kind


def _nth_card(m, v, i):
    """`[c for c in z][i]` of a zone's cards `v`: what making that list pays (each card iterated,
    then the list made: 2 units a card, `_iter` and `_charged_flat`), and its card at `i`."""
    if v:
        if len(v) > MAX_ITEMS:
            raise RuleRuntimeError(f"a value of more than {MAX_ITEMS} items")
        b = m.budget
        b.used += 2 * len(v)
        if b.used > b.limit:
            m.charge(0)
    return v[i]


def _nth_field(m, v, i, values):
    """`[c.field for c in z][i]`: as `_nth_card`, then that card's field, from the list of every
    card's value of it (`CodeGen.card_field`), as the list's items read it. (`_nth_card`'s lines
    written out rather than called: some 500 calls a playout in a game that reads cards' fields by
    position, where a call costs more than these lines.)"""
    if v:
        if len(v) > MAX_ITEMS:
            raise RuleRuntimeError(f"a value of more than {MAX_ITEMS} items")
        b = m.budget
        b.used += 2 * len(v)
        if b.used > b.limit:
            m.charge(0)
    return values[v[i]]


def _index(o, i, is_bag):
    if isinstance(o, dict):
        return o.get(i, 0) if is_bag else o.get(i)
    return o[i]


# A define whose result depends on nothing but its arguments and what a game never changes (its
# constants, options, cards' printed values and number of players): "pure" (``CodeGen.pure``).
# Its results are kept for the whole game, past the memo that forgets them, with what
# working each out paid: a call found there pays that again (and STEPS_PER_CALL, as any call),
# so the budget pays what working it out again would pay, and an overrun raises in the same op
# (where the slow path reports it at the rule, as for any error). Only plain results are kept
# (numbers, texts, truths, none: nothing another op could hold and change), at most
# MAX_PURE_KEPT per game.
#
# A pure define may call other pure defines (`CodeGen.pure_callee`). What such a call pays
# depends on the memo (a result remembered there pays STEPS_PER_CALL only), so the kept
# entry holds what the body paid besides those calls, and the calls themselves (their memo keys
# and their own entries' keys), in the order the body made them: a kept result pays its own
# part, then each call as it would be made again, remembering each result in the memo as the
# call would (`_replay`). While a pure define is worked out, the calls it makes of other pure
# defines are noted on its machine (`Machine.calls`), each with what it paid.
MAX_PURE_KEPT = 10_000
_PLAIN_RESULTS = frozenset((int, str, bool, type(None)))


def _keep_pure(kept: dict, key: tuple, result, paid: int, calls: list | None = None) -> None:
    """Keep a pure define's result (see MAX_PURE_KEPT) with what working it out paid: besides
    the calls of pure defines it made (``calls``: memo key, kept key, what each paid), which
    are kept to be made again; not when one of those has no kept result to make it from."""
    if result.__class__ in _PLAIN_RESULTS and len(kept) < MAX_PURE_KEPT:
        if not calls:  # (and what a call pays with it: a define's function pays both at once)
            kept[key] = (result, paid, (), paid + STEPS_PER_CALL)
            return
        # (and, when none of the calls made calls of its own, each call's key, result and what
        # it pays when the memo lacks it: the replay written in place, see `CodeGen.define`;
        # all in one loop, no generators: a pure define kept is most of some games' calls)
        made = []
        flat: list | None = []
        for call in calls:
            entry = kept.get(call[1], _MISS)
            if entry is _MISS:
                return
            paid -= call[2]
            made.append((call[0], call[1]))
            if flat is not None:
                flat = None if entry[2] else flat
                if flat is not None:
                    flat.append((call[0], entry[0], entry[3]))
        kept[key] = (result, paid, tuple(made), paid + STEPS_PER_CALL, tuple(flat) if flat is not None else None)


def _replay(b, memo: dict, calls: tuple, kept: dict) -> None:
    """The calls of pure defines a kept pure define's body made, made again: each pays a call,
    and, when the memo does not hold its result, what its own kept entry says, remembered there
    as the call would (see MAX_PURE_KEPT). The budget is checked by the caller, after."""
    for key, whole in calls:
        b.used += STEPS_PER_CALL
        if key not in memo:
            entry = kept[whole]
            memo[key] = entry[0]
            b.used += entry[1]
            if entry[2]:
                _replay(b, memo, entry[2], kept)


# A define's any() or all() over a constant list (an enum's members, a `const`) whose item's
# condition begins with a call of a kept pure define (`p(c, t) and ...`), the rest paying
# nothing: once every item's call has a kept result with calls of its own that made none
# (`_keep_pure`'s `flat`), the calls of the loop's items are a "chain", kept per call site,
# number of players and the call's other arguments. Its truths decide the loop without a call,
# and what the calls of the items looked at pay and remember is one payment and one update of
# the memo (`_chain_paid`): when the memo holds none of those calls' own results and either all
# or none of the results of the calls they make (the common cases; anything else: the loop
# makes its calls). The same units, the same results remembered, in the same order.
MAX_CHAIN_ITEMS = 16


def _chain_note(m, chains: dict, kept: dict, site: str, others: tuple, items, callee: str, shape: tuple) -> None:
    """After a loop made its calls (see above): the chain of call site `site` for these `others`
    (the call's arguments but the item), when every item's call has a kept result. `shape`: per
    argument of the call, the index of its value in `others`, or -1 for the item."""
    players = m.s.num_players
    whole = (players, site, *others)
    if whole in chains or len(items) > MAX_CHAIN_ITEMS:
        return
    keys = [(callee, *[item if j < 0 else others[j] for j in shape]) for item in items]
    own = set(keys)
    if len(own) != len(keys):
        return  # (an item twice: its second call finds the first's result)
    results = []
    entries: dict = {}
    new = present = 0
    prefixes: list = [None]
    for key in keys:
        entry = kept.get((players, key))
        if entry is None or entry[0].__class__ not in _PLAIN_RESULTS:
            return
        flat = entry[4] if entry[2] else ()
        if flat is None:
            return  # (calls that made calls of their own)
        results.append(entry[0])
        entries[key] = entry[0]
        new += entry[3]
        present += entry[3]
        for call_key, call_result, call_paid in flat:
            if call_key in own:
                return
            if call_key in entries:
                new += STEPS_PER_CALL
            else:
                entries[call_key] = call_result
                new += call_paid
            present += STEPS_PER_CALL
        made = [k for k in entries if k not in own]
        prefixes.append((frozenset(keys[:len(results)]), frozenset(made), dict(entries), new, present))
    if len(chains) >= KEPT_MAX:
        chains.clear()
    chains[whole] = (tuple(results), prefixes)


def _chain_paid(m, chain: tuple, looked: int) -> bool:
    """What the calls of the first `looked` items of a chain pay, paid, and their results (and
    those of the calls they make) remembered, as the calls would: False, with nothing paid or
    remembered, when the memo holds some of those calls' results, or some but not all of what
    they call (see above)."""
    if not looked:
        return True
    own, made, entries, new, present = chain[1][looked]
    memo = m.memo
    held = memo.keys()
    if not held.isdisjoint(own):
        return False
    if held >= made:
        paid = present
    elif held.isdisjoint(made):
        paid = new
    else:
        return False
    memo.update(entries)  # (what the memo held already, the same value again, where it was)
    b = m.budget
    b.used += paid
    if b.used > b.limit:
        m.charge(0)
    return True


def _paid_text(m, text):
    """`charge_text(m, text)` in one call (a text is made at most steps: a label, a prompt, a
    log line): the same charge, the same cut, an overrun raised the same way."""
    b = m.budget
    n = len(text)
    b.used += n
    if b.used > b.limit:
        b.charge(0)
    return text if n <= MAX_TEXT else text[:MAX_TEXT] + "..."


def _paid_texts(m, texts, times=1):
    """`[charge_text(m, t) for t in texts]` with one payment for all of them (the labels of a
    choice; `times` 2: with the op's own payment for them, see ``_PickOp``): the same total,
    and an overrun still raises in the op, where the choice's slow path (item by item,
    ``_PickOp``) reports it as it always did."""
    b = m.budget
    total = sum(map(len, texts))
    b.used += total * times
    if b.used > b.limit:
        b.charge(0)
    if total > MAX_TEXT and max(map(len, texts)) > MAX_TEXT:  # (no text is longer than all of them)
        for i, text in enumerate(texts):
            if len(text) > MAX_TEXT:
                texts[i] = text[:MAX_TEXT] + "..."
    return texts


def _text(m, v, show):
    if isinstance(v, _LIST_OR_MAP):
        charge_value(m, v)
        return charge_text(m, show(m, v))
    return show(m, v)


def _no_value():
    raise RuleRuntimeError("a name has no value here")


def _hold_player(v):
    if v is None:
        raise RuleRuntimeError("no player here to hold tokens")
    return f"p{v}"


def _hold_card(v):
    if v is None:
        raise RuleRuntimeError("no card here to hold tokens")
    return f"c{v}"


def _hold_member(v):
    return f"m:{v}"


def _hold_any(v):
    return "supply" if v == "supply" else str(v)


def _one_card(c):
    if c is None:
        raise RuleRuntimeError("no card to move")
    return [c]


def _card_list(v):
    return list(v or ())


_HELPERS = {name: value for name, value in globals().items()
            if name.startswith("_") and callable(value) and name not in ("_hashable", "_scalar", "_Missing")}


# ---- the generator ------------------------------------------------------------------------


class CodeGen:
    """Collects the expressions one compile needs, then builds them as one module.

    ``function(kind, e, ref)`` returns a function object at once (its code is a placeholder)
    so ops can hold it; ``finish()`` compiles the module and gives each its real code.
    """

    def __init__(self, compiler: _Compiler, cache: bool = True, key: str | None = None):
        self.c = compiler
        self.cache = cache
        self.cache_key = key if cache else None  # what the source is a function of (cache.py's *generated*)
        self.p = compiler.p
        self.ns: dict[str, Any] = dict(_HELPERS)
        self.ns["_FAULTS"] = (RuleRuntimeError, *RULE_FAULTS)
        self.ns["_PICK_FAULTS"] = (_Unusual, RuleRuntimeError, *RULE_FAULTS)
        self.ns.update(_new=object.__new__, _Pending=Pending)  # (a decision parked by `pick`)
        self.ns["_MISS"] = _MISS
        self.ns["_pure"] = {}  # the kept results of pure defines (see MAX_PURE_KEPT)
        self.ns["_chains"] = {}  # chains of calls of pure defines in loops (see MAX_CHAIN_ITEMS)
        self.chain_sites = 0
        self.known_pure: dict[int, bool] = {}
        self.known_pure_callee: dict[str, bool] = {}
        self.ns["_STEPS_PER_CALL"] = STEPS_PER_CALL
        self.ns["_MAX_INT"] = MAX_INT
        self.ns["_KEPT"] = {}  # results of defines kept past the memo's forgetting (see `define`)
        self.ns["_KEPT_MAX"] = KEPT_MAX
        self.ns.update(charge_text=charge_text, charge_value=charge_value, check_int=check_int)
        from . import compiler  # the reference's own `+` and `-` (compiler imports this module)

        self.ns.update(add_values=compiler.add_values, subtract_values=compiler.subtract_values,
                       _disambiguate=compiler._disambiguate)
        self.refs: list[Fn] = []
        self.slow_calls = [0]  # how often the slow path ran (tests: never in a game without errors)
        self.ns["_slow"] = self._slow_path(self.refs, self.slow_calls)
        self.ns["_slow_calls"] = self.slow_calls  # (a choice written out, done by its op: `pick`)
        self.ns["_refs"] = self.refs
        self.const_names: dict[Any, str] = {}
        self.seat_keys: dict[str, str] = {}  # a player var's or zone's prefix -> its table of keys
        self.seat_names: str | None = None  # the table of the seats' names (`text`)
        self.argument_names: set[str] = set()  # names inlined defines' arguments are worked out into
        # The cards' values (given by the compiler once it has made them) and what `bound` learnt
        self.card_attrs: list[dict] | None = None
        # (the same lists, by name in the namespace: `_card_attrs[c]` rather than
        # `m.game.card_attrs[c]`, two attribute reads fewer for each card read; see `given_cards`)
        self.ns.update(_card_names=[], _card_kinds=[], _card_attrs=[])
        self.card_fields: dict[tuple[str, Any], str] = {}  # (field, default) -> its list's name (`card_field`)
        self.define_bounds: dict[str, int | None] = {}
        self.field_bounds: dict[tuple, int | None] = {}  # (field, in a map) or ("$items", field)
        self.define_names: dict[str, str] = {}
        self.define_functions: dict[str, str] = {}  # the reverse: a define's function -> its name
        self.remembering: set[str] = set()  # defines whose function only remembers results in the define memo
        self.worked_first: set[str] = set()  # those of them whose body is worked out before the memo is looked up
        # Defines of the tallying form whose function has a twin that leaves its budget check to
        # its caller (see `unchecked_calls`): function -> the twin's source, "" once it is made
        self.unchecked: dict[str, str] = {}
        self.functions: list[tuple[types.FunctionType, str, int]] = []  # (function, its body's name, index)
        self.bodies: dict[str, str] = {}  # a function's code -> the name of the body generated for it
        self.run_bodies: dict[str, tuple[str, list[str]]] | None = None  # see `run_body`
        self.run_bodies_scanned = 0  # the sources `run_body` has looked at
        self.filters: list[types.FunctionType] = []
        self.picks: list[types.FunctionType] = []  # choices of items (`pick`)
        self._source: list[str] = []
        self.ranges: dict[str, tuple[str, str]] = {}  # ranges written in place (`first_of`): name -> bounds
        self.fresh = 0
        self.in_iterable = 0  # generating the iterable of a comprehension (no `:=` there)
        self.in_loop = 0  # generating the condition or item of a comprehension
        self.in_place_depth = 0  # defines' bodies being written in place of their calls (`in_place`)
        # nodes of a define's body worked out by statements before it (`spine`): (node, scope) ids -> name
        self.stmt_values: dict[tuple[int, int], str] = {}
        self.stmt_scopes: list[dict] = []  # (the scopes those ids are of, kept alive while they are used)
        # Lists written out item by item (`unrolled`, `written_out`): their source -> how many items,
        # so that `tallied_sum` knows their length even when an item holds a comprehension
        self.written_lists: dict[str, int] = {}
        self.hoists: dict[str, str] | None = None  # reads looked up before a define's body
        self.hoist_lines: list[str] = []
        # The calls of defines made so far in the define's body being generated, by their define
        # and arguments (a comprehension's variable by what it goes over: see `call`)
        self.calls_made: set[tuple] | None = None
        self.loop_of: dict[str, str] = {}  # a comprehension's variable -> the source it goes over
        self.keeping: dict | None = None  # while a define that may keep its results is generated
        # What the walks below learn of a node, by its id (the checked tree outlives this compile and
        # no node is made during it; each is asked about many times, from every enclosing node)
        self.known_by_reference: dict[int, bool] = {}
        self.known_reads_zones: dict[int, bool] = {}
        self.known_free: dict[int, bool] = {}
        self.known_size: dict[int, int] = {}  # see `size_of`
        self.known_unrepeated: dict[str, bool] = {}  # define -> whether `unrepeated`
        self.define_sites: dict[str, list] | None = None  # see `_define_sites`
        self.define_uses: Counter[str] = Counter()  # define -> the names the checker resolved to it
        self.call_sites: dict[str, list] | None = None  # see `_call_sites`
        self.known_param_bounds: dict[str, list[int | None]] = {}  # see `param_bounds`
        self.known_local_bounds: dict[int, dict[str, int]] = {}  # see `local_bounds`
        # Replay: a warm load does not generate the module again. The compiler still makes every
        # op (and each reference closure at its first call: `_LazyReference`); here each function
        # gets the code of its body by index, the plain constants come from the cache, and every
        # other constant is made again, at the same point of the compile, by the recipe recorded
        # for it (see `made`).
        self.slot: tuple = ()  # the entry being generated: ("fn", i) or ("filter", j)
        self.roots: list[tuple[str | None, Any]] = []  # (define or None, node): where references lie
        self.recipes: dict[tuple, list[tuple[str | None, tuple]]] = {}
        self.replayable = True  # no constant met that a recipe cannot make again
        # The values a load works out from the card tables and the vars' initial values (see
        # `compile_program`): kept with the module and given back by a replay (`load_values`),
        # since they are a function of the same files and options
        self.load_values: tuple | None = None
        self.replay = load_generated(self.cache_key) if self.cache_key else None
        if self.replay is not None:
            _code, self.body_names, data, self.recipes, source, self.load_values = self.replay
            self.ns.update(data)
            self._source = list(source)
        # Without the on-disk cache (a cold load: nothing kept for the next one) an expression's
        # body is generated when its function is first called, or when a run writes it in place
        # (`generate_deferred`), not at load: generating was a third of a cold load, and a game
        # calls about half of its functions in a whole playout. With the cache the module is
        # generated whole, once, and kept.
        self.lazy = self.replay is None and (not cache or cache_dir() is None)
        self.deferred: dict[int, tuple[str, Any]] = {}  # index -> (kind, node) of a body not generated yet
        # The filters and choices (`filter`, `pick`) whose source is not generated yet: their
        # function's name -> what generates it (a fifth of a cold load of a game whose choices'
        # conditions call many defines: those defines are generated with them)
        self.deferred_named: dict[str, Callable[[], None]] = {}
        self.generating = threading.RLock()  # (two threads playing one game may first call one function)
        self.on_call: Callable[[], None] | None = None  # `_compile_on_call`'s: takes in new sources

    @property
    def source(self) -> list[str]:
        """The module's source, one entry per function, every body generated (those deferred too)."""
        for i in list(self.deferred):
            self.generate_deferred(i)
        for name in list(self.deferred_named):
            self.generate_named(name)
        return self._source

    @staticmethod
    def _slow_path(refs: list[Fn], calls: list[int]):
        def slow(i, m, L, used, memo_size):
            """Undo the failed attempt's charges and memo entries; the reference raises at the rule."""
            calls[0] += 1
            m.budget.used = used
            memo = m.memo
            while len(memo) > memo_size:
                memo.popitem()
            return refs[i](m, L)
        return slow

    # ---- names for values
    def const(self, value: Any) -> str:
        """A name in the namespace for a value (strings, lists, anything a rule holds)."""
        if type(value) in (int, bool) or value is None:
            return repr(value)
        try:
            key = (type(value), value)
            hash(key)
        except TypeError:
            key = ("id", id(value))
        name = self.const_names.get(key)
        if name is None:
            name = self.const_names[key] = f"_k{len(self.const_names)}"
            self.ns[name] = value
        return name

    def var(self) -> str:
        self.fresh += 1
        return f"_v{self.fresh}"

    def type_of(self, e) -> str:
        return self.p.types.get(id(e), "any")

    def given_cards(self, names: list[str], kinds: list[str], attrs_list: list[dict]) -> None:
        """The game's cards, given by the compiler once it has made them: the very lists the
        compiled game holds (`CompiledGame.card_names` ...), which never change after, so the
        generated code reads them by name rather than through `m.game`. A load's generated
        module serves only the game it was made for (its namespace is this CodeGen's own)."""
        self.card_attrs = attrs_list
        self.ns.update(_card_names=names, _card_kinds=kinds, _card_attrs=attrs_list)

    # ---- entry points
    def function(self, kind: str, e, ref: Fn) -> Fn:
        if kind == "zone" and not self.simple_zone(e):
            return ref  # a zone chosen at run time (a list of zones, `discard[c]`): the closure does it
        i = len(self.refs)
        self.refs.append(ref)
        self.slot, self.roots = ("fn", i), [(None, e)]
        local = (self.p.resolved.get(id(e), ("local", e.id))[1] if kind == "expr" and isinstance(e, n.Name)
                 and self.p.resolved.get(id(e), ("local",))[0] == "local" and not self.by_reference(e) else None)
        # `[]`: runs make a new empty list in place of the call (``_StepsGen.value``), as its body does
        empty = kind == "expr" and isinstance(e, n.ListLit) and not e.items and not self.by_reference(e)
        if self.replay is not None:
            self.cook_slot(e)
            fn = types.FunctionType(_placeholder.__code__, self.ns, f"_e{i}")
            self.functions.append((fn, self.body_names[i], i))
            fn.body_name = self.body_names[i]  # type: ignore[attr-defined] - (see `run_body`)
            if local is not None:
                fn.local = local  # type: ignore[attr-defined] - (see below)
            if kind == "expr" and isinstance(e, n.Lit):
                fn.literal = (e.value,)  # type: ignore[attr-defined] - (see below)
            if empty:
                fn.empty_list = True  # type: ignore[attr-defined]
            return fn
        if kind == "expr" and isinstance(e, n.Lit):  # a constant (a menu's label): nothing can fail
            fn = self.emit(i, f"    return {self.const(e.value)}\n")
            # Generated runs use the value in place of the call (``_StepsGen.value``): the same
            # object the function gives (a number, a text, a truth or none)
            fn.literal = (e.value,)  # type: ignore[attr-defined]
            return fn
        if local is not None:
            # A local read alone (a procedure's argument, a turn's player): no budget nor memo to
            # put back; only a missing name goes to the reference, for its error. Ops read it
            # in place, by the name the function holds as `local`, and call it when it is missing.
            fn = self.emit(
                i,
                f"    v = L.get({self.const(local)}, _MISS)\n"
                f"    return _refs[_i](m, L) if v is _MISS else v\n")
            fn.local = local  # type: ignore[attr-defined]
            return fn
        if self.lazy and not empty:
            fn = types.FunctionType(_placeholder.__code__, self.ns, f"_e{i}")
            self.functions.append((fn, "", i))  # (its body's name once generated)
            self.deferred[i] = (kind, e)
            fn.deferred_index = i  # type: ignore[attr-defined] - (see `run_body`)
            return fn
        return self.generate(i, kind, e, empty)

    def generate_deferred(self, i: int) -> str:
        """Generate the body of deferred function `i` (see `lazy`): its name."""
        with self.generating:
            found = self.deferred.pop(i, None)
            if found is not None:
                self.generate(i, *found, False, self.functions[i][0])
                if self.on_call is not None:
                    self.on_call()
            return self.functions[i][1]

    def generate_named(self, name: str) -> None:
        """Generate the source of deferred filter or choice `name` (see `deferred_named`)."""
        with self.generating:
            make = self.deferred_named.pop(name, None)
            if make is not None:
                make()
                if self.on_call is not None:
                    self.on_call()

    def generate(self, i: int, kind: str, e, empty: bool, fn: Fn | None = None) -> Fn:
        """The function of expression `i`, its body generated now (`fn`: the one handed out
        before, when its body was deferred)."""
        self.slot, self.roots = ("fn", i), [(None, e)]
        body = {"expr": self.expr, "text": self.text, "holder": self.holder,
                "zone": self.zone_key, "cards": self.cards}[kind](e, {})
        # Explicit chance: while some zone's order is unknown (chance.py), the reference reads it,
        # fixing only the places read; the generated code reads zones as they lie.
        chance = "    if m.s.unordered:\n        return _refs[_i](m, L)\n" \
            if kind != "zone" and self.reads_zones(e) else ""
        if kind == "expr" and self.free(e):
            # It pays nothing and remembers nothing: there is nothing to put back on a failure.
            fn = self.emit(
                i,
                f"{chance}"
                f"    try:\n"
                f"        return {body}\n"
                f"    except _FAULTS:\n"
                f"        return _slow(_i, m, L, m.budget.used, len(m.memo))\n", fn)
            if empty and body == "[]":
                fn.empty_list = True  # type: ignore[attr-defined]
            return fn
        fn = self.emit(
            i,
            f"{chance}"
            f"    used = m.budget.used\n"
            f"    memo_size = len(m.memo)\n"
            f"    try:\n"
            f"        return {body}\n"
            f"    except _FAULTS:\n"
            f"        return _slow(_i, m, L, used, memo_size)\n", fn)
        if empty and body == "[]":
            fn.empty_list = True  # type: ignore[attr-defined]
        return fn

    def emit(self, i: int, body: str, fn: Fn | None = None) -> Fn:
        """The function for expression `i`, whose code is `body` (which reads its own index as
        `_i`). Expressions with the same code (`p.coins`, `x == y` in many rules; in a large game
        some 40 % of them repeat another) share one generated body, so Python compiles it once; each
        gets its own function object, with its index (for its reference and slow path) as `_i`."""
        name = self.bodies.get(body)
        if name is None:
            name = self.bodies[body] = f"_e{len(self.bodies)}"
            self._source.append(f"def {name}(m, L, _i=None):\n{body}")
        if fn is None:
            fn = types.FunctionType(_placeholder.__code__, self.ns, f"_e{i}")
            self.functions.append((fn, name, i))
        else:  # (a deferred body, see `lazy`: the function handed out at load gets it)
            self.functions[i] = (fn, name, i)
        fn.body_name = name  # type: ignore[attr-defined] - (see `run_body`)
        return fn

    def run_body(self, fn: Any) -> tuple[str, list[str]] | None:
        """What the fast runs write in place of a call of expression function `fn` (see
        `_StepsGen.call`): its body's expression and the names of this module it reads, or None
        when it is not a plain expression (a local read, a constant, anything with more lines).
        The body's fallback to the slow path is left out: in a fast run anything raised has the
        action carried out again by the careful runs. So is the guard of explicit chance: the
        fast runs never run while a zone's order is unknown (api.State._carry_out)."""
        name = getattr(fn, "body_name", None)
        if name is None and getattr(fn, "deferred_index", None) is not None:
            name = self.generate_deferred(fn.deferred_index)  # (a body not generated yet: see `lazy`)
        if name is None:
            return None
        with self.generating:  # (two threads may make runs at once: each sees every body scanned)
            if self.run_bodies is None:
                self.run_bodies = {}
            for src in self._source[self.run_bodies_scanned:]:  # (those generated since, if any)
                found = _INLINABLE.fullmatch(src)
                if found is not None:
                    body = found.group(2)
                    names = sorted({word for word in _WORD.findall(body) if word in self.ns})
                    # (nor a body with a text in it but `''`, such as the box's key: the runs hold
                    # no string literal, tests/test_steps.py)
                    if not _RUN_LOCALS.intersection(_WORD.findall(body)) and not _QUOTES.search(body.replace("''", "")):
                        self.run_bodies[found.group(1)] = (body, names)
            self.run_bodies_scanned = len(self._source)
            return self.run_bodies.get(name)

    def filter(self, cond, var: str, labels: bool = False):
        """The items of a list that meet a choice's `where` (or, with `labels`, the label of each
        item), in one generated function: what `_PickOp` does item by item (the expression worked
        out with `var` set to each item, in order, paid for the same). On any failure it puts the budget and the memo back and
        gives None: the op then goes item by item, and the reference reports the error."""
        i = len(self.filters)
        self.slot, self.roots = ("filter", i), [(None, cond)]
        twice = labels and isinstance(cond, n.Template) and not self.by_reference(cond)
        fn = types.FunctionType(_placeholder.__code__, self.ns, f"_f{i}")
        self.filters.append(fn)
        fn.paid_twice = twice  # type: ignore[attr-defined] - (see `_filter_source`)
        if self.replay is not None:
            self.cook_slot(cond)
        elif self.lazy:  # (generated at its first call, as deferred expressions are: see `lazy`)
            self.deferred_named[f"_f{i}"] = lambda: self._filter_source(i, cond, var, labels, twice)
        else:
            self._filter_source(i, cond, var, labels, twice)
        return fn

    def _filter_source(self, i: int, cond, var: str, labels: bool, twice: bool) -> None:
        """The source of ``filter`` `i`: ``_fI(m, L, items)``."""
        self.slot, self.roots = ("filter", i), [(None, cond)]
        if twice:
            # the labels made, then paid for at once: what each label's charge_text came to and
            # what the op pays for them all after (`paid_twice`: it does not pay again)
            each = f"_paid_texts(m, [{self.template(cond, {var: '_x'})} for _x in items], 2)"
        else:
            body = self.expr(cond, {var: "_x"})
            each = f"[{body} for _x in items]" if labels else f"[_x for _x in items if {body}]"
        chance = "    if m.s.unordered:\n        return None\n" if self.reads_zones(cond) else ""
        # A var, a zone or a local the expression reads is read once, before its items: nothing
        # changes them while it is worked out. (Read when no item would read it, a read that
        # fails fails here, and the op goes item by item, as on any failure.)
        reads: dict[str, str] = {}
        each = _ITEMS_READ.sub(lambda match: reads.setdefault(match.group(0), f"_w{len(reads)}"), each)
        self._source.append(
            f"def _f{i}(m, L, items):\n"
            f"{chance}"
            f"    used = m.budget.used\n"
            f"    memo = m.memo\n"
            f"    memo_size = len(memo)\n"
            f"    try:\n"
            + "".join(f"        {name} = {read}\n" for read, name in reads.items()) +
            f"        return {each}\n"
            f"    except _FAULTS:\n"
            f"        m.budget.used = used\n"
            f"        while len(memo) > memo_size:\n"
            f"            memo.popitem()\n"
            f"        return None\n")

    def pick(self, s: n.Pick, local_chooser: str | None, distinct: bool):
        """A choice of items (``compiler._PickOp``) as one generated function ``_pJ(m, fr, who, ask)``
        (``who`` and ``ask``: the op's functions of its chooser and its prompt):
        what the op's ``__call__`` does on its common way, the items, their filter, their labels,
        the chooser and the prompt worked out in place (no function of their own called, each
        with its own guard), paid for the same, in the same order, and the chooser waited for.
        True when it waited (or, for `may choose` with nothing to choose from, went on after
        it). Anything else (a failure, nothing to choose from, explicit chance
        with some zone's order unknown) puts the budget, the memo and the choice's name back as
        they were and gives False: the op then does it all again from there, its own way, and
        reports what the reference reports. None for a choice without a label (the op's labels
        by the items' type)."""
        if s.label is None:
            return None
        j = len(self.picks)
        self.slot, self.roots = ("pick", j), [(None, s)]
        fn = types.FunctionType(_placeholder.__code__, self.ns, f"_p{j}")
        self.picks.append(fn)
        if self.replay is not None:
            self.cook_slot(s)
        elif self.lazy:  # (generated at its first call, as a filter is)
            self.deferred_named[f"_p{j}"] = lambda: self._pick_source(j, s, local_chooser, distinct)
        else:
            self._pick_source(j, s, local_chooser, distinct)
        return fn

    def _pick_source(self, j: int, s: n.Pick, local_chooser: str | None, distinct: bool) -> None:
        """The source of ``pick`` `j`: ``_pJ(m, fr, who, ask)``."""
        self.slot, self.roots = ("pick", j), [(None, s)]
        var = self.const(s.var)
        lines = ["    L = fr.locals",
                 "    b = m.budget",
                 "    used = b.used",
                 "    memo = m.memo",
                 "    memo_size = len(memo)",
                 "    had = _MISS",
                 "    try:"]
        # (inside the guard, what a helper would pay and refuse is paid and refused in place:
        # a refusal, an overrun, a text to cut, anything unusual is the op's to do, and it
        # does it all again, with the same charges at the same rules)
        source = self.expr(s.source, {})
        flat = _only_argument(source, "_paid_flat")
        if flat is not None:  # (a list of flat items: `_paid_flat` pays its length, then the op again)
            lines += [f"        _t = {flat}",
                      f"        if type(_t) is not list or len(_t) > {MAX_ITEMS}:",
                      "            raise _Unusual",
                      *(["        _t = _t[:]"] if s.cond is None else []),  # (the op's own list; a filter makes one)
                      "        b.used += 2 * len(_t)"]
        else:
            lines += [f"        _t = list({source} or ())",
                      "        b.used += len(_t)"]
        lines += ["        if b.used > b.limit:",
                  "            _over()"]

        hoisted: dict[str, str] = {}

        def each(body: str) -> str:
            # (the reads of the state and the locals made once, before the items: as `filter`)
            reads: dict[str, str] = {}
            body = _ITEMS_READ.sub(lambda match: reads.setdefault(match.group(0), f"_w{len(hoisted) + len(reads)}"), body)
            hoisted.update(reads)
            lines.extend(f"        {name} = {read}" for read, name in reads.items())
            return body
        item = {s.var: "_x"}
        if s.cond is not None:
            kept = each(f"[_x for _x in _t if {self.expr(s.cond, item)}]")
            lines.append(f"        _t = {kept}")
        if s.optional:  # nothing to choose from: none chosen, and on after the choice
            lines += ["        if not _t:",
                      f"            L[{var}] = None",
                      "            fr.pc += 1",
                      "            return True"]
        else:  # (the op's error)
            lines += ["        if not _t:",
                      "            raise _Unusual"]
        twice = isinstance(s.label, n.Template) and not self.by_reference(s.label)
        if twice:  # (as `filter`'s labels: paid for with the op's payment, at once; `_paid_texts`)
            labels = each(f"[{self.template(s.label, item)} for _x in _t]")
            lines += [f"        _lb = {labels}",
                      "        _n = sum(map(len, _lb))",
                      "        b.used += 2 * _n",
                      f"        if b.used > b.limit or _n > {MAX_TEXT}:",
                      "            raise _Unusual"]
        else:
            labels = each(f"[{self.expr(s.label, item)} for _x in _t]")
            lines.append(f"        _lb = {labels}")
        lines.append(f"        had = L.pop({var}, _MISS)")
        if not twice:
            lines += ["        b.used += sum(map(len, _lb))",
                      "        if b.used > b.limit:",
                      "            _over()"]
        if not distinct:  # (labels that may repeat: `_disambiguate`'s own test, then its call)
            lines += ["        if len(set(_lb)) != len(_lb):",
                      "            _lb = _disambiguate(_lb)"]
        if s.optional:
            lines += ["        _t.append(None)",
                      f"        _lb.append({self.const('Skip')})"]
        if local_chooser is not None:  # (`by p`: read in place; missing, the op's function says so)
            lines += [f"        _p = L.get({self.const(local_chooser)}, _MISS)",
                      "        if _p is _MISS:",
                      "            _p = who(m, L)"]
        else:
            lines.append("        _p = who(m, L)")
        prompt = self.expr(s.prompt, {}) if s.prompt is not None else "ask(m, L)"
        text = _only_argument(prompt, "_paid_text")
        if text is not None:  # (what `_paid_text` pays, in place)
            lines += [f"        _q = {text}",
                      "        b.used += len(_q)",
                      f"        if b.used > b.limit or len(_q) > {MAX_TEXT}:",
                      "            raise _Unusual"]
        else:
            lines.append(f"        _q = {prompt}")
        lines += [
                  "    except _PICK_FAULTS:",
                  "        _slow_calls[0] += 1",
                  "        b.used = used",
                  "        while len(memo) > memo_size:",
                  "            memo.popitem()",
                  "        if had is not _MISS:",
                  f"            L[{var}] = had",
                  "        return False",
                  # (``Machine.wait``, written out: the Pending made field by field, every field
                  # of the class, for a seat outside a `simultaneously` step or the player of the
                  # part being run, numbered and parked as `park` does it)
                  "    _g = m.s",
                  "    _br = m.branch",
                  "    if type(_p) is not int or not 0 <= _p < _g.num_players or (_br is not None and _br.player != _p):",
                  f"        m.wait(_p, _q, {self.const('pick')}, _t, _lb)",
                  "        return True",
                  "    _pe = _new(_Pending)",
                  "    _pe.player = _p",
                  "    _pe.prompt = _q",
                  f"    _pe.kind = {self.const('pick')}",
                  "    _pe.values = _t",
                  "    _pe.labels = _lb",
                  "    if _br is None:",
                  "        _pe.serial = _g.decisions = _g.decisions + 1",
                  "        _g.pending = _pe",
                  "    else:",
                  "        _br.count += 1",
                  "        _pe.serial = _g.decisions * 1000 + _br.count",
                  "        _br.pending = _pe",
                  "    return True"]
        parts = [x for x in (s.source, s.cond, s.label, s.prompt, s.by) if x is not None]
        chance = ["    if m.s.unordered:", "        return False"] if any(self.reads_zones(x) for x in parts) else []
        self._source.append("\n".join([f"def _p{j}(m, fr, who, ask):", *chance, *lines, ""]))

    def reads_zones(self, e) -> bool:
        """Whether an expression may read a zone's cards (a zone, `p.hand`, `discard[c]`, a define)."""
        known = self.known_reads_zones.get(id(e))
        if known is None:
            known = self.known_reads_zones[id(e)] = self._reads_zones(e)
        return known

    def _reads_zones(self, e) -> bool:
        if isinstance(e, n.Name):
            cat = self.p.resolved.get(id(e), ("local", e.id))[0]
            return cat in ("zone", "define") or (cat == "builtin" and e.id == "box") or self.type_of(e) == "zone"
        if isinstance(e, (n.Attr, n.Index)) and self.type_of(e) == "zone":
            return True
        if isinstance(e, n.Call) and self.p.resolved.get(id(e), ("builtin",))[0] == "define":
            return True
        return any(self.reads_zones(x) for x in _subexpressions(e))

    def finish(self) -> None:
        """One compile() for the whole module; every function handed out gets its real code.

        Without the on-disk cache (`lazy`) each function is generated, when it was not yet, and
        compiled when it is first called instead (``_compile_on_call``): compile() is a third of
        a cold load, and a game calls about half of its functions in a whole playout (an option
        not chosen, an error's wording, a rare card). With the cache the module is compiled
        whole, once, and its code kept for the next load, which then compiles nothing."""
        if self.lazy:
            self._compile_on_call()
            return
        if self.replay is not None:
            code = self.replay[0]
            if len(self.functions) != len(self.body_names):
                raise AssertionError("the load cache's generated module does not fit this game")
        else:
            source = self.compiled_source()
            code = compile_cached(source, "<rulelang generated>") if self.cache else compile(
                source, "<rulelang generated>", "exec")
            self.keep(code)
        exec(code, self.ns)  # noqa: S102 - source made here from checked trees; see the module doc
        for fn, name, i in self.functions:
            fn.__code__ = self.ns[name].__code__
            fn.__defaults__ = (i,)
        for i, fn in enumerate(self.filters):
            fn.__code__ = self.ns[f"_f{i}"].__code__
        for j, fn in enumerate(self.picks):
            fn.__code__ = self.ns[f"_p{j}"].__code__

    def compiled_source(self) -> str:
        """The module's source as compiled: each define's body with the tests `_held_known` leaves
        out left out (`_compile_on_call` compiles each function's the same way)."""
        return "\n".join(_held_known_lines(src) for src in self._source)

    def _compile_on_call(self) -> None:
        """Give every function the code `_first_call`: on its first call it compiles the source
        of its body (alone, at its line in the whole module, so positions in a profile or a
        traceback are what one compile() gives), takes that code for good and goes on. A body
        not generated yet (`lazy`) is generated first; the defines it calls, generated with
        it, get their own `_first_call` (``take_in``)."""
        sources: dict[str, str] = {}
        taken = [0, 1]  # sources taken in, and the line the next one starts at

        def take_in() -> None:
            for src in self._source[taken[0]:]:
                name = src[4:src.index("(")]
                sources[name] = "\n" * (taken[1] - 1) + src  # (blank lines cost compile() nothing)
                taken[1] += src.count("\n") + 1
                if name not in self.ns:  # defines (and bodies), called by name from generated code
                    self.ns[name] = _first_call_of(types.FunctionType(_first_call.__code__, self.ns, name), name)
            taken[0] = len(self._source)

        codes: dict[str, types.CodeType] = {}
        made_defaults: dict[str, tuple | None] = {}

        def compiled(fn: types.FunctionType, body: str) -> types.FunctionType:
            with self.generating:
                if body.startswith("?"):  # a body not generated yet: the function's index
                    body = self.generate_deferred(int(body[1:]))
                elif body in self.deferred_named:  # a filter's or a choice's, not generated yet
                    self.generate_named(body)
                code = codes.get(body)
                if code is None:
                    made: dict[str, Any] = {}
                    exec(compile(_held_known_lines(sources[body]), "<rulelang generated>", "exec"), self.ns, made)  # noqa: S102 - see the module doc
                    code = codes[body] = made[body].__code__
                    made_defaults[body] = made[body].__defaults__
                fn.__code__ = code
                fn.__kwdefaults__ = None
                if fn.__defaults__ is None:  # (an expression's function has its index as its default)
                    fn.__defaults__ = made_defaults[body]
                return fn

        self.ns["_compiled"] = compiled
        for fn, name, i in self.functions:  # expressions: by index, several may share one body
            _first_call_of(fn, name if i not in self.deferred else f"?{i}").__defaults__ = (i,)
        for i, fn in enumerate(self.filters):
            self.ns[f"_f{i}"] = _first_call_of(fn, f"_f{i}")
        for j, fn in enumerate(self.picks):
            self.ns[f"_p{j}"] = _first_call_of(fn, f"_p{j}")
        take_in()
        self.on_call = take_in

    # ---- replay (see __init__)
    def made(self, recipe: tuple, value: Any) -> str:
        """`const(value)` for a value the compiler (or the runtime) makes: a closure, a const
        worked out at load time. The recipe that makes it again is recorded with the entry being
        generated, so a replay makes it at the same point (the compiler's state, its load budget,
        then change as they did), even when the name it gets is an older one."""
        before = len(self.const_names)
        name = self.const(value)
        self.recipes.setdefault(self.slot, []).append((name if len(self.const_names) > before else None, recipe))
        return name

    def card_field(self, name: str, default: Any) -> str:
        """The namespace's name of the list of every card's value of field `name` (`default` for
        a card without it), read `_cfN[c]` where the reference reads `card_attrs[c].get(name,
        default)`: the same value (the very object the card holds), and the same error for
        anything but a card's number (none indexes neither). Made once per field, as a constant
        the compiler makes (`made`): a replay makes it again from the game's cards."""
        key = (name, default)
        found = self.card_fields.get(key)
        if found is None:
            found = self.card_fields[key] = f"_cf{len(self.card_fields)}"
            self.ns[found] = self.card_field_list(key)
            self.recipes.setdefault(self.slot, []).append((found, ("card_field", key)))
        return found

    def card_field_list(self, key: tuple[str, Any]) -> list:
        name, default = key
        return [values.get(name, default) for values in self.card_attrs or ()]

    def cook_slot(self, e) -> None:
        """Make again the constants the generating load made while generating this entry."""
        for name, recipe in self.recipes.get(self.slot, ()):
            value = self.cook(recipe, e)
            if name is not None:
                self.ns[name] = value

    def cook(self, recipe: tuple, e) -> Any:
        kind, arg = recipe[0], recipe[1]
        if kind == "ref":
            node = e if arg is None else self.p.defines[arg].value
            for k in recipe[2]:
                node = list(_subexpressions(node))[k]
            nested, self.c._nested = self.c._nested, True
            try:
                return self.c.expr(node)
            finally:
                self.c._nested = nested
        return {"shown_as": self.c.shown_as, "const": self.c.const, "card_var_init": self.c.card_var_init,
                "function": FUNCTIONS.__getitem__, "card_field": self.card_field_list}[kind](arg)

    def keep(self, code: Any) -> None:
        """Put what a replay needs in the cache, if every constant is plain data or has a recipe."""
        if self.cache_key is None or not self.replayable:
            return
        made = {name for entries in self.recipes.values() for name, _ in entries}
        data = {name: self.ns[name] for name in self.const_names.values() if name not in made}
        if not all(_plain(v) for v in data.values()):
            return
        load_values = self.load_values if _plain(self.load_values) else None
        store_generated(self.cache_key, code, ([name for _, name, _ in self.functions], data, self.recipes,
                                         self._source, load_values))

    def where(self, e) -> tuple:
        """The recipe of a reference closure: its node as a path from the entry's expression or
        from the define whose body is being generated."""
        define, root = self.roots[-1]
        path = _path(root, e)
        if path is None:
            self.replayable = False
            return ("ref", define, ())
        return ("ref", define, tuple(path))

    # ---- expressions: each returns Python source for the value, given a scope
    # (scope maps a rule's local name to the Python name holding it; other locals are in L)
    def local(self, name: str, scope: dict) -> str:
        if name in scope:
            return scope[name]
        if scope.get("$define"):
            return "_no_value()"
        return f"L[{self.const(name)}]"

    def by_reference(self, e) -> bool:
        """Zones handled as values (their keys in lists, `discard[red]`, a zone given to a define):
        rare and subtle, so the generated code calls the reference's closure for them."""
        known = self.known_by_reference.get(id(e))
        if known is None:
            known = self.known_by_reference[id(e)] = self._by_reference(e)
        return known

    def _by_reference(self, e) -> bool:
        t = self.type_of(e)
        if isinstance(e, n.Name):
            return t == "zone" and self.p.resolved.get(id(e), ("local",))[0] == "local"
        if isinstance(e, n.Index):
            return t == "zone" or self.type_of(e.obj).startswith("zones:")
        if isinstance(e, n.ListLit):
            return any(self.type_of(i) == "zone" for i in e.items)
        if isinstance(e, n.Gen):
            return e.elem is not None and self.type_of(e.elem) == "zone"
        if isinstance(e, n.Call):
            if t == "zone" or any(self.type_of(a) == "list:zone" for a in e.args):
                return True
            cat, name = self.p.resolved.get(id(e), ("builtin", e.func))
            if cat == "builtin":  # a grid built-in takes a zone as its key: generated for a plain name
                b = registry.BY_NAME[name]
                return any(prm.type == "zone" and not self.simple_zone(a)
                           for a, prm in zip(e.args, b.params, strict=False))
            if cat == "define":  # a zone handed to a define's zone parameter goes as its key
                params = self.p.defines[name].params or ()
                return any(prm.type.form == "name" and prm.type.name == "zone" and self.type_of(a) == "zone"
                           for a, prm in zip(e.args, params, strict=False))
        return False

    def reference(self, e, scope: dict) -> str:
        """Source calling the reference closure of `e` with the locals it would see."""
        self.impure()
        nested, self.c._nested = self.c._nested, True
        try:
            f = self.c.expr(e)
        finally:
            self.c._nested = nested
        own = ", ".join(f"{self.const(k)}: {v}" for k, v in scope.items() if not k.startswith("$"))
        if scope.get("$define"):
            local_values = f"{{{own}}}"
        else:
            local_values = f"{{**L, {own}}}" if own else "L"
        return f"{self.made(self.where(e), f)}(m, {local_values})"

    def simple_zone(self, e) -> bool:
        if isinstance(e, n.Name):
            cat, name = self.p.resolved.get(id(e), ("", e.id))
            return cat == "zone" or (cat == "builtin" and name == "box")
        return isinstance(e, n.Attr) and self.p.resolved.get(id(e), ("",))[0] == "pzone"

    def expr(self, e, scope: dict) -> str:  # noqa: C901 - one dispatch over expression kinds
        if self.stmt_values:
            worked = self.stmt_values.get((id(e), id(scope)))
            if worked is not None:
                return worked
        if self.by_reference(e):
            return self.reference(e, scope)
        if isinstance(e, n.Lit):
            return self.const(e.value)
        if isinstance(e, n.Template):
            return f"_paid_text(m, {self.template(e, scope)})"
        if isinstance(e, n.Name):
            return self.name(e, scope)
        if isinstance(e, n.Attr):
            return self.attr(e, scope)
        if isinstance(e, n.Index):
            t = self.type_of(e.obj)
            obj, idx = self.expr(e.obj, scope), self.expr(e.index, scope)
            nth = _NTH_OF_ZONE.match(obj) if self.nth_of_zone(e) else None
            if nth is not None and nth["item"] in (nth["var"], f"{nth['values']}[{nth['var']}]"):
                # `[c.f for c in z][i]`: the list's item at `i` worked out alone, the list paid for
                # as it would be made (`_nth_card`); none of its items fails to be made (a zone's
                # cards are cards, each with its value in the field's list), so nor does the list
                if nth["item"] == nth["var"]:
                    return f"_nth_card(m, {nth['zone']}, {idx})"
                return f"_nth_field(m, {nth['zone']}, {idx}, {nth['values']})"
            if t.startswith("bag:"):  # a dict; anything else has no .get with a default: slow path
                return f"{obj}.get({idx}, 0)"
            if t.startswith("list:") or t == "zone":
                # Gives what the reference gives or raises (a missing key, none): then the slow path.
                return f"{obj}[{idx}]"
            return f"_index({obj}, {idx}, {t == 'map'!r})"
        if isinstance(e, n.Gen):
            return self.gen(e, scope)
        if isinstance(e, n.Call):
            return self.call(e, scope)
        if isinstance(e, n.BinOp):
            a, b = self.expr(e.left, scope), self.expr(e.right, scope)
            ints = self.type_of(e.left) == "int" and self.type_of(e.right) == "int"
            if ints and e.op in ("+", "-") and self.small(e.left, scope) and self.small(e.right, scope):
                return f"({a} {e.op} {b})"  # two numbers known to be far inside the bounds: no check
            if e.op == "+":
                if ints:
                    return self.checked_int(f"{a} + {b}")
                if _flat(self.type_of(e)) and self.type_of(e).startswith("list:"):
                    built_a, built_b = _only_argument(a, "_charged_flat"), _only_argument(b, "_charged_flat")
                    if built_a is not None and built_b is not None:  # both just built: one call
                        return f"_add_built(m, {built_a}, {built_b})"
                    return f"_add_flat(m, {a}, {b})"  # two lists of plain items, joined
                return f"add_values(m, {a}, {b}, None)"
            if e.op == "-":
                if self.type_of(e.left).startswith("bag:"):
                    return f"subtract_values(m, {a}, {b}, None)"
                return self.checked_int(f"{a} - {b}")  # a dict there raises: the slow path does it
            if e.op == "*" and _literal_int(a) and _literal_int(b) and abs(int(a) * int(b)) <= MAX_INT:
                return repr(int(a) * int(b))  # `2 * 0` of an inlined define's argument: folded
            helper = {"*": "_mul", "/": "_div", "%": "_mod"}[e.op]
            return f"{helper}({a}, {b})"
        if isinstance(e, n.Compare):
            a, b = self.expr(e.left, scope), self.expr(e.right, scope)
            op = e.op
            if op in ("==", "!="):
                if _scalar(self.type_of(e.left)):
                    (left_known, left), (right_known, right) = self.constant(a), self.constant(b)
                    if left_known and right_known:  # two constants (an unrolled item's): folded
                        return repr((left == right) is (op == "=="))
                    return f"({a} {op} {b})"
                if _flat(self.type_of(e.left)):  # paid for by its length, then compared
                    return f"(_paid_flat(m, {a}) {op} {b})"
                return f"_eq(m, {a}, {b})" if op == "==" else f"(not _eq(m, {a}, {b}))"
            if op in ("in", "notin"):
                items = self.known(b) if self.tallies() and _flat(self.type_of(e.right)) else None
                if items is not None and len(items) <= _TALLIED_SEARCH:
                    # `in` a short constant list: what `_in_flat` pays is known here (a long one is
                    # searched by `_in_flat`, which stops at once a budget that runs out)
                    test = f"((_u := _u + {len(items)}) and {a} in {b})" if items else f"({a} in ())"
                    return test if op == "in" else f"(not {test})"
                test = "_in_flat" if _flat(self.type_of(e.right)) else "_in"
                return f"{test}(m, {a}, {b})" if op == "in" else f"(not {test}(m, {a}, {b}))"
            if _scalar(self.type_of(e.left)):
                # None on either side raises TypeError: the slow path reports it as the reference does
                return f"({a} {op} {b})"
            return f"_ordered(m, {a}, {b}, {self.const(_ORDER[op])})"
        if isinstance(e, n.Is):
            obj = self.expr(e.obj, scope)
            if obj.isidentifier():  # a local or a parameter: tested in place, without a call
                test = f"({obj} is not None and _card_kinds[{obj}] == {self.const(e.kind)})"
            else:
                test = f"_is(m, {obj}, {self.const(e.kind)})"
            return f"(not {test})" if e.negate else test
        if isinstance(e, n.BoolOp):
            a, b = (self.expr(x, scope) if self.always_bool(x) else f"(not not {self.expr(x, scope)})"
                    for x in (e.left, e.right))
            return f"({a} {e.op} {b})"
        if isinstance(e, n.Not):
            return f"(not {self.expr(e.operand, scope)})"
        if isinstance(e, n.Neg):
            operand = self.expr(e.operand, scope)
            if _literal_int(operand) and abs(int(operand)) <= MAX_INT:
                return str(-int(operand))  # `-1` written in the rules: a number, not a call
            return f"check_int(-{operand})"
        if isinstance(e, n.Cond):
            t, c, o = (self.expr(x, scope) for x in (e.then, e.test, e.orelse))
            if t == o and _literal_int(t) and _PLAIN_TEST.match(c):
                return t  # `0 if e == x else 0` of an inlined define's argument: either way 0
            if c in ("True", "(not False)"):
                return t
            if c in ("False", "(not True)"):
                return o
            return f"({t} if {c} else {o})"
        if isinstance(e, n.ListLit):
            if len(e.items) == 1 and isinstance(e.items[0], n.Gen):
                return self.expr(e.items[0], scope)
            if not e.items:
                return "[]"  # costs nothing: a new empty list
            charged = self.charged(self.type_of(e))
            return f"{charged}(m, [{', '.join(self.expr(i, scope) for i in e.items)}])"
        if isinstance(e, n.MapLit):
            pairs = ", ".join(f"{self.const(k)}: {self.expr(v, scope)}" for k, v in e.items)
            return f"_charged(m, {{{pairs}}})"
        raise AssertionError(f"cannot generate {type(e).__name__}")

    @staticmethod
    def charged(t: str) -> str:
        """The helper that pays for a list of type `t` just built: by its length when its items
        are plain, by theirs too when they are flat lists or bags, by `_size`'s walk otherwise."""
        if _flat(t):
            return "_charged_flat"
        return "_charged_lists" if t.startswith("list:") and _flat(t[5:]) else "_charged"

    def small(self, e, scope: dict) -> bool:
        """Whether `e` is a number no bigger than half MAX_INT whatever the state (so the sum
        or difference of two such is in bounds, and the check the reference makes passes)."""
        bound = self.bound(e, scope)
        return bound is not None and bound <= MAX_INT // 2

    def bound(self, e, scope: dict) -> int | None:  # noqa: C901 - one case per kind of expression
        """The largest size a number `e` can have, from what never changes: literals, constants,
        the cards' numbers, counts (no list holds more than MAX_ITEMS items), defines made of
        those; None when it is not known (a var, a parameter, a number of the state)."""
        if isinstance(e, n.Lit):
            return abs(e.value) if type(e.value) in (int, bool) else None
        if isinstance(e, n.Name):
            cat, name = self.p.resolved.get(id(e), ("local", e.id))
            if cat == "local":
                value = scope.get(name, "")
                # (a parameter or a loop's variable whose numbers are known to be bounded: `_BOUND_KEY`)
                return abs(int(value)) if _literal_int(value) else scope.get(_BOUND_KEY + name)
            if cat == "const":
                value = self.c.const(name)
                return abs(value) if type(value) in (int, bool) else None
            if cat == "define":
                return self.define_bound(name)
            return None
        if isinstance(e, n.Attr):
            if self.p.resolved.get(id(e), ("dynamic",))[0] == "field" and e.name not in ("name", "text"):
                return self.field_bound(e.name, False)
            return None
        if isinstance(e, n.Index):
            obj = e.obj
            if self.type_of(obj) == "list:int":  # an item of a list of bounded numbers (a constant's)
                return self.items_bound(obj, scope)
            if (isinstance(obj, n.Call) and self.p.resolved.get(id(obj), ("builtin", obj.func)) == ("builtin", "bag")
                    and self.type_of(obj).startswith("bag:")):
                return MAX_ITEMS  # a count of a bag just made of a list: at most its length
            if isinstance(obj, n.Attr) and self.p.resolved.get(id(obj), ("dynamic",))[0] == "field" \
                    and (self.type_of(obj) == "map" or self.type_of(obj).startswith("bag:")):
                return self.field_bound(obj.name, True)
            return None
        if isinstance(e, n.Call):
            cat, name = self.p.resolved.get(id(e), ("builtin", e.func))
            if cat == "define":
                params = self.p.defines[name].params or ()
                if len(e.args) != len(params):
                    return None
                bounded = {}  # (the body's bound with what the call gives its parameters, when known)
                for prm, a in zip(params, e.args, strict=True):
                    b = self.bound(a, scope) if prm.type.form == "name" and prm.type.name == "int" else None
                    if b is not None:
                        bounded[_BOUND_KEY + prm.name] = b
                return self.bound(self.p.defines[name].value, bounded) if bounded else self.define_bound(name)
            if name == "count" and len(e.args) == 1:
                return MAX_ITEMS
            if name == "sum" and len(e.args) == 1 and isinstance(e.args[0], n.Gen) and e.args[0].elem is not None:
                each = self.bound(e.args[0].elem, {})
                return None if each is None else MAX_ITEMS * each
            if name in ("min", "max") and len(e.args) == 1 and self.type_of(e.args[0]) == "list:int":
                return self.items_bound(e.args[0], scope)  # one of the list's numbers
            if name in ("min", "max", "abs") and e.args and all(self.type_of(a) == "int" for a in e.args):
                bounds = [self.bound(a, scope) for a in e.args]
                return None if None in bounds else max(bounds)
            return None
        if isinstance(e, n.BinOp) and e.op in ("+", "-", "*"):
            left, right = self.bound(e.left, scope), self.bound(e.right, scope)
            if left is None or right is None:
                return None
            return left + right if e.op != "*" else left * right
        if isinstance(e, n.Neg):
            return self.bound(e.operand, scope)
        if isinstance(e, n.Cond):
            then, orelse = self.bound(e.then, scope), self.bound(e.orelse, scope)
            return None if then is None or orelse is None else max(then, orelse)
        return None

    def define_bound(self, name: str) -> int | None:
        """`bound` of a define's body (its parameters unknown), worked out once."""
        if name not in self.define_bounds:
            self.define_bounds[name] = None  # (no define is made of itself; this only ends a loop)
            self.define_bounds[name] = self.bound(self.p.defines[name].value, {})
        return self.define_bounds[name]

    def field_bound(self, field: str, in_map: bool) -> int | None:
        """The largest size of a card field's numbers (of the numbers its maps hold, `in_map`)
        over every card of the game; None unless all are numbers (or the field is missing)."""
        key = (field, in_map)
        if key not in self.field_bounds:
            largest: int | None = 0
            for values in self.card_attrs or ():
                v = values.get(field)
                for x in ((v.values() if isinstance(v, dict) else (None,)) if in_map else (v,)):
                    if x is not None and type(x) not in (int, bool):
                        largest = None
                        break
                    if x is not None and largest is not None:
                        largest = max(largest, abs(x))
                if largest is None:
                    break
            self.field_bounds[key] = largest if self.card_attrs is not None else None
        return self.field_bounds[key]

    def bounded_scope(self, params: list, names: list[str], given: tuple | None) -> dict:
        """The scope of a define's body written in place of a call: its parameters' names, and
        the bounds of the numbers given them where the call (`given`: its arguments and scope)
        knows them."""
        scope = {prm.name: v for prm, v in zip(params, names, strict=True)}
        scope["$define"] = "1"
        if given is not None:
            args, outer = given
            for prm, arg in zip(params, args, strict=True):
                bound = self.bound(arg, outer) if prm.type.form == "name" and prm.type.name == "int" else None
                if bound is not None:
                    scope[_BOUND_KEY + prm.name] = bound
        return scope

    def items_bound(self, e, scope: dict) -> int | None:  # noqa: C901 - one case per kind of list
        """The largest size of the numbers a list `e` can hold (the items a loop over it takes),
        from what never changes, as `bound`: a range between bounded numbers, a constant list of
        numbers, lists made of those (joined, filtered, items worked out by a bounded formula),
        a define giving one; None when not known."""
        if isinstance(e, n.Name):
            cat, name = self.p.resolved.get(id(e), ("local", e.id))
            if cat == "const":
                value = self.c.const(name)
                if value.__class__ is list and all(type(x) in (int, bool) for x in value):
                    return max((abs(x) for x in value), default=0)
                return None
            if cat == "define" and not self.p.defines[name].params:
                return self.define_items_bound(name)
            return None
        if isinstance(e, n.Call):
            cat, name = self.p.resolved.get(id(e), ("builtin", e.func))
            if cat == "define":
                return self.define_items_bound(name) if len(e.args) == len(self.p.defines[name].params or ()) else None
            if name == "range" and len(e.args) == 2:
                low, high = (self.bound(a, scope) for a in e.args)
                return None if low is None or high is None else max(low, high)
            if name in ("distinct", "sorted") and len(e.args) == 1:
                return self.items_bound(e.args[0], scope)
            return None
        if isinstance(e, n.Attr):
            if self.p.resolved.get(id(e), ("dynamic",))[0] == "field" and self.card_attrs is not None:
                return self.field_items_bound(e.name)
            return None
        if isinstance(e, n.Gen):
            within = self.items_bound(e.source, scope)
            if e.elem is None:
                return within
            return self.bound(e.elem, _bound_var(scope, e.var, within))
        if isinstance(e, n.ListLit):
            if len(e.items) == 1 and isinstance(e.items[0], n.Gen):
                return self.items_bound(e.items[0], scope)
            bounds = [self.bound(x, scope) for x in e.items]
            return None if None in bounds else max(bounds, default=0)
        if isinstance(e, n.BinOp) and e.op == "+" and self.type_of(e) == "list:int":
            left, right = self.items_bound(e.left, scope), self.items_bound(e.right, scope)
            return None if left is None or right is None else max(left, right)
        if isinstance(e, n.Cond):
            then, orelse = self.items_bound(e.then, scope), self.items_bound(e.orelse, scope)
            return None if then is None or orelse is None else max(then, orelse)
        return None

    def field_items_bound(self, field: str) -> int | None:
        """The largest size of the numbers in a card field's lists over every card of the game;
        None unless every card's value of it is a list of numbers (or missing)."""
        key = ("$items", field)
        if key not in self.field_bounds:
            largest: int | None = 0
            for values in self.card_attrs or ():
                v = values.get(field)
                if v is None:
                    continue
                if v.__class__ is not list or not all(type(x) in (int, bool) for x in v):
                    largest = None
                    break
                largest = max([largest, *map(abs, v)])
            self.field_bounds[key] = largest
        return self.field_bounds[key]

    def define_items_bound(self, name: str) -> int | None:
        """`items_bound` of a define's body (its parameters unknown), worked out once."""
        key = "$items " + name
        if key not in self.define_bounds:
            self.define_bounds[key] = None  # (no define is made of itself; this only ends a loop)
            self.define_bounds[key] = self.items_bound(self.p.defines[name].value, {})
        return self.define_bounds[key]

    def param_bounds(self, name: str) -> list[int | None]:
        """The largest size of the numbers each parameter of define `name` is given, over every
        call of it in the rules: `bound` of the argument where the call is (constants, items of
        ranges and constant lists looped over or chosen from, parameters of the calling define
        with bounds of their own); None for a parameter some call may give any number. All None
        when the calls found are not every name the checker resolved to the define (a call in a
        place this walk does not look into counts as unbounded)."""
        bounds = self.known_param_bounds.get(name)
        if bounds is None:
            params = self.p.defines[name].params or ()
            self.known_param_bounds[name] = [None] * len(params)  # (defines are never recursive)
            bounds = self.known_param_bounds[name] = self._param_bounds(name, params)
        return bounds

    def _param_bounds(self, name: str, params) -> list[int | None]:
        bounds: list[int | None] = [None] * len(params)
        wanted = [prm.type.form == "name" and prm.type.name == "int" for prm in params]
        if not any(wanted):
            return bounds
        if self.call_sites is None:
            self.call_sites = self._call_sites()
            if not self.define_uses:
                self.define_uses = Counter(r[1] for r in self.p.resolved.values() if r[0] == "define")
        sites = self.call_sites.get(name, [])
        if not sites or len(sites) != self.define_uses[name]:
            return bounds
        bounds = [0 if want else None for want in wanted]
        for call, caller, decl, loops in sites:
            if len(call.args) != len(params) or call.kwargs or decl is _UNKNOWN:
                return [None] * len(params)
            scope = self.local_bounds(decl) if decl is not None else {}
            if caller is not None:
                for prm, b in zip(self.p.defines[caller].params or (), self.param_bounds(caller), strict=True):
                    scope = _bound_var(scope, prm.name, b)
            for g in loops:
                scope = _bound_var(scope, g.var, self.items_bound(g.source, scope))
            for j, arg in enumerate(call.args):
                if bounds[j] is not None:
                    b = self.bound(arg, scope)
                    bounds[j] = None if b is None else max(bounds[j], b)
        return bounds

    def _call_sites(self) -> dict[str, list]:
        """Every call of a define in the checked rules: name -> [(the call, the calling define or
        None, the procedure (setup, flow, trigger) it is in or None, the comprehensions around
        it, outermost first)]."""
        sites: dict[str, list] = {}
        seen: dict[int, tuple] = {}  # a call reached again (a score line is in two fields): counted once

        def walk(root, caller) -> None:
            todo = [(root, None, ())]  # (what to look through, the declaration it is in, the comprehensions around)
            while todo:
                x, decl, loops = todo.pop()
                cls = x.__class__
                if cls is tuple or cls is list:
                    todo.extend((y, decl, loops) for y in x if y.__class__ not in _NO_CALLS)
                    continue
                if cls is dict:
                    todo.extend((y, decl, loops) for y in x.values() if y.__class__ not in _NO_CALLS)
                    continue
                if not _is_node(cls):
                    continue
                if cls is n.Call and self.p.resolved.get(id(x), ("",))[0] == "define":
                    site = (x, caller, decl, loops)
                    before = seen.get(id(x))
                    if before is None:
                        seen[id(x)] = site
                        sites.setdefault(x.func, []).append(site)
                    elif before[1:] != site[1:]:  # (reached where other names hold: nothing known)
                        calls = sites[x.func]
                        calls[calls.index(before)] = seen[id(x)] = (x, caller, _UNKNOWN, loops)
                elif cls in _DECLARING:
                    decl = x
                elif cls is n.Gen:
                    todo.append((x.source, decl, loops))
                    inner = (*loops, x)
                    todo.extend((y, decl, inner) for y in (x.elem, x.cond) if y is not None)
                    continue
                for f in _field_names(cls):
                    y = getattr(x, f)
                    if y.__class__ not in _NO_CALLS:
                        todo.append((y, decl, loops))

        if self.define_sites is None:
            self.define_sites = self._define_sites()
        for name, found in self.define_sites.items():  # (the calls in defines' bodies, found already)
            for caller, call, loops in found:
                if isinstance(call, n.Call):
                    site = seen[id(call)] = (call, caller, None, loops)
                    sites.setdefault(name, []).append(site)
        for f in _CALLING_FIELDS:  # (a call anywhere else is not counted: the define is not bounded)
            walk(getattr(self.p, f), None)
        return sites

    def local_bounds(self, decl) -> dict[str, int]:
        """`_BOUND_KEY` entries of a procedure's (setup's, flow's, trigger's) local names whose numbers
        are bounded wherever the name is given a value: loop and choice variables over bounded
        lists, `let` of a bounded number. A parameter, a name `set` or bound by `as` is not."""
        known = self.known_local_bounds.get(id(decl))
        if known is not None:
            return known
        found: dict[str, int | None] = {}

        def given(name: str, b: int | None) -> None:
            found[name] = None if b is None or (name in found and found[name] is None) else max(found.get(name) or 0, b)

        for prm in getattr(decl, "params", None) or ():
            given(prm.name, None)
        if isinstance(decl, n.TriggerDecl):
            for name in decl.names:
                given(name, None)

        def scan(x) -> None:
            cls = x.__class__
            if cls in _EXPRESSION_CLASSES or cls in _NO_CALLS:  # (only statements bind names)
                return
            if cls is tuple or cls is list:
                for y in x:
                    scan(y)
                return
            if not _is_node(cls):
                return
            if isinstance(x, (n.Pick, n.For, n.Simul)):
                given(x.var, self.items_bound(x.source, {}))
            elif isinstance(x, n.MenuOption) and x.each is not None:
                given(x.each[0], self.items_bound(x.each[1], {}))
            elif isinstance(x, n.Let):
                given(x.name, self.bound(x.value, {}))
            elif isinstance(x, n.Set) and isinstance(x.target, n.Name):
                given(x.target.id, None)
            elif isinstance(x, n.Verb):
                for _word, v in x.clauses:
                    if isinstance(v, n.Name):
                        given(v.id, None)
            for f in _field_names(type(x)):
                scan(getattr(x, f))

        scan(decl)
        known = self.known_local_bounds[id(decl)] = {_BOUND_KEY + name: b for name, b in found.items() if b is not None}
        return known

    def checked_int(self, value: str) -> str:
        """`check_int(value)` without a call when the number is in bounds (most of the time): an
        int in bounds is itself; anything else goes to check_int, which refuses it as before."""
        if self.in_iterable:  # Python allows no `:=` in the iterable of a comprehension
            return f"check_int({value})"
        # The bounds are literals (folded by Python's compiler, not looked up). No test of the
        # type: a number in bounds is itself (a bool too), anything but a number cannot be
        # compared with one and raises (the slow path), as check_int would pass it through.
        t = self.var()
        return f"({t} if {-MAX_INT} <= ({t} := {value}) <= {MAX_INT} else check_int({t}))"

    def template(self, e: n.Template, scope: dict) -> str:
        """A template's text, not yet paid for: its parts joined (a part alone is the text: each
        part reads as a str)."""
        parts = [self.const(p) if isinstance(p, str) else self.text(p, scope) for p in e.parts]
        if not parts:
            return self.const("")
        return parts[0] if len(parts) == 1 else f"''.join(({', '.join(parts)},))"

    def text(self, e, scope: dict) -> str:
        # How a value reads is the reference's own function (compiler.shown_as), held as a constant.
        t = self.type_of(e)
        show = self.made(("shown_as", t), self.c.shown_as(t))
        value = self.expr(e, scope)
        if t == "player" and not self.in_iterable:
            # A seat reads as its player's name, from a table of the seats' names (what `show`
            # gives, without its calls); anything else (none, a number that is no seat, a value
            # of another type) as `show` gives it.
            from .compiler import seat_name  # (the compiler imports this module)

            v, name = self.var(), self.var()
            if self.seat_names is None:  # (made once)
                self.seat_names = self.const({seat: seat_name(seat) for seat in range(self.p.max_players)})
            names = self.seat_names
            return (f"({name} if type({v} := {value}) is int and ({name} := {names}.get({v})) is not None "
                    f"else _text(m, {v}, {show}))")
        if t == "card" and not self.in_iterable:
            # A card reads as its name (what `show` gives, without its calls); anything else
            # (none, a value of another type) as before.
            v = self.var()
            return f"(_card_names[{v}] if type({v} := {value}) is int else _text(m, {v}, {show}))"
        if t == "text" and _texts_only(self.known(_const_of_item(value))):
            return value  # an item of a constant list of texts (a square's name): a text, or an error
        if t in ("text", "int") and not self.in_iterable:
            # A text reads as itself, a number as its digits: no call; anything else (none, a
            # value of another type than the checker's) as before.
            v = self.var()
            plain = {"text": "str", "int": "int"}[t]
            shown = v if t == "text" else f"str({v})"
            return f"({shown} if type({v} := {value}) is {plain} else _text(m, {v}, {show}))"
        return f"_text(m, {value}, {show})"

    def name(self, e: n.Name, scope: dict) -> str:  # noqa: C901 - one case per kind of name
        cat, name = self.p.resolved.get(id(e), ("local", e.id))
        if cat == "local":
            return self.local(name, scope)
        if cat == "builtin":
            if name in _STATE_NAMES:
                self.impure()
            simple = {"players": "list(range(m.s.num_players))", "player_count": "m.s.num_players",
                      "active_player": "m.s.active", "round_number": "m.s.round", "turn_number": "m.s.turn",
                      "box": "m.s.zones['box']"}
            return simple.get(name) or self.const(name)
        if cat == "enum":
            return f"list({self.const(list(self.p.enums[name]))})"
        if cat in ("member", "choice", "token", "modifier", "kind", "side"):
            return self.const(name)
        if cat == "option":
            return self.const(self.c.options[name])
        if cat == "const":
            return self.made(("const", name), self.c.const(name))  # never copied: no op changes a list or bag in place
        if cat == "var":
            if self.keeping is not None:  # read before the body, so the result can be kept (`define`)
                return self.read_ahead(f"m.s.vars.get({self.const(name)}, _MISS)", f"m.s.vars[{self.const(name)}]",
                                       sized=self.sized(e))
            if self.hoists is not None and self.in_loop:
                # read once before a define's body rather than at every item of its loop (the
                # state does not change while it is worked out; every game has each of its vars)
                return self.read_ahead(f"m.s.vars.get({self.const(name)}, _MISS)", f"m.s.vars[{self.const(name)}]")
            return f"m.s.vars[{self.const(name)}]"
        if cat == "zone":
            if self.keeping is not None and self.keeping["scalar"]:  # checked by its cards (`define`)
                return self.read_ahead(f"m.s.zones.get({self.const(name)}, _MISS)", f"m.s.zones[{self.const(name)}]",
                                       cards=True, sized=True)
            self.impure()
            return f"m.s.zones[{self.const(name)}]"
        if cat == "define":
            return self.kid_call(self.define(name), [])
        raise AssertionError(f"name category {cat}")

    def attr(self, e: n.Attr, scope: dict) -> str:
        cat, name = self.p.resolved.get(id(e), ("dynamic", e.name))
        if cat in ("pvar", "pzone"):
            where = f"m.s.{'vars' if cat == 'pvar' else 'zones'}"
            return self.hoisted(where, self.key(name + '#', e.obj, scope), e.obj, scope,
                                self.sized(e) if self.keeping is not None else False)
        if cat == "tokens":
            self.impure()
            return self.token_read(e.obj, name, scope) or \
                f"m.token_count({self.holder(e.obj, scope)}, {self.const(name)})"
        if cat == "field":
            obj = self.expr(e.obj, scope)  # None indexes nothing: TypeError, then the slow path
            if name == "name":
                return f"_card_names[{obj}]"
            if self.card_attrs is not None:  # a list of every card's value of the field: no call
                return f"{self.card_field(name, '' if name == 'text' else None)}[{obj}]"
            if name == "text":
                return f"_card_attrs[{obj}].get({self.const(name)}, '')"
            return f"_card_attrs[{obj}].get({self.const(name)})"
        if cat == "cvar":
            self.impure()
            init = self.made(("card_var_init", name), self.c.card_var_init(name))
            return f"m.s.vars.get({self.key(name + '@', e.obj, scope)}, {init})"
        return "_no_value()"

    def token_read(self, holder, token: str, scope: dict) -> str | None:
        """How many of a token a player or a card holds, read by a table of every seat's or
        card's key of it, or keys for a token of several sides (`Machine.token_count` makes the
        key, `p2|t|`, at every read); None for another holder. A holder that is none, or no
        seat or card, is no key of the table: KeyError, then the slow path (the reference's
        error, or the 0 it reads for a number past the seats)."""
        t = self.type_of(holder)
        decl = self.p.tokens.get(token)
        if decl is None or t not in ("player", "card"):
            return None
        named = {name: values for name, values, _ in decl.props}.get("sides", ("",))
        # (its sides as the compiler lists them: `sides of E`, one per member of E)
        sides = list(self.p.enums[named[1]]) if len(named) == 2 and named[0] == "of" else list(named)
        if t == "player":
            holders = {seat: f"p{seat}" for seat in range(self.p.max_players)}
        elif self.card_attrs is not None and len(self.card_attrs) <= _CARD_KEY_TABLE:
            holders = {card: f"c{card}" for card in range(len(self.card_attrs))}
        else:
            return None
        table_key = f"tokens {t} {token}"
        table = self.seat_keys.get(table_key)
        if table is None:
            table = self.seat_keys[table_key] = self.const(
                {v: f"{who}|{token}|{sides[0]}" if len(sides) == 1 else tuple(f"{who}|{token}|{sd}" for sd in sides)
                 for v, who in holders.items()})
        if len(sides) == 1:
            return f"m.s.tokens.get({table}[{self.expr(holder, scope)}], 0)"
        return f"_token_sum(m.s.tokens, {table}[{self.expr(holder, scope)}])"  # (each side's, in order)

    def key(self, prefix: str, e, scope: dict) -> str:
        """A state key made of a name and a player or card (`score#2`, `played@17`): an f-string,
        which formats as str() does, without the call to str() and the concatenation."""
        if self.type_of(e) == "player":
            # A player's key read from a table of the keys of every seat, made once (no formatting
            # at every read). A seat past the table, or a value that is no seat, is no key of it:
            # KeyError, then the slow path (the reference's own key fails to be found as well).
            table = self.seat_keys.get(prefix)
            if table is None:
                table = self.seat_keys[prefix] = self.const(
                    {seat: f"{prefix}{seat}" for seat in range(self.p.max_players)})
            return f"{table}[{self.expr(e, scope)}]"
        if self.type_of(e) == "card" and self.card_attrs is not None and len(self.card_attrs) <= _CARD_KEY_TABLE:
            # A card's key from a table of every card's, made once, as a seat's above (a search
            # of a zone by a var of its cards made a new text per card), and of none: the
            # reference's own key for it (`site@None`), which a var of cards is read by with a
            # default, its first value. A value that is no card nor none is no key of the table:
            # KeyError, then the slow path (the reference's own key for it).
            table = self.seat_keys.get(prefix)
            if table is None:
                keys: dict[int | None, str] = {card: f"{prefix}{card}" for card in range(len(self.card_attrs))}
                keys[None] = f"{prefix}None"
                table = self.seat_keys[prefix] = self.const(keys)
            return f"{table}[{self.expr(e, scope)}]"
        return f"f'{{{self.const(prefix)}}}{{{self.expr(e, scope)}}}'"

    def hoisted(self, where: str, key: str, obj, scope: dict, sized: bool = False) -> str:
        """A player's var or zone read in a loop of a define, for a player the define was given:
        looked up once before the body (the state does not change while it is worked out). Every
        seat has its vars and zones, so the lookup finds nothing only for a value that is no
        seat (none): then the body is not worked out here at all (`_unhoisted` fails, and the
        reference works the expression out, failing where the read fails, if it is made)."""
        read = f"{where}[{key}]"
        keeping = self.keeping is not None
        cards = where != "m.s.vars"
        if keeping and cards and not self.keeping["scalar"]:
            self.impure()  # a zone's list changes in place as cards move: no result kept over it
        if not (self.hoists is not None and (self.in_loop or keeping) and isinstance(obj, n.Name)
                and scope.get(obj.id, "").startswith("a") and scope.get("$define")):
            self.impure()
            return read
        # (a seat's key looked up with .get: a value that is no seat finds nothing here, and
        # fails only where the loop reads it, if it does)
        ahead = re.sub(r"\A(_k\d+)\[(\w+)\]\Z", r"\1.get(\2)", key)
        # (read ahead for a define keeping its results only, not in a loop: where the body reads
        # it, a read that found nothing fails there, as the read in place would)
        return self.read_ahead(f"{where}.get({ahead}, _MISS)", read, cards, sized or cards,
                               soft=not self.in_loop)

    def read_ahead(self, lookup: str, read: str | None = None, cards: bool = False, sized: bool = False,
                   soft: bool = False) -> str:
        """A read of the state looked up once before a define's body: the name holding it. When
        the define keeps its results (see `define`), the names of these reads are what a kept
        result is checked against (a zone's, `cards`, by the cards it holds, the list itself
        changing as cards move). `soft`: looked up with `lookup`, which gives _MISS when there is
        nothing to read, and failing only where the body reads it; else read with `read`, whose
        failure (a LookupError, as `_unhoisted` would) sends the whole expression to the slow path."""
        read = read or lookup
        name = self.hoists.get(read)
        if name is None:
            name = self.hoists[read] = f"_h{len(self.hoists)}"
            if soft:
                self.hoist_lines.append(f"{name} = {lookup}")
                self.hoists[f"soft {name}"] = name
            else:
                self.hoist_lines.append(f"{name} = {read}")
            if self.keeping is not None:
                self.keeping["reads"].append(name)
                if cards:
                    self.keeping["cards"].add(name)
                if sized:
                    self.keeping["sized"].add(name)
        if f"soft {name}" in self.hoists:
            return f"({name} if {name} is not _MISS else _unhoisted())"
        return name

    def sized(self, e) -> bool:
        """Whether a value read for a define keeping its results is a list or a map (kept only
        while short, see `define`); one that may hold lists or maps is not kept at all."""
        t = self.type_of(e)
        if _scalar(t):
            return False
        if not _flat(t):
            self.impure()
        return True

    def kid_call(self, fname: str, values: list[str]) -> str:
        """A call of a define's function. A define that calls others does not keep its results:
        checking them again would mean calling those again (most such bodies do little else)."""
        self.impure()
        return f"{fname}(m{''.join(', ' + v for v in values)})"

    def impure(self) -> None:
        """What is being generated reads more of the state than the define keeping its results
        checks (a zone, tokens, a card's var, another define, the reference): it cannot keep them."""
        if self.keeping is not None:
            self.keeping["ok"] = False

    def iterable(self) -> int:
        """Enter a comprehension's iterable: 1 when no `:=` may be written in it (see `first_of`),
        0 when it may (in a define's body, where it is worked out first when it holds one)."""
        step = 0 if self.tallies() else 1
        self.in_iterable += step
        return step

    def short_joined(self, e, scope: dict) -> bool:
        """Whether `e` is a list written out (not empty) joined with one no longer than
        _SHORT_RANGE_BOUND's ranges make (`length_bound`): never empty, never too long."""
        if not (isinstance(e, n.BinOp) and e.op == "+" and isinstance(e.left, n.ListLit) and e.left.items
                and not any(isinstance(x, n.Gen) for x in e.left.items)):
            return False
        length = self.length_bound(e.right, scope)
        return length is not None and len(e.left.items) + length <= 2 * _SHORT_RANGE_BOUND + 1

    def length_bound(self, e, scope: dict) -> int | None:
        """The most items a list `e` can have, from what never changes (see `bound`), or None."""
        if isinstance(e, n.ListLit):
            if len(e.items) == 1 and isinstance(e.items[0], n.Gen):
                return self.length_bound(e.items[0], scope)
            return None if any(isinstance(x, n.Gen) for x in e.items) else len(e.items)
        if isinstance(e, n.Gen):  # (a filter keeps no more than its source's items)
            return self.length_bound(e.source, scope)
        if self.is_range(e):
            bounds = [self.bound(a, scope) for a in e.args]
            return None if None in bounds else 2 * max(bounds) + 1
        if isinstance(e, n.Name):
            cat, name = self.p.resolved.get(id(e), ("local", e.id))
            value = self.c.const(name) if cat == "const" else None
            return len(value) if value.__class__ is list else None
        if isinstance(e, n.BinOp) and e.op == "+":
            left, right = self.length_bound(e.left, scope), self.length_bound(e.right, scope)
            return None if left is None or right is None else left + right
        return None

    def short_range(self, e, scope: dict) -> bool:
        """Whether `e` is a range whose ends are numbers known to lie within _SHORT_RANGE_BOUND
        (`bound`): never too long, and looked through for little enough that a budget running out
        on the way is found when the body pays its tally, at its end, rather than before."""
        if not self.is_range(e):
            return False
        bounds = [self.bound(a, scope) for a in e.args]
        return None not in bounds and max(bounds) <= _SHORT_RANGE_BOUND

    def first_of(self, src: str, step: int, short: bool = False) -> tuple[str, str]:
        """A comprehension's iterable `src` made with `:=` in it (`iterable` gave 0): Python
        refuses that, so it is worked out just before the comprehension (which works out its
        iterable first anyway), into a new name: (what goes first, the name); or ("", src)."""
        if step:
            return "", src
        inner = _only_argument(src, "_iter_range")
        parts = _top_level_split(inner) if inner is not None else []
        if len(parts) in (2, 3) and all(parts) and (len(parts) == 2 or _literal_int(parts[2])):
            # In a define's body, what `_iter_range` does, without the call (a loop over a range
            # of a define's arguments runs in most calls of some games' defines): the range
            # refused when too long (the slow path reports it), its units added to the body's
            # tally and the budget (the tally counted) checked before the loop starts
            name = self.var()
            self.ranges[name] = (parts[0], parts[1])
            per = 2 + (int(parts[2]) if len(parts) == 3 else 0)
            if short:  # (`short_range`: the tally is paid and checked with the body's, at its end)
                return f"({name} := range({parts[0]}, ({parts[1]}) + 1)), (_u := _u + {per} * len({name})), ", name
            return (f"({name} := range({parts[0]}, ({parts[1]}) + 1)), (len({name}) <= {MAX_ITEMS} or _too_many())"
                    f" and ((_u := _u + {per} * len({name})) + b.used <= b.limit or _over()), "), name
        if ":=" not in src and not src.startswith("_iter(m, _d"):
            # (a define's list is worked out first too, and no comprehension made when it has
            # no items, as the lists some defines give most often have none)
            return "", src
        name = self.var()
        return f"({name} := {src}), ", name

    def gen(self, e: n.Gen, scope: dict) -> str:
        step = self.iterable()
        try:
            source = self.expr(e.source, scope)
            inner = _only_argument(source, "_paid_flat")
            # A flat list paid for by its length, then iterated (paid for again): one call.
            src = f"_items_paid_flat(m, {inner})" if inner is not None else f"_items(m, {source})"
        finally:
            self.in_iterable -= step
        if e.cond is None and e.elem is None:
            return src  # the list itself is the value: a copy
        # Only iterated, and nothing changes while an expression is worked out: no copy.
        src = "_iter" + src[len("_items"):]
        short = False
        if self.is_range(e.source) and inner is not None:
            short = self.short_range(e.source, scope)
            step = self.iterable()
            try:
                low, high = (self.expr(a, scope) for a in e.source.args)
            finally:
                self.in_iterable -= step
            src = f"_iter_range(m, {low}, {high})"  # the numbers, never made into a list
        unrolled = self.unrolled(e, src, scope)
        if unrolled is not None:
            return unrolled
        v = self.var()
        self.loop_of[v] = src
        inner = _bound_var({**scope, e.var: v}, e.var, self.items_bound(e.source, scope))
        self.in_loop += 1
        try:
            cond = f" if {self.expr(e.cond, inner)}" if e.cond is not None else ""
            elem = self.expr(e.elem, inner) if e.elem is not None else None
        finally:
            self.in_loop -= 1
        # An inlined define's call (`_paid_call(m) and ...`) that each item's condition, or each
        # item when there is no condition, begins with is paid for every item: paid for them all
        # with the items instead (the same units; an error re-runs the reference, see `function`)
        calls = 0
        if cond:
            cond, calls = _first_calls(cond[4:])
            cond = f" if {cond}"
        elif elem is not None:
            elem, calls = _first_calls(elem)
        if calls:
            src = f"{src[:-1]}, {calls * STEPS_PER_CALL})"
        src, tally = self.known_iteration(src, calls * STEPS_PER_CALL)
        before, after = (f"({tally}", ")") if tally else ("", "")  # around the comprehension
        first, src = self.first_of(src, step, short)
        if first:
            before, after = f"{before}({first}", f")[-1]{after}"
        # (over items worked out into a name first, none of which there may be: no comprehension
        # made and called for nothing, which is most of the time for some games' loops)
        made = (lambda listed: f"({listed} if {src} else [])") if first else (lambda listed: listed)
        kept = _ITEM_OF.match(cond[4:]) if cond and src in self.ranges and self.bool_read(e.cond, e.var) else None
        if kept is not None and kept.group(2) == v and kept.group(1) != v:
            # kept where a list of truths is true at the item (`[f(i) for i in range(a, b) where
            # xs[i]]`): none when none of its slice is, found without the comprehension (most
            # such lists are mostly false), when every position is one of its own
            flags = kept.group(1)
            none_true = f"0 <= {src}.start and {src}.stop <= len({flags}) and True not in {flags}[{src}.start:{src}.stop]"
            made = (lambda listed: f"({listed} if {src} and not ({none_true}) else [])")  # noqa: E731 - as above
        if elem is None:
            return f"{before}{made(f'[{v} for {v} in {src}{cond}]')}{after}"
        charged = self.charged(f"list:{self.type_of(e.elem)}")
        written = self.written_out(elem, v, src) if tally and not cond and not first else None
        if written is not None:
            return f"{charged}(m, {before}{written}{after})"
        listing = f"[{elem} for {v} in {src}{cond}]"
        item = _ITEM_OF.match(elem) if src in self.ranges and not cond else None
        if item is not None and item.group(2) == v and item.group(1) != v:
            # a list's items over a range of its positions (a range written in place, `first_of`):
            # a slice of it, when every position is one of its own (else item by item, as before)
            items = item.group(1)
            listing = (f"({items}[{src}.start:{src}.stop] if 0 <= {src}.start and {src}.stop <= len({items})"
                       f" else {listing})")
            return f"{charged}(m, {before}{listing}{after})"
        return f"{charged}(m, {before}{made(listing)}{after})"

    def written_out(self, elem: str, v: str, src: str) -> str | None:
        """`[elem for v in LIST]` over a constant list of a few more items than `unrolled`
        writes out (up to _WRITTEN_OUT_ITEMS): the item's source, made once, written again for
        each item with the loop's variable replaced by the item's constant, `[elem(a), elem(b),
        ...]`. The same work item by item, in order, as the comprehension does (which is a call
        of its own, with its frame and cells); unlike `unrolled`, nothing is worked out here per
        item, so making it costs a load no more than the comprehension did. The iteration is
        paid for with the body's tally (`known_iteration`), as for the comprehension."""
        items = self.known(src)
        if items is None or not 0 < len(items) <= _WRITTEN_OUT_ITEMS or not all(type(x) in (int, str) for x in items):
            return None
        if len(elem) * len(items) > _WRITTEN_OUT_SOURCE:
            return None
        pieces = _LOCAL_NAME.split(elem)  # (text, a name, text, ...): the loop's variable among the names
        at = [i for i in range(1, len(pieces), 2) if pieces[i] == v]
        written = []
        for x in items:
            for i in at:
                pieces[i] = f"({x})" if type(x) is int else self.const(x)
            written.append(_CONST_TEST.sub(self.folded_test, "".join(pieces)))
        listed = f"[{', '.join(written)}]"
        self.written_lists[listed] = len(written)
        return listed

    def folded_test(self, found: re.Match) -> str:
        """`(_kA == _kB)` or `!=` of two texts of the namespace (an item written out compared
        with a constant, `written_out`): True or False, which Python's compiler folds with the
        branch it decides (texts are named once each, so two names are two different texts).
        Anything else as it is."""
        first, op, second = found.groups()
        if not (self.ns.get(first).__class__ is str and self.ns.get(second).__class__ is str):
            return found.group()
        return str((first == second) == (op == "=="))

    def iterated(self, source_node, scope: dict) -> tuple[str, str]:
        """The source of a loop of any() or all(), and the items it goes over, paid for as `_iter`
        pays: a flat list paid for by its length and iterated in one call, a range's numbers
        never made into a list."""
        source = self.expr(source_node, scope)
        inner = _only_argument(source, "_paid_flat")
        if inner is None:
            return source, f"_iter(m, {source})"
        if self.is_range(source_node):
            low, high = (self.expr(a, scope) for a in source_node.args)
            return source, f"_iter_range(m, {low}, {high})"
        return source, f"_iter_paid_flat(m, {inner})"

    def truth_of_gen(self, e: n.Gen, stop_at: bool, scope: dict) -> str | None:
        """any() (`stop_at` True) or all() of a comprehension, stopping at the deciding item, as
        the reference's `truth_of_gen` does and pays; None (the reference's closure does it) when
        an item may be a list or a map, whose size the reference works out."""
        item = self.type_of(e.elem) if e.elem is not None else elem_type(self.type_of(e.source))
        if not _scalar(item) or self.by_reference(e) or (e.elem is None and e.cond is None):
            return None
        step = self.iterable()
        try:
            src = self.iterated(e.source, scope)[1]
        finally:
            self.in_iterable -= step
        short = src.startswith("_iter_range(") and self.short_range(e.source, scope)
        v = self.var()
        inner_scope = _bound_var({**scope, e.var: v}, e.var, self.items_bound(e.source, scope))
        self.in_loop += 1
        try:
            cond = self.expr(e.cond, inner_scope) if e.cond is not None else None
            elem = self.expr(e.elem, inner_scope) if e.elem is not None else None
        finally:
            self.in_loop -= 1
        src, tally = self.known_iteration(src, 0)
        before, after = (f"({tally}", ")") if tally else ("", "")
        first, src = self.first_of(src, step, short)
        if first:
            before, after = f"{before}({first}", f")[-1]{after}"
        if elem is None:  # a filter: each item's truth is its condition
            helper = "_any_kept" if stop_at else "_all_kept"
            return f"{before}{helper}(m, ({cond} for {v} in {src})){after}"
        if cond is None and self.tallies():
            listed = self.looked_at(elem, v, src, stop_at, self.bool_read(e.elem, e.var))
            if listed is None and tally and not first:
                listed = self.truth_unrolled(e, src, stop_at, scope)
            if listed is not None:
                return f"{before}{listed}{after}"
        kept = f" if {cond}" if cond is not None else ""
        return f"{before}_items_until(m, ({elem} for {v} in {src}{kept}), 2, {stop_at}){after}"

    def span_read(self, h: str, sources: list[str]) -> tuple[str, str] | None:
        """The bounds (two arguments or numbers) of the ranges written in place (`first_of`)
        at whose positions alone generated `sources` read list `h`, when every read of it is
        one (`h[i]` for an `i` of such a range, a slice of it, `len(h)`) and all those ranges
        have the same bounds; else None."""
        text = "\n".join(sources)
        loops = dict(_LOOP_OVER.findall(text))  # a comprehension's variable -> what it goes over
        spans = set()
        for found in re.finditer(rf"\b{h}\b", text):
            start, end = found.start(), found.end()
            if text.startswith(f"{h} = ", start) or text[max(0, start - 4):start] == "len(":
                continue  # (its hoisted line, or its length in a slice's test)
            read = _POSITION_READ.match(text, end)
            if read is None:
                return None
            over = read.group(1) if read.group(2) else loops.get(read.group(1))
            if over not in self.ranges:
                return None
            spans.add(self.ranges[over])
        if len(spans) != 1:
            return None
        span = spans.pop()
        return span if all(_BOUND.match(x) for x in span) else None

    def truth_unrolled(self, e: n.Gen, src: str, stop_at: bool, scope: dict) -> str | None:
        """any() (`stop_at` True) or all() over a short list known when the code is made (a
        list written out, `known_iteration`'s tuple, or a constant list), in a define's body:
        the items written out, `a or b or c` (`and` for all()), each paying, when it is looked
        at, the 2 units an item looked at pays (added to the body's tally), as `_items_until`
        pays them; no generator and no call."""
        if src.startswith("(") and src.endswith(")"):
            items = [x for x in src[1:-1].split(", ") if x]
            items = [x.rstrip(",") for x in items]
        else:
            known = self.known(src)
            if known is None or not all(type(x) in (int, str) for x in known):
                return None
            items = [self.const(x) for x in known]
        if not 0 < len(items) <= _UNROLLED_ITEMS or not all(_SIMPLE_ITEM.match(x) for x in items):
            return None
        self.in_loop += 1
        try:
            elems = [self.expr(e.elem, _bound_var({**scope, e.var: x}, e.var, None)) for x in items]
        finally:
            self.in_loop -= 1
        if any(len(x) > _UNROLLED_SOURCE for x in elems):
            return None
        joined = f" {'or' if stop_at else 'and'} ".join(f"((_u := _u + 2) and {x})" for x in elems)
        return f"({joined})" if self.always_bool(e.elem) else f"(not not ({joined}))"

    def bool_read(self, e, var: str) -> bool:
        """Whether `e` is an item of a list of truths at a comprehension's variable `var`
        (`xs[i]`, xs a list of bool): its items are true or false themselves, so its truth is
        found by `==` (`True in xs[a:b]`) as well as by looking at each."""
        return (isinstance(e, n.Index) and isinstance(e.index, n.Name) and e.index.id == var
                and self.p.resolved.get(id(e.index), ("local", var)) == ("local", var)
                and self.type_of(e.obj) == "list:bool")

    def looked_at(self, elem: str, v: str, src: str, stop_at: bool, bools: bool = False) -> str | None:
        """any() (`stop_at` True) or all() of items whose value `elem` reads and compares
        what the body already holds (its names, their items) and pays nothing but, maybe, calls
        of small defines written in place (`(_u := _u + 5) and ...` first): in a define's body,
        every item's value in one list (no generator, no `_items_until`), the items the
        reference looks at (up to the deciding one) counted in it and added to the body's
        tally, each with what it pays. An item past the deciding one is worked out too: it can
        change nothing (a read fails at worst, and the slow path does it all again)."""
        per = 2
        match = _LEADING_TALLY.match(elem)
        while match is not None and _first_bracket_ends(elem):
            per += int(match.group(1))
            elem = match.group(2)
            match = _LEADING_TALLY.match(elem)
        if not _FREE_SOURCE.match(elem) or _CALL_IN_SOURCE.search(elem):
            return None
        known = self.known(src)
        if src not in self.ranges and (known is None or len(known) > _LOOKED_AT_ITEMS):
            # (over a long list, or one whose length is not known here, the deciding item often
            # comes early: working out every item costs more than the generator saves)
            return None
        found, values = self.var(), self.var()
        deciding = not stop_at  # each item's `not`: the deciding item's
        search = (f"({values}.index({deciding}) + 1 if {deciding} in ({values} := [not ({elem}) for {v} in {src}])"
                  f" else 0)")
        item = _ITEM_IS.match(elem) if src in self.ranges else None
        if (item is not None and item.group(2) == v and v not in (item.group(1), item.group(4))
                and item.group(3) == ("==" if stop_at else "!=")):
            # a list's items over a range of its positions, the deciding one equal to a value
            # (`any(xs[i] == n ...)`, `all(xs[i] != n ...)`): looked for in a slice of the list,
            # when every position is one of its own
            items, wanted = item.group(1), item.group(4)
            search = (f"(({values}.index({wanted}) + 1 if {wanted} in ({values} := {items}[{src}.start:{src}.stop]) else 0)"
                      f" if 0 <= {src}.start and {src}.stop <= len({items}) else {search})")
        item = _ITEM_OF.match(elem) if bools and src in self.ranges else None
        if item is not None and item.group(2) == v and item.group(1) != v:
            # a list of truths' items over a range of its positions (`any(xs[i] for i in
            # range(a, b))`): the deciding item, true for any() and false for all(), looked for
            # in a slice of the list, when every position is one of its own
            items = item.group(1)
            search = (f"(({values}.index({stop_at}) + 1 if {stop_at} in ({values} := {items}[{src}.start:{src}.stop]) else 0)"
                      f" if 0 <= {src}.start and {src}.stop <= len({items}) else {search})")
        looked = f"({found} := {search}), (_u := {per} * ({found} or len({values})) + _u), "
        return f"({looked}{found} {'>' if stop_at else '=='} 0)[-1]"

    def truth_loops(self, e, scope: dict, out: list[str], ind: str, listed: str | None = None) -> str | None:
        """any() or all() of a comprehension that is a define's whole body (or, inside one such,
        an item's value) written as loops in the define's function, into the lines `out`: the
        name holding its truth, or None when it is not one (`truth_of_gen` decides, as for the
        expression). Generators and `_items_until` calls per item cost most of such a body (a
        line of marks found among constant lines); the loops pay exactly what they pay, within
        the same expression: each loop's items looked at when it stops, with its iteration when
        that is `_iter`'s (a list worked out here; a constant list or a range is paid before).
        `listed`: the name of the item of an outer loop over a constant list of lists, when
        there is one; a loop over that item adds what it pays to the body's tally (paid when the
        body ends, see `define`): the constant bounds it, and its items pay their own work."""
        if not (isinstance(e, n.Call) and len(e.args) == 1 and isinstance(e.args[0], n.Gen)):
            return None
        cat, name = self.p.resolved.get(id(e), ("builtin", e.func))
        g = e.args[0]
        if cat != "builtin" or name not in ("any", "all") or g.elem is None:
            return None  # (a filter, and the rest, as expressions)
        if not _scalar(self.type_of(g.elem)) or self.by_reference(g):
            return None
        stop_at = name == "any"
        self.in_iterable += 1
        try:
            source, src = self.iterated(g.source, scope)
        finally:
            self.in_iterable -= 1
        v = self.var()
        inner_scope = _bound_var({**scope, g.var: v}, g.var, self.items_bound(g.source, scope))
        count, truth = self.var(), self.var()
        src, tally = self.known_iteration(src, 0)
        if tally:  # (the tally's check, as a statement: `X and ` without its `and`)
            out.append(f"{ind}{tally[:-len(' and ')]}")
        paid = ""  # what the items' iteration pays, paid with the items looked at (see below)
        constant = self.known(src) if tally else None
        lists = (v if constant is not None and all(type(x) is list for x in constant)
                 and sum(map(len, constant)) <= MAX_ITEMS else None)  # (for the loops inside)
        tallied = listed is not None and source == listed and src == f"_iter(m, {source})"
        if lists is not None and listed is None and g.cond is None:
            truth = self.loops_over_lists(g, stop_at, src, constant, v, inner_scope, out, ind)
            if truth is not None:
                return truth
        if tallied:  # an item of a constant list of lists: a list, paid for with the tally
            src, paid = source, f"len({source}) + "
        elif src == f"_iter(m, {source})":  # (`_iter` written out: a call per item of an outer loop)
            items = self.var()
            out += [f"{ind}{items} = {source}",
                    f"{ind}if not {items}:",
                    f"{ind}    {items} = ()"]
            src, paid = items, f"len({items}) + "
            found = self.item_found(g, stop_at)
            if found is not None:  # (the loop by the list's own search: the same items looked at)
                out += [f"{ind}if {found} in {items}:",
                        f"{ind}    {count} = {items}.index({found}) + 1",
                        f"{ind}    {truth} = {stop_at}",
                        f"{ind}else:",
                        f"{ind}    {count} = len({items})",
                        f"{ind}    {truth} = {not stop_at}",
                        f"{ind}b.used += {paid}{count} * 2",
                        f"{ind}if b.used > b.limit:",
                        f"{ind}    m.charge(0)"]
                return truth
        if not tallied and src.isidentifier() and self.chain_loop(g, stop_at, src, v, count, truth, scope,
                                                                  inner_scope, out, ind):
            out.append(f"{ind}b.used += {paid}{count} * 2")
            out.append(f"{ind}if b.used > b.limit:")
            out.append(f"{ind}    m.charge(0)")
            return truth
        out.append(f"{ind}{count} = 0")
        out.append(f"{ind}{truth} = {not stop_at}")
        out.append(f"{ind}for {v} in {src}:")
        body = ind + "    "
        self.in_loop += 1
        try:
            if g.cond is not None:
                out.append(f"{body}if not {self.expr(g.cond, inner_scope)}:")
                out.append(f"{body}    continue")
            out.append(f"{body}{count} += 1")
            elem = self.truth_loops(g.elem, inner_scope, out, body, lists)
            per_item = 2  # what `_iter`'s counting pays per item looked at
            if elem is None:
                elem = self.expr(g.elem, inner_scope)
                if (isinstance(g.elem, n.Compare) and g.elem.op not in ("in", "notin")
                        and _scalar(self.type_of(g.elem.left))):  # `(a op b)`: both sides worked out
                    counted = _counted_held(elem, g.elem.op)
                    if counted is not None:  # a remembered call as one side: paid by the items counted
                        elem, per_item = counted, per_item + STEPS_PER_CALL
        finally:
            self.in_loop -= 1
        out.append(f"{body}if {'' if stop_at else 'not '}{elem}:")
        out.append(f"{body}    {truth} = {stop_at}")
        out.append(f"{body}    break")
        # (the iteration, as `_iter` pays it, and each item looked at, paid when the loop stops:
        # one payment for both, the same total; the items pay their own work as they go, so
        # the budget is at most the list's length behind, and an overrun fails here and the
        # reference, run again, reports it at its rule)
        if tallied:
            out.append(f"{ind}(_u := _u + {paid}{count} * {per_item})")
            return truth
        out.append(f"{ind}b.used += {paid}{count} * 2")
        out.append(f"{ind}if b.used > b.limit:")
        out.append(f"{ind}    m.charge(0)")
        if per_item != 2:  # (the calls' part with the body's tally, where `_counted_held` takes its first back)
            out.append(f"{ind}_u += {count} * {per_item - 2}")
        return truth

    def chain_loop(self, g: n.Gen, stop_at: bool, items: str, v: str, count: str, truth: str, scope: dict,
                   inner_scope: dict, out: list[str], ind: str) -> bool:
        """any()/all() over a constant list whose item's condition is a call of a kept pure define
        (`p(x, t)`, its arguments names) alone or `and` something that pays nothing: the loop
        by the chain of its calls when there is one (see MAX_CHAIN_ITEMS), else by its calls,
        noting the chain after. Into `out`, with `count` and `truth` set as the plain loop sets
        them (the caller pays for the items looked at); False (nothing written) for any other."""
        source = g.source
        if (g.cond is not None or not isinstance(source, n.Name)
                or self.p.resolved.get(id(source), ("local",))[0] not in ("enum", "const")):
            return False
        call, rest = g.elem, None
        if isinstance(call, n.BoolOp):  # (the call first, always made; then what pays nothing)
            call, rest = call.left, call.right
            if not self.free(rest):
                return False
        if not isinstance(call, n.Call) or call.kwargs or self.p.resolved.get(id(call), ("",))[0] != "define":
            return False
        name = self.p.resolved[id(call)][1]
        if not self.chained_callee(name):
            return False
        others: list[str] = []
        shape: list[int] = []
        for a in call.args:
            if not isinstance(a, n.Name) or self.p.resolved.get(id(a), ("local", a.id))[0] != "local":
                return False
            if a.id == g.var:
                shape.append(-1)
            elif a.id in scope:
                shape.append(len(others))
                others.append(self.expr(a, scope))
            else:
                return False
        if -1 not in shape:
            return False
        y, chain = self.var(), self.var()
        self.chain_sites += 1
        site = self.const(f"chain {self.chain_sites}")  # (a name of this call site, in the namespace)
        whole = ", ".join(["m.s.num_players", site, *others])
        listed = "".join(f"{x}, " for x in others)
        self.in_loop += 1
        try:
            test = f"{y} {g.elem.op} {self.expr(rest, inner_scope)}" if rest is not None else y
        finally:
            self.in_loop -= 1
        out += [f"{ind}{count} = 0",
                f"{ind}{truth} = {not stop_at}",
                f"{ind}{chain} = _chains.get(({whole})) if m.calls is None else None",
                f"{ind}if {chain} is not None:",
                f"{ind}    for {v}, {y} in zip({items}, {chain}[0]):",
                f"{ind}        {count} += 1",
                f"{ind}        if {'' if stop_at else 'not '}({test}):",
                f"{ind}            {truth} = {stop_at}",
                f"{ind}            break",
                f"{ind}    if not _chain_paid(m, {chain}, {count}):",
                f"{ind}        {chain} = None",
                f"{ind}        {count} = 0",
                f"{ind}        {truth} = {not stop_at}",
                f"{ind}if {chain} is None:",
                f"{ind}    for {v} in {items}:",
                f"{ind}        {count} += 1"]
        self.in_loop += 1
        try:
            elem = self.expr(g.elem, inner_scope)
        finally:
            self.in_loop -= 1
        out += [f"{ind}        if {'' if stop_at else 'not '}{elem}:",
                f"{ind}            {truth} = {stop_at}",
                f"{ind}            break",
                f"{ind}    _chain_note(m, _chains, _pure, {site}, ({listed}), {items}, {self.const(name)}, "
                f"{tuple(shape)!r})"]
        return True

    def chained_callee(self, name: str) -> bool:
        """Whether define `name` is kept for the game by its arguments alone (``define``'s pure
        form: its memo key and its kept key are those `_chain_note` makes)."""
        d = self.p.defines[name]
        params = list(d.params or ())
        return (all(self.param_hashable(prm) for prm in params) and not self.free(d.value)
                and _scalar(self.type_of(d.value)) and self.pure(d.value)
                and all(prm.type.form == "name" and (prm.type.name in ("card", "player") or prm.type.name in self.p.enums
                                                     or prm.type.name in self.p.kinds) for prm in params))

    def plain_key(self, prm) -> bool:
        """Whether a define's parameter is a card, a player or a member of an enum or a kind:
        a plain value (a number or a name) that `==` and a dict's lookup find alike."""
        return prm.type.form == "name" and (prm.type.name in ("card", "player") or prm.type.name in self.p.enums
                                            or prm.type.name in self.p.kinds)

    def item_found(self, g: n.Gen, stop_at: bool) -> str | None:
        """The number `c` when an any()/all() over a list decides at its first item equal to `c`
        (`any(x == c for x in xs)`, `all(x != c for x in xs)`, `c` a whole number written in the
        rules): the items looked at are then those up to that item, or all of them, and the
        list's own search (`c in xs`, `xs.index(c)`) finds them as the loop would (`==` and `!=`
        of the values a list holds are each other's opposites). None for any other."""
        e = g.elem
        if (g.cond is not None or not isinstance(e, n.Compare) or (e.op, stop_at) not in (("==", True), ("!=", False))
                or not self.type_of(g.source).startswith("list:")):
            return None
        for item, other in ((e.left, e.right), (e.right, e.left)):
            if (isinstance(item, n.Name) and item.id == g.var
                    and self.p.resolved.get(id(item), ("local",))[0] == "local"
                    and isinstance(other, n.Lit) and type(other.value) is int):
                return repr(other.value)
        return None

    def loops_over_lists(self, g: n.Gen, stop_at: bool, src: str, constant: list, v: str, scope: dict,
                         out: list[str], ind: str) -> str | None:
        """`any(all(x == y for x in line) for line in LINES)` (any of any(), all() inside one
        another), LINES a constant list of lists and no `where`: what `truth_loops` writes for
        it, in fewer steps. The inner loop ends where it decides (`break`) or goes through
        (`else`), and counts the items it looks at on from line to line; what each line's loop
        pays, its length and 2 per item looked at (`_iter`), is paid once, when the outer loop
        stops, in the body's tally: the lengths of the lines looked at (always the first ones)
        from a table, the items from that count. The same units as `truth_loops` pays, within
        the same expression; None (and nothing written) for anything else."""
        inner = g.elem
        if not (isinstance(inner, n.Call) and len(inner.args) == 1 and isinstance(inner.args[0], n.Gen)):
            return None
        cat, name = self.p.resolved.get(id(inner), ("builtin", inner.func))
        g2 = inner.args[0]
        if (cat != "builtin" or name not in ("any", "all") or g2.elem is None or g2.cond is not None
                or not isinstance(g2.source, n.Name) or self.p.resolved.get(id(g2.source), ("local",))[0] != "local"
                or self.expr(g2.source, scope) != v
                or not _scalar(self.type_of(g2.elem)) or self.by_reference(g2)):
            return None
        e2 = g2.elem
        if isinstance(e2, n.Call) and self.p.resolved.get(id(e2), ("builtin", e2.func))[1] in ("any", "all"):
            return None  # (loops three deep: as `truth_loops` writes them)
        count, items, truth, item = self.var(), self.var(), self.var(), self.var()
        self.in_loop += 2  # (as inside both loops of `truth_loops`)
        try:
            elem = self.expr(e2, _bound_var({**scope, g2.var: item}, g2.var, None))
            per_item = 2
            if isinstance(e2, n.Compare) and e2.op not in ("in", "notin") and _scalar(self.type_of(e2.left)):
                counted = _counted_held(elem, e2.op)
                if counted is not None:
                    elem, per_item = counted, per_item + STEPS_PER_CALL
        finally:
            self.in_loop -= 2
        side = _held_side(elem) if per_item != 2 and constant[0] else None
        if side is not None:
            # The first list has items, and the loops compare its first item at least: the
            # call is made before them (when it has not been), taking its own payment back as
            # where it was (the items counted pay for each use)
            elem, held, call = side
            out += [f"{ind}if {held} is _MISS:",
                    f"{ind}    _u -= {STEPS_PER_CALL}",
                    f"{ind}    {held} = {call}"]
        inner_any = name == "any"
        starts = [0]  # the lengths of the first k lines, for each k
        for line in constant:
            starts.append(starts[-1] + len(line))
        written = _lines_written_out(constant, elem, item, inner_any, stop_at, (count, items, truth, self.var()), ind)
        if written is not None:
            out += written
        else:
            out += [f"{ind}{count} = 0",
                    f"{ind}{items} = 0",
                    f"{ind}{truth} = {not stop_at}",
                    f"{ind}for {v} in {src}:",
                    f"{ind}    {count} += 1",
                    f"{ind}    for {item} in {v}:",
                    f"{ind}        {items} += 1",
                    f"{ind}        if {'' if inner_any else 'not '}{elem}:",
                    f"{ind}            break"]
            if inner_any == stop_at:  # (any of any(), all of all()): the outer loop stops where the inner one did
                out += [f"{ind}    else:",
                        f"{ind}        continue",
                        f"{ind}    {truth} = {stop_at}",
                        f"{ind}    break"]
            else:  # where the inner one went through
                out += [f"{ind}    else:",
                        f"{ind}        {truth} = {stop_at}",
                        f"{ind}        break"]
        out += [f"{ind}(_u := _u + {self.const(tuple(starts))}[{count}] + {items} * {per_item})",
                f"{ind}b.used += {count} * 2",
                f"{ind}if b.used > b.limit:",
                f"{ind}    m.charge(0)"]
        return truth

    def unrolled(self, e: n.Gen, src: str, scope: dict) -> str | None:
        """`[elem for x in LIST]` over a short list known when the code is made (a constant list, a
        range of two numbers), in a define's body: the items written out, `[elem(a), elem(b), ...]`,
        each with its item as a constant, in order. No loop (a comprehension is a call of its own),
        and what an item makes of its constant is worked out here (`x == red` of each item
        folded, calls with the same constant arguments made once as `remembered` does). It pays
        what the loop pays: the items' iteration, added to the body's tally before the items as
        `known_iteration` adds it, and each item's own work as it is done."""
        if e.cond is not None or e.elem is None:
            return None
        items_src, tally = self.known_iteration(src, 0)
        if not tally:
            return None
        if items_src.startswith("range("):
            low, high = (int(a) for a in items_src[6:-1].split(", "))
            items: list = list(range(low, high))
        else:
            items = self.known(items_src) or []
        if not 0 < len(items) <= _UNROLLED_ITEMS or not all(type(x) in (int, str) for x in items):
            return None
        self.in_loop += 1
        try:
            elems = [self.expr(e.elem, _bound_var({**scope, e.var: self.const(x)}, e.var, None)) for x in items]
        finally:
            self.in_loop -= 1
        charged = self.charged(f"list:{self.type_of(e.elem)}")
        listed = f"[{', '.join(elems)}]"
        self.written_lists[listed] = len(elems)
        return f"{charged}(m, ({tally}{listed}))"

    def constant(self, source: str) -> tuple[bool, Any]:
        """(True, the value) when generated source names a plain constant (a number, a text of
        the namespace, none, true or false); else (False, None)."""
        if _literal_int(source):
            return True, int(source)
        if source in ("None", "True", "False"):
            return True, {"None": None, "True": True, "False": False}[source]
        if _CONST_NAME.match(source) is not None and type(self.ns.get(source)) in (int, str, bool):
            return True, self.ns[source]
        return False, None

    def known(self, source: str) -> list | None:
        """The list a constant of the namespace holds (a `const`, a literal), when `source` names
        one: its length is known here, so what using it pays is too. Constants never change."""
        if _CONST_NAME.match(source) is None:
            return None
        value = self.ns.get(source)
        return value if value.__class__ is list and len(value) <= MAX_ITEMS else None

    def tallies(self) -> bool:
        """Whether the source being generated may add to the tally of a define's body."""
        return self.hoists is not None and not self.in_iterable

    def known_iteration(self, src: str, per: int) -> tuple[str, str]:
        """A comprehension's iterable over a constant list or a range of two numbers, in a define's
        body: the items themselves, with what `_iter` or `_iter_range` would pay for them added to
        the body's tally before the comprehension (`(_u := _u + n) and `, or "" for nothing)."""
        if not self.tallies():
            return src, ""
        listed = _LISTED_ITER.match(src)
        if listed is not None and _first_bracket_ends(src):
            # a list written out in the rules (`for st in [0, 1, 2]`): paid for as it is made
            # (`_charged_flat`) and iterated (`_iter`), its length known here; its items as a tuple
            items = [x for x in listed.group(1).split(", ") if x]
            if all(_SIMPLE_ITEM.match(x) for x in items):
                per_item = 2 + per  # (a third argument of `_iter`, when there is one, is `per`)
                return f"({', '.join(items)}{',' if len(items) == 1 else ''})", _loop_tally(len(items) * per_item)
        match = _ITER_CALL.match(src)
        if match is None:
            return src, ""
        helper, args = match.group(1), [a.strip() for a in match.group(2).split(",")]
        if helper == "_iter" and len(args) in (1, 2) and self.known(args[0]) is not None:
            cost = len(self.known(args[0])) * (1 + per)
            return args[0], _loop_tally(cost)
        if helper == "_iter_range" and len(args) in (2, 3) and all(_literal_int(a) for a in args[:2]):
            low, high = int(args[0]), int(args[1])
            if high - low > MAX_ITEMS or high - low + 1 > MAX_ITEMS:
                return src, ""  # refused there
            cost = max(0, high - low + 1) * (2 + per)
            return f"range({low}, {high + 1})", _loop_tally(cost)
        return src, ""

    def inlined(self, name: str, values: list[str], given: tuple | None = None) -> str | None:
        """A small define that is never remembered (its body pays nothing, or it takes a list),
        or one no op calls twice with the same arguments (`unrepeated`, called here only),
        called with names or numbers: its body written in place of the call, paid for as a call.
        The arguments are names, so reading them again costs nothing and changes nothing. In a
        define's body, other arguments are worked out first (once, as for the call), into names."""
        d = self.p.defines[name]
        params = list(d.params or ())
        simple = [v.isidentifier() or v.isdigit() for v in values]
        # A define no op calls twice with the same arguments (`unrepeated`) is called here only:
        # written in place whatever its size, it pays what its call pays (its memo never hits)
        once = self.hoists is not None and self.unrepeated(name)
        if (len(values) != len(params) or not (all(simple) or self.tallies())
                or (self.size_of(d.value) > 60 and not once)
                or not (once or self.free(d.value) or any(self.param_hashable(prm) is False for prm in params))):
            return None
        names, made, first = self.argument_values(values, simple)
        scope = self.bounded_scope(params, names, given)
        self.roots.append((name, d.value))
        try:
            body = f"({self.paid_call()} and {self.expr(d.value, scope)})"
        finally:
            self.roots.pop()
        return self.arguments_first(made, first, body)

    def argument_values(self, values: list[str], simple: list[bool]) -> tuple[list[str], list[str], list[str]]:
        """The names a define's body written in place reads its arguments by: each argument that
        is a name or a number itself; a call remembered in a name (`_held`) that name, worked out
        first; any other worked out first into a new name. Also the new names, and what is worked
        out first."""
        names, made, first = [], [], []
        for v, plain in zip(values, simple, strict=True):
            call = None if plain else _KID_CALL.match(v)
            if call is not None and call.group(1) in self.define_functions:
                # a call with the caller's own arguments (`hand(p)`): remembered in a name as in
                # a loop (`remembered`), which every other such call, in place or in a loop, reads
                args = [a for a in call.group(2).split(", ") if a]
                v = self.remembered(self.define_functions[call.group(1)], args, {}, v, outside=True)
            held = None if plain else _held(v)
            if plain:
                names.append(v)
            elif held is not None:  # the same value wherever it is read: its counts kept too
                names.append(held)
                first.append(v)
                self.hoists[f"held {held}"] = held  # (hoists' names are the body's own)
            else:
                names.append(self.var())
                made.append(names[-1])
                first.append(f"({names[-1]} := {v})")
                self.argument_names.add(names[-1])
        return names, made, first

    def arguments_first(self, made: list[str], first: list[str], body: str) -> str:
        """`body` after the arguments are worked out (`argument_values`), the counts `bag_again`
        keeps of a new name forgotten whenever it is given a new value."""
        if not first:
            return body
        work = first + [f"({self.hoists[f'_bag({t})']}p := 0)" for t in made if f"_bag({t})" in self.hoists]
        return f"({', '.join(work)}, {body})[-1]"

    def remembered(self, name: str, values: list[str], scope: dict, call: str, work: str | None = None,
                   outside: bool = False) -> str:
        """A call, in a loop of a define's body, of a define whose result is remembered, with
        arguments that stay the same through the loop (the define's own parameters, constants):
        called once; every other time it costs what a remembered call costs (STEPS_PER_CALL), as
        the memo would give the same result (it only grows while the body is worked out).
        `work`: source doing what `call` does, in place (see `in_place`), used instead of it.
        `outside`: outside loops too (an argument of a define written in place, `argument_values`)."""
        params = self.p.defines[name].params or ()
        if not (self.hoists is not None and (self.in_loop or outside) and not self.in_iterable
                and all(self.param_hashable(prm) for prm in params)
                and all(_invariant(v) for v in values)):
            return work or call
        held = self.hoists.get(call)
        if held is None:
            held = self.hoists[call] = f"_h{len(self.hoists)}"
            self.hoist_lines.append(f"{held} = _MISS")
        return f"({held} if {held} is not _MISS and {self.paid_call()} else ({held} := {work or call}))"

    def in_place(self, name: str, values: list[str], given: tuple | None = None) -> str | None:
        """A call, in a loop of a define's body, of a define whose function only remembers its
        results in the define memo (`remembering`, Machine.memo): what that function does, written
        in place. The call is paid for (added to the body's tally), the memo looked up by the same
        key, and on a miss the define's body is worked out here and remembered under it. No
        call, and the body is made in the caller's own body, so what it reads or calls with the
        caller's arguments is read or called once for both (`hoisted`, `remembered`,
        `bag_again`). The same units paid, the same entries remembered in the same order as the
        call would make."""
        d = self.p.defines[name]
        params = list(d.params or ())
        if (name not in self.remembering or not self.tallies() or not self.in_loop or len(values) != len(params)
                or self.size_of(d.value) > _IN_PLACE_SIZE or self.in_place_depth >= _IN_PLACE_DEPTH):
            return None
        self.impure()  # (it reads the define memo)
        hoists, hoist_lines = dict(self.hoists), list(self.hoist_lines)
        simple = [v.isidentifier() or _literal_int(v) for v in values]
        names, made, first = self.argument_values(values, simple)
        scope = self.bounded_scope(params, names, given)
        self.roots.append((name, d.value))
        self.in_place_depth += 1
        try:
            body = self.expr(d.value, scope)
        finally:
            self.in_place_depth -= 1
            self.roots.pop()
        # too much to compile again: called (nothing it read ahead kept); (a call's memo looked up
        # first, see `call`, counted as the call alone)
        if len(body) > _IN_PLACE_SOURCE and len(_LOOKED_UP_FIRST.sub(r"\2", body)) > _IN_PLACE_SOURCE:
            self.hoists, self.hoist_lines = hoists, hoist_lines
            return None
        found, key = self.var(), self.var()
        keyed = f"({self.const(name)}, {''.join(a + ', ' for a in names)})"  # the function's key
        if name in self.worked_first:
            # (its body worked out first, as its function does: the memo looked up only when it
            # paid something, a result found then giving back what it paid; the lookup written
            # first, evaluated last, so that `_looked_up_once` finds its key where it begins)
            value, before = self.var(), self.var()
            work = (f"({self.paid_call()} and (({found} if ({found} := m.memo.get(({key} := {keyed}), _MISS)) "
                    f"is not _MISS and ((_u := {before} - b.used) is not None) else m.memo.setdefault({key}, {value})) "
                    f"if (({before} := b.used + _u), ({value} := {body}))[0] != b.used + _u else {value}))")
            return self.arguments_first(made, first, work)
        work = (f"({self.paid_call()} and ({found} if ({found} := m.memo.get(({key} := {keyed}), _MISS)) "
                f"is not _MISS else m.memo.setdefault({key}, {body})))")
        return self.arguments_first(made, first, work)

    def paid_call(self) -> str:
        """Source paying for a call of a define whose result is known (always true). In a define's
        body, added to the body's own tally `_u` (paid when the body ends, see `define`): the same
        units, without a call."""
        if self.hoists is not None and not self.in_iterable:  # no `:=` in a comprehension's iterable
            return f"(_u := _u + {STEPS_PER_CALL})"
        return "_paid_call(m)"

    def bag_again(self, arg: str) -> str | None:
        """`bag(x)` of a define's parameter or a constant, in a define's body: the counts made at
        its first use are used again at the others, each paid for as `_bag` pays for a list it
        remembers (its length and its counts'), added to the body's tally. Also of a name an
        inlined define's argument was worked out into (`inlined` forgets the counts whenever it
        gives the name a new value)."""
        if self.hoists is None or self.in_iterable or not (
                _invariant(arg) or arg in self.argument_names or f"held {arg}" in self.hoists):
            return None
        key = f"_bag({arg})"
        held = self.hoists.get(key)
        if held is None:
            held = self.hoists[key] = f"_h{len(self.hoists)}"
            self.hoist_lines.append(f"{held}p = 0")
        # `{held}p`: what a use pays once they are made (0 before: an empty list's counts pay
        # nothing, as that 0 says: made again, as `_bag` does)
        return (f"({held} if {held}p and (_u := _u + {held}p) "
                f"else (({held} := _bag_flat(m, {arg})), ({held}p := len({arg}) + len({held})))[0])")

    def nth_of_zone(self, e) -> bool:
        """Whether `e` is an item of a list made of a zone's cards or a field of them, with no
        condition (`[c.number for c in numbers][k]`): see `expr`."""
        g = e.obj.items[0] if isinstance(e.obj, n.ListLit) and len(e.obj.items) == 1 else e.obj
        if not (isinstance(e, n.Index) and isinstance(g, n.Gen) and g.cond is None and g.elem is not None
                and self.type_of(g.source) == "zone"):
            return False
        x = g.elem
        return (isinstance(x, n.Name) and x.id == g.var) or (
            isinstance(x, n.Attr) and isinstance(x.obj, n.Name) and x.obj.id == g.var
            and self.p.resolved.get(id(x), ("dynamic",))[0] == "field" and x.name not in ("name", "text"))

    def loops_beyond_nth(self, e) -> bool:
        """`_loops`, but for an item of a list of a zone's cards (`nth_of_zone`), not made at all."""
        if isinstance(e, n.Index) and self.nth_of_zone(e):
            return _loops(e.index)
        return isinstance(e, n.Gen) or any(self.loops_beyond_nth(x) for x in _subexpressions(e))

    def never_none(self, e, depth: int = 0) -> bool:
        """Whether `e` never gives none, in either backend (it gives a value of its own kind or
        fails): a bool (`always_bool`), a number, a text or a list written in the rules,
        arithmetic and `+` (none has neither), a text with parts, a comprehension, a count, a
        sum, a size, a range, the distinct items of a list, `min()`/`max()` of a list written
        out (with an item that is never none) joined with another (the extreme of items that are
        compared with that one, which none cannot be), an `if` whose both sides never give none,
        and a call of a define whose body never gives none."""
        if self.always_bool(e) or isinstance(e, (n.BinOp, n.Neg, n.Template, n.ListLit, n.Gen)):
            return True
        if isinstance(e, n.Lit):
            return e.value is not None
        if isinstance(e, n.Cond):
            return self.never_none(e.then, depth) and self.never_none(e.orelse, depth)
        if depth < 8 and isinstance(e, (n.Call, n.Name)):
            cat, name = self.p.resolved.get(id(e), ("builtin", getattr(e, "func", "")))
            if cat == "define":
                return self.never_none(self.p.defines[name].value, depth + 1)
            if cat == "builtin" and isinstance(e, n.Call) and not e.kwargs:
                if name in ("count", "sum", "size", "range", "distinct"):
                    return True
                if name in ("min", "max") and len(e.args) == 1:
                    joined = e.args[0]
                    return (isinstance(joined, n.BinOp) and joined.op == "+" and isinstance(joined.left, n.ListLit)
                            and any(self.never_none(x, depth + 1) for x in joined.left.items))
        return False

    def always_bool(self, e, depth: int = 0) -> bool:
        """`_always_bool`, or a call of a define whose body always gives a bool (its value is its
        body's, worked out here or by the reference, remembered or not)."""
        if _always_bool(e):
            return True
        if depth < 8 and isinstance(e, (n.Call, n.Name)):
            cat, name = self.p.resolved.get(id(e), ("", ""))
            if cat == "define":
                return self.always_bool(self.p.defines[name].value, depth + 1)
        return False

    def is_range(self, e) -> bool:
        return (isinstance(e, n.Call) and len(e.args) == 2
                and self.p.resolved.get(id(e), ("builtin", e.func)) == ("builtin", "range"))

    def call(self, e: n.Call, scope: dict) -> str:
        cat, name = self.p.resolved.get(id(e), ("builtin", e.func))
        if cat == "define":
            values = [self.expr(a, scope) for a in e.args]
            given = (e.args, scope)  # (the arguments' bounds, for a body written in place: `small`)
            inlined = self.inlined(name, values, given)
            if inlined is not None:
                return inlined
            call = self.kid_call(self.define(name), values)
            made = self.calls_made
            again = False
            if made is not None and all(v.isidentifier() or _literal_int(v) for v in values):
                # (the same arguments: the same names, or items of loops over the same list)
                made_key = (name, *(self.loop_of.get(v, v) for v in values))
                again = made_key in made
                made.add(made_key)
            work = self.remembered(name, values, scope, call, self.in_place(name, values, given))
            if work == call and again and self.tallies() and name in self.remembering:
                # Called before in this body with the same arguments, its result most likely
                # remembered: the memo looked up in place first, a result found paid for as a
                # remembered call (added to the tally); the function called only when it is not
                found = self.var()
                key = f"({self.const(name)}, {''.join(v + ', ' for v in values)})"  # the function's key
                return (f"({found} if ({found} := m.memo.get({key}, _MISS)) is not _MISS and {self.paid_call()}"
                        f" else {call})")
            return work
        if name not in _ARGUMENT_FUNCTIONS:
            self.impure()
        if (name == "tokens" and len(e.args) == 2 and not e.kwargs and isinstance(e.args[1], n.Name)
                and self.p.resolved.get(id(e.args[1]), ("",))[0] == "token"):
            # `tokens(x, t)` of a token named in the rules: as `x.t` is read (its name paid
            # nothing as an argument: a text)
            read = self.token_read(e.args[0], self.p.resolved[id(e.args[1])][1], scope)
            if read is not None:
                return read
        if name in ("any", "all") and len(e.args) == 1 and isinstance(e.args[0], n.Gen):
            lazy = self.truth_of_gen(e.args[0], name == "any", scope)
            return lazy if lazy is not None else self.reference(e, scope)
        b = registry.BY_NAME[name]
        impl = self.made(("function", name), FUNCTIONS[name])
        args = []
        for i, a in enumerate(e.args):
            prm = b.params[min(i, len(b.params) - 1)]
            if prm.type == "zone":
                args.append(self.zone_key(a, scope))
            else:
                args.append(self.holder(a, scope) if prm.type == "holder" else self.expr(a, scope))
        zone = ", _paid_flat" if len(args) == 1 and _flat(self.type_of(e.args[0])) else ""
        if len(args) == 1 and zone and name in ("min", "max") and _only_argument(args[0], "_add_built"):
            joined = _only_argument(args[0], "_add_built")
            parts = _top_level_split(joined)
            if self.tallies() and len(parts) == 2:
                # In a define's body, what `_max_built` does, without the call (a tenth of some
                # games' defines): the joined list's 3 units an item added to the body's tally
                # (read after the lists are made, since making them may add to it too),
                # the budget (the tally counted) checked at once; an empty list gives 0 and a
                # list too long fails (`_built_else`), which sends it to the slow path
                t = self.var()
                if self.short_joined(e.args[0], scope):
                    # (never empty nor long: the tally, then the list's pick; the tally is paid with
                    # the body's, at its end, as for a short range)
                    return f"({name}({t}) if (_u := 3 * len({t} := ({parts[0]}) + ({parts[1]})) + _u) is not None else 0)"
                return (f"({name}({t}) if ((_u := 3 * len({t} := ({parts[0]}) + ({parts[1]})) + _u) + b.used <= b.limit"
                        f" or _over()) and 0 < len({t}) <= {MAX_ITEMS} else _built_else({t}))")
            return f"_{name}_built(m, {joined})"  # min(a + b): one call
        if len(args) == 1 and zone and name == "count":
            equal = _COUNT_EQUAL.match(args[0])
            if (equal is not None and equal.group(1) == equal.group(2) == equal.group(4)
                    and equal.group(5) != equal.group(1) and len(_top_level_split(equal.group(3))) == 1
                    and args[0] == f"[{equal.group(1)} for {equal.group(1)} in _iter(m, {equal.group(3)})"
                                   f" if ({equal.group(1)} == {equal.group(5)})]"):
                # `count(x in xs where x == v)`: the list's own count (`_count_equal`)
                return f"_count_equal(m, {equal.group(3)}, {equal.group(5)})"
        if len(args) == 1 and zone and name in _FUSED_FLAT:
            built = _only_argument(args[0], "_charged_flat")  # a list just built: paid for twice
            if built is not None:
                summed = self.tallied_sum(built) if name == "sum" and self.tallies() else None
                return summed if summed is not None else f"{_FUSED_FLAT[name]}(m, {built}, 2)"
            return f"{_FUSED_FLAT[name]}(m, {args[0]})"
        if len(args) == 1 and name == "bag" and zone:
            again = self.bag_again(args[0])
            if again is not None:
                return again
        if len(args) == 1 and name == "count" and not zone and _only_argument(args[0], "_charged") is not None:
            # a list just built (never none): paid for by its items, then again given to count()
            return f"len(_charged_paid(m, {_only_argument(args[0], '_charged')}))"
        if len(args) == 1 and name == "count" and not zone and _only_argument(args[0], "_charged_lists") is not None:
            listed = _only_argument(args[0], "_charged_lists")
            holding = _lists_holding(listed)
            if holding is not None:  # `count(s for s in xs where x in s)`: one call, no comprehension
                if not self.in_iterable and (holding[1].isidentifier() or _literal_int(holding[1])):
                    # (no call for no lists, which is most often so in some games: 0, as the
                    # helper gives at once, when the item is a name or a number, read for nothing)
                    listed = self.var()
                    return f"(_count_in_lists(m, {listed}, {holding[1]}, 2) if ({listed} := {holding[0]}) else 0)"
                return f"_count_in_lists(m, {holding[0]}, {holding[1]}, 2)"
            return f"len(_charged_lists(m, {listed}, 2))"
        if len(args) == 1 and name == "bag" and zone:
            if args[0].isidentifier():  # an empty list's counts (most often) without the call
                return f"({{}} if {args[0]} == [] else _bag_flat(m, {args[0]}))"
            return f"_bag_flat(m, {args[0]})"
        if len(args) == 1 and name in _FUSED_1:
            return f"{_FUSED_1[name]}(m, {args[0]}{zone})"
        if name in ("max", "min") and len(args) >= 2 and all(self.type_of(a) == "int" for a in e.args):
            if len(args) == 2 and not self.in_iterable:
                return self.extreme_of_two(name, args[0], args[1])
            return f"{name}({', '.join(args)})"  # ints are not paid for; None raises (slow path)
        if name == "abs" and len(args) == 1:
            return f"abs({args[0]})"  # a list or a dict raises, as in the reference
        # Otherwise the reference's charging around the call, as the types allow: nothing for a
        # number or a name, the length of a flat list or bag, every item of anything else.
        paid = []
        for i, a in enumerate(e.args):
            prm = b.params[min(i, len(b.params) - 1)]
            pay = "" if prm.type == "holder" else self.pay(self.type_of(a))
            if pay == "_paid_flat" and _only_argument(args[i], "_add_flat") is not None:
                paid.append(f"_add_flat(m, {_only_argument(args[i], '_add_flat')}, 2)")
            elif pay == "_paid_flat" and _only_argument(args[i], "_add_built") is not None:
                paid.append(f"_add_built(m, {_only_argument(args[i], '_add_built')}, 2)")
            elif pay == "_paid" and _only_argument(args[i], "_charged") is not None:
                paid.append(f"_charged_paid(m, {_only_argument(args[i], '_charged')})")
            elif pay == "_paid" and _only_argument(args[i], "_charged_lists") is not None:
                paid.append(f"_charged_lists(m, {_only_argument(args[i], '_charged_lists')}, 2)")
            elif pay == "_paid" and self.constant(args[i])[0]:
                paid.append(args[i])  # (a number, a text, none: `_paid` pays nothing for it)
            else:
                paid.append(f"{pay}(m, {args[i]})" if pay else args[i])
        result = f"{impl}(m{''.join(', ' + a for a in paid)})"
        if (name == "range" and len(args) == 2 and not e.kwargs and all(_literal_int(a) for a in paid)
                and int(paid[1]) - int(paid[0]) <= MAX_ITEMS):
            # a range between two numbers written out (a choice of a square): the list `_range`
            # makes, without its call (its length checked here), paid for as its result
            result = f"list(range({paid[0]}, {int(paid[1]) + 1}))"
        pay = self.pay(self.type_of(e))
        if pay == "_paid" and self.charged(self.type_of(e)) == "_charged_lists":
            pay = "_paid_lists"  # (a list of flat lists or bags: their lengths summed, no walk)
            if name == "flatten" and len(paid) == 1 and _only_argument(paid[0], "_charged_paid") is not None:
                # (a list of such lists just built, flattened: one call, one payment)
                return _flattened(_only_argument(paid[0], "_charged_paid"))
        return f"{pay}(m, {result})" if pay else result

    def tallied_sum(self, built: str) -> str | None:
        """sum() of a list written out in a define's body (`written_out`, `unrolled`: its length
        known here, its cost already in the tally's check before it is made), without the call of
        `_sum_flat`: the list's 2 units an item (built, then given to sum()) added to that same
        tally and check, the total checked as `_sum_flat` checks it. A none among the items (or
        a total out of bounds) fails, and the slow path gives what the reference gives."""
        match = _TALLIED_LIST.match(built)
        listed = match.group(2) if match is not None else "[]"
        items = self.written_lists.get(listed)
        if items is None:  # (not written out here: counted, unless a comprehension may be one)
            items = _list_items(built, match.start(2)) if match is not None else None
            if _COMPREHENDED.search(listed):
                return None  # (whose length is not known here)
        if items is None or listed == "[]":
            return None
        total = self.var()
        return (f"(((_u := _u + {int(match.group(1)) + 2 * items}) + b.used <= b.limit or _over()) and "
                f"({total} if -{MAX_INT} <= ({total} := sum({listed})) <= {MAX_INT} else check_int({total})))")

    def extreme_of_two(self, name: str, first: str, second: str) -> str:
        """`max(x, y)` or `min(x, y)` of two numbers without the call (a call of a built-in
        costs more than the comparison): what the built-in does, which keeps the first unless
        the second is strictly past it. Each worked out once, in order; None raises (slow path)."""
        y = self.var()
        if _literal_int(first):
            return f"({y} if ({y} := {second}) {'>' if name == 'max' else '<'} {first} else {first})"
        x = self.var()
        return f"({y} if ({x} := {first}) {'<' if name == 'max' else '>'} ({y} := {second}) else {x})"

    @staticmethod
    def pay(t: str) -> str:
        """The helper that pays for a value of type `t` given to or made by a built-in, or ""."""
        return "" if _scalar(t) else "_paid_flat" if _flat(t) else "_paid"

    def define(self, name: str) -> str:
        """The generated function of a define, made on first use, with the memo its types allow."""
        if name in self.define_names:
            return self.define_names[name]
        fname = self.define_names[name] = f"_d{len(self.define_names)}"
        self.define_functions[fname] = name
        d = self.p.defines[name]
        params = list(d.params or ())
        args = [f"a{j}" for j in range(len(params))]
        scope = {prm.name: a for prm, a in zip(params, args, strict=True)}
        scope["$define"] = "1"
        # (numbers every call gives within bounds: sums of them need no check, see `small`)
        for prm, bound in zip(params, self.param_bounds(name) if params else (), strict=True):
            scope = _bound_var(scope, prm.name, bound)
        kinds = [self.param_hashable(prm) for prm in params]
        # Whether its results can be kept past the memo's forgetting (see below): tried when the
        # checked tree says it reads no more than its players' vars and the game's vars, and
        # its body loops (checking a kept result costs about what a body without loops does).
        result = self.type_of(d.value)
        keep = (all(kinds) and not self.free(d.value) and self.loops_beyond_nth(d.value) and (_scalar(result) or _flat(result))
                and self.keepable(d.value, set(scope), 0, _zone_free_result(d.value, result)))
        body, lines, reads, loops = self.define_body(name, scope, keep)
        if keep and reads is None:  # it read more after all (a define not written in place): as usual
            body, lines, reads, loops = self.define_body(name, scope, False)
        if reads is None:
            body, loops, held = _looked_up_once(body, loops)
            lines = lines + held
        body, loops, fields = _card_fields_once(body, loops)
        lines = lines + fields

        tally = "_u :=" in body or any("_u :=" in line or "_u += " in line for line in lines + loops)

        def work(indent: str, target: str, reads_first: bool = True, call_paid: bool = True) -> str:
            """The lines that work out the body into `target`: its hoisted reads first and, when
            it tallies what it pays (`paid_call`, `bag_again`), the tally paid at the end. When
            the call is not paid yet (`call_paid` false, with a tally only), the tally starts
            with the call's payment."""
            out = [f"{indent}_u = {0 if call_paid else STEPS_PER_CALL}\n"] if tally else []
            out += [f"{indent}{line}\n" for line in lines] if reads_first else []
            out += [f"{indent}{line.replace(_SEATS_ITERATED, _SEATS_RANGE)}\n" for line in loops]
            out.append(f"{indent}{target} = {body.replace(_SEATS_ITERATED, _SEATS_RANGE)}\n")
            if tally:
                paid = f"{indent}    " if call_paid else indent
                out.append((f"{indent}if _u:\n" if call_paid else "") +
                           f"{paid}b.used += _u\n"
                           f"{paid}if b.used > b.limit:\n"
                           f"{paid}    m.charge(0)\n")
            return "".join(out)
        arglist = "".join(", " + a for a in args)
        key = f"({self.const(name)}, {''.join(a + ', ' for a in args)})"  # the reference's keys
        # A body that never gives none (`never_none`: a bool, a number worked out...) is never
        # remembered as None: the memo looked up without a default, and None told apart from a
        # result with no name's lookup
        looked_up, missing = ("key", "r is None") if self.never_none(d.value) else ("key, _MISS", "r is _MISS")
        # A call is paid for even when its result is remembered, as in the reference; written out
        # in place, since a method call per define call was a tenth of the time in some games.
        pay_call = ("    b = m.budget\n"
                    f"    b.used += {STEPS_PER_CALL}\n"
                    "    if b.used > b.limit:\n"
                    "        m.charge(0)\n")
        if self.free(d.value) or any(k is False for k in kinds):
            # Its body pays nothing (numbers, names, fields, comparisons of plain values): the
            # memo would charge what working it out again charges, STEPS_PER_CALL, and cost more.
            # Or the reference's memo would fail on every call (a list given to it).
            src = f"def {fname}(m{arglist}):\n{pay_call}{work('    ', 'r')}    return r\n"
        elif all(kinds) and _scalar(self.type_of(d.value)) and self.pure(d.value):
            # Kept for the whole game, by the arguments (their classes too: 1 and True are one
            # key to a dict) and the number of players (see MAX_PURE_KEPT), and in the memo.
            # A body calling pure defines notes their calls while it is worked out, and a kept
            # result makes them again (`_replay`); every pure define tells what it paid to the
            # one working it out, if any.
            # (a card's, a player's or a member's values are never numbers that equal truths:
            # their classes need not be told apart)
            classes = "".join("" if prm.type.form == "name" and (
                prm.type.name in ("card", "player") or prm.type.name in self.p.enums or prm.type.name in self.p.kinds)
                else f"type({a}), " for prm, a in zip(params, args, strict=True))
            # Both forms below: a remembered result pays the call; otherwise the kept entry, if any
            head = (f"def {fname}(m{arglist}):\n"
                    f"    b = m.budget\n"
                    f"    start = b.used\n"
                    f"    key = {key}\n"
                    f"    memo = m.memo\n"
                    f"    r = memo.get(key, _MISS)\n"
                    f"    if r is not _MISS:\n"
                    f"        b.used = start + {STEPS_PER_CALL}\n"
                    f"        if b.used > b.limit:\n"
                    f"            m.charge(0)\n"
                    f"    else:\n"
                    f"        whole = (m.s.num_players, {classes}key)\n"
                    f"        kept = _pure.get(whole)\n")
            # and the call, with what it paid, told to a pure define working this one out
            tail = (f"    if m.calls is not None:\n"
                    f"        m.calls.append((key, (m.s.num_players, {classes}key), b.used - start))\n"
                    f"    return r\n")
            if self.calls_define(d.value):
                worked = (f"            outer = m.calls\n"
                          f"            m.calls = calls = []\n"
                          f"            try:\n"
                          f"{work('                ', 'r = memo[key]')}"
                          f"            finally:\n"
                          f"                m.calls = outer\n"
                          f"            _keep_pure(_pure, whole, r, b.used - before, calls)\n")
                # (`_replay` written in place when the calls made none of their own: `kept[4]`)
                # (what it pays summed in a local, `u`, and set once: the budget's field read
                # and written once rather than at every call made again)
                again = ("            if kept[2]:\n"
                         "                flat = kept[4]\n"
                         "                if flat is not None:\n"
                         "                    for call_key, call_result, call_paid in flat:\n"
                         f"                        if call_key in memo:\n"
                         f"                            u += {STEPS_PER_CALL}\n"
                         "                        else:\n"
                         "                            memo[call_key] = call_result\n"
                         "                            u += call_paid\n"
                         "                else:\n"
                         "                    b.used = u\n"
                         "                    _replay(b, memo, kept[2], _pure)\n"
                         "                    u = b.used\n")
            else:
                worked = (f"{work('            ', 'r = memo[key]')}"
                          f"            _keep_pure(_pure, whole, r, b.used - before)\n")
                again = ""
                # Calling no define, its kept results pay what a call pays and what the body paid
                # in one sum (`kept[3]`), checked once: the same units, an overrun within the same
                # call (which the slow path, run again, reports where the reference does)
                src = (f"{head}"
                       f"        if kept is not None:\n"
                       f"            b.used = start + kept[3]\n"
                       f"            if b.used > b.limit:\n"
                       f"                m.charge(0)\n"
                       f"            r = memo[key] = kept[0]\n"
                       f"        else:\n"
                       f"            b.used = start + {STEPS_PER_CALL}\n"
                       f"            if b.used > b.limit:\n"
                       f"                m.charge(0)\n"
                       f"            before = b.used\n"
                       f"{worked}"
                       f"{tail}")
                self._source.append(src)
                return fname
            # (a kept result pays the call and what its body paid in one sum, `kept[3]`, checked
            # once with its calls made again: the same units, an overrun within the same call)
            src = (f"{head}"
                   f"        if kept is None:\n"
                   f"            b.used = start + {STEPS_PER_CALL}\n"
                   f"            if b.used > b.limit:\n"
                   f"                m.charge(0)\n"
                   f"            before = b.used\n"
                   f"{worked}"
                   f"        else:\n"
                   f"            r = memo[key] = kept[0]\n"
                   f"            u = start + kept[3]\n"
                   f"{again}"
                   f"            b.used = u\n"
                   f"            if u > b.limit:\n"
                   f"                m.charge(0)\n"
                   f"{tail}")
        elif self.unrepeated(name) and reads is None:
            # Never called twice with the same arguments while the memo keeps results
            # (`unrepeated`): the memo never hits.
            src = f"def {fname}(m{arglist}):\n{pay_call}{work('    ', 'r')}    return r\n"
        elif reads is not None:
            # Its results kept past the memo (forgotten whenever the state may change): its
            # body reads nothing but the vars hoisted before it (values never change in place:
            # a var set is a new value) and calls no define, so with the same arguments and the
            # very same values read it gives the same result and pays the same, `kept[-2]`, paid
            # again here in one sum as the body would pay it. Kept for the game as loaded, across
            # its states (clones share their vars' values); the entry holds the values it was
            # checked against, so their identities are never reused while it is kept.
            # A list read only at the positions of ranges between the same two arguments (or
            # numbers), `xs[i] for i in range(a, b)`, is checked by those items alone (a slice):
            # the same items give the same result and pay the same, whatever else of it changed.
            spans = {h: self.span_read(h, [body, *loops, *lines]) for h, cards, _ in reads if not cards}
            held = {h: (f"{h}[{span[0]}:({span[1]}) + 1]" if span is not None else h) for h, span in spans.items()}
            same = "".join(f" and kept[{j}] == {h}" if cards else f" and kept[{j}] == {held[h]}" if held[h] != h
                           else f" and kept[{j}] is {h}" for j, (h, cards, _) in enumerate(reads))
            # (what an entry holds stays small: the lists it read and gives, each at most
            # KEPT_ITEMS long; longer, the result is not kept)
            sized = [h for h, _, sized in reads if sized] + ([] if _scalar(self.type_of(d.value)) else ["r"])
            short = " and ".join([f"type({h}) in (list, dict) and len({h}) <= {KEPT_ITEMS}" for h in sized]
                                 + [f"type({h}) is list and 0 <= {span[0]} and {span[1]} < len({h})"
                                    for h, span in spans.items() if span is not None])
            # (a body tallying what it pays pays its call with the tally, as below, and a kept
            # result then holds what the call paid too: one payment, one check)
            src = (f"def {fname}(m{arglist}):\n"
                   f"{'' if tally else pay_call}"
                   f"    key = {key}\n"
                   f"    memo = m.memo\n"
                   f"    r = memo.get({looked_up})\n"
                   + ("    b = m.budget\n" if tally else "") +
                   f"    if {missing}:\n"
                   + "".join(f"        {line}\n" for line in lines) +
                   "        kept = _KEPT.get(key)\n"
                   f"        if kept is not None{same}:\n"
                   + ("            b.used += kept[-2]\n"
                      "            if b.used > b.limit:\n"
                      "                m.charge(0)\n" if tally else
                      "            if kept[-2]:\n"
                      "                b.used += kept[-2]\n"
                      "                if b.used > b.limit:\n"
                      "                    m.charge(0)\n") +
                   "            r = memo[key] = kept[-1]\n"
                   f"        else:\n"
                   f"            start = b.used\n"
                   f"{work('            ', 'r = memo[key]', False, call_paid=not tally)}"
                   f"            if len(_KEPT) >= _KEPT_MAX:\n"
                   f"                _KEPT.clear()\n"
                   + (f"            if {short}:\n    " if short else "") +
                   f"            _KEPT[key] = ({''.join((h + '[:]' if cards else held[h]) + ', ' for h, cards, _ in reads)}"
                   f"b.used - start, r)\n"
                   + (f"    else:\n"
                      f"        b.used += {STEPS_PER_CALL}\n"
                      f"        if b.used > b.limit:\n"
                      f"            m.charge(0)\n" if tally else "") +
                   "    return r\n")
        elif all(kinds) and not tally and _scalar(result) and not self.calls_define(d.value) and _memo_free(body, lines):
            # Its body calls no define and pays nothing that depends on the memo (`_memo_free`):
            # it is worked out first, before the memo is looked up. When it paid nothing (most
            # often, for some games' bodies: a card's number less the counts of an empty list),
            # a result remembered or not costs the same, STEPS_PER_CALL, and is the same (the
            # state has not changed): the memo is neither looked up nor written. Otherwise the
            # memo decides, as in the reference: a result found is given, and what the body paid
            # is taken back; else the result is remembered. (Working it out may fail where a
            # remembered result would not, on the budget alone: the slow path then gives what the
            # reference gives.) `in_place` writes the same in place of its calls.
            self.remembering.add(name)
            self.worked_first.add(name)
            src = (f"def {fname}(m{arglist}):\n"
                   f"{pay_call}"
                   f"    start = b.used\n"
                   f"{work('    ', 'r')}"
                   f"    if b.used != start:\n"
                   f"        key = {key}\n"
                   f"        memo = m.memo\n"
                   f"        found = memo.get(key, _MISS)\n"
                   f"        if found is not _MISS:\n"
                   f"            b.used = start\n"
                   f"            return found\n"
                   f"        memo[key] = r\n"
                   f"    return r\n")
        elif all(kinds):
            # (`in_place` writes this lookup, key and store in place of its calls in loops of
            # other defines' bodies: the two change together)
            self.remembering.add(name)
            if tally:
                # A body tallying what it pays pays the call with its tally, once, when it ends
                # (the same units; an overrun fails there, and the slow path reports it where
                # the reference does); a remembered result pays the call alone
                worked = self.unchecked_calls(work('        ', 'r = memo[key]', call_paid=False))
                head = (f"    key = {key}\n"
                        f"    memo = m.memo\n"
                        f"    r = memo.get({looked_up})\n"
                        f"    b = m.budget\n"
                        f"    if {missing}:\n")
                src = (f"def {fname}(m{arglist}):\n"
                       f"{head}{worked}"
                       f"    else:\n"
                       f"        b.used += {STEPS_PER_CALL}\n"
                       f"        if b.used > b.limit:\n"
                       f"            m.charge(0)\n"
                       f"    return r\n")
                if worked.endswith(_TALLY_CHECKED):
                    # its twin, called from bodies like this one's only: the same, without the
                    # checks after paying (made when a body first calls it)
                    self.unchecked[fname] = (f"def {fname}_u(m{arglist}):\n"
                                             f"{head}{worked[:-len(_TALLY_CHECKED)]}        b.used += _u\n"
                                             f"    else:\n"
                                             f"        b.used += {STEPS_PER_CALL}\n"
                                             f"    return r\n")
            else:
                opening = (f"def {fname}(m{arglist}):\n"  # (a call paid, its memo looked up)
                           f"{pay_call}"
                           f"    key = {key}\n"
                           f"    memo = m.memo\n"
                           f"    r = memo.get({looked_up})\n"
                           f"    if {missing}:\n")
                grouped = _GROUPED.match(body) if len(params) == 1 and not lines and not loops and self.plain_key(params[0]) else None
                if grouped is not None:
                    # `[c in zone where c.x == a]`, `x` a var of cards: the zone's cards grouped by `c.x` once for
                    # every call in the memo's lifetime (it is forgotten with it, when anything
                    # changes), each call paying what its comprehension pays (iterating the zone;
                    # the test pays nothing) and given its own list of that group's cards, in the
                    # zone's order. The same cards: `==` and a dict's lookup agree on the plain
                    # values (numbers, names, truths, none) a card, player or member equals.
                    item, zone, value = grouped.groups()
                    held = self.const(f"grouped {name}")  # (a text no define's name is: no define's key)
                    src = (f"{opening}"
                           f"        _z = {zone}\n"
                           f"        _g = memo.get({held})\n"
                           f"        if _g is None:\n"
                           f"            _g = {{}}\n"
                           f"            for {item} in _z:\n"
                           f"                _x = {value}\n"
                           f"                _l = _g.get(_x)\n"
                           f"                if _l is None:\n"
                           f"                    _g[_x] = [{item}]\n"
                           f"                else:\n"
                           f"                    _l.append({item})\n"
                           f"            memo[{held}] = _g\n"
                           f"        if _z:\n"
                           f"            b.used += len(_z)\n"
                           f"            if b.used > b.limit:\n"
                           f"                m.charge(0)\n"
                           f"        _l = _g.get(a0)\n"
                           f"        r = memo[key] = _l[:] if _l is not None else []\n"
                           f"    return r\n")
                else:
                    src = (f"{opening}"
                           f"{work('        ', 'r = memo[key]')}"
                           f"    return r\n")
        else:  # the types do not say: try, as the reference does
            src = (f"def {fname}(m{arglist}):\n"
                   f"{pay_call}"
                   f"    key = {key}\n"
                   f"    memo = m.memo\n"
                   f"    try:\n"
                   f"        r = memo.get(key, _MISS)\n"
                   f"    except TypeError:\n"
                   f"{work('        ', 'r')}"
                   f"        return r\n"
                   f"    if r is _MISS:\n"
                   f"{work('        ', 'r = memo[key]')}"
                   f"    return r\n")
        head = f"def {fname}(m{arglist}):\n{pay_call}"
        if src.startswith(head):
            # (a function paying its call first, and checking the budget then: its twin pays it
            # without the check, which its caller makes after the call, see `unchecked_calls`)
            self.unchecked[fname] = (f"def {fname}_u(m{arglist}):\n    b = m.budget\n    b.used += {STEPS_PER_CALL}\n"
                                     + src[len(head):])
        self._source.append(src)
        return fname

    def unchecked_calls(self, worked: str) -> str:
        """The lines working out the body of a define of the tallying form (`define`: its tally,
        the call's payment in it, is paid when it ends, and the budget checked then, whatever
        happened before), with each call of a define of that same form made to its twin that
        adds what it pays to the budget without checking it (`unchecked`): the caller's check,
        which always comes after the call, finds an overrun the callee made, as the callee's
        would have. Nothing in a define's body changes the state, and an overrun found later
        than where it happened sends the expression to the slow path all the same (which works
        it out again with the reference, from the budget and the memo as they were before), so
        the same units are paid and the same errors raised where the reference raises them."""

        def twin(match: re.Match) -> str:
            callee = match.group(1)
            made = self.unchecked.get(callee)
            if made is None:
                return match.group(0)
            if made:
                self._source.append(made)
                self.unchecked[callee] = ""
            return f"{callee}_u(m"
        return _DEFINE_CALL.sub(twin, worked)

    def remembered_by_type(self, name: str) -> bool:
        """Whether a define's types let its results be remembered (see `define`)."""
        d = self.p.defines[name]
        return not self.free(d.value) and all(self.param_hashable(prm) for prm in d.params or ())

    def unrepeated(self, name: str) -> bool:
        """Whether define `name` is never called twice with the same arguments while the memo
        keeps results (``Machine.memo``: until the state may change), so that its memo would
        never give a result back and only costs a key, a lookup and a store per call. So when
        the rules call it in one place only (the checker resolved one name to it), in the body
        of another define C whose body runs at most once for each of C's arguments while the
        memo keeps results (C remembers its results in that memo, or is itself unrepeated),
        with each of C's parameters as an argument, and inside C's comprehensions only over
        constant lists of distinct items (an enum, a `const`), each loop's variable an argument
        too: then two calls while the memo keeps results differ in C's arguments or in some
        loop's item. The reference remembers such a define
        as always; it pays the same, since its memo never hits either."""
        known = self.known_unrepeated.get(name)
        if known is None:
            self.known_unrepeated[name] = False  # (a define reached again while deciding: no)
            known = self.known_unrepeated[name] = self._unrepeated(name)
        return known

    def _unrepeated(self, name: str) -> bool:
        if self.define_sites is None:
            self.define_sites = self._define_sites()
            self.define_uses = Counter(r[1] for r in self.p.resolved.values() if r[0] == "define")
        uses = self.define_uses[name]
        sites = self.define_sites.get(name, [])
        if uses != 1 or len(sites) != 1:
            return False
        caller, call, loops = sites[0]
        params = [prm.name for prm in self.p.defines[caller].params or ()]
        bound = params + [g.var for g in loops]
        if caller == name or len(set(bound)) != len(bound) or not isinstance(call, n.Call) or call.kwargs:
            return False
        given = {a.id for a in call.args
                 if isinstance(a, n.Name) and self.p.resolved.get(id(a), ("local", a.id)) == ("local", a.id)}
        if not set(bound) <= given:
            return False
        if not all(self.distinct_constant(g.source) for g in loops):
            return False
        return self.remembered_by_type(caller) or self.unrepeated(caller)

    def distinct_constant(self, e) -> bool:
        """Whether a comprehension's source is a list known at load time whose items all differ."""
        if not isinstance(e, n.Name):
            return False
        cat, name = self.p.resolved.get(id(e), ("local", e.id))
        if cat == "enum":
            items = list(self.p.enums[name])
        elif cat == "const":
            try:
                items = self.c.const(name)  # (what generating the comprehension works out anyway)
            except Exception:  # noqa: BLE001 - one it cannot work out is not known to be distinct
                return False
        else:
            return False
        try:
            return items.__class__ is list and len(set(items)) == len(items)
        except TypeError:  # unhashable items
            return False

    def _define_sites(self) -> dict[str, list]:
        """Each define's calls (and reads of one without parameters) in the bodies of defines:
        name -> [(the calling define, the call, the comprehensions around it whose items it is
        worked out for, outermost first)]."""
        sites: dict[str, list] = {}

        def walk(e, caller: str, loops: tuple) -> None:
            if isinstance(e, (n.Call, n.Name)):
                cat, callee = self.p.resolved.get(id(e), ("", ""))
                if cat == "define":
                    sites.setdefault(callee, []).append((caller, e, loops))
            if isinstance(e, n.Gen):
                walk(e.source, caller, loops)  # once per working out of the comprehension
                for x in (e.elem, e.cond):
                    if x is not None:
                        walk(x, caller, (*loops, e))  # once per item
                return
            for x in _subexpressions(e):
                walk(x, caller, loops)

        for caller, d in self.p.defines.items():
            walk(d.value, caller, ())
        return sites

    def define_body(self, name: str, scope: dict, keep: bool) -> tuple[str, list[str], list | None, list[str]]:
        """A define's body as source, the lines of the reads hoisted before it, when `keep` and
        it reads nothing but what those lines read, the names holding them (else None), and the
        lines that work out the body's loops before it (`truth_loops`; the body names their result)."""
        d = self.p.defines[name]
        # A define's body is a function of its own: what holds inside the expression that first
        # called it (a loop, a comprehension's iterable) does not hold inside the body.
        outer = (self.hoists, self.hoist_lines, self.in_loop, self.in_iterable, self.keeping, self.calls_made,
                 self.stmt_values, self.stmt_scopes)
        self.hoists, self.hoist_lines, self.in_loop, self.in_iterable, self.calls_made = {}, [], 0, 0, set()
        self.stmt_values, self.stmt_scopes = {}, []
        self.keeping = {"ok": True, "reads": [], "cards": set(), "sized": set(),
                        "scalar": _zone_free_result(d.value, self.type_of(d.value))} if keep else None
        self.roots.append((name, d.value))
        loops: list[str] = []
        try:
            body = self.truth_loops(d.value, scope, loops, "")
            if body is None:
                self.spine(d.value, scope, loops, "")
                body = self.expr(d.value, scope)
            lines = self.hoist_lines
            keeping = self.keeping
        finally:
            (self.hoists, self.hoist_lines, self.in_loop, self.in_iterable, self.keeping, self.calls_made,
             self.stmt_values, self.stmt_scopes) = outer
            self.roots.pop()
            if outer[0] is None:  # (the outermost body made: its written lists are not needed again)
                self.written_lists = {}
        lines = _used_lines(lines, [body, *loops], keeping["reads"] if keeping is not None else [])
        # (a safety net under the walk: no other read of the state, no call, in what is kept)
        if keeping is None or not keeping["ok"] or _UNKEPT.search(body) or any(_UNKEPT.search(x) for x in loops):
            return body, lines, None, loops
        # (a zone's read is checked by the cards it holds: `==`, and kept as a copy)
        return body, lines, [(h, h in keeping["cards"], h in keeping["sized"]) for h in keeping["reads"]], loops

    # ---- define bodies as statements (`spine`)
    # A define's body is one Python expression; where it makes a joined list for min() or max()
    # (`max([a] + [xs[j] for j in range(s, e)])`), that expression builds tuples to sequence its
    # steps, ranges, the joined list and its tally's `:=`s. Worked out as statements before the
    # body instead (into the lines `define_body` puts before it), each such part is done once
    # into a name the body reads: the same work, in the same order, paying the same units into
    # the same tally. Only parts the body always works out (the body itself, operands, a define's
    # arguments, a test) or, behind an `and`/`or`, in an `if` of their own, as the expression would.

    def stmt_worth(self, e, depth: int = 0) -> bool:
        """Whether `spine` finds something in `e` to work out as statements (`extreme_joined`)."""
        if self.by_reference(e):
            return False
        if isinstance(e, n.Call):
            if self.extreme_joined(e) is not None or self.truth_gen(e):
                return True
            cat, name = self.p.resolved.get(id(e), ("builtin", e.func))
            if cat != "define":
                return False
            if depth < 2 and self.inline_params(name, e) is not None and self.stmt_worth(self.p.defines[name].value, depth + 1):
                return True
            return any(self.stmt_worth(a, depth) for a in e.args)
        if isinstance(e, (n.BoolOp, n.BinOp, n.Compare)):
            return self.stmt_worth(e.left, depth) or self.stmt_worth(e.right, depth)
        if isinstance(e, (n.Not, n.Neg)):
            return self.stmt_worth(e.operand, depth)
        if isinstance(e, n.Index):
            return self.stmt_worth(e.obj, depth) or self.stmt_worth(e.index, depth)
        if isinstance(e, n.Cond):
            return self.stmt_worth(e.test, depth)
        return False

    def spine(self, e, scope: dict, out: list[str], ind: str, depth: int = 0) -> None:
        """The parts of `e` that `stmt_worth` finds, worked out as statements into `out` (indented
        by `ind`) in the order the expression works them out, each then read by `expr` from its
        name (`stmt_values`). Everything else stays in the expression, which runs after them."""
        if not self.tallies() or self.by_reference(e) or not self.stmt_worth(e, depth):
            return
        if isinstance(e, n.Call):
            joined = self.extreme_joined(e)
            if joined is not None:
                self.stmt_values[(id(e), id(scope))] = self.extreme_statements(e, joined, scope, out, ind, depth)
                return
            if self.truth_gen(e):
                truth = self.truth_loops(e, scope, out, ind)
                if truth is not None:
                    self.stmt_values[(id(e), id(scope))] = truth
                return
            cat, name = self.p.resolved.get(id(e), ("builtin", e.func))
            for a in e.args:  # (a define's arguments, worked out before its call)
                self.spine(a, scope, out, ind, depth)
            params = self.inline_params(name, e)
            body = self.p.defines[name].value
            if depth < 2 and params is not None and self.stmt_worth(body, depth + 1):
                # a define written in place (`inlined`) with statements of its own: its call paid
                # (`inlined`'s `paid_call`), then its body, into a name
                values = [self.expr(a, scope) for a in e.args]
                inner = self.bounded_scope(params, values, (e.args, scope))
                self.stmt_scopes.append(inner)
                self.roots.append((name, body))
                try:
                    out.append(f"{ind}_u += {STEPS_PER_CALL}")
                    self.spine(body, inner, out, ind, depth + 1)
                    value = self.expr(body, inner)
                finally:
                    self.roots.pop()
                if not value.isidentifier():
                    t = self.var()
                    out.append(f"{ind}{t} = {value}")
                    value = t
                self.stmt_values[(id(e), id(scope))] = value
            return
        if isinstance(e, n.BoolOp):
            self.spine(e.left, scope, out, ind, depth)
            if not self.stmt_worth(e.right, depth):
                return
            t = self.var()
            left = self.expr(e.left, scope) if self.always_bool(e.left) else f"(not not {self.expr(e.left, scope)})"
            out.append(f"{ind}{t} = {left}")
            out.append(f"{ind}if {'' if e.op == 'and' else 'not '}{t}:")
            inner_out: list[str] = []
            self.spine(e.right, scope, inner_out, ind + "    ", depth)
            right = self.expr(e.right, scope) if self.always_bool(e.right) else f"(not not {self.expr(e.right, scope)})"
            out += inner_out
            out.append(f"{ind}    {t} = {right}")
            self.stmt_values[(id(e), id(scope))] = t
            return
        if isinstance(e, (n.BinOp, n.Compare)):
            self.spine(e.left, scope, out, ind, depth)
            self.spine(e.right, scope, out, ind, depth)
        elif isinstance(e, (n.Not, n.Neg)):
            self.spine(e.operand, scope, out, ind, depth)
        elif isinstance(e, n.Index):
            self.spine(e.obj, scope, out, ind, depth)
            self.spine(e.index, scope, out, ind, depth)
        elif isinstance(e, n.Cond):
            self.spine(e.test, scope, out, ind, depth)

    def truth_gen(self, e) -> bool:
        """Whether `e` is any() or all() of a comprehension that `truth_loops` writes as loops,
        over a list that is not a range nor written out in the body (over those, `looked_at`'s
        one list of every item's truth costs less than the loop; over a constant's items, the
        loop costs less than the generator)."""
        if not (isinstance(e, n.Call) and len(e.args) == 1 and isinstance(e.args[0], n.Gen)):
            return False
        g = e.args[0]
        return (self.p.resolved.get(id(e), ("builtin", e.func)) in (("builtin", "any"), ("builtin", "all"))
                and g.elem is not None and _scalar(self.type_of(g.elem)) and not self.by_reference(g)
                and not self.is_range(g.source) and not isinstance(g.source, n.ListLit))

    def inline_params(self, name: str, e: n.Call) -> list | None:
        """The parameters of define `name` when `inlined` writes its body in place of call `e`
        whatever its arguments' source (names or numbers: the plain arguments of a call in a
        define's body); else None."""
        d = self.p.defines.get(name)
        if d is None:
            return None
        params = list(d.params or ())
        if len(e.args) != len(params) or not all(
                isinstance(a, n.Lit) and type(a.value) is int
                or isinstance(a, n.Name) and self.p.resolved.get(id(a), ("local",))[0] in ("local", "param")
                for a in e.args):
            return None
        once = self.hoists is not None and self.unrepeated(name)
        if ((self.size_of(d.value) > 60 and not once)
                or not (once or self.free(d.value) or any(self.param_hashable(prm) is False for prm in params))):
            return None
        return params

    def extreme_joined(self, e) -> tuple[list, n.Gen] | None:
        """For `min(...)` or `max(...)` of a list written out joined with a comprehension over a
        range, of numbers, (the written-out items, the comprehension); else None."""
        if not (isinstance(e, n.Call) and len(e.args) == 1 and not e.kwargs
                and self.p.resolved.get(id(e), ("builtin", e.func)) in (("builtin", "min"), ("builtin", "max"))):
            return None
        joined = e.args[0]
        if not (isinstance(joined, n.BinOp) and joined.op == "+" and isinstance(joined.left, n.ListLit)
                and joined.left.items and self.type_of(joined) == "list:int"):
            return None
        items, g = list(joined.left.items), joined.right
        if isinstance(g, n.ListLit) and len(g.items) == 1:
            g = g.items[0]
        if (not isinstance(g, n.Gen) or g.elem is None or not self.is_range(g.source)
                or any(isinstance(x, n.Gen) or self.type_of(x) != "int" for x in items)
                or self.type_of(g.elem) != "int" or self.by_reference(joined) or self.by_reference(g)):
            return None
        return items, g

    def extreme_statements(self, e: n.Call, joined: tuple[list, n.Gen], scope: dict, out: list[str], ind: str,
                           depth: int) -> str:
        """`extreme_joined`'s min() or max() as statements (see `spine`), paying what `call`'s
        form pays: each item as it is worked out, the range's 2 units an item, 3 units an item of
        the joined list (built, joined, given); with the same checks before the loop and after
        the list when its length is not known to be short. Its name."""
        items, g = joined
        pick = e.func if e.func in ("min", "max") else self.p.resolved[id(e)][1]
        values = []
        written: dict[str, str] = {}  # (an item's source -> the name it was worked out into)
        for x in items:
            self.spine(x, scope, out, ind, depth)
            v = self.expr(x, scope)
            if not (v.isidentifier() or _literal_int(v)):
                t = self.var()
                out.append(f"{ind}{t} = {v}")
                written.setdefault(v, t)
                v = t
            values.append(v)
        short_range = self.short_range(g.source, scope)
        short = self.short_joined(e.args[0], scope)
        for a in g.source.args:
            self.spine(a, scope, out, ind, depth)
        low, high = (self.expr(a, scope) for a in g.source.args)
        # (the range's ends as numbers, `{r}s` and `{r}e`; the range itself made only where a
        # comprehension goes through it: `span_read` reads both as the range's)
        r = self.var()
        self.ranges[r] = (low, high)
        start, stop = f"{r}s", f"{r}e"
        # An end written as an item was (`max([first[s]] + [... for j in range(first[s], i)])`),
        # of the arguments and constants alone, paying a known number of units (`_fixed_charge`:
        # small defines written in place): the item's value again, those units paid again
        for end, text in ((start, low), (stop, high)):
            again = written.get(text)
            paid = _fixed_charge(text) if again is not None else None
            if paid is not None:
                out += [f"{ind}_u += {paid}"] if paid else []
                out.append(f"{ind}{end} = {again}" if end == start else f"{ind}{end} = {again} + 1")
            elif end == start:
                out.append(f"{ind}{start} = {low}")
            else:
                less = _LESS_ONE.fullmatch(high)  # (`i - 1` of a range's end: the end itself)
                out.append(f"{ind}{stop} = {less.group(1) if less is not None else f'({high}) + 1'}")
        if not short_range:
            out.append(f"{ind}if {stop} - {start} > {MAX_ITEMS}:")
            out.append(f"{ind}    _too_many()")
        out.append(f"{ind}if {stop} > {start}:")
        out.append(f"{ind}    _u += 2 * ({stop} - {start})")
        if not short_range:
            out.append(f"{ind}    if _u + b.used > b.limit:")
            out.append(f"{ind}        _over()")
        v = self.var()
        self.loop_of[v] = f"_iter_range(m, {low}, {high})"
        inner = _bound_var({**scope, g.var: v}, g.var, self.items_bound(g.source, scope))
        self.in_loop += 1
        try:
            cond = self.expr(g.cond, inner) if g.cond is not None else None
            elem = self.expr(g.elem, inner)
        finally:
            self.in_loop -= 1
        listed = self.var()
        item = _ITEM_OF.match(elem) if cond is None else None
        kept = _ITEM_OF.match(cond) if cond is not None and self.bool_read(g.cond, g.var) else None
        if item is not None and item.group(2) == v and item.group(1) != v:
            xs = item.group(1)  # (a slice of a list, when every position is one of its own)
            out += [f"{ind}if 0 <= {start} and {stop} <= len({xs}):",
                    f"{ind}    {listed} = {xs}[{start}:{stop}]",
                    f"{ind}else:",
                    f"{ind}    {r} = range({start}, {stop})",
                    f"{ind}    {listed} = [{elem} for {v} in {r}]"]
        elif kept is not None and kept.group(2) == v and kept.group(1) != v:
            flags = kept.group(1)  # (none kept when none of the slice of truths is true)
            out += [f"{ind}if {stop} > {start} and not (0 <= {start} and {stop} <= len({flags})"
                    f" and True not in {flags}[{start}:{stop}]):",
                    f"{ind}    {r} = range({start}, {stop})",
                    f"{ind}    {listed} = [{elem} for {v} in {r} if {cond}]",
                    f"{ind}else:",
                    f"{ind}    {listed} = []"]
        else:
            # (a condition that first pays a call into the tally, the same units at every item
            # (`_charged_first`): paid for all the range's items at once, with the range's own 2
            # units an item, and the comprehension without it)
            first = _charged_first(cond) if cond is not None else None
            if first is not None:
                per, cond = first
                out[out.index(f"{ind}    _u += 2 * ({stop} - {start})")] = f"{ind}    _u += {2 + per} * ({stop} - {start})"
            out.append(f"{ind}{r} = range({start}, {stop})")
            out.append(f"{ind}{listed} = [{elem} for {v} in {r}{f' if {cond}' if cond is not None else ''}]")
        out.append(f"{ind}_u += 3 * ({len(values)} + len({listed}))")
        if not short:
            out.append(f"{ind}if _u + b.used > b.limit or {len(values)} + len({listed}) > {MAX_ITEMS}:")
            out.append(f"{ind}    _over() if _u + b.used > b.limit else _too_many()")
        t = self.var()
        if len(values) == 1:
            beyond = ">" if pick == "max" else "<"
            found = self.var()
            # (items that grow with the range's, `j` or `j + 1`: in order, the least first)
            ordered = elem == v or re.fullmatch(rf"\({v} [+-] \d+\)", elem) is not None
            extreme = (f"{listed}[{0 if pick == 'min' else -1}]" if ordered and item is None
                       else f"{pick}({listed})")
            out += [f"{ind}{t} = {values[0]}",
                    f"{ind}if {listed}:",
                    f"{ind}    {found} = {extreme}",
                    f"{ind}    if {found} {beyond} {t}:",
                    f"{ind}        {t} = {found}"]
        else:
            out.append(f"{ind}{t} = {pick}([{', '.join(values)}] + {listed})")
        return t

    def keepable(self, e, params: set, depth: int, scalar: bool) -> bool:
        """Whether the checked tree of a define's body reads no more of the state than its
        players' vars (of players it was given) and the game's vars, and calls no define but
        small ones that are written in place (whose bodies are looked at too): then its results
        can be kept past the memo's forgetting, checked against what it read (see `define`). A
        zone (a zone of a player given) too when the result is a plain value or a list made anew
        (`scalar`, see `_zone_free_result`): never the zone's own list, which changes as cards move."""
        if isinstance(e, n.Name):
            cat, name = self.p.resolved.get(id(e), ("local", e.id))
            if (cat == "zone" and not scalar) or cat == "define" or (cat == "builtin" and name in _STATE_NAMES):
                return False
        elif isinstance(e, n.Attr):
            cat = self.p.resolved.get(id(e), ("dynamic",))[0]
            if cat in ("tokens", "cvar", "dynamic") or (cat == "pzone" and not scalar):
                return False
            if cat in ("pvar", "pzone") and not (isinstance(e.obj, n.Name) and e.obj.id in params):
                return False
        elif isinstance(e, n.Call):
            cat, name = self.p.resolved.get(id(e), ("builtin", e.func))
            if cat == "define":
                d = self.p.defines[name]
                callee = list(d.params or ())
                if depth > 3 or _size_of(d.value) > 60 or len(callee) != len(e.args) or not (
                        self.free(d.value) or any(self.param_hashable(prm) is False for prm in callee)):
                    return False  # called, not written in place (see `kid_call`)
                given = {prm.name for prm, a in zip(callee, e.args, strict=True)
                         if isinstance(a, n.Name) and a.id in params}
                if not self.keepable(d.value, given, depth + 1, scalar):
                    return False
            elif name not in _ARGUMENT_FUNCTIONS:
                return False
        elif isinstance(e, n.Gen):
            params = params - {e.var}  # (a loop's variable that hides a parameter is no player given)
        if self.by_reference(e):
            return False
        return all(self.keepable(x, params, depth, scalar) for x in _subexpressions(e))

    def size_of(self, e) -> int:
        """`_size_of`, worked out once per node (asked at every call of a define)."""
        known = self.known_size.get(id(e))
        if known is None:
            known = self.known_size[id(e)] = _size_of(e)
        return known

    def free(self, e) -> bool:
        """Whether working out `e` pays nothing from the budget (so remembering it saves no charge)."""
        known = self.known_free.get(id(e))
        if known is None:
            known = self.known_free[id(e)] = self._free(e)
        return known

    def _free(self, e) -> bool:
        if self.by_reference(e):
            return False
        if isinstance(e, n.Lit):
            return True
        if isinstance(e, n.Name):
            return self.p.resolved.get(id(e), ("local", e.id))[0] in (
                "local", "var", "const", "option", "member", "choice", "kind", "side", "token", "modifier")
        if isinstance(e, n.Attr):
            return self.p.resolved.get(id(e), ("dynamic",))[0] in ("pvar", "field", "cvar") and self.free(e.obj)
        if isinstance(e, n.Index):
            return self.free(e.obj) and self.free(e.index)
        if isinstance(e, n.BinOp):
            ints = self.type_of(e.left) == "int" and self.type_of(e.right) == "int"
            return ints and self.free(e.left) and self.free(e.right)
        if isinstance(e, n.Compare):
            return (e.op not in ("in", "notin") and _scalar(self.type_of(e.left))
                    and self.free(e.left) and self.free(e.right))
        if isinstance(e, (n.BoolOp,)):
            return self.free(e.left) and self.free(e.right)
        if isinstance(e, (n.Not, n.Neg)):
            return self.free(e.operand)
        if isinstance(e, n.Is):
            return self.free(e.obj)
        if isinstance(e, n.Cond):
            return self.free(e.then) and self.free(e.test) and self.free(e.orelse)
        return False

    def pure(self, e) -> bool:
        """Whether `e` depends on nothing but its define's arguments and what a game never
        changes: its constants, options, cards' printed values, number of players (see
        MAX_PURE_KEPT; only a define whose type is plain is kept, as only plain results are).
        The defines called in it are pure too (`pure_callee`)."""
        known = self.known_pure.get(id(e))
        if known is None:
            known = self.known_pure[id(e)] = self._pure(e)
        return known

    def _pure(self, e) -> bool:  # noqa: C901 - one case per kind of expression
        if self.by_reference(e):
            return False
        if isinstance(e, n.Lit):
            return True
        if isinstance(e, n.Name):
            cat, name = self.p.resolved.get(id(e), ("local", e.id))
            if cat == "builtin":
                return name in ("players", "player_count")
            if cat == "define":
                return self.pure_callee(name)
            return cat in ("local", "const", "option", "member", "choice", "kind", "side", "token",
                           "modifier", "enum")
        if isinstance(e, n.Attr):
            return self.p.resolved.get(id(e), ("dynamic",))[0] == "field" and self.pure(e.obj)
        if isinstance(e, n.Call):
            cat, name = self.p.resolved.get(id(e), ("builtin", e.func))
            if cat == "define":
                return not e.kwargs and all(self.pure(a) for a in e.args) and self.pure_callee(name)
            return (cat == "builtin" and (name in _ARGUMENT_FUNCTIONS or name in _SEAT_FUNCTIONS) and not e.kwargs
                    and all(self.pure(a) for a in e.args))
        if isinstance(e, n.Gen):
            return all(self.pure(x) for x in (e.elem, e.source, e.cond) if x is not None)
        if isinstance(e, n.Template):
            return all(isinstance(p, str) or self.pure(p) for p in e.parts)
        if isinstance(e, (n.Index, n.BinOp, n.Compare, n.BoolOp, n.Not, n.Neg, n.Cond, n.Is, n.ListLit)):
            return all(self.pure(x) for x in _subexpressions(e))
        return False

    def pure_callee(self, name: str) -> bool:
        """Whether define `name` may be called in a pure define's body: its body pure, and either
        kept for the game itself (its arguments hashable, its type plain: its calls tell what
        they paid, see MAX_PURE_KEPT) or paying nothing (a call of it pays STEPS_PER_CALL, what
        the memo holds or not)."""
        known = self.known_pure_callee.get(name)
        if known is None:
            self.known_pure_callee[name] = False  # (the checker refuses recursive defines; this only ends a loop)
            d = self.p.defines[name]
            known = (all(self.param_hashable(prm) for prm in d.params or ()) and self.pure(d.value)
                     and (self.free(d.value) or _scalar(self.type_of(d.value))))
            self.known_pure_callee[name] = known
        return known

    def calls_define(self, e) -> bool:
        """Whether a pure expression calls a define (see `_pure` for the kinds it may have)."""
        if isinstance(e, n.Name):
            return self.p.resolved.get(id(e), ("local", e.id))[0] == "define"
        if isinstance(e, n.Call) and self.p.resolved.get(id(e), ("builtin", e.func))[0] == "define":
            return True
        if isinstance(e, n.Attr):
            return self.calls_define(e.obj)
        if isinstance(e, n.Call):
            return any(self.calls_define(a) for a in e.args)
        if isinstance(e, n.Gen):
            return any(self.calls_define(x) for x in (e.elem, e.source, e.cond) if x is not None)
        if isinstance(e, n.Template):
            return any(not isinstance(p, str) and self.calls_define(p) for p in e.parts)
        return any(self.calls_define(x) for x in _subexpressions(e))

    def param_hashable(self, prm: n.Param) -> bool | None:
        """Whether a define parameter's declared type makes its values hashable."""
        t = prm.type
        if t.form in ("list", "bag"):
            return False
        if t.name in _HASHABLE or t.name in self.p.enums or t.name in self.p.kinds:
            return True
        return None

    def holder(self, e, scope: dict) -> str:
        f = self.expr(e, scope)
        t = self.type_of(e)
        if t == "player":
            return f"_hold_player({f})"
        if t == "card":
            return f"_hold_card({f})"
        if t.startswith(("enum:", "choice:")):
            return f"_hold_member({f})"
        return f"_hold_any({f})"

    def zone_key(self, e, scope: dict) -> str:
        if isinstance(e, n.Name):
            cat, name = self.p.resolved.get(id(e), ("", e.id))
            if cat == "zone" or (cat == "builtin" and name == "box"):
                return self.const(name)
        if isinstance(e, n.Attr) and self.p.resolved.get(id(e), ("",))[0] == "pzone":
            return self.key(e.name + '#', e.obj, scope)
        return "_no_value()"

    def cards(self, e, scope: dict) -> str:
        f = self.expr(e, scope)
        return f"_one_card({f})" if self.type_of(e) == "card" else f"_card_list({f})"


_FIRST_CALL = re.compile(
    r"((?:\(|not |True and |\(_v\d+ if \(_v\d+ := )*)(?:_paid_call\(m\)|\(_u := _u \+ \d+\)) and ")


def _first_calls(source: str) -> tuple[str, int]:
    """`source` without the calls' payments (`_paid_call(m)`, `(_u := _u + 5)`) it evaluates
    first, always (before anything else, through opening brackets and `not`s, one after the
    other: an inlined define's call, then the first call in its body), each as `True`; and how
    many there were."""
    calls = 0
    while (match := _FIRST_CALL.match(source)) is not None:
        calls += 1
        if match.group(1).endswith("("):  # `(_paid_call(m) and x)`: `(True and x)` is `(x)`
            source = f"{match.group(1)}{source[match.end():]}"
        else:
            source = f"{match.group(1)}True and {source[match.end():]}"
    return source, calls


# A remembered define's result looked up in the define memo in a define's body, by a key of
# names that hold the same value all through the body (its parameters, constants, numbers):
# written in place of the call (`CodeGen.in_place`; its body, group 3, after the match), or
# looked up before a call made before with the same arguments (`CodeGen.call`; its call, group 3)
_INVARIANT_KEY = r"\(_k\d+, (?:(?:a\d+|_k\d+|-?\d+), )*\)"
_IN_PLACE_HEAD = _Lazy(rf"\((_v\d+) if \(\1 := m\.memo\.get\(\((_v\d+) := ({_INVARIANT_KEY})\), _MISS\)\) "
                       r"is not _MISS else m\.memo\.setdefault\(\2, ")
_WORKED_FIRST_HEAD = _Lazy(rf"\(\((_v\d+) if \(\1 := m\.memo\.get\(\((_v\d+) := ({_INVARIANT_KEY})\), _MISS\)\) "
                           r"is not _MISS and \(\(_u := _v\d+ - b\.used\) is not None\) else m\.memo\.setdefault\(\2, _v\d+\)\) if ")
_LOOKED_UP_AGAIN = _Lazy(rf"\((_v\d+) if \(\1 := m\.memo\.get\(({_INVARIANT_KEY}), _MISS\)\) is not _MISS "
                         rf"and \(_u := _u \+ {STEPS_PER_CALL}\) else (_d\d+\(m(?:, (?:a\d+|_k\d+|-?\d+))*\))\)")


# The helpers a body worked out before the memo is looked up may call (`_memo_free`): what each
# pays depends on its arguments and the state alone, never on what the define memo holds (`_bag`
# remembers counts there but pays for them every time; a grid's layout, paid for only when it is
# not remembered, is not among them)
_MEMO_FREE_CALLS = frozenset({"_bag_flat", "_bag", "_token_sum", "_count_flat", "_sum_flat", "_paid_flat",
                              "_charged_flat", "_iter", "len", "check_int", "_over", "_in_flat"})
_FUNCTION_CALLED = re.compile(r"(?<![\w.])(\w+)\(")
_METHOD_CALLED = re.compile(r"\.(\w+)\(")


def _memo_free(body: str, lines: list[str]) -> bool:
    """Whether a define's generated body (and its hoisted reads) calls only `_MEMO_FREE_CALLS`
    and dicts' `get`, and reads nothing of the define memo or the reference."""
    for source in (body, *lines):
        if "memo" in source or "_refs" in source or "L[" in source:
            return False
        if not _MEMO_FREE_CALLS.issuperset(_FUNCTION_CALLED.findall(source)):
            return False
        if any(method != "get" for method in _METHOD_CALLED.findall(source)):
            return False
    return True


def _looked_up_once(body: str, loops: list[str]) -> tuple[str, list[str], list[str]]:
    """A define's body (and its loops' lines) where a memo key of names that hold the same value
    all through it (`_INVARIANT_KEY`) is looked up more than once: each lookup also keeps what
    it gives in a name of the body's (`_m0`, set to _MISS before the body, in the lines given
    back), and reads that name instead once it holds the result. The memo only grows while a
    body is worked out and a remembered result never changes, so the lookup would find that
    same result; it pays what finding it pays (nothing, in place of a call whose payment was
    summed before, or the call's STEPS_PER_CALL added to the tally). A tuple made, hashed and
    compared, and a dict's lookup (most of what a remembered call costs) saved at every lookup
    after the first; the entries remembered are the same, in the same order."""
    pieces = [body, *loops]
    found: list[list[tuple[bool, re.Match]]] = [_memo_lookups(piece) for piece in pieces]
    counts = Counter(match.group(3 if in_place else 2) for lookups in found for in_place, match in lookups)
    names = {key: f"_m{j}" for j, key in enumerate(k for k, c in counts.items() if c > 1)}
    if not names:
        return body, loops, []
    out = []
    for piece, lookups in zip(pieces, found, strict=True):
        wrapped = [(in_place, match, held) for in_place, match in lookups
                   if (held := names.get(match.group(3 if in_place else 2))) is not None]
        # (what goes before each lookup and after it, by position in the source as it is: a
        # lookup written in another's body is wrapped inside the one around it)
        inserts: list[tuple[int, int, str]] = []
        for in_place, match, held in wrapped:
            end = _bracket_end(piece, match.start()) if in_place else match.end() - 1
            if end is not None:
                paid = "" if in_place else f" and (_u := _u + {STEPS_PER_CALL})"
                inserts += [(match.start(), 1, f"({held} if {held} is not _MISS{paid} else ({held} := "),
                            (end + 1, 0, "))")]
        parts, at = [], 0
        for position, _, text in sorted(inserts):
            parts += [piece[at:position], text]
            at = position
        out.append("".join(parts) + piece[at:])
    return out[0], out[1:], [f"{held} = _MISS" for held in names.values()]


_CARD_FIELD = re.compile(r"_cf\d+\[a\d+\]|_card_attrs\[a\d+\]\.get\(_k\d+(?:, '')?\)")


def _card_fields_once(body: str, loops: list[str]) -> tuple[str, list[str], list[str]]:
    """A define's body (and its loops' lines) reading a field of a card it was given more than
    once (`c.goal == a or c.goal == b ...`): read once before the body, into a name (`_c0`)
    the body reads instead (a card's fields never change, and a parameter is never given a
    new value in a body), and the line that reads it. A card that is none, or no card, fails
    that read before the body, and the reference then works the expression out (the slow
    path), as it does wherever the body's own read fails."""
    pieces = [body, *loops]
    counts = Counter(match.group(0) for piece in pieces for match in _CARD_FIELD.finditer(piece))
    # (read three times or more: a read from a field's list of every card's value, `_cf0[a1]`,
    # costs about what naming it once does)
    names = {read: f"_c{j}" for j, read in enumerate(read for read, c in counts.items() if c > 2)}
    if not names:
        return body, loops, []
    out = [_CARD_FIELD.sub(lambda match: names.get(match.group(0), match.group(0)), piece) for piece in pieces]
    return out[0], out[1:], [f"{name} = {read}" for read, name in names.items()]


# A name a define's body holds a result in once it is worked out (`remembered`, `read_ahead`,
# `_looked_up_once`), set to _MISS before the body and never to _MISS in it
_HELD_NAME = re.compile(r"_[hm]\d+\Z")
_HELD_TEST = re.compile(r"\b(_[hm]\d+) is not _MISS\b")


def _held_known(body: str) -> str:
    """`_held_first` of a body with no name known to start as _MISS: the body alone."""
    return _held_first(body, frozenset())[0]


def _held_first(body: str, fresh: frozenset) -> tuple[str, set]:
    """A define's body where a name holding a result (`_h0`, `_m0`: `X if X is not _MISS ...
    else (X := ...)`) is tested again after the body has certainly given it its value: there
    the test is always true and is left out (`X if X is not _MISS and (_u := _u + 5) else ...`
    reads `X if (_u := _u + 5) else ...`, `X if X is not _MISS else ...` reads `X`). The same
    work, results and payments; a name, a global's lookup and a comparison fewer at each such
    use (a body of a game's sums over several kinds tests its names some twenty times a call). Certainly: worked out on every
    path of the expression before the test is reached (Python's order of evaluation, an `and`'s
    or an `or`'s first operand, an `if`'s test, a comprehension's first iterable and both
    branches of an `if` that both set it; not what a comprehension works out per item, nor
    what a short-circuit may skip). Source untouched elsewhere (edits at the tree's positions).
    And `fresh`: names set to _MISS before the body and given a value in it only: where the
    body first reaches one (no part worked out before it can have given it its value) the test
    is always false and is left out too, `X if X is not _MISS ... else (X := ...)` reading
    `(X := ...)`. Also given back: those of them the body never reads before it has certainly
    given them their value, whose line setting them to _MISS is then not needed."""
    counts = Counter(_HELD_TEST.findall(body))
    if not body.isascii() or not any(c > 1 for c in counts.values()) and not fresh.intersection(counts):
        return body, set()
    try:
        tree = ast.parse(body, mode="eval")
    except SyntaxError:  # (never for a generated body; left as it is)
        return body, set()
    maybe: set = set()  # (names some part worked out so far may have given a value)
    unsafe: set = set()  # (fresh names read where they may still be _MISS)
    starts = [0]
    for line in body.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    edits: list[tuple[int, int, str]] = []

    def at(line: int, col: int) -> int:
        return starts[line - 1] + col

    def chain(es: list, known: frozenset) -> frozenset:
        """Operands worked out one after the other, each only if the ones before were."""
        for x in es:
            known = walk(x, known)
        return known

    def walk(e, known: frozenset) -> frozenset:  # noqa: C901 - one case per kind of expression
        """What is certainly held once `e` is worked out, given `known` before; edits recorded."""
        if isinstance(e, ast.IfExp):
            test = e.test
            conj = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
            first = conj[0]
            if (isinstance(first, ast.Compare) and isinstance(first.left, ast.Name)
                    and _HELD_NAME.match(first.left.id) and len(first.ops) == 1 and isinstance(first.ops[0], ast.IsNot)
                    and isinstance(first.comparators[0], ast.Name) and first.comparators[0].id == "_MISS"
                    and isinstance(e.body, ast.Name) and e.body.id == first.left.id):
                held, rest = first.left.id, conj[1:]
                if held in known:
                    if not rest:  # always the name
                        edits.append((at(e.lineno, e.col_offset), at(e.end_lineno, e.end_col_offset), held))
                        return known
                    cut = at(first.end_lineno, first.end_col_offset)
                    if body.startswith(" and ", cut):
                        edits.append((at(first.lineno, first.col_offset), cut + len(" and "), ""))
                    after = walk(rest[0], known)  # (the test's next operand: always worked out now)
                    chain([*rest[1:], e.orelse], after)
                    return after
                if held in fresh and held not in maybe:  # (_MISS here: the `else` alone)
                    cut = body.rfind(" else ", at(e.lineno, e.col_offset), at(e.orelse.lineno, e.orelse.col_offset))
                    if cut >= 0:
                        edits.append((at(e.lineno, e.col_offset), cut + len(" else "), ""))
                        made = walk(e.orelse, known)
                        maybe.add(held)
                        return known | {held} if held in made else known
                if held in fresh:
                    unsafe.add(held)
                chain(rest, known)  # (worked out only when the name holds its value)
                made = walk(e.orelse, known)
                maybe.add(held)
                # (after it, the name holds its value: it did, or the `else` gives it one, or fails)
                sets = held in made or (isinstance(e.orelse, ast.Call) and isinstance(e.orelse.func, ast.Name)
                                        and e.orelse.func.id == "_unhoisted")
                return known | {held} if sets else known
            after = walk(test, known)
            # (a constant test's other branch is never worked out: nothing in it is looked at)
            if isinstance(test, ast.Constant) and test.value is True:
                return walk(e.body, after)
            if isinstance(test, ast.Constant) and test.value is False:
                return walk(e.orelse, after)
            # (one branch or the other: what one gives a value is still _MISS in the other)
            before = set(maybe)
            held_body = walk(e.body, after)
            given = maybe - before
            maybe.difference_update(given)
            held_else = walk(e.orelse, after)
            maybe.update(given)
            return held_body & held_else
        if isinstance(e, ast.BoolOp):
            after = walk(e.values[0], known)
            rest = e.values[1:]
            # (a payment added to the tally, `(_u := _u + 5) and x`, is never false: the tally
            # never falls below nothing, see `_tally_grows`)
            while rest and isinstance(e.op, ast.And) and _always_true(e.values[len(e.values) - len(rest) - 1]):
                after = walk(rest[0], after)
                rest = rest[1:]
            chain(rest, after)
            return after
        if isinstance(e, ast.Compare):
            after = walk(e.comparators[0], walk(e.left, known))
            chain(e.comparators[1:], after)  # (a chained comparison stops at the first false)
            return after
        if isinstance(e, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            after = walk(e.generators[0].iter, known)
            inner = [*e.generators[0].ifs]
            for g in e.generators[1:]:
                inner += [g.iter, *g.ifs]
            inner += [e.key, e.value] if isinstance(e, ast.DictComp) else [e.elt]
            for x in inner:  # (per item: what one item gives a value, the next may find it has)
                for y in ast.walk(x):
                    if isinstance(y, ast.NamedExpr):
                        maybe.add(y.target.id)
            chain(inner, after)  # (per item: maybe never)
            return after
        if isinstance(e, ast.NamedExpr):
            after = walk(e.value, known)
            maybe.add(e.target.id)
            return after | {e.target.id} if _HELD_NAME.match(e.target.id) else after
        if isinstance(e, ast.Name):
            if e.id in fresh and e.id not in known:
                unsafe.add(e.id)
            return known
        if isinstance(e, ast.Lambda):
            return known
        if isinstance(e, ast.Dict):
            for k, v in zip(e.keys, e.values, strict=True):
                known = walk(v, known if k is None else walk(k, known))
            return known
        for x in ast.iter_child_nodes(e):  # (in the order Python works them out)
            if isinstance(x, (ast.expr, ast.keyword)):
                known = walk(x, known)
        return known

    walk(tree.body, frozenset())
    if not edits:
        return body, set()
    out, end = [], 0
    for start, stop, text in sorted(edits):
        if start < end:  # (inside a part already left out: never, as the walk does not go in)
            continue
        out += [body[end:start], text]
        end = stop
    return "".join(out) + body[end:], set(fresh - unsafe)


# The line of a define's function working its body out (`CodeGen.define`'s `work`)
_BODY_LINE = re.compile(r"^( +r = (?:memo\[key\] = )?)(.+)$", re.M)


# A read of the state before a define's body (`CodeGen.read_ahead`, not the soft form)
_READ_LINE = re.compile(r"^ +(_h\d+) = (m\.s\.(?:vars|zones)\[[\w\[\]]+\])\n", re.M)


def _reads_where_used(source: str) -> str:
    """A define's function whose body is worked out behind a short-circuit (`a and b and
    (... _h0 ...)`, an `if`'s branch, a comprehension's items) with a read of the state made
    before it that only such a part uses: the read made where that part begins instead,
    `((_h0 := m.s.vars[...]), part)[-1]` (or `(_h0 := ...)` at its one use), so that a body
    that stops before it does not make it (a test of a run of cells that most calls fail at
    its first test made two reads for nothing). The state does not change while a body
    is worked out, so the read finds the same value; a read that fails there (a value that is
    no seat) sends the expression to the slow path as the read before the body did, and one
    never made is one the reference does not make either. Only a read no other line uses (a
    kept result's checks, the lines of loops) and a part worked out at most once a call."""
    reads = [(found.group(1), found.group(2), found.group(0)) for found in _READ_LINE.finditer(source)]
    if not reads:
        return source
    body_line = None
    for found in _BODY_LINE.finditer(source):
        if any(re.search(rf"\b{held}\b", found.group(2)) for held, _, _ in reads):
            body_line = found
            break
    if body_line is None:
        return source
    body = body_line.group(2)
    rest = source[:body_line.start()] + source[body_line.end():]
    movable = {held: read for held, read, line in reads
               if len(re.findall(rf"\b{held}\b", rest)) == 1 and rest.count(line) == 1}
    if not movable or not body.isascii():
        return source
    try:
        tree = ast.parse(body, mode="eval")
    except SyntaxError:
        return source
    uses: dict[str, list[list]] = {held: [] for held in movable}

    def walk(e, path: list) -> None:
        if isinstance(e, ast.Name) and e.id in uses:
            if not isinstance(e.ctx, ast.Load):
                uses.pop(e.id)  # (given a value in the body: left as it is)
            else:
                uses[e.id].append([*path, e])
        for x in ast.iter_child_nodes(e):
            walk(x, [*path, e])

    walk(tree.body, [])
    spans: list[tuple[int, int, str, str]] = []
    for held, paths in uses.items():
        if not paths:
            continue
        common = paths[0]
        for path in paths[1:]:
            j = 0
            while j < min(len(common), len(path)) and common[j] is path[j]:
                j += 1
            common = common[:j]
        # (no deeper than a part worked out at most once a call: outside comprehensions' items
        # and lambdas, and an expression of its own)
        for j, node in enumerate(common):
            if isinstance(node, ast.Lambda) or (
                    isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp))
                    and not (j + 1 < len(common) and common[j + 1] is node.generators[0])):
                common = common[:j + 1]
                break
            if isinstance(node, ast.comprehension):  # the first iterable: worked out once
                if not (j + 1 < len(common) and common[j + 1] is node.iter):
                    common = common[:j]
                    break
        while common and (not isinstance(common[-1], ast.expr) or isinstance(common[-1], (ast.Slice, ast.Starred))):
            common = common[:-1]
        if len(common) < 2 or not _maybe_skipped(common):
            continue  # (always made: as well before the body)
        node = common[-1]
        start, stop = node.col_offset, node.end_col_offset
        if node.lineno != 1 or node.end_lineno != 1:
            continue
        spans.append((start, stop, held))
    # (reads of one part made together where it begins; a part inside another's: left as it was)
    parts: dict[tuple[int, int], list[str]] = {}
    end = -1
    for start, stop, held in sorted(spans):
        if (start, stop) in parts:
            parts[(start, stop)].append(held)
        elif start >= end:
            parts[(start, stop)] = [held]
            end = stop
    if not parts:
        return source
    out, at = [], 0
    for (start, stop), helds in parts.items():
        made_reads = ", ".join(f"({held} := {movable[held]})" for held in helds)
        whole = body[start:stop]
        out += [body[at:start], made_reads if whole in helds else f"({made_reads}, {whole})[-1]"]
        at = stop
    made = "".join(out) + body[at:]
    moved = {held for helds in parts.values() for held in helds}
    lines = {line for held, _, line in reads if held in moved}
    # (a blank line for each read moved: the lines after it, and the module's, where they were)
    before = "".join("\n" if line in lines else line for line in source[:body_line.start()].splitlines(keepends=True))
    return before + body_line.group(1) + made + source[body_line.end():]


def _always_true(x) -> bool:
    """Whether an operand of generated source is never false: a payment added to a body's tally
    (`(_u := _u + 5)`: the tally never falls below nothing, which the generated `... and x`
    forms rely on), a check of the budget (`(... <= b.limit or _over())`: true, or it fails)."""
    if isinstance(x, ast.BoolOp) and isinstance(x.op, ast.Or):
        last = x.values[-1]
        return isinstance(last, ast.Call) and isinstance(last.func, ast.Name) and last.func.id == "_over"
    return (isinstance(x, ast.NamedExpr) and x.target.id == "_u" and isinstance(x.value, ast.BinOp)
            and isinstance(x.value.op, ast.Add) and isinstance(x.value.left, ast.Name) and x.value.left.id == "_u"
            and isinstance(x.value.right, ast.Constant) and type(x.value.right.value) is int
            and x.value.right.value > 0)


def _maybe_skipped(path: list) -> bool:
    """Whether the last node of a path from a body's root may not be worked out when the body
    is: behind an `and`'s or an `or`'s first operand, in an `if`'s branch, a chained
    comparison's later operand, a comprehension's items."""
    for parent, child in zip(path, path[1:], strict=False):
        if isinstance(parent, ast.BoolOp) and child is not parent.values[0]:
            at = next(j for j, x in enumerate(parent.values) if x is child)
            if not (isinstance(parent.op, ast.And) and all(_always_true(x) for x in parent.values[:at])):
                return True
        if isinstance(parent, ast.IfExp) and child is not parent.test:
            return True
        if isinstance(parent, ast.Compare) and child is not parent.left and child is not parent.comparators[0]:
            return True
        if isinstance(parent, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            return True
    return False


def _held_known_lines(source: str) -> str:
    """A define's function (its source as `CodeGen.source` holds it) with `_reads_where_used`
    and `_held_known` applied to the line working out its body; any other source as it is.
    Done where the source is compiled, not where it is made: parsing a body as long as
    a game's longest takes tens of milliseconds, which a load without the on-disk cache
    would pay (each function is compiled then when first called, `_compile_on_call`), and a
    load with it never (it keeps the compiled module)."""
    if not source.lstrip("\n").startswith("def _d"):
        return source
    if "_h" in source and " = m.s." in source:
        source = _reads_where_used(source)
    if " is not _MISS" not in source:
        return source
    found = next((found for found in _BODY_LINE.finditer(source) if " is not _MISS" in found.group(2)), None)
    if found is None:
        return source
    # (names set to _MISS before the body and used nowhere else: `_held_first`'s `fresh`)
    rest = source[:found.start()] + source[found.end():]
    inits = {held: line for line, held in _MISS_LINE.findall(rest)
             if len(re.findall(rf"\b{held}\b", rest)) == 1}
    body, dropped = _held_first(found.group(2), frozenset(inits))
    before = source[:found.start()]
    for held in dropped:  # (a blank line for each: the lines after it where they were)
        before = before.replace(inits[held], "\n", 1)
    return before + found.group(1) + body + source[found.end():]


# A line setting a name of a define's body to _MISS before it (`CodeGen.remembered`, `_looked_up_once`)
_MISS_LINE = re.compile(r"^( +(_[hm]\d+) = _MISS\n)", re.M)


def _memo_lookups(piece: str) -> list[tuple[bool, re.Match]]:
    """The lookups of `_looked_up_once` in generated source, in order: (written in place, match).
    Found from each `m.memo.get(` (a search for the text), not by a regex tried at every bracket
    (a long body's search cost a cold load a few milliseconds)."""
    lookups = []
    at = piece.find(_MEMO_GET)
    while at >= 0:
        # (`(_v1 if (_v1 := m.memo.get(`: the second bracket before the text opens the lookup)
        inner = piece.rfind("(_v", max(0, at - 16), at)
        start = piece.rfind("(_v", max(0, at - 32), inner) if inner > 0 else -1
        if start >= 0:
            match = _IN_PLACE_HEAD.match(piece, start) or _WORKED_FIRST_HEAD.match(piece, start - 1)
            if match is not None:
                lookups.append((True, match))
            else:
                match = _LOOKED_UP_AGAIN.match(piece, start)
                if match is not None:
                    lookups.append((False, match))
        at = piece.find(_MEMO_GET, at + 1)
    return lookups


_MEMO_GET = " := m.memo.get("


def _loops(e) -> bool:
    """Whether an expression holds a comprehension (a loop over items)."""
    return isinstance(e, n.Gen) or any(_loops(x) for x in _subexpressions(e))


def _size_of(e) -> int:
    """How many expression nodes `e` holds."""
    return 1 + sum(_size_of(x) for x in _subexpressions(e))


# An item of a list (`xs[i]`), and one compared with a value (`(xs[i] == n)`), in generated source
_ITEM_OF = re.compile(r"(\w+)\[(\w+)\]\Z")
# `[x for x in _iter(m, xs) if (x == v)]`, the argument of a count() (`call`)
_COUNT_EQUAL = re.compile(r"\[(\w+) for (\w+) in _iter\(m, (.+)\) if \((\w+) == (\w+)\)\]\Z", re.S)
_ITEM_IS = re.compile(r"\((\w+)\[(\w+)\] (==|!=) ([\w.]+)\)\Z")
# Generated source that begins with a define's call paid in place in a body's tally (`looked_at`)
# The seats iterated in a define's body (`players`, paid for by `_iter`): their numbers as a
# range, which `_iter` pays for and hands on as it does the list, without making the list
# (written in when the body is done: the patterns above see the list as before)
_SEATS_ITERATED = "_iter(m, list(range(m.s.num_players))"
_SEATS_RANGE = "_iter(m, range(m.s.num_players)"
_LEADING_TALLY = re.compile(r"\(\(_u := _u \+ (\d+)\) and (.*)\)\Z", re.S)
# Generated source made of names, numbers, items, comparisons and and/or/not only (`looked_at`):
# it pays nothing and changes nothing
_FREE_SOURCE = re.compile(r"[\w\s\[\]()<>=!+-]*\Z")
_CALL_IN_SOURCE = re.compile(r"\b(?!(?:and|or|not|in|is|if|else)\b)\w+\s*\(|:=")


# A test of generated source that pays nothing and cannot raise: two names or numbers compared
# (the names: parameters, loop variables, constants; `L[...]` and calls do not match).
_PLAIN_TEST = re.compile(r"\((\w+) (==|!=) (\w+)\)\Z")
# Two constants of the namespace compared (`CodeGen.folded_test`)
_CONST_TEST = _Lazy(r"\((_k\d+) (==|!=) (_k\d+)\)")


# The longest constant list a define's comprehension is written out for (`unrolled`). Longer ones
# (enums of 5 and 6 members, in the seed games) paid about 17 ms of a cold load (151 ms, the
# target 150) for 2-3 % more playouts: every item's code is generated and compiled again.
_UNROLLED_ITEMS = 4
# The longest constant list a define's comprehension is written out for from its item's source
# made once (`written_out`), and the most source that may make (items times the item's source).
_WRITTEN_OUT_ITEMS = 8
_WRITTEN_OUT_SOURCE = 8_000
# A comprehension's variable and what it goes over; a read at a position of a list after its name
# (`[i]`, or a range's slice `[r.start:r.stop]`); a bound of a range that a kept entry may slice by
# (`CodeGen.span_read`)
_LOOP_OVER = re.compile(r"for (\w+) in (\w+)\b")
_POSITION_READ = re.compile(r"\[(\w+)(\.start:\1\.stop|s:\1e)?\]")
_BOUND = re.compile(r"a\d+\Z|-?\d+\Z")
# The longest constant list any()/all() works out every item of (`looked_at`)
_LOOKED_AT_ITEMS = 12
_WRITTEN_LINES = 12  # constant lines of an any()/all() of any()/all() written out (`_lines_written_out`)
_WRITTEN_LINE_ITEMS = 5  # items of each of them at most
_UNROLLED_SOURCE = 400  # characters of an item's source, in an any()/all() written out (`truth_unrolled`)
# The largest define body (in expression nodes) written in place of a remembered call, and how
# deep such bodies nest (`in_place`): each is generated, and compiled, at every call site.
_IN_PLACE_SIZE = 60
_IN_PLACE_DEPTH = 1
_IN_PLACE_SOURCE = 600  # characters of generated source
_TALLIED_SEARCH = 64  # the longest constant list an `in` searches paying in a define's tally


_CHARGED_FIRST = re.compile(r"\A(\(*)\(_u := _u \+ (\d+)\) and ")


def _charged_first(cond: str) -> tuple[int, str] | None:
    """A comprehension's condition that begins by adding a number to the body's tally (a call
    paid in place, `paid_call`: `((_u := _u + 5) and f(x)) and g(x)`), and works that addition
    out first at every item, whatever the item (the first operand of an `and`, itself the first
    of the `and` around it, if any; never behind a test, as in `a if t else b`, which works `t`
    out first): (the number, the condition without it: `(f(x)) and g(x)`), else None. Paid for
    every item at once instead, it is the same units; and the tally, an int added to, is not a
    name the comprehension writes any more (Python makes it a cell of the body otherwise)."""
    match = _CHARGED_FIRST.match(cond)
    if match is None:
        return None
    import ast  # (only when generating: what the text says is checked on its syntax tree)

    per = int(match.group(2))
    rest = match.group(1) + cond[match.end():]
    try:
        tree, left = ast.parse(cond, mode="eval").body, ast.parse(rest, mode="eval").body
    except SyntaxError:
        return None
    chain, node = [], tree
    while isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
        chain.append(node)
        node = node.values[0]
    paid = ast.NamedExpr(target=ast.Name(id="_u", ctx=ast.Store()),
                         value=ast.BinOp(left=ast.Name(id="_u", ctx=ast.Load()), op=ast.Add(), right=ast.Constant(per)))
    if not chain or ast.dump(node) != ast.dump(paid):
        return None
    others = chain[-1].values[1:]
    without = others[0] if len(others) == 1 else ast.BoolOp(op=ast.And(), values=others)
    if len(chain) > 1:
        chain[-2].values[0] = without
        without = tree
    return (per, rest) if ast.dump(without) == ast.dump(left) else None


# `_charged_flat(m, [x for x in _iter(m, zone)])` or with `m.game.card_attrs[x].get(_k1)` as the item
_NTH_OF_ZONE = re.compile(r"_charged_flat\(m, \[(?P<item>_v\d+|(?P<values>_cf\d+)\[_v\d+\])"
                          r" for (?P<var>_v\d+) in _iter\(m, (?P<zone>[\w.\[\]]+)\)\]\)\Z")
_DEFINE_CALL = re.compile(r"\b(_d\d+)\(m\b")
# A define's body keeping the cards of a zone whose var equals its one parameter
# (`[c in row where c.mark == p]`): the item, the zone, the item's value (`CodeGen.define`)
_GROUPED = re.compile(r"\[(_v\d+) for \1 in _iter\(m, (m\.s\.zones\[_k\d+\])\) if \("
                      r"(m\.s\.vars\.get\(_k\d+\[\1\], (?:None|_k\d+|-?\d+)\)) == a0\)\]\Z")
# The end of the lines `define` works a tallying body out with: its tally paid, the budget checked.
_TALLY_CHECKED = "        b.used += _u\n        if b.used > b.limit:\n            m.charge(0)\n"
_LESS_ONE = re.compile(r"\((\w+) - 1\)")


def _fixed_charge(source: str) -> int | None:
    """The units generated source adds to a define body's tally (`(_u := _u + n)`, a small define
    written in place), when it reads nothing but the body's arguments (`a0`...), the module's
    constants (`_k3`...) and numbers, calls nothing, and adds each of those at every working
    out (none behind an `and`, an `or` or an `if` but its first operand or test): then working
    it out again gives the same value and adds that sum again. Else None."""
    import ast  # (only when generating)

    try:
        tree = ast.parse(source, mode="eval").body
    except SyntaxError:
        return None
    total = 0

    def walk(node, always: bool) -> bool:
        nonlocal total
        if isinstance(node, ast.NamedExpr):
            value = node.value
            if not (always and node.target.id == "_u" and isinstance(value, ast.BinOp)
                    and isinstance(value.op, ast.Add) and isinstance(value.left, ast.Name)
                    and value.left.id == "_u" and isinstance(value.right, ast.Constant)
                    and type(value.right.value) is int):
                return False
            total += value.right.value
            return True
        if isinstance(node, ast.Name):
            return isinstance(node.ctx, ast.Load) and re.fullmatch(r"a\d+|_k\d+", node.id) is not None
        if isinstance(node, ast.Constant):
            return type(node.value) in (int, bool)
        if isinstance(node, ast.BoolOp):
            return walk(node.values[0], always) and all(walk(x, False) for x in node.values[1:])
        if isinstance(node, ast.IfExp):
            return walk(node.test, always) and walk(node.body, False) and walk(node.orelse, False)
        if isinstance(node, ast.Compare):
            return all(walk(x, always) for x in (node.left, *node.comparators))
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            return walk(node.left, always) and walk(node.right, always)
        if isinstance(node, ast.Subscript):
            return walk(node.value, always) and walk(node.slice, always)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
            return walk(node.operand, always)
        return False
    return total if walk(tree, True) else None


def _loop_tally(cost: int) -> str:
    """What goes before a comprehension over a list whose length is known when the code is made:
    its cost added to the body's tally and, as `_iter` does for a loop it pays for, the budget
    (the tally counted) checked before the loop starts, so nested loops never run on unpaid (an
    overrun fails here, and the reference reports it at its rule)."""
    return f"((_u := _u + {cost}) + b.used <= b.limit or _over()) and " if cost else ""


# A list written out in a define's body after its tally's check (`_loop_tally`): (cost, list)
_TALLIED_LIST = _Lazy(r"\(\(\(_u := _u \+ (\d+)\) \+ b\.used <= b\.limit or _over\(\)\) and (\[.*\])\)\Z", re.S)
_COMPREHENDED = _Lazy(r" for _v\d+ in ")  # (in a list's item outside brackets: a comprehension)
_CONST_NAME = re.compile(r"_k\d+\Z")
_CONST_ITEM = re.compile(r"_k\d+\[")


def _const_of_item(source: str) -> str:
    """`_k3` when generated source is exactly an item of that constant, `_k3[...]`; else ""."""
    match = _CONST_ITEM.match(source)
    if match is None or _bracket_end(source, match.end() - 1) != len(source) - 1:
        return ""
    return source[:match.end() - 1]


def _texts_only(items: list | None) -> bool:
    """Whether a constant list is there and holds nothing but texts."""
    return items is not None and all(type(x) is str for x in items)

# What a choice's filter or labels read of the state or the locals by a constant key (`filter`)
_ITEMS_READ = re.compile(r"\bm\.s\.(?:vars|zones)\[_k\d+\]|\bL\[_k\d+\]")

# `_iter` of a list written out in brackets, just made and paid for (`known_iteration`); its items
_LISTED_ITER = re.compile(r"_iter\(m, _charged_flat\(m, \[([-\w, ]*)\]\)(?:, (\d+))?\)\Z")
_SIMPLE_ITEM = re.compile(r"-?\d+\Z|_k\d+\Z|True\Z|False\Z|None\Z")
_ITER_CALL = re.compile(r"(_iter|_iter_range)\(m, ([-\w, ]*)\)\Z")


# A range between numbers no bigger than this (`CodeGen.short_range`): at most 2001 items
_SHORT_RANGE_BOUND = 1000

# What the walks for define parameters' bounds (`CodeGen._call_sites`) go through and past
_CALLING_FIELDS = ("procs", "setup", "flow", "triggers", "score", "tiebreak", "invariants", "scenarios",
                   "requires", "winners", "table", "vars")
_NO_CALLS = frozenset({str, int, bool, float, type(None), n.Pos, n.TypeRef, n.Name, n.Lit})
_UNKNOWN = object()  # a call's declaration when it is reached in two (`CodeGen._call_sites`)
_DECLARING = frozenset({n.ProcDecl, n.SetupDecl, n.FlowDecl, n.TriggerDecl})  # (`CodeGen.local_bounds`)
_EXPRESSION_CLASSES = frozenset({n.Lit, n.Template, n.Name, n.Attr, n.Index, n.Gen, n.Call, n.BinOp, n.Compare,
                                 n.Is, n.BoolOp, n.Not, n.Neg, n.Cond, n.ListLit, n.MapLit})

# A scope's key for the bound of a local name's numbers (`CodeGen.bound`): no name has a space
_BOUND_KEY = "$bound "


def _bound_var(scope: dict, var: str, bound: int | None) -> dict:
    """`scope` with the bound of local `var`'s numbers (none: not known), for a name given
    new values (a loop's variable, which may hide a name of the same spelling around it)."""
    key = _BOUND_KEY + var
    if bound is None:
        if key not in scope:
            return scope
        scope = dict(scope)
        del scope[key]
        return scope
    return {**scope, key: bound}


def _literal_int(source: str) -> bool:
    """Generated source that is a whole number written out (`0`, `-2`)."""
    return source.lstrip("-").isdigit()


def _invariant(source: str) -> bool:
    """Generated source that names the same value all through a define's body: one of its
    parameters (a0, a1, ...), a constant of the namespace (_k3) or a whole number."""
    return ((source[:1] == "a" and source[1:].isdigit()) or (source[:2] == "_k" and source[2:].isdigit())
            or source.lstrip("-").isdigit())


# A call of a define with its memo looked up first in place (`CodeGen.call`): the call is group 2
_LOOKED_UP_FIRST = _Lazy(r"\((_v\d+) if \(\1 := m\.memo\.get\(\(_k\d+, (?:[\w-]+, )*\), _MISS\)\) is not _MISS"
                              r" and \(_u := _u \+ \d+\) else (_d\d+\(m(?:, [\w-]+)*\))\)")
_KID_CALL = re.compile(r"(_d\d+)\(m((?:, \w+)*)\)\Z")  # a define's call of names (`kid_call`)
_HELD = re.compile(rf"\((_h\d+) if \1 is not _MISS and \(_u := _u \+ {STEPS_PER_CALL}\) else \(\1 := ")
_COUNTED = re.compile(rf"\((_h\d+) if \1 is not _MISS else \(\(_u := _u - {STEPS_PER_CALL}\), \(\1 := ")


def _held(source: str) -> str | None:
    """The name `_hN` when `source` is exactly a call remembered in it (what `remembered` gives):
    once worked out, that name holds the same value all through the define's body."""
    match = _HELD.match(source)
    if match is None or not _first_bracket_ends(source):  # not `(_h1 if ...) + x`
        return None
    return match.group(1)


def _lines_written_out(constant: list, elem: str, item: str, inner_any: bool, stop_at: bool,
                       names: tuple[str, str, str, str], ind: str) -> list[str] | None:
    """The loops of ``loops_over_lists`` over a few short constant lines of numbers, written out
    (a line of marks among the 8 lines of a 3 by 3 grid): each line's items as constants, in
    order, `n = 1 if <item 1 decides> else 2 if <item 2 decides> ... else 0` (0: none decides),
    in a pass that stops at the deciding line. The same items looked at in the same order, and
    the same counts left in the loops' names (lines looked at, items looked at, the truth), so
    what follows pays the same; no loop, no iteration, and no count per item. None (the loops
    are written) for longer lines or lists, items not numbers, or an item's source that may pay
    or call (an item's source is repeated per item: it must be a plain test)."""
    count, items, truth, looked = names
    if (not 0 < len(constant) <= _WRITTEN_LINES or not _FREE_SOURCE.match(elem) or _CALL_IN_SOURCE.search(elem)
            or not all(0 < len(line) <= _WRITTEN_LINE_ITEMS and all(type(x) is int for x in line) for line in constant)):
        return None
    of_item = re.compile(rf"\b{item}\b")
    out = [f"{ind}{truth} = {not stop_at}",
           f"{ind}while True:  # (one pass: `break` at the deciding line)"]
    body = ind + "    "
    before = 0  # the items of the lines before this one (all looked at when the outer loop goes on)
    for i, line in enumerate(constant):
        tests = [of_item.sub(repr(x), elem) for x in line]
        deciding = " else ".join(f"{j + 1} if {'' if inner_any else 'not '}{t}" for j, t in enumerate(tests))
        out.append(f"{body}{looked} = {deciding} else 0")
        if inner_any == stop_at:  # (any of any(), all of all()): the outer loop stops where an item decides
            out += [f"{body}if {looked}:",
                    f"{body}    {count} = {i + 1}",
                    f"{body}    {items} = {before} + {looked}" if before else f"{body}    {items} = {looked}",
                    f"{body}    {truth} = {stop_at}",
                    f"{body}    break"]
            before += len(line)
        else:  # where no item of the line decides: the items before it vary, counted (the
            # deciding item's place added where it is found: no number of it to look at again)
            out.pop()
            for j, t in enumerate(tests):
                test = f"{'' if inner_any else 'not '}{t}"
                out += [f"{body}{'if' if j == 0 else 'elif'} {test}:",
                        f"{body}    {items} = {items} + {j + 1}" if i else f"{body}    {items} = {j + 1}"]
            out += [f"{body}else:",
                    f"{body}    {count} = {i + 1}",
                    f"{body}    {items} = {items} + {len(line)}" if i else f"{body}    {items} = {len(line)}",
                    f"{body}    {truth} = {stop_at}",
                    f"{body}    break"]
    out += [f"{body}{count} = {len(constant)}"]
    if inner_any == stop_at:
        out += [f"{body}{items} = {before}"]
    out += [f"{body}break"]
    return out


def _counted_held(source: str, op: str) -> str | None:
    """A comparison `(a op b)` of generated source, in a loop of any() or all() that evaluates
    it once per item it counts, whose side `a` or `b` is a call remembered in a name (`_held`):
    the comparison with that side paying nothing when the name holds its value (the loop pays
    STEPS_PER_CALL per item counted instead, the same as each use paid), and taking that back
    from the body's tally where the call is made (which pays for itself). None for any other
    source. Once per item: `==` and the other comparisons work out both sides, always."""
    if not (source.startswith("(") and source.endswith(")")):
        return None
    sep = f" {op} "
    found = None
    for match in _HELD.finditer(source):
        start = match.start()
        end = _bracket_end(source, start)
        if end is None:
            return None
        left = start == 1 and source.startswith(sep, end + 1) and _bracket_end(source, 0) == len(source) - 1
        right = (end == len(source) - 2 and source[:start].endswith(sep)
                 and _depth_at(source, start - len(sep)) == 1)
        if found is not None or not (left or right):
            return None  # (twice, or inside something else: paid as it was)
        found = (start, end, match.group(1))
    if found is None:
        return None
    start, end, held = found
    call = source[start + len(f"({held} if {held} is not _MISS and (_u := _u + {STEPS_PER_CALL}) else ({held} := "):end - 1]
    side = f"({held} if {held} is not _MISS else ((_u := _u - {STEPS_PER_CALL}), ({held} := {call}))[-1])"
    return source[:start] + side + source[end + 1:]


def _held_side(source: str) -> tuple[str, str, str] | None:
    """For a comparison `_counted_held` gave: the comparison reading the name alone, the name,
    and the call that works it out (`loops_over_lists` makes it before its loops); else None."""
    match = _COUNTED.search(source)
    if match is None:
        return None
    held = match.group(1)
    end = _bracket_end(source, match.start())
    head = f"({held} if {held} is not _MISS else ((_u := _u - {STEPS_PER_CALL}), ({held} := "
    if end is None or not source.startswith(head, match.start()) or source[end - 6:end + 1] != "))[-1])":
        return None
    call = source[match.start() + len(head):end - 6]
    return source[:match.start()] + held + source[end + 1:], held, call


# `[s for s in _iter(m, xs) if _in_flat(m, x, s)]`, and that comprehension over `xs` worked out
# first into a name (`CodeGen.first_of`): the lists of `xs` that hold `x` (a name)
_HOLDING = _Lazy(r"\[(_v\d+) for \1 in _iter\(m, (.+)\) if _in_flat\(m, (\w+), \1\)\]\Z", re.S)
_HOLDING_FIRST = _Lazy(r"\(\((_v\d+) := _iter\(m, (.+)\)\), \(\[(_v\d+) for \3 in \1 if _in_flat\(m, (\w+), \3\)\]"
                            r" if \1 else \[\]\)\)\[-1\]\Z", re.S)


def _lists_holding(source: str) -> tuple[str, str] | None:
    """(xs, x) when generated `source` is the list of the items of `xs` that hold `x` (see
    `_HOLDING`), with `xs` the whole argument of its `_iter` and `x` a name other than the
    loop's; else None."""
    match = _HOLDING.match(source)
    if match is not None:
        xs, x, v = match.group(2), match.group(3), match.group(1)
        at = source.index("_iter(m, ") + len("_iter")
    else:
        match = _HOLDING_FIRST.match(source)
        if match is None:
            return None
        xs, x, v = match.group(2), match.group(4), match.group(3)
        if x == match.group(1):
            return None
        at = source.index("_iter(m, ") + len("_iter")
    if x == v or _bracket_end(source, at) != at + len("(m, ") + len(xs) or len(_top_level_split(xs)) != 1:
        return None
    return xs, x


def _list_items(source: str, start: int) -> int | None:
    """How many items the list opened at `start` of generated source has (its commas outside
    brackets, and one), when it closes at the source's last character but one; else None. Bracket
    by bracket, as `_bracket_end` (a written-out list is long: a walk of each character cost
    about 3 % of a cold load)."""
    depth = 0
    items = 1
    for found in _BRACKET_OR_COMMA.finditer(source, start):
        token = found.group()
        if token == ",":
            items += depth == 1
        elif token in "([{":
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return items if found.start() == len(source) - 2 else None
    return None


def _bracket_end(source: str, start: int) -> int | None:
    """The index of the bracket closing the one opened at `start` of generated source."""
    depth = 0
    for found in _BRACKET.finditer(source, start):  # (bracket by bracket: a define's body is long)
        if found.group() in "([{":
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return found.start()
    return None


_BRACKET = re.compile(r"[()\[\]{}]")
_BRACKET_OR_COMMA = _Lazy(r"[()\[\]{},]")
_OPENING = re.compile(r"[(\[{]")
_LOCAL_NAME = re.compile(r"\b(_v\d+)\b")


def _depth_at(source: str, index: int) -> int:
    """How many brackets are open at `index` of generated source."""
    depth = 0
    for ch in source[:index]:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
    return depth


def _only_argument(source: str, helper: str) -> str | None:
    """`x` when `source` is exactly `helper(m, x)` (one call around all of it), else None."""
    head = f"{helper}(m, "
    if not (source.startswith(head) and source.endswith(")") and _first_bracket_ends(source)):
        return None  # (or the call closes before the end: `helper(m, a) + b`)
    return source[len(head):-1]


def _top_level_split(source: str) -> list[str]:
    """Generated `source` split at its commas outside brackets (the arguments of a call)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(source):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(source[start:i].strip())
            start = i + 1
    parts.append(source[start:].strip())
    return parts


def _flattened(listed: str) -> str:
    """`_flatten_lists` of generated source `listed`, a list just built of lists of flat lists.
    When it is written out (`[a, b]`) and each of its items is a list just built and paid for
    by `_charged_lists` (or such a list when a test holds, else `[]`), those payments are left
    to `_flatten_lists` (`built`), which pays them with its own: no call for each."""
    inner = listed[1:-1] if listed[:1] == "[" and _bracket_end(listed, 0) == len(listed) - 1 else None
    items = _top_level_split(inner) if inner else []
    unpaid = []
    for item in items:
        test = ""
        if item.startswith("(_charged_lists(m, ") and item.endswith(" else [])"):
            end = _bracket_end(item, len("(_charged_lists"))
            if end is None or not item.startswith(" if ", end + 1):
                break
            item, test = item[1:end + 1], item[end + 1:-1]  # (`_charged_lists(m, x)`, ` if c else []`)
        built = _only_argument(item, "_charged_lists")
        if item == "[]" and not test:
            unpaid.append(item)
        elif built is not None and len(_top_level_split(built)) == 1:
            unpaid.append(f"({built}{test})" if test else built)
        else:
            break
    else:
        if unpaid:
            return f"_flatten_lists(m, [{', '.join(unpaid)}], 1)"
    return f"_flatten_lists(m, {listed})"


def _first_bracket_ends(source: str) -> bool:
    """Whether the first bracket opened in generated `source` closes at its last character."""
    first = _OPENING.search(source)
    return first is not None and _bracket_end(source, first.start()) == len(source) - 1


def _used_lines(lines: list[str], sources: list[str], kept: list[str]) -> list[str]:
    """The hoisted lines (`_h0 = ...`) of a define's body whose name the body (`sources`, or a
    later line) uses, or a kept result is checked against (`kept`): a read whose use was left out
    (a condition known when the code is made, `x if true else y`) is not made."""
    out: list[str] = []
    for i, line in enumerate(lines):
        name = line.split(" = ", 1)[0]
        # (a name found inside a longer one, `_h1` in `_h10`, keeps its line: harmless)
        if name in kept or not name.isidentifier() or any(name in x for x in sources) \
                or any(name in x for x in lines[i + 1:]):
            out.append(line)
    return out


def _always_bool(e) -> bool:
    """An expression whose generated code always gives a Python bool (so `bool()` of it is itself)."""
    return isinstance(e, (n.Compare, n.Not, n.BoolOp, n.Is))


def _placeholder(m, L):  # the code every generated function has until finish() gives it its own
    raise AssertionError("generated code used before it was compiled")


def _first_call(*args, _self=None, _body=""):  # a function's code until it is first called (see below)
    return _compiled(_self, _body)(*args)  # type: ignore[name-defined] # noqa: F821 - in the module's namespace


def _first_call_of(fn: types.FunctionType, body: str) -> types.FunctionType:
    """`fn`, to compile the source of `body` when it is first called (``CodeGen._compile_on_call``):
    the function object stays the same, so whatever holds it (an op, another function) gets
    the real code from then on without asking again."""
    fn.__code__ = _first_call.__code__
    fn.__kwdefaults__ = {"_self": fn, "_body": body}
    return fn


def _path(root, target) -> list[int] | None:
    """The child indices (in `_subexpressions` order) that lead from root to target, if any."""
    todo: list[tuple[Any, list[int]]] = [(root, [])]
    while todo:
        node, path = todo.pop()
        if node is target:
            return path
        todo.extend((x, [*path, k]) for k, x in enumerate(_subexpressions(node)))
    return None


_PLAIN = (str, int, float, bool, type(None))


def _plain(v) -> bool:
    """Data a cache entry may hold (and pickle gives back equal): no functions, no objects."""
    if type(v) in _PLAIN:
        return True
    if type(v) in (list, tuple, frozenset, set):
        return all(_plain(x) for x in v)
    if type(v) is dict:
        return all(_plain(k) and _plain(x) for k, x in v.items())
    return False


def _subexpressions(e):
    """The expressions directly inside an expression."""
    for name in _field_names(type(e)):
        v = getattr(e, name)
        for x in (v if isinstance(v, tuple) else (v,)):
            if isinstance(x, tuple):
                x = x[-1]
            if _is_node(type(x)) and not isinstance(x, (n.Pos, n.TypeRef, str)):
                yield x


@cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in attrs.fields(cls))


@cache
def _is_node(cls: type) -> bool:
    return attrs.has(cls)


# ---- procedures as generated code ------------------------------------------------------------
#
# The step loop (``Machine._steps``) runs one op per step: it charges the step, calls the op,
# forgets the defines' results when the op may have changed the state (`op.changes`) and looks
# whether it parked, pushed a frame, ended the game or started a `simultaneously`. Most ops can do none of that (a `let`, a `set`,
# an `if`'s test, a loop's step, a jump), and calling them one by one through the loop was much
# of the time of games whose rules are mostly statements. `code_runs` generates, for each code,
# functions ("runs") that do its ops in place: from an *entry* pc straight on through the code,
# an `if` as a Python `if`, a jump back to the entry as `continue`, each op's charge written out
# before it and the memo forgotten after it when it may change the state, exactly as the loop
# does them. A run ends, with `fr.pc`
# where the loop goes on, before an op it does not know (a choice, a menu, `may`: the loop
# runs those as before), after an op that may stop (`emit`, a turn's or a round's start or
# end, which raise events, `return`, `simultaneously`), and where several ways meet (a loop's
# head, the code after an `if`), so no op is generated twice; there it hands the run that
# starts there to the loop to call at once. A verb's effect never stops, so a run goes on
# after it; a procedure call pushes the frame and runs the procedure on the spot
# (``Machine.enter``), and the run goes on after it when it ended (else the loop goes on from
# where the procedure stopped, the caller's pc already past the call). Each of those pcs is an
# entry with a run of its own, so the loop calls a run at almost every pc it reaches; a pc
# without one (None) is stepped as before. The numbering of ops does not change: a state saved anywhere resumes at its pc. On
# an error the run leaves the pc of the op that raised in `fr.pc`, and the loop reports the
# error at that op's position. No rule text becomes source: every op, its expressions, the
# locals' names and the positions are read from the run's namespace by names made of indices;
# the only literals are pcs.

# An expression's function of one of the plain shapes `CodeGen.function` makes (its body one
# line), and the names a body written into a fast run may not hold (the run's own locals).
_INLINABLE = re.compile(
    r"def (_e\d+)\(m, L, _i=None\):\n"
    r"(?:    if m\.s\.unordered:\n        return _refs\[_i\]\(m, L\)\n)?"
    r"(?:    used = m\.budget\.used\n    memo_size = len\(m\.memo\)\n)?"
    r"    try:\n        return (.*)\n    except _FAULTS:\n"
    r"        return _slow\(_i, m, L, (?:used, memo_size|m\.budget\.used, len\(m\.memo\))\)\n?")
_WORD = re.compile(r"[A-Za-z_]\w*")
_QUOTES = re.compile("['\"]")
_RUN_LOCALS = frozenset(("_i", "used", "memo_size", "b", "fr", "pc", "_t", "_x", "_c", "_g", "_l", "_j", "_tl", "_v"))

_RUN_OPS = 48  # ops generated into one run at most (the code after an `if` is generated per branch)
_RUN_DEPTH = 24  # nested `if`s in one run at most (Python limits indentation)


class _StepsGen:
    def __init__(self, leaves: Callable[[str], bool] | None = None, fast: bool = False,
                 module: CodeGen | None = None) -> None:
        self.leaves = leaves  # whether a procedure (by its code's key) cannot stop (`leaf_code`)
        self.fast = fast  # the fast runs (see `run`): steps paid in sums, no positions kept
        self.module = module if fast else None  # the game's generated module, whose bodies fast runs write in place
        self.ns: dict[str, Any] = {}
        self.names: dict[Any, str] = {}  # id of an object (or ("int", n): a number of the rules) -> its name
        self.source: list[str] = []
        self.runs = 0
        self.joins: set[int] = set()  # the pcs of the code being generated reached from two places or more

    def name(self, obj: Any) -> str:
        """A namespace name for an op, an expression's function, a local's name or a position."""
        if obj is None or type(obj) in (int, bool):
            return repr(obj)
        # A text by its value: a load that generated the game's module holds equal texts (a
        # local's name) as several strings where a load from the cache holds one, and the runs'
        # source, by which their compiled code is cached, must not depend on which load made it
        ident = ("text", obj) if type(obj) is str else id(obj)
        known = self.names.get(ident)
        if known is None:
            known = self.names[ident] = f"_s{len(self.names)}"
            self.ns[known] = obj
        return known

    def value(self, f: Any) -> str:
        """Source working out an expression's function `f`: a constant of the rules in place
        (`literal`: the very value the function gives), a local read in place (its function
        only when the local is missing, for its error), anything else by its call."""
        literal = getattr(f, "literal", None)
        if type(literal) is tuple and len(literal) == 1 and (literal[0] is None or type(literal[0]) in (int, bool, str)):
            value = literal[0]
            if type(value) is int:  # (a number of the rules, read from the namespace too: no rule text in the source)
                return self.number(value)
            return self.name(value)
        if getattr(f, "empty_list", False) is True:  # `[]`: a new empty list, as its function makes
            return "[]"
        local = getattr(f, "local", None)
        if type(local) is str and self.fast:  # (a missing one raises: the careful runs give its error)
            return f"L[{self.name(local)}]"
        if type(local) is str:
            miss = self.name(_MISS)
            return f"(_l if (_l := L.get({self.name(local)}, {miss})) is not {miss} else {self.name(f)}(m, L))"
        return self.call(f)

    def number(self, value: int) -> str:
        """A number of the rules, by its name in the namespace."""
        known = self.names.get(("int", value))
        if known is None:
            known = self.names[("int", value)] = f"_s{len(self.names)}"
            self.ns[known] = value
        return known

    def call(self, f: Any) -> str:
        """Source working out expression function `f` by its call, or, in a fast run, its body
        written in place (``CodeGen.run_body``), the module's names it reads put in the run's
        namespace (the very objects: the module is finished when runs are made)."""
        if self.module is not None:
            found = self.module.run_body(f)
            if found is not None:
                body, names = found
                for name in names:
                    self.ns[name] = self.module.ns[name]
                return f"({body})"
        return f"{self.name(f)}(m, L)"

    def code(self, code: list) -> list[str | None]:
        """The entries of one code: per pc, the name of its run or None."""
        end = len(code)
        entries: list[str | None] = [None] * end
        into = [0] * (end + 1)  # how many places each pc is reached from
        into[0] = 1  # the start of the code
        for pc, op in enumerate(code):
            for to in _successors(op, pc):
                if 0 <= to <= end:
                    into[to] += 1
        self.joins = {pc for pc in range(end) if into[pc] > 1}
        work = [0]
        seen: set[int] = set()
        while work:
            pc = work.pop()
            if pc in seen or not (0 <= pc < end):
                continue
            seen.add(pc)
            op = code[pc]
            shape = getattr(op, "shape", None)
            if shape is not None and not _has_run(op):  # a run of it alone would gain nothing
                work.append(pc + 1)
                continue
            if shape is None and not _pick_in_run(op):  # run by the loop; where it may go on are entries
                work.append(pc + 1)
                work.extend(getattr(op, "starts", ()))
                end_of = getattr(op, "end", None)
                if type(end_of) is int:
                    work.append(end_of)
                continue
            entries[pc] = self.run(code, pc, work)
        return entries

    def run(self, code: list, entry: int, work: list[int]) -> str:
        name = f"_run{entry}"  # (each code has a namespace of its own)
        self.runs += 1
        lines: list[str] = []
        state = {"ops": 0, "loops": False}
        fast = self.fast

        def pay(ind: str, owed: int) -> None:
            _pay(ind, owed, lines)

        def leaf(pc: int, ind: str, owed: int) -> None:
            pay(ind, owed)
            if pc == entry:
                lines.append(f"{ind}continue")
                state["loops"] = True
                return
            work.append(pc)
            if 0 <= pc < len(code) and _has_run(code[pc]):
                # nothing has stopped since the last op that may stop (which ends a run): the
                # run there is handed to the caller's loop to call at once (``Machine._steps``).
                # A fast run calls one further on itself and returns what it returns: the same
                # call, without a round of the caller's loop for it (a tenth of a run's hand-on).
                # Only further on: a chain of such calls ends within the code, so it cannot grow
                # Python's stack without bound as a loop's way back would; and not in careful
                # runs, whose `except` would give the error the pc of this run's op
                if fast and pc > entry:
                    lines.append(f"{ind}return _run{pc}(m, fr)")
                else:
                    lines.append(f"{ind}return _run{pc}")
                return
            lines.append(f"{ind}fr.pc = {pc}")
            lines.append(f"{ind}return")

        def forget(ind: str, changes: bool) -> None:
            """The define memo forgotten after an op that may change the state, as the loop does."""
            if changes:
                lines.append(f"{ind}if m.memo:")
                lines.append(f"{ind}    m.memo = {{}}")

        def walk(pc: int, ind: str, path: frozenset, depth: int, owed: int) -> None:  # noqa: C901
            if pc >= len(code):  # the code's end, with nothing stopped since the run began
                pay(ind, owed)
                lines.append(f"{ind}fr.pc = {len(code)}")
                lines.append(f"{ind}return {self.name(ended)}")
                return
            if path and (pc == entry or pc in path or (pc in self.joins and not _short_tail(code, pc))):
                # where several ways meet (a loop's head, the code after an `if`): a run of its
                # own, so no op is generated twice and the module stays small (but a few plain
                # ops and a jump, the end of a loop's body after an `if` mostly, are generated
                # on each way into them: the loop goes round in one run)
                leaf(pc, ind, owed)
                return
            op = code[pc]
            shape = getattr(op, "shape", None)
            if shape is None and _pick_in_run(op):
                shape = ("menu",) if getattr(op, "fixed", None) is not None else ("pick",)
            if shape is None or (path and (state["ops"] >= _RUN_OPS or depth >= _RUN_DEPTH)):
                leaf(pc, ind, owed)
                return
            state["ops"] += 1
            path = path | {pc}
            o = self.name(op)
            if fast:  # its step owed, paid with the others before the run may stop
                owed += 1
            else:
                lines.append(f"{ind}pc = {pc}")
                lines.append(f"{ind}b.used += 1")
                lines.append(f"{ind}if b.used > b.limit:")
                lines.append(f"{ind}    b.charge(0, {self.name(getattr(op, 'pos', None))})")
            kind = shape[0]
            if kind == "pick":  # a choice of items: it parks (or, on anything unusual, the op does it)
                pay(ind, owed)
                self.pick(op, pc, ind, lines)
                work.append(pc + 1)  # where its answer goes on
                return
            if kind == "menu":  # a menu of fixed options: it parks
                pay(ind, owed)
                self.menu(op, pc, ind, lines)
                work.extend(op.starts)  # where its answers go on
                return
            changes = op.changes  # (compiler._changes_state): the define memo forgotten after it
            if kind == "pass":
                walk(pc + 1, ind, path, depth, owed)
            elif kind == "jump":
                walk(shape[1], ind, path, depth, owed)
            elif kind == "let":
                lines.append(f"{ind}L[{self.name(shape[1])}] = {self.value(shape[2])}")
                walk(pc + 1, ind, path, depth, owed)
            elif kind == "set" and fast and getattr(shape[1], "pvar", None) is not None:  # `set p.x = v`
                self.player_var(shape[1], self.value(shape[2]), ind, lines)
                forget(ind, changes)
                walk(pc + 1, ind, path, depth, owed)
            elif kind == "set":
                lines.append(f"{ind}{self.name(shape[1])}(m, L, {self.value(shape[2])})")
                forget(ind, changes)
                walk(pc + 1, ind, path, depth, owed)
            elif kind == "begin":  # a `for` loop's items, paid for, and its index
                src = self.call(shape[1])
                items, index, where = (self.name(x) for x in shape[2:])
                lines.append(f"{ind}_t = L[{items}] = list({src} or ())")
                lines.append(f"{ind}b.used += len(_t){_plus(owed)}")
                lines.append(f"{ind}if b.used > b.limit:")
                lines.append(f"{ind}    b.charge(0, {where})")
                lines.append(f"{ind}L[{index}] = 0")
                walk(pc + 1, ind, path, depth, 0)
            elif kind == "log":  # a log line everyone reads, by the player whose part or turn it is
                text = self.call(shape[1])
                made = _only_argument(text[1:-1], "_paid_text") if fast and text[:1] == "(" else None
                # (in a fast run, a text made for the line is paid for with the line, in place)
                lines.append(f"{ind}_t = {text if made is None else made}")
                self.log_line(ind, "log", "_t", "m.s.active",
                              f"m.log({self.name('log')}, m.branch.player if m.branch is not None "
                              f"else m.s.active, _t, None)", lines, owed, made is not None)
                walk(pc + 1, ind, path, depth, 0)
            elif kind == "advance" and fast and getattr(op, "local_add", None) is not None:  # `set k += v`, k a local
                self.local_add(op.local_add, ind, lines)
                walk(pc + 1, ind, path, depth, owed)
            elif kind == "advance" and fast and getattr(op, "pvar_add", None) is not None:  # `set p.x += v`
                self.player_add(op, ind, lines)
                forget(ind, changes)
                walk(pc + 1, ind, path, depth, owed)
            elif kind == "advance" and getattr(op, "var_item", None) is not None:  # `set board[i] = v`
                self.var_item(op, ind, lines, owed)
                forget(ind, changes)
                walk(pc + 1, ind, path, depth, 0)
            elif kind == "advance" and getattr(op, "turn", None) is not None:  # a turn's start (no trigger)
                self.turn_start(op, ind, lines, owed)
                forget(ind, changes)
                walk(pc + 1, ind, path, depth, 0)
            elif kind == "advance" and getattr(op, "turn_over", None) is not None:  # a turn's end (no trigger)
                lines.append(f"{ind}if m.s.lasting:")
                lines.append(f"{ind}    {o}(m, fr)")
                lines.append(f"{ind}else:")
                lines.append(f"{ind}    L.pop({self.name(op.turn_over)})")
                forget(ind, changes)
                walk(pc + 1, ind, path, depth, owed)
            elif kind == "forget":
                for local in shape[1]:
                    lines.append(f"{ind}L.pop({self.name(local)}, None)")
                walk(pc + 1, ind, path, depth, owed)
            elif kind == "advance" and fast and len(shape) > 1 and getattr(shape[1], "inline", None) is not None:
                self.lean_effect(shape[1].inline, ind, lines)  # (a move, a draw, a gain or pay, in place)
                forget(ind, changes)
                walk(pc + 1, ind, path, depth, owed)
            elif kind == "advance":  # the op moves fr.pc on; each way out of a run sets it anyway
                # (an effect gives its lean form, which leaves fr.pc alone)
                lines.append(f"{ind}{self.name(shape[1]) if len(shape) > 1 else o}(m, fr)")
                forget(ind, changes)
                walk(pc + 1, ind, path, depth, owed)
            elif kind in ("effect", "leaf"):  # after it, the loop looks whether it stopped
                # (an effect may raise an event, park or end the game; the code after it is
                # an entry anyway, where the loop goes on once the triggers it started are done)
                pay(ind, owed)
                lines.append(f"{ind}fr.pc = {pc}")
                lines.append(f"{ind}{o}(m, fr)")
                forget(ind, changes)
                lines.append(f"{ind}return")
                work.append(pc + 1)
            elif kind == "call":  # a procedure call, as the op makes it, then the procedure on the spot
                from .compiler import RETURN_TO  # (the compiler imports this module)

                pairs, binding, key, where = shape[1:]
                values = ", ".join(f"{self.name(p)}: {self.value(f)}" for p, f in pairs)
                lines.append(f"{ind}_t = {{{values}}}")
                pay(ind, owed)
                lines.append(f"{ind}fr.pc = {pc + 1}")
                if binding is not None:  # what it is if the procedure ends without `return`
                    lines.append(f"{ind}L[{self.name(binding)}] = None")
                    lines.append(f"{ind}_t[{self.name(RETURN_TO)}] = {self.name(binding)}")
                # from here on, an error is the procedure's (the position is its op's, set by
                # `enter`; a call too deep has its own), and the caller has moved on
                if not fast:
                    lines.append(f"{ind}pc = {pc + 1}")
                # (a procedure that cannot stop runs without its frame pushed: ``Machine.call_leaf``)
                enter = "call_leaf" if binding is None and self.leaves is not None and self.leaves(key) else "enter"
                lines.append(f"{ind}if not m.{enter}({self.name(key)}, _t, {self.name(where)}):")
                lines.append(f"{ind}    return")
                work.append(pc + 1)  # where the loop goes on when the procedure stops
                walk(pc + 1, ind, path, depth, 0)
            elif kind == "branch":
                lines.append(f"{ind}if {self.call(shape[1])}:")
                walk(pc + 1, ind + "    ", path, depth + 1, owed)
                lines.append(f"{ind}else:")
                walk(shape[2].target, ind + "    ", path, depth + 1, owed)
            elif kind == "step":
                items, index, var = (self.name(shape[j]) for j in (1, 2, 3))
                out = shape[4].target
                lines.append(f"{ind}_t = L[{index}]")
                lines.append(f"{ind}if _t >= len(L[{items}]):")
                walk(out, ind + "    ", path, depth + 1, owed)
                lines.append(f"{ind}else:")
                lines.append(f"{ind}    L[{var}] = L[{items}][_t]")
                lines.append(f"{ind}    L[{index}] = _t + 1")
                walk(pc + 1, ind + "    ", path, depth + 1, owed)
            elif kind == "two" and fast and getattr(op, "loop", None) is not None:  # a `while`'s test, in place
                cond, counter, limit = op.loop
                out = shape[1].target
                lines.append(f"{ind}if {self.call(cond)}:")
                lines.append(f"{ind}    _t = L[{self.name(counter)}] = L[{self.name(counter)}] + 1")
                if limit is not None:  # (past it, the careful runs say so)
                    lines.append(f"{ind}    if _t > {self.number(limit)}:")
                    lines.append(f"{ind}        {self.name(_over)}()")
                walk(pc + 1, ind + "    ", path, depth + 1, owed)
                lines.append(f"{ind}else:")
                walk(out, ind + "    ", path, depth + 1, owed)
            elif kind == "two":  # the op sets fr.pc to one of two places
                out = shape[1].target
                lines.append(f"{ind}fr.pc = {pc}")
                lines.append(f"{ind}{o}(m, fr)")
                lines.append(f"{ind}if fr.pc == {out}:")
                walk(out, ind + "    ", path, depth + 1, owed)
                lines.append(f"{ind}else:")
                walk(pc + 1, ind + "    ", path, depth + 1, owed)
            else:  # pragma: no cover - a shape the compiler gives and this does not know
                raise AssertionError(kind)

        walk(entry, "            ", frozenset(), 0, 0)
        head = [f"def {name}(m, fr):",
                "    L = fr.locals",
                "    b = m.budget"]
        if fast:  # no positions kept: any error has the action carried out again by the careful runs
            if state["loops"]:
                head.append("    while True:")
                lines[:] = [line[4:] for line in lines]
            else:
                lines[:] = [line[8:] for line in lines]
            self.source.append("\n".join([*head, *lines, ""]))
            return name
        head.append("    try:")
        if state["loops"]:
            head.append("        while True:")
        else:  # one pass: the body one level less deep
            lines[:] = [line[4:] for line in lines]
        self.source.append("\n".join([*head, *lines,
                                      "    except BaseException:",
                                      "        fr.pc = pc  # the op that raised: the loop reports its position",
                                      "        raise", ""]))
        return name

    def log_line(self, ind: str, kind: str, text: str, player: str, otherwise: str, lines: list[str],
                 owed: int = 0, unpaid: bool = False) -> None:
        """``Machine.log`` of `text` by `player` for everyone, in place, for a line that needs
        none of its checks (the game's log short, no `simultaneously` running, a line not too
        long): the same charge and the same line; `otherwise` (its call) does the rest. `owed`:
        the steps a fast run owes (see `run`), paid with the line; `unpaid`: the text is not
        paid for yet (``_paid_text``'s charge, and its cut, are made here)."""
        lines.append(f"{ind}_g = m.s")
        lines.append(f"{ind}if m.branch is None and not _g.branches and len({text}) <= {MAX_LOG_LINE} "
                     f"and len(_g.log) < {_LOG_CHECKED}:")
        lines.append(f"{ind}    b.used += {'2 * ' if unpaid else ''}len({text}){_plus(owed)}")
        lines.append(f"{ind}    if b.used > b.limit:")
        lines.append(f"{ind}        b.charge(0)")
        lines.append(f"{ind}    _g.log.append([{self.name(kind)}, {player}, {text}])")
        lines.append(f"{ind}else:")
        _pay(ind + "    ", owed, lines)
        if unpaid:
            lines.append(f"{ind}    {text} = {self.name(_paid_text)}(m, {text})")
        lines.append(f"{ind}    {otherwise}")

    def player_var(self, put: Any, value: str, ind: str, lines: list[str]) -> None:
        """`set p.x = v`, `p` a local, in a fast run: what its putter (``compiler.place_of``'s
        `put_pvar`) does for a seat, outside `simultaneously` or in the seat's own part (a list
        stored as its copy, as there); anything else is the putter's (called with the value)."""
        local, keys = put.pvar
        lines.append(f"{ind}_v = {value}")
        lines.append(f"{ind}_x = L.get({self.name(local)}, {self.name(_MISS)})")
        lines.append(f"{ind}_c = m.branch")
        lines.append(f"{ind}if type(_x) is int and 0 <= _x < {self.number(len(keys))} and (_c is None or _c.player == _x):")
        lines.append(f"{ind}    _t = {self.name(keys)}[_x]")
        lines.append(f"{ind}    _c = m.s.vars")
        lines.append(f"{ind}    _j = m.journal")
        lines.append(f"{ind}    if _j is not None and _t not in _j.vars:")
        lines.append(f"{ind}        _j.vars[_t] = _c.get(_t, {self.name(_MISSING)})")
        lines.append(f"{ind}    _c[_t] = {self.name(_copy_value)}(_v) if {self.name(isinstance)}(_v, list) else _v")
        lines.append(f"{ind}else:")
        lines.append(f"{ind}    {self.name(put)}(m, L, _v)")

    def local_add(self, add: Any, ind: str, lines: list[str]) -> None:
        """`set k += v` (or `-=`) of a local whose type is a whole number, in a fast run: the sum
        of two whole numbers within the limit stored in place; anything else (a missing local,
        another value, a sum past the limit) raises, and the careful runs carry the action out
        as the op does it (``compiler._Compiler.set_op``'s `set_value`)."""
        local, value, subtract = add
        name = self.name(local)
        lines.append(f"{ind}_x = L[{name}]")
        lines.append(f"{ind}_v = {self.value(value)}")
        lines.append(f"{ind}if type(_x) is not int or type(_v) is not int "
                     f"or not -{self.number(MAX_INT)} <= (_t := _x {'-' if subtract else '+'} _v) <= {self.number(MAX_INT)}:")
        lines.append(f"{ind}    {self.name(_over)}()")
        lines.append(f"{ind}L[{name}] = _t")

    def player_add(self, op: Any, ind: str, lines: list[str]) -> None:
        """`set p.x += v` (or `-=`), `p` a local, in a fast run: for a seat, outside `simultaneously`
        or in the seat's own part, two whole numbers whose sum is within the limit stored in
        place (noted in the journal); a value of another kind or a sum past the limit raises (the
        careful runs do it as the op does); anything else is the op's (``compiler.add_to_var``'s
        `add_to_pvar`, called before anything is worked out)."""
        local, keys, value, subtract = op.pvar_add
        limit = self.number(MAX_INT)
        lines.append(f"{ind}_x = L[{self.name(local)}]")
        lines.append(f"{ind}_c = m.branch")
        lines.append(f"{ind}if type(_x) is int and 0 <= _x < {self.number(len(keys))} and (_c is None or _c.player == _x):")
        lines.append(f"{ind}    _t = {self.name(keys)}[_x]")
        lines.append(f"{ind}    _g = m.s.vars")
        lines.append(f"{ind}    _l = _g[_t]")
        lines.append(f"{ind}    _v = {self.value(value)}")
        lines.append(f"{ind}    if type(_l) is not int or type(_v) is not int "
                     f"or not -{limit} <= (_tl := _l {'-' if subtract else '+'} _v) <= {limit}:")
        lines.append(f"{ind}        {self.name(_over)}()")
        lines.append(f"{ind}    _j = m.journal")
        lines.append(f"{ind}    if _j is not None and _t not in _j.vars:")
        lines.append(f"{ind}        _j.vars[_t] = _l")
        lines.append(f"{ind}    _g[_t] = _tl")
        lines.append(f"{ind}else:")
        lines.append(f"{ind}    {self.name(op)}(m, fr)")

    def lean_effect(self, inline: tuple, ind: str, lines: list[str]) -> None:
        """The lean form of `move`, `draw`, `gain` or `pay` (``compiler._fast_effect``) in a fast
        run: its arguments worked out in its order, then the same call of ``Machine.move_cards``,
        ``draw_cards`` or ``Machine.transfer_plain``, without the call of the op and of each
        argument's function. Only the lean form's wording of an error is left out, and a fast
        run that raises anything is carried out again by the careful runs, which call the op."""
        kind, fns = inline[0], inline[1]
        slots = ("_x", "_c", "_g")[:len(fns)]
        for slot, f in zip(slots, fns, strict=True):
            lines.append(f"{ind}{slot} = {self.value(f)}")
        if kind == "move":
            cards, zone = slots if inline[2] else slots[::-1]
            lines.append(f"{ind}m.move_cards(list({cards}), {zone})")
        elif kind == "draw":
            at, binding = inline[2], inline[3]
            call = f"{self.name(draw_cards)}(m, {', '.join(slots[i] for i in at)})"
            lines.append(f"{ind}{call}" if binding is None else f"{ind}L[{self.name(binding)}] = {call}")
        else:
            token, gain, amount_at, holder_at, other_at = inline[2:]
            other = self.name("supply") if other_at is None else f"({slots[other_at]} or {self.name('supply')})"
            ends = (other, slots[holder_at]) if gain else (slots[holder_at], other)
            lines.append(f"{ind}m.transfer_plain({slots[amount_at]}, {self.name(token)}, {ends[0]}, {ends[1]}, "
                         f"{self.name(not gain)})")

    def var_item(self, op: Any, ind: str, lines: list[str], owed: int = 0) -> None:
        """`set xs[i] = v` of a var whose type says it holds no lists (``compiler.set_var_item``),
        `i` a local, in place: for a list, `i` a whole number inside it, outside `simultaneously`,
        what the op does (the new list paid for by its length, noted in the journal, stored);
        anything else is the op's (called, before anything is worked out)."""
        name, local, where = (self.name(op.var_item[k]) for k in (0, 1, 3))
        miss = self.name(_MISS)
        lines.append(f"{ind}_c = m.s.vars[{name}]")
        lines.append(f"{ind}_x = L.get({local}, {miss})")
        lines.append(f"{ind}if type(_c) is not list or type(_x) is not int or not 0 <= _x < len(_c) "
                     f"or m.branch is not None or len(_c) > {MAX_ITEMS}:")
        _pay(ind + "    ", owed, lines)
        lines.append(f"{ind}    {self.name(op)}(m, fr)")
        lines.append(f"{ind}else:")
        lines.append(f"{ind}    _t = _c[:]")
        lines.append(f"{ind}    _t[_x] = _v = {self.value(op.var_item[2])}")
        lines.append(f"{ind}    if type(_v) is list or type(_v) is dict:  # (a value of another type than the var's)")
        _pay(ind + "        ", owed, lines)
        lines.append(f"{ind}        {self.name(charge_value)}(m, _t, {where})")
        lines.append(f"{ind}        m.set_var({name}, _t)")
        lines.append(f"{ind}    else:")
        lines.append(f"{ind}        b.used += len(_t){_plus(owed)}")
        lines.append(f"{ind}        if b.used > b.limit:")
        lines.append(f"{ind}            b.charge(0, {where})")
        lines.append(f"{ind}        _j = m.journal")
        lines.append(f"{ind}        if _j is not None and {name} not in _j.vars:")
        lines.append(f"{ind}            _j.vars[{name}] = _c")
        lines.append(f"{ind}        m.s.vars[{name}] = _t")

    def turn_start(self, op: Any, ind: str, lines: list[str], owed: int = 0) -> None:
        """A turn's start (``compiler.turn_stmt``'s `begin`) that raises no event a trigger
        answers, its player a local, in place: what `begin` does when no `once` marks and no
        lasting modifiers are held, the player a seat; anything else is `begin`'s (called)."""
        local, saved = op.turn
        miss = self.name(_MISS)
        lines.append(f"{ind}_x = L.get({self.name(local)}, {miss})")
        lines.append(f"{ind}_g = m.s")
        lines.append(f"{ind}_tl = m.game.turn_lines")
        lines.append(f"{ind}if type(_x) is not int or not 0 <= _x < len(_tl) or _g.once or _g.lasting:")
        _pay(ind + "    ", owed, lines)
        lines.append(f"{ind}    {self.name(op)}(m, fr)")
        lines.append(f"{ind}else:")
        lines.append(f"{ind}    L[{self.name(saved)}] = _x")
        lines.append(f"{ind}    _g.active = _x")
        lines.append(f"{ind}    _g.turn += 1")
        lines.append(f"{ind}    _t = _tl[_x]")
        self.log_line(ind + "    ", "turn", "_t", "_x", f"m.log({self.name('turn')}, _x, _t)", lines, owed)

    def menu(self, op: Any, pc: int, ind: str, lines: list[str]) -> None:
        """A menu whose options are always open and whose labels and prompt are plain texts
        (``compiler._MenuOp.fixed``): what its op does, in place (the same actions every time,
        each decision with copies of the lists), its chooser read in place when a local."""
        prompt, values, labels = (self.name(x) for x in op.fixed)
        lines.append(f"{ind}fr.pc = {pc}")
        if op.chooser_local is not None:
            miss = self.name(_MISS)
            lines.append(f"{ind}_x = L.get({self.name(op.chooser_local)}, {miss})")
            lines.append(f"{ind}if _x is {miss}:")
            lines.append(f"{ind}    _x = {self.name(op.chooser)}(m, L)")
        else:
            lines.append(f"{ind}_x = {self.name(op.chooser)}(m, L)")
        lines.append(f"{ind}m.wait(_x, {prompt}, {self.name('menu')}, {values}[:], {labels}[:])")
        lines.append(f"{ind}return")

    def pick(self, op: Any, pc: int, ind: str, lines: list[str]) -> None:
        """A choice of items: its generated function (``CodeGen.pick``) parks it, or, should
        anything be unusual, the op does it its own way (as the loop would have called it)."""
        o = self.name(op)
        lines.append(f"{ind}fr.pc = {pc}")
        lines.append(f"{ind}if not {self.name(op.written)}(m, fr, {self.name(op.chooser)}, {self.name(op.prompt)}):")
        lines.append(f"{ind}    {o}(m, fr)")
        lines.append(f"{ind}return")


def _pay(ind: str, owed: int, lines: list[str]) -> None:
    """A fast run's steps owed since its last payment (see `_StepsGen.run`), paid and checked."""
    if owed:
        lines.append(f"{ind}b.used += {owed}")
        lines.append(f"{ind}if b.used > b.limit:")
        lines.append(f"{ind}    b.charge(0)")


def _plus(owed: int) -> str:
    """A fast run's steps owed, added to a payment of its own."""
    return f" + {owed}" if owed else ""


_TAIL_OPS = 4  # the most ops before its jump of code generated again on each way into it


def _pick_in_run(op: Any) -> bool:
    """Whether the op is a choice a run makes: a choice of items written out by ``CodeGen.pick``
    (a run calls it), or a menu of fixed options (``_StepsGen.menu``)."""
    from .compiler import _MenuOp, _PickOp  # (the compiler imports this module)

    return (op.__class__ is _PickOp and op.written is not None) or (op.__class__ is _MenuOp and op.fixed is not None)


def _short_tail(code: list, pc: int) -> bool:
    """Whether the code at `pc` is a few ops that cannot branch nor stop, then a jump."""
    for at in range(pc, min(pc + _TAIL_OPS, len(code))):
        shape = getattr(code[at], "shape", None)
        if shape is None:
            return False
        if shape[0] == "jump":
            return True
        if shape[0] not in ("pass", "let", "set", "forget", "advance", "log"):
            return False
    return False


def _has_run(op: Any) -> bool:
    """Whether the op has a run of its own where it is an entry (see ``_StepsGen.code``)."""
    shape = getattr(op, "shape", None)
    if shape is None:
        return _pick_in_run(op)
    return shape[0] not in ("effect", "leaf")


def _successors(op: Any, pc: int) -> list[int]:
    """Where the loop may go after the op at `pc` (for a procedure call: where its caller goes on)."""
    shape = getattr(op, "shape", None)
    if shape is None:  # a choice, a menu, `may`: on after it, or where the answer leads
        out = [pc + 1, *getattr(op, "starts", ())]
        end_of = getattr(op, "end", None)
        return [*out, end_of] if type(end_of) is int else out
    kind = shape[0]
    if kind == "jump":
        return [shape[1]]
    if kind == "branch":
        return [pc + 1, shape[2].target]
    if kind == "step":
        return [pc + 1, shape[4].target]
    if kind == "two":
        return [pc + 1, shape[1].target]
    return [pc + 1]


# The kinds of op a procedure that cannot stop is made of (`leaf_code`): none parks (a choice,
# a menu, `may`), calls a procedure, raises an event a trigger answers (`quiet_effects` gives
# the others as "advance"), returns or ends the game. Run from pc 0 it always reaches its end,
# or raises.
_LEAF_KINDS = frozenset(("pass", "jump", "let", "set", "begin", "log", "forget", "advance", "branch", "step", "two"))


def leaf_code(code: list) -> bool:
    """Whether a procedure's ops (after `quiet_effects`) cannot stop it before its end: a call of
    it from a generated run needs no frame on the stack (``Machine.call_leaf``)."""
    return bool(code) and all((getattr(op, "shape", None) or ("",))[0] in _LEAF_KINDS for op in code)


def steps_source(code: list, leaves: Callable[[str], bool] | None = None, fast: bool = False,
                 module: CodeGen | None = None) -> tuple[str, dict[str, Any], list[str | None]]:
    """The generated runs of one code: their source, its namespace, and per pc the run's name.
    ``leaves``: whether a procedure called, by its code's key, cannot stop (`leaf_code`);
    ``fast``: the fast runs (see `_StepsGen.run`), with the bodies of `module`'s expressions
    written in place."""
    gen = _StepsGen(leaves, fast, module)
    entries = gen.code(code)
    return "\n".join(gen.source), gen.ns, entries


def quiet_effects(code: list, triggers: dict) -> list:
    """The ops of a code, each effect that raises only events no trigger answers (a turn's
    start and end in most games) given as one that cannot stop: what the op does is the same
    (a copy of the function, not a wrapper), and the generated runs go on after it."""
    out = []
    for op in code:
        shape = getattr(op, "shape", None)
        if (shape is not None and shape[0] == "effect" and len(shape) > 1 and type(op) is types.FunctionType
                and not any(triggers.get(event) for event in shape[1])):
            same = types.FunctionType(op.__code__, op.__globals__, op.__name__, op.__defaults__, op.__closure__)
            same.__dict__.update(op.__dict__)  # (its position, and what a run may do in its place)
            same.shape = ("advance",)  # type: ignore[attr-defined]
            same.changes = op.changes  # type: ignore[attr-defined]
            op = same
        out.append(op)
    return out


def code_runs(code: list, leaves: Callable[[str], bool] | None = None, fast: bool = False,
              module: CodeGen | None = None, key: str = "") -> list:
    """Per pc of one code (its ops), the generated run that starts there, or None (see above).

    Made when the code first runs (``Machine._steps``), not at load: a load stays as fast as it
    was, and only the codes a game uses are ever generated (a few milliseconds in all). When the
    game's module came through the on-disk cache, so does the runs' compiled code: compile() was
    two thirds of making them, some 50 ms in the first playouts of a game of fifty codes, paid
    again by every process that loads the game (each worker of `simulate --workers`).

    ``key``, the code's key ("proc:NAME", "flow"...), names the runs' file, "<rulelang steps
    KEY>": a profile (tools/profile.py) and a traceback tell one code's runs from another's."""
    source, ns, entries = steps_source(code, leaves, fast, module)
    cached = module is not None and module.cache and cache_dir() is not None
    filename = f"<rulelang steps {key}>" if key else "<rulelang steps>"
    compiled = compile_cached(source, filename) if cached else compile(source, filename, "exec")
    exec(compiled, ns)  # noqa: S102 - no rule text in it (see above)
    return [ns[e] if e is not None else None for e in entries]
