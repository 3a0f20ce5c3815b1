"""The fast reader (rulelang/lalr.py) reads every file exactly as Lark does, or leaves it to Lark.

Lark's reading (``parser._parse_with_lark``) is the reference: on every rule file in the
repository, and on files damaged at random, the fast reader gives an equal module (positions
included) or gives up; it never reads a file Lark refuses."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from rulelang import lalr, parser
from rulelang.diagnostics import RuleError

ROOT = Path(__file__).resolve().parent.parent
RULE_FILES = sorted(p for p in ROOT.glob("**/*.rules") if ".git" not in p.parts)


def _text(path: Path) -> str:
    text = path.read_text(encoding="utf-8", errors="replace")
    return text if text.endswith("\n") else text + "\n"


def _fast(text: str, path: str = "t.rules"):
    return lalr.read(parser._lark(), parser._Build, text, path, parser.MAX_NESTING, parser.MAX_DEPTH,
                     parser.MAX_DIGITS)


def _lark(text: str, path: str = "t.rules"):
    try:
        return parser._parse_with_lark(text, path)
    except RuleError as err:
        return err


def _same_or_gave_up(text: str, path: str = "t.rules") -> bool:
    fast = _fast(text, path)
    if fast is None:
        return True
    ref = _lark(text, path)
    assert not isinstance(ref, RuleError), f"the fast reader read what Lark refuses: {ref}"
    assert fast == ref
    return False


def test_every_rule_file_reads_as_lark_reads_it():
    assert len(RULE_FILES) > 50
    read = [p for p in RULE_FILES if not _same_or_gave_up(_text(p), str(p))]
    # Only files Lark refuses (or that nest past the limits) are left to it.
    assert len(read) >= len(RULE_FILES) - 10
    for game in ("off_plan", "welcome_to", "plunderbund"):
        assert ROOT / "games" / game / "game.rules" in read


def test_damaged_files_read_as_lark_reads_them_or_are_left_to_it():
    rng = random.Random(14)
    sources = [_text(p) for p in RULE_FILES if "hostile" not in p.parts]
    pieces = ["", " ", "\n", "    ", ":", "(", ")", "[", "]", ",", "=", "==", "<", "<=", "not ", " in ",
              "if", "end", "start", "may", "next", "players", "x", "1", '"a"', '"{x}"', "#", "\t", "\\\n",
              "-", "+=", ".", "where", "for", "\n    ", "\n        "]
    fallbacks = 0
    for _ in range(300):
        text = rng.choice(sources)
        lines = text.split("\n")
        i = rng.randrange(len(lines))
        line = lines[i]
        j = rng.randrange(len(line) + 1)
        k = min(len(line), j + rng.randrange(4))
        lines[i] = line[:j] + rng.choice(pieces) + line[k:]
        damaged = "\n".join(lines)
        fallbacks += _same_or_gave_up(damaged if damaged.endswith("\n") else damaged + "\n")
    assert 0 < fallbacks < 300  # both ways were taken


@pytest.mark.parametrize("text", [
    'game "T"\nflow:\n    pass\n  pass\n',  # a dedent to no block
    'game "T"\nflow:\n    let x = (1 +\n',  # the file ends inside brackets
    'game "T"\nconst big = 1234567890123456789012\n',  # a number too long
    'game "T"\nconst x = count(c in [] where c > 1)\n',
    'game "T"\ndefine f(x: int) = count(x where x > 1)\n',  # a filter without `name in`
    'game "T"\nflow:\n    start shield for p until end of next turn\n',  # EDGE and NEXT
    'game "T"\n# a comment\n\n   # an indented comment\nflow:  # here too\n    pass\n',
])
def test_tricky_texts(text):
    _same_or_gave_up(text)


def test_errors_are_reported_as_lark_reports_them():
    text = 'game "T"\nflow:\n    let x = = 1\n'
    with pytest.raises(RuleError) as err:
        parser.parse_text(text, "t.rules")
    assert (err.value.diagnostics[0].pos.line, err.value.diagnostics[0].pos.col) == (3, 13)
    assert _fast(text) is None


def test_the_expressions_in_strings_read_as_lark_reads_them():
    """`{...}` in a string is read by the fast reader too (from the grammar's `expr`)."""
    placeholders = set()
    for p in RULE_FILES:
        for string in parser.re.findall(r'"(?:[^"\\\n]|\\.)*"', _text(p)):
            placeholders.update(parser._PLACEHOLDER.findall(string))
    assert len(placeholders) > 100
    read = 0
    for text in sorted(placeholders) + ["1 +", "a b", "(", "x.", "f(x for x in y)", "  n  "]:
        fast = lalr.read(
            parser._lark(), parser._Build, text, "t.rules", parser.MAX_NESTING, parser.MAX_DEPTH,
            parser.MAX_DIGITS, start="expr")
        try:
            ref = parser._Build("t.rules").transform(parser._lark().parse(text, start="expr"))
        except Exception:  # Lark refuses it: so must the fast reader
            assert fast is None, text
            continue
        if fast is not None:
            assert fast == ref, text
            read += 1
    assert read >= len(placeholders) - 5


def test_its_tokens_pickle_as_lark_tokens():
    import pickle

    tok = str.__new__(lalr._Token, "deck")
    tok.type, tok.value, tok.line, tok.column = "NAME", "deck", 3, 5
    back = pickle.loads(pickle.dumps(tok))
    assert type(back) is lalr.Token and back == "deck" and (back.type, back.line, back.column) == ("NAME", 3, 5)


@pytest.mark.slow
def test_texts_from_the_grammar_read_as_lark_reads_them():
    """Random texts drawn from the grammar itself (the hostile-rules strategies), whole files
    and expressions: the fast reader agrees with Lark or leaves the text to it."""
    from hypothesis import HealthCheck, given, settings
    from test_hostile_rules import EXPRESSIONS, HEADER, RULE_FILES

    @settings(max_examples=150, deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.filter_too_much])
    @given(body=RULE_FILES, expr=EXPRESSIONS)
    def agree(body, expr):
        text = HEADER + body
        _same_or_gave_up(text if text.endswith("\n") else text + "\n")
        fast = lalr.read(parser._lark(), parser._Build, expr, "t.rules", parser.MAX_NESTING,
                         parser.MAX_DEPTH, parser.MAX_DIGITS, start="expr")
        if fast is not None:
            assert fast == parser._Build("t.rules").transform(parser._lark().parse(expr, start="expr"))

    agree()


class _Recorder:
    """A builder whose every rule method returns what it was given, to see what reaches it."""

    path = ""
    gave_up = False

    def __init__(self, path: str) -> None:
        self.path = path


def _recorded(name: str):
    def method(self, meta, *children):
        return ("built", name, children)

    method.base_func = method  # as v_args leaves it on _Build's methods
    return method


def test_each_rules_one_call_keeps_the_children_lark_s_wrappers_keep():
    """Every rule's callback (lalr._Reader._rule_callback: child filter, `?rule` expansion and the
    builder in one call) against Lark's own wrapper chain, on children standing for themselves
    (an inlined `_rule`'s child is a tree whose children are spliced in), for rules with a
    builder method and without: the same value, the same children in the same order, the same
    Nones for absent [optionals]."""
    from lark import Tree
    from lark.parse_tree_builder import ChildFilter, ExpandSingleChild, ParseTreeBuilder

    lark = parser._lark()
    chains = ParseTreeBuilder(lark.rules, Tree, propagate_positions=False, ambiguous=False,
                              maybe_placeholders=lark.options.maybe_placeholders).rule_builders
    names = {rule.alias or rule.options.template_source or rule.origin.name for rule, _ in chains}
    half = sorted(names)[::2]  # every other rule has a builder method: both kinds are checked
    recorder = type("Rec", (_Recorder,), {n: _recorded(n) for n in half})
    reader = lalr._Reader(lark, recorder(""))
    ours = wrapped = 0
    for rule, chain in chains:
        name = rule.alias or rule.options.template_source or rule.origin.name
        size = len(rule.expansion)

        def children(expansion: list = rule.expansion) -> list:  # fresh: the callbacks may keep it
            return [Tree(f"_in{i}", [f"a{i}", f"b{i}"]) if (not sym.is_term and sym.name.startswith("_"))
                    else f"c{i}" for i, sym in enumerate(expansion)]

        fast = reader._rule_callback(name, chain, size)
        lark_way = reader._lark_chain(name, chain)
        wrapped += bool(chain)
        ours += bool(chain) and not isinstance(fast, (ChildFilter, ExpandSingleChild))
        assert fast(children()) == lark_way(children()), (rule, chain)
    assert ours > wrapped * 3 // 4  # most rules with wrappers take the one-call way


def test_the_builder_function_of_each_rule_is_what_getattr_finds():
    """lalr._Reader._builder_function looks a rule's method up in the builder class's dict (no
    new v_args wrapper per rule): the same plain function getattr's wrapper holds, None for a
    rule without a method, and a method only a base class has found as getattr finds it."""
    lark = parser._lark()
    reader = lalr._Reader(lark, parser._Build(""))
    names = {rule.alias or rule.options.template_source or rule.origin.name for rule in lark.rules}
    with_method = 0
    for name in sorted(names):
        method = getattr(parser._Build, name, None)
        assert reader._builder_function(name) is (None if method is None else method.base_func), name
        with_method += method is not None
    assert 0 < with_method < len(names)

    class Sub(parser._Build):  # a method inherited, not in the class's own dict
        pass

    sub = lalr._Reader(lark, Sub(""))
    assert sub._builder_function("name") is parser._Build.name.base_func
    assert sub._builder_function("no_such_rule") is None
