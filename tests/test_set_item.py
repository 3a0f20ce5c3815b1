"""`set xs[i] = v` of a var (Compiler.set_var_item, the var read and written in place) does what
`set` of any other place does: a new list or bag stored, each item paid for (nested items
counted), the same errors at the same place, in both backends."""

from __future__ import annotations

import pytest

import interpreter
from interpreter.engine.budget import Budget
from rulelang.diagnostics import RuleRuntimeError

RULES = """game "Items"
players 2 to 2
enum colour: red, blue
var board: list of int = [0, 0, 0, 0]
var counts: bag of colour = {{red: 1}}
var mirror: list of int = [0, 0, 0, 0]
flow:
    choose i in range(0, 3) by first(players) prompt "Where?"
    set board[i] = i + 7
    let copy = mirror
    set copy[i] = i + 7
    set mirror = copy
    set counts[blue] = 3
    set board[{index}] = 1
"""


def _played(tmp_path, backend: str, index: str):
    folder = tmp_path / backend / "items"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "game.rules").write_text(RULES.format(index=index))
    state = interpreter.load(str(folder), backend=backend).new_game(players=2, seed=0)
    paid = Budget()
    state.apply(state.legal_actions()[2], paid)
    return state, paid.used


@pytest.mark.parametrize("backend", ["reference", "codegen"])
def test_a_var_item_set_as_any_place_is(tmp_path, backend):
    state, paid = _played(tmp_path, backend, "0")
    values = state.s.vars
    assert values["board"] == [1, 0, 9, 0] and values["mirror"] == [0, 0, 9, 0]
    assert values["counts"] == {"red": 1, "blue": 3}
    assert paid == _played(tmp_path, "reference" if backend == "codegen" else "codegen", "0")[1]


@pytest.mark.parametrize("backend", ["reference", "codegen"])
def test_an_index_past_the_end_is_refused_where_it_is(tmp_path, backend):
    with pytest.raises(RuleRuntimeError) as info:
        _played(tmp_path, backend, "4")
    assert "game.rules:14:9: index 4 is outside a list of 4" in str(info.value)
