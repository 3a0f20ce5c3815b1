"""Actions of the small games (tic-tac-toe and Kuhn poker, examples/games/) at every budget short
of what they cost: both backends fail with the same error and the same units paid, and leave
the state as it was; given enough, they pay the same and log the same. The generated code pays
in bulk where the reference pays item by item (a choice's labels and its own payment for them,
a define's loops, a remembered call counted by the items compared with it), so an overrun is
found at other moments; the slow path, run again, must report it where the reference does."""

from __future__ import annotations

from pathlib import Path

import pytest

import interpreter
from interpreter.engine.budget import Budget
from rulelang.diagnostics import RuleRuntimeError

ROOT = Path(__file__).resolve().parent.parent
BACKENDS = ("reference", "codegen")


def _outcome(game, moves, last, limit):
    state = game.new_game(players=2, seed=3)
    for move in moves:
        state.apply_index(move)
    before = state.clone()
    budget = Budget(limit) if limit is not None else Budget()
    try:
        state.apply_index(last, None, budget)
    except RuleRuntimeError as err:
        assert state.s == before.s
        return str(err), budget.used, None
    return None, budget.used, state.s.log[len(before.s.log):]


@pytest.mark.parametrize(("name", "moves", "last"), [
    ("tic_tac_toe", (), 4), ("tic_tac_toe", (4, 0), 3), ("tic_tac_toe", (4, 0, 3, 2), 1),
    ("kuhn_poker", (), 1), ("kuhn_poker", (0,), 1), ("kuhn_poker", (0, 1), 1),
])
def test_an_action_fails_alike_at_every_budget_short_of_its_cost(name, moves, last):
    games = [interpreter.load(str(ROOT / "examples" / "games" / name), backend=b, cache=False) for b in BACKENDS]
    full = [_outcome(game, moves, last, None) for game in games]
    assert full[0] == full[1] and full[0][0] is None
    for limit in range(full[0][1]):
        outcomes = [_outcome(game, moves, last, limit) for game in games]
        assert outcomes[0] == outcomes[1], limit
        assert outcomes[0][0] is not None
