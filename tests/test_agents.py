"""Agents, the game runner, game logs and terminal rendering, on the real Off-Plan rules."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

import interpreter
from interpreter.agents import GreedyAgent, RandomAgent, agent_seed, make_agent
from interpreter.tools.play import HumanAgent, QuitGame, render_result, render_view
from interpreter.tools.simulate import (
    LogError,
    load_log,
    make_log,
    next_player,
    replay,
    run_game,
    save_log,
    simulate,
)

GAME = str(Path(__file__).resolve().parents[1] / "games" / "off_plan")


@pytest.fixture(scope="module")
def game():
    return interpreter.load(GAME)


def choices(game, agent_factory, seed: int, players: int = 3, limit: int = 60) -> list:
    """The first ``limit`` (player, value) choices of a game where every seat uses a
    fresh agent from ``agent_factory(seat)``."""
    state = game.new_game(players=players, seed=seed)
    agents = [agent_factory(seat) for seat in range(players)]
    made = []
    while not state.is_over and len(made) < limit:
        p = next_player(state)
        action = agents[p].choose(state, p)
        assert action.value in [a.value for a in state.legal_actions(p)]
        made.append((p, json.dumps(action.value, sort_keys=True)))
        state.apply(action)
    return made


def test_random_agent_same_seed_same_choices(game):
    first = choices(game, lambda seat: RandomAgent(100 + seat), seed=1)
    again = choices(game, lambda seat: RandomAgent(100 + seat), seed=1)
    assert first and first == again


def test_random_agent_different_seeds_differ(game):
    runs = {tuple(choices(game, lambda seat, k=k: RandomAgent(k * 10 + seat), seed=1)) for k in range(5)}
    assert len(runs) > 1


def test_greedy_agent_same_seed_same_choices(game):
    first = choices(game, lambda seat: GreedyAgent(7 + seat), seed=2, limit=25)
    again = choices(game, lambda seat: GreedyAgent(7 + seat), seed=2, limit=25)
    assert first and first == again


def test_greedy_agent_picks_a_best_scoring_action(game):
    state = game.new_game(players=3, seed=5)
    agent = GreedyAgent(0)
    for _ in range(15):
        if state.is_over:
            break
        p = next_player(state)
        legal = state.legal_actions(p)
        best = max(agent.evaluate(state, p, a) for a in legal)
        before = state.to_json()
        action = agent.choose(state, p)
        assert state.to_json() == before  # choosing never changes the state
        assert agent.evaluate(state, p, action) == best
        state.apply(action)


def test_make_agent():
    assert isinstance(make_agent("random", 1), RandomAgent)
    assert isinstance(make_agent("Greedy", 1), GreedyAgent)
    assert isinstance(make_agent("human"), HumanAgent)
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("wizard", 1)


def test_agent_seeds_differ_by_seat_and_game():
    seeds = {agent_seed(g, s) for g in range(20) for s in range(6)}
    assert len(seeds) == 120


def test_run_game_record(game):
    record = run_game(game, 3, 8, ["random", "greedy", "random"])
    assert record.error is None, record.error
    assert record.decisions == len(record.actions) > 0
    assert len(record.scores) == 3 and record.winners
    assert set(record.winners) <= {0, 1, 2}
    assert run_game(game, 3, 8, ["random", "greedy", "random"]).actions == record.actions


class _Broken:
    """A game whose setup fails, to show that a batch records errors and goes on."""

    name = "Broken"
    source_path = "broken"
    option_values: dict = {}

    def new_game(self, players, seed):
        raise RuntimeError(f"setup failed for seed {seed}")


def test_errors_are_recorded_not_raised():
    record = run_game(_Broken(), 2, 3)
    assert record.error == "RuntimeError: setup failed for seed 3"
    summary = simulate(_Broken(), 2, 3, seed=10)
    assert summary.completed == 0
    assert [e["seed"] for e in summary.errors] == [10, 11, 12]


def test_log_round_trip_and_replay(game, tmp_path):
    record = run_game(game, 2, 21)
    path = tmp_path / "game.json"
    save_log(str(path), make_log(game, record, GAME))
    log = load_log(str(path))
    assert log["actions"] == record.actions
    assert log["result"] == {"scores": record.scores, "winners": record.winners}
    result = replay(str(path), GAME)
    assert result.ok, result.message
    assert result.scores == record.scores
    with pytest.raises(LogError, match="--game"):
        replay(str(path))  # the log's own game_path is outside the log's folder: never read


def test_load_log_refuses_garbage(tmp_path):
    path = tmp_path / "x.json"
    path.write_text("[1, 2, 3]")
    with pytest.raises(LogError, match="not a rulelang game log"):
        load_log(str(path))


def test_render_view_and_result(game):
    state = game.new_game(players=3, seed=4)
    text = render_view(state.view(0), "Off-Plan")
    assert "round" in text and "Zones:" in text
    while not state.is_over:
        p = next_player(state)
        state.apply(RandomAgent(p).choose(state, p))
    result = render_result(state)
    assert "Game over." in result and "Winner" in result


def test_human_agent_reads_a_number(game):
    state = game.new_game(players=2, seed=1)
    p = next_player(state)
    legal = state.legal_actions(p)
    out = io.StringIO()
    pick = min(2, len(legal))
    human = HumanAgent(input=io.StringIO(f"hello\n0\n{len(legal) + 1}\n?\n{pick}\n"), output=out)
    assert human.choose(state, p).value == legal[pick - 1].value
    assert out.getvalue().count("Please type a number") == 3


@pytest.mark.parametrize("typed", ["q\n", ""])
def test_human_agent_quits(game, typed):
    state = game.new_game(players=2, seed=1)
    p = next_player(state)
    with pytest.raises(QuitGame):
        HumanAgent(input=io.StringIO(typed), output=io.StringIO()).choose(state, p)
