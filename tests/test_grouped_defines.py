"""A define keeping the cards of a zone whose var equals its one parameter
(`[c in row where c.mark == p]`, codegen `_GROUPED`): the zone's cards grouped by that value once
for every call while the memo lasts, each call paying what its comprehension pays. The same
results, units and errors as the reference at every budget short of an action's cost, and the
groups made again after the var changes within an action (the memo forgotten with it)."""

from __future__ import annotations

import re

from budget_helpers import outcomes_at_budgets

import interpreter

BACKENDS = ("reference", "codegen")

GAME = '''game "Group"
players 2 to 2
enum colour: red, blue
kind gem:
    value: int
    colour: colour
cards gem (name, value, colour):
    "Red", 1, red
    "Blue", 2, blue
    "Ruby", 3, red
    "Sky", 4, blue
    "Rose", 5, red
    "Navy", 6, blue
zone pile: public
zone row: public
var mark per card: player = none
var result: list of int = []
define marked_by(p: player) = [c in row where c.mark == p]
define of_colour(k: colour) = [c in row where c.colour == k]
setup:
    move cards(gem) to pile
    shuffle pile
    draw 3 from pile to row
flow:
    repeat 3:
        for p in players:
            turn p:
                choose c in row by p label "mark {c.name}"
                set result = [count(marked_by(p)), count(marked_by(next_player(p))), count(of_colour(red)), count(of_colour(blue))]
                set c.mark = p
                set result = result + [count(marked_by(p)), count(marked_by(next_player(p))), sum(x.value for x in marked_by(p))]
                set result = result + [sum(x.value for x in of_colour(blue))]
                draw 1 from pile to row
'''


def test_cards_grouped_by_a_var_pay_and_fail_as_the_reference(tmp_path):
    (tmp_path / "game.rules").write_text(GAME)
    games = [interpreter.load(str(tmp_path), backend=b, cache=False) for b in BACKENDS]
    source = "\n".join(games[1].compiled.generated.source)
    assert len(re.findall(r"\n    r = memo\.get\(key\)\n    if r is None:\n        _z = m\.s\.zones\[_k\d+\]\n"
                          r"        _g = memo\.get\(_k\d+\)\n", source)) == 1  # (`marked_by`: a field's goes its own way)
    from test_backends import play_both

    decisions = [play_both(str(tmp_path), (), 2, seed) for seed in range(8)]
    assert sum(decisions) > 8
    for seed in (1, 2):
        states = [game.new_game(players=2, seed=seed) for game in games]
        for turn in range(4):
            values = [a.value for a in states[0].legal_actions(states[0].decision.players[0])]
            for value in values:
                full = outcomes_at_budgets(states[0], value, (None,), "result")[0]
                limits = (None, *range(0, full[1] + 2))
                outcomes = [outcomes_at_budgets(state, value, limits, "result") for state in states]
                assert outcomes[0] == outcomes[1], (seed, turn, value)
            for state in states:
                state.apply(state.legal_actions(state.decision.players[0])[turn % len(values)])
        assert states[0].s.vars["result"] == states[1].s.vars["result"]
        assert states[0].s.vars["result"][4] >= 1  # (the card marked this turn found: the groups made again)
