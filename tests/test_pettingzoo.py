"""The PettingZoo adapter: PettingZoo's own API test on the three seed games and tic-tac-toe,
whole games played to the end through the environment, and the convention for decisions taken
at the same time (in seat order, nobody seeing another's choice before everyone has chosen)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pettingzoo")

import numpy as np  # noqa: E402
from pettingzoo.test import api_test  # noqa: E402

from interpreter.pettingzoo import env  # noqa: E402

# The observation is a dict (the view and the action mask), as in PettingZoo's own board games,
# which its API test warns about.
pytestmark = pytest.mark.filterwarnings("ignore:Observation")

ROOT = Path(__file__).resolve().parents[1]
GAMES = [("games/off_plan", 3), ("games/welcome_to", 2), ("games/plunderbund", 2),
         ("examples/games/tic_tac_toe", 2), ("examples/games/expeditions", 2)]


@pytest.mark.parametrize(("path", "players"), GAMES)
def test_pettingzoo_api_test_passes(path, players):
    api_test(env(str(ROOT / path), players=players), num_cycles=300)


def play_out(e, seed: int) -> tuple[list[str], dict]:
    """Play a whole game with seeded random legal actions; the agents in the order they acted
    and the rewards each agent received."""
    rng = np.random.default_rng(seed)
    e.reset(seed=seed)
    order, total = [], dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        observation, reward, termination, truncation, _ = e.last()
        total[agent] += reward
        if termination or truncation:
            e.step(None)
            continue
        order.append(agent)
        e.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return order, total


def test_a_whole_game_ends_with_the_engines_returns():
    e = env(str(ROOT / "examples" / "games" / "tic_tac_toe"), players=2)
    for seed in range(5):
        order, total = play_out(e, seed)
        assert order[:2] == ["player_0", "player_1"]
        returns = e.unwrapped.state.returns()
        assert [total[a] for a in e.possible_agents] == returns
        assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])


def test_same_seed_same_game():
    e = env(str(ROOT / "games" / "plunderbund"), players=2)
    first = play_out(e, 4)
    actions_first = e.unwrapped.state.actions_taken
    assert play_out(e, 4) == first and e.unwrapped.state.actions_taken == actions_first


def test_simultaneous_decisions_go_in_seat_order_and_stay_hidden():
    e = env(str(ROOT / "games" / "welcome_to"), players=3)
    e.reset(seed=2)
    state = e.unwrapped.state
    assert state.decision.simultaneous and list(state.decision.players) == [0, 1, 2]
    assert e.agent_selection == "player_0"
    before = e.observe("player_1")["observation"].copy()
    mask = e.observe("player_0")["action_mask"]
    e.step(int(np.flatnonzero(mask)[-1]))
    # Player 1 is next (or Player 0 again if their part goes on); either way Player 1 sees
    # nothing of Player 0's choice yet.
    assert e.agent_selection in ("player_0", "player_1")
    assert np.array_equal(e.observe("player_1")["observation"], before)
    assert not e.observe("player_2")["action_mask"].any()  # only the selected agent has actions


def test_an_illegal_action_is_refused_and_changes_nothing():
    e = env(str(ROOT / "examples" / "games" / "tic_tac_toe"), players=2)
    e.reset(seed=0)
    e.step(4)
    before = e.unwrapped.state.clone()
    with pytest.raises(ValueError, match="action 4 is not legal now"):
        e.step(4)
    assert e.unwrapped.state == before
