"""A define's body that tests a name holding a result (`X if X is not _MISS ... else (X := ...)`)
after the body has certainly given it its value (codegen `_held_known`): the test is left out
there, and only there. Certainly: on every path Python takes through the expression before
that point; not inside what an `and`, an `or`, an `if` or a comprehension's items may skip."""

from __future__ import annotations

import re
from pathlib import Path

import interpreter
from interpreter.engine.codegen import _MISS, _held_first, _held_known, _held_known_lines

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "looked_up_once"

HELD = "(_h0 if _h0 is not _MISS and (_u := _u + 5) else (_h0 := f()))"
MEMO = "(_m0 if _m0 is not _MISS else (_m0 := g()))"


def test_a_second_use_after_a_certain_first_is_untested():
    assert _held_known(f"({HELD} + {HELD})") == f"({HELD} + (_h0 if (_u := _u + 5) else (_h0 := f())))"
    assert _held_known(f"({MEMO} - {MEMO})") == f"({MEMO} - (_m0))"
    # (a payment first is always true, and so is a check of the budget that fails when spent)
    assert _held_known(f"((_u := _u + 5) and {MEMO}) + {MEMO}").endswith(" + (_m0)")
    assert _held_known(f"((_u + b.used <= b.limit or _over()) and {MEMO}) + {MEMO}").endswith(" + (_m0)")
    # (both branches of an `if` set it; a constant test's branch is always worked out)
    assert _held_known(f"({MEMO} if c else {MEMO}) + {MEMO}").endswith(" + (_m0)")
    assert _held_known(f"({MEMO} if True else 0) + {MEMO}").endswith(" + (_m0)")
    # (a comprehension's first iterable is worked out before its items)
    assert _held_known(f"[{MEMO} for v in {MEMO}]") == f"[(_m0) for v in {MEMO}]"


def test_a_use_after_an_uncertain_first_keeps_its_test():
    for first in (f"(c and {MEMO})", f"(c or {MEMO})", f"({MEMO} if c else 0)", f"(0 if c else {MEMO})",
                  f"({MEMO} if False else 0)", f"[{MEMO} for v in xs]", f"(a < b < {MEMO})", f"(lambda: {MEMO})",
                  f"((_u := _u - 5) and {MEMO})", f"((_u := _u + n) and {MEMO})", "(_m0 if _m0 is not _MISS else 0)"):
        source = f"({first}, {MEMO})"
        assert _held_known(source) == source, first
    # (an `and`'s other operands are worked out only when the name held its value already)
    source = f"((_h0 if _h0 is not _MISS and {MEMO} else (_h0 := f())), {MEMO})"
    assert _held_known(source) == source


def test_the_same_values_and_payments_as_before():
    calls = []

    def f():
        calls.append("f")
        return 7

    for c in (False, True):
        source = f"(({MEMO} if c else {MEMO}) + {HELD} * {HELD} + {MEMO}, _u)"
        made = _held_known(source)
        assert made != source
        results = []
        for text in (source, made):
            calls.clear()
            scope = {"_MISS": _MISS, "_h0": _MISS, "_m0": _MISS, "_u": 0, "c": c, "f": f, "g": lambda: 3}
            results.append((eval(text, scope), list(calls)))  # noqa: S307 - the test's own source
        assert results[0] == results[1] == ((3 + 7 * 7 + 3, 5), ["f"])


def test_a_define_is_compiled_with_the_tests_left_out():
    # (the fixture of test_looked_up_once: `fits` tests its names again in its second sum and in
    # `lacking`'s lookups; that test plays it against the reference, at every budget too)
    generated = interpreter.load(str(FIXTURE), cache=False).compiled.generated
    source, compiled = "\n".join(generated.source), generated.compiled_source()
    tests = r"_[hm]\d+ is not _MISS"
    assert len(re.findall(tests, source)) == 23 and len(re.findall(tests, compiled)) == 0
    # (first reached: set alone; then read alone, or paid for alone)
    assert "((_m0 := " in compiled and "(((_m0)) - " in compiled and "(_m0 if (_u := _u + 5) else (_m0 := " in compiled
    assert source.count(" = _MISS\n") == 9 and compiled.count(" = _MISS\n") == 2
    # (only where a define's body is worked out, and lines setting names to _MISS made blank:
    # the rest of the source as it was, each line where it was)
    assert [line for line in compiled.splitlines() if not line.lstrip().startswith("r = ")] == [
        "" if line.endswith(" = _MISS") and line.strip() not in compiled else line
        for line in source.splitlines() if not line.lstrip().startswith("r = ")]


def test_a_name_first_reached_is_set_alone_and_its_line_dropped():
    assert _held_first(f"({MEMO} + {MEMO})", frozenset({"_m0"})) == ("(((_m0 := g())) + (_m0))", {"_m0"})
    # (in both branches of an `if`: _MISS in each; then known)
    made, dropped = _held_first(f"(({MEMO} if c else {MEMO}) + {MEMO})", frozenset({"_m0"}))
    assert made == "((((_m0 := g())) if c else ((_m0 := g()))) + (_m0))" and dropped == {"_m0"}
    # (reached first behind a short-circuit: set alone there, tested again after, its line kept)
    made, dropped = _held_first(f"((c and {MEMO}) + {MEMO})", frozenset({"_m0"}))
    assert made == f"((c and ((_m0 := g()))) + {MEMO})" and dropped == set()
    # (per item of a comprehension: the next item finds it set; a name not known to be _MISS)
    for source, fresh in ((f"[{MEMO} for v in xs]", {"_m0"}), (f"({MEMO} + {MEMO})", set())):
        made, dropped = _held_first(source, frozenset(fresh))
        assert made.startswith(f"[{MEMO}" if fresh else f"({MEMO}") and dropped == set()


def test_a_function_without_its_lines_setting_names_to_missing_works_the_same():
    function = (f"def _d1(c, f, g):\n    _u = 0\n    _h0 = _MISS\n    _m0 = _MISS\n"
                f"    r = (({MEMO} if c else {MEMO}) + {HELD} * {HELD} + {MEMO}, _u)\n    return r\n")
    made = _held_known_lines(function)
    assert "_MISS" not in made and made.count("\n") == function.count("\n")
    for c in (False, True):
        results = []
        for text in (function, made):
            calls: list[str] = []
            scope = {"_MISS": _MISS}
            exec(text, scope)  # noqa: S102 - the test's own source
            results.append((scope["_d1"](c, lambda calls=calls: calls.append("f") or 7, lambda: 3), calls))
        assert results[0] == results[1] == (((3 + 7 * 7 + 3, 5)), ["f"])
