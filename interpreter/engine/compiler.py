"""The compiler: a checked ``Program`` -> a ``CompiledGame``, once, at load time.

Each procedure, trigger, setup and flow becomes a flat list of ops with jumps (its "code");
expressions become Python closures. A choice is an op that parks the machine; the frame
stack that remembers where each procedure stands is plain data in the state. Nothing
here runs during play except the closures it builds; syntax trees are never walked then.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import attrs

from rulelang import nodes as n
from rulelang import registry
from rulelang.checker import Program, elem_type
from rulelang.diagnostics import Diagnostic, RuleError, RuleRuntimeError

from . import chance
from .budget import (
    MAX_INT,
    MAX_ITEMS,
    MAX_STEPS_PER_LOAD,
    STEPS_PER_CALL,
    Budget,
    charge_text,
    charge_value,
    check_int,
    value_size,
)
from .codegen import _MISS, CodeGen, _flat
from .information import _seats, branch_starts, own_keys, step_parts
from .runtime import (
    EFFECTS,
    FUNCTIONS,
    RULE_FAULTS,
    Machine,
    draw_cards,
    python_error,
)
from .state import Branch, Frame, _copy_value
from .table import compile_table
from .undo import _MISSING

BACKENDS = ("codegen", "reference")

Fn = Callable[[Machine, dict], Any]
MAX_CARDS = 10_000  # components in one game, copies counted

# The local holding the caller's `as` name in a procedure's frame (not a name a rule can spell).
RETURN_TO = "$return_to"



# What a built-in may raise when a rule gives it values it cannot use.
_BUILTIN_FAULTS = (RuleRuntimeError, TypeError, ValueError, LookupError, AttributeError)
_LIST_OR_MAP = (list, dict)  # (isinstance of a constant pair: no tuple built per call)


def _builtin_error(err: Exception, name: str, pos) -> RuleRuntimeError:
    """A built-in's failure as an error at the rule that called it (one that already names its
    own position keeps it)."""
    if isinstance(err, RuleRuntimeError):
        return err if err.pos is not None else RuleRuntimeError(err.bare_message, pos)
    return RuleRuntimeError(f"`{name}` failed: {python_error(err)}", pos)

class _Static:
    """What constants are evaluated with at load time: the load's budget and no game state, so a
    `const` or a `var`'s initial value that reads the state fails (and is reported)."""

    s = None
    game = None
    branch = None

    def __init__(self, budget: Budget):
        self.budget = budget
        self.memo: dict = {}

    charge = Machine.charge


def add_values(m, x, y, pos):
    """`x + y` for numbers, texts, lists and bags, paid for and bounded (`+` and `+=` alike)."""
    if isinstance(x, dict):
        m.charge(len(x) + len(y), pos)
        out = dict(x)
        for k, v in y.items():
            out[k] = check_int(out.get(k, 0) + v, pos)
        return out
    if isinstance(x, (list, str)):
        if len(x) + len(y) > MAX_ITEMS:
            raise RuleRuntimeError("a list grew too long" if isinstance(x, list) else "a text grew too long", pos)
        out = x + y
        if isinstance(out, list):
            charge_value(m, out, pos)
        else:
            m.charge(len(out), pos)
        return out
    return check_int(x + y, pos)


def subtract_values(m, x, y, pos):
    """`x - y` for numbers and bags."""
    if isinstance(x, dict):
        m.charge(len(x), pos)
        return {k: v - y.get(k, 0) for k, v in x.items() if v - y.get(k, 0) > 0}
    return check_int(x - y, pos)


@attrs.define
class CompiledGame:
    title: str
    min_players: int
    max_players: int
    option_values: dict
    card_names: list[str]
    card_kinds: list[str]
    card_attrs: list[dict]
    cards_of_kind: dict[str, tuple[int, ...]]
    zone_decls: dict[str, tuple[bool, str]]  # name -> (per player, visibility)
    zone_slots: dict[str, int]
    zone_refill: dict[str, str]
    token_sides: dict[str, list[str]]
    token_supply: dict[str, int]
    var_inits: dict[str, tuple[str | None, Any]]  # name -> (per, initial value)
    codes: dict[str, list]
    triggers: dict[str, list]  # event -> [(code key, param names, when closure)]
    score_lines: list[tuple[str, Fn]]
    score_var: str
    tiebreaks: list[Fn]
    invariants: list[tuple[str, Fn]]
    enums: dict[str, tuple[str, ...]]
    proc_params: dict[str, tuple[str, ...]] = attrs.Factory(dict)
    scenarios: list = attrs.Factory(list)
    requires: list = attrs.Factory(list)  # (message, condition on options and player_count)
    winners: Any = None  # the game's own `winners:` rule, or None for the highest score
    display: dict = attrs.Factory(dict)  # declared name -> display name (see Program.display)
    card_faces: list = attrs.Factory(list)  # per card: its face line, drawn from `face:`
    var_types: dict = attrs.Factory(dict)  # var name -> checker type ("int", "player", "enum:color")
    member_enum: dict = attrs.Factory(dict)  # enum member -> its enum
    zone_grids: frozenset = frozenset()  # zones declared `grid`: their cards lie on cells
    # Whether the rules may draw from the seeded generator: a `shuffle`, or a zone that refills
    # (shuffled in). A game without either has no chance at all (OpenSpiel: deterministic).
    random: bool = True
    layout: Any = None  # the game's `table:` section, compiled (interpreter.engine.table), or None
    backend: str = "reference"
    generated: Any = None  # the CodeGen of the codegen backend (its source, slow-path count)
    # code key -> its ops, how many, and per pc the generated run starting there or None
    # (codegen.code_runs), made when the code first runs (Machine.code_runs); all None with the
    # reference backend, whose step loop calls every op
    runs: dict = attrs.Factory(dict)
    fast_runs: dict = attrs.Factory(dict)  # the same, of the fast runs (see Machine.runs_of)
    # Who sees what (interpreter/engine/information.py): var and token name -> public, owner or
    # hidden; the vars holding a card or a list of cards ("card" or "list"); per code key, the
    # locals that may hold cards (so a resampled state renames them with their cards).
    var_visibility: dict[str, str] = attrs.Factory(dict)
    token_visibility: dict[str, str] = attrs.Factory(dict)
    var_card_types: dict[str, str] = attrs.Factory(dict)
    card_locals: dict[str, frozenset] = attrs.Factory(dict)
    # Hidden vars declared `unknown among LIST`: name -> (what works LIST out, where LIST is
    # written); a determinisation draws one of its values for a player who cannot read the var.
    var_unknown: dict[str, tuple[Fn, Any]] = attrs.Factory(dict)
    viewer_cache: dict = attrs.Factory(dict)  # (zone key, players) -> bit mask of who sees it
    own_keys: dict = attrs.Factory(dict)  # players -> each seat's own zone and var keys (information.own_keys)
    hidden_score_lines: set = attrs.Factory(set)  # score lines that read cards nobody may see yet
    owner_score_lines: set = attrs.Factory(set)  # score lines only their player may read (secret chips)
    card_texts: tuple = ()  # each card's number as text: its key in the state's `known` and `cells`
    choice_heads: tuple = ()  # (made from the seats' names, see __attrs_post_init__)
    turn_lines: tuple = ()

    def __attrs_post_init__(self) -> None:
        # Each seat's name and the ": " after it, as a choice's line in the log begins (api._carry_out),
        # and each seat's line when its turn starts (`turn`)
        self.choice_heads = tuple(f"{self.player_name(seat)}: " for seat in range(self.max_players))
        self.turn_lines = tuple(f"{self.player_name(seat)}'s turn" for seat in range(self.max_players))

    def player_name(self, p: int) -> str:
        return seat_name(p)

    def display_name(self, name: str) -> str:
        """How a declared name (enum member, zone, var, token, kind) is shown to people."""
        return self.display.get(name) or name.replace("_", " ")

    def show(self, value: Any, t: str = "any") -> str:
        """A value as people read it: players by seat name, cards by name, enum members by
        their display names, bags as "Grain x2, Stone", yes/no."""
        if value is None:
            return "-"
        if isinstance(value, bool):
            return "yes" if value else "no"
        if t == "player" and isinstance(value, int):
            return self.player_name(value)
        if t == "card" and isinstance(value, int) and 0 <= value < len(self.card_names):
            return self.card_names[value]
        if isinstance(value, str):
            return self.display_name(value) if value in self.member_enum else value
        if isinstance(value, dict):
            parts = [f"{self.show(k)} x{v}" if v != 1 else self.show(k) for k, v in value.items() if v]
            return ", ".join(parts)
        if isinstance(value, list):
            inner = t[5:] if t.startswith("list:") else "any"
            return ", ".join(self.show(v, inner) for v in value)
        return str(value)


class _Op:
    """Base of compiled ops: a callable with a source position for error messages."""

    __slots__ = ("pos",)
    changes = True  # whether it may change what a define reads (see _changes_state); each kind says

    def __init__(self, pos):
        self.pos = pos


class _LazyReference:
    """An expression's reference closure, built when first called (see `_Compiler._entry`).
    Building it reads only the checked tree and the compiler's constants (what an expression's
    closure is made of does not depend on where in the compile it is made), so built later it is
    the closure a cold load builds. One lock for all: builds are rare and short."""

    __slots__ = ("compiler", "build", "node", "built")
    lock = threading.Lock()

    def __init__(self, compiler: _Compiler, build: Callable[[Any], Fn], node) -> None:
        self.compiler, self.build, self.node = compiler, build, node
        self.built: Fn | None = None

    def __call__(self, m, L):
        built = self.built
        if built is None:
            with self.lock:
                built = self.built
                if built is None:
                    c = self.compiler
                    nested, c._nested = c._nested, True
                    try:
                        built = self.built = self.build(self.node)
                    finally:
                        c._nested = nested
        return built(m, L)


class _Compiler:
    def __init__(self, program: Program, options: dict, backend: str = "codegen", cache: bool = True,
                 cache_key: str | None = None):
        if backend not in BACKENDS:
            raise ValueError(f"unknown backend {backend!r}; choose from {', '.join(BACKENDS)}")
        self.p = program
        self.options = options
        self.codes: dict[str, list] = {}
        self.shuffles = False  # a `shuffle` effect compiled (see CompiledGame.random)
        self.hidden = 0
        self.consts: dict[str, Any] = {}
        self.card_var_inits: dict[str, Any] = {}  # worked out once each, however often named
        self.budget = Budget(MAX_STEPS_PER_LOAD, "to work out the game's constants and initial values")
        self.defines: dict[str, tuple[tuple[str, ...], Fn]] = {}
        # With the codegen backend, each expression an op reads is generated as one function
        # (codegen.py); the closures built here stay as its reference and its slow path.
        self.codegen = CodeGen(self, cache, cache_key) if backend == "codegen" else None
        self._nested = False  # building the inside of an expression: always closures
        self.card_locals: dict[str, set[str]] = {}
        self.current: list[str] = []  # the code keys being compiled, innermost last

    def _entry(self, kind: str, e, build: Callable[[Any], Fn]) -> Fn:
        if self.codegen is None or self._nested:
            return build(e)
        if self.codegen.replay is not None and (kind != "zone" or self.codegen.simple_zone(e)):
            # A warm load replays a module generated by an earlier load of the same files and
            # options, which built all of this without error. The reference closure is then only
            # a slow path (a fault, explicit chance): it is built on its first call, which most
            # games never make (a quarter of a warm load otherwise). A zone chosen at run time
            # is its closure (CodeGen.function), so it is built now.
            return self.codegen.function(kind, e, _LazyReference(self, build, e))
        self._nested = True
        try:
            ref = build(e)
        finally:
            self._nested = False
        return self.codegen.function(kind, e, ref)

    def expr(self, e) -> Fn:
        return self._entry("expr", e, self._expr)

    def text(self, e) -> Fn:
        """An expression shown to people: cards by name, players as 'Player N', lists item by item."""
        return self._entry("text", e, self._text)

    def holder(self, e) -> Fn:
        """An expression as a token holder key: supply, pN, cN or m:member."""
        return self._entry("holder", e, self._holder)

    def zone_key(self, e) -> Fn:
        """An expression naming a zone, as the zone's key in the state: `deck`, `hand#2`,
        `discard[red]`, `expedition[red]#2`."""
        return self._entry("zone", e, self._zone_key)

    def cards(self, e) -> Fn:
        """An expression as a list of cards to act on (one card becomes a list of one)."""
        return self._entry("cards", e, self._cards)

    def card_local(self, name: str, t: str) -> None:
        """Remember that a local of the code being compiled may hold cards."""
        if self.current and (t in ("card", "zone") or t.startswith("list:card")):
            self.card_locals.setdefault(self.current[-1], set()).add(name)

    def zone_prefix(self, zone, call: n.Call) -> Fn:
        """The top of a zone for `first(z)` or `take(z, k)`: only the places read get their order
        fixed (explicit chance), so looking at the top 3 of a deck costs 3 picks, not the deck."""
        key = self.zone_key(zone)
        count = self.expr(call.args[1]) if call.func == "take" and len(call.args) > 1 else (lambda m, L: 1)

        def prefix(m, L):
            k = key(m, L)
            if m.s.unordered and k in m.s.unordered:
                n_top = count(m, L)
                chance.resolve(m, k, n_top if isinstance(n_top, int) and not isinstance(n_top, bool) else 0)
            return m.s.zones[k]
        return prefix

    def raw_zone(self, e) -> Fn | None:
        """A zone read for its cards' count or membership: no order is needed, so none is fixed."""
        if isinstance(e, n.Name):
            cat, name = self.p.resolved.get(id(e), ("", e.id))
            if cat == "zone":
                return lambda m, L: m.s.zones[name]
        if isinstance(e, n.Attr) and self.p.resolved.get(id(e), ("",))[0] == "pzone":
            obj, zname = self.expr(e.obj), e.name
            return lambda m, L: m.s.zones[f"{zname}#{obj(m, L)}"]
        return None

    returns: n.TypeRef | None = None  # the result type of the procedure being compiled

    def type_of(self, e) -> str:
        return self.p.types.get(id(e), "any")

    def fresh(self, what: str) -> str:
        self.hidden += 1
        return f"${what}{self.hidden}"

    # ---- expressions -------------------------------------------------------------------
    def _expr(self, e) -> Fn:  # noqa: C901 - one dispatch over expression kinds
        if isinstance(e, n.Lit):
            v = e.value
            return lambda m, L: v
        if isinstance(e, n.Template):
            parts = [(p if isinstance(p, str) else self.text(p)) for p in e.parts]

            pos = e.pos

            def template(m, L):
                return charge_text(m, "".join(p if isinstance(p, str) else p(m, L) for p in parts), pos)
            return template
        if isinstance(e, n.Name):
            return self.zone_value(e, self.name(e))
        if isinstance(e, n.Attr):
            return self.attr(e)
        if isinstance(e, n.Index):
            if self.type_of(e.obj).startswith("zones:"):  # `discard[red]`: one zone of a family
                key = self.zone_key(e)
                return lambda m, L: m.zone(key(m, L))
            obj, idx = self.expr(e.obj), self.expr(e.index)
            is_bag = self.type_of(e.obj).startswith("bag:") or self.type_of(e.obj) == "map"
            pos = e.pos

            def index(m, L):
                o, i = obj(m, L), idx(m, L)
                if isinstance(o, dict):
                    return o.get(i, 0) if is_bag else o.get(i)
                try:
                    return o[i]
                except (IndexError, TypeError, KeyError):
                    raise RuleRuntimeError(f"index {i} is outside a list of {len(o) if o else 0}", pos) from None
            return self.zone_value(e, index)
        if isinstance(e, n.Gen):
            return self.gen(e)
        if isinstance(e, n.Call):
            return self.call(e)
        if isinstance(e, n.BinOp):
            return self.binop(e)
        if isinstance(e, n.Compare):
            a, b = self.expr(e.left), self.expr(e.right)
            op = e.op
            pos = e.pos
            if op in ("==", "!="):
                def equal(m, L):
                    x, y = a(m, L), b(m, L)
                    if isinstance(x, _LIST_OR_MAP):
                        charge_value(m, x, pos)
                    return (x == y) == (op == "==")
                return equal
            if op in ("in", "notin"):
                b = self.raw_zone(e.right) or b

                def contains(m, L):
                    x, y = a(m, L), b(m, L) or ()
                    if isinstance(y, _LIST_OR_MAP):
                        charge_value(m, y, pos)
                    return (x in y) == (op == "in")
                return contains
            cmp = {"<": lambda x, y: x < y, "<=": lambda x, y: x <= y,
                   ">": lambda x, y: x > y, ">=": lambda x, y: x >= y}[op]

            def compare(m, L):
                x, y = a(m, L), b(m, L)
                if x is None or y is None:
                    raise RuleRuntimeError(f"cannot compare none with `{op}`", pos)
                if isinstance(x, _LIST_OR_MAP):
                    charge_value(m, x, pos)
                return cmp(x, y)
            return compare
        if isinstance(e, n.Is):
            obj = self.expr(e.obj)
            kind, neg = e.kind, e.negate
            kinds = None

            def is_kind(m, L):
                c = obj(m, L)
                r = c is not None and m.game.card_kinds[c] == kind
                return not r if neg else r
            del kinds
            return is_kind
        if isinstance(e, n.BoolOp):
            a, b = self.expr(e.left), self.expr(e.right)
            if e.op == "and":
                return lambda m, L: bool(a(m, L)) and bool(b(m, L))
            return lambda m, L: bool(a(m, L)) or bool(b(m, L))
        if isinstance(e, n.Not):
            a = self.expr(e.operand)
            return lambda m, L: not a(m, L)
        if isinstance(e, n.Neg):
            a = self.expr(e.operand)
            pos = e.pos
            return lambda m, L: check_int(-a(m, L), pos)
        if isinstance(e, n.Cond):
            t, c, o = self.expr(e.then), self.expr(e.test), self.expr(e.orelse)
            return lambda m, L: t(m, L) if c(m, L) else o(m, L)
        if isinstance(e, n.ListLit):
            if len(e.items) == 1 and isinstance(e.items[0], n.Gen):
                return self.expr(e.items[0])
            # A list of zones holds the zones themselves (their keys), so that an item can be chosen,
            # drawn from or moved to; read as cards, each item is its zone's contents.
            items = [self.zone_key(i) if self.type_of(i) == "zone" else self.expr(i) for i in e.items]
            pos = e.pos

            def list_lit(m, L):
                out = [f(m, L) for f in items]
                charge_value(m, out, pos)
                return out
            return list_lit
        if isinstance(e, n.MapLit):
            pairs = [(k, self.expr(v)) for k, v in e.items]
            pos = e.pos

            def map_lit(m, L):
                out = {k: f(m, L) for k, f in pairs}
                charge_value(m, out, pos)
                return out
            return map_lit
        raise AssertionError(f"cannot compile {type(e).__name__}")

    def _text(self, e) -> Fn:
        f = self.expr(e)
        show = self.shown_as(self.type_of(e))
        pos = e.pos

        def shown(m, L):
            v = f(m, L)
            if isinstance(v, _LIST_OR_MAP):
                charge_value(m, v, pos)
                return charge_text(m, show(m, v), pos)
            return show(m, v)
        return shown

    def shown_as(self, t: str) -> Callable[[Machine, Any], str]:
        """How a value of checker type `t` reads in a log line or prompt: a list of players reads
        `Player 1, Player 3`, not `[0, 2]`; `none` reads none."""
        if t == "card":
            return lambda m, v: "none" if v is None else m.game.card_names[v]
        if t == "player":
            return lambda m, v: "none" if v is None else m.game.player_name(v)
        if t.startswith("list:") or t == "zone" or t.startswith("enum_list:"):
            item = self.shown_as(elem_type(t))
            return lambda m, v: ", ".join(item(m, x) for x in v) if isinstance(v, list) else str(v)
        if t.startswith("enum:") and any(x in self.p.display for x in self.p.enums.get(t[5:], ())):
            display = self.p.display  # display names, where the rule file gives them
            return lambda m, v: "none" if v is None else display.get(v) or str(v)
        if t.startswith("bag:") or t.startswith("map"):
            key = self.p.display.get
            return lambda m, v: ", ".join(f"{key(k) or k}: {x}" for k, x in v.items()) if isinstance(v, dict) else str(v)
        return lambda m, v: "none" if v is None else ("true" if v is True else "false" if v is False else str(v))

    def label_fn(self, t: str) -> Callable[[Machine, Any], str]:
        if t == "card":
            return lambda m, v: m.game.card_names[v]
        if t == "player":
            return lambda m, v: m.game.player_name(v)
        if t.startswith("enum:") and any(m in self.p.display for m in self.p.enums.get(t[5:], ())):
            display = self.p.display
            return lambda m, v: display.get(v) or str(v)
        return lambda m, v: str(v)

    def name(self, e: n.Name) -> Fn:
        cat, name = self.p.resolved.get(id(e), ("local", e.id))
        if cat == "local":
            pos = e.pos

            def local(m, L):
                try:
                    return L[name]
                except KeyError:
                    raise RuleRuntimeError(f"`{name}` has no value here", pos) from None
            return local
        if cat == "builtin":
            if name == "players":
                return lambda m, L: list(range(m.s.num_players))
            if name == "player_count":
                return lambda m, L: m.s.num_players
            if name == "active_player":
                return lambda m, L: m.s.active
            if name == "round_number":
                return lambda m, L: m.s.round
            if name == "turn_number":
                return lambda m, L: m.s.turn
            if name == "box":
                return lambda m, L: m.read_zone("box")
            if name == "facings":
                return lambda m, L: ["north", "east", "south", "west"]
            return lambda m, L: name  # supply, top, bottom
        if cat == "enum":
            members = list(self.p.enums[name])
            return lambda m, L: list(members)
        if cat in ("member", "choice", "token", "modifier", "kind", "side"):
            return lambda m, L: name
        if cat == "option":
            v = self.options[name]
            return lambda m, L: v
        if cat == "const":
            v = self.const(name)  # never copied: no op changes a list or bag in place
            return lambda m, L: v
        if cat == "var":
            return lambda m, L: m.s.vars[name]
        if cat == "zone":
            return lambda m, L: m.read_zone(name)
        if cat == "define":
            return self.define_call(name, [], e.pos)
        raise AssertionError(f"name category {cat}")

    def const(self, name: str) -> Any:
        if name not in self.consts:
            self.consts[name] = self.static(self.p.consts[name].value, f"`{name}`")
        return self.consts[name]

    def card_var_init(self, name: str) -> Any:
        if name not in self.card_var_inits:
            self.card_var_inits[name] = self.static(self.p.vars[name].init, f"the initial value of `{name}`")
        return self.card_var_inits[name]

    def static(self, e, what: str, local_values: dict | None = None) -> Any:
        """A value worked out once at load time (a const, a var's initial value, a card's value),
        paid for from the load's one budget."""
        nested, self._nested = self._nested, True  # closures: the generated module is not built yet
        try:
            return self.expr(e)(_Static(self.budget), dict(local_values or {}))
        except RuleRuntimeError as err:
            message, pos = err.bare_message, err.pos or e.pos
        except AttributeError:  # it reached for the state of a game, which does not exist yet
            message, pos = "it depends on the state of a game", e.pos
        except (ArithmeticError, LookupError, TypeError, ValueError) as err:
            message, pos = f"it cannot be worked out ({python_error(err)})", e.pos
        finally:
            self._nested = nested
        raise RuleError([Diagnostic("E304", f"{what} must be known when the game is loaded: {message}", pos,
                                    "a value that depends on the game belongs in `setup:` or a `define`")])

    def static_with(self, f: Fn, names: dict, pos, what: str) -> Any:
        """A compiled expression worked out at load time with some names given (a card's fields)."""
        try:
            return f(_Static(self.budget), names)
        except RuleRuntimeError as err:
            message, where = err.bare_message, err.pos or pos
        except (AttributeError, ArithmeticError, LookupError, TypeError, ValueError) as err:
            message, where = f"it cannot be worked out ({python_error(err)})", pos
        raise RuleError([Diagnostic("E304", f"{what} must be known when the game is loaded: {message}", where)])

    def _holder(self, e) -> Fn:
        f = self.expr(e)
        t = self.type_of(e)
        pos = e.pos
        if t == "player":
            def player_holder(m, L):
                v = f(m, L)
                if v is None:
                    raise RuleRuntimeError("no player here to hold tokens", pos)
                return f"p{v}"
            return player_holder
        if t == "card":
            def card_holder(m, L):
                v = f(m, L)
                if v is None:
                    raise RuleRuntimeError("no card here to hold tokens", pos)
                return f"c{v}"
            return card_holder
        if t.startswith("enum:") or t.startswith("choice:"):
            return lambda m, L: f"m:{f(m, L)}"
        return lambda m, L: "supply" if f(m, L) == "supply" else str(f(m, L))

    def value(self, e, wanted: n.TypeRef | None) -> Fn:
        """An expression handed to a parameter or returned: where a zone is wanted, it is handed
        on as itself (its key), so that the receiver can draw from it or move cards to it."""
        if wanted is not None and wanted.form == "name" and wanted.name == "zone" and self.type_of(e) == "zone":
            return self.zone_key(e)
        return self.expr(e)

    def zone_value(self, e, f: Fn) -> Fn:
        """A zone-typed value that may hold a zone's key (an item of a list of zones, a local
        bound to one) reads as that zone's cards."""
        if self.type_of(e) != "zone" or (isinstance(e, n.Name) and self.p.resolved.get(id(e), ("",))[0] != "local"):
            return f

        def cards_of(m, L):
            v = f(m, L)
            return m.zone(v) if isinstance(v, str) else v
        return cards_of

    def _zone_key(self, e) -> Fn:
        if isinstance(e, n.Name):
            cat, name = self.p.resolved.get(id(e), ("", e.id))
            if cat == "zone" or (cat == "builtin" and name == "box"):
                return lambda m, L: name
        if isinstance(e, n.Attr) and self.p.resolved.get(id(e), ("",))[0] == "pzone":
            obj = self.expr(e.obj)
            zname = e.name
            return lambda m, L: f"{zname}#{obj(m, L)}"
        if isinstance(e, n.Index) and self.type_of(e.obj).startswith("zones:"):
            member = self.expr(e.index)
            if isinstance(e.obj, n.Attr):  # p.expedition[red]
                obj, zname = self.expr(e.obj.obj), e.obj.name
                return lambda m, L: f"{zname}[{member(m, L)}]#{obj(m, L)}"
            zname = e.obj.id if isinstance(e.obj, n.Name) else "?"
            return lambda m, L: f"{zname}[{member(m, L)}]"
        if isinstance(e, n.Cond):
            test, then, orelse = self.expr(e.test), self.zone_key(e.then), self.zone_key(e.orelse)
            return lambda m, L: then(m, L) if test(m, L) else orelse(m, L)
        pos = e.pos
        if self.type_of(e) == "zone" and isinstance(e, (n.Name, n.Index, n.Call)):
            raw = self.name(e) if isinstance(e, n.Name) else self._call(e) if isinstance(e, n.Call) else None
            if raw is None:  # an item of a list of zones
                obj, idx = self.expr(e.obj), self.expr(e.index)

                def raw(m, L):
                    o, i = obj(m, L), idx(m, L)
                    try:
                        return o[i]
                    except (IndexError, TypeError, KeyError):
                        raise RuleRuntimeError(f"index {i} is outside a list of {len(o) if o else 0}", pos) from None

            def key(m, L):
                v = raw(m, L)
                if isinstance(v, str):
                    return v
                raise RuleRuntimeError("this is not a zone: keep zones in a list (`[deck, discard]`) to "
                                       "choose among them", pos)
            return key

        def bad(m, L):
            raise RuleRuntimeError("this is not a zone", pos)
        return bad

    def attr(self, e: n.Attr) -> Fn:
        cat, name = self.p.resolved.get(id(e), ("dynamic", e.name))
        pos = e.pos
        if cat == "pvar":
            obj = self.expr(e.obj)
            return lambda m, L: m.s.vars[f"{name}#{obj(m, L)}"]
        if cat == "pzone":
            obj = self.expr(e.obj)
            return lambda m, L: m.read_zone(f"{name}#{obj(m, L)}")
        if cat == "tokens":
            holder = self.holder(e.obj)
            return lambda m, L: m.token_count(holder(m, L), name)
        if cat == "field":
            obj = self.expr(e.obj)

            def field(m, L):
                c = obj(m, L)
                if c is None:
                    raise RuleRuntimeError(f"`.{name}` of none", pos)
                if name == "name":
                    return m.game.card_names[c]
                return m.game.card_attrs[c].get(name, "" if name == "text" else None)
            return field
        if cat == "cvar":
            obj = self.expr(e.obj)
            init = self.card_var_init(name)
            return lambda m, L: m.s.vars.get(f"{name}@{obj(m, L)}", init)

        def dynamic(m, L):
            raise RuleRuntimeError(f"cannot read `.{name}` here", pos)
        return dynamic

    def gen_parts(self, e: n.Gen) -> tuple[Fn, Fn | None, Fn | None]:
        """A comprehension's source, condition (or None) and item (None: the item itself)."""
        src = self.expr(e.source)
        cond = self.expr(e.cond) if e.cond is not None else None
        elem = None
        if e.elem is not None:  # a list of zones holds the zones' keys (see the list literal)
            elem = self.zone_key(e.elem) if self.type_of(e.elem) == "zone" else self.expr(e.elem)
        return src, cond, elem

    def gen(self, e: n.Gen) -> Fn:
        src, cond, elem = self.gen_parts(e)
        var = e.var
        missing = object()

        pos = e.pos

        def gen(m, L):
            items = list(src(m, L) or ())
            m.charge(len(items), pos)
            old = L.get(var, missing)
            out = []
            try:
                for x in items:
                    L[var] = x
                    if cond is not None and not cond(m, L):
                        continue
                    out.append(elem(m, L) if elem is not None else x)
            finally:
                if old is missing:
                    L.pop(var, None)
                else:
                    L[var] = old
            if elem is not None:
                charge_value(m, out, pos)
            return out
        return gen

    def truth_of_gen(self, e: n.Gen, stop_at: bool, pos) -> Fn:
        """`any(...)` (`stop_at` True) or `all(...)` (False) of a comprehension, worked out item
        by item, as in Python: the first item whose truth is `stop_at` ends it; the items after it
        are not worked out, nor paid for. An item's truth is its value (`x > 0 for x in xs`) or,
        in a filter (`x in xs where x > 0`), its condition: any() says whether some item satisfies it,
        all() whether every item does. Each item pays what it would in the built list: twice its
        size (once built, once given to the built-in), a filter's kept item once (a filter's list
        is the source's own items); so a call that looks at every item pays what the list did."""
        src, cond, elem = self.gen_parts(e)
        var, gen_pos = e.var, e.pos
        missing = object()

        def truth(m, L):
            items = list(src(m, L) or ())
            m.charge(len(items), gen_pos)
            old = L.get(var, missing)
            total = 0
            try:
                for x in items:
                    L[var] = x
                    if elem is None:  # a filter: the item's truth is its condition
                        holds = bool(cond(m, L)) if cond is not None else bool(x)
                        if holds:
                            m.charge(1 + value_size(x, pos) if isinstance(x, _LIST_OR_MAP) else 1, pos)
                    else:
                        if cond is not None and not cond(m, L):
                            continue
                        v = elem(m, L)
                        size = 1 + value_size(v, pos) if isinstance(v, _LIST_OR_MAP) else 1
                        total += size
                        if total > MAX_ITEMS:
                            raise RuleRuntimeError(
                                f"a value of more than {MAX_ITEMS} items (nested items counted)", pos)
                        m.charge(2 * size, pos)
                        holds = bool(v)
                    if holds is stop_at:
                        return stop_at
            finally:
                if old is missing:
                    L.pop(var, None)
                else:
                    L[var] = old
            return not stop_at
        return truth

    def binop(self, e: n.BinOp) -> Fn:
        a, b = self.expr(e.left), self.expr(e.right)
        op, pos = e.op, e.pos
        if op == "+":
            return lambda m, L: add_values(m, a(m, L), b(m, L), pos)
        if op == "-":
            return lambda m, L: subtract_values(m, a(m, L), b(m, L), pos)
        if op == "*":
            def mul(m, L):
                x, y = a(m, L), b(m, L)
                if not (isinstance(x, int) and isinstance(y, int)):
                    raise RuleRuntimeError(f"`*` multiplies numbers, not {type(x).__name__} and "
                                           f"{type(y).__name__}", pos)
                return check_int(x * y, pos)
            return mul

        def divide(m, L):
            x, y = a(m, L), b(m, L)
            if y == 0:
                raise RuleRuntimeError(f"division by zero in `{op}`", pos)
            return x // y if op == "/" else x % y
        return divide

    def call(self, e: n.Call) -> Fn:
        return self.zone_value(e, self._call(e))

    def _call(self, e: n.Call) -> Fn:
        cat, name = self.p.resolved.get(id(e), ("builtin", e.func))
        if cat == "define":
            params = self.p.defines[name].params or ()
            return self.define_call(name, [self.value(a, prm.type) for a, prm in zip(e.args, params, strict=False)],
                                    e.pos)
        if name in ("any", "all") and len(e.args) == 1 and isinstance(e.args[0], n.Gen):
            return self.truth_of_gen(e.args[0], name == "any", e.pos)  # stops at the deciding item
        b = registry.BY_NAME[name]
        impl = FUNCTIONS[name]
        args: list[Fn] = []
        for i, a in enumerate(e.args):
            prm = b.params[min(i, len(b.params) - 1)]
            if prm.type == "holder":
                args.append(self.holder(a))
            elif prm.type == "zone":  # a grid zone is handed over as itself (its key)
                args.append(self.zone_key(a))
            elif self.type_of(a) == "list:zone" and name not in _KEEPS_ZONES:
                args.append(_cards_of_zones(self.expr(a)))
            elif name == "count" and self.raw_zone(a) is not None:
                args.append(self.raw_zone(a))
            elif i == 0 and name in ("first", "take") and self.raw_zone(a) is not None:
                args.append(self.zone_prefix(a, e))
            else:
                args.append(self.expr(a))
        pos = e.pos
        if len(args) == 1:
            a0 = args[0]

            def call1(m, L):
                x = a0(m, L)
                if isinstance(x, _LIST_OR_MAP):
                    charge_value(m, x, pos)
                try:
                    r = impl(m, x)
                except _BUILTIN_FAULTS as err:
                    raise _builtin_error(err, name, pos) from None
                if isinstance(r, _LIST_OR_MAP):
                    charge_value(m, r, pos)
                return r
            return call1

        def call(m, L):
            values = [f(m, L) for f in args]
            for x in values:
                if isinstance(x, _LIST_OR_MAP):
                    charge_value(m, x, pos)
            try:
                r = impl(m, *values)
            except _BUILTIN_FAULTS as err:
                raise _builtin_error(err, name, pos) from None
            if isinstance(r, _LIST_OR_MAP):
                charge_value(m, r, pos)
            return r
        return call

    def define_call(self, name: str, args: list[Fn], pos=None) -> Fn:
        d = self.p.defines[name]
        params = tuple(prm.name for prm in (d.params or ()))
        if name not in self.defines:
            self.defines[name] = (params, self.expr(d.value))  # the checker refuses recursive defines
        body = self.defines[name][1]

        # A define reads the state and its arguments, never an op's locals, so its results are
        # remembered until the state may change (Machine.memo: forgotten after every op that may
        # change it, and at the start of every action): menus and filters that ask the same
        # question for every option, and the ops of one action that ask it again with nothing
        # changed in between, ask it once.
        def call(m, L):
            m.charge(STEPS_PER_CALL, pos)  # a call is work even when its result is remembered
            values = tuple(f(m, L) for f in args)
            key = (name, *values)  # one flat tuple (the generated defines make the same keys)
            memo = m.memo
            try:
                return memo[key]
            except KeyError:
                pass
            except TypeError:  # an argument that cannot be a key (a list): no memory
                return body(m, dict(zip(params, values, strict=False)))
            result = memo[key] = body(m, dict(zip(params, values, strict=False)))
            return result
        return call

    # ---- statements ----------------------------------------------------------------------
    def code(self, key: str, body, params: dict[str, str] | None = None) -> None:
        if self.current:  # a `simultaneously` part sees the locals of the code around it
            self.card_locals.setdefault(key, set()).update(self.card_locals.get(self.current[-1], ()))
        self.current.append(key)
        for name, t in (params or {}).items():
            self.card_local(name, t)
        ops: list = []
        self.block(body, ops)
        self.current.pop()
        # Jumps become plain functions once their targets are known: calling an object's
        # __call__ costs more than calling a function, and a jump is a tenth of all steps.
        self.codes[key] = code = [_jump_to(op.target, op.pos) if type(op) is _Jump else op for op in ops]
        for op in code:
            if not isinstance(op, _Op):  # (an _Op's class says it)
                op.changes = _changes_state(op)

    def block(self, stmts, ops: list) -> None:
        for s in stmts:
            self.stmt(s, ops)

    def stmt(self, s, ops: list) -> None:  # noqa: C901 - one dispatch over statement kinds
        pos = s.pos
        if isinstance(s, n.Let):
            f, name = self.expr(s.value), s.name
            self.card_local(name, self.type_of(s.value))

            def let(m, fr):
                fr.locals[name] = f(m, fr.locals)
                fr.pc += 1
            ops.append(_wrap(let, pos, ("let", name, f)))
        elif isinstance(s, n.Set):
            ops.append(_wrap(self.set_op(s), pos))
        elif isinstance(s, n.Verb):
            ops.append(_wrap(self.verb_op(s), pos))
        elif isinstance(s, n.Pass):
            ops.append(_wrap(_pass(), pos))
        elif isinstance(s, n.Return):
            ops.append(_wrap(self.return_op(s, self.returns), pos, ("leaf",)))
        elif isinstance(s, n.EndGame):
            def end_game(m, fr):
                m.log("event", None, "the game ends")
                m.s.over = True
            ops.append(_wrap(end_game, pos, ("leaf",)))
        elif isinstance(s, n.Log):
            f = self.expr(s.text)
            audience = self.expr(s.audience) if s.audience is not None else None

            def log(m, fr):
                readers = None
                if audience is not None:
                    who = audience(m, fr.locals)
                    readers = sorted({p for p in (who if isinstance(who, list) else [who])
                                      if isinstance(p, int) and 0 <= p < m.s.num_players})
                m.log("log", m.current_player(), f(m, fr.locals), readers)
                fr.pc += 1
            log.changes = False  # type: ignore[attr-defined] - the log and the frame's pc
            ops.append(_wrap(log, pos, ("log", f) if audience is None else ("advance",)))
        elif isinstance(s, n.Fail):
            # (an error always says something: `fail ""` is reported as what it is)
            text = s.text if s.text.strip() else "the rules reached a `fail` that gives no message"

            def fail(m, fr):
                raise RuleRuntimeError(text, pos)
            ops.append(_wrap(fail, pos, ("leaf",)))
        elif isinstance(s, n.Emit):
            args = [self.expr(a) for a in s.args]
            event = s.event

            def emit(m, fr):
                values = [f(m, fr.locals) for f in args]
                fr.pc += 1
                m.emit(event, values, pos)
            ops.append(_wrap(emit, pos, ("effect", (event,))))
        elif isinstance(s, n.Start):
            player = self.expr(s.player) if s.player is not None else None
            name, unit, count = s.modifier, s.unit, 2 if s.next else 1
            if s.edge == "start":  # the next start of a turn (of that player) or round is always ahead
                unit, count = f"{s.unit}_start", 1

            def start(m, fr):
                m.start_lasting(name, player(m, fr.locals) if player else None, unit, count)
                m.log("event", None, f"{name} starts")
                fr.pc += 1
            ops.append(_wrap(start, pos, ("advance",)))
        elif isinstance(s, n.If):
            self.if_stmt(s, ops)
        elif isinstance(s, n.For):
            self.for_stmt(s, ops)
        elif isinstance(s, n.While):
            self.while_stmt(s, ops)
        elif isinstance(s, n.Repeat):
            count = self.expr(s.count)
            var = self.fresh("repeat")
            ops.append(_wrap(_setter(var, count), pos, ("let", var, count)))
            top = len(ops)
            jump_out = _Jump(pos)

            def test(m, fr):
                if fr.locals[var] <= 0:
                    fr.pc = jump_out.target
                else:
                    fr.locals[var] -= 1
                    fr.pc += 1
            ops.append(_wrap(test, pos, ("two", jump_out)))
            self.block(s.body, ops)
            ops.append(_goto(top, pos))
            jump_out.target = len(ops)
            ops.append(_wrap(_forget(var), pos, ("forget", (var,))))
        elif isinstance(s, n.Simul):
            ops.append(self.simul_op(s))
        elif isinstance(s, n.Turn):
            self.turn_stmt(s, ops)
        elif isinstance(s, n.Round):
            self.round_stmt(s, ops)
        elif isinstance(s, n.Pick):
            ops.append(_PickOp(self, s))
        elif isinstance(s, n.Menu):
            self.menu_stmt(s, ops)
        elif isinstance(s, n.May):
            op = _MayOp(self, s)
            ops.append(op)
            self.block(s.body, ops)
            op.end = len(ops)
        else:  # pragma: no cover
            raise AssertionError(type(s).__name__)

    def set_op(self, s: n.Set):
        value = self.expr(s.value)
        op = s.op
        t = s.target

        where = s.pos

        def combine(m, old, new):
            if op == "=":
                return new
            return add_values(m, old, new, where) if op == "+=" else subtract_values(m, old, new, where)
        if isinstance(t, n.Index):
            get, put = self.place_of(t.obj)
            index = self.expr(t.index)
            is_bag = self.type_of(t.obj).startswith("bag:")
            pos = t.pos
            if op == "=" and isinstance(t.obj, n.Name) and self.p.resolved.get(id(t.obj), ("local",))[0] == "var":
                return self.set_var_item(t.obj, index, value, pos, is_bag)

            def set_item(m, fr):
                L = fr.locals
                container = get(m, L)
                i = index(m, L)
                if isinstance(container, dict):
                    new = dict(container)
                    new[i] = combine(m, container.get(i, 0 if is_bag else None), value(m, L))
                else:
                    new = list(container)
                    if not isinstance(i, int) or not (0 <= i < len(new)):
                        raise RuleRuntimeError(f"index {i} is outside a list of {len(new)}", pos)
                    # (`set xs[i] = v`, the commonest: what combine gives, without its call)
                    new[i] = value(m, L) if op == "=" else combine(m, new[i], value(m, L))
                charge_value(m, new, pos)
                put(m, L, new)
                fr.pc += 1
            set_item.shape = ("advance",)  # type: ignore[attr-defined]
            if getattr(put, "local", None) is not None:
                set_item.changes = False  # type: ignore[attr-defined] - a local's list, copied
            return set_item
        if op in ("+=", "-="):
            added = self.add_to_var(t, op, value, where)
            if added is not None:
                return added
        get, put = self.place_of(t)

        if op == "=":
            def set_value(m, fr):  # `set x = v`, the most common: no old value, nothing to combine
                put(m, fr.locals, value(m, fr.locals))
                fr.pc += 1
            local = getattr(put, "local", None)
            set_value.shape = ("let", local, value) if local is not None else ("set", put, value)  # type: ignore[attr-defined]
            return set_value

        if op == "+=":
            def set_value(m, fr):  # `set n += 1`, mostly numbers: add_values's own int case, without its call
                L = fr.locals
                old = get(m, L)
                add = value(m, L)
                if old.__class__ is int and add.__class__ is int:
                    put(m, L, check_int(old + add, where))
                else:
                    put(m, L, add_values(m, old, add, where))
                fr.pc += 1
        else:
            def set_value(m, fr):
                L = fr.locals
                put(m, L, combine(m, get(m, L), value(m, L)))
                fr.pc += 1
        set_value.shape = ("advance",)  # type: ignore[attr-defined]
        if getattr(put, "local", None) is not None:
            set_value.changes = False  # type: ignore[attr-defined] - a local
            if op in ("+=", "-=") and self.type_of(s.value) == "int":  # (a fast run adds in place: `_StepsGen.local_add`)
                set_value.local_add = (put.local, value, op == "-=")  # type: ignore[attr-defined]
        return set_value

    def set_var_item(self, t: n.Name, index: Fn, value: Fn, pos, is_bag: bool):
        """`set xs[i] = v` of a var (a board, a track: the commonest): what `set_item` does, with
        the var read and written in place rather than through a getter and a putter, and the
        new list paid for without a call when it holds no lists."""
        name = self.p.resolved[id(t)][1]
        where = t.pos

        local = _local_read(index)
        # A list its type says holds no lists or maps (a board of numbers): only the item set
        # now is looked at for one (a value of another type than the checker's), not every item
        var_type = self.type_of(t)
        flat = var_type.startswith("list:") and _flat(var_type)

        def set_var_item(m, fr):
            L = fr.locals
            container = m.s.vars[name]
            i = L.get(local, _MISS) if local is not None else _MISS  # (`set board[i]`: read in place)
            if i is _MISS:
                i = index(m, L)
            if container.__class__ is list:
                new = container[:]
                if not isinstance(i, int) or not (0 <= i < len(new)):
                    raise RuleRuntimeError(f"index {i} is outside a list of {len(new)}", pos)
                new[i] = v = value(m, L)
                if ((flat and v.__class__ is not list and v.__class__ is not dict)
                        or _CONTAINER_CLASSES.isdisjoint(map(type, new))):  # (charge_value, without its calls)
                    if len(new) > MAX_ITEMS:
                        raise RuleRuntimeError(f"a value of more than {MAX_ITEMS} items (nested items counted)", pos)
                    b = m.budget
                    b.used += len(new)
                    if b.used > b.limit:
                        b.charge(0, pos)
                    if m.branch is None:  # (set_var, written out: `new` is this op's own flat list, no copy)
                        values = m.s.vars
                        j = m.journal
                        if j is not None and name not in j.vars:
                            j.vars[name] = values.get(name, _MISSING)
                        values[name] = new
                        fr.pc += 1
                        return
                else:
                    charge_value(m, new, pos)
            elif isinstance(container, dict):
                new = dict(container)
                container.get(i, 0 if is_bag else None)  # (what `set_item` reads first: the same errors)
                new[i] = value(m, L)
                charge_value(m, new, pos)
            else:  # (none, or a value of another type: what `set_item` does with it)
                new = list(container)
                if not isinstance(i, int) or not (0 <= i < len(new)):
                    raise RuleRuntimeError(f"index {i} is outside a list of {len(new)}", pos)
                new[i] = value(m, L)
                charge_value(m, new, pos)
            if m.branch is not None:
                m.shared_change(f"set the shared `{name}`", where)
            m.set_var(name, new)
            fr.pc += 1
        set_var_item.shape = ("advance",)  # type: ignore[attr-defined]
        if local is not None and flat:  # (a run may do its common way in place: codegen `_StepsGen.var_item`)
            set_var_item.var_item = (name, local, value, pos)  # type: ignore[attr-defined]
        return set_var_item

    def add_to_var(self, t, op: str, value: Fn, where):
        """`set n += x` / `-=` on a var, or on `p.v` with `p` a local (the commonest of games), as
        one op: the var read and written in place rather than through a getter and a putter, and
        the local read once for the var's key rather than twice (a local costs nothing and reads
        the same both times); None for any other target."""
        subtract = op == "-="
        if isinstance(t, n.Name):
            cat, name = self.p.resolved.get(id(t), ("local", t.id))
            if cat != "var":
                return None
            pos = t.pos

            def add_to_var(m, fr):
                L = fr.locals
                values = m.s.vars
                old = values[name]
                add = value(m, L)
                if (old.__class__ is int and add.__class__ is int and m.branch is None
                        and -MAX_INT <= (new := old - add if subtract else old + add) <= MAX_INT):
                    # (two whole numbers, the commonest: `_added` and `set_var` written out)
                    j = m.journal
                    if j is not None and name not in j.vars:
                        j.vars[name] = old
                    values[name] = new
                    fr.pc += 1
                    return
                new = _added(m, old, add, subtract, where)
                if m.branch is not None:
                    m.shared_change(f"set the shared `{name}`", pos)
                m.set_var(name, new)
                fr.pc += 1
            add_to_var.shape = ("advance",)  # type: ignore[attr-defined]
            return add_to_var
        if not (isinstance(t, n.Attr) and isinstance(t.obj, n.Name)):
            return None
        cat, name = self.p.resolved.get(id(t), ("", ""))
        if cat != "pvar" or self.p.resolved.get(id(t.obj), ("local", t.obj.id))[0] != "local":
            return None
        obj = self.expr(t.obj)
        pos = t.pos
        local = _local_read(obj)
        keys = _seat_keys(name, self.p.max_players)

        def add_to_pvar(m, fr):
            L = fr.locals
            who = L.get(local, _MISS) if local is not None else _MISS  # (`p.x`: the local read in place)
            if who is _MISS:
                who = obj(m, L)
            key = keys[who] if who.__class__ is int and 0 <= who < len(keys) else f"{name}#{who}"
            values = m.s.vars
            old = values[key]
            add = value(m, L)
            if (old.__class__ is int and add.__class__ is int and m.branch is None
                    and -MAX_INT <= (new := old - add if subtract else old + add) <= MAX_INT):
                # (two whole numbers, the commonest: `_added` and `set_var` written out)
                j = m.journal
                if j is not None and key not in j.vars:
                    j.vars[key] = old
                values[key] = new
                fr.pc += 1
                return
            new = _added(m, old, add, subtract, where)
            if m.branch is not None and who != m.branch.player:
                m.shared_change(f"set another player's `{name}`", pos)
            m.set_var(key, new)
            fr.pc += 1
        add_to_pvar.shape = ("advance",)  # type: ignore[attr-defined]
        if local is not None:  # what a fast run does in place (codegen._StepsGen.player_add)
            add_to_pvar.pvar_add = (local, keys, value, subtract)  # type: ignore[attr-defined]
        return add_to_pvar

    def place_of(self, t):
        """A settable place (a local, a var, `p.var`, `c.var`) as a getter and a putter."""
        if isinstance(t, n.Name):
            cat, name = self.p.resolved.get(id(t), ("local", t.id))
            if cat == "var":
                pos = t.pos

                def put_var(m, L, v):
                    if m.branch is not None:
                        m.shared_change(f"set the shared `{name}`", pos)
                    m.set_var(name, v)
                return (lambda m, L: m.s.vars[name]), put_var

            def put_local(m, L, v):
                L[name] = v
            put_local.local = name  # type: ignore[attr-defined] - generated steps write the local in place
            return (lambda m, L: L.get(name)), put_local
        cat, name = self.p.resolved[id(t)]
        obj = self.expr(t.obj)
        pos = t.pos
        if cat == "pvar":
            local = _local_read(obj)
            keys = _seat_keys(name, self.p.max_players)

            def put_pvar(m, L, v):
                who = L.get(local, _MISS) if local is not None else _MISS  # (`p.x`: the local read in place)
                if who is _MISS:
                    who = obj(m, L)
                if m.branch is not None and who != m.branch.player:
                    m.shared_change(f"set another player's `{name}`", pos)
                key = keys[who] if who.__class__ is int and 0 <= who < len(keys) else f"{name}#{who}"
                # (m.set_var, written out: a player's var is set in most actions)
                values = m.s.vars
                j = m.journal
                if j is not None and key not in j.vars:
                    j.vars[key] = values.get(key, _MISSING)
                values[key] = _copy_value(v) if isinstance(v, list) else v
            if local is not None:  # what a fast run does in place (codegen._StepsGen.player_var)
                put_pvar.pvar = (local, keys)  # type: ignore[attr-defined]
            return (lambda m, L: m.s.vars[f"{name}#{obj(m, L)}"]), put_pvar
        init = self.card_var_init(name)

        def put_cvar(m, L, v):
            card = obj(m, L)
            if m.branch is not None and not m.s.where[card].endswith(f"#{m.branch.player}"):
                m.shared_change(f"set `{name}` of a card outside its player's zones", pos)
            m.set_var(f"{name}@{card}", v)
        return (lambda m, L: m.s.vars.get(f"{name}@{obj(m, L)}", init)), put_cvar

    def return_op(self, s: n.Return, returns: n.TypeRef | None = None):
        value = self.value(s.value, returns) if s.value is not None else _const(None)

        def give_back(m, fr):
            v = value(m, fr.locals)
            to = fr.locals.get(RETURN_TO)
            if to is not None:
                m.stack[-2].locals[to] = v  # the caller's frame, just below this one
            fr.pc = len(m.game.codes[fr.code])  # the step loop pops a finished frame
        give_back.changes = False  # type: ignore[attr-defined] - the caller's local, and the pc
        return give_back

    def verb_op(self, s: n.Verb):
        cat, name = self.p.resolved.get(id(s), ("effect", s.name))
        pos = s.pos
        if cat == "proc":
            proc = self.p.procs[name]
            params = [prm.name for prm in proc.params]
            args = [self.value(a, prm.type) for a, prm in zip(s.args, proc.params, strict=False)]
            key = f"proc:{name}"
            # `ask p as answer`: the procedure's `return` puts its value in the caller's `answer`.
            binding = next((v.id for w, v in s.clauses if w == "as"), None)

            pairs = list(zip(params, args, strict=False))

            def call_proc(m, fr):
                L = fr.locals
                values = {}
                for p, f in pairs:  # a loop, not a comprehension: one call fewer per procedure call
                    values[p] = f(m, L)
                fr.pc += 1
                if binding is not None:
                    fr.locals[binding] = None  # what it is if the procedure ends without `return`
                    values[RETURN_TO] = binding
                m.push(key, values, pos)
            # it always pushes a frame: a generated run pushes it itself and runs the procedure
            # on the spot (``Machine.enter``)
            call_proc.shape = ("call", pairs, binding, key, pos)  # type: ignore[attr-defined]
            return call_proc
        if name == "shuffle":
            self.shuffles = True
        b = registry.BY_NAME[name]
        impl = EFFECTS[name]
        positional = [prm for prm in b.params if prm.clause is None]
        kw: dict[str, Fn] = {}
        consts: dict[str, Any] = {}
        binding = None
        if s.unit is not None:
            consts["token"] = s.unit
            positional = [prm for prm in positional if prm.name != "token"]
        for a, prm in zip(s.args, positional, strict=False):
            kw[prm.name] = self.param(a, prm)
        by_clause = {prm.clause: prm for prm in b.params if prm.clause}
        for word, value in s.clauses:
            prm = by_clause[word]
            if prm.type == "binding":
                binding = value.id
                self.card_local(binding, "list:card")
            elif prm.type == "side" and self.p.resolved.get(id(value), ("",))[0] == "side":
                consts[prm.name] = value.id
            elif prm.type == "side":  # a member of the enum a token's sides are made of, worked out
                kw[prm.name] = self.expr(value)
            else:
                kw[prm.name] = self.param(value, prm)
        items = list(kw.items())

        def effect(m, fr):
            L = fr.locals
            values = {}
            for k, f in items:  # a loop, not a comprehension: one call fewer per effect
                values[k] = f(m, L)
            if consts:
                values.update(consts)
            try:
                if name == "draw":
                    impl(m, name=binding, frame=fr, **values)
                else:
                    impl(m, **values)
            except RuleRuntimeError as err:
                if err.pos is None:
                    raise RuleRuntimeError(err.bare_message, pos) from None
                raise
            except (TypeError, ValueError, KeyError, IndexError) as err:
                raise RuleRuntimeError(f"`{name}` failed: {err}", pos) from None
            fr.pc += 1
        # A verb's effect never raises an event, parks or ends the game (only `emit`, turns and
        # rounds raise events): the generated runs go on after it, with its lean form if any.
        fast = _fast_effect(name, items, consts, binding, pos)
        effect.shape = ("advance",) if fast is None else ("advance", fast)  # type: ignore[attr-defined]
        return effect

    def param(self, e, prm: registry.Param) -> Fn:
        if prm.type == "zone":
            return self.zone_key(e)
        if prm.type == "holder":
            return self.holder(e)
        if prm.type == "cards":
            return self.cards(e)
        return self.expr(e)

    def _cards(self, e) -> Fn:
        f = self.expr(e)
        if self.type_of(e) == "card":
            pos = e.pos

            def one(m, L):
                c = f(m, L)
                if c is None:
                    raise RuleRuntimeError("no card to move", pos)
                return [c]
            return one
        return lambda m, L: list(f(m, L) or ())

    def if_stmt(self, s: n.If, ops: list) -> None:
        ends: list[_Jump] = []
        for cond, body in s.branches:
            test = self.expr(cond)
            skip = _Jump(cond.pos)

            def branch(m, fr, test=test, skip=skip):
                fr.pc = fr.pc + 1 if test(m, fr.locals) else skip.target
            ops.append(_wrap(branch, cond.pos, ("branch", test, skip)))
            self.block(body, ops)
            end = _Jump(s.pos)
            ops.append(end)
            ends.append(end)
            skip.target = len(ops)
        if s.orelse:
            self.block(s.orelse, ops)
        for end in ends:
            end.target = len(ops)

    def for_stmt(self, s: n.For, ops: list) -> None:
        src = self.expr(s.source)
        items, index = self.fresh("items"), self.fresh("i")
        var = s.var
        from rulelang.checker import elem_type

        self.card_local(var, elem_type(self.type_of(s.source)))
        self.card_local(items, self.type_of(s.source))

        def begin(m, fr):
            fr.locals[items] = list(src(m, fr.locals) or ())
            m.charge(len(fr.locals[items]), s.pos)
            fr.locals[index] = 0
            fr.pc += 1
        ops.append(_wrap(begin, s.pos, ("begin", src, items, index, s.pos)))
        top = len(ops)
        out = _Jump(s.pos)

        def step(m, fr):
            L = fr.locals
            i = L[index]
            if i >= len(L[items]):
                fr.pc = out.target
                return
            L[var] = L[items][i]
            L[index] = i + 1
            fr.pc += 1
        ops.append(_wrap(step, s.pos, ("step", items, index, var, out)))
        self.block(s.body, ops)
        ops.append(_goto(top, s.pos))
        out.target = len(ops)
        ops.append(_wrap(_forget(items, index), s.pos, ("forget", (items, index))))

    def while_stmt(self, s: n.While, ops: list) -> None:
        cond = self.expr(s.cond)
        counter = self.fresh("n")
        limit = s.limit
        counting = _setter(counter, _const(0))
        counting.changes = False  # type: ignore[attr-defined] - a local
        ops.append(_wrap(counting, s.pos, ("advance",)))
        top = len(ops)
        out = _Jump(s.pos)
        pos = s.pos

        def test(m, fr):
            L = fr.locals
            if not cond(m, L):
                fr.pc = out.target
                return
            L[counter] += 1
            if limit is not None and L[counter] > limit:
                raise RuleRuntimeError(f"this loop ran more than its `max {limit}` times", pos)
            fr.pc += 1
        test.loop = (cond, counter, limit)  # type: ignore[attr-defined] - what a fast run does in place
        ops.append(_wrap(test, s.pos, ("two", out)))
        self.block(s.body, ops)
        ops.append(_goto(top, s.pos))
        out.target = len(ops)
        ops.append(_wrap(_forget(counter), s.pos, ("forget", (counter,))))

    def simul_op(self, s: n.Simul):
        """`simultaneously for p in players:` starts one branch per player; the machine runs
        them, collects every player's decisions without revealing them, and joins them."""
        key = f"simul:{s.pos.line}:{s.pos.col}:{self.fresh('s')}"
        self.code(key, s.body)
        src = self.expr(s.source)
        var, pos = s.var, s.pos
        kept = self.kept_by(s.body)

        def simultaneously(m, fr):
            if m.branch is not None:
                raise RuleRuntimeError("`simultaneously` cannot be nested", pos)
            players = list(src(m, fr.locals) or ())
            if len(set(players)) != len(players):
                raise RuleRuntimeError("a player appears twice in `simultaneously`", pos)
            if not players:
                fr.pc += 1
                return
            m.charge(len(players) * (len(m.s.vars) + len(m.s.zones) + len(m.s.tokens) + len(fr.locals)), pos)
            # A new step of choosing at once: its decisions get serials no earlier step had (the
            # branches count from 1 again), so an action left over from the last step is stale.
            m.s.decisions += 1
            base = {k: (v[:] if isinstance(v, list) else v) for k, v in fr.locals.items()}
            m.charge(len(m.s.where), pos)  # what each part needs to be put back (BranchStart)
            parts = step_parts(m.s, players, key, base, var, m.game, kept)
            if parts is not None:  # (every player a seat: the parts made in one pass)
                m.s.branches = parts
                return
            shown = _shown_all(m.s, players, m.game)
            starts = branch_starts(m.s, players, Frame(key, 0, base), m.game)
            m.s.branches = [Branch(p, [Frame(key, 0, {**base, var: p})], shown=shown[p], start=starts[p])
                            for p in sorted(players)]
            for p, start in starts.items():
                start.frame.locals[var] = p
        return _wrap(simultaneously, pos, ("leaf",))

    def kept_by(self, body: tuple) -> frozenset[str] | None:
        """None when statements `body` (with every procedure they call) may move, shuffle, place
        or reveal a card or set a card's var; else the player vars they may set. Such code does
        only locals, vars of players or of the game, tokens (`gain`, `pay`, `flip`), choices,
        logs and control flow: a `simultaneously` part made of it leaves its player's cards and
        the player's other vars as they were, so how they began is how the state holding the
        part shows them (``information.step_parts``). A statement not known to be one of these
        kinds answers None."""
        card_vars = {name for name, v in self.p.vars.items() if v.per == "card"}
        written: set[str] = set()
        seen: set[str] = set()
        todo = list(body)
        while todo:
            st = todo.pop()
            kind = type(st)
            if kind in (n.Let, n.Log, n.Pass, n.Fail, n.Return, n.Pick):
                continue
            if kind is n.Set:
                t = st.target
                if type(t) is n.Attr and t.name not in card_vars:
                    written.add(t.name)  # (`p.x`: the part's own player's, or refused)
                elif type(t) is not n.Name:  # (a name: a local, or a var of the game, refused)
                    return None
            elif kind is n.Verb:
                cat, name = self.p.resolved.get(id(st), ("effect", st.name))
                if cat == "proc":
                    if name not in seen:
                        seen.add(name)
                        todo += self.p.procs[name].body
                elif cat != "effect" or name not in ("gain", "pay", "flip"):
                    return None
            elif kind is n.If:
                for _, stmts in st.branches:
                    todo += stmts
                todo += st.orelse or ()
            elif kind in (n.For, n.While, n.Repeat, n.May):
                todo += st.body
            elif kind is n.Menu:
                for option in st.options:
                    todo += option.body
            else:  # (`emit`, `start`, a turn, a round, the end of the game, ...)
                return None
        return frozenset(written)

    def turn_stmt(self, s: n.Turn, ops: list) -> None:
        player = self.expr(s.player)
        saved = self.fresh("turn")
        pos = s.pos

        # (`expire` only with a lasting modifier in force, `emit` only when a trigger answers the
        # event: otherwise neither does anything, and the calls were a tenth of a turn's ops)
        local = _local_read(player)

        def begin(m, fr):
            if local is not None:  # (a local, read in place: the commonest turn, `turn p:`)
                p = fr.locals.get(local, _MISS)
                if p is _MISS:
                    p = player(m, fr.locals)
            else:
                p = player(m, fr.locals)
            if p is None:
                raise RuleRuntimeError("a turn needs a player", pos)
            fr.locals[saved] = p
            s = m.s
            s.active = p
            s.turn += 1
            if s.once:
                s.once = [k for k in s.once if not k.startswith("turn|")]
            lines = m.game.turn_lines
            m.log("turn", p, lines[p] if p.__class__ is int and 0 <= p < len(lines) else f"{m.game.player_name(p)}'s turn")
            if s.lasting:
                m.expire("turn_start", p)
            fr.pc += 1
            if m.game.triggers.get("turn_start"):
                m.emit("turn_start", [p], pos)
        ops.append(_wrap(begin, pos, ("effect", ("turn_start",))))
        if local is not None:  # (a run may do its common way in place: codegen `_StepsGen.turn_start`)
            begin.turn = (local, saved)  # type: ignore[attr-defined]
        self.block(s.body, ops)

        def end(m, fr):
            p = fr.locals.pop(saved)
            if m.s.lasting:
                m.expire("turn", p)
            fr.pc += 1
            if m.game.triggers.get("turn_end"):
                m.emit("turn_end", [p], pos)
        ops.append(_wrap(end, pos, ("effect", ("turn_end",))))
        end.turn_over = saved  # type: ignore[attr-defined] - (as `begin.turn`)

    def round_stmt(self, s: n.Round, ops: list) -> None:
        pos = s.pos

        def begin(m, fr):
            m.s.round += 1
            if m.s.once:
                m.s.once = [k for k in m.s.once if not k.startswith("round|")]
            m.log("round", None, f"round {m.s.round}")
            m.expire("round_start", None)
            fr.pc += 1
            m.emit("round_start", [], pos)
        ops.append(_wrap(begin, pos, ("effect", ("round_start",))))
        self.block(s.body, ops)

        def end(m, fr):
            m.expire("round", None)
            fr.pc += 1
            m.emit("round_end", [], pos)
        ops.append(_wrap(end, pos, ("effect", ("round_end",))))

    def menu_stmt(self, s: n.Menu, ops: list) -> None:
        op = _MenuOp(self, s)
        ops.append(op)
        ends = []
        for i, o in enumerate(s.options):
            op.starts[i] = len(ops)
            self.block(o.body, ops)
            j = _Jump(o.pos)
            ops.append(j)
            ends.append(j)
        for j in ends:
            j.target = len(ops)

    def chooser(self, by, pos) -> Fn:
        if by is not None:
            return self.expr(by)

        def active(m, L):
            p = m.current_player()
            if p is None:
                raise RuleRuntimeError("no player's turn is running: say who chooses with `by`", pos)
            return p
        return active


# ---- op helpers ---------------------------------------------------------------------------


# Built-ins that hand back items of the list they are given: a list of zones stays a list of zones.
_KEEPS_ZONES = frozenset({"first", "last", "take", "reversed", "distinct", "count", "index_of"})


_CONTAINER_CLASSES = frozenset((list, dict))


def _added(m, old, add, subtract: bool, where):
    """`old + add` (`old - add` when `subtract`) for `set ... +=` (`-=`): two whole numbers
    directly, anything else as `+` and `-` do (lists, bags, the errors)."""
    if old.__class__ is int and add.__class__ is int:
        return check_int(old - add if subtract else old + add, where)
    return subtract_values(m, old, add, where) if subtract else add_values(m, old, add, where)


def _cards_of_zones(f: Fn) -> Fn:
    """A list of zones (held as their keys) given to a built-in that wants cards: each zone's cards."""
    def cards(m, L):
        return [m.zone(k) if isinstance(k, str) else k for k in f(m, L)]
    return cards


def _const(value):
    return lambda m, L: value


def _fast_effect(name: str, items: list[tuple[str, Fn]], consts: dict, binding: str | None, pos):
    """The lean form of the effects most games do most (`move CARDS to ZONE`, `draw N from A to
    B`, at the bottom; `gain`/`pay` N of a token, no side named), for the generated runs: the
    arguments worked out in the order the general op works them out, without its dictionary of
    them, the cards moved by ``Machine.move_cards``, the tokens by ``Machine.transfer_plain``.
    The same steps paid, the same errors. None for any other effect.
    The reference backend keeps the general op (tests/test_backends.py compares the two).
    Like an op in a run, it leaves ``fr.pc`` to the run. Its ``inline`` (its kind, the argument
    functions and how they are passed) lets a fast run write it in place (codegen
    ``_StepsGen.lean_effect``)."""
    keys = [k for k, _ in items]
    fns = [f for _, f in items]

    def failed(err: Exception) -> RuleRuntimeError:
        if isinstance(err, RuleRuntimeError):
            return RuleRuntimeError(err.bare_message, pos) if err.pos is None else err
        return RuleRuntimeError(f"`{name}` failed: {err}", pos)

    if name in ("gain", "pay") and list(consts) == ["token"] and {"amount", "holder"} <= set(keys) and \
            set(keys) <= {"amount", "holder", "source" if name == "gain" else "target"}:
        token = consts["token"]
        gain = name == "gain"
        at = {k: i for i, k in enumerate(keys)}
        amount_at, holder_at, other_at = at["amount"], at["holder"], at.get("source" if gain else "target")

        two = len(fns) == 2  # (an amount and a holder, the commonest: both worked out in order, no list made)
        first, second = (fns[0], fns[1]) if two else (None, None)

        def tokens(m, fr):
            L = fr.locals
            values = (first(m, L), second(m, L)) if two else [f(m, L) for f in fns]
            other = (values[other_at] if other_at is not None else None) or "supply"
            try:
                if gain:
                    m.transfer_plain(values[amount_at], token, other, values[holder_at], False)
                else:
                    m.transfer_plain(values[amount_at], token, values[holder_at], other, True)
            except (RuleRuntimeError, TypeError, ValueError, KeyError, IndexError) as err:
                raise failed(err) from None
        tokens.inline = ("tokens", fns, token, gain, amount_at, holder_at, other_at)  # type: ignore[attr-defined]
        return tokens
    if consts:
        return None

    if name == "move" and sorted(keys) == ["cards", "zone"]:
        f0, f1 = fns
        cards_first = keys[0] == "cards"

        def move(m, fr):
            L = fr.locals
            a = f0(m, L)
            b = f1(m, L)
            try:
                m.move_cards(list(a), b) if cards_first else m.move_cards(list(b), a)
            except (RuleRuntimeError, TypeError, ValueError, KeyError, IndexError) as err:
                raise failed(err) from None
        move.inline = ("move", fns, cards_first)  # type: ignore[attr-defined]
        return move
    if name == "draw" and sorted(keys) == ["count", "source", "zone"]:
        f0, f1, f2 = fns
        at = [keys.index(k) for k in ("count", "source", "zone")]

        def draw(m, fr):
            L = fr.locals
            values = (f0(m, L), f1(m, L), f2(m, L))
            try:
                drawn = draw_cards(m, values[at[0]], values[at[1]], values[at[2]])
            except (RuleRuntimeError, TypeError, ValueError, KeyError, IndexError) as err:
                raise failed(err) from None
            if binding is not None:
                L[binding] = drawn
        draw.inline = ("draw", fns, at, binding)  # type: ignore[attr-defined]
        return draw
    return None


def seat_name(p: int) -> str:
    """A seat's name as people read it (CompiledGame.player_name; codegen's table of seats' names)."""
    return f"Player {p + 1}"


def _seat_keys(name: str, players: int) -> tuple[str, ...]:
    """The state's key of a player's var (`name#p`) for each seat, made once: an op setting it
    looks its key up rather than formatting it each time."""
    return tuple(f"{name}#{seat}" for seat in range(players))


def _local_read(f) -> str | None:
    """The local an expression's generated function only reads (codegen's `local`), or None."""
    local = getattr(f, "local", None)
    return local if type(local) is str else None


def _pass():
    """The op of `pass` (a new function each: each holds its own position)."""
    def advance(m, fr):
        fr.pc += 1
    return advance


def _wrap(fn, pos, shape: tuple | None = None):
    """An op: its position (for errors) and, when given, its shape: what the generated steps
    (codegen.code_runs) need to run it in place of calling it (see there)."""
    fn.pos = pos
    if shape is not None:
        fn.shape = shape
    elif not hasattr(fn, "shape"):
        fn.shape = ("pass",) if fn.__code__ is _pass().__code__ else None
    return fn


# The kinds of op (their `shape`, see _wrap) that change nothing a define can read: what they
# write is the frame's locals and pc (`let`, a loop's step, a `while`'s or `repeat`'s test,
# forgetting locals, a jump), the game's log (which no expression reads) or the stack (a
# procedure call: a define reads the state, never the frames).
_READING_KINDS = frozenset(("pass", "jump", "let", "branch", "step", "begin", "forget", "log", "two", "call"))


def _changes_state(op) -> bool:
    """Whether an op may change what a define can read (vars, zones, cards' places and cells,
    tokens, knowledge, the turn and round, the active player, lasting modifiers, `once` marks,
    the end of the game): the define memo is forgotten after every op that may
    (``Machine.memo``). Any op not known to be one of the reading kinds, or marked as writing
    only locals where it is made (its `changes` set to False), is taken to change the state."""
    known = getattr(op, "changes", None)  # set where the op is made (a `return`, a `set` of a local...)
    if known is not None:
        return known
    shape = getattr(op, "shape", None)
    return shape is None or shape[0] not in _READING_KINDS


def _setter(var, f):
    def setter(m, fr):
        fr.locals[var] = f(m, fr.locals)
        fr.pc += 1
    return setter


def _forget(*names):
    def forget(m, fr):
        for k in names:
            fr.locals.pop(k, None)
        fr.pc += 1
    return forget


def _goto(target, pos):
    j = _Jump(pos)
    j.target = target
    return j


def _jump_to(target: int, pos):
    def jump(m, fr):
        fr.pc = target
    jump.pos = pos  # type: ignore[attr-defined]
    jump.shape = ("jump", target)  # type: ignore[attr-defined]
    return jump


class _Jump(_Op):
    __slots__ = ("target",)
    changes = False

    def __init__(self, pos):
        super().__init__(pos)
        self.target = -1

    def __call__(self, m, fr):
        fr.pc = self.target


class _PickOp(_Op):
    """`choose x in list`: parks with one action per item (plus Skip for `may choose`)."""

    changes = False  # it parks, or sets its local to none (an empty `may choose`): the answer comes in `resume`

    __slots__ = ("var", "source", "cond", "cond_all", "labels_all", "labels_paid", "distinct", "chooser", "chooser_local",
                 "prompt", "label", "default_label", "optional", "cards", "written")

    def __init__(self, c: _Compiler, s: n.Pick):
        super().__init__(s.pos)
        self.var = s.var
        self.source = c.expr(s.source)
        self.cond = c.expr(s.cond) if s.cond is not None else None
        # With the codegen backend, the condition over all the items at once (None: item by item)
        self.cond_all = c.codegen.filter(s.cond, s.var) if s.cond is not None and c.codegen is not None else None
        self.chooser = c.chooser(s.by, s.pos)
        self.chooser_local = _local_read(self.chooser)
        self.prompt = c.expr(s.prompt) if s.prompt is not None else _const(f"Choose {s.var}")
        self.label = c.expr(s.label) if s.label is not None else None
        self.labels_all = c.codegen.filter(s.label, s.var, labels=True) \
            if s.label is not None and c.codegen is not None else None
        self.labels_paid = getattr(self.labels_all, "paid_twice", False)
        self.distinct = _distinct_labels(c, s)

        self.default_label = c.label_fn(elem_type(c.type_of(s.source)))
        self.optional = s.optional
        self.cards = elem_type(c.type_of(s.source)) == "card"  # its values are cards (for secrecy)
        c.card_local(s.var, elem_type(c.type_of(s.source)))
        # With the codegen backend, the whole choice on its common way, in the op's generated
        # run (codegen.CodeGen.pick; None: the op does it, as the reference's loop calls it)
        self.written = c.codegen.pick(s, self.chooser_local, self.distinct) if c.codegen is not None else None

    def __call__(self, m: Machine, fr: Frame) -> None:
        L = fr.locals
        items = list(self.source(m, L) or ())
        b = m.budget  # (m.charge, written out, here and below: a choice is made most decisions)
        b.used += len(items)
        if b.used > b.limit:
            b.charge(0, self.pos)
        if self.cond is not None:
            kept = self.cond_all(m, L, items) if self.cond_all is not None else None
            if kept is None:
                kept = []
                old = L.get(self.var)
                for x in items:
                    L[self.var] = x
                    if self.cond(m, L):
                        kept.append(x)
                L[self.var] = old
            items = kept
        if not items:
            if self.optional:
                L[self.var] = None
                fr.pc += 1
                return
            raise RuleRuntimeError("nothing to choose from (guard this choice, or use `may choose`)", self.pos)
        labels = self.labels_all(m, L, items) if self.labels_all is not None else None
        paid = labels is not None and self.labels_paid  # (the op's payment for them made with theirs)
        if labels is None:
            labels = []
            for x in items:
                if self.label is not None:
                    L[self.var] = x
                    labels.append(self.label(m, L))
                else:
                    labels.append(self.default_label(m, x))
        L.pop(self.var, None)
        if not paid:
            b.used += sum(map(len, labels))
            if b.used > b.limit:
                b.charge(0, self.pos)
        if not self.distinct and len(set(labels)) != len(labels):  # (_disambiguate's own test, without its call)
            labels = _disambiguate(labels)
        if self.optional:
            items.append(None)
            labels.append("Skip")
        who = L.get(self.chooser_local, _MISS) if self.chooser_local is not None else _MISS  # (`by p`: read in place)
        m.wait(who if who is not _MISS else self.chooser(m, L), self.prompt(m, L), "pick", items, labels)

    def resume(self, m: Machine, fr: Frame, value, player: int) -> None:
        fr.locals[self.var] = value
        fr.pc += 1


def _distinct_labels(c: _Compiler, s: n.Pick) -> bool:
    """Whether a choice's labels always differ, so `_disambiguate` has nothing to do: `label
    "{NAMES[x]}"` of its items `x` from `range(A, B)` (A a number from 0, so the items are
    different places of NAMES), NAMES a constant list of texts that all differ."""
    label, source = s.label, s.source
    if not (isinstance(label, n.Template) and len(label.parts) == 1 and isinstance(label.parts[0], n.Index)):
        return False
    names, index = label.parts[0].obj, label.parts[0].index
    if not (isinstance(index, n.Name) and index.id == s.var and c.p.resolved.get(id(index), ("local",))[0] == "local"
            and isinstance(names, n.Name) and c.p.resolved.get(id(names), ("",))[0] == "const"):
        return False
    if not (isinstance(source, n.Call) and c.p.resolved.get(id(source), ("builtin", source.func)) == ("builtin", "range")
            and len(source.args) == 2 and isinstance(source.args[0], n.Lit) and type(source.args[0].value) is int
            and source.args[0].value >= 0):
        return False
    texts = c.const(c.p.resolved[id(names)][1])
    return type(texts) is list and all(type(t) is str for t in texts) and len(set(texts)) == len(texts)


class _MenuOp(_Op):
    """`choose:` with options; unavailable or unaffordable options are not offered."""

    changes = False  # it parks; the cost is paid in `resume`, which forgets the define memo then

    __slots__ = ("options", "option_pos", "chooser", "chooser_local", "prompt", "starts", "key", "fixed")

    def __init__(self, c: _Compiler, s: n.Menu):
        super().__init__(s.pos)
        self.options = []
        self.option_pos = [o.pos for o in s.options]
        for o in s.options:
            when = c.expr(o.when) if o.when is not None else None
            cost = (c.expr(o.cost[0]), o.cost[1]) if o.cost is not None else None
            each = (o.each[0], c.expr(o.each[1])) if o.each is not None else None
            self.options.append((c.expr(o.label), when, cost, o.once, each))
        self.chooser = c.chooser(s.by, s.pos)
        self.chooser_local = _local_read(self.chooser)
        self.prompt = c.expr(s.prompt) if s.prompt is not None else _const("Choose")
        self.starts = [0] * len(s.options)
        self.key = f"{s.pos.file}:{s.pos.line}:{s.pos.col}"
        # A menu whose options are always open and whose labels and prompt are plain texts (most
        # menus of small games) offers the same actions every time: made once here. Working
        # them out charges nothing (a plain text costs nothing to evaluate), so neither does
        # this. Each Pending gets copies of the lists: the engine never changes a Pending's lists,
        # but a state's data is open to whoever holds it, and a list changed there must not
        # change every later decision of the game (a property test changes a clone's lists).
        self.fixed: tuple[str, list[int], list[str]] | None = None
        if s.options and all(o.when is None and o.cost is None and o.once is None and o.each is None
                             and _text_literal(o.label) for o in s.options) \
                and (s.prompt is None or _text_literal(s.prompt)):
            prompt = s.prompt.value if s.prompt is not None else "Choose"
            self.fixed = (prompt, list(range(len(s.options))), _disambiguate([o.label.value for o in s.options]))

    def __call__(self, m: Machine, fr: Frame) -> None:
        L = fr.locals
        player = L.get(self.chooser_local, _MISS) if self.chooser_local is not None else _MISS  # (`by p`: in place)
        if player is _MISS:
            player = self.chooser(m, L)
        fixed = self.fixed
        if fixed is not None:
            m.wait(player, fixed[0], "menu", fixed[1][:], fixed[2][:])
            return
        values, labels = [], []
        for i, (label, when, cost, once, each) in enumerate(self.options):
            if each is None:
                if (once is None and when is None and cost is None) or self._open(m, L, player, i, i, once, when, cost):
                    values.append(i)
                    labels.append(label(m, L))
                continue
            # One option per item: the item is bound to the `for` name while the option's
            # condition, cost and label are worked out, and again when it is chosen.
            name, source = each
            items = source(m, L)
            m.charge(len(items), self.pos)
            had, before = name in L, L.get(name)
            try:
                for item in items:
                    L[name] = item
                    if self._open(m, L, player, i, f"{i}:{item}", once, when, cost):
                        values.append([i, item])
                        labels.append(label(m, L))
            finally:
                if had:
                    L[name] = before
                else:
                    L.pop(name, None)
        if not values:
            raise RuleRuntimeError("no option can be chosen here (add an option that is always open)", self.pos)
        m.wait(player, self.prompt(m, L), "menu", values, _disambiguate(labels))  # (parks as `park`)

    def _open(self, m: Machine, L: dict, player: int, i: int, which, once, when, cost) -> bool:
        if once is not None and f"{once}|{player}|{self.key}|{which}" in m.s.once:
            return False
        if when is not None and not when(m, L):
            return False
        return cost is None or m.token_count(f"p{player}", cost[1]) >= self.cost(m, L, cost, i)

    def cost(self, m: Machine, L: dict, cost: tuple, i: int) -> int:
        """What option `i` costs now: a whole number from 0 (a negative cost would pay the player)."""
        amount = cost[0](m, L)
        if not isinstance(amount, int) or isinstance(amount, bool) or amount < 0:
            raise RuleRuntimeError(f"a cost is a number from 0, not {amount!r}", self.option_pos[i])
        return amount

    def resume(self, m: Machine, fr: Frame, value, player: int) -> None:
        if self.fixed is not None:  # no cost, no once, no item: where the option starts
            fr.pc = self.starts[value]
            return
        which = value
        if isinstance(value, list):  # [option, item] of an option made `for` each item
            which = f"{value[0]}:{value[1]}"
            value, item = value
            fr.locals[self.options[value][4][0]] = item
        label, when, cost, once, each = self.options[value]
        if cost is not None:
            m.transfer(self.cost(m, fr.locals, cost, value), cost[1], f"p{player}", "supply", None, strict=True)
        if once is not None:
            m.s.once.append(f"{once}|{player}|{self.key}|{which}")
        if m.memo:
            m.memo = {}
        fr.pc = self.starts[value]


class _MayOp(_Op):
    """`may "question":` a yes/no decision."""

    changes = False  # it parks

    __slots__ = ("prompt", "chooser", "end", "fixed")

    def __init__(self, c: _Compiler, s: n.May):
        super().__init__(s.pos)
        self.prompt = c.expr(s.prompt)
        self.chooser = c.chooser(s.by, s.pos)
        self.end = -1
        # A plain-text question: its actions made once (see _MenuOp.fixed)
        self.fixed = (s.prompt.value, [True, False], [f"Yes: {s.prompt.value}", "No"]) \
            if _text_literal(s.prompt) else None

    def __call__(self, m: Machine, fr: Frame) -> None:
        fixed = self.fixed
        if fixed is not None:
            m.wait(self.chooser(m, fr.locals), fixed[0], "may", fixed[1][:], fixed[2][:])
            return
        prompt = self.prompt(m, fr.locals)
        m.wait(self.chooser(m, fr.locals), prompt, "may", [True, False], [f"Yes: {prompt}", "No"])  # (parks as `park`)

    def resume(self, m: Machine, fr: Frame, value, player: int) -> None:
        fr.pc = fr.pc + 1 if value else self.end


def _shown(s, player: int) -> dict:
    """What the others may keep seeing of a player while that player chooses in secret.

    Never changed afterwards, so copies of the state may share it.
    """
    mark = f"#{player}"
    return {
        "vars": {k: v for k, v in s.vars.items() if k.endswith(mark)},
        "zones": {k: len(v) for k, v in s.zones.items() if k.endswith(mark)},
        "tokens": {k: v for k, v in s.tokens.items() if k.startswith(f"p{player}|")},
    }


def _shown_all(s, players: list, g: CompiledGame | None = None) -> dict:
    """`_shown(s, p)` for each of `players`, in one pass over the state instead of one per player
    (a key ends with `#p` exactly when the text after its last `#` is p's number); with the game
    ``g``, the players' own vars and zones read by their keys (``information.own_keys``)."""
    if g is not None and _seats(s, players):
        zone_keys, var_keys, _ = own_keys(g, s.num_players)
        values, zones = s.vars, s.zones
        try:
            out = {p: {"vars": {k: values[k] for k in var_keys[p]}, "zones": {k: len(zones[k]) for k in zone_keys[p]},
                       "tokens": {}} for p in players}
        except KeyError:  # (a var missing: not a state the save checks let through)
            return _shown_all(s, players)
        marks = {f"p{p}": out[p]["tokens"] for p in players}
        for k, v in s.tokens.items():
            mine = marks.get(k.partition("|")[0])
            if mine is not None:
                mine[k] = v
        return out
    wanted = {str(p): p for p in players if isinstance(p, int)}
    out = {p: {"vars": {}, "zones": {}, "tokens": {}} for p in players if isinstance(p, int)}
    for k, v in s.vars.items():
        p = wanted.get(k.rpartition("#")[2]) if "#" in k else None
        if p is not None:
            out[p]["vars"][k] = v
    for k, v in s.zones.items():
        p = wanted.get(k.rpartition("#")[2]) if "#" in k else None
        if p is not None:
            out[p]["zones"][k] = len(v)
    for k, v in s.tokens.items():
        head = k.partition("|")[0]
        p = wanted.get(head[1:]) if head[:1] == "p" and "|" in k else None
        if p is not None:
            out[p]["tokens"][k] = v
    return {p: out[p] if p in out else _shown(s, p) for p in players}


def _text_literal(e) -> bool:
    """A plain text in the rules (no `{...}` in it): the same every time, and free to evaluate."""
    return isinstance(e, n.Lit) and isinstance(e.value, str)


def _disambiguate(labels: list[str]) -> list[str]:
    """Equal labels get a position so people (and logs) can tell the actions apart."""
    if len(set(labels)) == len(labels):
        return labels
    total: dict[str, int] = {}
    for lab in labels:
        total[lab] = total.get(lab, 0) + 1
    counts: dict[str, int] = {}
    out = []
    for lab in labels:
        counts[lab] = counts.get(lab, 0) + 1
        out.append(f"{lab} ({counts[lab]})" if total[lab] > 1 else lab)
    return out


# ---- the whole game ------------------------------------------------------------------------


def _card_rows(c: _Compiler, table: n.CardsDecl):
    """Each row of a card table with the values of its series' names: a plain row once, a
    `for c in colour, v in range(2, 11):` row once per combination, in order."""
    for row in table.rows:
        combos: list[dict] = [{}]
        for name, source in row.each:
            grown = []
            for done in combos:
                items = c.static(source, f"the list of `{name}`", done)
                if not isinstance(items, list):
                    raise RuleError([Diagnostic("E302", f"`{name}` must go through a list", source.pos)])
                grown += [{**done, name: item} for item in items]
                if len(grown) > MAX_CARDS:
                    raise RuleError([Diagnostic("E308", f"a series of more than {MAX_CARDS} rows", row.pos)])
            combos = grown
        for local_values in combos:
            yield row, local_values


def _cards(c: _Compiler, p: Program) -> tuple[list[str], list[str], list[dict], dict[str, list[int]]]:
    """The cards: their names, kinds and values, by id (in table order, copies expanded), and the
    ids of each kind."""
    names: list[str] = []
    kinds: list[str] = []
    attrs_list: list[dict] = []
    by_kind: dict[str, list[int]] = {}
    c._nested = True  # worked out at load time, before the generated module exists: closures
    kind_texts = {k.name: c.expr(k.text) for k in p.kinds.values() if k.text is not None}
    c._nested = False
    for table in p.cards:
        for row, local_values in _card_rows(c, table):
            values = {col: c.static(v, f"`{col}`", local_values)
                      for col, v in zip(table.columns, row.values, strict=False)}
            if "text" not in values and table.kind in kind_texts:
                values["text"] = c.static_with(kind_texts[table.kind], dict(values), row.pos,
                                               f"the text of `{values.get('name', table.kind)}`")
            copies = values.pop("copies", 1)
            if not isinstance(copies, int) or copies < 0 or copies > MAX_CARDS:
                raise RuleError([Diagnostic("E308", f"copies must be a number from 0 to {MAX_CARDS}, not {copies!r}",
                                            row.pos)])
            if len(names) + copies > MAX_CARDS:
                raise RuleError([Diagnostic("E308", f"a game has at most {MAX_CARDS} cards; this row makes "
                                                    f"{len(names) + copies}", row.pos)])
            for _ in range(copies):
                by_kind.setdefault(table.kind, []).append(len(names))
                names.append(str(values.get("name", table.kind)))
                kinds.append(table.kind)
                attrs_list.append(values)
    return names, kinds, attrs_list, by_kind


def compile_program(program: Program, options: dict, backend: str = "codegen", cache: bool = True,
                    cache_key: str | None = None) -> CompiledGame:
    """Compile a checked program; ``backend`` is "codegen" (generated Python, the default) or
    "reference" (closures only: the reference the generated code is tested against). With
    ``cache``, the generated module's code comes from the on-disk cache when it is there; with a
    ``cache_key`` too (a hash of what the program and ``options`` are made from: the game's files
    and the option values), the module is not even generated again (``CodeGen``'s replay)."""
    c = _Compiler(program, options, backend, cache, cache_key)
    p = program
    # The cards' values and the vars' initial values: worked out by the load that generated the
    # module, and kept with it for a warm load, which gets them back (a sixth of a warm load of a
    # game of many cards); the same files and options give the same values.
    kept = c.codegen.load_values if c.codegen is not None else None
    if kept is not None:
        names, kinds, attrs_list, by_kind, var_inits = kept
    else:
        names, kinds, attrs_list, by_kind = _cards(c, p)
        var_inits = {v.name: (v.per, c.static(v.init, f"the initial value of `{v.name}`")) for v in p.vars.values()}
    if c.codegen is not None:  # how big the cards' numbers are decides which sums need a check
        c.codegen.given_cards(names, kinds, attrs_list)
        c.codegen.load_values = (names, kinds, attrs_list, by_kind, var_inits)
    zone_decls, slots, refill = {}, {}, {}
    grids: set[str] = set()
    for z in p.zones.values():
        vis = next((name for name, _, _ in z.props if name in registry.ZONE_VISIBILITY), "public")
        # A zone per member of an enum is that many zones, `discard[red]`, `discard[blue]`, ...
        family = [f"{z.name}[{m}]" for m in p.enums[z.member]] if z.member else [z.name]
        for zname in family:
            zone_decls[zname] = (z.per == "player", vis)
            for name, value, _ in z.props:
                if name == "slots":
                    slots[zname] = value
                elif name == "refill":
                    refill[zname] = value
                elif name == "grid":
                    grids.add(zname)
    sides, supply = {}, {}
    for t in p.tokens.values():
        props = {name: values for name, values, _ in t.props}
        named = props.get("sides", ("",))
        # `sides of E`: one side per member of E, in the enum's order
        sides[t.name] = list(p.enums[named[1]]) if len(named) == 2 and named[0] == "of" else list(named)
        supply[t.name] = props.get("supply", (0,))[0]
    var_card_types = {}
    for v in p.vars.values():
        t = _ref_type(p, v.type)
        if t == "card" or t == "list:card":
            var_card_types[v.name] = "card" if t == "card" else "list"
    token_visibility = {t.name: next((name for name, _, _ in t.props if name in registry.ZONE_VISIBILITY),
                                     "public") for t in p.tokens.values()}
    c.codes["setup"] = []
    if p.setup:
        c.code("setup", p.setup.body)
    if p.flow:
        c.code("flow", p.flow.body)
    for name, proc in p.procs.items():
        c.returns = proc.returns  # what its `return` statements give back
        c.code(f"proc:{name}", proc.body, {prm.name: _ref_type(p, prm.type) for prm in proc.params})
        c.returns = None
    triggers: dict[str, list] = {}
    for i, t in enumerate(p.triggers):
        key = f"trigger:{i}:{t.event}"
        event = p.events.get(t.event)
        params = [_ref_type(p, prm.type) for prm in event.params] if event is not None else []
        c.code(key, t.body, dict(zip(t.names, params, strict=False)))
        when = c.expr(t.when) if t.when is not None else None
        triggers.setdefault(t.event, []).append((key, tuple(t.names), when))
    score_lines = [(line.label, _per_player(_guard(c.expr(line.value), line.value.pos, want=int), var))
                   for line, var in p.score_lines]
    tiebreaks = [_per_player(_guard(c.expr(k), k.pos, want=int), p.tiebreak.var)
                 for k in (p.tiebreak.keys if p.tiebreak else ())]
    invariants = [(inv.text, _guard(c.expr(inv.value), inv.value.pos)) for inv in p.invariants]
    scenarios = [_compile_scenario(c, i, sc) for i, sc in enumerate(p.scenarios)]
    requires = [(req.message, c.expr(req.value)) for req in p.requires]
    winners = _guard(c.expr(p.winners.value), p.winners.pos, want=list) if p.winners is not None else None
    var_unknown = {v.name: (_guard(c.expr(v.unknown), v.unknown.pos, want=list), v.unknown.pos)
                   for v in p.vars.values() if v.unknown is not None}
    # Compile every define body now, so no compiling happens during play; except on a warm load,
    # whose reference closures are built on their first call (see `_entry`): the defines' closures
    # serve only them, and are built with them.
    if c.codegen is None or c.codegen.replay is None:
        c._nested = True
        for name in p.defines:
            c.define_call(name, [], p.defines[name].pos)
        c._nested = False
    layout = compile_table(c, p.table)  # before finish(): its expressions are generated too
    if c.codegen is not None:
        c.codegen.finish()
    member_enum = dict(p.member_enum)
    faces = [_face_line(p, kinds[i], names[i], attrs_list[i]) for i in range(len(names))]
    var_types = {v.name: _ref_type(p, v.type) for v in p.vars.values()}
    return CompiledGame(
        layout=layout,
        hidden_score_lines=set(p.hidden_score_lines) | {k for k, v in p.score_line_vis.items() if v == "hidden"},
        owner_score_lines={k for k, v in p.score_line_vis.items() if v == "owner"},
        display=dict(p.display), card_faces=faces, var_types=var_types, member_enum=member_enum,
        title=p.title, min_players=p.min_players, max_players=p.max_players, option_values=dict(options),
        card_names=names, card_kinds=kinds, card_attrs=attrs_list,
        cards_of_kind={k: tuple(v) for k, v in by_kind.items()}, zone_decls=zone_decls, zone_slots=slots,
        zone_refill=refill, token_sides=sides, token_supply=supply, var_inits=var_inits, codes=c.codes,
        triggers=triggers, score_lines=score_lines, score_var=p.score.var if p.score else "p",
        tiebreaks=tiebreaks, invariants=invariants, enums=dict(p.enums),
        proc_params={name: tuple(prm.name for prm in proc.params) for name, proc in p.procs.items()},
        scenarios=scenarios, requires=requires, winners=winners, backend=backend, generated=c.codegen,
        zone_grids=frozenset(grids),
        random=c.shuffles or bool(refill),
        var_visibility={v.name: v.visibility for v in p.vars.values()}, token_visibility=token_visibility,
        var_unknown=var_unknown,
        var_card_types=var_card_types, card_locals={k: frozenset(v) for k, v in c.card_locals.items()},
        card_texts=tuple(map(str, range(len(names)))),
    )


def _ref_type(p: Program, t: n.TypeRef) -> str:
    """A declared type as the checker writes it, from the program alone."""
    if t.form == "bag":
        return f"bag:{t.name}"
    inner = f"enum:{t.name}" if t.name in p.enums else "card" if t.name in p.kinds else t.name
    return f"list:{inner}" if t.form == "list" else inner


def _face_line(p: Program, kind: str, name: str, values: dict) -> str:
    """A card's face: its name, then the attributes its kind's `face:` names, as people read
    them ("Old Mill - profit 6 - needs Grain x2, Stone")."""
    decl = p.kinds.get(kind)
    parts = [name]
    fields = {f.name: f for f in decl.fields} if decl else {}
    for attr in decl.face if decl else ():
        if attr == "name":
            continue
        value = values.get(attr)
        field = fields.get(attr)
        t = _ref_type(p, field.type) if field else "text"
        label = (field.display if field and field.display else attr.replace("_", " "))
        if value is None or value == [] or value == {} or value is False or value == "":
            continue
        if isinstance(value, str) and value in p.member_enum:
            parts.append(p.display.get(value) or value.replace("_", " "))
        elif value is True:
            parts.append(label)
        elif isinstance(value, dict):
            shown = [(p.display.get(k) or k.replace("_", " ")) + (f" x{v}" if v != 1 else "")
                     for k, v in value.items() if v]
            if shown:
                parts.append(f"{label} {', '.join(shown)}")
        elif isinstance(value, list):
            shown = [p.display.get(v) or v.replace("_", " ") if isinstance(v, str) and v in p.member_enum
                     else str(v) for v in value]
            parts.append(f"{label} {', '.join(shown)}")
        elif t == "text" and attr == "text":
            continue  # the rules text is shown apart, not on the face line
        else:
            parts.append(f"{label} {value}")
    return " - ".join(parts)


@attrs.frozen
class ScenarioStep:
    kind: str  # given, play, choose, expect, decision
    pos: n.Pos
    text: str | None = None
    code: str | None = None  # given: the code key of its statements
    args: tuple = ()  # play: argument closures
    check: Fn | None = None  # expect: the condition
    sides: tuple | None = None  # expect on a comparison: (op, left, right) to show actual values
    by: Fn | None = None
    active: int | None = None  # play: which argument is the player whose turn it is


@attrs.frozen
class Scenario:
    name: str
    players: int | None
    seed: int
    options: dict
    steps: tuple
    pos: n.Pos


def _compile_scenario(c: _Compiler, i: int, sc: n.ScenarioDecl) -> Scenario:
    steps = []
    for k, st in enumerate(sc.steps):
        by = c.expr(st.by) if st.by is not None else None
        if st.kind == "given":
            key = f"scenario:{i}:{k}"
            c.code(key, st.body)
            steps.append(ScenarioStep("given", st.pos, code=key))
        elif st.kind == "play":
            params = c.p.procs[st.text].params
            active = next((j for j, prm in enumerate(params) if prm.type.name == "player"), None)
            steps.append(ScenarioStep("play", st.pos, text=st.text, args=tuple(c.expr(a) for a in st.args),
                                      active=active))
        elif st.kind == "expect":
            cond = st.args[0]
            sides = None
            if isinstance(cond, n.Compare):
                sides = (cond.op, c.text(cond.left), c.text(cond.right))
            steps.append(ScenarioStep("expect", st.pos, check=c.expr(cond), sides=sides))
        else:
            steps.append(ScenarioStep(st.kind, st.pos, text=st.text, by=by))
    options = {}
    for name, value in sc.options:
        options[name] = value.id if isinstance(value, n.Name) else value.value
    return Scenario(sc.name, sc.players, sc.seed, options, tuple(steps), sc.pos)


def _guard(f: Fn, pos, want: type | None = None) -> Fn:
    """An expression worked out outside the step loop (a score line, a tiebreak, an invariant):
    a Python error in it becomes a RuleRuntimeError at its position, as inside the loop. Scores
    and tiebreaks must come out as numbers, `winners:` as a list (a state restored from an edited
    save may hold anything in its vars), or adding and comparing them would fail far from the rule."""
    def guarded(m, L):
        try:
            value = f(m, L)
        except RuleRuntimeError as err:
            if err.pos is None:
                raise RuleRuntimeError(err.bare_message, pos) from None
            raise
        except RULE_FAULTS as err:
            raise RuleRuntimeError(f"this rule cannot be worked out ({python_error(err)})", pos) from None
        if want is not None and not isinstance(value, want):
            raise RuleRuntimeError(f"this should be a {'number' if want is int else 'list'}, "
                                   f"not {str(value)[:40]!r}", pos)
        return check_int(value, pos)
    return guarded


def _per_player(f: Fn, var: str) -> Callable[[Machine, int], Any]:
    return lambda m, player: f(m, {var: player})


def score_fn(game: CompiledGame, f: Fn) -> Callable[[Machine, int], Any]:
    var = game.score_var
    return lambda m, player: f(m, {var: player})
