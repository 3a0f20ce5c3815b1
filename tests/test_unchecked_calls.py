"""A define of the tallying form, or one whose function pays its call first, called from the
body of a define of the tallying form (codegen `unchecked_calls`): the call is made to its twin,
which adds what it pays to the budget without checking it, the caller checking it when its own
body ends. An overrun inside the callee is found there, and the
slow path gives what the reference gives: the same results, units and errors at every budget
short of an action's cost, the budget running out inside the callee, between two calls and in
the caller's own loop.
"""

from __future__ import annotations

import re

from budget_helpers import outcomes_at_budgets

import interpreter

BACKENDS = ("reference", "codegen")

GAME = '''game "Twins"
players 2 to 2
var row per player: list of int = [4, -1, 7, -1, 2, 9, -1, 5]
var result: list of int = []
var total: int = 0
define base(p: player) = sum(x for x in p.row where x > 0)
define reach(p: player, i: int) = max([-1] + [p.row[j] for j in range(0, i)]) + base(p)
define spread(p: player, i: int) = reach(p, i) - reach(p, 7 - i) + max([0] + [p.row[j] for j in range(i, 7) where p.row[j] > 0])
define twice(p: player, i: int) = (spread(p, i) + spread(p, (i + 3) % 8) + reach(p, i)
    + max([0] + [p.row[j] for j in range(0, 3)]))
flow:
    repeat 2:
        for p in players:
            turn p:
                choose i in range(0, 7) by p label "square {i}"
                set result = [twice(p, i), spread(p, 7 - i), reach(p, i)]
                set total = spread(p, 7 - i) + twice(p, i)
                log "{total}"
                set p.row[i] = i * 3 - 4
score p:
    line: 0
'''


def test_calls_leaving_their_check_to_the_caller_pay_and_fail_as_the_reference(tmp_path):
    (tmp_path / "game.rules").write_text(GAME)
    games = [interpreter.load(str(tmp_path), backend=b, cache=False) for b in BACKENDS]
    source = "\n".join(games[1].compiled.generated.source)
    # (the form under test: `spread` and `twice` call their callees' twins, which do not check)
    twins = re.findall(r"\ndef (_d\d+)_u\(m, a0, a1\):\n", source)
    assert len(twins) == 2 and all(f"{t}_u(m, " in source for t in twins)
    for t in twins:
        body = source.split(f"\ndef {t}_u(")[1].split("\ndef ")[0]
        assert "b.used += _u\n    else:" in body and "m.charge(0)" not in body
    # (`base`, whose function pays its call first: its twin pays it without the check)
    assert re.search(r"\ndef (_d\d+)_u\(m, a0\):\n    b = m\.budget\n    b\.used \+= 5\n    key = ", source)
    from test_backends import play_both

    assert sum(play_both(str(tmp_path), (), 2, seed) for seed in range(6)) == 6 * 4
    states = [game.new_game(players=2, seed=1) for game in games]
    costs = set()
    for value in (0, 3, 6):
        full = outcomes_at_budgets(states[0], value, (None,), "total")[0]
        limits = (None, *range(0, full[1] + 2))
        outcomes = [outcomes_at_budgets(state, value, limits, "total") for state in states]
        assert outcomes[0] == outcomes[1], value
        costs.add(outcomes[0][0][1])
    assert len(costs) == 3
