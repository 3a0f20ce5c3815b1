"""The constructs of the language's second edition at work in examples/games/expeditions:
zones per enum member, zones as values, card series (their scenarios are in the example's folder)."""

from conftest import ROOT

import interpreter

EXPEDITIONS = str(ROOT / "examples" / "games" / "expeditions")


def first_decision():
    return interpreter.load(EXPEDITIONS).new_game(players=2, seed=0)


def labels(state):
    return [a.label for a in state.legal_actions(state.decision.players[0])]


def choose(state, label):
    p = state.decision.players[0]
    state.apply(next(a for a in state.legal_actions(p) if a.label == label))


def test_a_zone_per_member_is_one_zone_per_member_and_per_player():
    state = first_decision()
    zones = state.view(0)["zones"]
    assert [k for k in zones if k.startswith("discard")] == [
        "discard[yellow]", "discard[blue]", "discard[white]", "discard[green]", "discard[red]"]
    assert sum(1 for k in zones if k.startswith("expedition[")) == 10


def test_a_choice_among_zones_offers_only_the_zones_allowed_and_draws_from_the_one_chosen():
    state = first_decision()
    choose(state, "red 7")
    choose(state, "Discard red 7")
    assert labels(state) == ["deck"]  # the red pile was used this turn; the others are empty
    # (drawing from a chosen discard pile: examples/games/expeditions/expeditions.scenario)


def test_a_card_series_makes_one_card_per_combination_in_order():
    game = interpreter.load(EXPEDITIONS)
    names = game.compiled.card_names
    assert len(names) == 60
    assert names[:3] == ["yellow 2", "yellow 3", "yellow 4"]
    assert names.count("red wager") == 3


def test_the_game_plays_to_the_end_and_saves(tmp_path):
    from interpreter.agents import RandomAgent
    game = interpreter.load(EXPEDITIONS)
    state = game.new_game(players=2, seed=5)
    agent = RandomAgent(seed=2)
    while not state.is_over:
        p = state.decision.players[0]
        state.apply(agent.choose(state, p))
        assert game.state_from_json(state.to_json()) == state
    assert len(state.scores()) == 2
