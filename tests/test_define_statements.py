"""min()/max() of a list written out joined with a comprehension over a range, in a define's
body, worked out as statements before the body's expression (codegen `CodeGen.spine`,
`extreme_statements`): at the top of the body, as an operand, behind an `and` or an `or` (in an
`if` of its own), and inside a define written in place of its call (`start_of`, called from
`below` only). Each pays what the expression form and the reference pay, in the same tally: the
same units, results and errors (a range too long, a budget running out before or after the loop)
as the reference evaluator, at every budget short of an action's cost. So is any() or all() of a
comprehension over a list that is neither a range nor a constant (`holds`), written as a loop that
stops at the deciding item (`truth_loops`) rather than a generator handed to a helper.
"""

from __future__ import annotations

import re

from budget_helpers import outcomes_at_budgets

import interpreter

BACKENDS = ("reference", "codegen")

GAME = '''game "Joined"
players 2 to 2
var row per player: list of int = [4, -1, 7, -1, 2, 9, -1, 5]
var wall per player: list of bool = [false, true, false, false, true, false, false, false]
var reach: int = 3
var hand per player: list of int = [3, 8, 1]
const marks = [0, 2, 3, 5, 6, 7, 1, 4, 6, 2, 0, 3, 5, 7]
var result: list of int = []
var truths: list of bool = []
define start_of(p: player, i: int) = max([0] + [j + 1 for j in range(0, i - 1) where p.wall[j]])
define below(p: player, i: int) = max([-1] + [p.row[j] for j in range(start_of(p, i), i - 1)])
define above(p: player, i: int) = min([99] + [p.row[j] for j in range(i + 1, 7) where p.row[j] >= 0])
define gap(p: player, a: int, b: int, n: int) = (not any(p.row[j] == n for j in range(a, b))
    and min([b + 1] + [j for j in range(a, b) where p.row[j] > n])
        - max([a - 1] + [j for j in range(a, b) where p.row[j] >= 0 and p.row[j] < n]) >= 2)
define filled_at(p: player, j: int) = p.row[j] >= 0
const firsts = [0, 4]
const lasts = [3, 7]
define part(i: int) = 0 if i <= 3 else 1
define from_here(p: player, i: int) = max([firsts[part(i)]] + [j + 1 for j in range(firsts[part(i)], i - 1) where p.wall[j]])
define to_here(p: player, i: int) = min([lasts[part(i)]] + [j - 1 for j in range(i + 1, lasts[part(i)]) where p.wall[j]])
define room(p: player, a: int, b: int, n: int) = (min([b + 1] + [j for j in range(a, b) where p.row[j] > n])
    - max([a - 1] + [j for j in range(a, b) where filled_at(p, j) and p.row[j] < n]))
define holds(p: player, n: int) = ((n > 2 and any(x == n for x in p.hand))
    or all(x + above(p, 3) > n for x in p.hand where x != 1))
define marked(p: player, n: int) = n < 0 or all(p.row[k] != n + 1 for k in marks) and not any(above(p, k) < n for k in marks)
define either(p: player, a: int, n: int) = n < 0 or max([n, 1] + [p.row[j % 8] * 2 for j in range(a, a + reach)]) > 8
flow:
    repeat 3:
        for p in players:
            turn p:
                choose i in range(0, 7) by p label "square {i}"
                set truths = [gap(p, 0, 7, i), gap(p, i, 7, 3), either(p, i, i - 2), either(p, 0, 1)]
                set result = [below(p, i), above(p, i), below(p, 7 - i), -1 if either(p, 9, 0) else 1, room(p, 0, 7, i), room(p, i, 6, 5), from_here(p, i), to_here(p, i), from_here(p, 7 - i)]
                set truths = truths + [holds(p, i), holds(p, 8 - i), not holds(p, i + 4) and holds(p, 5), marked(p, i), marked(p, 3 - i)]
                set p.row[i] = -1 if i == 6 else i + 2
                set p.hand = p.hand + [i + 1]
                set reach = reach * 40
                set p.wall[i] = not p.wall[i]
score p:
    line: 0
'''


def test_joined_extremes_as_statements_pay_and_fail_as_the_reference(tmp_path):
    (tmp_path / "game.rules").write_text(GAME)
    games = [interpreter.load(str(tmp_path), backend=b, cache=False) for b in BACKENDS]
    source = "\n".join(games[1].compiled.generated.source)
    for written in ("_u += 3 * (1 + len(", "_u += 3 * (2 + len(", "    _too_many()", "        _over()",
                    "    if _v", "    if not _v", "    _u += 5\n",
                    "    b.used += len("):
        assert written in source, written  # the forms under test are the ones generated
    assert re.search(r"\n +for _v\d+ in _k\d+:\n", source)  # (`marked`: a loop over a constant's items)
    # (`room`: the call of `filled_at` paid in place at every item of the range, paid for them
    # all with the range's 2 units an item, none in the comprehension)
    assert "_u += 7 * (_v" in source and not re.search(r"\[_v\d+ for _v\d+ in _v\d+ if [^\]]*_u :=", source)
    # (`from_here`, `to_here`: a range's end written as the item before it, `part` paid again
    # rather than worked out again; `i - 1` as a range's end: the end itself)
    assert re.search(r"\n +_u \+= 5\n +_v\d+s = _v\d+\n", source)
    assert re.search(r"\n +_u \+= 5\n +_v\d+e = _v\d+ \+ 1\n", source)
    assert re.search(r"\n +_v\d+e = a1\n", source)
    # (`gap`, `start_of`, `room`: items that grow with the range's, their least the first, their
    # greatest the last, without min() or max())
    assert re.search(r"\n +_v\d+ = _v\d+\[0\]\n", source) and re.search(r"\n +_v\d+ = _v\d+\[-1\]\n", source)
    from test_backends import play_both

    # (the fourth turn's `either(p, 0, 1)` goes over 192,000 squares: refused, in both)
    assert sum(play_both(str(tmp_path), (), 2, seed) for seed in range(6)) == 6 * 3
    states = [game.new_game(players=2, seed=1) for game in games]
    for state in states:
        for value in (2,):  # (then `reach` is 120: every budget below an action's cost is tried)
            player = state.decision.players[0]
            state.apply(next(a for a in state.legal_actions(player) if a.value == value))
    costs = set()
    for value in (0, 3, 6):
        full = outcomes_at_budgets(states[0], value, (None,), "result")[0]
        limits = (None, *range(0, full[1] + 2))
        outcomes = [outcomes_at_budgets(state, value, limits, "result") for state in states]
        assert outcomes[0] == outcomes[1], value
        costs.add((outcomes[0][0][0], outcomes[0][0][1], tuple(outcomes[0][0][2])))
    assert all(error is None for error, _, _ in costs) and len(costs) == 3
