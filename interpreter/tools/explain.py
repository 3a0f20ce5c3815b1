"""``rulelang explain``: the rules in plain English, generated from the syntax tree.

An author holds the output next to the printed rulebook or card: the turn structure (setup
and flow: rounds, turns, choices, loops), every procedure and trigger, the score, and for a
card its printed values and what they lead to. One method per node class of
:mod:`rulelang.nodes`: ``x_<Class>`` renders an expression as a phrase, ``s_<Class>`` a
statement as indented lines.

How a card's values are traced: every value printed on the card that is an enum member, the
card's name and its kind are looked up in the rules; each rule that tests one of them (an
``if`` branch, a menu option's condition, a ``define``) is shown, with the procedures it calls
spelled out one level deep.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from rulelang import nodes as n
from rulelang.checker import Program, check
from rulelang.diagnostics import did_you_mean
from rulelang.lint import walk
from rulelang.parser import load_sources

__all__ = ["Explainer", "explain_card", "explain_game", "load_program"]

INDENT = "  "
_COMPARE = {"==": "is", "!=": "is not", "<": "is less than", "<=": "is at most", ">": "is more than",
            ">=": "is at least", "in": "is in", "notin": "is not in"}
_BUILTIN_NAMES = {"players": "the players", "player_count": "the number of players",
                  "active_player": "the active player", "round_number": "the round number",
                  "turn_number": "the turn number", "supply": "the supply", "box": "the box",
                  "top": "the top", "bottom": "the bottom"}


def words(name: str) -> str:
    return name.replace("_", " ")


def _article(noun: str) -> str:
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def _possessive(owner: str) -> str:
    return owner + ("'" if owner.endswith("s") and not owner.endswith("'s") else "'s")


def _card_noun(kind: str) -> str:
    """A kind as a noun for its cards: `tile` -> "tile card", `bonus_tile` -> "bonus tile card"."""
    w = words(kind)
    return w if w.endswith("card") else f"{w} card"


def shown_path(path: str) -> str:
    """A file as people read it: relative to the current folder when it lies inside it."""
    try:
        rel = os.path.relpath(path)
    except ValueError:  # another drive
        return path
    return path if rel.startswith("..") else rel


def where(pos) -> str:
    return f"{shown_path(pos.file)}:{pos.line}:{pos.col}"


def _quote(text: str) -> str:
    return f"\u201c{text}\u201d"


def load_program(path: str, house: list[str] | None = None) -> Program:
    modules, sources = load_sources(str(path), [str(h) for h in house or []])
    return check(modules, sources)


class Explainer:
    """Renders the nodes of one checked program in plain English."""

    def __init__(self, program: Program):
        self.p = program

    # ---- helpers
    def res(self, node) -> tuple[str, str] | None:
        return self.p.resolved.get(id(node))

    def type_of(self, node) -> str:
        return self.p.types.get(id(node), "any")

    def is_player(self, node) -> bool:
        return self.type_of(node) == "player"

    def who(self, by) -> str:
        return self.expr(by) if by is not None else "the current player"

    # ---- expressions
    def expr(self, e) -> str:
        if e is None:
            return ""
        method = getattr(self, f"x_{type(e).__name__}", None)
        return method(e) if method else f"<{type(e).__name__}>"

    def sub(self, e) -> str:
        """An expression inside another: bracketed when it is itself made of parts."""
        text = self.expr(e)
        if isinstance(e, (n.BinOp, n.BoolOp, n.Cond)):
            return f"({text})"
        return text

    def x_Lit(self, e: n.Lit) -> str:
        v = e.value
        if isinstance(v, bool):
            return "true" if v else "false"
        if v is None:
            return "nothing"
        if isinstance(v, str):
            return f'"{v}"'
        return str(v)

    def x_Template(self, e: n.Template) -> str:
        return '"' + "".join(p if isinstance(p, str) else "{" + self.expr(p) + "}" for p in e.parts) + '"'

    def x_Name(self, e: n.Name) -> str:
        r = self.res(e)
        if r is None or r[0] == "local":
            return e.id
        cat, name = r
        if cat == "builtin":
            return _BUILTIN_NAMES.get(name, words(name))
        if cat == "enum":
            return f"every {words(name)}"
        return words(name)

    def x_Attr(self, e: n.Attr) -> str:
        return f"{_possessive(self.sub(e.obj))} {words(e.name)}"

    def x_Index(self, e: n.Index) -> str:
        obj = e.obj
        if isinstance(obj, n.Call) and obj.func == "bag" and len(obj.args) == 1:
            return f"the number of {self.expr(e.index)} in {self.sub(obj.args[0])}"
        if self.type_of(obj).startswith("bag:"):
            return f"the number of {self.expr(e.index)} in {self.sub(obj)}"
        return f"{self.sub(obj)}[{self.expr(e.index)}]"

    def x_Gen(self, e: n.Gen) -> str:
        where = f" where {self.expr(e.cond)}" if e.cond is not None else ""
        if e.elem is None or (isinstance(e.elem, n.Name) and e.elem.id == e.var):
            return f"each {e.var} in {self.sub(e.source)}{where}"
        return f"{self.expr(e.elem)} for each {e.var} in {self.sub(e.source)}{where}"

    def _over(self, arg) -> tuple[str, str]:
        """(what, over which items) of an aggregate's argument."""
        if isinstance(arg, n.Gen):
            where = f" where {self.expr(arg.cond)}" if arg.cond is not None else ""
            what = self.expr(arg.elem) if arg.elem is not None else arg.var
            return what, f"each {arg.var} in {self.sub(arg.source)}{where}"
        return "", self.sub(arg)

    def x_Call(self, e: n.Call) -> str:  # noqa: C901 - one phrase per built-in function
        r = self.res(e)
        args = [self.expr(a) for a in e.args]
        if r is not None and r[0] == "define":
            return words(e.func) + (f"({', '.join(args)})" if args else "")
        f = e.func
        a0 = e.args[0] if e.args else None
        if f == "count" and a0 is not None:
            if isinstance(a0, n.Gen) and a0.elem is None:
                where = f" where {self.expr(a0.cond)}" if a0.cond is not None else ""
                return f"the number of {a0.var} in {self.sub(a0.source)}{where}"
            return f"the number of cards in {args[0]}" if self.type_of(a0) == "zone" else f"the number of {args[0]}"
        if f in ("sum", "max", "min") and len(e.args) == 1:
            what, over = self._over(a0)
            word = {"sum": "the total of", "max": "the highest", "min": "the lowest"}[f]
            return f"{word} {what} over {over}" if what else f"{word} of {over}"
        if f in ("max", "min"):
            return f"the {'higher' if f == 'max' else 'lower'} of {' and '.join(args)}"
        if f in ("any", "all") and a0 is not None:
            what, over = self._over(a0)
            if not what:
                return f"{'any' if f == 'any' else 'all'} of {over}"
            return f"{what}, for {'some' if f == 'any' else 'every'} {over[5:]}"
        simple = {
            "first": "the first of {0}", "last": "the last of {0}", "reversed": "{0} in reverse order",
            "distinct": "the different items of {0}", "flatten": "everything in {0}",
            "range": "the numbers {0} to {1}", "lookup": "{0} at {1}", "take": "the first {1} of {0}",
            "index_of": "the place of {1} in {0}", "abs": "the size of {0}", "bag": "the counts of {0}",
            "size": "how many {0} holds", "shortfall": "what {1} lacks of {0}", "card_named": "the card {0}",
            "cards_named": "every card named {0}", "position": "the place of {0} in its zone",
            "left_of": "the cards left of {0}", "right_of": "the cards right of {0}",
            "adjacent": "{0} is next to {1}", "owner": "the owner of {0}", "zone_name": "the zone {0} is in",
            "players_from": "the players in turn order from {0}", "next_player": "the player after {0}",
            "previous_player": "the player before {0}", "others": "the players other than {0}",
            "rank_high": "the rank of {0} among {1}, highest first",
            "rank_low": "the rank of {0} among {1}, ties placed low",
            "rank_dense": "the rank of {0} among the different values of {1}",
        }
        if f == "cards" and a0 is not None:
            return f"every {_card_noun(getattr(a0, 'id', args[0]))}"
        if f == "tokens" and len(args) >= 2:
            side = f" (on the {args[2]} side)" if len(args) > 2 else ""
            if self.is_player(a0):
                return f"{_possessive(args[0])} {args[1]}{side}"
            place = "in" if args[0] == "the supply" else "on"
            return f"the {args[1]} {place} {args[0]}{side}"
        if f == "active" and args:
            return f"{_quote(args[0])} is in force" + (f" for {args[1]}" if len(args) > 1 else "")
        if f in simple and len(args) >= simple[f].count("{"):
            return simple[f].format(*args)
        return f"{words(f)}({', '.join(args)})"

    def x_BinOp(self, e: n.BinOp) -> str:
        a, b = self.sub(e.left), self.sub(e.right)
        if e.op == "/":
            return f"{a} / {b} (rounded down)"
        if e.op == "%":
            return f"the remainder of {a} / {b}"
        return f"{a} {e.op} {b}"

    def x_Compare(self, e: n.Compare) -> str:
        return f"{self.sub(e.left)} {_COMPARE.get(e.op, e.op)} {self.sub(e.right)}"

    def x_Is(self, e: n.Is) -> str:
        return f"{self.sub(e.obj)} is {'not ' if e.negate else ''}{_article(_card_noun(e.kind))}"

    def x_BoolOp(self, e: n.BoolOp) -> str:
        def part(x):
            bracket = isinstance(x, n.Cond) or (isinstance(x, n.BoolOp) and x.op != e.op)
            return f"({self.expr(x)})" if bracket else self.expr(x)
        return f"{part(e.left)} {e.op} {part(e.right)}"

    def x_Not(self, e: n.Not) -> str:
        if isinstance(e.operand, n.Call) and e.operand.func == "active":
            return self.expr(e.operand).replace(" is in force", " is not in force")
        return f"not {self.sub(e.operand)}"

    def x_Neg(self, e: n.Neg) -> str:
        return f"-{self.sub(e.operand)}"

    def x_Cond(self, e: n.Cond) -> str:
        return f"{self.sub(e.then)} if {self.expr(e.test)}, else {self.sub(e.orelse)}"

    def x_ListLit(self, e: n.ListLit) -> str:
        if len(e.items) == 1 and isinstance(e.items[0], n.Gen):
            text = self.expr(e.items[0])
            return "every " + text[5:] if text.startswith("each ") else f"[{text}]"
        return "[" + ", ".join(self.expr(i) for i in e.items) + "]"

    def x_MapLit(self, e: n.MapLit) -> str:
        return "{" + ", ".join(f"{words(str(k))}: {self.expr(v)}" for k, v in e.items) + "}"

    # ---- statements
    def block(self, body, depth: int, expand: int = 0) -> list[str]:
        out: list[str] = []
        for s in body:
            out += self.stmt(s, depth, expand)
        return out or [INDENT * depth + "nothing"]

    def stmt(self, s, depth: int, expand: int = 0) -> list[str]:
        method = getattr(self, f"s_{type(s).__name__}", None)
        if method is None:
            return [INDENT * depth + f"<{type(s).__name__}>"]
        return method(s, depth, expand)

    def _line(self, depth: int, text: str) -> list[str]:
        return [INDENT * depth + text]

    def s_Let(self, s: n.Let, d: int, x: int) -> list[str]:
        return self._line(d, f"let {s.name} be {self.expr(s.value)}")

    def s_Set(self, s: n.Set, d: int, x: int) -> list[str]:
        t, v = self.expr(s.target), self.expr(s.value)
        if s.op == "+=":
            return self._line(d, f"add {v} to {t}")
        if s.op == "-=":
            return self._line(d, f"subtract {v} from {t}")
        return self._line(d, f"set {t} to {v}")

    def _clauses(self, s: n.Verb) -> dict:
        return {word: value for word, value in s.clauses}

    def s_Verb(self, s: n.Verb, d: int, x: int) -> list[str]:  # noqa: C901 - one phrase per effect
        r = self.res(s) or ("effect", s.name)
        args = [self.expr(a) for a in s.args]
        if r[0] == "proc":
            head = f"carry out {_quote(words(s.name))}" + (f" for {', '.join(args)}" if args else "")
            named = self._clauses(s).get("as")
            if named is not None:
                head += f", calling what it gives back {self.expr(named)}"
            proc = self.p.procs.get(s.name)
            if x > 0 and proc is not None:
                renamed = [f"{prm.name} is {arg}" for prm, arg in zip(proc.params, args, strict=False)
                           if prm.name != arg]
                if renamed:
                    head += f" (in which {', '.join(renamed)})"
                return self._line(d, head + ":") + self.block(proc.body, d + 1, x - 1)
            return self._line(d, head)
        c = self._clauses(s)
        unit = words(s.unit) if s.unit else (args[1] if len(args) > 1 else "")
        if s.name == "move":
            where = self.expr(c.get("to"))
            at = c.get("at")
            pos = ""
            if at is not None:
                pos = {"the top": " on top", "the bottom": " at the bottom"}.get(self.expr(at),
                                                                                  f" at place {self.expr(at)}")
            return self._line(d, f"put {args[0]} in {where}{pos}")
        if s.name == "draw":
            count = self.sub(s.args[0]) if s.args else "1"
            cards = "1 card" if count == "1" else f"{count} cards"
            src = self.expr(c.get("from"))
            dst_node = c.get("to")
            named = f" (call them {self.expr(c['as'])})" if "as" in c else ""
            at = c.get("at")
            pos = f" at {self.expr(at)}" if at is not None else ""
            if isinstance(dst_node, n.Attr) and self.is_player(dst_node.obj):
                who = self.expr(dst_node.obj)
                return self._line(d, f"{who} draws {cards} from {src} into their {words(dst_node.name)}{pos}{named}")
            return self._line(d, f"draw {cards} from {src} onto {self.expr(dst_node)}{pos}{named}")
        if s.name == "shuffle":
            if "into" in c:
                return self._line(d, f"shuffle {args[0]} into {self.expr(c['into'])}")
            return self._line(d, f"shuffle {args[0]}")
        if s.name in ("gain", "pay", "flip"):
            amount = args[0] if args else "?"
            if " " in amount and not amount.startswith("("):
                amount = f"({amount})"
            side = c.get("side")
            if s.name == "gain":
                holder = c.get("to")
                src = f" from {self.expr(c['from'])}" if "from" in c else ""
                on = f" ({self.expr(side)} side up)" if side is not None else ""
                if holder is not None and self.is_player(holder):
                    return self._line(d, f"{self.expr(holder)} gains {amount} {unit}{src}{on}")
                return self._line(d, f"put {amount} {unit}{src or ' from the supply'} on {self.expr(holder)}{on}")
            if s.name == "pay":
                holder = c.get("from")
                to = f" to {self.expr(c['to'])}" if "to" in c else ""
                only = f" (only ones on the {self.expr(side)} side)" if side is not None else ""
                if holder is not None and self.is_player(holder):
                    return self._line(d, f"{self.expr(holder)} pays {amount} {unit}{to}{only}")
                return self._line(d, f"take {amount} {unit} from {self.expr(holder)}{to or ' to the supply'}{only}")
            holder = self.expr(c.get("from"))
            return self._line(d, f"turn {amount} of {_possessive(holder)} {unit} to the {self.expr(c.get('to'))} side")
        return self._line(d, f"{words(s.name)} {', '.join(args)}")

    def s_Pass(self, s: n.Pass, d: int, x: int) -> list[str]:
        return self._line(d, "nothing")

    def s_Return(self, s: n.Return, d: int, x: int) -> list[str]:
        if s.value is None:
            return self._line(d, "stop here")
        return self._line(d, f"stop here, giving back {self.expr(s.value)}")

    def s_EndGame(self, s: n.EndGame, d: int, x: int) -> list[str]:
        return self._line(d, "the game ends now")

    def s_Log(self, s: n.Log, d: int, x: int) -> list[str]:
        return []  # what the log says is for the players' eyes; the rules are the other lines

    def s_Fail(self, s: n.Fail, d: int, x: int) -> list[str]:
        return self._line(d, f"this must not happen (an error: {_quote(s.text)})")

    def s_Emit(self, s: n.Emit, d: int, x: int) -> list[str]:
        args = ", ".join(self.expr(a) for a in s.args)
        listeners = sum(1 for t in self.p.triggers if t.event == s.event)
        note = (f" (which sets off {listeners} trigger{'s' if listeners != 1 else ''})" if listeners
                else " (nothing listens to it)")
        return self._line(d, f"announce {_quote(words(s.event))}" + (f" for {args}" if args else "") + note)

    def s_Start(self, s: n.Start, d: int, x: int) -> list[str]:
        who = self.expr(s.player) if s.player is not None else None
        if s.unit == "game":
            until = "the end of the game"
        elif s.edge == "start":
            until = f"the start of {_possessive(who) + ' next' if who and s.unit == 'turn' else 'the next'} {s.unit}"
        elif who and s.unit == "turn":
            until = f"the end of {_possessive(who)} {'next ' if s.next else ''}turn"
        else:
            until = f"the end of {'the next' if s.next else 'this'} {s.unit}"
        return self._line(d, f"{_quote(words(s.modifier))} is in force" + (f" for {who}" if who else "") +
                          f" until {until}")

    def s_If(self, s: n.If, d: int, x: int) -> list[str]:
        out: list[str] = []
        for i, (cond, body) in enumerate(s.branches):
            out += self._line(d, f"{'if' if i == 0 else 'otherwise, if'} {self.expr(cond)}:")
            out += self.block(body, d + 1, x)
        if s.orelse:
            out += self._line(d, "otherwise:")
            out += self.block(s.orelse, d + 1, x)
        return out

    def s_For(self, s: n.For, d: int, x: int) -> list[str]:
        r = self.res(s.source)
        if r is not None and r[0] == "enum":
            head = f"for each {words(r[1])} {s.var}:"
        elif isinstance(s.source, n.Name) and s.source.id == "players":
            head = f"for each player {s.var}, in seat order:"
        else:
            head = f"for each {s.var} in {self.expr(s.source)}:"
        return self._line(d, head) + self.block(s.body, d + 1, x)

    def s_While(self, s: n.While, d: int, x: int) -> list[str]:
        limit = f" (at most {s.limit} times)" if s.limit else ""
        if isinstance(s.cond, n.Lit) and s.cond.value is True:
            return self._line(d, f"again and again{limit}:") + self.block(s.body, d + 1, x)
        return self._line(d, f"as long as {self.expr(s.cond)}{limit}:") + self.block(s.body, d + 1, x)

    def s_Repeat(self, s: n.Repeat, d: int, x: int) -> list[str]:
        count = self.sub(s.count)
        head = "once:" if count == "1" else "twice:" if count == "2" else f"{count} times:"
        return self._line(d, head) + self.block(s.body, d + 1, x)

    def s_Simul(self, s: n.Simul, d: int, x: int) -> list[str]:
        src = self.expr(s.source)
        return (self._line(d, f"all of {src} at the same time, each as {s.var} (nobody sees the others' "
                              "choices until all are done):") + self.block(s.body, d + 1, x))

    def s_Turn(self, s: n.Turn, d: int, x: int) -> list[str]:
        return self._line(d, f"{_possessive(self.expr(s.player))} turn:") + self.block(s.body, d + 1, x)

    def s_Round(self, s: n.Round, d: int, x: int) -> list[str]:
        return self._line(d, "a round:") + self.block(s.body, d + 1, x)

    def s_Pick(self, s: n.Pick, d: int, x: int) -> list[str]:
        who = self.who(s.by)
        elem = self.type_of(s.source)
        noun = "a card " if elem in ("zone", "list:card") else "a player " if elem == "list:player" else ""
        where = f" where {self.expr(s.cond)}" if s.cond is not None else ""
        prompt = f" ({_quote(self.expr(s.prompt).strip(chr(34)))})" if s.prompt is not None else ""
        verb = "may choose" if s.optional else "chooses"
        tail = ", or none" if s.optional else ""
        r = self.res(s.source)
        if r is not None and r[0] == "enum":
            return self._line(d, f"{who} {verb} {_article(words(r[1]))} {s.var}{where}{tail}{prompt}")
        return self._line(d, f"{who} {verb} {noun}{s.var} from {self.expr(s.source)}{where}{tail}{prompt}")

    def s_Menu(self, s: n.Menu, d: int, x: int) -> list[str]:
        prompt = f" ({_quote(self.expr(s.prompt).strip(chr(34)))})" if s.prompt is not None else ""
        out = self._line(d, f"{self.who(s.by)} chooses one{prompt}:")
        for o in s.options:
            out += self.option(o, d + 1, x)
        return out

    def option(self, o: n.MenuOption, d: int, x: int) -> list[str]:
        extra = []
        if o.when is not None:
            extra.append(f"only if {self.expr(o.when)}")
        if o.cost is not None:
            extra.append(f"paying {self.expr(o.cost[0])} {words(o.cost[1])}")
        if o.once is not None:
            extra.append(f"once per {o.once}")
        if o.each is not None:
            extra.insert(0, f"one for each {o.each[0]} in {self.expr(o.each[1])}")
        head = f"- {_quote(self.expr(o.label).strip(chr(34)))}" + (f" ({'; '.join(extra)})" if extra else "") + ":"
        return self._line(d, head) + self.block(o.body, d + 1, x)

    def s_May(self, s: n.May, d: int, x: int) -> list[str]:
        prompt = self.expr(s.prompt).strip('"')
        return (self._line(d, f"{self.who(s.by)} may say yes to {_quote(prompt)}; if so:")
                + self.block(s.body, d + 1, x))

    # ---- declarations
    def params(self, params) -> str:
        return ", ".join(f"{prm.name}: {words(prm.type.name)}" for prm in params or ())

    def procedure(self, proc: n.ProcDecl, expand: int = 0) -> list[str]:
        head = f"To {_quote(words(proc.name))}" + (f" ({self.params(proc.params)})" if proc.params else "")
        return [f"{head}:   [{where(proc.pos)}]"] + self.block(proc.body, 1, expand)

    def trigger(self, t: n.TriggerDecl, depth: int = 0, expand: int = 0, place: bool = True) -> list[str]:
        args = f" ({', '.join(t.names)})" if t.names else ""
        when = f", if {self.expr(t.when)}" if t.when is not None else ""
        at = f"   [{where(t.pos)}]" if place else ""
        return ([INDENT * depth + f"Whenever {_quote(words(t.event))} happens{args}{when}:{at}"]
                + self.block(t.body, depth + 1, expand))

    def structure(self) -> list[str]:
        out = []
        if self.p.setup is not None:
            out += ["Setup:"] + self.block(self.p.setup.body, 1)
        if self.p.flow is not None:
            out += ["Then the game goes:"] + self.block(self.p.flow.body, 1)
            out.append("(The game ends when this is done, or when a rule says the game ends.)")
        return out

    def scoring(self) -> list[str]:
        out = []
        if self.p.score_lines:
            var = self.p.score_lines[0][1]
            out.append(f"At the end, each player {var} scores the total of:")
            for line, _ in self.p.score_lines:
                out.append(f"{INDENT}- {words(line.label)}: {self.expr(line.value)}")
        if self.p.tiebreak is not None:
            keys = "; then ".join(self.expr(k) for k in self.p.tiebreak.keys)
            out.append(f"The highest total wins; ties go to the higher {keys}.")
        else:
            out.append("The highest total wins.")
        return out

    # ---- where the rules test a value
    def sites(self) -> Iterator[tuple[str, object, set]]:
        """(where, site, names mentioned) for every rule that could test a card's value."""
        containers: list[tuple[str, tuple]] = []
        if self.p.setup is not None:
            containers.append(("setup", self.p.setup.body))
        if self.p.flow is not None:
            containers.append(("the flow", self.p.flow.body))
        for name, proc in self.p.procs.items():
            containers.append((f"procedure {_quote(words(name))}", proc.body))
        for t in self.p.triggers:
            containers.append((f"the trigger on {_quote(words(t.event))}", t.body))
            if t.when is not None:
                yield f"the trigger on {_quote(words(t.event))}", t, _mentions(t.when)
        for where, body in containers:
            yield from self._stmt_sites(where, body)
        for name, dfn in self.p.defines.items():
            yield f"define {_quote(words(name))}", dfn, _mentions(dfn.value)
        for name, const in self.p.consts.items():
            yield f"const {_quote(words(name))}", const, _mentions(const.value)
        for line, _ in self.p.score_lines:
            yield "the score", line, _mentions(line.value)

    def _stmt_sites(self, where: str, body) -> Iterator[tuple[str, object, set]]:
        for s in body:
            if isinstance(s, n.If):
                for cond, inner in s.branches:
                    yield where, ("branch", cond, inner), _mentions(cond)
                    yield from self._stmt_sites(where, inner)
                if s.orelse:
                    rest = self._other_members(s)
                    if rest:
                        yield where, ("else", rest, s.orelse, s.pos), set(rest[1])
                    yield from self._stmt_sites(where, s.orelse)
            elif isinstance(s, n.Menu):
                for o in s.options:
                    yield where, o, _mentions(o.when) | _mentions(o.label)
                    yield from self._stmt_sites(where, o.body)
            elif isinstance(s, (n.For, n.While, n.Repeat, n.Simul, n.Turn, n.Round, n.May)):
                head = [getattr(s, f) for f in ("source", "cond", "count", "player", "prompt") if hasattr(s, f)]
                yield where, s, set().union(*(_mentions(h) for h in head))
                yield from self._stmt_sites(where, s.body)
            else:
                exprs = [c for c in _expr_children(s)]
                yield where, s, set().union(*(_mentions(h) for h in exprs)) if exprs else set()

    def focused(self, e, wanted: set) -> str | None:
        """Only the cases of an `or` chain or an `if ... else` chain that mention ``wanted``."""
        if isinstance(e, n.BoolOp) and e.op == "or":
            parts = _flatten_or(e)
            keep = [x for x in parts if _mentions(x) & wanted]
            if 0 < len(keep) < len(parts):
                return " or ".join(self.sub(x) for x in keep) + " (among other cases)"
        if isinstance(e, n.Cond):
            chain = []
            while isinstance(e, n.Cond):
                chain.append((e.test, e.then))
                e = e.orelse
            keep = [(t, v) for t, v in chain if _mentions(t) & wanted]
            if keep and len(keep) < len(chain):
                return "; ".join(f"{self.expr(v)} if {self.expr(t)}" for t, v in keep) + " (among other cases)"
        return None

    def _other_members(self, s: n.If) -> tuple[str, list[str]] | None:
        """For `if x == a: ... elif x == b: ... else: ...` over one enum: (x, the other members)."""
        subject, enum, seen = None, None, []
        for cond, _ in s.branches:
            if not (isinstance(cond, n.Compare) and cond.op == "==" and isinstance(cond.right, n.Name)
                    and cond.right.id in self.p.member_enum):
                return None
            text = self.expr(cond.left)
            if subject not in (None, text) or enum not in (None, self.p.member_enum[cond.right.id]):
                return None
            subject, enum = text, self.p.member_enum[cond.right.id]
            seen.append(cond.right.id)
        rest = [m for m in self.p.enums.get(enum, ()) if m not in seen]
        return (subject, rest) if subject and rest else None

    def site(self, site, depth: int, wanted: set | None = None) -> list[str]:
        if isinstance(site, tuple) and site[0] == "else":
            _, (subject, members), body, _ = site
            which = " or ".join(words(m) for m in members)
            return self._line(depth, f"otherwise (when {subject} is {which}):") + self.block(body, depth + 1, 1)
        if isinstance(site, tuple):
            _, cond, body = site
            return self._line(depth, f"if {self.expr(cond)}:") + self.block(body, depth + 1, 1)
        if isinstance(site, n.MenuOption):
            return self.option(site, depth, 1)
        if isinstance(site, n.DefineDecl):
            params = f"({', '.join(prm.name for prm in site.params)})" if site.params else ""
            text = (self.focused(site.value, wanted) if wanted else None) or self.expr(site.value)
            if len(text) > 300:
                text = text[:297] + "..."
            return self._line(depth, f"{words(site.name)}{params} means: {text}")
        if isinstance(site, n.TriggerDecl):
            return self.trigger(site, depth, 1, place=False)
        if isinstance(site, n.ConstDecl):
            return self._line(depth, f"{words(site.name)} is {self.expr(site.value)}")
        if isinstance(site, n.ScoreLine):
            return self._line(depth, f"score line {words(site.label)}: {self.expr(site.value)}")
        lines = self.stmt(site, depth, 0)
        if isinstance(site, (n.For, n.While, n.Repeat, n.Simul, n.Turn, n.Round, n.May)):
            return lines[:1] + [INDENT * (depth + 1) + "..."]
        return lines


def _expr_children(s) -> list:
    return [c for c in _fields(s) if not isinstance(c, (tuple, n.Pos))]


def _fields(s) -> list:
    out = []
    for name in getattr(type(s), "__attrs_attrs__", ()):
        v = getattr(s, name.name)
        if isinstance(v, tuple):
            for item in v:
                if isinstance(item, tuple):
                    out += [i for i in item if hasattr(type(i), "__attrs_attrs__")]
                elif hasattr(type(item), "__attrs_attrs__"):
                    out.append(item)
        elif hasattr(type(v), "__attrs_attrs__"):
            out.append(v)
    return out


def _flatten_or(e) -> list:
    if isinstance(e, n.BoolOp) and e.op == "or":
        return _flatten_or(e.left) + _flatten_or(e.right)
    return [e]


def _mentions(e) -> set:
    """The names, kinds (`kind:K`) and texts (`text:T`) an expression mentions."""
    out: set = set()
    if e is None:
        return out
    for node in walk(e):
        if isinstance(node, n.Name):
            out.add(node.id)
        elif isinstance(node, n.Is):
            out.add(f"kind:{node.kind}")
        elif isinstance(node, n.Lit) and isinstance(node.value, str):
            out.add(f"text:{node.value}")
    return out


# --------------------------------------------------------------------------- whole pages


def explain_game(path: str, house: list[str] | None = None) -> str:
    """The whole game: players and options, setup and flow, procedures, triggers, card effects,
    the score."""
    p = load_program(path, house)
    x = Explainer(p)
    out = [p.title, "=" * len(p.title), f"For {p.min_players} to {p.max_players} players."
           if p.min_players != p.max_players else f"For {p.min_players} players."]
    if p.options:
        out.append("Options:")
        for o in p.options.values():
            default = x.expr(o.default)
            values = " | ".join(words(c) for c in o.choices) if o.form == "choice" else (
                f"{o.low} to {o.high}" if o.form == "range" else o.choices[0])
            out.append(f"{INDENT}- {words(o.name)} ({values}; normally {default})" + (f": {o.doc}" if o.doc else ""))
    requires = list(getattr(p, "requires", ()))
    if requires:
        out.append("Allowed combinations:")
        out += [f"{INDENT}- {r.message} (needs: {x.expr(r.value)})" for r in requires]
    out += ["", "How a game goes", "---------------"] + x.structure()
    out += ["", "Procedures", "----------"]
    for proc in p.procs.values():
        out += x.procedure(proc) + [""]
    if p.triggers:
        out += ["Triggers", "--------"]
        for t in p.triggers:
            out += x.trigger(t) + [""]
    effects = card_effects(x)
    if effects:
        out += ["Card effects", "------------"] + effects + [""]
    out += ["Scoring", "-------"] + x.scoring()
    if p.invariants:
        out += ["", "Always true (checked by tests and `rulelang validate`):"]
        out += [f"{INDENT}- {inv.text}" for inv in p.invariants]
    return "\n".join(out)


def _card_rows(p: Program) -> list[tuple[n.CardsDecl, n.CardRow, dict]]:
    rows = []
    for table in p.cards:
        for row in table.rows:
            values = dict(zip(table.columns, row.values, strict=False))
            rows.append((table, row, values))
    return rows


def _members(p: Program, value) -> list[str]:
    """The enum members a printed value names (one, or the items of a list)."""
    if isinstance(value, n.Name) and value.id in p.member_enum:
        return [value.id]
    if isinstance(value, n.ListLit):
        return [i.id for i in value.items if isinstance(i, n.Name) and i.id in p.member_enum]
    return []


def _effect_lines(x: Explainer, wanted: set, depth: int, skip_kinds: bool = False,
                  limit: int = 12) -> list[str]:
    out: list[str] = []
    shown = 0
    covered: set[int] = set()  # the nodes inside the sites shown so far: not shown twice
    for where, site, mentions in x.sites():
        if not (mentions & wanted):
            continue
        key = site[2] if isinstance(site, tuple) and site[0] == "else" else (
            site[1] if isinstance(site, tuple) else site)
        if id(key) in covered:
            continue
        if skip_kinds and not any(not m.startswith("kind:") for m in mentions & wanted):
            continue
        if shown >= limit:
            out.append(INDENT * depth + "... (more rules mention it)")
            break
        out.append(INDENT * depth + f"in {where}:   [{_site_pos(site)}]")
        out += x.site(site, depth + 1, wanted)
        covered.update(id(node) for node in walk(site[2] if isinstance(site, tuple) else site))
        shown += 1
    return out


def _site_pos(site) -> str:
    if isinstance(site, tuple) and site[0] == "else":
        return where(site[3])
    if isinstance(site, tuple):
        return where(site[1].pos)
    return where(site.pos)


def card_effects(x: Explainer) -> list[str]:
    """For each kind, each enum value printed on its cards and the rules that test it."""
    p = x.p
    out: list[str] = []
    by_value: dict[tuple[str, str, str], list[str]] = {}
    for table, _, values in _card_rows(p):
        name = getattr(values.get("name"), "value", "?")
        for col, value in values.items():
            for m in _members(p, value):
                by_value.setdefault((table.kind, col, m), [])
                if name not in by_value[(table.kind, col, m)]:
                    by_value[(table.kind, col, m)].append(name)
    for (kind, col, member), names in by_value.items():
        lines = _effect_lines(x, {member}, 2, limit=4)
        if not lines:
            continue
        shown = ", ".join(names[:6]) + (f", ... ({len(names)} cards)" if len(names) > 6 else "")
        out.append(f"{_card_noun(kind)}s with {words(col)} {words(member)} ({shown}):")
        out += lines
    return out


def card_rows_named(p: Program, card: str) -> list[tuple[n.CardsDecl, n.CardRow, dict]]:
    """Every row printed with a card's name; a ValueError with a suggestion when there is none."""
    rows = [(t, r, v) for t, r, v in _card_rows(p) if getattr(v.get("name"), "value", None) == card]
    if not rows:
        names = {str(getattr(v.get("name"), "value", "")) for _, _, v in _card_rows(p)}
        hint = did_you_mean(card, names)
        raise ValueError(f"no card named {card!r}" + (f"; {hint}" if hint else ""))
    return rows


def explain_card(path: str, card: str, house: list[str] | None = None) -> str:
    """One card: every row printed with that name, and the rules its values lead to."""
    p = load_program(path, house)
    x = Explainer(p)
    rows = card_rows_named(p, card)
    kind = rows[0][0].kind
    out = [f"{card} ({_card_noun(kind)})"]
    members: list[tuple[str, str]] = []
    listed: set[str] = set()  # members that come in a printed list (icons, equipment): fewer rules shown
    for _, row, values in rows:
        printed = ", ".join(f"{words(col)} {x.expr(v)}" for col, v in values.items() if col not in ("name", "copies"))
        copies = x.expr(values["copies"]) if "copies" in values else "1"
        out.append(f"{INDENT}- {printed or 'no printed values'}; {copies} cop{'y' if copies == '1' else 'ies'}"
                   f"   [{where(row.pos)}]")
        for col, v in values.items():
            for m in _members(p, v):
                if (col, m) not in members:
                    members.append((col, m))
                if isinstance(v, n.ListLit):
                    listed.add(m)
    for col, m in members:
        lines = _effect_lines(x, {m}, 1, limit=3 if m in listed else 12)
        out.append("")
        out.append(f"What {words(col)} {words(m)} does:")
        out += lines or [INDENT + "no rule names it (rules that go through every value still count it)"]
    # A printed text that names a procedure, or that rules compare with.
    texts = [(col, v.value) for _, _, values in rows for col, v in values.items()
             if col != "name" and isinstance(v, n.Lit) and isinstance(v.value, str) and v.value]
    for col, text in dict.fromkeys(texts):
        lines = []
        if text in p.procs:
            lines += [INDENT + line for line in x.procedure(p.procs[text], expand=1)]
        lines += _effect_lines(x, {f"text:{text}"}, 1)
        if lines:
            out += ["", f"What {words(col)} {_quote(text)} does:"] + lines
    named = _effect_lines(x, {f"text:{card}"}, 1, limit=6)
    if named:
        out += ["", f"Rules that name {_quote(card)}:"] + named
    kind_rules = _effect_lines(x, {f"kind:{kind}"}, 1, limit=8)
    if kind_rules:
        out += ["", f"Rules for every {_card_noun(kind)}:"] + kind_rules
    return "\n".join(out)
