"""An item of a list made of a zone's cards, or of a field of them, with no condition
(`[c.value for c in row][k]`, codegen `_nth_card`, `_nth_field`): the item at `k` read alone,
the list paid for as it would be made (2 units a card). The same results, units and errors as
the reference at every budget short of an action's cost: from the end (`k` negative), past
either end, and from an empty zone (both fail, and the slow path gives the reference's error).
"""

from __future__ import annotations

import re

from budget_helpers import outcomes_at_budgets

import interpreter

BACKENDS = ("reference", "codegen")

GAME = '''game "Nth"
players 2 to 2
kind gem:
    value: int
    shade: int
cards gem (name, value, shade):
    "Red", 1, 0
    "Blue", 2, 1
    "Green", 3, 2
    "Gold", 5, 0
    "Grey", 4, 1
zone pile: public
zone row: public
zone empty: public
var result: list of int = []
define value_at(k: int) = [c.value for c in row][k]
define card_at(k: int) = [c for c in row][k]
define none_at(k: int) = [c.shade for c in empty][k]
setup:
    move cards(gem) to pile
    shuffle pile
    draw 3 from pile to row
flow:
    repeat 3:
        for p in players:
            turn p:
                choose k in range(-4, 3) by p label "item {k}"
                set result = [value_at(0), value_at(k) + value_at(-1), card_at(k).value, card_at(1).shade]
                set result = result + [none_at(0) if k == 3 else 0]
                draw 1 from pile to row
'''


def test_an_item_of_a_zones_list_pays_and_fails_as_the_reference(tmp_path):
    (tmp_path / "game.rules").write_text(GAME)
    games = [interpreter.load(str(tmp_path), backend=b, cache=False) for b in BACKENDS]
    source = "\n".join(games[1].compiled.generated.source)
    assert len(re.findall(r"= _nth_field\(m, m\.s\.zones\[_k\d+\], a0, _cf\d+\)\n", source)) == 2
    assert len(re.findall(r"= _nth_card\(m, m\.s\.zones\[_k\d+\], a0\)\n", source)) == 1
    assert "_KEPT" not in source.split("def ")[1]  # (nothing kept: working it out costs less)
    from test_backends import play_both

    # (in step with the reference until a game fails where it fails: `k` of -4 is past the
    # start of a row of 3, 3 asks an item of the empty zone)
    decisions = [play_both(str(tmp_path), (), 2, seed) for seed in range(8)]
    assert sum(decisions) > 8
    states = [game.new_game(players=2, seed=2) for game in games]
    errors = []
    for value in (-4, -3, -1, 0, 2, 3):
        full = outcomes_at_budgets(states[0], value, (None,), "result")[0]
        limits = (None, *range(0, full[1] + 2))
        outcomes = [outcomes_at_budgets(state, value, limits, "result") for state in states]
        assert outcomes[0] == outcomes[1], value
        errors.append(outcomes[0][0][0] is not None)
    assert errors == [True, False, False, False, False, True]
