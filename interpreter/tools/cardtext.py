"""``rulelang explain --card NAME``: a card as a player reads it.

First the card as printed: its kind, its copies and values, and its own rules text when the
game gives one. Then, for each value on it that the rules act on (an ability, a power, an
effect), what happens, in short sentences: the rule that tests the value, with the procedure
it calls spelled out once and anything deeper named, not expanded; the card's owner is "you".
Values the rules only count (equipment, icons) are named with the rules that count them.
``--full`` gives the exhaustive rendering of ``explain.explain_card`` instead.
"""

from __future__ import annotations

import re
from collections import Counter

from rulelang import nodes as n
from rulelang.checker import Program
from rulelang.lint import walk

from .explain import (
    INDENT,
    Explainer,
    _article,
    _card_noun,
    _members,
    _mentions,
    _quote,
    card_rows_named,
    load_program,
    shown_path,
    words,
)

__all__ = ["card_text"]

# After "you", the verbs the plain renderer writes in the third person.
_VERBS = {"chooses": "choose", "draws": "draw", "gains": "gain", "pays": "pay", "has": "have"}


class CardText(Explainer):
    """The plain renderer, speaking to the player who holds the card. ``alias`` maps local
    names to what they stand for here: the owner's name to "you", and, inside a procedure
    spelled out in place, each parameter to the value passed."""

    def __init__(self, program: Program, you: set[str] | None = None, alias: dict[str, str] | None = None,
                 calls: Counter | None = None, printed: bool = False):
        super().__init__(program)
        self.alias: dict[str, str] = {name: "you" for name in you or ()} | (alias or {})
        self.calls = calls if calls is not None else _call_counts(program)
        self.printed = printed  # the card's printed values: enum members by their display names

    def x_Name(self, e: n.Name) -> str:
        if self.printed and e.id in self.p.member_enum:
            return _shown(self.p, e.id)
        r = self.res(e)
        if e.id in self.alias and (r is None or r[0] == "local"):
            return self.alias[e.id]
        return super().x_Name(e)

    def x_Attr(self, e: n.Attr) -> str:
        owner = self.sub(e.obj)
        if owner == "you":
            return f"your {words(e.name)}"
        return super().x_Attr(e)

    def who(self, by) -> str:
        return self.expr(by) if by is not None else "you"

    def s_Verb(self, s: n.Verb, d: int, x: int) -> list[str]:
        r = self.res(s)
        proc = self.p.procs.get(s.name) if r is not None and r[0] == "proc" else None
        if proc is None:
            return super().s_Verb(s, d, x)
        args = [self.expr(arg) for arg in s.args]
        if x == 0 or self.calls[s.name] > 1:
            # A procedure further down, or one many rules share (a general mechanic, such as
            # moving up a track): named, not spelled out (`--full` spells it out).
            shown = [a for a in args if a != "you"]
            return self._line(d, words(s.name) + (f" for {', '.join(shown)}" if shown else ""))
        # The procedure a rule calls is what the card does: its steps, in place, each of its
        # parameters read as the value passed.
        before = self.alias
        self.alias = {prm.name: arg for prm, arg in zip(proc.params, args, strict=False)}
        try:
            return self.block(proc.body, d, x - 1)
        finally:
            self.alias = before


def _shown(p: Program, name: str, capital: bool = False) -> str:
    """A declared name as the game shows it to people: its display name, else its words."""
    shown = p.display.get(name)
    if shown:
        return shown
    return words(name)[:1].upper() + words(name)[1:] if capital else words(name)


def _field(p: Program, column: str) -> str:
    """A card table's column as the game shows it: the kind field's display name, else its words."""
    return p.display.get(f"field:{column}") or words(column)


def _call_counts(p: Program) -> Counter:
    """How many statements call each procedure, in every rule of the game."""
    roots = [proc.body for proc in p.procs.values()] + [t.body for t in p.triggers]
    roots += [d.body for d in (p.setup, p.flow) if d is not None]
    return Counter(node.name for root in roots for node in walk(root) if isinstance(node, n.Verb) and node.name in p.procs)


def _sentence(line: str) -> str:
    """One rendered line as a sentence: "you chooses" -> "You choose", a full stop at the end."""
    body = line.lstrip(" ")
    indent = line[:len(line) - len(body)]
    body = re.sub(r"\byou (\w+)", lambda m: "you " + _VERBS.get(m.group(1), m.group(1)), body)
    if body.startswith("you ") or " you " in body:
        body = body.replace(" into their ", " into your ")
    if body.startswith("- "):
        return indent + "- " + body[2:3].upper() + body[3:]
    body = body[:1].upper() + body[1:]
    if not body.endswith((":", ".", "?", "!")):
        body += "."
    return indent + body


def _names(e) -> set:
    """What an expression mentions (``explain._mentions``) and the defines it calls."""
    return _mentions(e) | {node.func for node in walk(e) if isinstance(node, n.Call)} if e is not None else set()


def _is_test_of(cond, member: str) -> bool:
    """A condition that picks out the value (`x == member`, `has(p, member)`): left unsaid,
    since the heading names the value."""
    return member in _names(cond)


def _selects(cond, wanted: str) -> bool:
    """Whether a condition picks out the value: it names it, and not only to exclude it
    (`if x != v:` runs for every other value)."""
    parts = [c for c in _and_parts(cond) if wanted in _names(c)]
    return any(not (isinstance(c, n.Not) or isinstance(c, n.Compare) and c.op in ("!=", "notin")) for c in parts)


def _and_parts(e) -> list:
    if isinstance(e, n.BoolOp) and e.op == "and":
        return _and_parts(e.left) + _and_parts(e.right)
    return [e]


def _player_params(params) -> set[str]:
    return {prm.name for prm in params or () if prm.type.form == "name" and prm.type.name == "player"}


def _containers(p: Program):
    """(where, body, the names that mean the card's owner) for every block of rules."""
    if p.setup is not None:
        yield "setup", p.setup.body, set()
    if p.flow is not None:
        yield "the flow", p.flow.body, set()
    for name, proc in p.procs.items():
        yield _quote(words(name)), proc.body, _player_params(proc.params)
    for t in p.triggers:
        yield f"whenever {_quote(words(t.event))} happens", t.body, {t.names[0]} if t.names else set()


def _branches(x: Explainer, body, member: str):
    """(condition or None, the block run for the value) for each rule in ``body`` that tests it."""
    for s in body:
        if isinstance(s, n.If):
            for cond, inner in s.branches:
                if _selects(cond, member):
                    yield cond, inner
                else:
                    yield from _branches(x, inner, member)
            if s.orelse:
                rest = x._other_members(s)
                if rest and member in rest[1]:
                    yield None, s.orelse
                else:
                    yield from _branches(x, s.orelse, member)
        elif isinstance(s, n.Menu):
            for o in s.options:
                if o.when is not None and _selects(o.when, member):
                    yield o, o.body
                else:
                    yield from _branches(x, o.body, member)
        elif hasattr(s, "body") and isinstance(s.body, tuple):
            yield from _branches(x, s.body, member)


def _what_it_does(p: Program, member: str) -> list[tuple[str, list[str]]]:
    """(heading, sentences) for each rule that acts on a value. A value that only a `const`
    list holds is followed one step: to the rules that test a `define` reading that list
    (`if is_special(a):`), read with the tested name as the value."""
    out = _rules_testing(p, member, member)
    if out or any(member in _mentions(d.value) for d in p.defines.values()):
        return out
    lists = {name for name, c in p.consts.items() if member in _mentions(c.value)}
    for name, d in p.defines.items():
        if lists & _mentions(d.value):
            out += _rules_testing(p, name, member, through=name)
    return out


def _rules_testing(p: Program, wanted: str, member: str, through: str | None = None
                   ) -> list[tuple[str, list[str]]]:
    out = []
    calls = _call_counts(p)
    for where, body, you in _containers(p):
        x = CardText(p, you, calls=calls)
        for cond, block in _branches(x, body, wanted):
            if through is not None and cond is not None and not isinstance(cond, n.MenuOption):
                # `if is_special(a):` reached with the card's value: `a` is that value here.
                tested = {a.id for c in _and_parts(cond) if isinstance(c, n.Call) and c.func == through
                          for a in c.args if isinstance(a, n.Name)}
                x = CardText(p, you, {name: words(member) for name in tested}, calls)
            when = ""
            if isinstance(cond, n.MenuOption):
                label = x.expr(cond.label).strip('"')
                rest = [c for c in _and_parts(cond.when) if not _is_test_of(c, wanted)]
                when = f"you may choose {_quote(label)}" + (
                    f" when {' and '.join(x.expr(c) for c in rest)}" if rest else "")
            elif cond is not None:
                rest = [c for c in _and_parts(cond) if not _is_test_of(c, wanted)]
                if rest:
                    when = "when " + " and ".join(x.expr(c) for c in rest)
            lines = [_sentence(line) for line in x.block(block, 1, 1)]
            heading = f"in {where}" + (f" (as {words(through)})" if through else "") + (f", {when}" if when else "")
            out.append((heading, lines))
    for t in p.triggers:
        if t.when is not None and _selects(t.when, wanted):
            x = CardText(p, {t.names[0]} if t.names else set())
            lines = [_sentence(line) for line in x.block(t.body, 1, 1)]
            out.append((f"whenever {_quote(words(t.event))} happens, if {x.expr(t.when)}", lines))
    return out


def _counted_in(p: Program, wanted: str) -> list[str]:
    """The defines, consts and score lines whose formula mentions a value."""
    names = [words(name) for name, d in p.defines.items() if wanted in _mentions(d.value)]
    names += [words(name) for name, c in p.consts.items() if wanted in _mentions(c.value)]
    names += [f"the score line {words(line.label)}" for line, _ in p.score_lines if wanted in _mentions(line.value)]
    return names


def _mentioned_in(p: Program, wanted: str) -> list[str]:
    """The procedures and triggers whose rules mention something (a kind, a card's name)."""
    out = []
    for where, body, _ in _containers(p):
        if any(wanted in _mentions(s) for s in body):
            out.append(where)
    return out


def _listing(items: list[str], limit: int = 6) -> str:
    if len(items) > limit:
        items = items[:limit] + [f"{len(items) - limit} more"]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _printed_texts(path: str, house: list[str] | None, card: str) -> list[str]:
    """The card's own rules text, as the game gives it (a `text` column, or a kind's `text:`
    line worked out by the engine); distinct texts in table order."""
    try:
        from interpreter.engine.api import load
    except ImportError:
        return []
    game = load(path, house=house) if house else load(path)
    text_of = getattr(game, "card_text", None)
    names = getattr(getattr(game, "compiled", None), "card_names", None)
    if text_of is None or names is None:
        return []
    texts = [text_of(i) for i, name in enumerate(names) if name == card]
    return [t for t in dict.fromkeys(texts) if t]


def card_text(path: str, card: str, house: list[str] | None = None) -> str:
    """A card as printed, then what the rules do with it, in short sentences."""
    p = load_program(path, house)
    rows = card_rows_named(p, card)
    x = CardText(p, printed=True)
    kind = rows[0][0].kind
    total = 0
    lines = []
    for _, _, values in rows:
        copies = values.get("copies")
        count = copies.value if isinstance(copies, n.Lit) and isinstance(copies.value, int) else 1
        total += count
        printed = "; ".join(f"{_field(p, col)} {x.expr(v)}" for col, v in values.items()
                            if col not in ("name", "copies", "text"))
        lines.append(f"{INDENT}{count} cop{'y' if count == 1 else 'ies'}: {printed or 'no printed values'}")
    out = [f"{card}: {_article(_card_noun(kind))}, {total} cop{'y' if total == 1 else 'ies'}"]
    if len(rows) > 1:
        out += lines
    elif not lines[0].endswith("no printed values"):
        out.append(INDENT + lines[0].split(": ", 1)[1])
    texts = [v.value for _, _, values in rows for col, v in values.items()
             if col == "text" and isinstance(v, n.Lit) and isinstance(v.value, str) and v.value]
    texts = list(dict.fromkeys(texts)) or _printed_texts(path, house, card)
    for text in texts:
        out += ["", f"{INDENT}{_quote(text)}"]
    members: list[tuple[str, str]] = []
    for _, _, values in rows:
        for col, v in values.items():
            for m in _members(p, v):
                if (col, m) not in members:
                    members.append((col, m))
    counted: list[tuple[str, str, list[str]]] = []
    for col, m in members:
        rules = _what_it_does(p, m)
        if not rules:
            where = _counted_in(p, m)
            if where:
                counted.append((col, m, where))
            continue
        title = f"{_shown(p, m, capital=True)} ({_field(p, col)})"
        for heading, sentences in rules[:3]:
            out += ["", f"{title}, {heading}:"] + sentences
        if len(rules) > 3:
            out.append(f"{INDENT}(and {len(rules) - 3} more rules; see --full)")
    for col, m, where in counted:
        out += ["", f"{_shown(p, m, capital=True)} ({_field(p, col)}) counts in {_listing(where)}."]
    named = _mentioned_in(p, f"text:{card}")
    if named:
        out += ["", f"The rules name {_quote(card)} in {_listing(named)}."]
    kind_rules = _mentioned_in(p, f"kind:{kind}")
    if kind_rules:
        out += ["", f"Every {_card_noun(kind)} is used in {_listing(kind_rules)}."]
    out += ["", f"(Every rule in full: rulelang explain {_shell_quote(shown_path(path))} --card {_shell_quote(card)} "
                "--full)"]
    return "\n".join(out)


def _shell_quote(text: str) -> str:
    return text if re.fullmatch(r"[\w./-]+", text) else '"' + text.replace('"', '\\"') + '"'

