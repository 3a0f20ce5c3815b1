"""The work budget: how rules pay for what they do, and how big a value may grow.

Rule files are untrusted, so every piece of work a rule makes the engine do is charged, in
*steps*, to a ``Budget``; past its limit the budget raises a ``RuleRuntimeError`` at the rule's
position. There is one budget per action (``Machine`` makes one, or is given one), one for all
the constants of a load, and one for an agent's whole look-ahead. What costs what is listed in
``docs/limits.md``; in short, one step per op run, per item of a value built, walked, copied or
compared (nested items counted), per card moved, per character of text made, per call of a
``define``.

The charging API, used alike by the reference evaluator (``compiler.py``, ``runtime.py``) and by
generated code, is four functions of a machine ``m`` (anything with a ``budget``):

- ``m.charge(units, pos)``: pay ``units`` steps.
- ``charge_value(m, value, pos) -> int``: pay for walking a value (its items, nested ones too) and
  refuse one that is too big or nested too deep; returns its size.
- ``charge_text(m, text, pos) -> str``: pay for a text made, cut to ``MAX_TEXT`` characters.
- ``check_int(value, pos)``: refuse a number past ``MAX_INT``.
"""

from __future__ import annotations

from typing import Any

from rulelang.diagnostics import RuleRuntimeError

MAX_STEPS_PER_ACTION = 1_000_000  # steps of work between two decisions
MAX_STEPS_PER_LOAD = 1_000_000  # steps for every constant, card value and initial value of a load
MAX_STEPS_PER_AGENT = 4_000_000  # steps for one decision of a look-ahead agent (greedy)
STEPS_PER_CALL = 5  # a call of a `define`: its arguments, a frame of its own, a remembered result
MAX_ITEMS = 100_000  # items in one value, nested items counted (as if nothing were shared)
MAX_VALUE_DEPTH = 16  # lists inside lists
MAX_INT = 10**18  # numbers past this are refused (repeated squaring would eat all memory)
MAX_TEXT = 10_000  # characters in a text made by a template; longer is cut
# A game's log and its lasting modifiers outlive the action that adds to them, so each action's
# budget alone does not bound them: a game writing 900,000 characters per decision, within its
# budget, would fill the memory after a thousand decisions. The games' own logs are about 1,000
# lines of at most 100 characters.
MAX_LOG_LINE = 1_000  # characters in one line of a game's log; longer is cut
MAX_LOG_LINES = 100_000  # lines in one game's log
MAX_LOG_CHARS = 5_000_000  # characters in one game's log
MAX_LASTING = 10_000  # lasting modifiers in force at once
_LIST_OR_MAP = (list, dict)  # (isinstance of a constant pair: no tuple built per call)


class Budget:
    """A count of steps with a limit. Share one object to give several runs one budget."""

    __slots__ = ("used", "limit", "what")

    def __init__(self, limit: int = MAX_STEPS_PER_ACTION, what: str = "without a decision (an endless loop?)"):
        self.used = 0
        self.limit = limit
        self.what = what

    def charge(self, units: int, pos=None) -> None:
        self.used += units
        if self.used > self.limit:
            raise RuleRuntimeError(f"more than {self.limit} steps {self.what}", pos)

    @property
    def left(self) -> int:
        return max(0, self.limit - self.used)


def check_int(value: Any, pos=None) -> Any:
    """Refuse numbers past MAX_INT: repeated doubling or squaring would otherwise eat memory."""
    if type(value) is int and not -MAX_INT <= value <= MAX_INT:
        raise RuleRuntimeError(f"a number grew past {MAX_INT:.0e}", pos)
    return value


def value_size(value: Any, pos=None) -> int:
    """The items in a value, nested items counted as if nothing were shared (so `[a, a]` counts a
    twice: copying or printing it would). Shared parts are walked once, so this is quick even
    for a value that claims 2^60 items; it stops as soon as the value is too big or too deep."""
    if not isinstance(value, _LIST_OR_MAP):
        return 0
    # Most nested values are two levels deep (a list of lists of numbers or names): counted
    # here without the walk below, to the same total.
    total = len(value)
    for x in (value.values() if isinstance(value, dict) else value):
        if x.__class__ in _CONTAINERS:
            if _nested(x):
                total = -1
                break
            total += len(x)
            if total > MAX_ITEMS:  # stop at once: the items may be one huge list many times over
                break
    if total >= 0:
        if total > MAX_ITEMS:
            raise RuleRuntimeError(f"a value of more than {MAX_ITEMS} items (nested items counted)", pos)
        return total
    sizes: dict[int, int] = {}

    def walk(v, depth: int) -> int:
        key = id(v)
        known = sizes.get(key)
        if known is not None:
            return known
        if depth > MAX_VALUE_DEPTH:
            raise RuleRuntimeError(f"a value nested more than {MAX_VALUE_DEPTH} lists deep", pos)
        items = v.values() if isinstance(v, dict) else v
        total = len(v)
        for x in items:
            if isinstance(x, _LIST_OR_MAP):
                total += walk(x, depth + 1)
                if total > MAX_ITEMS:
                    break
        if total > MAX_ITEMS:
            raise RuleRuntimeError(f"a value of more than {MAX_ITEMS} items (nested items counted)", pos)
        sizes[key] = total
        return total

    return walk(value, 1)


def charge_value(m, value: Any, pos=None) -> int:
    """Pay one step per item of a value (nested items counted) and refuse a value too big."""
    if isinstance(value, _LIST_OR_MAP):
        size = value_size(value, pos) if _nested(value) else len(value)
        if size > MAX_ITEMS:
            raise RuleRuntimeError(f"a value of more than {MAX_ITEMS} items (nested items counted)", pos)
        m.charge(size, pos)
        return size
    return 0


_CONTAINERS = frozenset((list, dict))


def _nested(value) -> bool:
    """Whether a list or map holds a list or map (values are plain lists and dicts, never
    subclasses: the C loop of isdisjoint over the items' types stops at the first one)."""
    items = value.values() if isinstance(value, dict) else value
    return not _CONTAINERS.isdisjoint(map(type, items))


def log_line(text: str) -> str:
    """A line for a game's log: cut to MAX_LOG_LINE characters."""
    return text if len(text) <= MAX_LOG_LINE else text[:MAX_LOG_LINE] + "..."


def charge_text(m, text: str, pos=None) -> str:
    """Pay one step per character of a text made, and cut it to MAX_TEXT characters."""
    m.charge(len(text), pos)
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + "..."
