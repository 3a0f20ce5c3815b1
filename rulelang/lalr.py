"""A fast reader for rule files: Lark's own LALR tables, driven without building a parse tree.

Lark (``parser.py``'s ``_lark()``) stays the reference: it defines the grammar, builds the parse
tables, and reads every file this module does not. What it spends its time on is generic: a token
object with eight fields for every word, a parse tree with positions worked out at each of some
thirty thousand reductions per game, then a second pass turning that tree into ``nodes``. Here the
same tables are driven by one loop that calls the syntax-tree builder (``parser._Build``) as each
rule is reduced, keeping the children Lark's own child filters keep (which children a rule keeps,
where an absent ``[optional]`` puts None) in one call per reduction rather than Lark's chain of
wrappers, and a lexer that is one regular expression over the whole text.

It reads exactly what Lark reads, the same way, or gives up: ``read`` returns None for anything
it is not sure of (a syntax error, a word the parser state does not take as Lark's contextual
lexer would, a number too long, nesting past the limits, an error inside a builder method), and
``parser.parse_text`` then reads the file with Lark, which gives the same module or the precise
diagnostic. ``tests/test_parser_fast.py`` compares both readings on every rule file in the
repository.

Positions are Lark's: a rule's node is placed at the first token it consumed (keywords and
newlines included, as ``propagate_positions`` does); depth is counted as ``_check_tree`` counts
the levels of Lark's tree.
"""

from __future__ import annotations

import re
import threading
from functools import partial
from operator import itemgetter
from types import FunctionType
from typing import Any

from lark import Token, Tree
from lark.parse_tree_builder import (
    ChildFilterLALR,
    ChildFilterLALR_NoPlaceholders,
    ExpandSingleChild,
    ParseTreeBuilder,
)
from lark.parsers.lalr_analysis import Shift
from lark.visitors import _VArgsWrapper

# The whole lexicon of grammar.lark, in the order Lark tries its terminals: newlines and comments
# (one `_NL`, as Lark's longest terminal), blanks and line continuations (ignored), strings,
# words (a name or a keyword: the parser state decides, as Lark's contextual lexer does),
# numbers, then operators, two-character ones before their one-character prefixes. Blanks before
# a token are taken with it (no terminal starts with one): each match costs far more than the
# characters it reads, and a third of a file's matches were blanks alone.
_LEXICON = re.compile(
    r"""[\t \f]*(?:
        (?P<nl>(?:\r?\n[\t ]*|\#[^\n]*)+)
      | (?P<blank>\\[\t \f]*\r?\n)
      | (?P<string>"(?:[^"\\\n]|\\.)*")
      | (?P<word>[A-Za-z_][A-Za-z0-9_]*)
      | (?P<int>[0-9]+)
      | (?P<op>==|!=|<=|>=|\+=|-=|[()\[\]{}:,.=|<>+\-*/%]))
    """,
    re.VERBOSE,
)


class _Token(Token):
    """A Lark token made in two steps instead of Lark's eight-argument constructor: what the
    builder reads of it (its text, type, line and column) is set, the rest reads None."""

    __slots__ = ()
    start_pos = end_line = end_column = end_pos = None

    def __reduce__(self):  # pickled (in a cache entry, say) as the plain Lark token it stands for
        return Token, (self.type, str(self), None, self.line, self.column)


class _Giveup(Exception):
    """Not sure to read this as Lark would: let Lark read it."""


class _Reader:
    """The tables and callbacks for one thread (the builder is told each file's path)."""

    def __init__(self, lark, builder) -> None:
        table = lark.parser.parser.parser.parse_table
        self.start_states = table.start_states
        self.end_states = table.end_states
        self.builder = builder
        self.meta = _Meta()
        self.busy = False
        self.chains: dict[tuple, int] = {}  # (state below, state on top, token) -> the top after passthroughs
        terminals = {t.name: t for t in lark.terminals}
        # Operator text -> terminal name, and keyword text -> terminal name.
        self.ops: dict[str, str] = {}
        self.keywords: dict[str, str] = {}
        self.word_patterns: list[tuple[re.Pattern, str]] = []  # regex terminals over words (EDGE)
        word = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
        for t in lark.terminals:
            if t.name in ("NAME", "INT", "STRING", "COMMENT", "_NL") or t.name.startswith("__IGNORE"):
                continue
            # (names as plain strings: Lark's are Tokens, whose comparison is Python code)
            if t.pattern.type == "str":
                (self.keywords if word.match(t.pattern.value) else self.ops)[str(t.pattern.value)] = str(t.name)
            else:
                self.word_patterns.append((re.compile(f"(?:{t.pattern.value})\\Z"), str(t.name)))
        self.tab_len = 4
        # Terminals whose token some rule keeps (the others are filtered out: no Token made).
        kept = set()
        for rule in lark.rules:
            for sym in rule.expansion:
                if sym.is_term and (rule.options.keep_all_tokens or not sym.filter_out):
                    kept.add(str(sym.name))
        self.kept = kept
        del terminals
        # Each rule: (size, callback, goto symbol, adds a level to the tree).
        builder_chains = ParseTreeBuilder(lark.rules, Tree, propagate_positions=False, ambiguous=False,
                                          maybe_placeholders=lark.options.maybe_placeholders).rule_builders
        rules = {}
        for rule, chain in builder_chains:
            name = rule.alias or rule.options.template_source or rule.origin.name
            f = self._rule_callback(name, chain, len(rule.expansion))
            # A `?rule` with one child and an inlined `_rule` add no level to Lark's tree.
            inlined = rule.origin.name.startswith("_")
            # `?sum: product`: the child is the value, and nothing else changes but the state
            # (most reductions are these: an expression goes up a dozen levels of precedence).
            passthrough = len(rule.expansion) == 1 and list(chain) == [ExpandSingleChild]
            rules[rule] = (len(rule.expansion), f, str(rule.origin.name), inlined,
                           bool(rule.options.expand1) and not rule.alias, passthrough)
        self.states: dict[int, dict[str, tuple]] = {}
        for state, actions in table.states.items():
            self.states[state] = {
                str(sym): (True, arg, None) if action is Shift else (False, None, rules[arg])
                for sym, (action, arg) in actions.items()
            }
        # States that take a terminal defined by a pattern over words (`EDGE: "end" | "start"`):
        # there Lark's lexer ranks that pattern against the keywords by its own rules, so a word
        # both could be is left to Lark.
        self.pattern_states = {state for state, actions in self.states.items()
                               if any(t in actions for _, t in self.word_patterns)}

    def _rule_callback(self, name: str, chain: list, size: int):
        """One function doing what Lark's wrappers for a rule (its child filter, then
        ExpandSingleChild for a `?rule`) and the user callback do, in one call instead of three
        (some eight thousand reductions a game). Shapes not written out here keep Lark's chain."""
        expand1 = ExpandSingleChild in chain
        filters = [w for w in chain if w is not ExpandSingleChild]
        if len(filters) > 1 or (filters and not (
                isinstance(filters[0], partial)
                and filters[0].func in (ChildFilterLALR, ChildFilterLALR_NoPlaceholders))):
            return self._lark_chain(name, chain)
        # Which children the rule keeps, in order: (index, inlined `_rule` whose children are
        # spliced in, Nones before it for absent [optionals]); then Nones at the end.
        if not filters:
            include, nones_after = [(i, False, 0) for i in range(size)], 0
        elif filters[0].func is ChildFilterLALR:
            include, nones_after = list(filters[0].args[0]), filters[0].args[1]
        else:
            include, nones_after = [(i, x, 0) for i, x in filters[0].args[0]], 0
        func = self._builder_function(name)
        builder, meta = self.builder, self.meta
        if any(x for _, x, _ in include):
            # Splicing: only the left-recursive list shape (`_items: _items item`) is written out.
            if (include[0][1:] != (True, 0) or nones_after
                    or any(x or n for _, x, n in include[1:])):
                return self._lark_chain(name, chain)
            first = include[0][0]
            rest = [i for i, _, _ in include[1:]]
            if len(rest) != 1 or expand1:
                return self._lark_chain(name, chain)
            last = rest[0]
            if func is None:
                def spliced(c: list) -> Any:
                    kept = c[first].children  # (Lark's filter reuses this list too)
                    kept.append(c[last])
                    return Tree(name, kept)
                return spliced

            def spliced_call(c: list) -> Any:
                kept = c[first].children
                kept.append(c[last])
                return func(builder, meta, *kept)
            return spliced_call
        out: list[int | None] = []
        for i, _, nones in include:
            out += [None] * nones
            out.append(i)
        out += [None] * nones_after
        if None in out:
            if expand1:
                return self._lark_chain(name, chain)
            # an absent [optional] reads None: a None put after the children stands for it (the
            # list is the reader's own slice, read by nothing else)
            out = [size if i is None else i for i in out]
            if func is None:
                get = itemgetter(*out)
                return ((lambda c: c.append(None) or Tree(name, [get(c)])) if len(out) == 1
                        else (lambda c: c.append(None) or Tree(name, list(get(c)))))
            get = itemgetter(*out)
            return ((lambda c: c.append(None) or func(builder, meta, get(c))) if len(out) == 1
                    else (lambda c: c.append(None) or func(builder, meta, *get(c))))
        if expand1 and len(out) == 1:
            return itemgetter(out[0])  # `?rule` keeping one child: that child is the value
        if not out:
            return (lambda c: Tree(name, [])) if func is None else (lambda c: func(builder, meta))
        if out == list(range(size)):  # every child kept
            return (lambda c: Tree(name, c)) if func is None else (lambda c: func(builder, meta, *c))
        get = itemgetter(*out)
        if len(out) == 1:
            return (lambda c: Tree(name, [get(c)])) if func is None else (lambda c: func(builder, meta, get(c)))
        return (lambda c: Tree(name, list(get(c)))) if func is None else (lambda c: func(builder, meta, *get(c)))

    def _lark_chain(self, name: str, chain: list):
        f = self._user_callback(name)
        for w in chain:
            f = w(f)
        return f

    def _builder_function(self, name: str) -> Any:
        """The plain function of the builder's method for a rule, None if it has none. The
        builder's methods are v_args(meta=True, inline=True) wrappers: the function is found in
        the class's own dict, as getattr would find it, without the new wrapper (made with
        functools.update_wrapper) getattr makes for each of some three hundred rules a reader;
        anything else (a method from a base class, say) as getattr finds it."""
        cls = type(self.builder)
        found = cls.__dict__.get(name)
        if type(found) is _VArgsWrapper and type(found.base_func) is FunctionType:
            return found.base_func  # (what the wrapper getattr makes holds)
        method = getattr(cls, name, None)
        return None if method is None else method.base_func

    def _user_callback(self, name: str):
        func = self._builder_function(name)
        meta = self.meta
        if func is None:
            return lambda children: Tree(name, children)
        # Call the plain function. The methods read the meta while they run, so one meta object
        # serves every call.
        builder = self.builder
        return lambda children: func(builder, meta, *children)


class _Meta:
    """What a builder method reads of Lark's meta: where the rule's first token is."""

    __slots__ = ("line", "column")

    def __init__(self, line: int = 0, column: int = 0) -> None:
        self.line = line
        self.column = column



_local = threading.local()


def _passthrough_chain(states: dict, below: int, origin: str, ttype: str, end_state: int) -> int:
    """The state on top after a passthrough reduction to `origin` over `below`, and every
    passthrough reduction the token then leads to in turn (the loop in ``_drive`` one at a time):
    an expression goes up a dozen levels of precedence this way. Stops at the end state, where
    ``_drive`` looks whether the text is read."""
    top = states[below][origin][1]
    while top != end_state:
        action = states[top].get(ttype)
        if action is None or action[0] or not action[2][5]:  # no action, a shift or another reduction
            break
        top = states[below][action[2][2]][1]
    return top


def read(lark, builder_class, text: str, path: str, max_nesting: int, max_depth: int,
         max_digits: int, start: str = "start") -> Any | None:
    """What one file's text (ending in a newline) reads as, from the grammar's rule `start`
    (a module, or one expression for the `{...}` of a string), or None to let Lark read it."""
    readers = getattr(_local, "readers", None)
    if readers is None:
        readers = _local.readers = {}
    reader = readers.get(start)
    if reader is None:
        reader = readers[start] = _Reader(lark, builder_class(""))
    if reader.busy:  # read again from inside one of its own builder methods: Lark does it
        return None
    reader.busy = True
    builder = reader.builder
    builder.path = path
    builder.gave_up = False
    try:
        result = _drive(reader, text, start, max_nesting, max_depth, max_digits)
    except Exception:  # noqa: BLE001 - anything unexpected: Lark reads it and reports it
        return None
    finally:
        reader.busy = False
    return None if builder.gave_up else result


def _drive(r: _Reader, text: str, start: str, max_nesting: int, max_depth: int, max_digits: int) -> Any:
    states = r.states
    keywords, ops, kept, word_patterns, pattern_states = r.keywords, r.ops, r.kept, r.word_patterns, r.pattern_states
    meta = r.meta
    chains = r.chains
    state_stack = [r.start_states[start]]
    end_state = r.end_states[start]
    values: list = []
    starts: list = []  # (line, column) of each stack entry's first token, None when it has none
    depths: list = []
    line, line_start = 1, 0
    paren = 0
    indents = [0]
    tab_len = r.tab_len
    # The tokens one match makes: (type, text, (line, column) or None), one token but for a
    # newline (_NL then indents or dedents) and the end of the text.
    toks: Any
    pos = 0
    end = len(text)
    match = _LEXICON.match
    new_str = str.__new__
    while True:
        if pos < end:
            m = match(text, pos)
            if m is None:
                raise _Giveup
            kind = m.lastgroup
            value = m[kind]  # (without the blanks before it)
            pos = m.end()
            where = (line, pos - len(value) - line_start + 1)
            if kind == "nl" or kind == "blank":
                newlines = value.count("\n")
                if newlines:
                    line += newlines
                    line_start = pos - len(value) + value.rindex("\n") + 1
                if kind == "blank" or paren > 0:
                    continue
                indent_str = value.rsplit("\n", 1)[1] if newlines else None
                toks = [("_NL", value, where)]
                if indent_str is not None:
                    indent = indent_str.count(" ") + indent_str.count("\t") * tab_len
                    if indent > indents[-1]:
                        indents.append(indent)
                        if len(indents) > max_nesting:
                            raise _Giveup
                        toks.append(("_INDENT", indent_str, where))
                    else:
                        while indent < indents[-1]:
                            indents.pop()
                            toks.append(("_DEDENT", indent_str, where))
                        if indent != indents[-1]:
                            raise _Giveup
            elif kind == "word":
                accepts = states[state_stack[-1]]
                ttype = keywords.get(value)
                if state_stack[-1] in pattern_states and any(t in accepts and p.match(value)
                                                             for p, t in word_patterns):
                    if "NAME" not in accepts and ttype in accepts:
                        raise _Giveup
                    if "NAME" not in accepts:
                        ttype = next(t for p, t in word_patterns if t in accepts and p.match(value))
                if ttype is None or ttype not in accepts:
                    if "NAME" in accepts:
                        ttype = "NAME"
                    else:
                        ttype = next((t for p, t in word_patterns if t in accepts and p.match(value)), None)
                        if ttype is None:
                            raise _Giveup
                toks = ((ttype, value, where),)
            elif kind == "op":
                ttype = ops[value]
                if value in "([{":
                    paren += 1
                    if paren > max_nesting:
                        raise _Giveup
                elif value in ")]}":
                    paren -= 1
                    if paren < 0:
                        raise _Giveup
                toks = ((ttype, value, where),)
            elif kind == "int":
                if len(value.lstrip("0")) > max_digits:
                    raise _Giveup
                toks = (("INT", value, where),)
            else:
                toks = (("STRING", value, where),)
        else:
            if paren:
                raise _Giveup
            toks = [("_DEDENT", "", None)] * (len(indents) - 1)
            toks.append(("$END", "", None))
        for ttype, value, where in toks:
            while True:
                try:
                    shift, arg, rule = states[state_stack[-1]][ttype]
                except KeyError:
                    raise _Giveup from None
                if shift:
                    if ttype == "$END":
                        raise _Giveup
                    state_stack.append(arg)
                    if ttype in kept:
                        tok = new_str(_Token, value)
                        tok.type, tok.value = ttype, value
                        tok.line, tok.column = where or (None, None)
                        values.append(tok)
                    else:
                        values.append(value)
                    starts.append(where)
                    depths.append(0)
                    break
                size, callback, origin, inlined, expand1, passthrough = rule
                if passthrough:
                    # the whole run of such reductions at once: where it ends depends only on
                    # the state below, the state on top and the token (remembered per reader)
                    key = (state_stack[-2], state_stack[-1], ttype)
                    top = chains.get(key)
                    if top is None:
                        top = chains[key] = _passthrough_chain(states, state_stack[-2], origin, ttype, end_state)
                    state_stack[-1] = top
                    if top == end_state and ttype == "$END":
                        return values[-1]
                    continue
                if size:
                    children = values[-size:]
                    first = starts[-size]
                    if first is None:
                        first = next((s for s in starts[-size:] if s is not None), None)
                    depth = max(depths[-size:]) if size > 1 else depths[-1]
                    del state_stack[-size:], values[-size:], starts[-size:], depths[-size:]
                else:
                    children, first, depth = [], None, 0
                if first is not None:
                    meta.line, meta.column = first
                else:
                    meta.line = meta.column = 0
                value_out = callback(children)
                if not inlined and not (expand1 and any(value_out is c for c in children)):
                    depth += 1
                    if depth > max_depth:
                        raise _Giveup
                goto = states[state_stack[-1]][origin]
                state_stack.append(goto[1])
                values.append(value_out)
                starts.append(first)
                depths.append(depth)
                if state_stack[-1] == end_state and ttype == "$END":
                    return value_out
