"""`State.current_player()`: the seat a program asks for before every action, answered without a
Decision. It must name the seat the Decision names (the first one still choosing with a legal
action in a `simultaneously` step, chance at a chance node, nobody once the game is over)."""

from __future__ import annotations

import random
from pathlib import Path

import attrs
import pytest

import interpreter
from interpreter.engine.chance import CHANCE
from interpreter.tools.simulate import next_player

ROOT = Path(__file__).resolve().parents[1]


def seat_from_decision(state) -> int | None:
    """The seat to act, worked out from the Decision and the legal actions (the long way)."""
    decision = state.decision
    if decision is None:
        return None
    players = list(decision.players)
    if len(players) == 1 or not decision.simultaneous:
        return players[0]
    return next((p for p in players if state.legal_actions(p)), players[0])


@pytest.mark.parametrize(("path", "players", "chance"), [
    ("games/plunderbund", 3, "seeded"),  # `simultaneously` steps
    ("games/welcome_to", 2, "seeded"),  # everyone writes a house at once
    ("examples/games/kuhn_poker", 2, "explicit"),  # chance nodes
    ("examples/games/tic_tac_toe", 2, "seeded"),
])
def test_current_player_names_the_seat_the_decision_names(path: str, players: int, chance: str) -> None:
    game = interpreter.load(str(ROOT / path))
    rng = random.Random(5)
    seen_simultaneous = seen_chance = False
    for seed in range(3):
        state = game.new_game(players=players, seed=seed, chance=chance)
        while True:
            expected = seat_from_decision(state)
            assert state.current_player() == expected
            if state.is_over:
                assert expected is None
                with pytest.raises(RuntimeError, match="game is over"):
                    next_player(state)
                break
            assert next_player(state) == expected
            seen_chance |= expected == CHANCE
            seen_simultaneous |= bool(state.decision.simultaneous)
            actions = state.legal_actions(expected)
            state.apply(actions[rng.randrange(len(actions))])
    assert seen_chance == (chance == "explicit")
    if "plunderbund" in path or "welcome_to" in path:
        assert seen_simultaneous


def test_in_a_simultaneous_step_the_first_seat_with_a_legal_action_acts() -> None:
    """A part waiting with nothing to choose (a state changed from outside) is passed over, as
    the legal actions are; when no part has any, the first one still choosing is named."""
    game = interpreter.load(str(ROOT / "games/plunderbund"))
    state = game.new_game(players=3, seed=1)
    rng = random.Random(1)
    while not (state.decision.simultaneous and len(state.decision.players) >= 2):
        actions = state.legal_actions(next_player(state))
        state.apply(actions[rng.randrange(len(actions))])
    first, second = state.decision.players[:2]
    assert state.current_player() == first
    waiting = [b for b in state.s.branches if b.pending is not None]
    waiting[0].pending = attrs.evolve(waiting[0].pending, values=[], labels=[])
    assert state.legal_actions(first) == []
    assert state.current_player() == second == seat_from_decision(state)
    for b in waiting:
        b.pending = attrs.evolve(b.pending, values=[], labels=[])
    assert state.current_player() == first == seat_from_decision(state)
