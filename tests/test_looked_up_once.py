"""A define's body that looks the same memo key up more than once (codegen `_looked_up_once`):
the first lookup keeps what it finds or works out in a name of the body's, and the others read
that name, paying what a lookup finding it pays. And a remembered define whose body calls no
define (codegen `worked_first`): worked out before the memo is looked up, which is looked up
(and written) only when the body paid something. The fixture's `fits` writes `short` in place in
two sums (`gap`'s, twice) and looks it up again before calling it in `lacking`'s; `short` pays
for a list var that is empty at first and grows as the game goes on, so a lookup that found
nothing pays more than one that found it; the choice's labels ask `short` again. The same
actions, states, logs and units as the reference, and at every budget short of an action's cost
the same error with the state unchanged."""

from __future__ import annotations

import random
import re
from pathlib import Path

from budget_helpers import outcomes_at_budgets
from conftest import define_source

import interpreter
from tests.test_backends import play_both

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "looked_up_once"


def test_repeated_lookups_read_the_name_the_first_one_kept():
    generated = interpreter.load(str(FIXTURE), cache=False).compiled.generated
    source = "\n".join(generated.source)
    assert generated.worked_first == {"short"}  # (`fits`, `lacks`, `lacking` call defines)
    kept = set(re.findall(r"(_m\d+) = _MISS", source))
    assert len(kept) == 5  # `short(p, t, e)` for each of the five kinds
    # each name kept by the lookups written in place in both sums (their body worked out first,
    # the memo looked up when it paid; found: nothing more to pay) ...
    worked_first = (r"\((_m\d+) if \1 is not _MISS else \(\1 := \(\((_v\d+) if \(\2 := m\.memo\.get\(.*?\)\) is not _MISS"
                    r" and \(\(_u := (_v\d+) - b\.used\) is not None\) else m\.memo\.setdefault\(_v\d+, (_v\d+)\)\)"
                    r" if \(\(\3 := b\.used \+ _u\), \(\4 := ")
    assert len(re.findall(worked_first, source)) == 10
    # ... and read before the call looked up again (found: the call's units)
    assert len(re.findall(r"\((_m\d+) if \1 is not _MISS and \(_u := _u \+ 5\) else \(\1 := \(_v\d+ if ", source)) == 5
    # `short`'s own function: the memo looked up (and written) only when the body paid
    function = define_source(generated, "short")
    assert function.index("    r = ") < function.index("    if b.used != start:") < function.index("memo.get(key")


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


def test_only_bodies_paying_what_the_memo_cannot_change_are_worked_first():
    """`_memo_free`: a grid's layout (a built-in called through its constant), a lookup in the
    memo, a define's call or the reference keep the memo's usual order (looked up first)."""
    from interpreter.engine.codegen import _memo_free

    assert _memo_free("(m.game.card_attrs[a1].get(_k4).get(a2, 0) - _bag_flat(m, m.s.vars[_k5[a0]]).get(a2, 0))", [])
    assert _memo_free("_count_flat(m, m.s.zones[_k2])", ["_h0 = m.s.vars[_k1[a0]]"])
    assert not _memo_free("_k9(m, m.s.zones[_k2], a0)", [])  # a built-in's own function (`cell`, `adjacent`...)
    assert not _memo_free("(_v1 if (_v1 := m.memo.get((_k3, a0, ), _MISS)) is not _MISS else 0)", [])
    assert not _memo_free("_d4(m, a0) + 1", [])
    assert not _memo_free("_refs[3](m, L)", [])
    assert not _memo_free("len(m.s.zones[_k2])", ["_h0 = m.token_count(a0)"])
