"""Off-Plan, Standard Mode: every card ability, one position at a time.

Each test arranges the position it needs (cards placed, Funds set), runs the procedure of
games/off_plan that does the thing (or drives a real turn), and checks the exact effect against
the rulebook text quoted in it. Room, House and Public Building values are the STAND-INS of
games/off_plan/cards.rules (e.g. which copy of "Bedroom" has which ability).
"""

import pytest
from off_plan_helpers import (
    COLOURS,
    attrs_of,
    bare_state,
    card_funds,
    clear_player,
    copy_of,
    decline_until,
    funds,
    give,
    labels,
    log_texts,
    names,
    new_state,
    pass_turn,
    pick,
    prompt,
    put_on_house_deck,
    put_on_room_deck,
    set_funds,
    set_house_market,
    set_neighbourhoods,
    set_room_market,
    with_character,
)

from interpreter.engine.api import State


def take(s: State, card: str, p: int = 0) -> str:
    """Player p takes a card from the Room market (`card`: its name)."""
    s.run_procedure("take_from_room_market", p, active=p)
    return pick(s, f"Take {card} (")


def market_funds(s: State) -> list[int]:
    return [card_funds(s, c) for c in s.s.zones["room_market"]]


def room(s: State, card_name: str, ability: str, exclude=()) -> int:
    return copy_of(s, card_name, exclude=exclude, ability=ability)


# ---- The Room market --------------------------------------------------------------------------

MARKET = ["Garage", "Garden", "Bathroom", "Terrace"]


def market_position(s: State, funds_: int = 3, market=MARKET) -> list[int]:
    """Player 1 with `funds_` Funds and no cards; Room market `market` with no Funds on it.
    (Each card is a copy whose ability is of no use here, or declined.)"""
    set_funds(s, 0, funds_)
    return set_room_market(s, market)


@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_card_k_costs_one_fund_left_on_each_card_to_its_left(k):
    """"Taking the first card on the left of the Room market has no additional cost. To take any
    of the following cards, leave 1 Funds token on each card to its left.\""""
    s = bare_state(3)
    ids = market_position(s)
    supply = funds(s, "supply")
    s.run_procedure("take_from_room_market", 0, active=0)
    assert labels(s) == ["Take Garage (0 Funds)", "Take Garden (1 Funds)", "Take Bathroom (2 Funds)",
                         "Take Terrace (3 Funds)"]
    pick(s, f"Take {MARKET[k]} (")
    assert s.s.where[ids[k]] == "hand#0"
    assert funds(s, 0) == 3 - k
    assert [card_funds(s, c) for c in ids if c != ids[k]] == [1] * k + [0] * (3 - k)
    assert funds(s, "supply") == supply  # the Funds go on the cards, not to the supply


def test_first_card_is_free_even_with_no_funds():
    s = bare_state(3)
    ids = market_position(s, funds_=0)
    s.run_procedure("take_from_room_market", 0, active=0)
    assert labels(s) == ["Take Garage (0 Funds)"]  # nothing else is affordable
    pick(s, "Take Garage (")
    assert names(s, "hand#0") == ["Garage"]
    assert funds(s, 0) == 0 and market_funds(s) == [0, 0, 0]
    assert s.s.zones["room_market"] == ids[1:]


def test_only_affordable_cards_are_offered():
    s = bare_state(3)
    market_position(s, funds_=1)
    s.run_procedure("take_from_room_market", 0, active=0)
    assert labels(s) == ["Take Garage (0 Funds)", "Take Garden (1 Funds)"]


def test_funds_on_the_taken_card_go_to_the_taker():
    """"The card taken goes to the player's hand. Any Funds tokens on it go to their personal
    supply.\""""
    s = bare_state(3)
    ids = market_position(s, funds_=2)
    s.set_tokens(f"c{ids[2]}", "funds", 3)
    take(s, "Bathroom")
    assert funds(s, 0) == 2 - 2 + 3
    assert card_funds(s, ids[2]) == 0
    assert [card_funds(s, ids[0]), card_funds(s, ids[1])] == [1, 1]


def test_black_money_paid_into_the_market_stays_black():
    """Black money "can only be turned back over if it is used in an investment": paid onto a
    card it stays black, and whoever takes that card gets it as black money."""
    s = bare_state(3)
    ids = market_position(s, funds_=2)
    set_funds(s, 0, 0, black=1)
    take(s, "Garden")  # 1 Fund left on the Garage
    assert card_funds(s, ids[0], "black") == 1 and funds(s, 0) == 0
    decline_until(s, lambda st: False)
    set_funds(s, 1, 0)
    take(s, "Garage", p=1)
    assert funds(s, 1, "black") == 1 and funds(s, 1, "normal") == 0


def test_trick_in_the_room_market_costs_nothing():
    """Tricks: "no funds must be paid when taking them from the room market". Taking one does
    not activate any ability."""
    s = bare_state(3)
    ids = market_position(s, funds_=0, market=["Garage", "Garden", "Bathroom", "Trick: Three Draws"])
    s.set_tokens(f"c{ids[3]}", "funds", 2)
    s.run_procedure("take_from_room_market", 0, active=0)
    assert "Take Trick: Three Draws (0 Funds)" in labels(s)
    pick(s, "Take Trick: Three Draws")
    assert s.is_over  # no ability question
    assert names(s, "hand#0") == ["Trick: Three Draws"]
    assert market_funds(s) == [0, 0, 0]
    assert funds(s, 0) == 2  # its Funds do come along


def test_room_ability_is_optional():
    """"If a Room is taken, its ability may optionally be used.\""""
    s = bare_state(3)
    set_funds(s, 0, 1)
    ids = set_room_market(s, [room(s, "Bedroom", "promotion"), "Garage", "Garden", "Terrace"])
    before = s.clone()
    take(s, "Bedroom")
    assert prompt(s) == "Use the ability of the Room just taken?"
    assert labels(s) == ["Use the ability of Bedroom: Promotion (1 Funds)", "Do not use it"]
    pick(s, "Do not use it")
    assert names(s, "hand#0") == ["Bedroom"] and funds(s, 0) == 1
    assert s.s.zones["room_deck"] == before.s.zones["room_deck"]
    assert s.s.where[ids[0]] == "hand#0"


# ---- Room abilities -----------------------------------------------------------------------------


def test_double_bathroom_takes_an_adjacent_room_with_a_bathroom():
    """"Double Bathroom: Take the adjacent card from the Room market that includes a bathroom.
    This costs 1 Funds token." The second card's Funds come along; its own ability is not used
    ("The ability of the first room card is executed only if an ability makes you take another
    room")."""
    s = bare_state(3)
    set_funds(s, 0, 3)
    give(s, 0, "play_area", ["Red Cottage"])  # so the second card's Swap could be used
    set_house_market(s, ["Red Mansion", "Blue Manor", "Green Estate", "Orange Flat"])
    ids = set_room_market(s, [room(s, "Bathroom", "renovation"), room(s, "En-Suite Bedroom", "double_bathroom"),
                              room(s, "Terrace and Bathroom", "swap"), room(s, "Bathroom", "promotion")])
    s.set_tokens(f"c{ids[2]}", "funds", 1)
    supply = funds(s, "supply")
    take(s, "En-Suite Bedroom")  # 1 Fund left on the Bathroom to its left
    assert labels(s) == ["Use the ability of En-Suite Bedroom: Double Bathroom (1 Funds)", "Do not use it"]
    pick(s, "Use the ability")
    # both neighbours include a bathroom; the Bathroom two places away is not adjacent
    assert labels(s) == ["Bathroom", "Terrace and Bathroom"]
    pick(s, "Terrace and Bathroom")
    assert s.is_over  # no question about the Terrace and Bathroom's own ability (swap)
    assert names(s, "hand#0") == ["En-Suite Bedroom", "Terrace and Bathroom"]
    assert names(s, "play_area#0") == ["Red Cottage"]
    assert funds(s, 0) == 3 - 1 - 1 + 1
    assert funds(s, "supply") == supply + 1
    assert s.s.zones["room_market"] == [ids[0], ids[3]]
    assert market_funds(s) == [1, 0]


def test_double_bathroom_can_take_the_left_neighbour():
    s = bare_state(3)
    set_funds(s, 0, 3)
    ids = set_room_market(s, ["Garage", room(s, "Bathroom", "investment"),
                              room(s, "Bathroom", "double_bathroom"), "Garden"])
    s.run_procedure("take_from_room_market", 0, active=0)
    pick(s, "Take Bathroom (2 Funds)")
    assert s.s.where[ids[2]] == "hand#0"
    pick(s, "Use the ability")
    assert labels(s) == ["Bathroom"]  # the Garden on the right has no bathroom
    pick(s, "Bathroom")
    assert s.s.where[ids[1]] == "hand#0"
    assert funds(s, 0) == 3 - 2 - 1 + 1  # the Fund just left on the Bathroom comes back


def test_double_bathroom_is_not_offered_without_an_adjacent_bathroom():
    s = bare_state(3)
    set_funds(s, 0, 3)
    set_room_market(s, ["Garage", room(s, "En-Suite Bedroom", "double_bathroom"), "Garden",
                        room(s, "Bathroom", "promotion")])
    take(s, "En-Suite Bedroom")
    assert s.is_over  # the Bathroom is two places away: the ability can do nothing
    assert names(s, "hand#0") == ["En-Suite Bedroom"]


def test_promotion_draws_the_top_room_card():
    """"Promotion: Draw a card from the Room deck. This costs 1 Funds token.\""""
    s = bare_state(3)
    set_funds(s, 0, 1)
    set_room_market(s, [room(s, "Bedroom", "promotion"), "Garage", "Garden", "Terrace"])
    top = put_on_room_deck(s, ["Garden and Terrace"])[0]
    take(s, "Bedroom")
    pick(s, "Use the ability")
    assert names(s, "hand#0") == ["Bedroom", "Garden and Terrace"]
    assert s.s.where[top] == "hand#0"
    assert funds(s, 0) == 0


def test_room_ability_not_offered_when_it_cannot_be_paid():
    s = bare_state(3)
    set_funds(s, 0, 0)
    set_room_market(s, [room(s, "Bedroom", "promotion"), "Garage", "Garden", "Terrace"])
    take(s, "Bedroom")
    assert s.is_over
    assert names(s, "hand#0") == ["Bedroom"]


def test_swap_exchanges_a_market_house_for_a_built_one_of_the_same_colour():
    """"Swap: Exchange a House from the House market for another of the same colour that you
    have built. This costs 1 Funds token.\""""
    s = bare_state(3)
    set_funds(s, 0, 2)
    give(s, 0, "play_area", ["Red Cottage", "Blue Studio"])
    set_house_market(s, ["Green Cabin", "Red Mansion", "Orange Flat", "Blue Manor"])
    set_room_market(s, [room(s, "Garage", "swap"), "Garden", "Terrace", "Bathroom"])
    take(s, "Garage")
    pick(s, "Use the ability")
    assert labels(s) == ["Red Mansion", "Blue Manor"]  # only colours Player 1 has built
    pick(s, "Red Mansion")
    assert labels(s) == ["Red Cottage"]
    pick(s, "Red Cottage")
    assert names(s, "house_market") == ["Green Cabin", "Red Cottage", "Orange Flat", "Blue Manor"]
    assert sorted(names(s, "play_area#0")) == ["Blue Studio", "Red Mansion"]
    assert funds(s, 0) == 1
    assert not any("4th House" in t for t in log_texts(s))


def test_swap_not_offered_without_a_house_of_a_market_colour():
    s = bare_state(3)
    set_funds(s, 0, 2)
    give(s, 0, "play_area", ["Green Cabin"])
    set_house_market(s, ["Red Cottage", "Red Mansion", "Orange Flat", "Blue Manor"])
    set_room_market(s, [room(s, "Garage", "swap"), "Garden", "Terrace", "Bathroom"])
    take(s, "Garage")
    assert s.is_over


def test_renovation_discards_a_market_house_and_refills():
    """"Renovation: Discard a House from the House market and refill it. This costs 1 Funds
    token." The market shifts left and the top of the House deck comes in on the right."""
    s = bare_state(3)
    set_funds(s, 0, 1)
    market = set_house_market(s, ["Green Cabin", "Red Mansion", "Orange Flat", "Blue Manor"])
    top = put_on_house_deck(s, ["Red Loft"])[0]
    set_room_market(s, [room(s, "Garage", "renovation"), "Garden", "Terrace", "Bathroom"])
    take(s, "Garage")
    pick(s, "Use the ability")
    assert labels(s) == ["Green Cabin", "Red Mansion", "Orange Flat", "Blue Manor"]
    pick(s, "Red Mansion")
    assert s.s.zones["house_market"] == [market[0], market[2], market[3], top]
    assert names(s, "house_discard") == ["Red Mansion"]
    assert funds(s, 0) == 0


def test_investment_places_a_fund_from_the_general_supply():
    """"Investment: Place a Funds token from the general supply on one of the neighbourhoods of
    the Urban Investment card." (No cost is named.)"""
    s = bare_state(3)
    set_funds(s, 0, 0)
    set_room_market(s, [room(s, "Bedroom", "investment"), "Garage", "Garden", "Terrace"])
    supply = funds(s, "supply")
    take(s, "Bedroom")
    assert labels(s) == ["Use the ability of Bedroom: Investment (0 Funds)", "Do not use it"]
    pick(s, "Use the ability")
    assert labels(s) == [c.capitalize() for c in COLOURS]
    pick(s, "Green")
    assert [funds(s, c) for c in COLOURS] == [1, 1, 2, 1]
    assert funds(s, "supply") == supply - 1
    assert funds(s, 0) == 0


def test_corruption_takes_a_neighbourhood_fund_as_black_money():
    """"Corruption: Take 1 Funds token from the Urban Investment card and add it to your supply."
    "If you obtain one with the "corruption" ability, you keep it and play it on its black side.\""""
    s = bare_state(3)
    set_funds(s, 0, 0)
    set_neighbourhoods(s, red=2, blue=0, green=1, orange=0)
    set_room_market(s, [room(s, "Double Bedroom", "corruption"), "Garage", "Garden", "Terrace"])
    take(s, "Double Bedroom")
    assert labels(s) == ["Use the ability of Double Bedroom: Corruption (0 Funds)", "Do not use it"]
    pick(s, "Use the ability")
    assert labels(s) == ["Red", "Green"]  # only neighbourhoods with Funds
    pick(s, "Red")
    assert (funds(s, 0, "normal"), funds(s, 0, "black")) == (0, 1)
    assert funds(s, "red") == 1
    assert s.score_breakdown(0)["black_money"] == -1


def test_corruption_not_offered_when_the_neighbourhoods_are_empty():
    s = bare_state(3)
    set_neighbourhoods(s, red=0, blue=0, green=0, orange=0)
    set_room_market(s, [room(s, "Double Bedroom", "corruption"), "Garage", "Garden", "Terrace"])
    take(s, "Double Bedroom")
    assert s.is_over


def test_investing_black_money_turns_it_back_over():
    """"It can only be turned back over if it is used in an investment.\""""
    s = bare_state(3)
    set_funds(s, 0, 1, black=1)
    set_neighbourhoods(s, red=0)
    s.run_procedure("invest", 0, "red", active=0)
    assert (funds(s, "red", "normal"), funds(s, "red", "black")) == (1, 0)
    assert (funds(s, 0, "normal"), funds(s, 0, "black")) == (1, 0)


# ---- Trick cards --------------------------------------------------------------------------------


def trick_position(trick: str):
    s = bare_state(3)
    set_funds(s, 0, 0)
    give(s, 0, "hand", [trick])
    ids = set_room_market(s, ["Garage", room(s, "Bedroom", "promotion"), "Garden", room(s, "Bathroom", "investment")])
    s.set_tokens(f"c{ids[0]}", "funds", 1)
    s.set_tokens(f"c{ids[2]}", "funds", 2)
    s.run_procedure("play_trick", 0, active=0)
    assert labels(s) == [trick]
    pick(s, trick)
    return s, ids


def test_trick_two_apart():
    """"Take 2 non-adjacent cards from the Room market (and their Funds tokens). You spend no
    Funds tokens." Trick cards "do not activate room abilities"."""
    s, ids = trick_position("Trick: Two Apart")
    assert labels(s) == ["Garage", "Bedroom", "Garden", "Bathroom"]
    pick(s, "Garage")
    assert labels(s) == ["Garden", "Bathroom"]  # not the adjacent Bedroom
    pick(s, "Garden")
    assert s.is_over  # no ability question
    assert sorted(names(s, "hand#0")) == ["Garage", "Garden"]
    assert funds(s, 0) == 1 + 2
    assert names(s, "room_discard")[-1] == "Trick: Two Apart"
    assert s.s.zones["room_market"] == [ids[1], ids[3]] and market_funds(s) == [0, 0]


def test_trick_side_by_side():
    """"Take 2 adjacent cards from the Room market (and their Funds tokens). You spend no Funds
    tokens.\""""
    s, ids = trick_position("Trick: Side by Side")
    pick(s, "Bedroom")
    assert labels(s) == ["Garage", "Garden"]
    pick(s, "Garden")
    assert s.is_over
    assert sorted(names(s, "hand#0")) == ["Bedroom", "Garden"]
    assert funds(s, 0) == 2
    assert names(s, "room_discard")[-1] == "Trick: Side by Side"


def test_trick_three_draws():
    """"Draw 3 cards from the Room deck.\""""
    s = bare_state(3)
    give(s, 0, "hand", ["Trick: Three Draws"])
    top = put_on_room_deck(s, ["Garage", "Terrace", "Garden and Terrace"])
    market = list(s.s.zones["room_market"])
    s.run_procedure("play_trick", 0, active=0)
    pick(s, "Trick: Three Draws")
    assert s.is_over
    assert s.s.zones["hand#0"] == top
    assert s.s.zones["room_market"] == market
    assert names(s, "room_discard")[-1] == "Trick: Three Draws"


def test_trick_needs_enough_cards_in_the_market():
    """Two non-adjacent cards need at least 3 cards in the Room market."""
    def arrange(st):
        clear_player(st, 0)
        give(st, 0, "hand", ["Trick: Two Apart"])
        set_room_market(st, ["Garage", "Garden"])
    s = new_state(3, seed=2, characters={0: None}, arrange=arrange)
    assert "Play a Trick" not in labels(s)


def test_playing_a_trick_replaces_taking_a_card():
    """"They may play a Trick card or take a card from the Room market" (not both)."""
    def arrange(st):
        clear_player(st, 0)
        give(st, 0, "hand", ["Trick: Three Draws"])
    s = new_state(3, seed=2, characters={0: None}, arrange=arrange)
    pick(s, "Play a Trick")
    pick(s, "Trick: Three Draws")
    assert len(s.s.zones["hand#0"]) == 3
    assert prompt(s) != "Take which card from the Room market?"


# ---- Character abilities ------------------------------------------------------------------------


def test_broker_takes_the_second_card_for_free():
    """"When you take the second card from the left in the Room market, you spend no Funds
    tokens.\""""
    s = bare_state(3)
    with_character(s, 0, "The Broker")
    ids = market_position(s, funds_=0)
    s.run_procedure("take_from_room_market", 0, active=0)
    assert labels(s) == ["Take Garage (0 Funds)", "Take Garden (0 Funds)"]
    pick(s, "Take Garden")
    decline_until(s, lambda st: False)
    assert s.s.where[ids[1]] == "hand#0"
    assert card_funds(s, ids[0]) == 0 and funds(s, 0) == 0
    set_funds(s, 0, 2)
    s.run_procedure("take_from_room_market", 0, active=0)
    assert "Take Terrace (2 Funds)" in labels(s)  # the third card now: full price


def test_scout_may_draw_from_the_room_deck_instead():
    """"You may draw the top card of the Room deck instead of taking one from the Room market.\""""
    s = bare_state(3)
    with_character(s, 0, "The Scout")
    top = put_on_room_deck(s, [room(s, "Bedroom", "promotion")])[0]
    market = list(s.s.zones["room_market"])
    s.run_procedure("play_turn", 0, active=0)
    assert "Draw the top card of the Room deck (Character)" in labels(s)
    pick(s, "Draw the top card")
    assert s.s.zones["hand#0"] == [top]
    assert s.s.zones["room_market"] == market
    assert prompt(s) != "Use the ability of the Room just taken?"  # a drawn card has no ability


def test_drawing_from_the_deck_needs_the_scout():
    s = bare_state(3)
    with_character(s, 0, "The Broker")
    s.run_procedure("play_turn", 0, active=0)
    assert not any("Draw the top card" in x for x in labels(s))


def dealer_position(funds_: int = 2):
    s = bare_state(3)
    with_character(s, 0, "The Dealer")
    give(s, 0, "hand", ["Garage and Garden", "Garage"])
    ids = set_room_market(s, ["Garage", "Bedroom", room(s, "Bathroom", "promotion"), "Terrace"])
    s.set_tokens(f"c{ids[2]}", "funds", 2)
    set_funds(s, 0, funds_)
    return s, ids


def test_dealer_exchanges_a_room_for_one_in_the_market():
    """"Once during your turn, you may exchange a Room in your hand that has at least 2 Equipment
    icons for any other Room in the Room market. Do not acquire the Funds on that card. This
    costs 2 Funds tokens.\""""
    s, ids = dealer_position()
    mine = s.s.zones["hand#0"][0]
    supply = funds(s, "supply")
    s.run_procedure("exchange_step", 0, active=0)
    pick(s, "Yes")
    assert labels(s) == ["Garage and Garden"]  # the single Garage has only 1 Equipment
    pick(s, "Garage and Garden")
    pick(s, "Bathroom")
    assert s.is_over  # no Room ability for the card received
    assert sorted(names(s, "hand#0")) == ["Bathroom", "Garage"]
    assert s.s.zones["room_market"] == [ids[0], ids[1], mine, ids[3]]
    assert card_funds(s, mine) == 2  # the Funds stay in the market
    assert funds(s, 0) == 0 and funds(s, "supply") == supply + 2


def test_dealer_exchange_needs_a_room_with_two_equipment():
    s, _ = dealer_position(funds_=3)
    for c in list(s.s.zones["hand#0"]):
        if s.game.card_name(c) != "Garage":
            s.place(c, "box")
    assert names(s, "hand#0") == ["Garage"]  # one Equipment only
    s.run_procedure("exchange_step", 0, active=0)
    assert s.is_over


def test_dealer_exchange_needs_two_funds():
    s, _ = dealer_position(funds_=1)
    s.run_procedure("exchange_step", 0, active=0)
    assert s.is_over


def test_dealer_exchange_is_once_per_turn():
    s, _ = dealer_position(funds_=5)
    give(s, 0, "hand", ["Garden and Terrace"])
    s.run_procedure("play_turn", 0, active=0)
    pick(s, "Neither")
    assert prompt(s) == "Exchange a Room from your hand for one in the Room market (2 Funds)?"
    pick(s, "Yes")
    pick(s, "Garage and Garden")
    pick(s, "Bathroom")
    # still 3 Funds and a Room with 2 Equipment: no second exchange this turn
    assert funds(s, 0) == 3
    assert prompt(s) != "Exchange a Room from your hand for one in the Room market (2 Funds)?"
    decline_until(s, lambda st: False)
    assert sum(t.count("exchanges") for t in log_texts(s)) == 1


def build(s: State, p: int, target: str, choices=()) -> list[list[str]]:
    """Player p builds `target` (it must be offered), answering each later question with the
    first of `choices` that is offered, else the first option. Returns the labels seen."""
    s.run_procedure("build_step", p, active=p)
    seen = [labels(s)]
    pick(s, f"Build {target}")
    choices = list(choices)
    while not s.is_over:
        ls = labels(s)
        seen.append(ls)
        hit = next((c for c in choices if any(c in x for x in ls)), None)
        if hit is not None:
            choices.remove(hit)
            pick(s, hit)
        else:
            s.apply(s.legal_actions(p)[0])
    return seen


def build_offers(s: State, p: int) -> list[str]:
    s.run_procedure("build_step", p, active=p)
    return [x[len("Build "):] for x in labels(s) if x.startswith("Build ")]


# Houses that every hand of these tests lacks the Equipment for (each needs 2 bathrooms).
HARD_MARKET = ("Red Mansion", "Green Estate", "Orange Residence", "Blue Penthouse")


def build_position(character, hand, market=HARD_MARKET,
                   built=(), funds_=0):
    s = bare_state(3)
    if character:
        with_character(s, 0, character)
    give(s, 0, "play_area", built)
    give(s, 0, "hand", hand)
    set_house_market(s, market)
    set_funds(s, 0, funds_)
    return s


def test_building_discards_the_rooms_needed():
    """"build a House ... discarding Rooms that include the type and minimum quantity of the
    Equipment needed." Red Cottage needs bedroom, bathroom, garden; the Terrace is kept."""
    s = build_position(None, ["Bedroom", "Bathroom", "Garden", "Terrace"],
                       market=["Red Cottage", "Red Mansion", "Blue Manor", "Green Estate"])
    discard = len(s.s.zones["room_discard"])
    seen = build(s, 0, "Red Cottage")
    assert "Discard Terrace for Red Cottage" not in sum(seen, [])  # a Room that does not help
    assert names(s, "play_area#0") == ["Red Cottage"]
    assert names(s, "hand#0") == ["Terrace"]
    assert sorted(names(s, "room_discard")[discard:]) == ["Bathroom", "Bedroom", "Garden"]
    assert names(s, "house_market") == ["Red Mansion", "Blue Manor", "Green Estate"]
    assert funds(s, 0) == 0


def test_building_is_not_offered_without_the_equipment():
    s = build_position(None, ["Bedroom", "Bathroom", "Terrace"],
                       market=["Red Cottage", "Red Mansion", "Blue Manor", "Green Estate"])
    assert build_offers(s, 0) == []


def test_building_with_a_wildcard_room():
    """"The wildcard room (marked with the ★ icon) provides any equipment." Blue Studio needs
    bedroom, bathroom, garage: the Wildcard Room stands for the garage."""
    s = build_position(None, ["Bedroom", "Wildcard Room", "Bathroom", "Garden"],
                       market=["Blue Studio", "Red Mansion", "Blue Manor", "Green Estate"])
    build(s, 0, "Blue Studio")
    assert names(s, "play_area#0") == ["Blue Studio"]
    assert names(s, "hand#0") == ["Garden"]


def test_two_wildcards_cover_two_missing_equipment():
    s = build_position(None, ["Bedroom", "Wildcard Room", "Wildcard Room"],
                       market=["Blue Studio", "Red Mansion", "Blue Manor", "Green Estate"])
    assert build_offers(s, 0) == ["Blue Studio"]
    s = build_position(None, ["Bedroom", "Wildcard Room"],
                       market=["Blue Studio", "Red Mansion", "Blue Manor", "Green Estate"])
    assert build_offers(s, 0) == []


def test_building_a_public_building():
    """"They may build a House from the House market or a Public Building". School (stand-in):
    2 bedrooms, 1 bathroom, 2 gardens."""
    s = build_position(None, ["Double Bedroom", "En-Suite Bedroom", "Garden", "Garage and Garden"])
    assert build_offers(s, 0) == ["School"]
    s = build_position(None, ["Double Bedroom", "En-Suite Bedroom", "Garden", "Garage and Garden"])
    build(s, 0, "School")
    assert names(s, "play_area#0") == ["School"]
    assert sorted(names(s, "public_buildings")) == ["Market Hall", "Park", "Town Hall"]
    assert names(s, "hand#0") == []


def test_only_one_building_per_turn():
    """"They may build a House ... or a Public Building" - one, then they go on to invest."""
    s = build_position(None, ["Bedroom", "Bathroom", "Garden", "Bedroom", "Bathroom", "Garage"],
                       market=["Red Cottage", "Blue Studio", "Blue Manor", "Green Estate"])
    s.run_procedure("play_turn", 0, active=0)
    pick(s, "Neither")
    pick(s, "Build Red Cottage")
    while prompt(s) == "Discard which Room for the building?":
        s.apply(s.legal_actions(0)[0])
    assert prompt(s) == "Invest 1 Funds token in a neighbourhood?"  # the Fund taken at the start
    assert names(s, "play_area#0") == ["Red Cottage"]


def test_big_family_uses_two_bedrooms_as_three():
    """"You may use 2 bedroom Equipment as if they were 3 bedroom Equipment." Red Villa needs 3
    bedrooms, 1 bathroom, 1 garden."""
    hand = ["Double Bedroom", "Bathroom", "Garden"]
    s = build_position("The Broker", hand, market=["Red Villa", "Red Mansion", "Blue Manor", "Green Estate"])
    assert build_offers(s, 0) == []
    s = build_position("The Big Family", hand, market=["Red Villa", "Red Mansion", "Blue Manor", "Green Estate"])
    build(s, 0, "Red Villa")
    assert names(s, "play_area#0") == ["The Big Family", "Red Villa"]
    assert names(s, "hand#0") == []


def test_plumber_uses_two_bedrooms_as_a_bathroom():
    """"You may use 2 bedroom Equipment as if they were 1 bathroom Equipment." Orange Maisonette
    needs 2 bedrooms and 1 bathroom: four bedrooms do."""
    hand = ["Double Bedroom", "Double Bedroom", "Garage"]
    market = ["Orange Maisonette", "Red Mansion", "Blue Manor", "Green Estate"]
    assert build_offers(build_position("The Broker", hand, market=market), 0) == []
    s = build_position("The Plumber", hand, market=market)
    build(s, 0, "Orange Maisonette")
    assert "Orange Maisonette" in names(s, "play_area#0")
    assert names(s, "hand#0") == ["Garage"]
    s = build_position("The Plumber", ["Double Bedroom", "Bedroom"], market=market)
    assert build_offers(s, 0) == []  # three bedrooms are not enough


def test_councillors_friend_plays_room_abilities_for_free():
    """"Play Room abilities without spending Funds.\""""
    s = bare_state(3)
    with_character(s, 0, "The Councillor's Friend")
    set_funds(s, 0, 0)
    set_room_market(s, [room(s, "Bedroom", "promotion"), "Garage", "Garden", "Terrace"])
    take(s, "Bedroom")
    assert labels(s) == ["Use the ability of Bedroom: Promotion (0 Funds)", "Do not use it"]
    pick(s, "Use the ability")
    assert len(s.s.zones["hand#0"]) == 2 and funds(s, 0) == 0


@pytest.mark.parametrize("character, house, hand", [
    # "You may build a House by saving one garden Equipment. This costs 1 Funds token."
    ("The Gardener", "Green Cabin", ["Bedroom", "Garden"]),  # bedroom 1, garden 2
    # "... saving one garage Equipment ..."
    ("The Mechanic", "Blue Studio", ["Bedroom", "Bathroom"]),  # bedroom, bathroom, garage
    # "... saving one terrace Equipment ..."
    ("The Sun Seeker", "Red Loft", ["Bedroom", "Bathroom", "Terrace"]),  # bedroom, bathroom, terrace 2
])
def test_character_saving_costs_one_fund(character, house, hand):
    market = [house, "Red Mansion", "Blue Manor", "Green Estate"]
    assert build_offers(build_position("The Broker", hand, market=market, funds_=2), 0) == []
    assert build_offers(build_position(character, hand, market=market, funds_=0), 0) == []  # no Fund to pay
    s = build_position(character, hand, market=market, funds_=2)
    supply = funds(s, "supply")
    seen = build(s, 0, house)
    assert seen[1] == [f"Save one {attrs_of(s, s.find_cards(character)[0])['power'][5:].capitalize()} for 1 Funds token"]
    assert house in names(s, "play_area#0")
    assert names(s, "hand#0") == []
    assert funds(s, 0) == 1 and funds(s, "supply") == supply + 1


def test_character_saving_is_optional_when_not_needed():
    s = build_position("The Gardener", ["Bedroom", "Garden", "Garden"], funds_=2,
                       market=["Green Cabin", "Red Mansion", "Blue Manor", "Green Estate"])
    seen = build(s, 0, "Green Cabin", choices=["Do not save it"])
    assert seen[1] == ["Save one Garden for 1 Funds token", "Do not save it"]
    assert funds(s, 0) == 2 and names(s, "hand#0") == []


def test_character_saving_is_for_houses_only():
    """Park (stand-in: garden 3, terrace 1): the Gardener's saving is for Houses."""
    s = build_position("The Gardener", ["Garden", "Garden", "Terrace"], funds_=2)
    assert "Park" not in build_offers(s, 0)


def test_banker_gets_one_more_fund_once_per_turn():
    """"When you get Funds tokens, get one more from the general supply." ("It can be used once
    during your turn.") Taking a card with 1 Fund gives 2; a Corruption in the same turn then
    gives only its 1 black Fund."""
    s = bare_state(3)
    with_character(s, 0, "The Banker")
    set_funds(s, 0, 0)
    ids = set_room_market(s, [room(s, "Garden", "corruption"), "Garage", "Terrace", "Bathroom"])
    s.set_tokens(f"c{ids[0]}", "funds", 1)
    take(s, "Garden")
    assert funds(s, 0) == 2
    pick(s, "Use the ability")
    pick(s, "Red")
    assert (funds(s, 0, "normal"), funds(s, 0, "black")) == (2, 1)


def test_banker_bonus_on_the_no_funds_token_and_reset_each_turn():
    s = bare_state(3)
    with_character(s, 0, "The Banker")
    s.set_var("extra_funds_used", True, 0)  # used on an earlier turn
    set_funds(s, 0, 0)
    s.run_procedure("play_turn", 0, active=0)
    assert funds(s, 0) == 2  # "If they have no Funds tokens, they take one" + one more


def test_banker_bonus_not_on_other_players_turns():
    s = bare_state(3)
    with_character(s, 0, "The Banker")
    set_funds(s, 0, 0)
    s.run_procedure("resolve_event", s.find_cards("Corrupt Scheme")[0], active=1)
    decline_until(s, lambda st: False)
    assert funds(s, 0) == 1


def test_banker_without_the_character_gets_no_bonus():
    s = bare_state(3)
    set_funds(s, 0, 0)
    ids = set_room_market(s, ["Garage", "Garden", "Terrace", "Bathroom"])
    s.set_tokens(f"c{ids[0]}", "funds", 1)
    take(s, "Garage")
    assert funds(s, 0) == 1


def test_launderer_flips_black_money_from_corruption():
    """"If you are going to get black money tokens, flip them. In your supply you can only have
    normal Funds tokens.\""""
    s = bare_state(3)
    with_character(s, 0, "The Launderer")
    set_funds(s, 0, 0)
    set_room_market(s, [room(s, "Double Bedroom", "corruption"), "Garage", "Garden", "Terrace"])
    take(s, "Double Bedroom")
    pick(s, "Use the ability")
    pick(s, "Red")
    assert (funds(s, 0, "normal"), funds(s, 0, "black")) == (1, 0)


def test_launderer_flips_black_money_taken_from_a_market_card():
    """Black money left on a Room market card (paid there by another player) becomes normal
    money when the Launderer takes the card: "In your supply you can only have normal Funds
    tokens.\""""
    s = bare_state(3)
    with_character(s, 0, "The Launderer")
    set_funds(s, 0, 0)
    ids = set_room_market(s, ["Garage", "Garden", "Terrace", "Bathroom"])
    s.set_tokens(f"c{ids[0]}", "funds", 2, "black")
    take(s, "Garage")
    assert (funds(s, 0, "normal"), funds(s, 0, "black")) == (2, 0)


def test_local_saves_any_one_equipment_for_orange_houses():
    """"Save any one Equipment to build Houses of the yellow neighbourhood." (orange in the art)
    Orange Flat needs bedroom, bathroom, terrace."""
    hand = ["Bedroom", "Bathroom", "Garage"]
    market = ["Orange Flat", "Red Cottage", "Blue Manor", "Green Estate"]
    assert build_offers(build_position("The Broker", hand, market=market), 0) == []
    s = build_position("The Local", hand, market=market)
    assert build_offers(s, 0) == ["Orange Flat"]  # not Red Cottage (bedroom, bathroom, garden)
    s = build_position("The Local", hand, market=market)
    seen = build(s, 0, "Orange Flat")
    assert seen[1] == ["Save a Terrace"]
    assert "Orange Flat" in names(s, "play_area#0")
    assert names(s, "hand#0") == ["Garage"]
    assert funds(s, 0) == 0  # free


# ---- Public Buildings -------------------------------------------------------------------------


def test_town_hall_takes_the_last_room_for_free():
    """"You may take the last card on the left in the Room market without spending Funds
    tokens." (Read by the rule files as the last, right-most card; the left-most is free anyway.)"""
    s = bare_state(3)
    give(s, 0, "play_area", ["Town Hall"])
    ids = market_position(s, funds_=0)
    s.run_procedure("take_from_room_market", 0, active=0)
    assert labels(s) == ["Take Garage (0 Funds)", "Take Terrace (0 Funds)"]
    pick(s, "Take Terrace")
    decline_until(s, lambda st: False)
    assert s.s.where[ids[3]] == "hand#0"
    assert market_funds(s) == [0, 0, 0]


def test_school_invests_two_funds_from_the_supply():
    """"When you invest from the general supply, invest 2 Funds tokens, which may go to different
    neighbourhoods.\""""
    s = bare_state(3)
    give(s, 0, "play_area", ["School"])
    set_funds(s, 0, 0)
    set_room_market(s, [room(s, "Bedroom", "investment"), "Garage", "Garden", "Terrace"])
    take(s, "Bedroom")
    pick(s, "Use the ability")
    pick(s, "Red")
    pick(s, "Blue")
    assert [funds(s, c) for c in COLOURS] == [2, 2, 1, 1]
    assert funds(s, 0) == 0


def test_end_of_turn_investment_is_one_fund_even_with_the_school():
    """The end-of-turn investment comes from the player's own supply, not the general supply."""
    s = bare_state(3)
    give(s, 0, "play_area", ["School"])
    set_funds(s, 0, 3)
    s.run_procedure("invest", 0, "red", active=0)
    assert funds(s, "red") == 2 and funds(s, 0) == 2


def test_park_takes_two_funds_from_the_neighbourhoods():
    """"When you are going to take Funds tokens from the Urban Investment card, take 2 tokens,
    which may come from different neighbourhoods.\""""
    s = bare_state(3)
    give(s, 0, "play_area", ["Park"])
    set_funds(s, 0, 0)
    set_room_market(s, [room(s, "Double Bedroom", "corruption"), "Garage", "Garden", "Terrace"])
    take(s, "Double Bedroom")
    pick(s, "Use the ability")
    pick(s, "Red")
    assert labels(s) == ["Blue", "Green", "Orange"]  # red is now empty
    pick(s, "Green")
    assert [funds(s, c) for c in COLOURS] == [0, 1, 0, 1]
    assert funds(s, 0, "black") == 2


def test_market_hall_gives_a_fund_for_each_house_built():
    """STAND-IN fourth ability (cards.rules): "When you build a House, take 1 Funds token from the
    general supply." Not for a Public Building."""
    s = build_position(None, ["Bedroom", "Bathroom", "Garden"], built=["Market Hall"],
                       market=["Red Cottage", "Red Mansion", "Blue Manor", "Green Estate"])
    build(s, 0, "Red Cottage")
    assert funds(s, 0) == 1
    s = build_position(None, ["Garden", "Garden", "Garden", "Terrace"], built=["Market Hall"])
    build(s, 0, "Park")
    assert funds(s, 0) == 0


def test_public_building_saves_one_of_its_equipment_types():
    """"Saving one of the two equipment types needed to build other houses or public buildings."
    Park saves a garden or a terrace; Green Cabin needs bedroom 1, garden 2."""
    s = build_position(None, ["Bedroom", "Garden"], built=["Park"],
                       market=["Green Cabin", "Red Mansion", "Blue Manor", "Green Estate"])
    seen = build(s, 0, "Green Cabin")
    assert seen[1] == ["Park: save a Garden"]  # needed, so not optional
    assert "Green Cabin" in names(s, "play_area#0") and names(s, "hand#0") == []


def test_public_building_saving_is_optional_when_not_needed():
    s = build_position(None, ["Bedroom", "Garden", "Garden"], built=["Park"],
                       market=["Green Cabin", "Red Mansion", "Blue Manor", "Green Estate"])
    seen = build(s, 0, "Green Cabin", choices=["Park: save a Garden"])
    assert seen[1] == ["Park: save a Garden", "Skip"]
    assert names(s, "hand#0") == ["Garden"]  # one garden saved, one kept


def test_public_building_saving_helps_build_another_public_building():
    """School (bedroom 2, bathroom 1, garden 2) with the Park saving a garden."""
    hand = ["Double Bedroom", "Bathroom", "Garden"]
    assert "School" not in build_offers(build_position(None, hand), 0)
    s = build_position(None, hand, built=["Park"])
    build(s, 0, "School")
    assert "School" in names(s, "play_area#0")


# ---- Events ---------------------------------------------------------------------------------


def test_corrupt_scheme_each_player_takes_a_black_fund_in_turn_order():
    """"Corrupt Scheme: In turn order, each player takes a Funds token from the Urban Investment
    card." (Black money, as with Corruption; the Launderer flips it; the Park takes 2.)"""
    s = bare_state(3)
    with_character(s, 0, "The Launderer")
    give(s, 0, "play_area", ["Park"])
    for p in range(3):
        set_funds(s, p, 0)
    set_neighbourhoods(s, red=2, blue=1, green=1, orange=1)
    s.run_procedure("resolve_event", s.find_cards("Corrupt Scheme")[0], active=1)
    order = []
    while not s.is_over:
        order.append(s.decision.players[0])
        pick(s, labels(s)[0])
    assert order == [1, 2, 0, 0]  # from the active player; Player 1 takes twice (Park)
    assert [(funds(s, p, "normal"), funds(s, p, "black")) for p in range(3)] == [(2, 0), (0, 1), (0, 1)]
    assert sum(funds(s, c) for c in COLOURS) == 5 - 4


def test_corrupt_scheme_with_empty_neighbourhoods_gives_nothing():
    s = bare_state(3)
    set_neighbourhoods(s, red=1, blue=0, green=0, orange=0)
    for p in range(3):
        set_funds(s, p, 0)
    s.run_procedure("resolve_event", s.find_cards("Corrupt Scheme")[0], active=0)
    decline_until(s, lambda st: False)
    assert [funds(s, p) for p in range(3)] == [1, 0, 0]


def test_stock_out_each_player_takes_a_market_card_in_turn_order():
    """"Stock Out: In turn order, each player takes any card (and its Funds tokens) from the Room
    market and refills it. Room abilities are not activated.\""""
    s = bare_state(2)
    ids = set_room_market(s, [room(s, "Bedroom", "promotion"), "Garage", "Garden", "Terrace"])
    s.set_tokens(f"c{ids[3]}", "funds", 2)
    f0, f1 = funds(s, 0), funds(s, 1)
    s.run_procedure("resolve_event", s.find_cards("Stock Out")[0], active=1)
    assert s.decision.players == (1,)
    assert labels(s) == ["Bedroom", "Garage", "Garden", "Terrace"]
    pick(s, "Terrace")
    assert len(s.s.zones["room_market"]) == 4  # refilled before the next player
    assert s.decision.players == (0,)
    pick(s, "Bedroom")
    assert s.is_over  # no ability question (the Bedroom's Promotion)
    assert names(s, "hand#1") == ["Terrace"] and names(s, "hand#0") == ["Bedroom"]
    assert (funds(s, 0), funds(s, 1)) == (f0, f1 + 2)
    assert len(s.s.zones["room_market"]) == 4


def test_economic_aid_puts_a_fund_on_each_room_market_card():
    """"Economic Aid: Place a Funds token on each of the cards in the Room market.\""""
    s = bare_state(3)
    ids = set_room_market(s, ["Garage", "Garden", "Terrace", "Bathroom"])
    s.set_tokens(f"c{ids[1]}", "funds", 1)
    supply = funds(s, "supply")
    s.run_procedure("resolve_event", s.find_cards("Economic Aid")[0], active=0)
    assert s.is_over
    assert market_funds(s) == [1, 2, 1, 1]
    assert funds(s, "supply") == supply - 4


def bargains_game():
    """2 players, no Characters. Player 1 builds Orange Flat on the first turn; the House deck
    has Bargains on top, so it appears when the House market is refilled. Player 2 holds a
    bedroom and a bathroom: one short of Red Cottage (bedroom, bathroom, garden)."""
    def arrange(st):
        for p in range(2):
            clear_player(st, p)
        set_house_market(st, ["Orange Flat", "Red Cottage", "Blue Manor", "Green Estate"])
        put_on_house_deck(st, ["Bargains", "Red Mansion"])
        give(st, 0, "hand", ["Bedroom", "Bathroom", "Terrace"])
        give(st, 1, "hand", ["Bedroom", "Bathroom"])
    s = new_state(2, seed=6, characters={0: None, 1: None}, arrange=arrange)
    pick(s, "Neither")
    pick(s, "Build Orange Flat")
    decline_until(s, lambda st: st.decision.players != (0,))
    return s


def test_bargains_appears_when_the_house_market_refills():
    """Events: "Execute them when they appear. Then discard them." The market refills on."""
    s = bargains_game()
    assert "bargain_prices" in s.view(0)["modifiers"]
    assert "Bargains" in names(s, "house_discard")
    assert names(s, "house_market") == ["Red Cottage", "Blue Manor", "Green Estate", "Red Mansion"]


def test_bargains_houses_cost_one_equipment_less():
    """"Bargains: Houses cost 1 Equipment less of any type.\""""
    s = bargains_game()
    assert s.decision.players == (1,)
    pick(s, "Neither")
    assert labels(s) == ["Build Red Cottage", "Skip"]
    pick(s, "Build Red Cottage")
    assert labels(s) == ["Save a Garden"]
    decline_until(s, lambda st: st.decision.players != (1,))
    assert names(s, "play_area#1") == ["Red Cottage"]
    assert names(s, "hand#1") == []


def test_bargains_not_for_public_buildings():
    s = bargains_game()
    for c in ["Garden", "Garden", "Terrace"]:  # Park: garden 3, terrace 1
        give(s, 1, "hand", [c])
    s.run_procedure("build_step", 1, active=1)
    assert "Build Park" not in labels(s)


def test_bargains_lasts_until_the_end_of_the_active_players_next_turn():
    """"Discard this event at the end of the next turn of the active player." It appeared on
    Player 1's turn: in force for Player 2's turn and Player 1's next turn, then gone."""
    s = bargains_game()
    pass_turn(s)  # Player 2, round 1
    assert s.decision.players == (0,) and "bargain_prices" in s.view(0)["modifiers"]
    pass_turn(s)  # Player 1's next turn
    assert s.decision.players == (1,)
    assert "bargain_prices" not in s.view(0)["modifiers"]
    pick(s, "Neither")
    assert prompt(s) != "Build a House or a Public Building?"  # Red Cottage is full price again


# ---- Missions -------------------------------------------------------------------------------
# Stand-in profits/colours/icons from cards.rules; mission points are the rulebook's.

MISSIONS = [
    # "Have the House with the most profit points (or tied) built among all players: 4."
    ("The Councillor's Friend", 4,
     dict(houses={0: ["Red Mansion"], 1: ["Blue Manor", "Red Cottage"]}),  # 5 tied with 5
     dict(houses={0: ["Blue Duplex"], 1: ["Blue Manor"]})),  # 4 < 5
    # "Have 2 Houses with the fewest profit points (or tied) built among all players: 4."
    ("The Dealer", 4,
     dict(houses={0: ["Red Cottage", "Blue Studio"], 1: ["Green Cabin", "Red Mansion"]}),  # 2, 2 vs 2
     dict(houses={0: ["Red Cottage", "Red Loft"], 1: ["Green Cabin"]})),  # 2, 3 vs 2
    # "Have more Funds tokens than your rivals: 3."
    ("The Broker", 3, dict(funds={0: 4, 1: 3, 2: 3}), dict(funds={0: 4, 1: 4, 2: 0})),
    # "Have 5 or more Funds tokens in your supply: 3." (black money is a Funds token)
    ("The Banker", 3, dict(funds={0: 4}, black={0: 1}), dict(funds={0: 4})),
    # "Have 2 Houses from the same neighbourhood: 3."
    ("The Big Family", 3, dict(houses={0: ["Red Cottage", "Red Loft"]}),
     dict(houses={0: ["Red Cottage", "Blue Studio", "Green Cabin"]})),
    # "Have 3 Houses from the same neighbourhood: 8."
    ("The Launderer", 8, dict(houses={0: ["Green Cabin", "Green Estate", "Green Chalet"]}),
     dict(houses={0: ["Green Cabin", "Green Estate", "Red Cottage"]})),
    # "Have 2 Public Building cards: 4."
    ("The Mechanic", 4, dict(houses={0: ["Park", "School"]}), dict(houses={0: ["Park", "Red Cottage"]})),
    # "Have 3 Houses from different neighbourhoods: 4."
    ("The Plumber", 4, dict(houses={0: ["Red Cottage", "Blue Studio", "Green Cabin"]}),
     dict(houses={0: ["Red Cottage", "Red Loft", "Green Cabin"]})),
    # "Have 4 Houses from different neighbourhoods: 6."
    ("The Sun Seeker", 6, dict(houses={0: ["Red Cottage", "Blue Studio", "Green Cabin", "Orange Flat"]}),
     dict(houses={0: ["Red Cottage", "Blue Studio", "Green Cabin", "Green Estate"]})),
    # "Have 3 identical bonus icons: 3." (the Gardener's own icon is green areas)
    ("The Gardener", 3, dict(houses={0: ["Green Cabin", "Red Villa"]}),
     dict(houses={0: ["Green Cabin", "Red Cottage"]})),
    # "Have 4 different bonus icons: 4." (the Local's own icon is school zone)
    ("The Local", 4, dict(houses={0: ["Red Cottage", "Blue Studio", "Green Cabin"]}),
     dict(houses={0: ["Red Cottage", "Blue Studio", "Orange Flat"]})),
]


def mission_position(character, arrangement):
    s = bare_state(3)
    with_character(s, 0, character)
    for p in range(3):
        set_funds(s, p, 0)
    for p, cards in arrangement.get("houses", {}).items():
        give(s, p, "play_area", cards)
    for p, n in arrangement.get("funds", {}).items():
        set_funds(s, p, n, black=arrangement.get("black", {}).get(p, 0))
    return s


@pytest.mark.parametrize("character, points, met, not_met", MISSIONS, ids=[m[0] for m in MISSIONS])
def test_mission(character, points, met, not_met):
    s = mission_position(character, met)
    assert s.score_breakdown(0)["mission"] == points
    s = mission_position(character, not_met)
    assert s.score_breakdown(0)["mission"] == 0


def test_mission_points_match_the_rulebook():
    s = bare_state(2)
    points = {attrs_of(s, c)["mission"]: attrs_of(s, c)["mission_points"]
              for c in s.game.compiled.cards_of_kind["character"]}
    assert points == {
        "best_house": 4, "two_cheapest_houses": 4, "most_funds": 3, "five_funds": 3,
        "first_four_houses": 4, "two_same_neighbourhood": 3, "three_same_neighbourhood": 8,
        "two_public_buildings": 4, "three_neighbourhoods": 4, "four_neighbourhoods": 6,
        "three_same_icons": 3, "four_different_icons": 4}


def test_mission_needs_houses():
    """With no House at all, "the House with the most profit points" is not yours."""
    s = mission_position("The Councillor's Friend", {})
    assert s.score_breakdown(0)["mission"] == 0
    s = mission_position("The Dealer", dict(houses={0: ["Red Cottage"]}))
    assert s.score_breakdown(0)["mission"] == 0  # two Houses are needed


def test_mission_only_scores_for_the_characters_owner():
    s = mission_position("The Big Family", dict(houses={1: ["Red Cottage", "Red Loft"]}))
    assert s.score_breakdown(1)["mission"] == 0
    assert s.score_breakdown(0)["mission"] == 0


def test_mission_first_to_build_four_houses():
    """"Build the 4 Houses first: 4.\""""
    s = bare_state(2)
    with_character(s, 0, "The Scout")
    give(s, 0, "play_area", ["Red Cottage", "Blue Studio", "Green Cabin"])
    give(s, 0, "hand", ["Bedroom", "Bathroom", "Terrace"])
    give(s, 1, "play_area", ["Red Loft", "Blue Apartment", "Green Chalet"])
    give(s, 1, "hand", ["Double Bedroom", "Bathroom", "Terrace"])
    set_house_market(s, ["Orange Flat", "Red Terraced House", "Blue Manor", "Green Estate"])
    assert s.score_breakdown(0)["mission"] == 0
    build(s, 0, "Orange Flat")
    assert s.score_breakdown(0)["mission"] == 4
    build(s, 1, "Red Terraced House")
    assert s.score_breakdown(0)["mission"] == 4
    with_character(s, 1, "The Scout")  # the Scout held by the second to reach 4
    assert s.score_breakdown(1)["mission"] == 0
