"""A define's body reading a field of a card it was given three times or more (`c.shade == 0
... c.shade == 1`) reads it once, before the body, into a name (codegen `_card_fields_once`): a
card's fields never change. The same results and units as the reference at every budget short
of an action's cost; and given none for the card (`tidy(p, none)`), that read fails before the
body, which the reference works out without reading the field at all: the slow path gives its
answer and its units.
"""

from __future__ import annotations

import re

from budget_helpers import outcomes_at_budgets

import interpreter

BACKENDS = ("reference", "codegen")

GAME = '''game "Fields"
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
var row per player: list of int = [1, 2, 3, 4]
var result: list of int = []
var truths: list of bool = []
define worth(p: player, c: card) = (c.value * 2 if c.shade == 0
    else (c.value + sum(p.row) if c.shade == 1 else c.value - count(x in p.row where x > c.value + c.shade)))
define tidy(p: player, c: card) = c == none or (c.shade == 0 and count(p.row) > 2) or c.shade == 2 or c.shade == 3
setup:
    move cards(gem) to pile
    shuffle pile
flow:
    repeat 2:
        for p in players:
            turn p:
                choose c in pile by p label "{c.name}"
                set result = [worth(p, c), worth(p, first(pile)), worth(p, c)]
                set truths = [tidy(p, c), tidy(p, {OTHER}), tidy(p, last(pile))]
                set p.row = p.row + [worth(p, c)]
'''


def test_a_card_field_read_once_pays_as_the_reference(tmp_path):
    (tmp_path / "game.rules").write_text(GAME.replace("{OTHER}", "first(pile)"))
    source = "\n".join(interpreter.load(str(tmp_path), cache=False).compiled.generated.source)
    # (the forms under test: each card's field read once in `worth` and in `tidy`)
    assert len(re.findall(r"\n +_c0 = _cf\d+\[a1\]\n", source)) == 2
    assert len(re.findall(r"\n +_c1 = _cf\d+\[a1\]\n", source)) == 1
    from test_backends import play_both

    # (in step with the reference, paying the same, with no expression sent to the slow path)
    assert sum(play_both(str(tmp_path), (), 2, seed) for seed in range(6)) == 6 * 4


def test_a_card_that_is_none_is_worked_out_by_the_reference(tmp_path):
    (tmp_path / "game.rules").write_text(GAME.replace("{OTHER}", "none"))
    games = [interpreter.load(str(tmp_path), backend=b, cache=False) for b in BACKENDS]
    slow = games[1].compiled.generated.slow_calls[0]
    states = [game.new_game(players=2, seed=3) for game in games]
    outcomes = []
    for state in states:
        value = state.legal_actions(0)[1].value
        full = outcomes_at_budgets(state, value, (None,), "truths")[0]
        outcomes.append(outcomes_at_budgets(state, value, (None, *range(0, full[1] + 2)), "truths"))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0][0] is None and outcomes[0][0][2][1] is True  # (`tidy(p, none)`)
    assert games[1].compiled.generated.slow_calls[0] > slow  # (the read of none's field, before the body)
