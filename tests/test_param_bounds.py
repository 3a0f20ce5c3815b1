"""Bounds of define parameters taken from their call sites (codegen `CodeGen.param_bounds`).

A define whose every call gives a parameter a number known to be small (an item of a range or a
constant list looped over or chosen from, a constant, a parameter of the calling define that is
bounded itself) has the number checks of sums and differences of it left out of its generated
body, and a range between such numbers is neither checked for its length nor for the budget
before it is looked through (the body's tally pays it, at the end), nor is min() or max() of a
list written out joined with such a range's items checked for an empty or too long list. Any call that may give a
number of any size (a var, a procedure's parameter, a name `set` again, a call this walk does not
look into) leaves the parameter unbounded. Either way the backends give the same results, pay the
same and fail the same, at every budget.
"""

from __future__ import annotations

import pytest
from conftest import define_source

import interpreter
from interpreter.engine.budget import Budget
from rulelang.diagnostics import RuleRuntimeError

BACKENDS = ("reference", "codegen")

GAME = '''game "Bounds"
players 2 to 2
const firsts = [0, 3, 5]
var row: list of int = [4, -1, 7, -1, 2, 9, -1, 5]
var big: int = 0
var result: list of int = []
define before(i: int) = i - 1
define ahead(i: int) = before(i + 2) + 1
define filled_between(a: int, b: int) = count([j for j in range(a, b) where row[j] >= 0])
define part(k: int) = filled_between(firsts[k], firsts[k] + 2)
define highest_before(i: int) = max([-1] + [row[j] for j in range(0, i - 1) where row[j] < 8])
define grown(n: int) = n + 2
define moved(n: int) = n - 1
procedure note(v: int):
    set result = result + [moved(v)]
flow:
    for p in players:
        turn p:
            choose i in range(0, 7) where before(i) < 6 by p label "square {i}"
            set result = [ahead(i), filled_between(i, 7), part(i % 3), grown(big), highest_before(i)]
            let w = i
            set w = big
            note w
            set big = big + 999999999999999
score p:
    line: 0
'''


def _play(game, choice: int, limit: int | None = None):
    """Both players' actions, the first choosing `choice`: (the error, what it paid, the result)."""
    state = game.new_game(players=2, seed=1)
    paid = Budget(limit) if limit is not None else Budget()
    for player in (0, 1):
        before = state.clone()
        action = next(a for a in state.legal_actions(player) if a.value == choice)
        try:
            state.apply(action, paid)
        except RuleRuntimeError as err:
            assert state.s == before.s  # a failing action leaves the state as it was
            return str(err), paid.used, None
    return None, paid.used, state.s.vars["result"]


def _function_source(game, define: str) -> str:
    return define_source(game.compiled.generated, define)


def test_parameters_are_bounded_by_what_every_call_gives(tmp_path):
    (tmp_path / "game.rules").write_text(GAME)
    game = interpreter.load(str(tmp_path), cache=False)
    gen = game.compiled.generated
    assert gen.param_bounds("before") == [9]  # `range(0, 7)` chosen from (0 to 7), and `i + 2` of such an i
    assert gen.param_bounds("ahead") == [7]
    assert gen.param_bounds("filled_between") == [7, 7]  # `firsts[k] + 2`: an item of a constant list, and more
    assert gen.param_bounds("grown") == [None]  # a var's number
    assert gen.param_bounds("moved") == [None]  # a procedure's parameter (given a name set again)
    assert "check_int" not in _function_source(game, "before")
    assert "check_int" in _function_source(game, "grown") and "check_int" in _function_source(game, "moved")
    ranged = _function_source(game, "filled_between")
    assert "_too_many()" not in ranged and "_over()" not in ranged  # a short range: paid with the tally
    highest = _function_source(game, "highest_before")  # max() of a short list: never empty nor long
    assert "max(" in highest and "_built_else" not in highest and "_over()" not in highest


def test_a_call_with_any_number_leaves_the_parameter_unbounded(tmp_path):
    (tmp_path / "game.rules").write_text(GAME.replace("set result = [ahead(i),", "set result = [ahead(big),"))
    game = interpreter.load(str(tmp_path), cache=False)
    gen = game.compiled.generated
    assert gen.param_bounds("ahead") == [None] and gen.param_bounds("before") == [None]
    assert "check_int" in _function_source(game, "before")
    # a choice's variable set again in its procedure is not bounded by what it was chosen from
    (tmp_path / "game.rules").write_text(GAME.replace("set w = big", "set i = big"))
    game = interpreter.load(str(tmp_path), cache=False)
    assert game.compiled.generated.param_bounds("ahead") == [None]


@pytest.mark.parametrize("choice", [0, 4, 6])
def test_bounded_bodies_pay_and_fail_as_the_reference_at_any_budget(tmp_path, choice):
    (tmp_path / "game.rules").write_text(GAME)
    games = [interpreter.load(str(tmp_path), backend=b, cache=False) for b in BACKENDS]
    full = [_play(game, choice) for game in games]
    assert full[0] == full[1]
    assert full[0][0] is None and full[0][2][-1] == 999999999999999 - 1  # `moved` of the second turn's big
    step = max(1, full[0][1] // 150)  # (every budget, but for the longest actions every few)
    for limit in range(0, full[0][1], step):
        assert _play(games[0], choice, limit) == _play(games[1], choice, limit), limit


def test_a_number_past_the_bounds_fails_as_the_reference(tmp_path):
    """`grown(big)` of a number at the limit: the check kept in an unbounded body refuses it."""
    rules = GAME.replace("var big: int = 0", "var big: int = 999999999999999999")
    (tmp_path / "game.rules").write_text(rules)
    games = [interpreter.load(str(tmp_path), backend=b, cache=False) for b in BACKENDS]
    results = [_play(game, 2) for game in games]
    assert results[0] == results[1] and results[0][0] is not None
