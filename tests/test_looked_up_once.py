"""A define's body that looks the same memo key up more than once (codegen `_looked_up_once`):
the first lookup keeps what it finds or works out in a name of the body's, and the others read
that name, paying what a lookup finding it pays. The fixture's `fits` writes `short` in place in
two sums (`gap`'s, twice) and looks it up again before calling it in `lacking`'s; `short` pays for a list
var that grows as the game goes on, so a lookup that found nothing pays more than one that
found it. The same actions, states, logs and units as the reference, and at every budget short
of an action's cost the same error with the state unchanged."""

from __future__ import annotations

import random
import re
from pathlib import Path

from budget_helpers import outcomes_at_budgets

import interpreter
from tests.test_backends import play_both

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "looked_up_once"


def test_repeated_lookups_read_the_name_the_first_one_kept():
    source = "\n".join(interpreter.load(str(FIXTURE), cache=False).compiled.generated.source)
    kept = set(re.findall(r"(_m\d+) = _MISS", source))
    assert len(kept) == 5  # `short(p, t, e)` for each of the five kinds
    # each name kept by the lookups written in place in both sums (found: nothing more to pay) ...
    assert len(re.findall(r"\((_m\d+) if \1 is not _MISS else \(\1 := \(_v\d+ if \(_v\d+ := m\.memo\.get", source)) == 10
    # ... and read before the call looked up again (found: the call's units)
    assert len(re.findall(r"\((_m\d+) if \1 is not _MISS and \(_u := _u \+ 5\) else \(\1 := \(_v\d+ if ", source)) == 5


def test_repeated_lookups_play_and_pay_as_the_reference():
    for seed in range(8):
        assert play_both(str(FIXTURE), (), 2 + seed % 2, seed) > 10  # same actions, states, budgets, logs


def test_repeated_lookups_fail_as_the_reference_at_every_budget():
    games = [interpreter.load(str(FIXTURE), backend=backend, cache=False) for backend in ("reference", "codegen")]
    costs = set()
    for seed in range(2):
        states = [game.new_game(players=2, seed=seed) for game in games]
        rng = random.Random(seed)
        for _ in range(14):  # savings made, so that `short` pays for them
            who = states[0].decision.players[0]
            value = rng.choice([a.value for a in states[0].legal_actions(who)])
            if states[0].decision.prompt == "Save?":  # the next player's plans are asked `fits`
                cost = outcomes_at_budgets(states[0], value, (None,), "n")[0][1]
                # (every budget of the action's last 300 units: where `fits` is worked out)
                limits = (None, 0, *range(max(0, cost - 300), cost + 1))
                outcomes = [outcomes_at_budgets(state, value, limits, "n") for state in states]
                assert outcomes[0] == outcomes[1], (seed, value)
                costs.add(cost)
                assert {error is None for error, _, _ in outcomes[0]} == {True, False}
            for state in states:
                state.apply(next(a for a in state.legal_actions(who) if a.value == value))
    assert len(costs) > 3
