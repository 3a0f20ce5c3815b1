"""Off-Plan, Standard Mode: the rulebook's own examples and its general rules.

The rulebook is /work/shared/rulebooks/off-plan.txt; the rules under test are games/off_plan.
Card values (profit, icons, needs, the Urban Investment bonuses) are the STAND-IN values of
games/off_plan/cards.rules; each test names the ones it relies on.
"""

import pytest
from off_plan_helpers import (
    COLOURS,
    GAME_PATH,
    TOTAL_FUNDS,
    attrs_of,
    bare_state,
    clear_player,
    copy_of,
    decline_until,
    funds,
    game,
    give,
    labels,
    log_texts,
    move,
    names,
    new_state,
    pass_turn,
    pick,
    prompt,
    put_on_house_deck,
    set_funds,
    set_house_market,
    set_neighbourhoods,
    set_room_market,
    with_character,
)

import interpreter
from interpreter.engine.api import State

# ---- Final Scoring: bonus icons -------------------------------------------------------


def test_icon_scoring_rulebook_example_is_worth_12():
    """"1 Satisfaction icon + 2 School zone icons + 4 Green areas icons + 0 Profitability icons
    = 1 + 3 + 8 + 0 = 12 profit points."""
    s = bare_state(players=3)
    # stand-in icons: Green Eco House [green, green], Red Villa [green], Green Cabin [green],
    # Blue Apartment [school], Orange Flat [school], Green Semi-Detached [satisfaction]
    give(s, 0, "play_area", ["Green Eco House", "Red Villa", "Green Cabin", "Blue Apartment",
                             "Orange Flat", "Green Semi-Detached"])
    assert s.score_breakdown(0)["bonus_icons"] == 12


@pytest.mark.parametrize("houses, points", [
    ([], 0),
    (["Red Cottage"], 1),
    (["Red Cottage", "Green Semi-Detached"], 3),
    (["Red Cottage", "Green Semi-Detached", "Orange Rooftop Flat"], 5),
    (["Red Cottage", "Green Semi-Detached", "Orange Rooftop Flat", "Blue Bungalow"], 12),  # 5 satisfaction
])
def test_icon_table_one_to_five(houses, points):
    """Quantity 1 2 3 4 5 -> points 1 3 5 8 12. (Stand-ins: Red Cottage, Green Semi-Detached and
    Orange Rooftop Flat have one Satisfaction icon each; Blue Bungalow has two.)"""
    s = bare_state(players=3)
    give(s, 0, "play_area", houses)
    assert s.score_breakdown(0)["bonus_icons"] == points


def test_icon_four_of_one_kind_scores_8():
    s = bare_state(players=3)
    give(s, 0, "play_area", ["Red Cottage", "Green Semi-Detached", "Blue Bungalow"])  # 4 satisfaction
    assert s.score_breakdown(0)["bonus_icons"] == 8


def test_icons_past_five_score_as_five():
    # Not in the rulebook (marked in scoring.rules): the table stops at 5; a 6th and 7th
    # Satisfaction icon neither add nor cost anything.
    s = bare_state(players=3)
    give(s, 0, "play_area", ["Red Cottage", "Green Semi-Detached", "Orange Rooftop Flat", "Blue Bungalow",
                             "Red Townhouse"])  # 6 satisfaction, 1 school zone
    assert s.score_breakdown(0)["bonus_icons"] == 12 + 1
    give(s, 0, "play_area", ["Orange Maisonette"])  # 7 satisfaction, 1 profitability
    assert s.score_breakdown(0)["bonus_icons"] == 12 + 1 + 1


def test_icons_of_characters_and_public_buildings_count():
    """"based on how many times it appears across their Houses, Public Buildings and Characters"."""
    s = bare_state(players=3)
    give(s, 0, "play_area", ["Red Cottage"])  # 1 satisfaction -> 1
    assert s.score_breakdown(0)["bonus_icons"] == 1
    with_character(s, 0, "The Dealer")  # [satisfaction] -> 2 satisfaction -> 3
    assert s.score_breakdown(0)["bonus_icons"] == 3
    give(s, 0, "play_area", ["Town Hall"])  # [satisfaction, profitability] -> 3 sat (5) + 1 prof (1)
    assert s.score_breakdown(0)["bonus_icons"] == 6


# ---- Final Scoring: profit points of buildings and Funds -------------------------------------


def test_buildings_score_their_profit_points():
    """"From the Houses and Public Buildings in their play area." (Characters have none.)"""
    s = bare_state(players=3)
    give(s, 0, "play_area", ["Red Cottage", "Blue Manor", "School", "The Broker"])  # 2 + 5 + 4
    assert s.score_breakdown(0)["buildings"] == 11
    give(s, 1, "hand", ["Red Mansion"])  # in hand, not built: nothing
    assert s.score_breakdown(1)["buildings"] == 0


@pytest.mark.parametrize("tokens, points", [(0, 0), (1, 0), (2, 0), (3, 1), (5, 1), (6, 2), (8, 2), (9, 3), (14, 4)])
def test_every_three_funds_is_one_point(tokens, points):
    s = bare_state(players=3)
    set_funds(s, 0, tokens)
    assert s.score_breakdown(0)["funds_tokens"] == points
    assert s.score_breakdown(0)["black_money"] == 0


def test_black_money_subtracts_one_each_and_still_counts_as_a_funds_token():
    """"Every 3 Funds tokens in their supply are worth 1 profit point. Each black money Funds
    token subtracts 1 profit point." 7 normal + 2 black = 9 tokens: 3 points, -2."""
    s = bare_state(players=3)
    set_funds(s, 0, 7, black=2)
    b = s.score_breakdown(0)
    assert (b["funds_tokens"], b["black_money"]) == (3, -2)
    set_funds(s, 0, 0, black=4)
    b = s.score_breakdown(0)
    assert (b["funds_tokens"], b["black_money"]) == (1, -4)


def test_score_is_the_sum_of_its_lines():
    s = bare_state(players=3)
    give(s, 0, "play_area", ["Red Cottage", "The Dealer"])
    set_funds(s, 0, 4, black=1)
    b = s.score_breakdown(0)
    assert s.scores()[0] == sum(b.values())
    assert set(b) == {"buildings", "funds_tokens", "black_money", "bonus_icons", "mission", "neighbourhoods"}


# ---- Final Scoring: the Urban Investment card -------------------------------------------------
# Stand-in bonuses (cards.rules): 3+ players [4, 2, 0, -2]; 1+ players [2, 1, 0, -1].


def neighbourhood_points(s: State, house: str) -> int:
    """The neighbourhood bonus a player with only this House gets."""
    clear_player(s, 0)
    give(s, 0, "play_area", [house])
    return s.score_breakdown(0)["neighbourhoods"]


def test_neighbourhood_tie_rulebook_example():
    """"a tie for second place between the red and blue neighbourhoods. The Houses in these
    neighbourhoods receive the third bonus, and the Houses in the next neighbourhood receive the
    fourth bonus." Green 5, red 3, blue 3, orange 1 (3 players: 4 / 2 / 0 / -2)."""
    s = bare_state(players=3)
    set_neighbourhoods(s, green=5, red=3, blue=3, orange=1)
    assert neighbourhood_points(s, "Green Cabin") == 4  # first bonus
    assert neighbourhood_points(s, "Red Cottage") == 0  # third bonus, not the second (2)
    assert neighbourhood_points(s, "Blue Studio") == 0  # third bonus
    assert neighbourhood_points(s, "Orange Flat") == -2  # fourth bonus
    clear_player(s, 0)
    give(s, 0, "play_area", ["Green Cabin", "Red Cottage", "Blue Studio", "Orange Flat"])
    assert s.score_breakdown(0)["neighbourhoods"] == 4 + 0 + 0 - 2


# Four bonuses that tell the rule from its likely misreadings: with the stand-ins (third bonus
# 0) "tied neighbourhoods get nothing" would pass the example above.
TELLING_BONUSES = "replace const urban_bonus_three_plus = [7, 5, 3, -2]\n"


@pytest.mark.parametrize("amounts, expected, wrong", [
    # the rulebook's example: second place tied between red and blue
    (dict(green=5, red=3, blue=3, orange=1), [7, 3, 3, -2],
     {"no level lost": [7, 5, 5, 3], "tied get nothing": [7, 0, 0, -2],
      "only the tied lose a level": [7, 3, 3, 3], "places skipped (1, 2, 2, 4)": [7, 5, 5, -2]}),
    # tied for first: the tied and all the next ones a level lower
    (dict(green=4, red=4, blue=2, orange=1), [5, 5, 3, -2],
     {"no level lost": [7, 7, 5, 3], "only the tied lose a level": [5, 5, 5, 3]}),
])
def test_neighbourhood_ties_with_values_that_tell_right_from_wrong(tmp_path, amounts, expected, wrong):
    """"If neighbourhoods are tied, the tied neighbourhoods and all subsequent ones receive one
    lower level of bonus." Example: "a tie for second place between the red and blue
    neighbourhoods. The Houses in these neighbourhoods receive the third bonus, and the Houses in
    the next neighbourhood receive the fourth bonus.\""""
    house = tmp_path / "telling_bonuses.rules"
    house.write_text(TELLING_BONUSES)
    s = interpreter.load(GAME_PATH, house=[str(house)]).new_game(players=3, seed=0)
    set_neighbourhoods(s, **amounts)
    got = [neighbourhood_points(s, h) for h in ("Green Cabin", "Red Cottage", "Blue Studio", "Orange Flat")]
    assert got == expected
    for misreading, points in wrong.items():
        assert points != expected, misreading  # each misreading would have failed this test


def test_neighbourhoods_without_ties_get_the_four_bonuses_in_order():
    s = bare_state(players=4)
    set_neighbourhoods(s, green=5, red=4, blue=3, orange=1)
    assert [neighbourhood_points(s, h) for h in ("Green Cabin", "Red Cottage", "Blue Studio", "Orange Flat")] \
        == [4, 2, 0, -2]


def test_neighbourhood_bonus_counts_for_each_house():
    """"Add or subtract profit points for each of each player's Houses"."""
    s = bare_state(players=3)
    set_neighbourhoods(s, green=5, red=4, blue=3, orange=1)
    give(s, 0, "play_area", ["Green Cabin", "Green Estate", "Orange Flat"])
    assert s.score_breakdown(0)["neighbourhoods"] == 4 + 4 - 2
    give(s, 1, "play_area", ["Town Hall"])  # a Public Building is not a House of a neighbourhood
    assert s.score_breakdown(1)["neighbourhoods"] == 0


def test_two_player_game_uses_the_other_side_of_the_urban_investment_card():
    """"Place the Urban Investment card (on the side suited to the number of players)"."""
    s = bare_state(players=2)
    set_neighbourhoods(s, green=5, red=4, blue=3, orange=1)
    assert [neighbourhood_points(s, h) for h in ("Green Cabin", "Red Cottage", "Blue Studio", "Orange Flat")] \
        == [2, 1, 0, -1]


def test_tie_for_first_drops_the_tied_and_the_next():
    """Tied for first: both get the second bonus, the next the third, the last the fourth."""
    s = bare_state(players=3)
    set_neighbourhoods(s, green=3, red=3, blue=1, orange=0)
    assert [neighbourhood_points(s, h) for h in ("Green Cabin", "Red Cottage", "Blue Studio", "Orange Flat")] \
        == [2, 2, 0, -2]


@pytest.mark.parametrize("amounts, expected", [
    # three tied for first: one level lower is the second bonus (2); the next one the third (0)
    (dict(green=3, red=3, blue=3, orange=0), [2, 2, 2, 0]),
    # all four tied (as at the start of the game): one level lower is the second bonus
    (dict(green=1, red=1, blue=1, orange=1), [2, 2, 2, 2]),
])
def test_many_way_tie_drops_one_level(amounts, expected):
    s = bare_state(players=3)
    set_neighbourhoods(s, **amounts)
    assert [neighbourhood_points(s, h) for h in ("Green Cabin", "Red Cottage", "Blue Studio", "Orange Flat")] \
        == expected


# ---- Winner and tie-breakers ------------------------------------------------------------------


def test_highest_score_wins():
    s = bare_state(players=3)
    give(s, 1, "play_area", ["Red Cottage"])
    assert s.winners() == [1]


def test_tie_broken_by_more_funds():
    """"In case of a tie, the player with more Funds tokens wins." 3 and 5 Funds both score 1."""
    s = bare_state(players=2)
    set_funds(s, 0, 3)
    set_funds(s, 1, 5)
    assert s.scores() == [1, 1]
    assert s.winners() == [1]


def test_tie_broken_by_higher_value_houses():
    """"If the tie persists, the player with the higher-value Houses wins."
    Player 1: Red Villa (5, one icon) and 3 black Funds: 5 + 1 + 1 - 3 = 4.
    Player 2: Red Cottage (2, one icon) and 3 normal Funds: 2 + 1 + 1 = 4. Both red houses get
    the same neighbourhood bonus."""
    s = bare_state(players=2)
    give(s, 0, "play_area", ["Red Villa"])
    give(s, 1, "play_area", ["Red Cottage"])
    set_funds(s, 0, 0, black=3)
    set_funds(s, 1, 3)
    assert s.scores()[0] == s.scores()[1]
    assert s.winners() == [0]


def test_funds_break_the_tie_before_house_values():
    """Funds are the first tie-breaker: they win even against higher-value Houses.
    Player 1: Red Cottage (2, one icon), 8 Funds of which 2 black: 2 + 1 + 2 - 2 = 3.
    Player 2: Red Villa (5, one icon), 4 black Funds: 5 + 1 + 1 - 4 = 3. (Same red bonus.)"""
    s = bare_state(players=2)
    give(s, 0, "play_area", ["Red Cottage"])
    give(s, 1, "play_area", ["Red Villa"])
    set_funds(s, 0, 3, black=2)  # 5 tokens: 1 point, -2 -> 2 + 1 + 1 - 2 = 2
    set_funds(s, 1, 0, black=4)  # 4 tokens: 1 point, -4 -> 5 + 1 + 1 - 4 = 3
    assert s.scores()[1] - s.scores()[0] == 1
    set_funds(s, 0, 6, black=2)  # 8 tokens: 2 points -> 3
    assert s.scores()[0] == s.scores()[1]
    assert s.winners() == [0]  # 8 Funds against 4, though Player 2's House is worth more


def test_full_tie_shares_the_win():
    s = bare_state(players=3)
    for p in (0, 2):
        give(s, p, "play_area", ["Blue Studio" if p == 0 else "Red Cottage"])  # both profit 2, one icon
        set_funds(s, p, 3)
    set_neighbourhoods(s, red=2, blue=2, green=1, orange=0)
    set_funds(s, 1, 3)
    assert s.scores()[0] == s.scores()[2] > s.scores()[1]
    assert s.winners() == [0, 2]


# ---- End of the game ------------------------------------------------------------------------


def arrange_fourth_build(target_hand: list[str], market: list[str]):
    """Player 2 (seat 1) has three Houses, and the Rooms of `target_hand`; nobody else has cards."""
    def arrange(s):
        for p in range(s.num_players):
            clear_player(s, p)
        give(s, 1, "play_area", ["Red Cottage", "Blue Studio", "Green Cabin"])
        give(s, 1, "hand", target_hand)
        set_house_market(s, market)
    return arrange


NO_CHARACTERS = {0: None, 1: None, 2: None}
HARD_HOUSES = ["Orange Flat", "Red Mansion", "Blue Manor", "Green Estate"]


def test_fourth_house_ends_the_game_after_the_round():
    """"The game ends when a player builds their 4th House ... and the remaining players finish
    the current round." Player 2 builds the 4th (Orange Flat: bedroom, bathroom, terrace);
    Player 3 still plays; then the game ends, without another turn for Player 1."""
    s = new_state(3, seed=1, characters=NO_CHARACTERS,
                  arrange=arrange_fourth_build(["Bedroom", "Bathroom", "Terrace"], HARD_HOUSES))
    pass_turn(s)  # Player 1
    assert s.decision.players == (1,)
    decline_until(s, lambda st: prompt(st) == "Build a House or a Public Building?")
    pick(s, "Build Orange Flat")
    decline_until(s, lambda st: st.decision.players != (1,))
    assert names(s, "play_area#1").count("Orange Flat") == 1
    assert any("4th House" in t for t in log_texts(s))
    assert not s.is_over
    assert s.decision.players == (2,)  # Player 3 finishes the round
    pass_turn(s)
    assert s.is_over
    assert s.s.vars["first_to_four#1"] is True


def test_fourth_house_by_the_last_player_ends_the_game_at_once():
    def arrange(s):
        for p in range(3):
            clear_player(s, p)
        give(s, 2, "play_area", ["Red Cottage", "Blue Studio", "Green Cabin"])
        give(s, 2, "hand", ["Bedroom", "Bathroom", "Terrace"])
        set_house_market(s, HARD_HOUSES)
    s = new_state(3, seed=1, characters=NO_CHARACTERS, arrange=arrange)
    pass_turn(s)
    pass_turn(s)
    assert s.decision.players == (2,)
    decline_until(s, lambda st: prompt(st) == "Build a House or a Public Building?")
    pick(s, "Build Orange Flat")
    decline_until(s, lambda st: False)
    assert s.is_over


def test_public_building_does_not_count_as_a_house():
    """"(Public Buildings do not count)": Player 2 with 3 Houses builds the Park (garden 3,
    terrace 1); the game goes on into the next round."""
    s = new_state(3, seed=1, characters=NO_CHARACTERS,
                  arrange=arrange_fourth_build(["Garden", "Garden", "Garden", "Terrace"], HARD_HOUSES))
    pass_turn(s)
    decline_until(s, lambda st: prompt(st) == "Build a House or a Public Building?")
    assert "Build Orange Flat" not in labels(s)
    pick(s, "Build Park")
    decline_until(s, lambda st: st.decision.players != (1,))
    assert "Park" in names(s, "play_area#1")
    assert not any("4th House" in t for t in log_texts(s))
    pass_turn(s)  # Player 3
    assert not s.is_over
    assert s.decision.players == (0,)  # a new round
    assert s.view(0)["round"] == 2


# ---- Setup ------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_setup(players):
    s = game().new_game(players=players, seed=players)
    kinds = s.game.compiled.card_kinds
    # "lay out 4 in a row to form the House market" (Houses only: Events are shuffled in after)
    assert [kinds[c] for c in s.s.zones["house_market"]] == ["house"] * 4
    deck = s.s.zones["house_deck"]
    assert sorted(kinds[c] for c in deck) == ["event_card"] * 4 + ["house"] * 20
    # "Lay out 4 cards from the Room deck" ; "Each player ... draws 2 cards from the Room deck."
    assert len(s.s.zones["room_market"]) == 4
    for p in range(players):
        assert len(s.s.zones[f"hand#{p}"]) == 2
        assert all(kinds[c] in ("room", "trick") for c in s.s.zones[f"hand#{p}"])
        assert funds(s, p) == 3 and funds(s, p, "black") == 0  # "receives 3 Funds tokens"
    room_and_tricks = len(s.game.compiled.cards_of_kind["room"]) + len(s.game.compiled.cards_of_kind["trick"])
    assert room_and_tricks == 56 + 6
    assert len(s.s.zones["room_deck"]) == 62 - 4 - 2 * players
    assert sorted(names(s, "public_buildings")) == ["Market Hall", "Park", "School", "Town Hall"]
    # "with 1 Funds token in each neighbourhood"
    assert [funds(s, c) for c in COLOURS] == [1, 1, 1, 1]
    assert funds(s, "supply") == TOTAL_FUNDS - 4 - 3 * players
    # "Show at random a number of Character cards equal to the number of players + 2. Starting
    #  with the last player in turn order, each player chooses a Character"
    assert len(s.s.zones["character_offer"]) == players + 2
    order = []
    while prompt(s) == "Choose your Character":
        order.append(s.decision.players[0])
        s.apply(s.legal_actions(order[-1])[0])
    assert order == list(range(players - 1, -1, -1))
    for p in range(players):
        chars = [c for c in s.s.zones[f"play_area#{p}"] if kinds[c] == "character"]
        assert len(chars) == 1
    assert s.s.zones["character_offer"] == []
    assert s.decision.players == (0,)


def test_setup_is_shuffled_by_the_seed():
    a, b, c = (game().new_game(players=3, seed=x) for x in (1, 1, 2))
    assert a.s.zones == b.s.zones
    assert a.s.zones["room_deck"] != c.s.zones["room_deck"]


# ---- The turn ---------------------------------------------------------------------------------


def test_player_with_no_funds_takes_one_from_the_supply():
    """"If they have no Funds tokens, they take one from the supply.\""""
    s = new_state(3, seed=2, characters={0: None}, arrange=lambda st: set_funds(st, 0, 0))
    assert funds(s, 0) == 1 and funds(s, 0, "black") == 0
    assert any("has no Funds" in t for t in log_texts(s))


def test_player_with_funds_takes_none():
    s = new_state(3, seed=2, characters={0: None}, arrange=lambda st: set_funds(st, 0, 0, black=1))
    assert funds(s, 0) == 1  # one black token is still a Funds token


def test_turn_offers_take_trick_or_neither():
    def arrange(st):
        clear_player(st, 0)
        give(st, 0, "hand", ["Trick: Three Draws"])
    s = new_state(3, seed=2, characters={0: None}, arrange=arrange)
    assert labels(s) == ["Take a card from the Room market", "Play a Trick", "Neither"]


def test_one_card_per_turn_then_build_then_invest():
    """Take one card, then (nothing to build) invest 1 Funds in a neighbourhood; then the next
    player's turn."""
    def arrange(st):
        clear_player(st, 0)
        set_room_market(st, [copy_of(st, "Garage", ability="renovation"), "Garden", "Terrace",
                             "Bedroom and Terrace"])
        set_funds(st, 0, 3)
    s = new_state(3, seed=2, characters={0: None}, arrange=arrange)
    red = funds(s, "red")
    pick(s, "Take a card from the Room market")
    pick(s, "Take Garage")
    pick(s, "Do not use it")
    assert prompt(s) == "Invest 1 Funds token in a neighbourhood?"
    pick(s, "Invest in Red")
    assert funds(s, "red") == red + 1 and funds(s, 0) == 2
    assert s.decision.players == (1,)
    assert names(s, "hand#0") == ["Garage"]


def test_investing_is_optional_and_needs_funds():
    def arrange(st):
        clear_player(st, 0)
        set_funds(st, 0, 0, black=0)
    s = new_state(3, seed=2, characters={0: None}, arrange=arrange)  # takes 1 Funds at the start
    pick(s, "Neither")
    assert labels(s)[-1] == "Skip"
    pick(s, "Skip")
    assert funds(s, 0) == 1


def test_markets_refill_by_shifting_left():
    """"Refill the House market, the Room market ... by shifting the cards to the left, keeping
    the order of appearance from the right.\""""
    ids = {}

    def arrange(st):
        clear_player(st, 0)
        ids["market"] = set_room_market(st, ["Garage", copy_of(st, "Garden", ability="investment"),
                                             "Terrace", "Bedroom and Terrace"])
        ids["next"] = st.s.zones["room_deck"][0]
        set_funds(st, 0, 3)
    s = new_state(3, seed=2, characters={0: None}, arrange=arrange)
    pick(s, "Take a card from the Room market")
    pick(s, "Take Garden")  # the second card
    pick(s, "Do not use it")
    pick(s, "Skip")
    m = ids["market"]
    assert s.s.zones["room_market"] == [m[0], m[2], m[3], ids["next"]]
    assert funds(s, f"c{m[0]}") == 1  # the Fund left on the card to its left stays there


def test_house_market_refills_from_the_house_deck():
    """A House taken from the market is replaced by the top card of the House deck, on the right."""
    ids = {}

    def arrange(st):
        for p in range(3):
            clear_player(st, p)
        ids["market"] = set_house_market(st, ["Red Mansion", "Orange Flat", "Blue Manor", "Green Estate"])
        ids["next"] = put_on_house_deck(st, ["Red Loft"])[0]
        give(st, 0, "hand", ["Bedroom", "Bathroom", "Terrace"])
    s = new_state(3, seed=2, characters=NO_CHARACTERS, arrange=arrange)
    pick(s, "Neither")
    pick(s, "Build Orange Flat")
    decline_until(s, lambda st: st.decision.players != (0,))
    m = ids["market"]
    assert s.s.zones["house_market"] == [m[0], m[2], m[3], ids["next"]]


def test_room_deck_reshuffles_the_discard_pile_when_it_runs_out():
    """"If the Room deck runs out, shuffle the discard pile to form it again.\""""
    def arrange(st):
        clear_player(st, 0)
        for c in list(st.s.zones["room_deck"]):
            move(st, c, "room_discard")
    s = new_state(3, seed=2, characters={0: None}, arrange=arrange)
    assert s.s.zones["room_deck"] == []
    before = len(s.s.zones["room_discard"])
    pick(s, "Take a card from the Room market")
    pick(s, "Take ")  # the first card
    decline_until(s, lambda st: st.decision.players != (0,))
    assert len(s.s.zones["room_market"]) == 4
    assert s.s.zones["room_discard"] == []
    assert len(s.s.zones["room_deck"]) == before - 1


def test_hand_is_hidden_from_the_other_players():
    s = new_state(3, seed=2)
    assert s.view(0)["zones"]["hand#0"]["cards"] is not None
    assert s.view(1)["zones"]["hand#0"]["cards"] is None
    assert s.view(1)["zones"]["hand#0"]["count"] == 2
    assert s.view(1)["zones"]["house_deck"]["cards"] is None
    assert s.view(1)["zones"]["room_market"]["cards"] == names(s, "room_market")


def test_turns_pass_clockwise():
    s = new_state(4, seed=3, characters={p: None for p in range(4)})
    seen = []
    for _ in range(6):
        seen.append(s.decision.players[0])
        pass_turn(s)
    assert seen == [0, 1, 2, 3, 0, 1]


def test_cards_are_the_rulebook_counts():
    """24 Houses, 56 Rooms (4 wildcards), 12 Characters, 6 Tricks, 4 Public Buildings, 4 Events."""
    s = bare_state(players=2)
    kinds = s.game.compiled.cards_of_kind
    assert {k: len(v) for k, v in kinds.items()} == {
        "house": 24, "room": 56, "trick": 6, "character": 12, "public_building": 4, "event_card": 4}
    wild = [c for c in kinds["room"] if attrs_of(s, c)["equipment"] == ["wildcard"]]
    assert len(wild) == 4
    assert sorted(s.game.card_name(c) for c in kinds["event_card"]) == [
        "Bargains", "Corrupt Scheme", "Economic Aid", "Stock Out"]
