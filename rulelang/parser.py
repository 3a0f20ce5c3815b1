"""Source text -> parse tree (Lark, LALR) -> syntax tree (``rulelang.nodes``).

Files are read by ``rulelang/lalr.py`` (Lark's tables, no parse tree: about three times faster)
and, when it is not sure to read a file as Lark would (errors above all), by Lark itself.

``parse_text`` parses one file; ``load_sources`` follows ``include`` and ``extends`` from an
entry file, refusing paths that leave the game's folder. Syntax errors become diagnostics.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Callable
from pathlib import Path

import attrs
from lark import Lark, Token, Transformer_NonRecursive, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError
from lark.indenter import DedentError, Indenter
from lark.lark import _LOAD_ALLOWED_OPTIONS

from . import lalr
from . import nodes as n
from .diagnostics import Diagnostic, RuleError, did_you_mean
from .files import FileRefused, read_regular

GRAMMAR_PATH = Path(__file__).with_name("grammar.lark")
# Lark reads 80 to 200 KB a second (slowest on deeply nested expressions), the fast reader about
# 2 MB, so a megabyte is at worst a few seconds of loading; the largest real game is under
# 100 KB in all its files.
MAX_FILE_BYTES = 1_000_000
MAX_TOTAL_BYTES = 1_000_000  # all the files of a game together, includes and extends counted
MAX_FILES = 64
MAX_NESTING = 60  # indentation levels and bracket depth; deeper input is refused, not recursed into
MAX_DEPTH = 100  # levels of the parse tree (blocks and expressions inside each other); real games use < 30
MAX_DIGITS = 18  # a number literal has at most this many digits (below 10**18)


class _RuleIndenter(Indenter):
    NL_type = "_NL"
    OPEN_PAREN_types = ["LPAR", "LSQB", "LBRACE"]
    CLOSE_PAREN_types = ["RPAR", "RSQB", "RBRACE"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 4


_built: list[Lark] = []  # the one Lark of the process, once built
_read_back: list[Lark] = []  # or its tables read back (no `.grammar`: enough to read files)


def _reading_lark() -> Lark:
    """The Lark that reads files: the one built, else tables read back, else a new build."""
    return _built[0] if _built else _read_back[0] if _read_back else _lark()


def _lark() -> Lark:
    """The grammar built by Lark, with everything (tools and tests read its `.grammar`)."""
    if not _built:
        _built.append(Lark(
            GRAMMAR_PATH.read_text(encoding="utf-8"),
            parser="lalr",
            postlex=_RuleIndenter(),
            propagate_positions=True,
            maybe_placeholders=True,
            start=["start", "expr"],
            cache=False,  # (Lark's own cache is a pickle in a shared folder: see grammar_tables)
        ))
    return _built[0]


# Working out the grammar's LALR tables takes Lark some 170 ms, at the first load of every
# process; reading them back takes 16. The engine's load cache (interpreter/engine/cache.py) keeps
# them, as it keeps everything, under its HMAC: Lark's own `cache=` would unpickle a file from the
# system's shared temporary folder, which anyone may have written.
def grammar_ready() -> bool:
    return bool(_built or _read_back)


def grammar_tables() -> bytes:
    """The grammar's tables, as Lark saves them (options that cannot be saved are left out)."""
    out = io.BytesIO()
    _lark().save(out, _LOAD_ALLOWED_OPTIONS)
    return out.getvalue()


def use_grammar_tables(data: bytes) -> bool:
    """Use tables saved by ``grammar_tables`` (trusted: the caller verified them); False if they
    cannot be read, and the grammar is then built as usual."""
    try:
        lark = Lark.__new__(Lark)._load(io.BytesIO(data), postlex=_RuleIndenter(), propagate_positions=True)
    except Exception:  # noqa: BLE001 - tables from another Lark version, say: build them
        return False
    if not _read_back:
        _read_back.append(lark)
    return True


# Friendlier names for terminals in "expected ..." messages.
_TOKEN_NAMES = {
    "_NL": "end of line", "_INDENT": "an indented block", "_DEDENT": "end of block",
    "NAME": "a name", "INT": "a number", "STRING": "a string", "COLON": "`:`", "COMMA": "`,`",
    "LPAR": "`(`", "RPAR": "`)`", "LSQB": "`[`", "RSQB": "`]`", "LBRACE": "`{`", "RBRACE": "`}`",
    "EQUAL": "`=`", "DOT": "`.`", "$END": "end of file",
}


def _describe(expected) -> str:
    names = []
    for e in sorted(expected):
        if e in _TOKEN_NAMES:
            names.append(_TOKEN_NAMES[e])
        elif e.isupper() and e.isalpha() and len(e) > 1:
            names.append(f"`{e.lower()}`")
        else:
            names.append(e)
    names = sorted(set(names))
    if len(names) > 8:
        names = names[:8] + ["..."]
    return ", ".join(names)


def _keyword_hint(word: str, expected) -> str | None:
    """A misspelt keyword (`procedur`) reads as a name where a keyword was expected: suggest the
    keyword from every one the parser would have taken there, not only the few the message lists."""
    keywords = [e.lower() for e in expected if e.isupper() and e.isalpha() and len(e) > 1]
    keywords += [e for e in expected if e.isalpha() and e.islower()]
    return did_you_mean(word, keywords)


def _syntax_diagnostic(err: UnexpectedInput, path: str) -> Diagnostic:
    line = getattr(err, "line", 1) or 1
    col = getattr(err, "column", 1) or 1
    if isinstance(err, UnexpectedCharacters):
        return Diagnostic("E101", f"unexpected character {err.char!r}", n.Pos(path, line, col))
    if isinstance(err, UnexpectedEOF):
        return Diagnostic("E103", f"the file ends too early; expected {_describe(err.expected)}",
                          n.Pos(path, line, col))
    if isinstance(err, UnexpectedToken):
        tok = err.token
        if tok.type == "$END":
            return Diagnostic("E103", f"the file ends too early; expected {_describe(err.expected)}",
                              n.Pos(path, line if line > 0 else 1, col if col > 0 else 1))
        what = {"_NL": "end of line", "_INDENT": "indentation", "_DEDENT": "end of block"}.get(
            tok.type, f"`{tok}`")
        hint = None
        if tok.type == "_INDENT":
            hint = "this line is indented more than the block it is in"
        elif tok.type == "NAME":
            hint = _keyword_hint(str(tok), err.expected)
        return Diagnostic("E102", f"unexpected {what}; expected {_describe(err.expected)}",
                          n.Pos(path, tok.line or line, tok.column or col), hint)
    return Diagnostic("E102", str(err).splitlines()[0], n.Pos(path, line, col))


def _pos(path: str, meta) -> n.Pos:
    return n.Pos(path, getattr(meta, "line", 0) or 0, getattr(meta, "column", 0) or 0)


def _tpos(path: str, tok: Token) -> n.Pos:
    return n.Pos(path, tok.line or 0, tok.column or 0)


def _unquote(s: str) -> str:
    body = s[1:-1]
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), body)


def _display(tok) -> str:
    """A display name: the quoted text after a declared name, or "" when there is none."""
    return _unquote(str(tok)) if tok is not None else ""


_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


@v_args(meta=True, inline=True)
class _Build(Transformer_NonRecursive):
    """Parse tree -> nodes. One method per grammar rule (or alias). Not recursive, so no
    nesting can exhaust Python's stack here; `_check_tree` bounds the depth for what follows."""

    def __init__(self, path: str):
        super().__init__()
        self.path = path
        self.gave_up = False

    # ---- helpers
    def _p(self, meta) -> n.Pos:
        return _pos(self.path, meta)

    def _string(self, tok: Token) -> n.Expr:
        text = _unquote(str(tok))
        pos = _tpos(self.path, tok)
        if "{" not in text:
            return n.Lit(text, pos)
        parts: list = []
        last = 0
        for m in _PLACEHOLDER.finditer(text):
            if m.start() > last:
                parts.append(text[last:m.start()])
            parts.append(parse_expr(m.group(1), n.Pos(self.path, pos.line, pos.col + 1 + m.start(1))))
            last = m.end()
        if last < len(text):
            parts.append(text[last:])
        return n.Template(tuple(parts), pos)

    # ---- top level
    def start(self, meta, *decls):
        return n.Module(self.path, tuple(d for d in decls if d is not None))

    def game_decl(self, meta, s):
        return n.GameDecl(_unquote(s), self._p(meta))

    def players_decl(self, meta, lo, hi=None):  # `players 2` is `players 2 to 2`
        return n.Players(int(lo), int(hi if hi is not None else lo), self._p(meta))

    def include_decl(self, meta, s):
        return n.Include(_unquote(s), self._p(meta))

    def extends_decl(self, meta, s):
        return n.Extends(_unquote(s), self._p(meta))

    def option_decl(self, meta, name, otype, default, doc):
        form, choices, lo, hi = otype
        return n.OptionDecl(str(name), form, choices, lo, hi, default,
                            _unquote(doc) if doc else "", self._p(meta))

    def option_choice(self, meta, *names):
        return ("choice", tuple(str(x) for x in names), None, None)

    def option_simple(self, meta, name):
        return ("simple", (str(name),), None, None)

    def option_range(self, meta, lo, hi):
        return ("range", (), int(lo), int(hi))

    def enum_decl(self, meta, name, display, *members):
        return n.EnumDecl(str(name), tuple(str(m) for m, _ in members),
                          tuple(_tpos(self.path, m) for m, _ in members), self._p(meta),
                          _display(display), tuple(_display(d) for _, d in members))

    def enum_member(self, meta, name, display):
        return (name, display)

    def kind_decl(self, meta, name, display, *items):
        fields = tuple(i for i in items if isinstance(i, n.Field))
        faces = [i for i in items if isinstance(i, tuple) and i[0] == "face"]
        texts = [i[1] for i in items if isinstance(i, tuple) and i[0] == "text"]
        _, face, face_pos = (faces[-1] if faces else ("face", (), None))
        return n.KindDecl(str(name), fields, self._p(meta), _display(display), face, face_pos,
                          texts[-1] if texts else None)

    def kind_text(self, meta, value):
        return ("text", value)

    def field_decl(self, meta, name, display, t):
        return n.Field(str(name), t, self._p(meta), _display(display))

    def face_decl(self, meta, *names):
        return ("face", tuple(str(x) for x in names), self._p(meta))

    def type_name(self, meta, name):
        return n.TypeRef("name", str(name), self._p(meta))

    def type_list(self, meta, name):
        return n.TypeRef("list", str(name), self._p(meta))

    def type_bag(self, meta, name):
        return n.TypeRef("bag", str(name), self._p(meta))

    def cards_decl(self, meta, kind, *rest):
        cols = tuple(str(x) for x in rest if isinstance(x, Token))
        rows = tuple(x for x in rest if isinstance(x, n.CardRow))
        return n.CardsDecl(str(kind), cols, rows, self._p(meta))

    def card_row(self, meta, *values):
        each = tuple(v for v in values if isinstance(v, tuple))
        return n.CardRow(tuple(v for v in values if v is not None and not isinstance(v, tuple)), self._p(meta),
                         each)

    def card_each(self, meta, name, source):
        return (str(name), source)

    def zone_decl(self, meta, name, display, per, per2, *props):
        pers = [x for x in (per, per2) if x is not None]
        member = next((x for x in pers if x != "player"), None)
        player = "player" if "player" in pers else None
        if len(pers) == 2 and (player is None or member is None):  # `per player per player`, `per a per b`
            player, member = pers[0], pers[1]
        return n.ZoneDecl(str(name), player, tuple(props), self._p(meta), _display(display), member)

    def per_player(self, meta, name):
        return str(name)

    def zone_prop(self, meta, name, value):
        v = None if value is None else (int(value) if value.type == "INT" else str(value))
        return (str(name), v, _tpos(self.path, name))

    def token_decl(self, meta, name, display, *props):
        return n.TokenDecl(str(name), tuple(props), self._p(meta), _display(display))

    def token_prop(self, meta, name, *values):
        vals = tuple(int(v) if v.type == "INT" else str(v) for v in values)
        return (str(name), vals, _tpos(self.path, name))

    def var_decl(self, meta, name, display, per, t, init, visibility=None, unknown=None):
        if visibility is None:
            return n.VarDecl(str(name), per, t, init, self._p(meta), _display(display), unknown=unknown)
        return n.VarDecl(str(name), per, t, init, self._p(meta), _display(display), str(visibility),
                         _tpos(self.path, visibility), unknown)

    def var_unknown(self, meta, values):
        return values

    def const_decl(self, meta, name, value):
        return n.ConstDecl(str(name), value, self._p(meta))

    def define_decl(self, meta, name, params, value):
        return n.DefineDecl(str(name), params, value, self._p(meta))

    def params(self, meta, *ps):
        return tuple(p for p in ps if p is not None)

    def param(self, meta, name, t):
        return n.Param(str(name), t, self._p(meta))

    def event_decl(self, meta, name, params):
        return n.EventDecl(str(name), params, self._p(meta))

    def modifier_decl(self, meta, name, doc):
        return n.ModifierDecl(str(name), _unquote(doc) if doc else "", self._p(meta))

    def proc_decl(self, meta, name, params, returns, body):
        return n.ProcDecl(str(name), params, body, self._p(meta), returns)

    def setup_decl(self, meta, body):
        return n.SetupDecl(body, self._p(meta))

    def flow_decl(self, meta, body):
        return n.FlowDecl(body, self._p(meta))

    def trigger_decl(self, meta, name, *rest):
        *names, when, body = rest
        return n.TriggerDecl(str(name), tuple(str(x) for x in names if x is not None), when, body,
                             self._p(meta))

    # ---- the table
    def table_decl(self, meta, *items):
        return n.TableDecl(tuple(items), self._p(meta))

    def _item(self, meta, kind, label, exprs=(), var=None, note=None, when=None, children=()):
        return n.TableItem(kind, _unquote(label) if label is not None else "", tuple(exprs), var, note,
                           when, tuple(children), self._p(meta))

    def t_when(self, meta, value):
        return ("when", value)

    def t_note(self, meta, name, value):
        return ("note", str(name), value)

    @staticmethod
    def _when(x):
        return x[1] if x is not None else None

    def t_section(self, meta, label, when, *children):
        return self._item(meta, "section", label, when=self._when(when), children=children)

    def t_board(self, meta, name, among, when, *children):
        return self._item(meta, "board", None, (among,) if among is not None else (), str(name),
                          when=self._when(when), children=children)

    def _noted(self, meta, kind, label, value, note, when):
        return self._item(meta, kind, label, (value,), note[1] if note else None, note[2] if note else None,
                          self._when(when))

    def t_row(self, meta, label, value, note, when):
        return self._noted(meta, "row", label, value, note, when)

    def t_places(self, meta, label, value, note, when):
        return self._noted(meta, "places", label, value, note, when)

    def t_counter(self, meta, label, value, when):
        return self._item(meta, "counter", label, (value,), when=self._when(when))

    def t_track(self, meta, label, value, size, when):
        return self._item(meta, "track", label, (value, size), when=self._when(when))

    def t_markers(self, meta, label, low, high, markers, name, at, when):
        return self._item(meta, "markers", label, (low, high, markers, at), str(name), when=self._when(when))

    def t_grid(self, meta, label, when, *lines):
        return self._item(meta, "grid", label, when=self._when(when), children=lines)

    def t_line(self, meta, label, value):
        return self._item(meta, "line", label, (value,))

    def t_score(self, meta, when):
        return self._item(meta, "score", None, when=self._when(when))

    def score_decl(self, meta, var, *lines):
        return n.ScoreDecl(str(var), tuple(lines), self._p(meta))

    def score_line(self, meta, label, value):
        return n.ScoreLine(str(label), value, self._p(meta))

    def tiebreak_decl(self, meta, var, *keys):
        return n.TiebreakDecl(str(var), tuple(keys), self._p(meta))

    def invariant_decl(self, meta, text, value):
        return n.InvariantDecl(_unquote(text), value, self._p(meta))

    def winners_decl(self, meta, value):
        return n.WinnersDecl(value, self._p(meta))

    def require_decl(self, meta, value, message):
        return n.RequireDecl(value, _unquote(message), self._p(meta))

    def remove_decl(self, meta, what, name):
        value = _unquote(str(name)) if name.type == "STRING" else str(name)
        return n.RemoveDecl(str(what), value, self._p(meta))

    def replace_decl(self, meta, decl):
        return n.ReplaceDecl(decl, self._p(meta))

    # ---- scenarios
    def scenario_decl(self, meta, name, *items):
        players, seed, options, steps = None, 0, [], []
        for kind, value in items:
            if kind == "players":
                players = value
            elif kind == "seed":
                seed = value
            elif kind == "option":
                options.append(value)
            else:
                steps.append(value)
        return n.ScenarioDecl(_unquote(name), players, seed, tuple(options), tuple(steps), self._p(meta))

    def scenario_players(self, meta, count):
        return ("players", int(count))

    def scenario_option(self, meta, name, value):
        return ("option", (str(name), value))

    def scenario_setting(self, meta, name, value):
        if str(name) != "seed":
            raise _ScenarioSyntax(f"a scenario sets `players`, `seed` or `option`; not `{name}`",
                                  _tpos(self.path, name))
        return ("seed", int(value))

    def scenario_given(self, meta, body):
        return ("step", n.ScenarioStep("given", None, (), None, body, self._p(meta)))

    def scenario_play(self, meta, name, *args):
        return ("step", n.ScenarioStep("play", str(name), tuple(a for a in args if a is not None), None, (),
                                       self._p(meta)))

    def scenario_choose(self, meta, label, by):
        return ("step", n.ScenarioStep("choose", _unquote(label), (), by, (), self._p(meta)))

    def scenario_expect(self, meta, cond):
        return ("step", n.ScenarioStep("expect", None, (cond,), None, (), self._p(meta)))

    def scenario_decision(self, meta, prompt, by):
        return ("step", n.ScenarioStep("decision", _unquote(prompt), (), by, (), self._p(meta)))

    # ---- statements
    def block(self, meta, *stmts):
        return tuple(stmts)

    def let_stmt(self, meta, name, value):
        return n.Let(str(name), value, self._p(meta))

    def set_stmt(self, meta, target, op, value):
        return n.Set(target, op, value, self._p(meta))

    def assign_op(self, meta, tok):
        return str(tok)

    def pass_stmt(self, meta):
        return n.Pass(self._p(meta))

    def return_stmt(self, meta, value=None):
        return n.Return(value, self._p(meta))

    def end_stmt(self, meta):
        return n.EndGame(self._p(meta))

    def log_stmt(self, meta, audience, s):
        return n.Log(self._string(s), self._p(meta), audience)

    def fail_stmt(self, meta, s):
        return n.Fail(_unquote(s), self._p(meta))

    def emit_stmt(self, meta, name, *args):
        return n.Emit(str(name), tuple(a for a in args if a is not None), self._p(meta))

    def start_stmt(self, meta, name, player, edge, nxt, unit):
        return n.Start(str(name), player, nxt is not None, str(unit), self._p(meta), str(edge))

    def verb_stmt(self, meta, name, *rest):
        args = tuple(x for x in rest if x is not None and not isinstance(x, tuple))
        clauses = tuple(x for x in rest if isinstance(x, tuple))
        return n.Verb(str(name), args, None, clauses, self._p(meta))

    def amount_stmt(self, meta, name, amount, unit, *clauses):
        return n.Verb(str(name), (amount,), str(unit), tuple(clauses), self._p(meta))

    def clause(self, meta, word, value):
        return (word, value)

    def clause_word(self, meta, tok):
        return str(tok)

    def if_stmt(self, meta, cond, body, *rest):
        branches = [(cond, body)]
        orelse = None
        for r in rest:
            if r is None:
                continue
            if r[0] == "elif":
                branches.append((r[1], r[2]))
            else:
                orelse = r[1]
        return n.If(tuple(branches), orelse, self._p(meta))

    def elif_part(self, meta, cond, body):
        return ("elif", cond, body)

    def else_part(self, meta, body):
        return ("else", body)

    def for_stmt(self, meta, var, source, body):
        return n.For(str(var), source, body, self._p(meta))

    def while_stmt(self, meta, cond, limit, body):
        return n.While(cond, int(limit) if limit is not None else None, body, self._p(meta))

    def repeat_stmt(self, meta, count, body):
        return n.Repeat(count, body, self._p(meta))

    def simul_stmt(self, meta, var, source, body):
        return n.Simul(str(var), source, body, self._p(meta))

    def turn_stmt(self, meta, player, body):
        return n.Turn(player, body, self._p(meta))

    def round_stmt(self, meta, body):
        return n.Round(body, self._p(meta))

    def _opts(self, opts):
        given = dict(opts)  # each choice_opt is a (kind, value) pair
        return given.get("by"), given.get("prompt"), given.get("label")

    def pick_stmt(self, meta, may, var, source, cond, *opts):
        by, prompt, label = self._opts(opts)
        return n.Pick(str(var), source, cond, by, prompt, label, may is not None, self._p(meta))

    def menu_stmt(self, meta, *rest):
        opts = [x for x in rest if isinstance(x, tuple)]
        options = tuple(o for x in rest for o in (x if isinstance(x, list) else [x])
                        if isinstance(o, n.MenuOption))
        by, prompt, _ = self._opts(opts)
        return n.Menu(by, prompt, options, self._p(meta))

    def menu_option(self, meta, label, *rest):
        *mods, body = rest
        given = dict(mods)  # each option_mod is a (kind, value) pair
        return n.MenuOption(self._string(label), given.get("when"), given.get("cost"), given.get("once"),
                            body, self._p(meta))

    def menu_for(self, meta, name, source, *options):
        return [attrs.evolve(o, each=(str(name), source)) for o in options]

    def option_when(self, meta, e):
        return ("when", e)

    def option_cost(self, meta, amount, token):
        return ("cost", (amount, str(token)))

    def option_once(self, meta, unit):
        return ("once", str(unit))

    def choice_by(self, meta, e):
        return ("by", e)

    def choice_prompt(self, meta, s):
        return ("prompt", self._string(s))

    def choice_label(self, meta, s):
        return ("label", self._string(s))

    def may_stmt(self, meta, _may, prompt, by, body):
        return n.May(self._string(prompt), by, body, self._p(meta))

    # ---- expressions
    def cond_expr(self, meta, then, test, orelse):
        return n.Cond(then, test, orelse, self._p(meta))

    def or_op(self, meta, a, b):
        return n.BoolOp("or", a, b, self._p(meta))

    def and_op(self, meta, a, b):
        return n.BoolOp("and", a, b, self._p(meta))

    def not_op(self, meta, a):
        return n.Not(a, self._p(meta))

    def compare(self, meta, a, op, b):
        return n.Compare(op, a, b, self._p(meta))

    def comp_op(self, meta, tok):
        return str(tok)

    def in_op(self, meta, a, b):
        return n.Compare("in", a, b, self._p(meta))

    def not_in_op(self, meta, a, b):
        return n.Compare("notin", a, b, self._p(meta))

    def is_op(self, meta, a, kind):
        return n.Is(a, str(kind), False, self._p(meta))

    def is_not_op(self, meta, a, kind):
        return n.Is(a, str(kind), True, self._p(meta))

    def binop(self, meta, a, op, b):
        return n.BinOp(op, a, b, self._p(meta))

    def add_op(self, meta, tok):
        return str(tok)

    def mul_op(self, meta, tok):
        return str(tok)

    def neg(self, meta, a):
        return n.Neg(a, self._p(meta))

    def attr(self, meta, obj, name):
        return n.Attr(obj, str(name), self._p(meta))

    def index(self, meta, obj, i):
        return n.Index(obj, i, self._p(meta))

    def call(self, meta, name, *args):
        pos_args = tuple(a for a in args if a is not None and not isinstance(a, tuple))
        kwargs = tuple(a for a in args if isinstance(a, tuple))
        return n.Call(str(name), pos_args, kwargs, _tpos(self.path, name))

    def int_lit(self, meta, tok):
        return n.Lit(int(tok), _tpos(self.path, tok))

    def str_lit(self, meta, tok):
        return self._string(tok)

    def true_lit(self, meta):
        return n.Lit(True, self._p(meta))

    def false_lit(self, meta):
        return n.Lit(False, self._p(meta))

    def none_lit(self, meta):
        return n.Lit(None, self._p(meta))

    def name(self, meta, tok):
        return n.Name(str(tok), _tpos(self.path, tok))

    def list_lit(self, meta, *items):
        return n.ListLit(tuple(i for i in items if i is not None), self._p(meta))

    def map_lit(self, meta, *items):
        return n.MapLit(tuple(i for i in items if i is not None), self._p(meta))

    def map_item(self, meta, key, value):
        return (int(key) if key.type == "INT" else str(key), value)

    def gen_map(self, meta, elem, var, source, cond):
        return n.Gen(elem, str(var), source, cond, self._p(meta))

    def gen_filter(self, meta, test, cond):
        # `c in zone where cond`: the left side of `in` names the item.
        if isinstance(test, n.Compare) and test.op == "in" and isinstance(test.left, n.Name):
            return n.Gen(None, test.left.id, test.right, cond, self._p(meta))
        self.gave_up = True  # for rulelang/lalr.py: Lark reads this file, to report it
        return ("bad_filter", test, self._p(meta))

    def kwarg(self, meta, name, value):
        return (str(name), value)


class _ScenarioSyntax(Exception):
    def __init__(self, message: str, pos: n.Pos):
        super().__init__(message)
        self.message, self.pos = message, pos


_BRACKET_OR_NEWLINE = re.compile(r"[()\[\]{}\n]")
_DEEP_INDENT = re.compile(f"[ \t]{{{MAX_NESTING * 4 + 1}}}")
_DEEP_SPACES = " " * (MAX_NESTING * 4 + 1)


_NOT_A_BRACKET = re.compile(r"[^()\[\]{}]+")


def _check_depth(text: str, path: str) -> Diagnostic | None:
    """Refuse absurd nesting before the parser sees it (it would only waste time and stack)."""
    if _brackets_within_limit(text) and not _may_be_deeply_indented(text):  # (almost every file)
        return None
    depth = 0
    line = 1
    for m in _BRACKET_OR_NEWLINE.finditer(text):  # (only these characters: a loop over them all is slow)
        ch = m.group()
        if ch in "([{":
            depth += 1
            if depth > MAX_NESTING:
                i = m.start()
                col = i - text.rfind("\n", 0, i)
                return Diagnostic("E102", f"brackets nested more than {MAX_NESTING} deep",
                                  n.Pos(path, line, col))
        elif ch in ")]}":
            depth = max(0, depth - 1)
        else:
            line += 1
    if not _may_be_deeply_indented(text):  # no line can be indented that far
        return None
    for lineno, raw in enumerate(text.splitlines(), 1):
        indent = len(raw) - len(raw.lstrip(" \t"))
        if indent > MAX_NESTING * 4 and raw.strip():
            return Diagnostic("E102", f"a line indented more than {MAX_NESTING} levels",
                              n.Pos(path, lineno, 1))
    return None


def _brackets_within_limit(text: str) -> bool:
    """Whether brackets nest at most MAX_NESTING deep, counted as ``_check_depth`` counts them
    (in strings and comments too, a closing one never below zero): over the brackets alone,
    taken out in C, which is some sixty times faster than finding each one with its line."""
    depth = 0
    for ch in _NOT_A_BRACKET.sub("", text):
        if ch in "([{":
            depth += 1
            if depth > MAX_NESTING:
                return False
        elif depth:
            depth -= 1
    return True


def _may_be_deeply_indented(text: str) -> bool:
    """Whether some run of blanks is long enough for a line indented past the limit. Without
    tabs, one search for that many spaces in C; a regular expression tried at every position
    costs as much as reading the file."""
    if "\t" in text:
        return _DEEP_INDENT.search(text) is not None
    return _DEEP_SPACES in text


def _check_tree(tree: Tree, path: str) -> Diagnostic | None:
    """Refuse a parse tree nested too deeply for the checker and the compiler (which recurse),
    and numbers too long to be a count of anything. Walks the tree without recursion."""
    todo = [(tree, 1)]
    while todo:
        node, depth = todo.pop()
        if depth > MAX_DEPTH:
            return Diagnostic("E102", f"blocks and expressions nested more than {MAX_DEPTH} levels deep",
                              _pos(path, node.meta), "split it with `let`, a `define` or a procedure")
        for child in node.children:
            if isinstance(child, Tree):
                todo.append((child, depth + 1))
            elif isinstance(child, Token) and child.type == "INT" and len(child.lstrip("0")) > MAX_DIGITS:
                return Diagnostic("E308", f"a number with more than {MAX_DIGITS} digits", _tpos(path, child))
    return None


def parse_text(text: str, path: str = "<string>") -> n.Module:
    """Parse one rule file's text; raises RuleError with the syntax diagnostic."""
    if not text.endswith("\n"):
        text += "\n"
    deep = _check_depth(text, path)
    if deep:
        raise RuleError([deep], {path: text})
    module = lalr.read(_reading_lark(), _Build, text, path, MAX_NESTING, MAX_DEPTH, MAX_DIGITS)
    if module is not None:
        return module
    return _parse_with_lark(text, path)


def _parse_with_lark(text: str, path: str) -> n.Module:
    """The reference reading (rulelang/lalr.py's is the fast one): Lark's parse tree, checked
    and transformed; what the fast reader leaves to it, errors above all, are reported here."""
    try:
        tree = _reading_lark().parse(text, start="start")
    except UnexpectedInput as err:
        raise RuleError([_syntax_diagnostic(err, path)], {path: text}) from None
    except DedentError as err:
        line = _dedent_line(text, str(err))
        raise RuleError([Diagnostic("E102", "this line's indentation matches no enclosing block",
                                    n.Pos(path, line, 1), "indent it as far as a line above it")],
                        {path: text}) from None
    except RecursionError:
        raise RuleError([Diagnostic("E102", "the file is nested too deeply to read",
                                    n.Pos(path, 1, 1))], {path: text}) from None
    problem = _check_tree(tree, path)
    if problem:
        raise RuleError([problem], {path: text})
    try:
        module = _Build(path).transform(tree)
    except VisitError as err:  # a `{...}` in a string that cannot be read, a bad scenario line
        inner = err.orig_exc
        if isinstance(inner, _ScenarioSyntax):
            raise RuleError([Diagnostic("E102", inner.message, inner.pos)], {path: text}) from None
        if isinstance(inner, RuleError):
            raise RuleError(inner.diagnostics, {path: text}) from None
        raise
    bad = _find_bad_filters(module)
    if bad:
        raise RuleError(bad, {path: text})
    return module


def _dedent_line(text: str, message: str) -> int:
    """Lark's DedentError has no position: find the first line that dedents to a column no block used."""
    stack = [0]
    for lineno, raw in enumerate(text.splitlines(), 1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        if indent > stack[-1]:
            stack.append(indent)
        elif indent < stack[-1]:
            while stack and indent < stack[-1]:
                stack.pop()
            if not stack or stack[-1] != indent:
                return lineno
    return 1


def parse_expr(text: str, pos: n.Pos) -> n.Expr:
    """Parse one expression (used for `{...}` parts of strings)."""
    expr = lalr.read(_reading_lark(), _Build, text, pos.file, MAX_NESTING, MAX_DEPTH, MAX_DIGITS, start="expr")
    if expr is not None:
        return _shift(expr, pos)
    try:
        tree = _reading_lark().parse(text, start="expr")
    except UnexpectedInput as err:
        col = pos.col + max((getattr(err, "column", 1) or 1) - 1, 0)
        raise RuleError([Diagnostic("E102", f"cannot read `{{{text}}}` in this string",
                                    n.Pos(pos.file, pos.line, col))]) from None
    problem = _check_tree(tree, pos.file)
    if problem:
        raise RuleError([attrs.evolve(problem, pos=pos)])
    expr = _Build(pos.file).transform(tree)
    return _shift(expr, pos)


def _shift(expr, pos: n.Pos):
    """Give an expression parsed out of a string the string's position."""
    import attrs as _attrs

    if isinstance(expr, tuple):
        return tuple(_shift(e, pos) for e in expr)
    if not _attrs.has(type(expr)):
        return expr
    changes = {}
    for f in _attrs.fields(type(expr)):
        v = getattr(expr, f.name)
        if f.name == "pos":
            changes["pos"] = pos
        elif _attrs.has(type(v)) or isinstance(v, tuple):
            changes[f.name] = _shift(v, pos)
    return _attrs.evolve(expr, **changes)


def _find_bad_filters(node) -> list[Diagnostic]:
    out: list[Diagnostic] = []

    def walk(x):
        if isinstance(x, tuple):
            if len(x) == 3 and x[0] == "bad_filter":
                out.append(Diagnostic("E102", "a `where` filter must read `name in list where condition`",
                                      x[2]))
                return
            for i in x:
                walk(i)
        elif hasattr(x, "__attrs_attrs__"):
            for f in x.__attrs_attrs__:
                walk(getattr(x, f.name))

    walk(node)
    return out


def read_source(path: str) -> str:
    """Read a rule file as text, with a diagnostic for what cannot be read."""
    try:
        return read_regular(path, MAX_FILE_BYTES)
    except FileRefused as e:
        raise RuleError([Diagnostic("E100", str(e), n.Pos(path, 1, 1))]) from None


def entry_file(path: str) -> str:
    """A game folder's entry file (game.rules), or the file itself."""
    p = Path(path)
    if p.is_dir():
        return str(p / "game.rules")
    return str(p)


_AFTER_THE_GAME = 10**9  # a reading position later than any line of the game's own files


def load_sources(path: str, extra: list[str] | None = None, read: Callable[[str], str] | None = None,
                 parse: Callable[[str, str], n.Module] | None = None) -> tuple[list[n.Module], dict[str, str]]:
    """Parse a game (folder or file) and, after it, extra files such as house rules.

    ``read`` reads one file's text (``read_source`` by default); an editor passes one that
    returns the unsaved text of the files it has open, and a ``parse`` (``parse_text`` by
    default) that remembers the files it has parsed, so a keystroke re-parses one file.

    Includes are followed depth-first, in order, each file once; an include must stay inside
    the folder of the file that starts the chain. Returns the modules in the order their
    declarations apply, and the source texts by path (for diagnostics).
    """
    modules: list[n.Module] = []
    sources: dict[str, str] = {}
    diags: list[Diagnostic] = []
    seen: set[str] = set()
    total = [0]

    def visit(file: str, root: Path, via: n.Pos | None, reading: tuple = ()) -> None:
        real = os.path.realpath(file)
        if real in seen:
            return
        if len(seen) >= MAX_FILES:
            diags.append(Diagnostic("E100", f"more than {MAX_FILES} files included", via or n.Pos(file, 1, 1)))
            return
        seen.add(real)
        try:
            text = (read or read_source)(file)
        except RuleError as e:
            if via is not None:
                d = e.diagnostics[0]
                diags.append(Diagnostic(d.code, d.message, via))
            else:
                diags.extend(e.diagnostics)
            return
        total[0] += len(text)
        if total[0] > MAX_TOTAL_BYTES:
            diags.append(Diagnostic("E100", f"the game's files hold more than {MAX_TOTAL_BYTES} characters "
                                            "together", via or n.Pos(file, 1, 1)))
            return
        sources[file] = text
        try:
            module = (parse or parse_text)(text, file)
        except RuleError as e:
            diags.extend(e.diagnostics)
            return
        # An `extends` brings in the base game first, from anywhere the user points at.
        for d in module.decls:
            if isinstance(d, n.Extends):
                try:
                    base = entry_file(str(Path(file).parent / d.path))
                    base_root = Path(base).parent.resolve()
                    real = Path(base).resolve()
                except (OSError, RuntimeError, ValueError) as e:  # too long, a symlink loop
                    diags.append(Diagnostic("E100", f"cannot read `{d.path}`: {e}", d.pos))
                    continue
                if not (base.endswith(".rules") and real.name.endswith(".rules")):
                    # so it cannot make us read /etc/passwd or a device, even through a link
                    diags.append(Diagnostic("E104", f"`extends \"{d.path}\"` names neither a game's folder nor "
                                                    "a .rules file", d.pos))
                    continue
                if base_root not in real.parents:  # sealed like an include: no link out of its folder
                    diags.append(Diagnostic("E104", f"`extends \"{d.path}\"` is a link to a file outside "
                                                    "its folder", d.pos,
                                            "name the game's folder or its .rules file itself, not a link"))
                    continue
                visit(base, base_root, d.pos, reading + (d.pos.line,))
        head = [d for d in module.decls if not isinstance(d, (n.Include, n.Extends))]
        modules.append(n.Module(file, tuple(head), reading))
        for d in module.decls:
            if isinstance(d, n.Include):
                try:
                    target = (Path(file).parent / d.path).resolve()
                except (OSError, RuntimeError, ValueError) as e:
                    diags.append(Diagnostic("E100", f"cannot read `{d.path}`: {e}", d.pos))
                    continue
                if root not in target.parents and target != root:
                    diags.append(Diagnostic("E104", f"`{d.path}` is outside the game's folder", d.pos,
                                            "includes must name files inside the folder of the game"))
                    continue
                visit(str(target), root, d.pos, reading + (d.pos.line,))

    try:
        entry = entry_file(path)
        visit(entry, Path(entry).parent.resolve(), None)
        for i, x in enumerate(extra or []):  # house rules are read after the whole game
            visit(x, Path(x).parent.resolve(), None, (_AFTER_THE_GAME + i,))
    except (OSError, RuntimeError, ValueError) as e:  # a path the system cannot even look at
        diags.append(Diagnostic("E100", f"cannot read {path}: {e}", n.Pos(str(path), 1, 1)))
    if diags:
        raise RuleError(diags, sources)
    return modules, sources
