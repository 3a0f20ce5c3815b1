"""A read of the state made before a define's body that only a part of the body behind a
short-circuit uses (codegen `_reads_where_used`, applied where a define's source is compiled):
made where that part begins instead, so that a body stopping before it does not make it. The
same result and the same payments; reads any other line uses, or that the body always makes,
stay where they were; the lines keep their numbers."""

from __future__ import annotations

from conftest import define_source

import interpreter
from interpreter.engine.codegen import _held_known_lines, _reads_where_used

SOURCE = """def _d1(m, a0):
    b = m.budget
    memo, key = {}, 1
    r = memo.get(key)
    if r is None:
        _u = 5
        _h0 = m.s.vars[_k1[a0]]
        _h1 = m.s.vars[_k2[a0]]
        r = memo[key] = (f(a0) and ((_u := _u + 5) and (not not [_h0[j] for j in range(3) if _h1[j]])))
        b.used += _u
    return r
"""


def test_a_read_behind_a_short_circuit_is_made_where_its_part_begins():
    made = _reads_where_used(SOURCE)
    assert made.count("\n") == SOURCE.count("\n")  # (a blank line for each read moved)
    assert "_h0 = m.s.vars" not in made and "_h1 = m.s.vars" not in made
    # (both read by the one comprehension: made together before it)
    assert "(not not ((_h0 := m.s.vars[_k1[a0]]), (_h1 := m.s.vars[_k2[a0]]), [_h0[j] for j " in made
    # (a read used once, alone: made there)
    once = _reads_where_used(SOURCE.replace("if _h1[j]])))", "if j]) and _h1))"))
    assert "and (_h1 := m.s.vars[_k2[a0]])" in once


def test_reads_used_elsewhere_or_always_stay():
    for source in (
            SOURCE.replace("        b.used += _u\n", "        b.used += _u + len(_h0) + len(_h1)\n"),  # another line
            SOURCE.replace("(f(a0) and ", "(_h0[0] + _h1[0] and "),  # read first, always
            SOURCE.replace("        _h0 = m.s.vars[_k1[a0]]\n", "        _h0 = m.s.vars.get(_k1.get(a0), _MISS)\n")
                  .replace("        _h1 = m.s.vars[_k2[a0]]\n", "        _h1 = m.s.vars.get(_k2.get(a0), _MISS)\n")):  # soft
        assert _reads_where_used(source) == source
    assert _reads_where_used(SOURCE.replace("def _d1", "def _e1")) != SOURCE  # (the function alone)
    assert _held_known_lines(SOURCE.replace("def _d1", "def _e1")) == SOURCE.replace("def _d1", "def _e1")


class _Vars(dict):
    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.reads = 0

    def __getitem__(self, key):
        self.reads += 1
        return super().__getitem__(key)


def test_the_same_result_and_payments_fewer_reads():
    for first in (False, True):
        results = []
        for source in (SOURCE, _reads_where_used(SOURCE)):
            scope = {"_k1": {0: "a"}, "_k2": {0: "b"}, "f": lambda _a, first=first: first}
            exec(source, scope)  # noqa: S102 - the test's own source
            vars_ = _Vars({"a": [1, 2, 3], "b": [True, False, True]})
            budget = type("B", (), {"used": 0})()
            m = type("M", (), {"budget": budget, "s": type("S", (), {"vars": vars_})()})()
            results.append((scope["_d1"](m, 0), budget.used, vars_.reads))
        assert results[0][:2] == results[1][:2]
        assert results[0][2] == 2 and results[1][2] == (2 if first else 0)


def test_welcome_to_estate_at_reads_its_lists_after_its_first_tests():
    generated = interpreter.load("games/welcome_to", cache=False).compiled.generated
    source = define_source(generated, "estate_at")
    made = _held_known_lines(source)
    assert "_h0 = m.s.vars" in source and "_h0 = m.s.vars" not in made and "(_h0 := m.s.vars[" in made
