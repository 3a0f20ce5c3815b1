"""Off-Plan: the modes, variants and the Outlet (option `mode`, option `outlet`).

Every mode is an option of the same rule files (games/off_plan): the Vulture Funds and Urban
Plan variants of Standard Mode (variants.rules), Solo Mode vs Vulture Funds
(solo_vulture.rules), Solo Urbanization Mode (solo_urbanization.rules) and the Outlet
mini-expansion (outlet.rules). Card values are the STAND-IN values of cards.rules, and so are
the Outlet's prices (2 players: 2, 2, 3; 3+ players: 2, 3, 3); each test names what it uses.

The default run plays a few random games of each mode; `pytest -m slow` plays 100 games of
every mode, with and without the Outlet where it is allowed, at every player count it allows.
"""

from __future__ import annotations

import functools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from off_plan_helpers import (
    GAME_PATH,
    TOTAL_FUNDS,
    card_funds,
    decline_until,
    funds,
    labels,
    log_texts,
    move,
    names,
    pick,
    prompt,
    random_playout,
    set_funds,
    set_neighbourhoods,
    set_room_market,
)
from test_off_plan_properties import problems

import interpreter
from interpreter.engine.api import State
from interpreter.tools.cli import main
from interpreter.tools.simulate import simulate

MODES = ("standard", "vulture_funds", "urban_plan", "solo_vulture", "solo_urbanization")
MULTIPLAYER = ("standard", "vulture_funds", "urban_plan")
SOLO = ("solo_vulture", "solo_urbanization")
VULTURE_DEPTH = {2: 20, 3: 16, 4: 13, 5: 10}
MAX_DECISIONS = 3000


@functools.cache
def loaded(mode: str = "standard", outlet: bool = False):
    return interpreter.load(GAME_PATH, {"mode": mode, "outlet": outlet})


def kind(s: State, card: int) -> str:
    return s.game.compiled.card_kinds[card]


def cards_of(s: State, k: str) -> list[int]:
    return list(s.game.compiled.cards_of_kind[k])


def zone_kinds(s: State, zone: str) -> list[str]:
    return sorted({kind(s, c) for c in s.s.zones[zone]})


def var(s: State, name: str):
    return s.s.vars[name]


def start(mode: str = "standard", players: int = 2, seed: int = 0, outlet: bool = False) -> State:
    """A game at its first decision of play. The Character draft (when there is one) takes
    Characters that leave the first menu alone; then every Character is put back in the box."""
    s = loaded(mode, outlet).new_game(players=players, seed=seed)
    while prompt(s) == "Choose your Character":
        acts = s.legal_actions(s.decision.players[0])
        s.apply(next(a for a in acts if not a.label.startswith(("The Scout", "The Banker"))))
    for p in range(players):
        for c in list(s.s.zones[f"play_area#{p}"]):
            move(s, c, "box")
    return s


def pass_until(s: State, stop, limit: int = 500) -> None:
    decline_until(s, stop, limit)


# ---- options ---------------------------------------------------------------------------------


def test_info_lists_the_modes_and_the_outlet(capsys):
    assert main(["info", GAME_PATH]) == 0
    out = capsys.readouterr().out
    assert "players: 1 to 5" in out
    assert "mode: standard | vulture_funds | urban_plan | solo_vulture | solo_urbanization  (default standard)" in out
    assert "outlet: true | false  (default false)" in out


def test_the_default_is_standard_mode_without_the_outlet():
    assert interpreter.load(GAME_PATH).option_values == {"mode": "standard", "outlet": False}


@pytest.mark.parametrize("mode", MULTIPLAYER)
def test_standard_mode_and_its_variants_refuse_one_player(mode):
    with pytest.raises(ValueError, match="Standard Mode and its variants are for 2 to 5 players"):
        loaded(mode).new_game(players=1)


@pytest.mark.parametrize("mode", SOLO)
@pytest.mark.parametrize("players", [2, 5])
def test_the_solo_modes_refuse_more_than_one_player(mode, players):
    with pytest.raises(ValueError, match="The solo modes are for one player"):
        loaded(mode).new_game(players=players)


@pytest.mark.parametrize("mode", SOLO)
def test_the_outlet_is_refused_in_the_solo_modes(mode):
    with pytest.raises(ValueError, match="The Outlet is for Standard Mode and its variants"):
        interpreter.load(GAME_PATH, {"mode": mode, "outlet": True})


def test_cli_refuses_a_wrong_combination(capsys):
    code = main(["simulate", GAME_PATH, "--players", "3", "--games", "1", "--option", "mode=solo_vulture"])
    assert code != 0
    captured = capsys.readouterr()
    assert "The solo modes are for one player" in captured.out + captured.err


# ---- Vulture Funds variant -----------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_vulture_card_lies_among_the_bottom_cards_by_the_table(players):
    """"take cards from the bottom of the House deck [2: 20, 3: 16, 4: 13, 5: 10], shuffle the
    Vulture Funds card into them, and then return them to the bottom of the House deck without
    disturbing their order": the cards above keep Standard Mode's order (same seed, same
    shuffles up to there), the bottom ones are the same cards, and the card has at most
    `depth` cards under it."""
    depth = VULTURE_DEPTH[players]
    places = set()
    for seed in range(25):
        v = loaded("vulture_funds").new_game(players=players, seed=seed)
        s = loaded("standard").new_game(players=players, seed=seed)
        deck, plain = v.s.zones["house_deck"], s.s.zones["house_deck"]
        assert len(deck) == len(plain) == 24  # 20 Houses and 4 Events
        above = len(deck) - depth
        assert deck[:above] == plain[:above]
        assert sorted(deck[above:]) == sorted(plain[above:])
        below = var(v, "vulture_below")
        assert 0 <= below <= depth
        places.add(below)
    assert len(places) >= 6  # the card lands anywhere among the bottom cards


def test_the_bottom_cards_are_shuffled_with_the_card():
    """Their order changes (the card is shuffled into them), not only the card's place."""
    moved = 0
    for seed in range(10):
        v = loaded("vulture_funds").new_game(players=2, seed=seed)
        s = loaded("standard").new_game(players=2, seed=seed)
        moved += v.s.zones["house_deck"][4:] != s.s.zones["house_deck"][4:]
    assert moved >= 9


def test_vulture_card_appearing_ends_the_game_and_the_vulture_funds_win():
    """"The game ends when the Vulture Funds card appears, and the vulture funds win." Here it
    lies under the 2 top cards of the House deck, and 3 Houses of the market are built."""
    s = start("vulture_funds", players=3)
    deck = s.s.zones["house_deck"]
    top_two = [c for c in deck if kind(s, c) == "house"][:2]
    for c in reversed(top_two):
        s.place(c, "house_deck", 0)
    s.set_var("vulture_below", len(deck) - 2)
    for c in list(s.s.zones["house_market"])[:3]:
        move(s, c, "play_area#1")
    s.run_procedure("refill_house_market", active=0)
    assert s.is_over
    assert var(s, "vulture_won") is True
    assert s.s.zones["house_market"][-2:] == top_two  # the two cards above it were turned up
    assert "The Vulture Funds card appears: the game ends and the vulture funds win" in log_texts(s)


def test_vulture_card_under_the_whole_deck_appears_when_the_deck_runs_out():
    s = start("vulture_funds", players=2)
    for c in list(s.s.zones["house_deck"]):
        move(s, c, "house_discard")
    s.set_var("vulture_below", 0)
    move(s, s.s.zones["house_market"][0], "play_area#0")
    s.run_procedure("refill_house_market", active=0)
    assert s.is_over and var(s, "vulture_won")


def test_vulture_card_stays_hidden_while_other_cards_lie_above_it():
    s = start("vulture_funds", players=2)
    s.set_var("vulture_below", 0)
    move(s, s.s.zones["house_market"][0], "play_area#0")
    s.run_procedure("refill_house_market", active=0)
    assert not var(s, "vulture_won")
    assert len(s.s.zones["house_market"]) == 4


def test_standard_mode_has_no_vulture_card():
    s = start("standard", players=2)
    for c in list(s.s.zones["house_deck"]):
        move(s, c, "house_discard")
    move(s, s.s.zones["house_market"][0], "play_area#0")
    s.run_procedure("refill_house_market", active=0)
    assert not var(s, "vulture_won")
    assert len(s.s.zones["house_market"]) == 3


# ---- Urban Plan variant --------------------------------------------------------------------------


def colours_shown(s: State) -> list[str]:
    return [s.game.compiled.card_attrs[c]["color"] for c in s.s.zones["house_market"]]


def pile(s: State, colour: str) -> list[int]:
    return [c for c in s.s.zones["house_piles"] if s.game.compiled.card_attrs[c]["color"] == colour]


def test_urban_plan_setup_four_piles_top_houses_shown_no_events():
    """"Form 4 piles by separating the Houses by neighbourhood colour ... Do not include the
    Event cards or the Vulture Funds card. The top House of each pile is always visible.\""""
    s = start("urban_plan", players=3)
    assert colours_shown(s) == ["red", "blue", "green", "orange"]
    assert len(s.s.zones["house_piles"]) == 20
    assert all(len(pile(s, n)) == 5 for n in ("red", "blue", "green", "orange"))
    assert s.s.zones["house_deck"] == []
    assert all(s.s.where[c] == "box" for c in cards_of(s, "event_card"))


def test_urban_plan_piles_are_shuffled_independently():
    orders = {tuple(loaded("urban_plan").new_game(players=2, seed=seed).s.zones["house_market"]) for seed in range(8)}
    assert len(orders) >= 6


def test_urban_plan_building_a_top_house_shows_the_next_of_its_pile():
    s = start("urban_plan", players=2)
    green_top = s.s.zones["house_market"][2]
    next_green = pile(s, "green")[0]
    move(s, green_top, "play_area#0")
    s.run_procedure("refill_house_market", active=0)
    assert s.s.zones["house_market"][2] == next_green
    assert colours_shown(s) == ["red", "blue", "green", "orange"]


def test_urban_plan_an_empty_pile_is_not_refilled():
    """"Houses will not be refilled": once a colour's pile is used up, nothing takes its place."""
    s = start("urban_plan", players=2)
    for c in pile(s, "blue"):
        move(s, c, "house_discard")
    move(s, s.s.zones["house_market"][1], "play_area#0")
    s.run_procedure("refill_house_market", active=0)
    assert colours_shown(s) == ["red", "green", "orange"]


def test_urban_plan_renovation_discards_a_top_house_and_shows_the_next():
    """"there will still be a discard pile": Renovation discards the top House of a pile."""
    s = start("urban_plan", players=2)
    red_top, next_red = s.s.zones["house_market"][0], pile(s, "red")[0]
    s.run_procedure("renovation_ability", 0, active=0)
    pick(s, s.game.card_name(red_top))
    assert s.s.zones["house_discard"] == [red_top]
    assert s.s.zones["house_market"][0] == next_red


def test_urban_plan_swap_keeps_one_house_per_neighbourhood():
    s = start("urban_plan", players=2)
    mine = move(s, pile(s, "orange")[0], "play_area#0")
    top = s.s.zones["house_market"][3]
    s.run_procedure("swap_ability", 0, active=0)
    pick(s, s.game.card_name(top))
    pick(s, s.game.card_name(mine))
    assert s.s.zones["house_market"][3] == mine
    assert top in s.s.zones["play_area#0"]
    assert colours_shown(s) == ["red", "blue", "green", "orange"]


# ---- The Outlet ------------------------------------------------------------------------------------


def outlet_state(players: int = 2, mode: str = "standard", seed: int = 0) -> State:
    s = start(mode, players=players, seed=seed, outlet=True)
    for c in list(s.s.zones["hand#0"]):
        move(s, c, "room_discard")
    return s


def set_outlet(s: State, cards: list[str]) -> list[int]:
    """The Outlet becomes these cards, left to right (a Promotion copy of each if there is one)."""
    for c in list(s.s.zones["outlet_row"]):
        move(s, c, "room_discard")
    ids = []
    for name in cards:
        free = [x for x in s.find_cards(name) if s.s.where[x] in ("room_deck", "room_discard", "box")]
        free.sort(key=lambda x: s.game.compiled.card_attrs[x].get("ability") != "promotion")
        ids.append(s.place(free[0], "outlet_row"))
    return ids


def test_outlet_setup_lays_out_three_room_deck_cards():
    """"Place the outlet tile on the public buildings, and lay out 3 cards from the Room deck."""
    for mode in MULTIPLAYER:
        s = start(mode, players=3, outlet=True)
        assert len(s.s.zones["outlet_row"]) == 3
        assert zone_kinds(s, "outlet_row") <= ["room", "trick"]
        # 62 Room deck cards: 4 in the market, 3 in the Outlet, 2 in each of 3 hands
        assert len(s.s.zones["room_deck"]) == 62 - 4 - 3 - 6


def test_no_outlet_without_the_option():
    s = start("standard", players=3)
    assert s.s.zones["outlet_row"] == []


@pytest.mark.parametrize("players, prices", [(2, [2, 2, 3]), (3, [2, 3, 3]), (4, [2, 3, 3]), (5, [2, 3, 3])])
def test_outlet_prices_on_each_side(players, prices):
    """STAND-IN prices: the 2-player side 2, 2, 3; the 3+ side 2, 3, 3 ("a card for 2 or 3 Funds")."""
    s = outlet_state(players)
    set_outlet(s, ["Garage", "Bedroom", "Terrace"])
    set_funds(s, 0, 9)
    s.run_procedure("buy_from_outlet", 0, active=0)
    assert labels(s) == [f"Buy the left card, Garage ({prices[0]} Funds)",
                         f"Buy the central card, Bedroom ({prices[1]} Funds)",
                         f"Buy the right card, Terrace ({prices[2]} Funds)"]


def test_outlet_left_card_no_ability_one_fund_on_the_last_room_market_card():
    """"When you buy the left card, its ability cannot be used. One of the Funds spent must be
    placed on the last available card of the Room market." (Stand-in price 2.)"""
    s = outlet_state(2)
    left, _, _ = set_outlet(s, ["Bedroom", "Garage", "Terrace"])  # promotion Rooms
    market = set_room_market(s, ["Bathroom", "Garden", "Garage"])
    set_funds(s, 0, 5)
    supply = funds(s, "supply")
    s.run_procedure("buy_from_outlet", 0, active=0)
    pick(s, "Buy the left card, Bedroom (2 Funds)")
    assert s.is_over  # no ability was offered
    assert left in s.s.zones["hand#0"]
    assert funds(s, 0) == 3
    assert card_funds(s, market[-1]) == 1 and card_funds(s, market[0]) == 0
    assert funds(s, "supply") == supply + 1


def test_outlet_central_card_ability_one_fund_on_the_first_room_market_card():
    """"When you buy the central card, its ability can be used. One of the Funds spent must be
    placed on the first available card of the Room market." (2 players: stand-in price 2.)"""
    s = outlet_state(2)
    _, central, _ = set_outlet(s, ["Bedroom", "Terrace", "Garage"])
    market = set_room_market(s, ["Bathroom", "Garden", "Garage"])
    set_funds(s, 0, 5)
    s.run_procedure("buy_from_outlet", 0, active=0)
    pick(s, "Buy the central card, Terrace (2 Funds)")
    assert card_funds(s, market[0]) == 1 and card_funds(s, market[-1]) == 0
    assert funds(s, 0) == 3
    assert labels(s) == ["Use the ability of Terrace: Promotion (1 Funds)", "Do not use it"]
    before = len(s.s.zones["hand#0"])
    pick(s, "Use the ability of Terrace")
    assert central in s.s.zones["hand#0"] and len(s.s.zones["hand#0"]) == before + 1
    assert funds(s, 0) == 2


def test_outlet_right_card_ability_one_fund_on_the_urban_investment_card():
    """"When you buy the right card, its ability can be used. One of the Funds spent must be
    placed on the Urban Investment card." (3+ players: stand-in price 3.)"""
    s = outlet_state(3)
    _, _, right = set_outlet(s, ["Bedroom", "Garage", "Terrace"])
    set_neighbourhoods(s, red=1, blue=1, green=1, orange=1)
    set_funds(s, 0, 5)
    supply = funds(s, "supply")
    s.run_procedure("buy_from_outlet", 0, active=0)
    pick(s, "Buy the right card, Terrace (3 Funds)")
    assert prompt(s) == "Place the Funds token on which neighbourhood?"
    pick(s, "Place it on Green")
    assert funds(s, "green") == 2
    assert funds(s, 0) == 2 and funds(s, "supply") == supply + 2
    assert "Use the ability of Terrace: Promotion (1 Funds)" in labels(s)
    pick(s, "Do not use it")
    assert right in s.s.zones["hand#0"]


def test_outlet_does_not_accept_black_money():
    """"It does not accept black money": black Funds neither count nor pay."""
    s = outlet_state(2)
    set_outlet(s, ["Bedroom", "Garage", "Terrace"])
    set_funds(s, 0, 1, black=4)
    s.run_procedure("invest_or_buy", 0, active=0)
    assert "Buy a card from the Outlet" not in labels(s)
    s = outlet_state(2)
    set_outlet(s, ["Bedroom", "Garage", "Terrace"])
    set_funds(s, 0, 2, black=4)
    s.run_procedure("invest_or_buy", 0, active=0)
    pick(s, "Buy a card from the Outlet")
    assert labels(s) == ["Buy the left card, Bedroom (2 Funds)", "Buy the central card, Garage (2 Funds)"]
    pick(s, "Buy the left card")
    assert funds(s, 0, "normal") == 0 and funds(s, 0, "black") == 4


def test_outlet_is_an_alternative_to_investing():
    """"They may place 1 Funds token on one of the 4 neighbourhoods ..., or buy a card from
    the outlet." """
    s = outlet_state(2)
    set_outlet(s, ["Bedroom", "Garage", "Terrace"])
    set_funds(s, 0, 3)
    s.run_procedure("invest_or_buy", 0, active=0)
    assert labels(s) == ["Invest 1 Funds token in a neighbourhood", "Buy a card from the Outlet", "Neither"]
    pick(s, "Invest 1 Funds token in a neighbourhood")
    before = funds(s, "red")
    pick(s, "Invest in Red")
    assert funds(s, "red") == before + 1 and s.is_over  # nothing bought as well


def test_outlet_is_refilled_at_the_end_of_the_turn():
    """"After buying a card, the others are shifted to the left and this one is refilled."""
    s = outlet_state(2)
    left, central, right = set_outlet(s, ["Bedroom", "Garage", "Terrace"])
    top = s.s.zones["room_deck"][0]
    set_funds(s, 0, 5)
    s.run_procedure("play_turn", 0, active=0)
    pick(s, "Neither")
    pass_until(s, lambda st: prompt(st) == "Invest 1 Funds token in a neighbourhood, or buy a card from the Outlet?")
    pick(s, "Buy a card from the Outlet")
    pick(s, "Buy the left card")
    assert s.is_over
    assert s.s.zones["outlet_row"] == [central, right, top]


def test_outlet_in_the_variants():
    for mode in ("vulture_funds", "urban_plan"):
        s = outlet_state(3, mode=mode)
        set_outlet(s, ["Bedroom", "Garage", "Terrace"])
        set_funds(s, 0, 3)
        s.run_procedure("buy_from_outlet", 0, active=0)
        pick(s, "Buy the left card")
        assert funds(s, 0) == 1


# ---- Solo Mode vs Vulture Funds -----------------------------------------------------------------


def solo(seed: int = 0) -> State:
    return start("solo_vulture", players=1, seed=seed)


def test_solo_vulture_setup():
    """"without the outlet, the Event cards, the Public Buildings and the Characters", and the
    Vulture Funds card on the leftmost House."""
    s = solo()
    for k in ("event_card", "public_building", "character"):
        assert all(s.s.where[c] == "box" for c in cards_of(s, k)), k
    assert len(s.s.zones["house_market"]) == 4 and len(s.s.zones["house_deck"]) == 20
    assert len(s.s.zones["room_market"]) == 4 and len(s.s.zones["hand#0"]) == 2
    assert funds(s, 0) == 3
    assert all(funds(s, n) == 1 for n in ("red", "blue", "green", "orange"))
    assert var(s, "vulture_spot") == 0
    assert s.s.zones["outlet_row"] == []


def test_solo_vulture_lasts_4_rounds_of_4_turns():
    """"The game lasts 4 rounds of 4 turns each", the card advancing one House each turn; the
    Vulture Funds build once a round."""
    s = solo(seed=3)
    pass_until(s, lambda st: False, limit=1000)
    texts = log_texts(s)
    assert texts.count("Player 1's turn") == 16
    assert [t for t in texts if t.startswith("End of round")] == [f"End of round {r}" for r in (1, 2, 3, 4)]
    assert len(s.s.zones["vulture_houses"]) == 4
    assert var(s, "vulture_spot") == 4


def test_solo_vulture_markets_are_refilled_at_the_start_of_the_next_turn():
    """"the markets are refilled at the start of the next turn": a turn leaves its gaps ..."""
    s = solo()
    set_room_market(s, ["Garage", "Bathroom", "Garden", "Terrace"])
    s.run_procedure("play_turn", 0, active=0)
    pick(s, "Take a card from the Room market")
    pick(s, "Take Garage (0 Funds)")
    pass_until(s, lambda st: False)
    assert s.is_over and len(s.s.zones["room_market"]) == 3
    # ... which the next turn fills first (seen at its first decision)
    s = solo()
    pick(s, "Take a card from the Room market")
    pick(s, "Take ")
    pass_until(s, lambda st: var(st, "vulture_spot") == 1)
    assert len(s.s.zones["room_market"]) == 4 and len(s.s.zones["house_market"]) == 4


def test_standard_mode_refills_at_the_end_of_the_turn():
    s = start("standard", players=2)
    set_room_market(s, ["Garage", "Bathroom", "Garden", "Terrace"])
    s.run_procedure("play_turn", 0, active=0)
    pick(s, "Take a card from the Room market")
    pick(s, "Take Garage (0 Funds)")
    pass_until(s, lambda st: False)
    assert len(s.s.zones["room_market"]) == 4


def test_solo_round_start_tops_up_to_3_funds_and_refills():
    """"If you have fewer than 3 Funds tokens, take the ones you are missing" and "Refill the
    House market and the Room market normally (except in the first round)"."""
    s = solo()
    pass_until(s, lambda st: var(st, "vulture_spot") == 3)  # the last turn of round 1
    set_funds(s, 0, 1, black=0)
    pass_until(s, lambda st: "End of round 1" in log_texts(st) and var(st, "vulture_spot") == 0)
    assert funds(s, 0) == 3
    assert len(s.s.zones["house_market"]) == 4 and len(s.s.zones["room_market"]) == 4
    s = solo()
    set_funds(s, 0, 5)
    pass_until(s, lambda st: "End of round 1" in log_texts(st) and var(st, "vulture_spot") == 0)
    assert funds(s, 0) == 5  # more than 3 are kept


def vulture_round_end(houses: list[str], vulture: list[str] = (), seed: int = 0) -> State:
    s = solo(seed)
    for c in list(s.s.zones["house_market"]):
        move(s, c, "house_deck")
    for name in houses:
        move(s, name, "house_market")
    for name in vulture:
        move(s, name, "vulture_houses")
    s.run_procedure("end_solo_round", 0, active=0)
    return s


def test_vulture_funds_build_the_house_with_the_most_profit():
    """Stand-ins: Red Mansion 5, Orange Family Home 4 [school, school], Blue Apartment 3."""
    s = vulture_round_end(["Blue Apartment", "Orange Family Home", "Red Mansion"],
                          vulture=["Orange Flat", "Blue Apartment"])
    assert names(s, "vulture_houses")[-1] == "Red Mansion"


def test_vulture_funds_break_a_tie_by_the_icons_that_benefit_them_most():
    """Profit 5 three times (stand-ins): Red Mansion [satisfaction], Blue Manor [school], Green
    Estate [green]. Holding Blue Apartment [school], Blue Manor's school icon makes 2 of a kind
    (1 -> 3 points): +2, against +1 for the others."""
    s = vulture_round_end(["Red Mansion", "Blue Manor", "Green Estate", "Red Cottage"],
                          vulture=["Blue Apartment"])
    assert names(s, "vulture_houses") == ["Blue Apartment", "Blue Manor"]
    # holding two Houses with profitability: Orange Residence's [profitability] makes 3 (3 -> 5
    # points): +2, against +1 for the other 5s
    s = vulture_round_end(["Red Mansion", "Blue Manor", "Orange Residence"],
                          vulture=["Red Terraced House", "Blue Studio"])
    assert names(s, "vulture_houses")[-1] == "Orange Residence"


def test_a_tie_the_icons_leave_is_broken_by_the_player():
    """Nothing held: each of the three 5s adds 1 icon point (Orange Family Home has 4 profit);
    the book says no more, so the player picks among them (and only among them)."""
    s = vulture_round_end(["Red Mansion", "Blue Manor", "Green Estate", "Orange Family Home"])
    assert prompt(s) == "The Vulture Funds build which of the tied Houses?"
    assert labels(s) == ["The Vulture Funds build Red Mansion", "The Vulture Funds build Blue Manor",
                         "The Vulture Funds build Green Estate"]
    pick(s, "The Vulture Funds build Green Estate")
    assert names(s, "vulture_houses") == ["Green Estate"]


def test_vulture_funds_invest_where_they_hold_and_withdraw_elsewhere():
    """"invest 2 Funds tokens from the general supply on each neighbourhood they hold. Then
    they return 1 Funds token from each neighbourhood they do not hold"; then "Discard the
    House market and the Room market, along with the Funds tokens on them"."""
    s = solo()
    set_neighbourhoods(s, red=1, blue=0, green=2, orange=3)
    for c in list(s.s.zones["house_market"]):
        move(s, c, "house_deck")
    # profit 2 each: Red Cottage [satisfaction], Blue Studio [profitability], Green Cabin
    # [green]; holding Red Villa [green], Green Cabin's icon is worth most (+2, not +1)
    for name in ["Red Cottage", "Blue Studio", "Green Cabin"]:
        move(s, name, "house_market")
    move(s, "Red Villa", "vulture_houses")
    market = s.s.zones["room_market"]
    s.set_tokens(f"c{market[1]}", "funds", 2)
    supply = funds(s, "supply")
    s.run_procedure("end_solo_round", 0, active=0)
    assert s.is_over  # no tie to break
    assert names(s, "vulture_houses") == ["Red Villa", "Green Cabin"]
    # held: red and green (+2 each); not held: blue (has none to return) and orange (-1)
    assert [funds(s, n) for n in ("red", "blue", "green", "orange")] == [3, 0, 4, 2]
    assert s.s.zones["house_market"] == [] and s.s.zones["room_market"] == []
    assert funds(s, "supply") == supply - 4 + 1 + 2  # 2+2 invested, 1 returned, 2 off the Room market
    assert sorted(names(s, "house_discard")) == ["Blue Studio", "Red Cottage"]


def test_solo_vulture_scores_the_vulture_funds_by_the_same_rules():
    """"Scoring in this mode is calculated as in Standard Mode, considering the Vulture Funds
    as another player." Vulture: Red Mansion 5 [satisfaction] + Red Villa 5 [green]:
    buildings 10, icons 1 + 1 = 2, neighbourhoods: red first (1+ side: 2) twice = 4 -> 16.
    Player: Blue Manor 5 [school] + 6 Funds (2 points): 5 + 2 + 1 + blue second (1) -> 9."""
    s = solo()
    move(s, "Red Mansion", "vulture_houses")
    move(s, "Red Villa", "vulture_houses")
    move(s, "Blue Manor", "play_area#0")
    set_funds(s, 0, 6)
    set_neighbourhoods(s, red=5, blue=3, green=1, orange=0)
    b = s.score_breakdown(0)
    assert (b["buildings"], b["funds_tokens"], b["bonus_icons"], b["neighbourhoods"]) == (5, 2, 1, 1)
    s.run_procedure("solo_vulture_result", 0, active=0)
    assert var(s, "vulture_won") and not var(s, "solo_won")
    assert "Player 1 scores 9, the Vulture Funds 16: the Vulture Funds win" in log_texts(s)


def test_solo_vulture_player_wins_by_outscoring_and_ties_go_to_funds():
    s = solo()
    move(s, "Red Cottage", "vulture_houses")  # 2 + 1 icon + red first (2) = 5
    move(s, "Blue Manor", "play_area#0")  # 5 + 1 icon + blue second (1) = 7
    set_funds(s, 0, 0)
    set_neighbourhoods(s, red=5, blue=3, green=1, orange=0)
    s.run_procedure("solo_vulture_result", 0, active=0)
    assert var(s, "solo_won") and not var(s, "vulture_won")
    # a tie on points: "the player with more Funds tokens wins" (the Vulture Funds have none)
    s = solo()
    move(s, "Red Cottage", "vulture_houses")  # 5, as above
    move(s, "Blue Studio", "play_area#0")  # 2 + 1 icon + blue second (1) = 4
    set_funds(s, 0, 3)  # + 1 = 5
    set_neighbourhoods(s, red=5, blue=3, green=1, orange=0)
    s.run_procedure("solo_vulture_result", 0, active=0)
    assert "Player 1 scores 5, the Vulture Funds 5: Player 1 wins" in log_texts(s)
    assert var(s, "solo_won")


# ---- Solo Urbanization Mode --------------------------------------------------------------------


def urb(seed: int = 0) -> State:
    return start("solo_urbanization", players=1, seed=seed)


def set_hand(s: State, cards: list[str | int]) -> list[int]:
    for c in list(s.s.zones["hand#0"]):
        move(s, c, "room_discard")
    return [move(s, c, "hand#0") for c in cards]


def set_construction(s: State, houses: list[str]) -> list[int]:
    """The Houses under construction become these (the ones there go back to the box)."""
    for c in list(s.s.zones["under_construction"]):
        move(s, c, "box")
    return [move(s, h, "under_construction") for h in houses]


def test_solo_urbanization_setup():
    """6 Houses set aside in the box, 3 under construction, 15 in the House deck; the 4
    wildcard Rooms apart; the other 52 Rooms form the Room deck; no Room market; 3 drawn."""
    s = urb()
    houses_in_box = [c for c in s.s.zones["box"] if kind(s, c) == "house"]
    assert len(houses_in_box) == 6
    assert len(s.s.zones["under_construction"]) == 3 and len(s.s.zones["house_deck"]) == 15
    assert names(s, "wildcard_rooms") == ["Wildcard Room"] * 4
    assert len(s.s.zones["room_deck"]) == 52 - 3 and len(s.s.zones["hand#0"]) == 3
    assert s.s.zones["room_market"] == [] and s.s.zones["house_market"] == []
    for k in ("trick", "event_card", "character", "public_building"):
        assert all(s.s.where[c] == "box" for c in cards_of(s, k)), k
    assert funds(s, "supply") == TOTAL_FUNDS


def test_trading_two_identical_rooms_for_a_wildcard():
    """"You may discard 2 identical Room cards from your hand to take a wildcard Room, and draw
    another card from the Room deck." """
    s = urb()
    a, b, g = set_hand(s, ["Bedroom", "Bedroom", "Garage"])
    s.run_procedure("urbanization_turn", 0, active=0)
    assert labels(s) == ["Trade 2 Bedroom Rooms for a wildcard Room", "Skip"]
    top = s.s.zones["room_deck"][0]
    pick(s, "Trade 2 Bedroom Rooms for a wildcard Room")
    hand = s.s.zones["hand#0"]
    assert a not in hand and b not in hand and g in hand and top in hand
    assert "Wildcard Room" in names(s, "hand#0") and len(s.s.zones["wildcard_rooms"]) == 3
    assert a in s.s.zones["room_discard"] and b in s.s.zones["room_discard"]


def test_no_trade_without_a_pair():
    s = urb()
    set_hand(s, ["Bedroom", "Double Bedroom", "Garage"])
    s.run_procedure("urbanization_turn", 0, active=0)
    assert prompt(s) == "Place which Room under which House under construction?"
    assert [label.split(" (")[0] for label in labels(s)] == [
        f"Place {room} under {house}" for room in ("Bedroom", "Double Bedroom", "Garage")
        for house in names(s, "under_construction")]


def place(s: State, room: str, house: str) -> None:
    s.run_procedure("urbanization_turn", 0, active=0)
    if prompt(s) == "Discard 2 identical Rooms to take a wildcard Room?":
        pick(s, "Skip")
    pick(s, f"Place {room} under {house} (")


def test_a_needed_room_costs_nothing():
    """Red Cottage needs a bedroom, a bathroom and a garden (stand-in)."""
    s = urb()
    set_construction(s, ["Red Cottage", "Blue Studio", "Green Cabin"])
    set_hand(s, ["Bedroom", "Garage", "Terrace"])
    deck = list(s.s.zones["house_deck"])
    place(s, "Bedroom", "Red Cottage")
    assert s.s.zones["house_deck"] == deck and s.s.zones["house_discard"] == []
    assert len(s.s.zones["hand#0"]) == 3  # one placed, one drawn


def test_an_unneeded_equipment_discards_a_house_from_the_deck():
    """"If you have contributed an Equipment that is not needed for the construction of that
    House, discard 1 card from the House deck": a terrace for Red Cottage; and a Double Bedroom
    where only one bedroom is missing (one of its two is not needed)."""
    s = urb()
    set_construction(s, ["Red Cottage", "Blue Studio", "Green Cabin"])
    set_hand(s, ["Terrace", "Garage", "Bathroom"])
    top = s.s.zones["house_deck"][0]
    place(s, "Terrace", "Red Cottage")
    assert s.s.zones["house_discard"] == [top]
    s = urb()
    set_construction(s, ["Red Cottage", "Blue Studio", "Green Cabin"])
    set_hand(s, ["Double Bedroom", "Garage", "Bathroom"])
    top = s.s.zones["house_deck"][0]
    place(s, "Double Bedroom", "Red Cottage")
    assert s.s.zones["house_discard"] == [top]


def test_a_wildcard_is_always_needed():
    s = urb()
    set_construction(s, ["Red Cottage", "Blue Studio", "Green Cabin"])
    set_hand(s, ["Wildcard Room", "Garage", "Bathroom"])
    place(s, "Wildcard Room", "Green Cabin")
    assert s.s.zones["house_discard"] == []


def test_completing_a_house():
    """"If you have contributed all the necessary Equipment icons of a House, place it in your
    play area, discard the Rooms used, and lay out another House." Green Cabin (stand-in)
    needs a bedroom and two gardens."""
    s = urb()
    _, _, cabin = set_construction(s, ["Red Cottage", "Blue Studio", "Green Cabin"])
    set_hand(s, ["Bedroom", "Garden", "Garden"])
    place(s, "Bedroom", "Green Cabin")
    place(s, "Garden", "Green Cabin")
    assert cabin in s.s.zones["under_construction"]
    next_house = s.s.zones["house_deck"][0]
    place(s, "Garden", "Green Cabin")
    assert s.s.zones["play_area#0"] == [cabin]
    assert names(s, "room_discard").count("Garden") >= 2 and "Bedroom" in names(s, "room_discard")
    assert s.s.zones["placed_rooms"] == []
    assert s.s.zones["under_construction"][-1] == next_house
    assert len(s.s.zones["under_construction"]) == 3


def test_the_end_when_the_house_deck_runs_out():
    """"The game ends when the House deck runs out. At that moment, all Houses under
    construction must be discarded." Then: built profit less discarded profit."""
    s = urb()
    cottage, studio, cabin = set_construction(s, ["Red Cottage", "Blue Studio", "Green Cabin"])
    set_hand(s, ["Terrace", "Garage", "Bathroom"])
    move(s, "Red Mansion", "play_area#0")  # 5
    for c in list(s.s.zones["house_deck"])[1:]:
        move(s, c, "box")
    last = s.s.zones["house_deck"][0]
    # The game's loop, from the position arranged (its first decision was offered before it).
    s.run_procedure("solo_urbanization_game", 0, active=0)
    pick(s, "Place Garage under Blue Studio (")  # needed: no discard
    assert not s.is_over
    pick(s, "Place Terrace under Red Cottage (")  # not needed: the last House of the deck is discarded
    assert s.is_over
    assert sorted(s.s.zones["house_discard"]) == sorted([last, cottage, studio, cabin])
    assert s.s.zones["placed_rooms"] == [] and s.s.zones["under_construction"] == []
    discarded = sum(s.game.compiled.card_attrs[c]["profit"] for c in s.s.zones["house_discard"])
    assert s.scores() == [5 - discarded]
    assert s.score_breakdown(0)["buildings"] == 5 - discarded


@pytest.mark.parametrize("built, discarded, net, rating, won", [
    (["Red Mansion", "Blue Manor", "Blue Penthouse", "Red Villa"], [], 20, "Great builder", True),
    (["Red Mansion", "Blue Manor", "Blue Penthouse", "Blue Duplex"], [], 19, "Good investor", True),
    (["Red Mansion", "Blue Manor"], [], 10, "Good investor", True),
    (["Red Mansion", "Blue Duplex"], [], 9, "Experienced worker", True),
    (["Red Terraced House"], ["Red Cottage"], 1, "Experienced worker", True),
    (["Red Cottage"], ["Blue Studio"], 0, "You make bad investments", False),
    ([], ["Red Mansion", "Blue Manor"], -10, "You make bad investments", False),
    ([], ["Red Mansion", "Blue Duplex", "Blue Studio"], -11, "You should train more", False),
])
def test_rating_table_boundaries(built, discarded, net, rating, won):
    """"20 or more: Great builder; 10 to 19: Good investor; 1 to 9: Experienced worker; -10 to
    0: You make bad investments; -11 or less: You should train more." "If the difference is
    positive, you win; otherwise, you lose." (Stand-in profits: Mansion, Manor, Penthouse, Villa
    5; Duplex 4; Terraced House 3; Studio, Cottage 2.)"""
    s = urb()
    for c in list(s.s.zones["under_construction"]):
        move(s, c, "box")
    for h in built:
        move(s, h, "play_area#0")
    for h in discarded:
        move(s, h, "house_discard")
    assert s.scores() == [net]
    s.run_procedure("urbanization_result", 0, active=0)
    assert var(s, "rating") == rating
    assert var(s, "solo_won") is won


def test_room_abilities_have_no_effect_in_solo_urbanization():
    """"The abilities of Room cards have no effect in this mode": placing a Promotion Room
    asks nothing more."""
    s = urb()
    set_construction(s, ["Red Cottage", "Blue Studio", "Green Cabin"])
    set_hand(s, ["Bedroom", "Garage", "Terrace"])
    place(s, "Bedroom", "Red Cottage")
    assert s.is_over


# ---- random games of every mode ----------------------------------------------------------------


def box_kinds_expected(mode: str) -> dict[str, int]:
    """How many cards of each kind lie in the box once the game is set up (the rest is in play)."""
    if mode == "solo_urbanization":
        return {"house": 6, "trick": 6, "character": 12, "public_building": 4, "event_card": 4}
    if mode == "solo_vulture":
        return {"character": 12, "public_building": 4, "event_card": 4}
    if mode == "urban_plan":
        return {"event_card": 4}
    return {"event_card": 0}


def mode_problems(s: State, mode: str) -> list[str]:
    out = problems(s)  # every card in one zone, 35 Funds where Funds may lie, invariants, decisions
    box = s.s.zones["box"]
    in_box = {k: sum(1 for c in box if kind(s, c) == k) for k in box_kinds_expected(mode)}
    if in_box != box_kinds_expected(mode):
        out.append(f"box holds {in_box}, expected {box_kinds_expected(mode)}")
    if mode == "solo_urbanization":
        if funds(s, "supply") != TOTAL_FUNDS:
            out.append("Funds left the supply in Solo Urbanization Mode")
        for r in cards_of(s, "room"):
            under = s.s.vars.get(f"placed_under@{r}")
            placed = s.s.where[r] == "placed_rooms"
            if placed and (under is None or s.s.where[under] != "under_construction"):
                out.append(f"Room {r} lies under no House under construction")
            if not placed and under is not None:
                out.append(f"Room {r} is not placed but remembers a House")
        if len(s.s.zones["under_construction"]) > 3:
            out.append("more than 3 Houses under construction")
    if mode == "solo_vulture" and len(s.s.zones["vulture_houses"]) > 4:
        out.append("the Vulture Funds built more than 4 Houses")
    if mode == "urban_plan" and s.s.zones["house_deck"]:
        out.append("Urban Plan uses a House deck")
    if not s.game.option_values["outlet"] and s.s.zones["outlet_row"]:
        out.append("an Outlet without the option")
    return out


def play_mode(mode: str, players: int, seed: int, outlet: bool = False) -> State:
    s = loaded(mode, outlet).new_game(players=players, seed=seed)
    rng = random.Random(seed)

    def check(st: State) -> None:
        bad = mode_problems(st, mode)
        assert not bad, bad

    check(s)
    random_playout(s, rng, limit=MAX_DECISIONS, each=check)
    return s


def check_end(s: State, mode: str) -> None:
    assert s.is_over
    n = s.num_players
    houses = [sum(1 for c in s.s.zones[f"play_area#{p}"] if kind(s, c) == "house") for p in range(n)]
    if mode in MULTIPLAYER:
        ended_by_vulture = var(s, "vulture_won")
        assert ended_by_vulture or max(houses) == 4 or not s.s.zones["house_market"]
        assert max(houses) <= 4
        if mode != "vulture_funds":
            assert not ended_by_vulture
    elif mode == "solo_vulture":
        assert log_texts(s).count("Player 1's turn") <= 16
        assert [t for t in log_texts(s) if t.startswith("End of round")] == [f"End of round {r}" for r in (1, 2, 3, 4)]
        assert var(s, "solo_won") + var(s, "vulture_won") <= 1
    else:
        assert s.s.zones["house_deck"] == [] or not s.s.zones["hand#0"]
        assert s.s.zones["under_construction"] == [] and s.s.zones["placed_rooms"] == []
        assert var(s, "rating") in ("Great builder", "Good investor", "Experienced worker",
                                    "You make bad investments", "You should train more")
        assert s.scores()[0] == sum(s.game.compiled.card_attrs[c]["profit"] for c in s.s.zones["play_area#0"]) - sum(
            s.game.compiled.card_attrs[c]["profit"] for c in s.s.zones["house_discard"])


seeds = st.integers(min_value=0, max_value=2**32)


@settings(max_examples=4, deadline=None)
@given(seed=seeds, players=st.integers(2, 5), mode=st.sampled_from(MULTIPLAYER), outlet=st.booleans())
def test_random_multiplayer_games_are_sound_and_end(seed, players, mode, outlet):
    s = play_mode(mode, players, seed, outlet)
    check_end(s, mode)


@settings(max_examples=4, deadline=None)
@given(seed=seeds, mode=st.sampled_from(SOLO))
def test_random_solo_games_are_sound_and_end(seed, mode):
    s = play_mode(mode, 1, seed)
    check_end(s, mode)


@pytest.mark.parametrize("mode, players, outlet", [
    ("vulture_funds", 2, False), ("vulture_funds", 5, True), ("urban_plan", 3, False),
    ("urban_plan", 4, True), ("standard", 2, True), ("solo_vulture", 1, False),
    ("solo_urbanization", 1, False)])
def test_each_mode_plays_to_the_end(mode, players, outlet):
    check_end(play_mode(mode, players, 500 + players, outlet), mode)


def test_the_vulture_funds_variant_sometimes_ends_with_the_card():
    ends = [var(play_mode("vulture_funds", 2, seed), "vulture_won") for seed in range(12)]
    assert any(ends) and not all(ends)


def combinations() -> list[tuple[str, int, bool]]:
    out = [(m, n, o) for m in MULTIPLAYER for o in (False, True) for n in (2, 3, 4, 5)]
    return out + [(m, 1, False) for m in SOLO]


@pytest.mark.slow
@pytest.mark.parametrize("mode, players, outlet", combinations(),
                         ids=[f"{m}-{n}p{'-outlet' if o else ''}" for m, n, o in combinations()])
def test_simulate_100_games(mode, players, outlet):
    """`rulelang simulate games/off_plan --players N --games 100 --option mode=M
    [--option outlet=true]` finishes every game with no error."""
    summary = simulate(loaded(mode, outlet), players=players, games=100, seed=0, game_path=GAME_PATH)
    assert summary.errors == []
    assert summary.completed == 100
    assert summary.decisions["max"] < MAX_DECISIONS


def test_nobody_wins_a_lost_solo_game_and_a_won_one_names_the_player():
    g = interpreter.load(GAME_PATH, {"mode": "solo_urbanization"})
    s = g.new_game(players=1, seed=0)
    s.set_var("solo_won", False)
    assert s.winners() == []
    s.set_var("solo_won", True)
    assert s.winners() == [0]
