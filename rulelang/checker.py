"""The checker: syntax trees -> a checked ``Program``.

Merges the declarations of every file (``replace`` and ``remove`` applied), resolves every
name, checks types, arities and clause words against the registry, and reports every
problem in one run. Suggestions come only from names valid at that spot.

Types are short strings: int, bool, text, player, card, zone, token, side, modifier, kind,
position, holder, none, any, ``enum:E``, ``list:T``, ``bag:E``, ``map``, ``choice:O``.
The checker records each expression's type and what each name or attribute resolves to;
the compiler reads those records instead of guessing.
"""

from __future__ import annotations

import attrs

from . import nodes as n
from . import registry
from .diagnostics import Diagnostic, RuleError, did_you_mean

BUILTIN_EVENTS = {
    "turn_start": (("p", "player"),),
    "turn_end": (("p", "player"),),
    "round_start": (),
    "round_end": (),
}
SIMPLE_TYPES = {"int", "bool", "text", "player", "card", "spot", "facing"}
# How deep expressions may nest, counting through the defines and consts they name: the
# checker, the compiler and the running game all follow that nesting on Python's stack.
MAX_EXPR_DEPTH = 100
MAX_OPTION_RANGE = 1000  # values an `option n: 1 to N` may take
MAX_DIAGNOSTICS = 100  # the checker stops after this many errors (a generated file may have millions)


class _TooMany(Exception):
    """The checker has found MAX_DIAGNOSTICS errors and stops looking."""


@attrs.define
class Program:
    """Everything the compiler needs, checked."""

    title: str = "Untitled"
    min_players: int = 1
    max_players: int = 1
    options: dict = attrs.Factory(dict)  # name -> OptionDecl
    enums: dict = attrs.Factory(dict)  # name -> tuple of members
    member_enum: dict = attrs.Factory(dict)  # member -> enum name
    kinds: dict = attrs.Factory(dict)  # name -> KindDecl
    cards: list = attrs.Factory(list)  # CardsDecl, in order
    zones: dict = attrs.Factory(dict)
    tokens: dict = attrs.Factory(dict)
    vars: dict = attrs.Factory(dict)
    consts: dict = attrs.Factory(dict)
    defines: dict = attrs.Factory(dict)
    events: dict = attrs.Factory(dict)
    modifiers: dict = attrs.Factory(dict)
    procs: dict = attrs.Factory(dict)
    setup: n.SetupDecl | None = None
    flow: n.FlowDecl | None = None
    triggers: list = attrs.Factory(list)
    score: n.ScoreDecl | None = None
    tiebreak: n.TiebreakDecl | None = None
    invariants: list = attrs.Factory(list)
    scenarios: list = attrs.Factory(list)
    requires: list = attrs.Factory(list)
    winners: n.WinnersDecl | None = None
    score_lines: list = attrs.Factory(list)  # (ScoreLine, the block's player name), in order
    # Display names: declared name (enum, member, kind, zone, token, var; "field:NAME" for a
    # card attribute) -> the text shown to people. Only names given one are here.
    display: dict = attrs.Factory(dict)
    table: n.TableDecl | None = None  # what players see (the `table:` section)
    hidden_score_lines: set = attrs.Factory(set)  # labels of score lines that read hidden cards
    table_private: set = attrs.Factory(set)  # ids of table items shown on their owner's board only
    score_line_vis: dict = attrs.Factory(dict)  # score line -> public, owner or hidden (rulelang/flow.py)
    choice_values: dict = attrs.Factory(dict)  # option choice value -> option name
    # Filled by the checker for the compiler: id(node) -> type / resolution.
    types: dict = attrs.Factory(dict)
    resolved: dict = attrs.Factory(dict)
    nodes_kept: list = attrs.Factory(list)  # keeps checked nodes alive so ids stay valid


_REGISTRY_TYPES = {"players": "list:player", "cards": "list:card", "ints": "list:int", "list": "list:any",
                   "spots": "list:spot"}


def norm_type(t: str) -> str:
    """Registry shorthand (players, cards, ints) as checker types."""
    return _REGISTRY_TYPES.get(t, t)


def elem_type(t: str) -> str:
    if t.startswith("list:"):
        return t[5:]
    if t == "zone":
        return "card"
    if t.startswith("enum_list:"):
        return "enum:" + t[10:]
    return "any"


def _compatible(want: str, got: str) -> bool:
    if want == "any" or got in ("any", "none"):
        return True
    if want == got:
        return True
    if want == "holder":
        return got in ("player", "card", "holder") or got.startswith("enum:")
    if want == "cards":
        return got in ("card", "zone") or got.startswith("list:card") or got == "list:any"
    if want in ("list", "ints", "players"):
        if want == "ints":
            return got in ("list:int", "list:any", "enum_list") or got.startswith("list:")
        return got.startswith("list:") or got == "zone" or got.startswith("enum_list:")
    if want == "position":
        return got in ("int", "position")
    if want == "audience":
        return got in ("player", "list:player", "list:any")
    if want == "bag" or want.startswith("bag:"):
        return got.startswith("bag:") or got == "map"  # `{}` is an empty bag
    if want.startswith("map"):
        return got.startswith("map") or got.startswith("bag:")
    if want.startswith("list:"):
        return got.startswith("list:") or got == "zone"
    if want.startswith("enum:") and got.startswith("choice:"):
        return True
    if want.startswith("choice:") and got.startswith("enum:"):
        return True
    if want == "text" and got.startswith("choice:"):
        return True
    return False


class _Checker:
    def __init__(self, modules: list[n.Module]):
        self.modules = modules
        self.diags: list[Diagnostic] = []
        self.p = Program()
        self.score_files: dict[str, str] = {}
        self.globals: dict[str, tuple[str, object]] = {}
        self.side_enums: set[str] = set()  # enums whose members are the sides of a token (`sides of E`)
        self.define_types: dict[str, str] = {}
        self._define_busy: set[str] = set()
        self._const_busy: set[str] = set()
        self._depth = 0  # expressions being checked inside each other
        self._too_deep = False
        self._card_names: set[str] | None = None
        self._names_incomplete = False  # some card names are made at load (`for ...` rows)
        self._proc: n.ProcDecl | None = None  # the procedure whose body is being checked
        # Cards a house rule removed: comparing a name with one of them is fine (it matches nothing
        # now, as the house rule intends); asking for one with `card_named` is not.
        self._removed_card_names: set[str] = set()

    # ---- reporting
    def err(self, code: str, msg: str, pos: n.Pos, hint: str | None = None) -> None:
        self.diags.append(Diagnostic(code, msg, pos, hint))
        if len(self.diags) >= MAX_DIAGNOSTICS:
            self.diags[-1] = attrs.evolve(self.diags[-1], hint=f"{hint + '; ' if hint else ''}"
                                                               f"the checker stops after {MAX_DIAGNOSTICS} errors")
            raise _TooMany

    # ---- pass 1: collect and merge declarations
    def collect(self) -> None:
        named_maps = {
            n.OptionDecl: "options", n.KindDecl: "kinds", n.ZoneDecl: "zones", n.TokenDecl: "tokens",
            n.VarDecl: "vars", n.ConstDecl: "consts", n.DefineDecl: "defines", n.EventDecl: "events",
            n.ModifierDecl: "modifiers", n.ProcDecl: "procs", n.EnumDecl: "enum_decls",
        }
        self.enum_decls: dict[str, n.EnumDecl] = {}
        seen_pos: dict[str, tuple[n.Pos, tuple]] = {}
        for module in self.modules:
            for decl in module.decls:
                replace = False
                if isinstance(decl, n.ReplaceDecl):
                    replace, decl = True, decl.decl
                if isinstance(decl, n.GameDecl):
                    self.p.title = decl.title
                elif isinstance(decl, n.Players):
                    if decl.low < 1 or decl.high < decl.low or decl.high > 100:
                        self.err("E308", f"players {decl.low} to {decl.high} is not a valid range", decl.pos)
                    self.p.min_players, self.p.max_players = decl.low, decl.high
                elif isinstance(decl, n.SetupDecl):
                    if self.p.setup and not replace:
                        self.err("E200", "`setup` is declared twice", decl.pos, "use `replace setup:`")
                    self.p.setup = decl
                elif isinstance(decl, n.FlowDecl):
                    if self.p.flow and not replace:
                        self.err("E200", "`flow` is declared twice", decl.pos, "use `replace flow:`")
                    self.p.flow = decl
                elif isinstance(decl, n.ScoreDecl):
                    self.merge_score(decl, replace, module.path)
                elif isinstance(decl, n.TiebreakDecl):
                    self.p.tiebreak = decl
                elif isinstance(decl, n.TriggerDecl):
                    self.p.triggers.append(decl)
                elif isinstance(decl, n.InvariantDecl):
                    self.p.invariants.append(decl)
                elif isinstance(decl, n.ScenarioDecl):
                    self.p.scenarios.append(decl)
                elif isinstance(decl, n.RequireDecl):
                    self.p.requires.append(decl)
                elif isinstance(decl, n.WinnersDecl):
                    self.p.winners = decl
                elif isinstance(decl, n.TableDecl):
                    if self.p.table is not None and not replace:
                        self.err("E200", "`table` is declared twice", decl.pos, "use `replace table:`")
                    self.p.table = decl
                elif isinstance(decl, n.CardsDecl):
                    self.p.cards.append(decl)
                elif isinstance(decl, n.RemoveDecl):
                    self.remove(decl)
                elif type(decl) in named_maps:
                    attr = named_maps[type(decl)]
                    table = self.enum_decls if attr == "enum_decls" else getattr(self.p, attr)
                    if decl.name in seen_pos and not replace:
                        # Reported at whichever of the two comes later in reading order (an
                        # included file reads where its `include` line stands).
                        first, first_key = seen_pos[decl.name]
                        later, key = decl.pos, module.reading + (decl.pos.line, decl.pos.col)
                        if key < first_key:
                            first, later = later, first
                        self.err("E200", f"`{decl.name}` is declared twice (first at {first})",
                                 later, "use `replace` to change a declaration from another file")
                        continue
                    if replace and decl.name not in table:
                        self.err("E211", f"`replace` names `{decl.name}`, which is not declared", decl.pos,
                                 did_you_mean(decl.name, table))
                    seen_pos[decl.name] = (decl.pos, module.reading + (decl.pos.line, decl.pos.col))
                    table[decl.name] = decl
        if self.p.flow is None:
            self.err("E307", "the game has no `flow:` block", n.Pos(self.modules[0].path if self.modules
                                                                     else "<none>", 1, 1))

    def merge_score(self, decl: n.ScoreDecl, replace: bool, path: str) -> None:
        """Score blocks add up: a later file adds lines or replaces a line by its label;
        `replace score` replaces them all; the same label twice in one file is an error."""
        if replace or self.p.score is None:
            self.p.score = decl
            self.p.score_lines = [(line, decl.var) for line in decl.lines]
            self.score_files = {line.label: path for line in decl.lines}
            labels = [line.label for line in decl.lines]
            for line in decl.lines:
                if labels.count(line.label) > 1 and line is not next(x for x in decl.lines if x.label == line.label):
                    self.err("E200", f"score line `{line.label}` is declared twice", line.pos)
            return
        for line in decl.lines:
            known = [i for i, (old, _) in enumerate(self.p.score_lines) if old.label == line.label]
            if known and self.score_files.get(line.label) == path:
                self.err("E200", f"score line `{line.label}` is declared twice", line.pos,
                         "a later file (a house rule) may replace a line by its label")
            elif known:
                self.p.score_lines[known[0]] = (line, decl.var)
            else:
                self.p.score_lines.append((line, decl.var))
            self.score_files[line.label] = path

    def remove(self, decl: n.RemoveDecl) -> None:
        maps = {"kind": "kinds", "zone": "zones", "procedure": "procs", "option": "options",
                "modifier": "modifiers", "define": "defines", "var": "vars", "const": "consts"}
        if decl.what == "invariant":
            before = len(self.p.invariants)
            self.p.invariants = [inv for inv in self.p.invariants if inv.text != decl.name]
            if len(self.p.invariants) == before:
                self.err("E211", f"there is no invariant {decl.name!r} to remove", decl.pos,
                         did_you_mean(decl.name, [inv.text for inv in self.p.invariants]))
            return
        if decl.what == "score":
            before = len(self.p.score_lines)
            self.p.score_lines = [(line, var) for line, var in self.p.score_lines if line.label != decl.name]
            if len(self.p.score_lines) == before:
                self.err("E211", f"there is no score line `{decl.name}` to remove", decl.pos,
                         did_you_mean(decl.name, [line.label for line, _ in self.p.score_lines]))
            return
        if decl.what == "card":
            found = False
            tables = []
            for table in self.p.cards:
                if "name" in table.columns:
                    i = table.columns.index("name")
                    rows = tuple(r for r in table.rows
                                 if not (len(r.values) > i and getattr(r.values[i], "value", None) == decl.name))
                    found = found or len(rows) != len(table.rows)
                    table = attrs.evolve(table, rows=rows)
                tables.append(table)
            self.p.cards = tables
            self._removed_card_names.add(decl.name)
            if not found:
                names = [getattr(r.values[t.columns.index("name")], "value", "") for t in self.p.cards
                         if "name" in t.columns for r in t.rows if len(r.values) == len(t.columns)]
                self.err("E211", f"there is no card named {decl.name!r} to remove", decl.pos,
                         did_you_mean(decl.name, [str(x) for x in names]))
            return
        if decl.what == "cards":
            before = len(self.p.cards)
            for table in self.p.cards:
                if table.kind == decl.name and "name" in table.columns:
                    i = table.columns.index("name")
                    self._removed_card_names.update(str(getattr(r.values[i], "value", "")) for r in table.rows
                                                    if len(r.values) > i)
            self.p.cards = [c for c in self.p.cards if c.kind != decl.name]
            if len(self.p.cards) == before:
                self.err("E211", f"no cards of kind `{decl.name}` to remove", decl.pos)
            return
        if decl.what == "trigger":
            before = len(self.p.triggers)
            self.p.triggers = [t for t in self.p.triggers if t.event != decl.name]
            if len(self.p.triggers) == before:
                self.err("E211", f"no trigger on `{decl.name}` to remove", decl.pos)
            return
        attr = maps.get(decl.what)
        if attr is None:
            self.err("E211", f"cannot remove a `{decl.what}`", decl.pos,
                     did_you_mean(decl.what, list(maps) + ["cards", "card", "trigger", "score", "invariant"]))
            return
        table = getattr(self.p, attr)
        if decl.name not in table:
            self.err("E211", f"there is no {decl.what} `{decl.name}` to remove", decl.pos,
                     did_you_mean(decl.name, table))
            return
        del table[decl.name]

    def build_globals(self) -> None:
        g = self.globals
        for b in registry.NAMES:
            g[b.name] = ("builtin", b)
        display = self.p.display
        for name, e in self.enum_decls.items():
            if e.display:
                display[name] = e.display
            display.update({m: d for m, d in zip(e.members, e.member_display, strict=False) if d})
        for table in (self.p.kinds, self.p.zones, self.p.tokens, self.p.vars):
            display.update({name: decl.display for name, decl in table.items() if decl.display})
        for k in self.p.kinds.values():
            display.update({f"field:{f.name}": f.display for f in k.fields if f.display})
        for name, e in self.enum_decls.items():
            self.p.enums[name] = e.members
            g[name] = ("enum", name)
            for m, mpos in zip(e.members, e.member_pos, strict=False):
                if m in self.p.member_enum:
                    self.err("E200", f"enum member `{m}` is already a member of `{self.p.member_enum[m]}`", mpos)
                self.p.member_enum[m] = name
                g[m] = ("member", name)
        for cat, table in (("kind", self.p.kinds), ("zone", self.p.zones), ("token", self.p.tokens),
                           ("var", self.p.vars), ("const", self.p.consts), ("define", self.p.defines),
                           ("event", self.p.events), ("modifier", self.p.modifiers), ("proc", self.p.procs),
                           ("option", self.p.options)):
            for name, decl in table.items():
                if name in g and g[name][0] != cat:
                    self.err("E200", f"`{name}` is already the name of a {g[name][0]}", decl.pos)
                    continue
                if cat == "zone" and decl.per:
                    g[name] = ("pzone", decl)
                elif cat == "zone" and decl.member:
                    g[name] = ("fzone", decl)
                elif cat == "var" and decl.per:
                    g[name] = ("pvar" if decl.per == "player" else "cvar", decl)
                else:
                    g[name] = (cat, decl)
        for t in self.p.tokens.values():
            for pname, vals, ppos in t.props:
                if pname == "sides" and len(vals) == 2 and vals[0] == "of":
                    self.side_enums.add(str(vals[1]))  # its sides are the members: names already
                elif pname == "sides":
                    for side in vals:
                        if side in g and g[side][0] != "side":
                            self.err("E200", f"side `{side}` clashes with a {g[side][0]}", ppos)
                        g[side] = ("side", t.name)
        for o in self.p.options.values():
            if o.form == "simple" and o.choices[0] not in ("bool", "int"):
                o = attrs.evolve(o, form="choice")
                self.p.options[o.name] = o
                self.globals[o.name] = ("option", o)
            if o.form == "choice":
                for c in o.choices:
                    if c in g and g[c][0] not in ("choice",):
                        continue  # a name elsewhere already means something; compare by text then
                    g[c] = ("choice", o.name)
                    self.p.choice_values[c] = o.name

    # ---- pass 2: declarations
    def type_of_ref(self, t: n.TypeRef) -> str:
        if t.form == "name":
            if t.name in SIMPLE_TYPES or t.name == "zone":  # a zone: a parameter's or result's type
                return t.name
            if t.name in self.p.enums:
                return f"enum:{t.name}"
            if t.name in self.p.kinds:
                return "card"
            self.err("E204", f"unknown type `{t.name}`", t.pos,
                     did_you_mean(t.name, list(SIMPLE_TYPES) + list(self.p.enums) + list(self.p.kinds)))
            return "any"
        inner = t.name
        if t.form == "bag":
            if inner not in self.p.enums:
                self.err("E204", f"a bag holds enum members; `{inner}` is not an enum", t.pos,
                         did_you_mean(inner, self.p.enums))
                return "bag:any"
            return f"bag:{inner}"
        inner_t = self.type_of_ref(n.TypeRef("name", inner, t.pos))
        return f"list:{inner_t}"

    def check_unknown_among(self, v: n.VarDecl, want: str) -> None:
        """`unknown among LIST`: for a hidden var of the whole game, a list of its own type."""
        if v.visibility != "hidden" or v.per is not None:
            self.err("E209", f"`unknown among` says what a `hidden` var of the whole game may be; `{v.name}` is "
                             f"{'per ' + v.per if v.per else v.visibility}", v.unknown.pos,
                     "declare it `hidden` (the values it may have are for those who cannot read it)")
        got = self.expr(v.unknown, {})
        if got != "any" and not (got.startswith("list:") and _compatible(want, got[5:])):
            self.err("E302", f"`unknown among` takes a list of values of `{v.name}` ({want}), not {got}",
                     v.unknown.pos)

    def check_decls(self) -> None:
        p = self.p
        for o in p.options.values():
            self.check_option(o)
        for k in p.kinds.values():
            names = set()
            for f in k.fields:
                if f.name in names or f.name == "name":
                    self.err("E200", f"field `{f.name}` is declared twice in `{k.name}`", f.pos)
                names.add(f.name)
                self.type_of_ref(f.type)
            self.check_kind_face(k)
        for c in p.cards:
            self.check_cards(c)
        for z in p.zones.values():
            self.check_zone(z)
        for t in p.tokens.values():
            self.check_token(t)
        for v in p.vars.values():
            if v.per not in (None, "player", "card"):
                self.err("E209", f"`per {v.per}`: a var is global, `per player` or `per card`", v.pos)
            if v.visibility not in registry.VAR_VISIBILITY:
                self.err("E209", f"unknown visibility `{v.visibility}`: a var is public, owner or hidden",
                         v.visibility_pos or v.pos, did_you_mean(v.visibility, registry.VAR_VISIBILITY))
            elif v.visibility == "owner" and v.per is None:
                self.err("E209", f"`{v.name}` belongs to nobody, so it cannot be `owner`", v.visibility_pos or v.pos,
                         "use `hidden`, or make it `per player`")
            want = self.type_of_ref(v.type)
            if want in ("zone", "list:zone"):
                self.err("E204", "a var holds values, not zones", v.type.pos,
                         "pass a zone to a procedure or define (`z: zone`), or keep it in a `let`")
            got = self.expr(v.init, {})
            if not _compatible(want, got):
                self.err("E302", f"`{v.name}` is a {want} but starts as a {got}", v.init.pos)
            if v.unknown is not None:
                self.check_unknown_among(v, want)
        for c in p.consts.values():
            self.const_type(c.name)
        for d in p.defines.values():
            self.define_type(d.name)
        for e in p.events.values():
            for prm in e.params:
                self.type_of_ref(prm.type)
        for proc in p.procs.values():
            scope = {prm.name: self.type_of_ref(prm.type) for prm in proc.params}
            self._proc = proc
            self.block(proc.body, scope)
            self._proc = None
        if p.setup:
            self.block(p.setup.body, {})
        if p.flow:
            self.block(p.flow.body, {})
        for t in p.triggers:
            self.check_trigger(t)
        for line, var in p.score_lines:
            self.expect(line.value, {var: "player"}, "int")
        if p.tiebreak:
            for k in p.tiebreak.keys:
                self.expect(k, {p.tiebreak.var: "player"}, "int")
        for inv in p.invariants:
            self.expect(inv.value, {}, "bool")
        for sc in p.scenarios:
            self.check_scenario(sc)
        if p.winners is not None:
            self.expect(p.winners.value, {}, "list:player")
        if p.table is not None:
            for item in p.table.items:
                self.check_table_item(item, {"viewer": "player"})  # `viewer`: who looks at the table
        p.hidden_score_lines = {line.label for line, _ in p.score_lines if self.hidden_reads(line.value)}
        for req in p.requires:
            self.expect(req.value, {}, "bool")
            self.check_require_names(req.value)

    # ---- the table
    _TABLE_PLACES = {"section": (), "board": ("list:player",), "row": ("cards",), "places": ("list",),
                     "counter": ("any",), "track": ("int", "int"), "markers": ("int", "int", "list", "int"),
                     "grid": (), "line": ("list",), "score": ()}

    def check_table_item(self, item: n.TableItem, scope: dict) -> None:
        """Types of a table item's expressions, and that it shows nobody a hidden card."""
        if item.when is not None:
            self.expect(item.when, scope, "bool")
            self.refuse_hidden(item.when)
        inner = dict(scope)
        wants = self._TABLE_PLACES[item.kind]
        types = []
        for i, (e, want) in enumerate(zip(item.exprs, wants, strict=False)):
            if item.kind == "markers" and i == 3:
                inner[item.var] = elem_type(types[2])
                types.append(self.expect(e, inner, "int"))
            else:
                types.append(self.expect(e, scope, want))
            # A row may name a zone outright: its cards are then shown only to who may see them.
            if not (item.kind == "row" and i == 0 and self.is_zone_ref(e)):
                self.refuse_hidden(e)
        if item.kind == "board":
            inner[item.var] = "player"
        if item.note is not None:
            inner[item.var] = elem_type(types[0]) if types else "any"
            self.expr(item.note, inner)
            self.refuse_hidden(item.note)
        for child in item.children:
            self.check_table_item(child, inner)

    def is_zone_ref(self, e) -> bool:
        return self.p.resolved.get(id(e), ("",))[0] in ("zone", "pzone")

    def refuse_hidden(self, e) -> None:
        for zone, pos in self.hidden_reads(e)[:1]:
            self.err("E309", f"the table cannot show what is in `{zone}`: its cards are not public", pos,
                     f"show how many with `count({zone})`, or name the zone alone in a `row`")

    def hidden_reads(self, e, seen: set | None = None) -> list:
        """Where an expression (or a define it calls) reads the cards of a zone that is not public,
        other than counting them: [(zone, position)]."""
        seen = set() if seen is None else seen
        found: list = []

        def walk(x) -> None:
            if isinstance(x, n.Call) and x.func == "count" and len(x.args) == 1 and self.is_zone_ref(x.args[0]):
                return  # how many cards a zone holds is public
            cat, name = self.p.resolved.get(id(x), ("", None))
            if cat in ("zone", "pzone") and name in self.p.zones:
                vis = next((v for v, _, _ in self.p.zones[name].props if v in registry.ZONE_VISIBILITY), "public")
                if vis != "public":
                    found.append((name, x.pos))
            elif cat == "define" and name not in seen:
                seen.add(name)
                found.extend((z, x.pos) for z, _ in self.hidden_reads(self.p.defines[name].value, seen))
            if isinstance(x, (tuple, list)):
                for y in x:
                    walk(y)
            else:
                names = _WALKED_FIELDS.get(type(x))
                if names is None:
                    names = _walked_fields(type(x))
                for name in names:
                    walk(getattr(x, name))
        walk(e)
        return found

    def check_require_names(self, e) -> None:
        """A `require` may read options, constants and the player count, and nothing of a game."""
        allowed = {"option", "choice", "const", "member", "enum"}
        for node in _walk(e):
            if isinstance(node, n.Name) and node.id != "player_count":
                cat = self.p.resolved.get(id(node), ("",))[0]
                if cat not in allowed:
                    self.err("E304", f"`require` reads only options, constants and player_count; not `{node.id}`",
                             node.pos)
            elif isinstance(node, (n.Attr, n.Call)) and not (isinstance(node, n.Call) and node.func in
                                                             ("count", "any", "all", "max", "min", "abs")):
                self.err("E304", "`require` reads only options, constants and player_count", node.pos)

    def check_scenario(self, sc: n.ScenarioDecl) -> None:
        p = self.p
        if sc.players is not None and not (p.min_players <= sc.players <= p.max_players):
            self.err("E308", f"the game is for {p.min_players} to {p.max_players} players, not {sc.players}", sc.pos)
        for name, value in sc.options:
            o = p.options.get(name)
            if o is None:
                self.err("E201", f"unknown option `{name}`", value.pos, did_you_mean(name, p.options))
            elif o.form == "choice" and not (isinstance(value, n.Name) and value.id in o.choices):
                self.err("E210", f"option `{name}` is one of {', '.join(o.choices)}", value.pos)
            elif o.form != "choice" and not isinstance(value, n.Lit):
                self.err("E304", f"option `{name}` needs a constant", value.pos)
        for step in sc.steps:
            self.p.nodes_kept.append(step)
            if step.kind == "given":
                self.block(step.body, {})
            elif step.kind == "play":
                proc = p.procs.get(step.text)
                if proc is None:
                    self.err("E203", f"unknown procedure `{step.text}`", step.pos, did_you_mean(step.text, p.procs))
                    continue
                if len(step.args) != len(proc.params):
                    self.err("E300", f"`{step.text}` takes {len(proc.params)} argument(s), not {len(step.args)}",
                             step.pos)
                for a, prm in zip(step.args, proc.params, strict=False):
                    self.expect(a, {}, self.type_of_ref(prm.type))
            elif step.kind == "expect":
                self.expect(step.args[0], {}, "bool")
            if step.by is not None:
                self.expect(step.by, {}, "player")

    def check_option(self, o: n.OptionDecl) -> None:
        if o.form == "simple":
            kind = o.choices[0]
            if kind not in ("bool", "int") and isinstance(o.default, n.Name) and o.default.id == kind:
                return  # a choice with one value so far (more modes to come)
            if kind not in ("bool", "int"):
                self.err("E204", f"an option is `bool`, `int`, a range `1 to 4` or choices `a | b`; "
                                 f"not `{kind}`", o.pos)
                return
            if not isinstance(o.default, n.Lit) or (kind == "bool") != isinstance(o.default.value, bool):
                self.err("E302", f"option `{o.name}` needs a {kind} default", o.default.pos)
        elif o.form == "range":
            if o.low is None or o.high is None or o.low > o.high:
                self.err("E308", "an option range goes from low to high", o.pos)
            elif o.high - o.low >= MAX_OPTION_RANGE:
                self.err("E308", f"an option range has at most {MAX_OPTION_RANGE} values", o.pos)
            elif not (isinstance(o.default, n.Lit) and isinstance(o.default.value, int)
                      and o.low <= o.default.value <= o.high):
                self.err("E302", f"option `{o.name}` needs a default from {o.low} to {o.high}", o.default.pos)
        else:
            if not (isinstance(o.default, n.Name) and o.default.id in o.choices):
                self.err("E210", f"the default of `{o.name}` must be one of {', '.join(o.choices)}",
                         o.default.pos)

    def check_cards(self, c: n.CardsDecl) -> None:
        kind = self.p.kinds.get(c.kind)
        if kind is None:
            self.err("E205", f"unknown kind `{c.kind}`", c.pos, did_you_mean(c.kind, self.p.kinds))
            return
        fields = {f.name: self.type_of_ref(f.type) for f in kind.fields}
        fields["name"] = "text"
        fields.setdefault("text", "text")  # the card's rules text, optional
        fields["copies"] = "int"
        if "name" not in c.columns:
            self.err("E307", "a card table needs a `name` column", c.pos)
        for col in c.columns:
            if col not in fields:
                self.err("E202", f"`{col}` is not a field of `{c.kind}`", c.pos, did_you_mean(col, fields))
        missing = [f for f in fields if f not in c.columns and f not in ("copies", "text")]
        if missing:
            self.err("E307", f"the table of `{c.kind}` has no column for {', '.join(missing)}", c.pos)
        for row in c.rows:
            if len(row.values) != len(c.columns):
                self.err("E303", f"this row has {len(row.values)} values; the table has {len(c.columns)} "
                                 f"columns ({', '.join(c.columns)})", row.pos)
                continue
            scope: dict = {}
            for name, source in row.each:  # a series: its values may use the names (worked out at load)
                t = self.expr(source, scope)
                if not (t.startswith("list:") or t.startswith("enum_list:") or t == "any"):
                    self.err("E302", f"a series of cards goes through a list or an enum; this is a {t}",
                             source.pos)
                scope[name] = elem_type(t)
            for col, value in zip(c.columns, row.values, strict=False):
                before = len(self.diags)
                got = self.expr(value, scope)
                if len(self.diags) > before:
                    continue
                if not row.each and not self.is_constant(value):
                    self.err("E304", "card values must be constants", value.pos)
                    continue
                want = fields.get(col, "any")
                if not _compatible(want, got):
                    self.err("E302", f"`{col}` is a {want}; this is a {got}", value.pos)

    def is_constant(self, e) -> bool:
        if isinstance(e, n.Lit):
            return True
        if isinstance(e, n.Name):
            return self.globals.get(e.id, ("",))[0] in ("member", "const", "choice")
        if isinstance(e, n.ListLit):
            return all(self.is_constant(i) for i in e.items)
        if isinstance(e, n.MapLit):
            return all(self.is_constant(v) for _, v in e.items)
        if isinstance(e, n.Neg):
            return self.is_constant(e.operand)
        if isinstance(e, n.Index):  # an item of a const table: `ability_text[ability]`
            return self.is_constant(e.obj) and self.is_constant(e.index)
        return False

    def check_kind_face(self, k: n.KindDecl) -> None:
        """`face:` names attributes of the kind (or its `name` and `text`)."""
        fields = [f.name for f in k.fields] + ["name", "text"]
        for name in k.face:
            if name not in fields:
                self.err("E202", f"`face` names `{name}`, which is not a field of `{k.name}`",
                         k.face_pos or k.pos, did_you_mean(name, fields))
        if k.text is not None:
            scope = {f.name: self.type_of_ref(f.type) for f in k.fields}
            scope["name"] = "text"
            self.expect(k.text, scope, "text")

    def check_zone(self, z: n.ZoneDecl) -> None:
        if z.per not in (None, "player"):
            self.err("E209", f"`per {z.per}`: a zone is shared or `per player`", z.pos)
        if z.member is not None and z.member not in self.p.enums:
            self.err("E209", f"`per {z.member}`: a zone is shared, `per player`, or one per member of an enum",
                     z.pos, did_you_mean(z.member, list(self.p.enums) + ["player"]))
        vis = [name for name, _, _ in z.props if name in registry.ZONE_VISIBILITY]
        if len(vis) > 1:
            self.err("E209", f"zone `{z.name}` has more than one visibility", z.pos)
        for name, value, ppos in z.props:
            if name not in registry.ZONE_PROPERTIES:
                self.err("E209", f"unknown zone property `{name}`", ppos,
                         did_you_mean(name, registry.ZONE_PROPERTIES))
            elif name == "slots" and not isinstance(value, int):
                self.err("E308", "`slots` needs a number", ppos)
            elif name == "refill":
                # A shared zone refills from a shared zone; a player's zone from that player's own.
                other = self.p.zones.get(value) if isinstance(value, str) else None
                if other is None or bool(other.per) != bool(z.per):
                    which = "a per-player zone" if z.per else "a shared zone"
                    self.err("E201", f"`refill` needs {which}; `{value}` is not one", ppos,
                             did_you_mean(str(value), [k for k, v in self.p.zones.items()
                                                       if bool(v.per) == bool(z.per)]))
            elif name in (*registry.ZONE_VISIBILITY, "grid") and value is not None:
                self.err("E209", f"`{name}` takes no value", ppos)

    def check_token(self, t: n.TokenDecl) -> None:
        for name, values, ppos in t.props:
            if name not in registry.TOKEN_PROPERTIES:
                self.err("E209", f"unknown token property `{name}`", ppos,
                         did_you_mean(name, registry.TOKEN_PROPERTIES))
            elif name == "supply" and (len(values) != 1 or not isinstance(values[0], int)):
                self.err("E308", "`supply` needs one number", ppos)
            elif name == "sides" and len(values) == 2 and values[0] == "of":
                if values[1] not in self.p.enums:
                    self.err("E204", f"`sides of {values[1]}`: `{values[1]}` is not an enum", ppos,
                             did_you_mean(str(values[1]), self.p.enums))
            elif name == "sides" and (len(values) < 2 or not all(isinstance(v, str) for v in values)):
                self.err("E209", "`sides` names two or more sides, or `of ENUM`", ppos)
            elif name in ("public", "owner", "hidden") and values:
                self.err("E209", f"`{name}` takes no value", ppos)
        if len([name for name, _, _ in t.props if name in ("public", "owner", "hidden")]) > 1:
            self.err("E209", f"token `{t.name}` has more than one visibility", t.pos)

    def check_trigger(self, t: n.TriggerDecl) -> None:
        if t.event in BUILTIN_EVENTS:
            params = BUILTIN_EVENTS[t.event]
        elif t.event in self.p.events:
            params = tuple((prm.name, self.type_of_ref(prm.type)) for prm in self.p.events[t.event].params)
        else:
            self.err("E206", f"unknown event `{t.event}`", t.pos,
                     did_you_mean(t.event, list(self.p.events) + list(BUILTIN_EVENTS)))
            return
        if len(t.names) != len(params):
            self.err("E300", f"`{t.event}` has {len(params)} parameter(s); the trigger names {len(t.names)}",
                     t.pos)
        scope = {name: typ for name, (_, typ) in zip(t.names, params, strict=False)}
        if t.when is not None:
            self.expect(t.when, scope, "bool")
        self.block(t.body, dict(scope))

    def const_type(self, name: str) -> str:
        d = self.p.consts[name]
        known = self.p.types.get(id(d.value))
        if known is not None:
            return known
        if name in self._const_busy:
            self.err("E302", f"`{name}` is defined in terms of itself", d.pos)
            return "any"
        self._const_busy.add(name)
        t = self.expr(d.value, {})
        self._const_busy.discard(name)
        return t

    def define_type(self, name: str) -> str:
        if name in self.define_types:
            return self.define_types[name]
        if name in self._define_busy:
            d = self.p.defines[name]
            self.err("E302", f"`{name}` is defined in terms of itself", d.pos)
            return "any"
        self._define_busy.add(name)
        d = self.p.defines[name]
        scope = {prm.name: self.type_of_ref(prm.type) for prm in (d.params or ())}
        t = self.expr(d.value, scope)
        self._define_busy.discard(name)
        self.define_types[name] = t
        return t

    # ---- statements
    def block(self, stmts, scope: dict) -> None:
        scope = dict(scope)
        for s in stmts:
            self.stmt(s, scope)

    def stmt(self, s, scope: dict) -> None:  # noqa: C901 - one dispatch over statement kinds
        self.p.nodes_kept.append(s)
        if isinstance(s, n.Let):
            scope[s.name] = self.expr(s.value, scope)
            if scope[s.name].startswith("zones:"):
                self.err("E302", "this names a zone for each member of an enum: pick one, as in "
                                 f"`zone[{self.p.enums[scope[s.name][6:]][0]}]`", s.value.pos)
        elif isinstance(s, n.Set):
            self.check_set(s, scope)
        elif isinstance(s, n.Verb):
            self.check_verb(s, scope)
        elif isinstance(s, (n.Pass, n.EndGame, n.Fail)):
            pass
        elif isinstance(s, n.Return):
            self.check_return(s, scope)
        elif isinstance(s, n.Log):
            if s.audience is not None:
                self.expect(s.audience, scope, "audience")
            self.expr(s.text, scope)
        elif isinstance(s, n.Emit):
            ev = self.p.events.get(s.event)
            if ev is None:
                self.err("E206", f"unknown event `{s.event}`", s.pos, did_you_mean(s.event, self.p.events))
                return
            if len(s.args) != len(ev.params):
                self.err("E300", f"`{s.event}` takes {len(ev.params)} value(s), not {len(s.args)}", s.pos)
            for a, prm in zip(s.args, ev.params, strict=False):
                self.expect(a, scope, self.type_of_ref(prm.type))
        elif isinstance(s, n.Start):
            if s.modifier not in self.p.modifiers:
                self.err("E207", f"unknown modifier `{s.modifier}`", s.pos,
                         did_you_mean(s.modifier, self.p.modifiers))
            if s.unit not in registry.DURATIONS:
                self.err("E209", f"a modifier lasts until the end of a turn, round or game; not `{s.unit}`",
                         s.pos, did_you_mean(s.unit, registry.DURATIONS))
            if s.player is not None:
                self.expect(s.player, scope, "player")
        elif isinstance(s, n.If):
            for cond, body in s.branches:
                self.expect(cond, scope, "bool")
                self.block(body, scope)
            if s.orelse:
                self.block(s.orelse, scope)
        elif isinstance(s, n.For):
            t = self.expr(s.source, scope)
            if not (t.startswith("list:") or t == "zone" or t.startswith("enum_list:") or t == "any"):
                self.err("E302", f"`for` needs a list or a zone; this is a {t}", s.source.pos)
            inner = dict(scope)
            inner[s.var] = elem_type(t)
            self.block(s.body, inner)
        elif isinstance(s, n.While):
            self.expect(s.cond, scope, "bool")
            if s.limit is None:
                # Every loop is bounded (docs/limits.md): the author says how many times at most,
                # so a runaway loop stops with a message naming this line, not the step budget.
                self.err("E308", "a `while` loop needs a bound: `while ... max N:`", s.pos,
                         "add `max N` before the colon, N being the most times the loop may run")
            elif s.limit <= 0:
                self.err("E308", "`max` must be at least 1", s.pos)
            self.block(s.body, scope)
        elif isinstance(s, n.Repeat):
            self.expect(s.count, scope, "int")
            self.block(s.body, scope)
        elif isinstance(s, n.Simul):
            t = self.expect(s.source, scope, "list:player")
            inner = dict(scope)
            inner[s.var] = elem_type(t) if t != "any" else "player"
            outer, self._proc = self._proc, None  # each player's part is not the procedure's body
            self.block(s.body, inner)
            self._proc = outer
        elif isinstance(s, n.Turn):
            self.expect(s.player, scope, "player")
            self.block(s.body, scope)
        elif isinstance(s, n.Round):
            self.block(s.body, scope)
        elif isinstance(s, n.Pick):
            t = self.expr(s.source, scope)
            if not (t.startswith("list:") or t == "zone" or t.startswith("enum_list:") or t == "any"):
                self.err("E302", f"`choose` picks from a list or a zone; this is a {t}", s.source.pos)
            # Who chooses and the question are worked out before anything is picked.
            if s.by is not None:
                self.expect(s.by, scope, "player")
            if s.prompt is not None:
                self.expr(s.prompt, scope)
            scope[s.var] = elem_type(t)
            if s.cond is not None:
                self.expect(s.cond, scope, "bool")
            if s.label is not None:
                self.expr(s.label, scope)
        elif isinstance(s, n.Menu):
            if s.by is not None:
                self.expect(s.by, scope, "player")
            if s.prompt is not None:
                self.expr(s.prompt, scope)
            for o in s.options:
                self.p.nodes_kept.append(o)
                if o.each is not None:
                    o_scope = dict(scope)
                    t = self.expr(o.each[1], scope)
                    if not (t.startswith("list:") or t == "zone" or t.startswith("enum_list:") or t == "any"):
                        self.err("E302", f"options are made `for` each item of a list or a zone; this is a {t}",
                                 o.each[1].pos)
                    o_scope[o.each[0]] = elem_type(t)
                    self.menu_option(o, o_scope)
                else:
                    self.menu_option(o, scope)
        elif isinstance(s, n.May):
            if s.by is not None:
                self.expect(s.by, scope, "player")
            self.expr(s.prompt, scope)
            self.block(s.body, scope)
        else:  # pragma: no cover - the parser makes no other statements
            self.err("E306", f"unexpected statement {type(s).__name__}", s.pos)

    def menu_option(self, o: n.MenuOption, scope: dict) -> None:
        self.expr(o.label, scope)
        if o.when is not None:
            self.expect(o.when, scope, "bool")
        if o.cost is not None:
            self.expect(o.cost[0], scope, "int")
            if o.cost[1] not in self.p.tokens:
                self.err("E208", f"unknown token `{o.cost[1]}`", o.pos, did_you_mean(o.cost[1], self.p.tokens))
        if o.once is not None and o.once not in registry.ONCE_PER:
            self.err("E209", f"`once per {o.once}`: once per turn, round or game", o.pos)
        self.block(o.body, scope)

    def check_set(self, s: n.Set, scope: dict, check_value: bool = True) -> str | None:
        t = s.target
        if isinstance(t, n.Name):
            if t.id in scope:
                want = scope[t.id]
                self.p.resolved[id(t)] = ("local", t.id)
                if want in ("none", "list:any") and check_value:
                    # `let kept = none` (or `[]`): the first value set gives the local its type
                    got = self.expr(s.value, scope)
                    if got not in ("none", "any"):
                        scope[t.id] = got
                    self.p.nodes_kept.append(t)
                    return got
            elif self.globals.get(t.id, ("",))[0] == "var":
                want = self.type_of_ref(self.globals[t.id][1].type)
                self.p.resolved[id(t)] = ("var", t.id)
            else:
                cands = list(scope) + [k for k, v in self.globals.items() if v[0] == "var"]
                self.err("E305", f"`{t.id}` is not a variable that can be set", t.pos, did_you_mean(t.id, cands))
                return None
        elif isinstance(t, n.Attr):
            want = self.expr(t, scope)
            res = self.p.resolved.get(id(t))
            if not res or res[0] not in ("pvar", "cvar"):
                self.err("E305", f"`.{t.name}` cannot be set; only `var ... per player/card` values can", t.pos)
                return None
        elif isinstance(t, n.Index) and isinstance(t.obj, (n.Name, n.Attr)):
            container = self.check_set(n.Set(t.obj, "=", t.obj, t.pos), scope, check_value=False)
            if container is None:
                return
            want = self.expr(t, scope)
            if not (container.startswith("list:") or container.startswith("bag:") or container == "map"):
                self.err("E305", f"a {container} has no items to set", t.pos)
                return
        else:
            self.err("E305", "only a variable, `x.var` or an item `v[i]` of one can be set", s.pos)
            return
        self.p.nodes_kept.append(t)
        if not check_value:
            return want
        got = self.expr(s.value, scope)
        if s.op in ("+=", "-=") and not _compatible("int", want):
            self.err("E302", f"`{s.op}` needs a number; the target is a {want}", s.pos)
        elif not _compatible(want, got) and not (want.startswith("list:") and got.startswith("list:")):
            self.err("E302", f"the target is a {want}; the value is a {got}", s.value.pos)
        return want

    def check_return(self, s: n.Return, scope: dict) -> None:
        proc = self._proc
        if proc is None:
            self.err("E306", "`return` belongs in a procedure's own body (not in setup, flow, a trigger "
                             "or a player's part of `simultaneously`)", s.pos)
            if s.value is not None:
                self.expr(s.value, scope)
            return
        if proc.returns is None:
            if s.value is not None:
                self.err("E302", f"procedure `{proc.name}` gives back no value", s.value.pos,
                         f"declare it `procedure {proc.name}(...) returns TYPE:`")
                self.expr(s.value, scope)
            return
        if s.value is not None:
            self.expect(s.value, scope, self.type_of_ref(proc.returns))

    def check_verb(self, s: n.Verb, scope: dict) -> None:
        if s.name in self.p.procs:
            proc = self.p.procs[s.name]
            clauses = list(s.clauses)
            if clauses and clauses[-1][0] == "as" and proc.returns is not None:
                word, value = clauses.pop()
                if isinstance(value, n.Name):
                    scope[value.id] = self.type_of_ref(proc.returns)
                    self.p.resolved[id(value)] = ("bind", value.id)
                else:
                    self.err("E302", "`as` needs a plain name", value.pos)
            elif clauses and clauses[-1][0] == "as":
                self.err("E301", f"procedure `{s.name}` gives back no value to name with `as`", clauses[-1][1].pos,
                         f"declare it `procedure {s.name}(...) returns TYPE:` and end it with `return`")
                clauses.pop()
            if clauses or s.unit:
                self.err("E301", f"procedure `{s.name}` takes plain arguments: `{s.name} a, b`", s.pos)
            if len(s.args) != len(proc.params):
                self.err("E300", f"`{s.name}` takes {len(proc.params)} argument(s), not {len(s.args)}", s.pos,
                         f"procedure {_signature(s.name, proc.params)}")
            for a, prm in zip(s.args, proc.params, strict=False):
                self.expect(a, scope, self.type_of_ref(prm.type))
            self.p.resolved[id(s)] = ("proc", s.name)
            return
        b = registry.BY_NAME.get(s.name)
        if b is None or b.kind != "effect":
            cands = list(registry.EFFECT_NAMES) + list(self.p.procs)
            self.err("E203", f"unknown effect or procedure `{s.name}`", s.pos, did_you_mean(s.name, cands))
            for a in s.args:
                self.expr(a, scope)
            return
        self.p.resolved[id(s)] = ("effect", s.name)
        positional = [prm for prm in b.params if prm.clause is None]
        args = list(s.args)
        bound: dict[str, object] = {}
        if s.unit is not None:
            # `gain 1 coin ...`: the amount, then the token named after it.
            if len(positional) < 2 or positional[1].type != "token":
                self.err("E301", f"`{s.name}` does not take an amount of tokens", s.pos)
                return
            if s.unit not in self.p.tokens:
                self.err("E208", f"unknown token `{s.unit}`", s.pos, did_you_mean(s.unit, self.p.tokens))
            bound["token"] = s.unit
        need_pos = [prm for prm in positional if prm.name not in bound]
        if len(args) > len(need_pos) or len(args) < len([p for p in need_pos if not p.optional]):
            self.err("E300", f"`{s.name}` takes {len(need_pos)} value(s) before its clauses, not {len(args)}",
                     s.pos, self.verb_usage(b))
        for a, prm in zip(args, need_pos, strict=False):
            self.expect(a, scope, prm.type)
        by_clause = {prm.clause: prm for prm in b.params if prm.clause}
        used = set()
        for word, value in s.clauses:
            prm = by_clause.get(word)
            if prm is None:
                self.err("E301", f"`{s.name}` takes no `{word}` clause", value.pos, self.verb_usage(b))
                self.expr(value, scope)
                continue
            if word in used:
                self.err("E301", f"`{word}` is given twice", value.pos)
            used.add(word)
            if prm.type == "binding":
                if not isinstance(value, n.Name):
                    self.err("E302", "`as` needs a plain name", value.pos)
                else:
                    scope[value.id] = "list:card"
                    self.p.resolved[id(value)] = ("bind", value.id)
                continue
            if prm.type == "side":
                self.check_side(value, scope)
                continue
            self.expect(value, scope, prm.type)
        for word, prm in by_clause.items():
            if not prm.optional and word not in used:
                self.err("E301", f"`{s.name}` needs a `{word}` clause ({prm.doc})", s.pos, self.verb_usage(b))

    # ---- card names written as strings
    def card_names(self) -> set[str]:
        if self._card_names is None:
            self._card_names = set()
            for table in self.p.cards:
                if "name" in table.columns:
                    col = table.columns.index("name")
                    for row in table.rows:
                        if len(row.values) > col and isinstance(row.values[col], n.Lit):
                            self._card_names.add(str(row.values[col].value))
                        elif len(row.values) > col:  # a name made by a series: known only at load
                            self._names_incomplete = True
        return self._card_names

    def check_card_name(self, e, removed_ok: bool = False) -> None:
        """A string that must name a card is checked like any other name: a typo is an error
        now, with a suggestion, not a lookup that fails (or silently matches nothing) later."""
        if isinstance(e, n.ListLit):
            for item in e.items:
                self.check_card_name(item, removed_ok)
            return
        if removed_ok and getattr(e, "value", None) in self._removed_card_names:
            return
        if (isinstance(e, n.Lit) and isinstance(e.value, str) and e.value not in self.card_names()
                and not self._names_incomplete):
            self.err("E201", f"no card is named {e.value!r}", e.pos, did_you_mean(e.value, self.card_names()))

    def check_card_name_compare(self, e: n.Compare, left_type: str) -> None:
        """`c.name == "Old Mill"`, `c.name in ["A", "B"]`: the string side must be a card's name."""
        def is_card_name(x) -> bool:
            return (isinstance(x, n.Attr) and x.name == "name"
                    and self.p.types.get(id(x.obj), "").startswith("card"))
        if is_card_name(e.left):
            self.check_card_name(e.right, removed_ok=True)
        elif e.op in ("==", "!=") and is_card_name(e.right):
            self.check_card_name(e.left, removed_ok=True)

    def check_side(self, value, scope: dict | None = None) -> None:
        """A token side: a side's name, or, for a token with `sides of E`, any expression of enum E
        (`gain 1 pawn to b side s`)."""
        if self.side_enums and not (isinstance(value, n.Name) and self.globals.get(value.id, ("",))[0] == "side"):
            t = self.expr(value, dict(scope or {}))
            if t.startswith("enum:") and t[5:] in self.side_enums or t in ("any", "none"):
                return
            self.err("E201", f"expected a token side: a side's name or a member of "
                             f"{', '.join(sorted(self.side_enums))}; this is a {t}", value.pos)
            return
        if not isinstance(value, n.Name) or self.globals.get(value.id, ("",))[0] != "side":
            sides = [k for k, v in self.globals.items() if v[0] == "side"]
            self.err("E201", "expected the name of a token side", value.pos,
                     did_you_mean(getattr(value, "id", ""), sides))
        else:
            self.p.types[id(value)] = "side"
            self.p.resolved[id(value)] = ("side", value.id)
            self.p.nodes_kept.append(value)

    @staticmethod
    def verb_usage(b: registry.Builtin) -> str:
        parts = []
        for prm in b.params:
            piece = f"{prm.clause} <{prm.name}>" if prm.clause else f"<{prm.name}>"
            parts.append(f"[{piece}]" if prm.optional else piece)
        return f"usage: {b.name} {' '.join(parts)}"

    # ---- expressions
    def expect(self, e, scope: dict, want: str) -> str:
        got = self.expr(e, scope)
        if not _compatible(want, got):
            self.err("E302", f"expected a {want}, got a {got}", e.pos)
        return got

    def expr(self, e, scope: dict) -> str:
        self._depth += 1
        try:
            if self._depth > MAX_EXPR_DEPTH:
                if not self._too_deep:
                    self._too_deep = True
                    self.err("E308", f"expressions nested more than {MAX_EXPR_DEPTH} levels deep "
                                     "(counting through the defines and consts they use)", e.pos,
                             "split it with `let`, or use fewer definitions inside each other")
                t = "any"
            else:
                t = self._expr(e, scope)
        finally:
            self._depth -= 1
        self.p.types[id(e)] = t
        self.p.nodes_kept.append(e)
        return t

    def _expr(self, e, scope: dict) -> str:  # noqa: C901 - one dispatch over expression kinds
        if isinstance(e, n.Lit):
            v = e.value
            return ("bool" if isinstance(v, bool) else "int" if isinstance(v, int)
                    else "text" if isinstance(v, str) else "none")
        if isinstance(e, n.Template):
            for part in e.parts:
                if not isinstance(part, str):
                    self.expr(part, scope)
            return "text"
        if isinstance(e, n.Name):
            return self.name(e, scope)
        if isinstance(e, n.Attr):
            return self.attr(e, scope)
        if isinstance(e, n.Index):
            t = self.expr(e.obj, scope)
            if t.startswith("zones:"):  # one zone of a family, by its member
                self.expect(e.index, scope, "enum:" + t[6:])
                return "zone"
            if t.startswith("bag:"):
                self.expect(e.index, scope, "enum:" + t[4:])
                return "int"
            it = self.expr(e.index, scope)
            if t.startswith("list:") or t == "zone":
                if not _compatible("int", it):
                    self.err("E302", f"a list is indexed by a number, not a {it}", e.index.pos)
                return elem_type(t)
            if t.startswith("map:"):
                self.expr(e.index, scope)
                return t[4:]
            if t in ("map", "any"):
                return "any"
            self.err("E302", f"a {t} cannot be indexed", e.pos)
            return "any"
        if isinstance(e, n.Gen):
            return self.gen(e, scope)
        if isinstance(e, n.Call):
            return self.call(e, scope)
        if isinstance(e, n.BinOp):
            a, b = self.expr(e.left, scope), self.expr(e.right, scope)
            if e.op == "+" and a == "zone" and (b == "zone" or b.startswith("list:")):
                return "list:card"
            if e.op == "+" and (a.startswith("list:") or a.startswith("bag:")):
                return a
            if e.op == "-" and a.startswith("bag:"):
                return a
            for side, t in ((e.left, a), (e.right, b)):
                if not _compatible("int", t):
                    self.err("E302", f"`{e.op}` needs numbers; this is a {t}", side.pos)
            return "int"
        if isinstance(e, n.Compare):
            a = self.expr(e.left, scope)
            b = self.expr(e.right, scope)
            if e.op in ("==", "!=", "in", "notin"):
                self.check_card_name_compare(e, a)
            if e.op in ("in", "notin"):
                if not (b.startswith("list:") or b in ("zone", "any") or b.startswith("map") or b.startswith("bag:")
                        or b.startswith("enum_list:")):
                    self.err("E302", f"`in` needs a list or zone on its right; this is a {b}", e.right.pos)
            elif e.op in ("<", "<=", ">", ">="):
                for side, t in ((e.left, a), (e.right, b)):
                    if not _compatible("int", t):
                        self.err("E302", f"`{e.op}` compares numbers; this is a {t}", side.pos)
            return "bool"
        if isinstance(e, n.Is):
            self.expr(e.obj, scope)
            if e.kind not in self.p.kinds:
                self.err("E205", f"unknown kind `{e.kind}`", e.pos, did_you_mean(e.kind, self.p.kinds))
            return "bool"
        if isinstance(e, n.BoolOp):
            self.expr(e.left, scope)
            self.expr(e.right, scope)
            return "bool"
        if isinstance(e, n.Not):
            self.expr(e.operand, scope)
            return "bool"
        if isinstance(e, n.Neg):
            return self.expect(e.operand, scope, "int")
        if isinstance(e, n.Cond):
            self.expr(e.test, scope)
            a = self.expr(e.then, scope)
            b = self.expr(e.orelse, scope)
            return a if a not in ("none", "any") else b
        if isinstance(e, n.ListLit):
            named = next((i for i in e.items if isinstance(i, tuple)), None)
            if named is not None:  # `[x = 1]`: the grammar reads a call's named argument
                self.err("E306", f"a list holds values, not `{named[0]} = ...`", e.pos)
                return "list:any"
            types = [self.expr(i, scope) for i in e.items]
            if len(e.items) == 1 and isinstance(e.items[0], n.Gen):
                return types[0]
            first = next((t for t in types if t not in ("none", "any")), "any")
            return f"list:{first}"
        if isinstance(e, n.MapLit):
            keys = [k for k, _ in e.items]
            for _, v in e.items:
                self.expr(v, scope)
            enums = {self.p.member_enum.get(k) for k in keys if isinstance(k, str)}
            value_types = [self.p.types.get(id(v), "any") for _, v in e.items]
            if value_types and any(t != "int" for t in value_types):
                # A table from keys to other values (regions, lists): a map, indexed by its keys.
                first = next((t for t in value_types if t not in ("none", "any")), "any")
                return f"map:{first}"
            if keys and all(isinstance(k, str) for k in keys):
                if None in enums or len(enums) != 1:
                    bad = next((k for k in keys if k not in self.p.member_enum), keys[0])
                    self.err("E201", f"`{bad}` is not an enum member; a bag's keys are members of one enum",
                             e.pos, did_you_mean(str(bad), self.p.member_enum))
                    return "bag:any"
                return f"bag:{enums.pop()}"
            return "map"
        self.err("E306", f"unexpected expression {type(e).__name__}", e.pos)
        return "any"

    def name(self, e: n.Name, scope: dict) -> str:
        if e.id in scope:
            self.p.resolved[id(e)] = ("local", e.id)
            return scope[e.id]
        g = self.globals.get(e.id)
        if g is None:
            cands = list(scope) + [k for k, v in self.globals.items()
                                   if v[0] not in ("proc", "event", "pzone", "pvar", "cvar", "kind")]
            hint = did_you_mean(e.id, cands)
            pz = [k for k, v in self.globals.items() if v[0] in ("pzone", "pvar")]
            if e.id in pz:
                hint = f"`{e.id}` belongs to each player: write `p.{e.id}`"
            self.err("E201", f"unknown name `{e.id}`", e.pos, hint)
            return "any"
        cat, info = g
        self.p.resolved[id(e)] = (cat, e.id)
        if cat == "builtin":
            return norm_type(info.returns)
        if cat == "enum":
            return f"list:enum:{e.id}"
        if cat == "member":
            return f"enum:{info}"
        if cat == "option":
            o = info
            if o.form == "choice":
                return f"choice:{o.name}"
            return "int" if o.form == "range" or o.choices[0] == "int" else "bool"
        if cat == "choice":
            return f"choice:{info}"
        if cat == "const":
            return self.const_type(e.id)
        if cat == "var":
            return self.type_of_ref(info.type)
        if cat == "zone":
            return "zone"
        if cat == "fzone":  # `discard` names the zones; `discard[red]` is one of them
            return f"zones:{info.member}"
        if cat == "define":
            if info.params:
                self.err("E300", f"`{e.id}` takes arguments: `{e.id}(...)`", e.pos)
            return self.define_type(e.id)
        if cat in ("token", "modifier", "kind", "side"):
            return cat
        if cat in ("pzone", "pvar", "cvar"):
            self.err("E201", f"`{e.id}` belongs to each {'card' if cat == 'cvar' else 'player'}: "
                             f"write `p.{e.id}`", e.pos)
            return "any"
        self.err("E302", f"`{e.id}` is a {cat} and cannot be used as a value", e.pos)
        return "any"

    def attr(self, e: n.Attr, scope: dict) -> str:
        t = self.expr(e.obj, scope)
        name = e.name
        g = self.globals.get(name, ("", None))
        if t == "player":
            if g[0] == "pvar":
                self.p.resolved[id(e)] = ("pvar", name)
                return self.type_of_ref(g[1].type)
            if g[0] == "pzone":
                self.p.resolved[id(e)] = ("pzone", name)
                return f"zones:{g[1].member}" if g[1].member else "zone"
            if g[0] == "token":
                self.p.resolved[id(e)] = ("tokens", name)
                return "int"
            cands = [k for k, v in self.globals.items() if v[0] in ("pvar", "pzone", "token")]
        elif t == "card":
            fields = {}
            for k in self.p.kinds.values():
                for f in k.fields:
                    fields.setdefault(f.name, f.type)
            if name in ("name", "text"):
                self.p.resolved[id(e)] = ("field", name)
                return "text"
            if name in fields:
                self.p.resolved[id(e)] = ("field", name)
                return self.type_of_ref(fields[name])
            if g[0] == "cvar":
                self.p.resolved[id(e)] = ("cvar", name)
                return self.type_of_ref(g[1].type)
            if g[0] == "token":
                self.p.resolved[id(e)] = ("tokens", name)
                return "int"
            cands = list(fields) + ["name", "text"] + [k for k, v in self.globals.items() if v[0] in ("cvar", "token")]
        elif t.startswith("enum:") or t == "holder":
            if g[0] == "token":
                self.p.resolved[id(e)] = ("tokens", name)
                return "int"
            cands = list(self.p.tokens)
        elif t == "any":
            # The value's type is not known here (an item of a mixed list): go by the name,
            # which is unambiguous in most games, and say so when it is not.
            fields = {f.name: f.type for k in self.p.kinds.values() for f in k.fields}
            fields["name"] = n.TypeRef("name", "text", e.pos)
            if name in fields and g[0] not in ("pvar", "pzone"):
                self.p.resolved[id(e)] = ("field", name)
                return self.type_of_ref(fields[name])
            if g[0] in ("pvar", "pzone", "cvar") and name not in fields:
                self.p.resolved[id(e)] = (g[0], name)
                return "zone" if g[0] == "pzone" else self.type_of_ref(g[1].type)
            self.err("E202", f"cannot tell what `.{name}` means here: the value before the dot has no known type",
                     e.pos, "give it a type: take it from a typed list, or pass it to a typed parameter")
            return "any"
        else:
            self.err("E202", f"a {t} has no attribute `{name}`", e.pos)
            return "any"
        self.err("E202", f"a {t} has no `{name}`", e.pos, did_you_mean(name, cands))
        return "any"

    def gen(self, e: n.Gen, scope: dict) -> str:
        t = self.expr(e.source, scope)
        if not (t.startswith("list:") or t == "zone" or t == "any"):
            self.err("E302", f"`for ... in` needs a list or a zone; this is a {t}", e.source.pos)
        inner = dict(scope)
        inner[e.var] = elem_type(t)
        if e.cond is not None:
            self.expect(e.cond, inner, "bool")
        if e.elem is None:
            return f"list:{elem_type(t)}"
        return f"list:{self.expr(e.elem, inner)}"

    def call(self, e: n.Call, scope: dict) -> str:
        if e.func in self.p.defines:
            d = self.p.defines[e.func]
            params = d.params or ()
            if len(e.args) != len(params) or e.kwargs:
                self.err("E300", f"`{e.func}` takes {len(params)} argument(s), not {len(e.args)}", e.pos,
                         f"define {_signature(e.func, params)}")
            for a, prm in zip(e.args, params, strict=False):
                self.expect(a, scope, self.type_of_ref(prm.type))
            self.p.resolved[id(e)] = ("define", e.func)
            return self.define_type(e.func)
        b = registry.BY_NAME.get(e.func)
        if b is None or b.kind != "function":
            cands = list(registry.FUNCTION_NAMES) + list(self.p.defines)
            hint = did_you_mean(e.func, cands)
            if e.func in registry.EFFECT_NAMES or e.func in self.p.procs:
                hint = f"`{e.func}` is an effect: use it as a statement, not inside an expression"
            self.err("E203", f"unknown function `{e.func}`", e.pos, hint)
            for a in e.args:
                self.expr(a, scope)
            return "any"
        self.p.resolved[id(e)] = ("builtin", e.func)
        if e.func in ("card_named", "cards_named") and e.args:
            self.check_card_name(e.args[0])
        if e.kwargs:
            self.err("E300", f"`{e.func}` takes no named arguments", e.pos)
        arg_types = []
        if b.variadic and len(e.args) > 1:
            for a in e.args:
                arg_types.append(self.expect(a, scope, "int"))
            return norm_type(b.returns)
        need = [prm for prm in b.params if not prm.optional]
        if not (len(need) <= len(e.args) <= len(b.params)):
            self.err("E300", f"`{e.func}` takes {len(b.params)} argument(s), not {len(e.args)}", e.pos,
                     f"{e.func}({', '.join(prm.name for prm in b.params)}): {b.doc}")
        for a, prm in zip(e.args, b.params, strict=False):
            if prm.type == "kind":
                if not (isinstance(a, n.Name) and a.id in self.p.kinds):
                    self.err("E205", "expected the name of a kind", a.pos,
                             did_you_mean(getattr(a, "id", ""), self.p.kinds))
                else:
                    self.p.resolved[id(a)] = ("kind", a.id)
                    self.p.types[id(a)] = "kind"
                    self.p.nodes_kept.append(a)
                arg_types.append("kind")
            elif prm.type == "side":
                self.check_side(a, scope)
                arg_types.append("side")
            elif prm.type == "modifier":
                if not (isinstance(a, n.Name) and a.id in self.p.modifiers):
                    self.err("E207", "expected the name of a modifier", a.pos,
                             did_you_mean(getattr(a, "id", ""), self.p.modifiers))
                arg_types.append(self.expr(a, scope))
            else:
                arg_types.append(self.expect(a, scope, prm.type))
        if b.returns in ("any", "list") and arg_types:
            first = arg_types[0]
            if e.func in ("first", "last"):
                return elem_type(first)
            if e.func in ("reversed", "distinct", "take"):
                return "list:card" if first == "zone" else first
            if e.func == "flatten":
                inner = elem_type(first)
                if inner == "zone":
                    return "list:card"
                return inner if inner.startswith("list:") else "list:any"
        if e.func == "bag" and arg_types:
            inner = elem_type(arg_types[0])
            return "bag:" + inner[5:] if inner.startswith("enum:") else "bag:any"
        return norm_type(b.returns)


def _signature(name: str, params) -> str:
    """`build(p: player, h: card)`: how a wrong call is shown what it should have been."""
    def shown(t: n.TypeRef) -> str:
        return t.name if t.form == "name" else f"{t.form} of {t.name}"
    return f"{name}({', '.join(f'{prm.name}: {shown(prm.type)}' for prm in params)})"


_WALKED_FIELDS: dict[type, tuple[str, ...]] = {}  # class -> the fields hidden_reads walks (attrs.fields is slow)


def _walked_fields(kind: type) -> tuple[str, ...]:
    """The fields of an attrs class other than its position, () for any other class."""
    names = tuple(f.name for f in attrs.fields(kind) if f.name != "pos") if attrs.has(kind) else ()
    _WALKED_FIELDS[kind] = names
    return names


def _walk(e):
    yield e
    if attrs.has(type(e)):
        for f in attrs.fields(type(e)):
            v = getattr(e, f.name)
            if isinstance(v, tuple):
                for x in v:
                    if attrs.has(type(x)):
                        yield from _walk(x)
            elif attrs.has(type(v)) and not isinstance(v, n.Pos):
                yield from _walk(v)


def check_all(modules: list[n.Module]) -> tuple[Program, list[Diagnostic]]:
    """Check parsed modules; returns the Program as far as it could be checked and every
    diagnostic. An editor keeps using the Program (declarations, types) while errors remain."""
    c = _Checker(modules)
    try:
        c.collect()
        c.build_globals()
        c.check_decls()
    except _TooMany:
        pass
    if not c.diags:  # the information flow reads a checked program, so it runs once all is known
        from .flow import check_flows

        leaks, _ = check_flows(c.p)
        c.diags.extend(leaks[:MAX_DIAGNOSTICS])
    return c.p, c.diags


def check(modules: list[n.Module], sources: dict[str, str] | None = None) -> Program:
    """Check parsed modules; returns the Program or raises RuleError with every diagnostic."""
    program, diags = check_all(modules)
    if diags:
        raise RuleError(diags, sources)
    return program
