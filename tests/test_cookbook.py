"""The cookbook's example games (examples/cookbook/, docs/cookbook.md): each has scenarios (run by
tests/test_scenarios.py), plays to its end at every player count it allows, and does what its
recipe says where a scenario cannot look (what a player may see, what is not offered)."""

import pytest
from conftest import ROOT

import interpreter
from interpreter.agents import RandomAgent

COOKBOOK = ROOT / "examples" / "cookbook"
RECIPES = sorted(p.name for p in COOKBOOK.iterdir() if p.is_dir())


def load(name):
    return interpreter.load(str(COOKBOOK / name))


def labels(state, player=None):
    p = state.decision.players[0] if player is None else player
    return [a.label for a in state.legal_actions(p)]


def choose(state, label, player=None):
    p = state.decision.players[0] if player is None else player
    state.apply(next(a for a in state.legal_actions(p) if a.label.startswith(label)))


def test_every_recipe_has_a_game_with_scenarios_and_a_section_of_the_cookbook():
    assert RECIPES == ["draft", "hidden_hands", "lowest_score", "market", "reshuffle", "simultaneous", "track"]
    text = (ROOT / "docs" / "cookbook.md").read_text(encoding="utf-8")
    for name in RECIPES:
        assert (COOKBOOK / name / "game.rules").is_file()
        scenarios = list((COOKBOOK / name).glob("*.scenario"))
        assert scenarios and "scenario \"" in scenarios[0].read_text(encoding="utf-8")
        assert f"examples/cookbook/{name}/" in text, f"docs/cookbook.md does not show {name}"


@pytest.mark.parametrize("name", RECIPES)
def test_the_game_plays_to_its_end_at_every_player_count(name):
    game = load(name)
    for players in range(game.min_players, game.max_players + 1):
        for seed in range(3):
            state = game.new_game(players=players, seed=seed)
            agents = [RandomAgent(seed=seed * 10 + i) for i in range(players)]
            steps = 0
            while not state.is_over:
                p = state.decision.players[0]
                state.apply(agents[p].choose(state, p))
                steps += 1
                assert steps < 3000, f"{name} with {players} players does not end"
            assert state.check_invariants() == []
            assert len(state.winners()) >= 1


def test_a_hidden_hand_does_not_reach_the_other_players_view():
    state = load("hidden_hands").new_game(players=2, seed=1)
    before_0, before_1 = state.view(0), state.view(1)
    # Swap a card of player 1's hand (player index 0) with a card of the deck: the count stays.
    mine = state.s.zones["hand#0"][0]
    other = state.s.zones["deck"][0]
    state.place(mine, "deck")
    state.place(other, "hand#0")
    assert state.view(1) == before_1  # player 2 cannot tell
    assert state.view(0) != before_0  # while player 1 can: the test can fail
    assert before_1["zones"]["hand#0"]["cards"] is None and before_1["zones"]["hand#0"]["count"] == 4
    # The choice among player 1's cards is offered to player 1 only.
    assert state.legal_actions(1) == [] and before_1["decision"]["actions"] is None
    assert len(state.legal_actions(0)) == 4


def test_a_sealed_bid_stays_sealed_until_everybody_has_bid():
    state = load("simultaneous").new_game(players=2, seed=0)
    before = state.view(1)
    choose(state, "Bid 7", player=0)
    assert state.s.vars["bid#0"] == 7
    after = state.view(1)
    assert after["vars"]["bid"] == before["vars"]["bid"]
    assert after["tokens"] == before["tokens"]
    choose(state, "Bid 3", player=1)
    assert state.view(1)["vars"]["bid"] == {"Player 1": 0, "Player 2": 0}  # settled and reset
    assert state.scores()[0] >= 1  # player 1 won a lot of 1 to 7 points


def test_a_player_without_chips_is_only_offered_to_take_the_card():
    state = load("lowest_score").new_game(players=3, seed=0)
    assert [x.split(" ")[0] for x in labels(state)] == ["Take", "No,"]
    state.set_tokens(0, "chip", 0)
    state.run_procedure("face_card", 0, active=0)
    assert len(labels(state)) == 1 and labels(state)[0].startswith("Take")


def test_the_market_sweep_is_offered_once_a_turn():
    state = load("market").new_game(players=2, seed=0)
    assert any(x.startswith("Sweep") for x in labels(state))
    choose(state, "Sweep")
    assert not any(x.startswith("Sweep") for x in labels(state))
    assert any(x == "Pass" for x in labels(state))
