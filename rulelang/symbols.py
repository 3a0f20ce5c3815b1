"""Where every name of a game is declared and used, with exact positions.

The checker knows what each name means but keeps positions only where it reports errors; an
editor needs more: the span of every declared name and of every use, in every file of the
game, so that it can jump to a declaration, list the uses and rename. ``build_index`` reads
the parsed modules, their source texts and the checked ``Program`` (which may be partial when
the files still have errors) and returns an ``Index``.

How uses are found: each file's text is split into words (comments and strings set apart) and
each word is matched to a symbol. A word after a dot is an attribute (a field of a kind, a
per-player or per-card var or zone, a token); a word bound inside a declaration (a parameter,
`let`, `for`, `choose`, a comprehension, a trigger's names, `as`) is a local of that
declaration unless the checker resolved that very word to something global; any other word
that names a declaration of the game, or a built-in of the registry, refers to it. A string
that is exactly a card's name refers to that card.
"""

from __future__ import annotations

import bisect
import os
import re
from collections.abc import Iterator
from pathlib import Path

import attrs

from . import nodes as n
from . import registry
from .checker import BUILTIN_EVENTS, Program
from .lint import walk

_GRAMMAR = (Path(__file__).with_name("grammar.lark")).read_text(encoding="utf-8")
# Words the grammar spells out ("procedure", "to", "choose", ...): never a name of the game.
KEYWORDS = frozenset(re.findall(r'"([a-z_]+)"', _GRAMMAR)) | {"next", "may"}
_WORD = re.compile(r'(#[^\n]*)|("(?:[^"\\\n]|\\.)*")|([A-Za-z_][A-Za-z0-9_]*)|(\.)')
NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

# Categories of symbols, as shown to people.
GLOBAL_CATEGORIES = ("procedure", "zone", "var", "const", "define", "event", "modifier", "token", "kind",
                     "enum", "member", "option", "choice", "side")


@attrs.frozen(order=True)
class Span:
    """A name in a file: 1-based line and column, ``end`` the column just after it."""

    file: str
    line: int
    col: int
    end: int

    def contains(self, line: int, col: int) -> bool:
        return self.line == line and self.col <= col <= self.end


@attrs.frozen
class Symbol:
    """One declaration of a name. ``key`` identifies the thing named: a global's key is
    ``category:name``; a field's ``field:name``; a card's ``card:name``; a built-in's
    ``builtin:name``; a local's names the declaration it lives in."""

    key: str
    name: str
    category: str
    span: Span | None  # None for built-ins
    node: object = None  # the declaration (a ProcDecl, a Field, a CardRow, ...)
    owner: str | None = None  # the kind of a field, the enum of a member, the option of a choice


@attrs.frozen
class Occurrence:
    span: Span
    key: str
    is_decl: bool
    in_string: bool = False  # a card name written as a string: rename keeps the quotes


@attrs.define
class Index:
    symbols: dict[str, list[Symbol]] = attrs.Factory(dict)  # key -> its declarations
    occurrences: dict[str, list[Occurrence]] = attrs.Factory(dict)  # file -> sorted by position
    types: dict[tuple[str, int, int], str] = attrs.Factory(dict)  # a name's position -> its type
    program: Program | None = None
    sources: dict[str, str] = attrs.Factory(dict)  # file -> text
    top_level: dict[str, list[object]] = attrs.Factory(dict)  # file -> its declarations, in order

    def at(self, file: str, line: int, col: int) -> Occurrence | None:
        """The occurrence under a 1-based position (the column just after a name counts too)."""
        for occ in self.occurrences.get(file, ()):
            if occ.span.contains(line, col):
                return occ
        return None

    def references(self, key: str, include_decls: bool = True) -> list[Occurrence]:
        out = []
        for file in sorted(self.occurrences):
            out += [o for o in self.occurrences[file] if o.key == key and (include_decls or not o.is_decl)]
        return out

    def declarations(self, key: str) -> list[Symbol]:
        return self.symbols.get(key, [])

    def globals_named(self) -> dict[str, Symbol]:
        """Every global, field and card name of the game, one declaration each."""
        return {syms[0].key: syms[0] for syms in self.symbols.values() if syms and syms[0].span is not None}


def norm(path: str) -> str:
    """One spelling for every path, so that a file reached two ways is one file."""
    return os.path.realpath(path)


class _Lines:
    """Offsets <-> 1-based (line, column) of one text."""

    def __init__(self, text: str):
        self.text = text
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def pos(self, offset: int) -> tuple[int, int]:
        i = bisect.bisect_right(self.starts, offset) - 1
        return i + 1, offset - self.starts[i] + 1

    def offset(self, line: int, col: int) -> int:
        if line < 1 or line > len(self.starts):
            return len(self.text)
        return self.starts[line - 1] + max(col - 1, 0)


def _words(text: str) -> Iterator[tuple[str, int, str]]:
    """(kind, offset, text) for each name, string and dot of a rule file; comments skipped."""
    for m in _WORD.finditer(text):
        if m.group(1):
            continue
        if m.group(2):
            yield "string", m.start(), m.group(2)
        elif m.group(3):
            yield "name", m.start(), m.group(3)
        else:
            yield "dot", m.start(), "."


def _unwrap(decl):
    return decl.decl if isinstance(decl, n.ReplaceDecl) else decl


def _global_table(p: Program) -> dict[str, tuple[str, object]]:
    """name -> (category, declaration) for every name the game declares at the top level."""
    g: dict[str, tuple[str, object]] = {}
    for cat, table in (("option", p.options), ("kind", p.kinds), ("zone", p.zones), ("token", p.tokens),
                       ("var", p.vars), ("const", p.consts), ("define", p.defines), ("event", p.events),
                       ("modifier", p.modifiers), ("procedure", p.procs)):
        for name, decl in table.items():
            g.setdefault(name, (cat, decl))
    for name in p.enums:
        g.setdefault(name, ("enum", None))
    for member, enum in p.member_enum.items():
        g.setdefault(member, ("member", enum))
    for t in p.tokens.values():
        for pname, vals, _ in t.props:
            if pname == "sides":
                for side in vals:
                    g.setdefault(str(side), ("side", t.name))
    for choice, option in p.choice_values.items():
        g.setdefault(choice, ("choice", option))
    return g


def _fields(p: Program) -> dict[str, list[tuple[str, n.Field]]]:
    out: dict[str, list[tuple[str, n.Field]]] = {}
    for k in p.kinds.values():
        for f in k.fields:
            out.setdefault(f.name, []).append((k.name, f))
    return out


def card_name_column(table: n.CardsDecl) -> int | None:
    return table.columns.index("name") if "name" in table.columns else None


def _bindings(decl) -> set[str]:
    """The local names a declaration binds: parameters, `let`, loop and choice variables."""
    out: set[str] = set()
    for prm in getattr(decl, "params", None) or ():
        out.add(prm.name)
    if isinstance(decl, n.TriggerDecl):
        out.update(decl.names)
    if isinstance(decl, (n.ScoreDecl, n.TiebreakDecl)):
        out.add(decl.var)
    for node in walk(decl):
        if isinstance(node, n.Let):
            out.add(node.name)
        elif isinstance(node, (n.For, n.Gen, n.Simul, n.Pick)):
            out.add(node.var)
        elif isinstance(node, n.Verb):
            out.update(v.id for w, v in node.clauses if w == "as" and isinstance(v, n.Name))
    return out


class _Builder:
    def __init__(self, modules: list[n.Module], sources: dict[str, str], program: Program | None):
        self.modules = modules
        self.sources = {norm(k): v for k, v in sources.items()}
        self.p = program or Program()
        self.index = Index(program=program, sources=self.sources)
        self.lines = {f: _Lines(t) for f, t in self.sources.items()}
        self.globals = _global_table(self.p)
        self.fields = _fields(self.p)
        self.cards: set[str] = set()
        self.claimed: set[tuple[str, int, int]] = set()
        self.resolved: dict[tuple[str, int, int], tuple] = {}

    # ---- declarations
    def name_span(self, pos: n.Pos, name: str, after: str | None = None) -> Span | None:
        """The first `name` as a whole word at or after ``pos`` (after the word ``after``, if given)."""
        file = norm(pos.file)
        lines = self.lines.get(file)
        if lines is None or pos.line < 1:
            return None
        start = lines.offset(pos.line, pos.col)
        if after is not None:
            edge = r"\b" if after[:1].isalpha() else ""
            m = re.compile(rf"{edge}{re.escape(after)}{edge}").search(lines.text, start)
            if m is None:
                return None
            start = m.end()
        m = re.compile(rf"(?<![A-Za-z0-9_.]){re.escape(name)}(?![A-Za-z0-9_])").search(lines.text, start)
        if m is None:
            return None
        line, col = lines.pos(m.start())
        return Span(file, line, col, col + len(name))

    def declare(self, key: str, name: str, category: str, span: Span | None, node=None, owner=None,
                in_string: bool = False) -> None:
        if span is None:
            return
        self.index.symbols.setdefault(key, []).append(Symbol(key, name, category, span, node, owner))
        self.add(Occurrence(span, key, True, in_string))

    def add(self, occ: Occurrence) -> None:
        where = (occ.span.file, occ.span.line, occ.span.col)
        if where in self.claimed:
            return
        self.claimed.add(where)
        self.index.occurrences.setdefault(occ.span.file, []).append(occ)

    def declarations(self) -> None:
        named = (n.OptionDecl, n.KindDecl, n.ZoneDecl, n.TokenDecl, n.VarDecl, n.ConstDecl, n.DefineDecl,
                 n.EventDecl, n.ModifierDecl, n.ProcDecl, n.EnumDecl)
        categories = {n.OptionDecl: "option", n.KindDecl: "kind", n.ZoneDecl: "zone", n.TokenDecl: "token",
                      n.VarDecl: "var", n.ConstDecl: "const", n.DefineDecl: "define", n.EventDecl: "event",
                      n.ModifierDecl: "modifier", n.ProcDecl: "procedure", n.EnumDecl: "enum"}
        for m in self.modules:
            file = norm(m.path)
            self.index.top_level.setdefault(file, [])
            for outer in m.decls:
                self.index.top_level[file].append(outer)
                d = _unwrap(outer)
                if isinstance(d, named):
                    cat = categories[type(d)]
                    span = self.name_span(d.pos, d.name)
                    self.declare(f"{cat}:{d.name}", d.name, cat, span, d)
                if isinstance(d, n.EnumDecl):
                    for member, mpos in zip(d.members, d.member_pos, strict=False):
                        self.declare(f"member:{member}", member, "member",
                                     Span(norm(mpos.file), mpos.line, mpos.col, mpos.col + len(member)), d, d.name)
                elif isinstance(d, n.KindDecl):
                    for f in d.fields:
                        self.declare(f"field:{f.name}", f.name, "field", self.name_span(f.pos, f.name), f, d.name)
                elif isinstance(d, n.TokenDecl):
                    for pname, vals, ppos in d.props:
                        if pname == "sides":
                            for side in vals:
                                self.declare(f"side:{side}", str(side), "side", self.name_span(ppos, str(side),
                                                                                              "sides"), d, d.name)
                elif isinstance(d, n.OptionDecl) and d.form != "range":
                    for choice in d.choices:
                        if choice in self.p.choice_values or d.form == "choice":
                            self.declare(f"choice:{choice}", choice, "choice",
                                         self.name_span(d.pos, choice, after=":"), d, d.name)
                elif isinstance(d, n.CardsDecl):
                    self.card_table(d)
                elif isinstance(d, n.TriggerDecl):
                    if d.event in BUILTIN_EVENTS:
                        self.add_ref(self.name_span(d.pos, d.event), f"builtin_event:{d.event}")
                    for name in d.names:
                        self.add_ref(self.name_span(d.pos, name, after="("), self.local_key(file, d, name),
                                     is_decl=True, name=name)
                for prm in getattr(d, "params", None) or ():
                    self.add_ref(self.name_span(prm.pos, prm.name), self.local_key(file, d, prm.name),
                                 is_decl=True, name=prm.name)

    def card_table(self, d: n.CardsDecl) -> None:
        for col in d.columns:
            if col in self.fields:
                self.add_ref(self.name_span(d.pos, col, after="("), f"field:{col}")
        i = card_name_column(d)
        for row in d.rows:
            if i is None or i >= len(row.values):
                continue
            lit = row.values[i]
            if isinstance(lit, n.Lit) and isinstance(lit.value, str):
                span = Span(norm(lit.pos.file), lit.pos.line, lit.pos.col + 1, lit.pos.col + 1 + len(lit.value))
                self.cards.add(lit.value)
                self.declare(f"card:{lit.value}", lit.value, "card", span, row, d.kind, in_string=True)

    def add_ref(self, span: Span | None, key: str, is_decl: bool = False, name: str | None = None) -> None:
        if span is None:
            return
        if is_decl and key not in self.index.symbols:
            self.index.symbols[key] = [Symbol(key, name or key, "local", span)]
        self.add(Occurrence(span, key, is_decl))

    @staticmethod
    def local_key(file: str, decl, name: str) -> str:
        return f"local:{file}:{decl.pos.line}:{name}"

    # ---- uses
    def resolutions(self) -> None:
        """What the checker resolved each plain name to, and its type, by position."""
        for m in self.modules:
            for node in walk(m):
                if isinstance(node, n.Name) and node.pos.line > 0:
                    where = (norm(node.pos.file), node.pos.line, node.pos.col)
                    r = self.p.resolved.get(id(node))
                    if r is not None:
                        self.resolved[where] = r
                    t = self.p.types.get(id(node))
                    if t is not None:
                        self.index.types[where] = t

    def uses(self) -> None:
        for m in self.modules:
            file = norm(m.path)
            lines = self.lines.get(file)
            if lines is None:
                continue
            decls = [_unwrap(d) for d in m.decls]
            starts = [d.pos.line for d in decls]
            bound = [_bindings(d) for d in decls]
            previous = ""
            for kind, offset, word in _words(lines.text):
                line, col = lines.pos(offset)
                after_dot = previous == "dot"
                previous = kind
                if kind == "string":
                    text = word[1:-1]
                    if text in self.cards:
                        self.add(Occurrence(Span(file, line, col + 1, col + 1 + len(text)), f"card:{text}",
                                            False, True))
                    continue
                if kind != "name":
                    continue
                span = Span(file, line, col, col + len(word))
                i = bisect.bisect_right(starts, line) - 1
                key = self.key_of(word, after_dot, (file, line, col), decls[i] if i >= 0 else None,
                                  bound[i] if i >= 0 else set(), file)
                if key is not None:
                    if key.startswith("local:") and key not in self.index.symbols:
                        self.index.symbols[key] = [Symbol(key, word, "local", span)]
                        self.add(Occurrence(span, key, True))
                    else:
                        self.add(Occurrence(span, key, False))
        for occs in self.index.occurrences.values():
            occs.sort(key=lambda o: (o.span.line, o.span.col))

    def key_of(self, word: str, after_dot: bool, where, decl, bound: set[str], file: str) -> str | None:
        if after_dot:
            g = self.globals.get(word)
            if g is not None and g[0] in ("var", "zone", "token"):
                return f"{g[0]}:{word}"
            if word in self.fields:
                return f"field:{word}"
            return None
        r = self.resolved.get(where)
        if word in bound and decl is not None and (r is None or r[0] in ("local", "bind")):
            return self.local_key(file, decl, word)
        if word in KEYWORDS:
            return None
        g = self.globals.get(word)
        if g is not None:
            return f"{g[0]}:{word}"
        if word in registry.BY_NAME:
            return f"builtin:{word}"
        if word in BUILTIN_EVENTS:
            return f"builtin_event:{word}"
        return None


def build_index(modules: list[n.Module], sources: dict[str, str], program: Program | None) -> Index:
    """Every declaration and use of a name in the modules, with spans (see the module doc)."""
    b = _Builder(modules, sources, program)
    b.declarations()
    b.resolutions()
    b.uses()
    return b.index


def doc_comment(text: str, line: int) -> str:
    """The comment lines directly above a 1-based line, without their `#`."""
    lines = text.splitlines()
    out: list[str] = []
    i = line - 2
    while 0 <= i < len(lines) and lines[i].lstrip().startswith("#"):
        out.append(lines[i].lstrip()[1:].strip())
        i -= 1
    return "\n".join(reversed(out))
