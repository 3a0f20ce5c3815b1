"""The adapters leak nothing: for every game folder, what OpenSpiel and PettingZoo hand a player
(observation string and tensor, information-state string, legal actions, the PettingZoo
observation and mask) stays the same when only what that player cannot know changes. The
change is the engine's own: ``state.resample(player, seed)`` deals the cards the player does
not know again among the places they cannot see (and reseeds what is still to come)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

pyspiel = pytest.importorskip("pyspiel")
pytest.importorskip("pettingzoo")

import numpy as np  # noqa: E402

import interpreter  # noqa: E402
from interpreter.adapters.openspiel import _Live  # noqa: E402
from interpreter.openspiel import load_game  # noqa: E402
from interpreter.pettingzoo import env  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def rule_games() -> list[str]:
    folders = sorted((ROOT / "games").iterdir()) + sorted((ROOT / "examples" / "games").iterdir())
    return [str(f.relative_to(ROOT)) for f in folders if (f / "game.rules").exists()]


def seen_by(state, player: int) -> tuple:
    """Everything the OpenSpiel adapter gives this player about this state."""
    legal = state.legal_actions(player) if not state.is_terminal() and not state.is_chance_node() else []
    return (state.observation_string(player), list(state.observation_tensor(player)),
            state.information_state_string(player), list(state.information_state_tensor(player)), legal)


def with_rules_state(state, rules_state):
    """The same OpenSpiel state (history, each player's own choices) around another rules state."""
    other = state.clone()
    other.live = _Live(rules_state, None, [c[:] for c in state.live.choices])
    return other


@pytest.mark.parametrize("path", rule_games())
def test_openspiel_views_do_not_change_with_what_a_player_cannot_know(path):
    rules = interpreter.load(str(ROOT / path))
    players = max(rules.min_players, min(3, rules.max_players))
    game = load_game(str(ROOT / path), players=players)
    state = game.new_initial_state()
    if not hasattr(state.rules_state, "resample"):
        pytest.skip("needs state.resample from the engine (issue 12)")
    hidden = game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    rng = random.Random(path)
    checked = changed = 0
    for step in range(60):
        if state.is_terminal():
            break
        if step % 6 == 0:
            for player in range(players):
                mine = seen_by(state, player)
                for seed in range(3):
                    other = with_rules_state(state, state.rules_state.resample(player, seed))
                    assert seen_by(other, player) == mine, f"{path}: step {step}, player {player}"
                    changed += str(other) != str(state)
                    checked += 1
        if state.is_chance_node():
            outcomes, odds = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, odds)[0])
        elif state.is_simultaneous_node():
            state.apply_actions([rng.choice(state.legal_actions(p) or [0]) for p in range(players)])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    assert checked > 0
    if hidden:  # the test could fail: the resampled states really differ in what is hidden
        assert changed > 0, f"{path}: resample never changed the state"


@pytest.mark.parametrize("path", ["games/off_plan", "games/plunderbund", "games/welcome_to"])
def test_pettingzoo_observations_do_not_change_with_what_a_player_cannot_know(path):
    e = env(str(ROOT / path), players=2)
    e.reset(seed=4)
    if not hasattr(e.state, "resample"):
        pytest.skip("needs state.resample from the engine (issue 12)")
    rng = random.Random(4)
    changed = 0
    for step in range(40):
        if step % 5 == 0:
            real = e.state
            for agent in e.possible_agents:
                player = e.possible_agents.index(agent)
                mine = e.observe(agent)
                e.state = real.resample(player, step)
                theirs = e.observe(agent)
                changed += e.state.to_json() != real.to_json()
                e.state = real
                assert np.array_equal(mine["observation"], theirs["observation"]), f"{path}: step {step}, {agent}"
                assert np.array_equal(mine["action_mask"], theirs["action_mask"]), f"{path}: step {step}, {agent}"
        mask = e.observe(e.agent_selection)["action_mask"]
        e.step(int(rng.choice(mask.nonzero()[0])))
    assert changed > 0
