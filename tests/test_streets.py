"""Streets (games/streets): properties over random games, and the geometry of the city.

The scenarios (the promo rulebook's examples, a scenario per valuation type) are in
games/streets/scenarios and run with tests/test_scenarios.py."""

import random

import pytest
from conftest import ROOT

import interpreter

STREETS = str(ROOT / "games" / "streets")
PROMO = str(ROOT / "games" / "streets" / "promo.rules")


def play_random(players, seed, options=None, check=None, path=STREETS):
    game = interpreter.load(path, options=options or {})
    state = game.new_game(players=players, seed=seed)
    rng = random.Random(seed)
    decisions = 0
    while not state.is_over:
        who = state.decision.players[0]
        state.apply(rng.choice(state.legal_actions(who)))
        decisions += 1
        assert decisions < 2000, "a game of Streets that does not end"
        if check:
            check(state)
    return state


def people_total(state):
    """People on buildings and in the supply (Big People counted as five: 68 with the promo pack)."""
    return sum(v for k, v in state.s.tokens.items() if k.split("|")[1] == "person")


def check_properties(state):
    g = state.game.compiled
    assert state.check_invariants() == []
    # every building is in exactly one place
    where = [z for z, cards in state.s.zones.items() for _ in cards]
    assert len(where) == len(g.card_names)
    assert people_total(state) == state.game.compiled.token_supply["person"]
    assert sorted(int(k) for k in state.s.cells) == sorted(state.s.zones["city"])


CASES = [
    (2, {}, STREETS), (5, {}, STREETS), (1, {}, STREETS),
    (3, {"business_expansion": True}, STREETS), (4, {"consultants": True}, STREETS),
    (1, {"consultants": True, "business_expansion": True}, PROMO),
    (3, {"consultants": True, "business_expansion": True}, PROMO),
]


@pytest.mark.parametrize("players, options, path", CASES, ids=[f"{p}p-{'-'.join(o) or 'base'}-{path[-5:]}" for p, o, path in CASES])
def test_random_games_keep_every_property_and_end(players, options, path):
    state = play_random(players, seed=players, options=options, check=check_properties, path=path)
    assert state.s.vars["finished"]
    money = sum(state.s.vars[f"money#{p}"] for p in range(players)) + state.s.vars["grifter_money"]
    start = (20 + (40 if options.get("consultants") else 0)) if players == 1 else 0
    assert money == state.s.vars["scored_total"] + start
    # every hand played out, and the city holds the start tiles and every building built
    assert all(not state.s.zones[f"hand#{p}"] for p in range(players))
    assert not state.s.zones["building_stack"]
    assert state.s.vars["scored_total"] > 0


def test_the_city_starts_with_the_station_and_the_park_at_a_corner():
    state = interpreter.load(STREETS).new_game(players=2, seed=0)
    cells = {state.game.card_name(int(k)): v for k, v in state.s.cells.items()}
    assert cells == {"Central Station": [0, 0, "south"], "City Park": [0, 1, "west"]}
    station = state.find_cards("Central Station")[0]
    assert sum(state.s.tokens.get(f"c{station}|person|{s}", 0) for s in ("tourist", "hipster", "parent", "shopper")) == 4


def test_placements_are_listed_readably_and_obey_the_road_rules():
    state = interpreter.load(STREETS).new_game(players=2, seed=0)
    state.apply(state.legal_actions()[0])  # the building to build
    labels = [a.label for a in state.legal_actions()]
    assert all(" at row " in x and ", road " in x for x in labels)
    # the station faces south on row 0: another south-facing building just east would sit on the
    # park's cell, just west it extends the station's street; north-facing below it makes a wide street
    assert any(x.endswith("at row 0, column -1, road east-west, facing south") for x in labels)
    assert not any(x.endswith("at row 1, column 0, road east-west, facing north") for x in labels)
    # a north-facing building west of the station: its road would not meet any road
    assert not any(x.endswith("at row 0, column -1, road east-west, facing north") for x in labels)


def test_the_promo_pack_puts_its_ten_buildings_in_the_stack():
    state = interpreter.load(PROMO).new_game(players=4, seed=3)
    names = {state.game.card_name(c) for z in ("building_stack", "hand#0", "hand#1", "hand#2", "hand#3")
             for c in state.s.zones[z]}
    assert {"Fast Cars", "Ball Playground", "Grooming Salon", "Construction Site", "Swap Shop"} <= names
    assert len(names) == 40


def test_the_stack_has_the_rulebooks_size_for_each_player_count():
    sizes = {}
    for players in (2, 3, 4, 5):
        state = interpreter.load(STREETS).new_game(players=players, seed=1)
        sizes[players] = len(state.s.zones["building_stack"]) + 3 * players
    assert sizes == {2: 30, 3: 36, 4: 40, 5: 45}


def test_a_player_sees_nothing_of_a_rivals_hand_or_the_stack():
    """Swap a card of Player 2's hand with one in the stack: Player 1's view stays the same."""
    state = interpreter.load(STREETS).new_game(players=2, seed=4)
    swapped = state.clone()
    s = swapped.s
    held, hidden = s.zones["hand#1"][0], s.zones["building_stack"][0]
    assert state.game.card_name(held) != state.game.card_name(hidden)
    swapped.place(held, "building_stack", 0)
    swapped.place(hidden, "hand#1", 0)
    assert state.view(0) == swapped.view(0)
    assert state.view(1) != swapped.view(1)


def test_the_view_shows_where_each_building_lies():
    state = interpreter.load(STREETS).new_game(players=2, seed=0)
    city = state.view(0)["zones"]["city"]
    assert city["cards"] == ["Central Station (+4 People)", "City Park"] or city["cards"][1] == "City Park"
    assert city["cells"] == [[0, 0, "south"], [0, 1, "west"]]
