"""The lean path of a decision (``State.apply_index`` and ``apply`` of one player deciding): an
action that fails halfway leaves the state as it was, and the error names its rule."""

from __future__ import annotations

from pathlib import Path

import pytest

import interpreter
from rulelang.diagnostics import RuleRuntimeError

RULES = '''game "Half done"
players 2
kind gem:
    value: int
cards gem (name, value):
    "Red", 1
    "Blue", 2
zone pile: public
zone hand per player: owner
var x: int = 0
var seen: list of int = []
setup:
    move cards(gem) to pile
    shuffle pile
flow:
    turn first(players):
        choose i in [0, 1, 2] by first(players)
        draw 1 from pile to first(players).hand
        set x += 5
        set seen = seen + [i]
        log "{first(players)} drew"
        set x = 10 / (i - 1)
        choose j in [1, 2] by first(players)
'''


def test_an_action_failing_halfway_changes_nothing(tmp_path):
    (tmp_path / "game.rules").write_text(RULES)
    state = interpreter.load(str(tmp_path)).new_game(players=2, seed=4)
    before = state.clone()
    text = state.to_json()
    with pytest.raises(RuleRuntimeError, match=r"game\.rules:22:"):
        state.apply_index(1, 0)  # i = 1: a card drawn, vars set, a line logged, then 10 / 0
    assert state.s == before.s
    assert state.to_json() == text
    assert state.num_actions(0) == 3
    with pytest.raises(RuleRuntimeError, match=r"game\.rules:22:"):
        state.apply(state.legal_actions(0)[1])
    assert state.s == before.s
    state.apply_index(2, 0)  # i = 2 goes through
    assert state.s.vars["x"] == 10 and state.s.vars["seen"] == [2]
    assert len(state.s.zones["hand#0"]) == 1 and state.num_actions(0) == 2


def test_a_copy_has_every_field_of_the_state_and_equals_it():
    """GameState.copy sets its fields one by one: a field added to GameState and forgotten there
    would be missing from copies. Every field of a copy is set, equal, and a container of its own
    (mid-game in a step of choosing at once, so the branches are copied too)."""
    import random

    import attrs

    from interpreter.engine.state import GameState
    from interpreter.tools.simulate import next_player

    game = interpreter.load(str(Path(__file__).resolve().parent.parent / "games" / "welcome_to"))
    state = game.new_game(players=3, seed=2)
    rng = random.Random(2)
    while not state.s.branches:
        state.apply_index(rng.randrange(state.num_actions(next_player(state))), next_player(state))
    s = state.s
    c = s.copy()
    for field in attrs.fields(GameState):
        mine, theirs = getattr(c, field.name), getattr(s, field.name)
        assert mine == theirs, field.name
        if isinstance(mine, (list, dict)) and field.name != "chance_at":  # (never changed in place)
            assert mine is not theirs, field.name


def test_decisions_kept_for_reuse_are_the_decisions(monkeypatch):
    """State.decision reuses the Decision of a (player, prompt) asked before, up to
    MAX_DECISIONS_KEPT of them per game: the same answers as a Decision made afresh."""
    import random

    from interpreter import Decision
    from interpreter.engine import api

    monkeypatch.setattr(api, "MAX_DECISIONS_KEPT", 1)
    game = interpreter.load(str(Path(__file__).resolve().parent.parent / "examples" / "games" / "tic_tac_toe"))
    rng = random.Random(3)
    seen = set()
    for seed in range(3):
        state = game.new_game(players=2, seed=seed)
        while not state.is_over:
            p = state.s.pending
            assert state.decision == Decision((p.player,), False, p.prompt)
            seen.add((p.player, p.prompt))
            state.apply_index(rng.randrange(state.num_actions()))
        assert state.decision is None
    assert len(seen) == 2 and len(game._decisions) == 1  # X's and O's question; one kept
