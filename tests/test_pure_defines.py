"""Defines whose results the generated code keeps for the whole game (codegen.MAX_PURE_KEPT):
the same results and the same work paid as the reference, which works each call out again."""

from __future__ import annotations

from pathlib import Path

import pytest

import interpreter
from interpreter.tools.simulate import next_player
from rulelang.diagnostics import RuleRuntimeError
from tests.test_backends import play_both

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "pure_defines"


def test_kept_results_pay_what_working_them_out_pays():
    for seed in range(4):
        assert play_both(str(FIXTURE), (), 2 + seed % 2, seed) > 5  # same actions, states, budgets, logs
    game = interpreter.load(str(FIXTURE))
    kept = game.compiled.generated.ns["_pure"]
    for players in (2, 3):
        state = game.new_game(players=players, seed=0)
        while not state.is_over:
            state.apply_index(0)
    names = {key[-1][0] for key in kept}
    # `weight`, `seat`, `base` are kept (by the number of players too), and so are `named`,
    # `inner`, `outer` and `twice`, which call kept ones; `grows` and `doubled` read a var:
    # worked out each time
    assert names == {"weight", "seat", "base", "named", "inner", "outer", "twice"}, names
    assert "\n".join(game.compiled.generated.source).count("_pure.get(") == 7
    # a kept result of a define calling others holds those calls, to make them again
    assert all(entry[2] for key, entry in kept.items() if key[-1][0] in ("named", "outer", "twice"))
    assert {key[0] for key in kept} == {2, 3}


def test_a_kept_result_past_the_budget_fails_as_the_reference_does(tmp_path):
    # each call of `heavy` pays about 180,000 steps: the sixth in one action is past the million,
    # whether it is worked out (reference) or kept (generated: only the first is worked out)
    errors = []
    for backend in ("reference", "codegen"):
        folder = tmp_path / backend / "heavy"
        folder.mkdir(parents=True)
        (folder / "game.rules").write_text(
            'game "Heavy"\nplayers 2\nvar n: int = 0\n'
            "define heavy(i: int) = count([j for j in range(0, 90000) where j >= i])\n"
            "flow:\n    for k in range(1, 8):\n        set n += heavy(3)\n"
            '    choose by first(players):\n        option "Done":\n            pass\n')
        with pytest.raises(RuleRuntimeError) as info:
            state = interpreter.load(str(folder), backend=backend).new_game(players=2, seed=0)
            while not state.is_over:
                state.apply(state.legal_actions(next_player(state))[0])
        errors.append(str(info.value).replace(str(tmp_path / backend), ""))
    assert errors[0] == errors[1]
    assert "steps" in errors[0] and "game.rules:4:" in errors[0]  # (in the define, as the reference says), errors[0]
