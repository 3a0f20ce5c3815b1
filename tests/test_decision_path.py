"""The path every decision takes: the generated fast runs handing on to one another
(codegen `_StepsGen.run`), the step loop (runtime `Machine._steps`, `_run_branches`) and
apply_index's lean paths (api `_answer_choice`, `State._answer_part`). Each shortcut is checked
against what it stands for: the careful runs at every budget, or the reference backend."""

from __future__ import annotations

import re

import pytest

import interpreter
from interpreter.engine import codegen
from tests.test_fast_runs import _both, _outcome

HAND_ONS = """game "Hand-ons"
players 2 to 2
var total: int = 0
var squares: list of int = [1, 2, 3]
var last per player: int = 0
procedure play(p: player):
    choose k in [0, 1, 2] by p
    set p.last = 7
    for x in [1, 2]:
        set total = total + k * x
    set total = total + squares[k * 2]
flow:
    repeat 2:
        for p in players:
            play p
"""


def _sources(game, key: str) -> tuple[str, str]:
    """The source of a code's fast runs and of its careful ones."""
    g = game.compiled

    def leaves(callee: str) -> bool:
        found = g.codes.get(callee)
        return found is not None and codegen.leaf_code(codegen.quiet_effects(found, g.triggers))
    code = codegen.quiet_effects(g.codes[key], g.triggers)
    return (codegen.steps_source(code, leaves, True, g.generated)[0],
            codegen.steps_source(code, leaves, False, g.generated)[0])


@pytest.mark.parametrize("choice", [0, 1, 2])
def test_a_fast_run_calls_the_run_further_on_in_place(tmp_path, choice):
    """A fast run that ends where a run further on in its code starts calls it and returns what
    it returns (no round of the step loop for it); one that goes back (a loop's way round) hands
    it to the loop, and the careful runs hand every run on to the loop: the same state, log and
    units as the careful runs at every budget, and the careful runs' error (choice 2, past the
    end of a list, after the hand-on)."""
    (tmp_path / "game.rules").write_text(HAND_ONS)
    game = interpreter.load(str(tmp_path), cache=False)
    fast, careful = (a + b for a, b in zip(_sources(game, "proc:play"), _sources(game, "flow"), strict=True))
    called, handed = [], []
    for entry, body in re.findall(r"def _run(\d+)\(m, fr\):\n(.*?)(?=\ndef |\Z)", fast, re.S):
        called += [(int(entry), int(to)) for to in re.findall(r"return _run(\d+)\(m, fr\)", body)]
        handed += [(int(entry), int(to)) for to in re.findall(r"return _run(\d+)$", body, re.M)]
    assert called and all(to > entry for entry, to in called)
    assert handed and all(to <= entry for entry, to in handed)
    assert "(m, fr)\n" not in "".join(re.findall(r"return _run\d+.*\n", careful))
    assert "return _run" in careful
    cost = _outcome(interpreter.load(str(tmp_path), cache=False), 0, 2, [1], choice, 10**6)[1]
    fast_got, careful_got = _both(tmp_path, 0, 2, [1], choice, [None, *range(cost + 2)])
    assert fast_got == careful_got
    assert (fast_got[0][0] is not None) == (choice == 2)


ENDS_AT_ONCE = """game "Ends at once"
players 3 to 3
var bid per player: int = 0
flow:
    simultaneously for p in players:
        set p.bid = 9
        if p == players[1]:
            end game
        choose k in [1, 2] by p
        set p.bid = k
"""


def test_a_part_ending_the_game_as_the_step_starts_leaves_the_next_one_unrun(tmp_path):
    """The parts run one after the other as the step starts: Player 2's ends the game, so
    Player 3's never runs (its var is not set), as in the reference; Player 1's had run."""
    (tmp_path / "game.rules").write_text(ENDS_AT_ONCE)
    states = [interpreter.load(str(tmp_path), backend=backend, cache=False).new_game(players=3, seed=0)
              for backend in ("reference", "codegen")]
    assert states[0].to_json() == states[1].to_json()
    assert states[1].is_over and [states[1].s.vars[f"bid#{p}"] for p in range(3)] == [9, 9, 0]
