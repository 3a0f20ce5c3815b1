"""Welcome To... in rule files (games/welcome_to): scoring tables, placement rules, effects,
city plans, the three ways of drawing, and properties of random games."""

import random
import re

import pytest
from conftest import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

import interpreter
from rulelang.diagnostics import RuleRuntimeError

GAME = str(ROOT / "games" / "welcome_to")
STREETS = [(0, 9), (10, 20), (21, 32)]
POOL_SLOTS = [2, 6, 7, 10, 13, 17, 22, 27, 31]


_games: dict = {}


def load(**options):
    key = tuple(sorted(options.items()))
    if key not in _games:
        _games[key] = interpreter.load(GAME, options={k: str(v).lower() for k, v in options.items()})
    return _games[key]


@pytest.fixture(scope="module")
def game():
    return load()


def new(players=2, seed=1, **options):
    return load(**options).new_game(players=players, seed=seed)


def sheet(top=(), middle=(), bottom=()):
    """33 house slots from three street lists (None or -1 = empty), padded with empties."""
    out = []
    for numbers, (a, b) in zip((top, middle, bottom), STREETS, strict=True):
        row = [-1 if n is None else n for n in numbers]
        out += row + [-1] * (b - a + 1 - len(row))
    return out


def flags(*slots):
    return [i in slots for i in range(33)]


def var(s, name, player=None):
    return s.s.vars[name if player is None else f"{name}#{player}"]


def labels(s, player=0):
    return [a.label for a in s.legal_actions(player)]


def pick(s, label, player=0):
    for a in s.legal_actions(player):
        if a.label == label:
            s.apply(a)
            return
    raise AssertionError(f"no action {label!r} among {labels(s, player)}")


def breakdown(s, p=0):
    return s.score_breakdown(p)


# ---- the components -------------------------------------------------------------------------------

def test_the_81_construction_cards(game):
    s = game.new_game(players=1, seed=0)
    names = [game.card_name(c) for c in range(len(s.s.where))]
    cards = [n for n in names if n[0].isdigit()]
    assert len(cards) == 81
    by_effect = {}
    for n in cards:
        effect = n.split(" ", 1)[1]
        by_effect[effect] = by_effect.get(effect, 0) + 1
    assert by_effect == {"Surveyor": 18, "Real Estate Agent": 18, "Landscaper": 18,
                         "Pool Manufacturer": 9, "Temp Agency": 9, "Bis": 9}
    per_number = [sum(1 for n in cards if int(n.split()[0]) == k) for k in range(1, 16)]
    assert per_number == [3, 3, 4, 5, 6, 7, 8, 9, 8, 7, 6, 5, 4, 3, 3]


def test_setup_draws_one_plan_of_each_number(game):
    for seed in range(5):
        s = game.new_game(players=3, seed=seed)
        plans = [game.card_name(c) for c in s.s.zones["plans"]]
        assert len(plans) == 3
        assert not any(name in plans for name in ("Top street built", "Seven temps hired"))
    s = new(players=3, seed=0, advanced_plans=True)
    assert len(s.s.zones["plans"]) == 3


def test_standard_draw_three_piles(game):
    s = game.new_game(players=2, seed=4)
    z = s.s.zones
    assert len(z["numbers"]) == 3 and len(z["effects"]) == 3
    assert [len(z[f"pile_{k}"]) for k in (1, 2, 3)] == [25, 25, 25]
    shown = list(z["numbers"])
    while s.s.round == 1:  # everybody plays the first turn
        for p in s.decision.players:
            s.apply(s.legal_actions(p)[0])
    # the numbers shown last turn are flipped: their effects are on offer now, pile by pile
    assert s.s.zones["effects"] == shown
    assert [len(s.s.zones[f"pile_{k}"]) for k in (1, 2, 3)] == [24, 24, 24]


def test_piles_are_reshuffled_when_they_run_out(game):
    s = game.new_game(players=1, seed=2)
    for c in list(s.s.zones["pile_1"]):
        s.place(c, "discard")
    s.run_procedure("flip_piles")
    z = s.s.zones
    assert [len(z[f"pile_{k}"]) for k in (1, 2, 3)] == [25, 25, 25]
    assert len(z["numbers"]) == 3 and len(z["effects"]) == 3 and len(z["discard"]) == 0


# ---- scoring: each table ----------------------------------------------------------------------------

def test_parks(game):
    s = game.new_game(players=2, seed=1)
    for parks, points in (([0, 0, 0], 0), ([1, 1, 1], 6), ([3, 2, 5], 10 + 4 + 18), ([2, 4, 4], 4 + 14 + 8)):
        s.set_var("parks", parks, player=0)
        assert breakdown(s)["parks"] == points


def test_pools(game):
    s = game.new_game(players=2, seed=1)
    table = [0, 3, 6, 9, 13, 17, 21, 26, 31, 36]
    for n in range(10):
        s.set_var("pool_built", flags(*POOL_SLOTS[:n]), player=0)
        assert breakdown(s)["pools"] == table[n]


def test_estates_with_upgrades(game):
    s = game.new_game(players=2, seed=1)
    # top street: estates of 1 | 2 | 3 | 4; middle: a run of 7 (too long to score) and an
    # unfinished run; bottom: an estate of 6, then a run with an empty house
    s.set_var("houses", sheet(top=range(1, 11), middle=[1, 2, 3, 4, 5, 6, 7, 8, None, 10, 11],
                              bottom=[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, None]), player=0)
    s.set_var("fence", flags(0, 2, 5, 16, 26), player=0)
    assert breakdown(s)["estates"] == 1 + 2 + 3 + 4 + 6
    s.set_var("estate_level", [1, 0, 2, 0, 0, 4], player=0)
    assert breakdown(s)["estates"] == 3 + 2 + 5 + 4 + 12
    # a fence splits the estate of 2 into two estates of 1, each at the raised value
    s.set_var("fence", flags(0, 1, 2, 5, 16, 26), player=0)
    assert breakdown(s)["estates"] == 3 + 3 + 3 + 5 + 4 + 12


def test_estate_values_are_the_printed_columns(game):
    s = game.new_game(players=1, seed=1)
    columns = [[1, 3], [2, 3, 4], [3, 4, 5, 6], [4, 5, 6, 7, 8], [5, 6, 7, 8, 10], [6, 7, 8, 10, 12]]
    for size, values in enumerate(columns, start=1):
        s.set_var("houses", sheet(top=range(1, size + 1)), player=0)
        s.set_var("fence", flags(size - 1) if size < 10 else flags(), player=0)
        for level, value in enumerate(values):
            s.set_var("estate_level", [level if k == size - 1 else 0 for k in range(6)], player=0)
            assert breakdown(s)["estates"] == value, (size, level)


def test_temp_agency_ranks_with_ties(game):
    s = game.new_game(players=4, seed=1)
    for temps, expected in (([5, 5, 3, 0], [7, 7, 4, 0]), ([6, 4, 2, 1], [7, 4, 1, 0]),
                            ([3, 3, 3, 3], [7, 7, 7, 7]), ([0, 0, 0, 0], [0, 0, 0, 0]),
                            ([2, 9, 2, 1], [4, 7, 4, 1])):
        for p, n in enumerate(temps):
            s.set_var("temps", n, player=p)
        assert [breakdown(s, p)["temps"] for p in range(4)] == expected


@pytest.mark.parametrize("options", [{"solo": True}, {}], ids=["option solo", "one player"])
def test_temp_agency_solo_rule(options):
    # "En solitario, solo se dan 7 puntos si se han marcado al menos seis casillas": one player
    # plays the solo rules whether or not the option says so (a lone player would otherwise
    # rank first, and score 7, with a single temp).
    s = new(players=1, seed=1, **options)
    for temps, points in ((0, 0), (1, 0), (5, 0), (6, 7), (11, 7)):
        s.set_var("temps", temps, player=0)
        assert breakdown(s)["temps"] == points


def test_one_player_plays_the_solo_rules_without_the_option():
    s = new(players=1, seed=3)
    # the Solo card is in the single deck and three fresh cards are drawn, not three piles
    assert len(s.s.zones["solo_deck"]) == 79 and len(s.s.zones["row"]) == 3
    assert not s.s.zones.get("pile_1")
    assert all(label.startswith("number ") for label in labels(s))
    # two players still play with the three piles
    s = new(players=2, seed=3)
    assert len(s.s.zones["pile_1"]) == 25 and not s.s.zones.get("solo_deck")


def test_bis_and_refusal_penalties(game):
    s = game.new_game(players=2, seed=1)
    bis_table = [0, 1, 3, 6, 9, 12, 16, 20, 24, 28]
    for n in range(10):
        s.set_var("bis_house", flags(*range(n)), player=0)
        assert breakdown(s)["bis"] == -bis_table[n]
    for n, points in enumerate([0, 0, 3, 5]):
        s.set_var("refusals", n, player=0)
        assert breakdown(s)["refusals"] == -points


def test_roundabout_penalty():
    s = new(players=2, seed=1, roundabouts=True)
    for slots, points in (((), 0), ((4,), 3), ((4, 15), 8)):
        s.set_var("roundabout_at", flags(*slots), player=0)
        assert breakdown(s)["roundabouts"] == -points


def test_plans_and_total_is_the_sum_of_the_parts(game):
    s = game.new_game(players=2, seed=1)
    s.set_var("plan_points", [8, 0, 7], player=0)
    s.set_var("parks", [1, 0, 0], player=0)
    s.set_var("refusals", 2, player=0)
    b = breakdown(s)
    assert b["plans"] == 15
    assert s.scores()[0] == sum(b.values()) == 15 + 2 - 3


def test_tiebreak_most_estates_then_small_ones(game):
    s = game.new_game(players=2, seed=1)
    # the same score of 1: one estate of 1, against two estates of 1, a third refusal and a plan
    s.set_var("houses", sheet(top=[1]), player=0)
    s.set_var("fence", flags(0), player=0)
    s.set_var("houses", sheet(top=[1, 2]), player=1)
    s.set_var("fence", flags(0, 1), player=1)
    s.set_var("refusals", 3, player=1)
    s.set_var("plan_points", [0, 0, 4], player=1)  # 1 + 1 - 5 + 4 = 1
    assert s.scores() == [1, 1]
    assert s.winners() == [1]


# ---- writing numbers --------------------------------------------------------------------------------

def write_options(s, n, player=0):
    """Where number n can be written: {street label: [house labels]}."""
    s.set_var("cur_written", n, player=player)
    out = {}
    try:
        s.run_procedure("write_house", player, active=player)
    except RuleRuntimeError as err:  # write_house is only called when the number fits somewhere
        assert "nothing to choose from" in str(err)
        return out
    for street in labels(s, player):
        t = s.clone()
        pick(t, street, player)
        out[street] = labels(t, player)
    return out


def test_numbers_ascend_left_to_right(game):
    s = game.new_game(players=1, seed=1)
    s.set_var("houses", sheet(top=[1, None, None, 8, None, None, None, None, None, 15],
                              middle=[None] * 10 + [13], bottom=[0, 17]), player=0)
    where = write_options(s, 5)
    assert where == {"top street": ["house 2", "house 3"],
                     "middle street": ["house 1", "house 2", "house 3", "house 4", "house 5",
                                       "house 6", "house 7", "house 8", "house 9", "house 10"]}
    where = write_options(s, 16)
    assert where == {}  # 16 fits nowhere: after 15, before 13, between 0 and 17


def test_no_duplicates_in_a_street(game):
    s = game.new_game(players=1, seed=1)
    s.set_var("houses", sheet(top=[None, 4, None, 9], middle=[9], bottom=[None, None, 4]), player=0)
    where = write_options(s, 4)
    assert "top street" not in where and "bottom street" not in where
    where = write_options(s, 9)
    assert "top street" not in where and "middle street" not in where


def reference_fits(houses, rounds, i, n):
    """The placement rule, written independently: empty, not a roundabout, and strictly
    between the numbers to its left and right up to the street's ends or a roundabout."""
    a, b = next((a, b) for a, b in STREETS if a <= i <= b)
    if houses[i] >= 0 or rounds[i] or not 0 <= n <= 17:
        return False
    j = i - 1
    while j >= a and not rounds[j]:
        if houses[j] >= n:
            return False
        j -= 1
    j = i + 1
    while j <= b and not rounds[j]:
        if 0 <= houses[j] <= n:
            return False
        j += 1
    return True


def test_placement_matches_a_reference():
    g = load(roundabouts=True)
    names = ["top street", "middle street", "bottom street"]
    checked = 0
    for seed in range(3):
        s = g.new_game(players=2, seed=seed)  # two players: the three piles (one plays solo)
        rng = random.Random(seed)
        while not s.is_over:
            p = s.decision.players[0]
            if p == 0 and s.view(0)["decision"]["prompt"] == "Which combination?" and s.s.round % 2 == 0:
                houses, rounds = var(s, "houses", 0), var(s, "roundabout_at", 0)
                for n in range(0, 18):
                    expected = {}
                    for k, (a, b) in enumerate(STREETS):
                        slots = [f"house {i - a + 1}" for i in range(a, b + 1)
                                 if reference_fits(houses, rounds, i, n)]
                        if slots:
                            expected[names[k]] = slots
                    assert write_options(s.clone(), n) == expected, (n, houses, rounds)
                    checked += 1
            s.apply(rng.choice(s.legal_actions(p)))
    assert checked > 50


def test_writing_a_number_and_empty_houses_filled_later(game):
    s = game.new_game(players=1, seed=1)
    s.set_var("houses", sheet(top=[2, None, None, 12]), player=0)
    s.set_var("cur_written", 7, player=0)
    s.run_procedure("write_house", 0, active=0)
    pick(s, "top street")
    pick(s, "house 3")
    assert var(s, "houses", 0)[:4] == [2, -1, 7, 12]
    assert var(s, "last_slot", 0) == 2


def test_temp_agency_changes_by_up_to_two_within_0_to_17(game):
    s = game.new_game(players=1, seed=1)
    s.set_var("cur_effect", "temp_agency", player=0)
    s.set_var("cur_number", 1, player=0)
    s.run_procedure("choose_number", 0, active=0)
    # "sumar o restar 1 o 2" (welcome-to.es.txt): a temp never leaves the number as it is
    assert labels(s) == ["write 1 without a temp", "hire a temp and write 0",
                         "hire a temp and write 2", "hire a temp and write 3"]
    pick(s, "hire a temp and write 0")
    assert var(s, "cur_written", 0) == 0 and var(s, "temps", 0) == 1
    s.set_var("cur_number", 15, player=0)
    s.run_procedure("choose_number", 0, active=0)
    assert labels(s) == ["write 15 without a temp", "hire a temp and write 13", "hire a temp and write 14",
                         "hire a temp and write 16", "hire a temp and write 17"]
    pick(s, "write 15 without a temp")
    assert var(s, "cur_written", 0) == 15 and var(s, "temps", 0) == 1


def place_offer(s, pairs):
    """Put the three combinations (number, effect card names) on offer in a standard game."""
    for zone in ("numbers", "effects"):
        for c in list(s.s.zones[zone]):
            s.place(c, "discard")
    for number_card, effect_card in pairs:
        s.place(number_card, "numbers")
        s.place(effect_card, "effects")


def test_refusal_when_no_number_fits(game):
    s = game.new_game(players=2, seed=1)
    # only the first house of the top street is empty: only a 0 fits there
    s.set_var("houses", sheet(top=[None] + list(range(1, 10)), middle=range(0, 11), bottom=range(0, 12)), player=0)
    place_offer(s, [("2 Surveyor", "3 Pool Manufacturer"), ("5 Surveyor", "1 Landscaper"), ("8 Surveyor", "4 Bis")])
    before = list(var(s, "houses", 0))
    s.run_procedure("play_turn", 0, active=0)
    assert s.is_over  # nothing to choose: a refusal
    assert var(s, "refusals", 0) == 1 and var(s, "houses", 0) == before and var(s, "last_slot", 0) == -1
    # with the temp agency on the 2, a 0 can be written
    place_offer(s, [("2 Surveyor", "3 Temp Agency"), ("5 Surveyor", "1 Landscaper"), ("8 Surveyor", "4 Bis")])
    s.set_var("refusals", 0, player=0)
    s.run_procedure("play_turn", 0, active=0)
    assert labels(s) == ["2 with Temp Agency"]
    pick(s, "2 with Temp Agency")
    assert labels(s) == ["hire a temp and write 0"]


def play_first(s, player):
    acts = s.legal_actions(player)
    skip = [a for a in acts if a.label in ("Skip", "No")]
    s.apply((skip or acts)[0])


def between_turns(s, player, **values):
    """Set a player's vars so that their next turn starts from them: the player finishes the
    current turn, the vars are set, then the others finish theirs."""
    turn = s.s.round
    while player in s.decision.players:
        play_first(s, player)
    for name, value in values.items():
        s.set_var(name, value, player=player)
    while s.s.round == turn and not s.is_over:
        play_first(s, s.decision.players[0])


def ended_by_rule(s):
    return s.is_over and s.log[-1].text == "the game ends"


def test_third_refusal_ends_the_game(game):
    s = game.new_game(players=2, seed=1)
    # an empty house between 3 and 4: nothing can ever be written there
    stuck = sheet(top=[0, 1, 2, 3, None, 4, 5, 6, 7, 8], middle=range(0, 11), bottom=range(0, 12))
    between_turns(s, 1, houses=stuck, refusals=2)
    while not s.is_over:
        play_first(s, s.decision.players[0])
    assert s.s.round == 2 and var(s, "refusals", 1) == 3 and ended_by_rule(s)
    assert breakdown(s, 1)["refusals"] == -5


def test_full_sheet_ends_the_game(game):
    s = game.new_game(players=2, seed=3)
    full = sheet(top=range(0, 10), middle=range(0, 11), bottom=range(0, 12))
    full[0] = -1  # one house left, only a 0 fits; give everyone a temp agency to reach it
    s.set_var("houses", full, player=0)
    place_offer(s, [("2 Surveyor", "3 Temp Agency"), ("5 Surveyor", "1 Landscaper"), ("8 Surveyor", "4 Bis")])
    s.run_procedure("play_turn", 0, active=0)
    pick(s, "2 with Temp Agency")
    pick(s, "hire a temp and write 0")
    pick(s, "top street")
    pick(s, "house 1")
    assert all(h >= 0 for h in var(s, "houses", 0))
    s.run_procedure("end_of_turn")
    assert ended_by_rule(s)
    s.set_var("houses", sheet(), player=0)
    seen = len(s.log)
    s.run_procedure("end_of_turn")
    assert all(entry.text != "the game ends" for entry in s.log[seen:])


# ---- the effects --------------------------------------------------------------------------------------

def test_surveyor_fences(game):
    s = game.new_game(players=1, seed=1)
    s.set_var("houses", sheet(top=[1, 2, 3, 3, 5]), player=0)
    s.set_var("bis_house", flags(3), player=0)
    s.set_var("used", flags(0, 1), player=0)
    s.set_var("fence", flags(1, 4), player=0)
    s.run_procedure("build_fence", 0, active=0)
    assert labels(s) == ["a fence in the top street", "a fence in the middle street",
                         "a fence in the bottom street", "Skip"]
    pick(s, "a fence in the top street")
    # not inside the used estate (houses 1-2), not where there is one (after houses 2 and 5),
    # not between the bis twins (houses 3-4)
    assert labels(s) == ["between houses 4 and 5", "between houses 6 and 7", "between houses 7 and 8",
                         "between houses 8 and 9", "between houses 9 and 10"]
    pick(s, "between houses 4 and 5")
    assert var(s, "fence", 0) == flags(1, 3, 4)


def test_real_estate_agent(game):
    s = game.new_game(players=1, seed=1)
    s.set_var("estate_level", [1, 0, 0, 0, 0, 4], player=0)
    s.run_procedure("raise_estate_value", 0, active=0)
    assert labels(s) == ["estates of 2: 2 to 3", "estates of 3: 3 to 4", "estates of 4: 4 to 5",
                         "estates of 5: 5 to 6", "Skip"]
    pick(s, "estates of 3: 3 to 4")
    assert var(s, "estate_level", 0) == [1, 0, 1, 0, 0, 4]


def test_landscaper_builds_in_the_street_just_built(game):
    s = game.new_game(players=1, seed=1)
    s.set_var("last_slot", 14, player=0)
    s.run_procedure("build_park", 0, active=0)
    assert labels(s) == ["Yes: Landscaper: build a park in the middle street?", "No"]
    pick(s, "Yes: Landscaper: build a park in the middle street?")
    assert var(s, "parks", 0) == [0, 1, 0]
    s.set_var("parks", [0, 4, 0], player=0)
    s.run_procedure("build_park", 0, active=0)
    assert s.is_over  # the middle street's parks are all built


def test_pool_only_on_a_printed_pool(game):
    s = game.new_game(players=1, seed=1)
    s.set_var("last_slot", 5, player=0)
    s.run_procedure("build_pool", 0, active=0)
    assert s.is_over and var(s, "pool_built", 0) == flags()
    s.set_var("last_slot", 6, player=0)
    s.run_procedure("build_pool", 0, active=0)
    pick(s, "Yes: Pool manufacturer: build the pool of the top street, house 7?")
    assert var(s, "pool_built", 0) == flags(6)
    assert breakdown(s)["pools"] == 3


def test_bis_copies_an_adjacent_number(game):
    s = game.new_game(players=1, seed=1)
    s.set_var("houses", sheet(top=[3, None, 7, None, None, 9]), player=0)
    s.set_var("fence", flags(3), player=0)
    s.run_procedure("write_bis", 0, active=0)
    assert labels(s) == ["a bis in the top street", "Skip"]
    pick(s, "a bis in the top street")
    # house 2 (between 3 and 7), house 4 (right of 7, but house 4-5 fenced: from 7 only),
    # house 5 (left of 9); house 7 (right of 9)
    assert labels(s) == ["house 2", "house 4", "house 5", "house 7"]
    pick(s, "house 2")
    assert labels(s) == ["copy 3", "copy 7"]
    pick(s, "copy 7")
    assert var(s, "houses", 0)[:3] == [3, 7, 7] and var(s, "bis_house", 0) == flags(1)
    assert breakdown(s)["bis"] == -1


def test_bis_is_limited_to_nine(game):
    s = game.new_game(players=1, seed=1)
    s.set_var("houses", sheet(top=[1, 1, 1, 1, 1, 1, 1, 1, 1, 1], middle=[5]), player=0)
    s.set_var("bis_house", flags(*range(1, 10)), player=0)
    s.run_procedure("write_bis", 0, active=0)
    assert s.is_over


def test_roundabout_restarts_the_numbering():
    s = new(players=1, seed=1, roundabouts=True)
    s.set_var("houses", sheet(top=[None, None, 10]), player=0)
    s.run_procedure("maybe_roundabout", 0, active=0)
    pick(s, "a roundabout in the top street")
    pick(s, "house 4")
    assert var(s, "roundabout_at", 0) == flags(3) and var(s, "fence", 0) == flags(2, 3)
    where = write_options(s, 2)
    assert where["top street"] == ["house 1", "house 2", "house 5", "house 6", "house 7", "house 8",
                                   "house 9", "house 10"]
    assert breakdown(s)["roundabouts"] == -3


# "Antes o después de construir una casa y aplicar su efecto, puedes crear un rondabout"
# (welcome-to.es.txt): before or after building a house; never with a permit refusal.

def roundabout_sheet(s, player=0):
    # free: top house 1 (only 1 and 2 fit there) and middle house 6 (only 8 fits there)
    s.set_var("houses", sheet(top=[None] + list(range(3, 12)), middle=[3, 4, 5, 6, 7, None, 9, 10, 11, 12, 13],
                              bottom=range(0, 12)), player=player)


def test_no_roundabout_with_a_permit_refusal():
    s = new(players=2, seed=1, roundabouts=True)
    roundabout_sheet(s)
    place_offer(s, [("5 Surveyor", "3 Pool Manufacturer"), ("6 Surveyor", "1 Landscaper"), ("10 Surveyor", "4 Bis")])
    s.run_procedure("play_turn", 0, active=0)
    # nothing fits: a refusal, and no roundabout is offered before it or after it
    assert s.is_over and var(s, "refusals", 0) == 1
    assert var(s, "roundabout_at", 0) == flags()


def test_a_roundabout_before_the_house_only_where_a_number_still_fits():
    s = new(players=2, seed=1, roundabouts=True)
    roundabout_sheet(s)
    place_offer(s, [("1 Surveyor", "3 Pool Manufacturer"), ("2 Surveyor", "1 Landscaper"), ("2 Landscaper", "4 Bis")])
    s.run_procedure("play_turn", 0, active=0)
    assert s.view(0)["decision"]["prompt"] == "Build a roundabout? (before you write your number)"
    # a roundabout in top house 1 would leave the 1 and the 2 nowhere to go
    assert labels(s) == ["a roundabout in the middle street", "Skip"]
    pick(s, "a roundabout in the middle street")
    assert labels(s) == ["house 6"]
    pick(s, "house 6")
    assert var(s, "roundabout_at", 0) == flags(15)
    pick(s, "1 with Pool Manufacturer")
    pick(s, "top street")
    pick(s, "house 1")
    assert var(s, "houses", 0)[0] == 1
    # no pool there, and one roundabout a turn: none is offered after the house
    assert s.is_over


def test_a_roundabout_after_the_house():
    s = new(players=2, seed=1, roundabouts=True)
    s.set_var("houses", sheet(top=[None, None, 10]), player=0)
    place_offer(s, [("1 Surveyor", "3 Pool Manufacturer"), ("5 Surveyor", "1 Landscaper"), ("8 Surveyor", "4 Bis")])
    s.run_procedure("play_turn", 0, active=0)
    pick(s, "Skip")  # no roundabout before
    pick(s, "1 with Pool Manufacturer")
    pick(s, "top street")
    pick(s, "house 1")
    assert s.view(0)["decision"]["prompt"] == "Build a roundabout? (after your house)"
    pick(s, "a roundabout in the top street")
    pick(s, "house 2")
    assert var(s, "roundabout_at", 0) == flags(1) and var(s, "fence", 0) == flags(0, 1)
    assert s.is_over


# ---- city plans ---------------------------------------------------------------------------------------

def set_plans(s, names):
    for c in list(s.s.zones["plans"]):
        s.place(c, "box")
    for name in names:
        s.place(name, "plans")


SIX_ONES = dict(houses=sheet(bottom=[1, 2, 3, 4, 5, 6]), fence=flags(21, 22, 23, 24, 25, 26))


def play_turn_saying(s, answers):
    """Play one whole turn: each player takes the first action, except the labels in `answers`
    (a dict player -> set of labels to pick whenever offered)."""
    turn = s.s.round
    while not s.is_over and s.s.round == turn:
        for p in s.decision.players:
            acts = s.legal_actions(p)
            wanted = [a for a in acts if a.label in answers.get(p, ())]
            skip = [a for a in acts if a.label in ("Skip", "No")]
            s.apply((wanted or skip or acts)[0])


def test_plans_first_achievers_share_the_first_value(game):
    s = game.new_game(players=3, seed=5)
    set_plans(s, ["Six estates of 1", "Estates of 5, 2 and 2", "Estates of 2 and 5"])
    for p in (0, 1):
        for name, value in SIX_ONES.items():
            s.set_var(name, value, player=p)
    yes = "Yes: Achieve city plan n°1 (Six estates of 1) for 8 points?"
    estates = [f"the estate of 1 from the bottom street, house {h}" for h in range(1, 7)]
    play_turn_saying(s, {0: {yes, *estates}, 1: {yes, *estates}})
    assert var(s, "plan_points", 0) == [8, 0, 0] and var(s, "plan_points", 1) == [8, 0, 0]
    assert var(s, "achieved", 0) == [True, False, False]
    assert var(s, "used", 0) == flags(21, 22, 23, 24, 25, 26)
    assert var(s, "plan_taken") == [True, False, False]
    # a later achiever scores the Approved value
    for name, value in SIX_ONES.items():
        s.set_var(name, value, player=2)
    later = "Yes: Achieve city plan n°1 (Six estates of 1) for 4 points?"
    play_turn_saying(s, {2: {later, *estates}})
    assert var(s, "plan_points", 2) == [4, 0, 0]
    assert breakdown(s, 2)["plans"] == 4


def test_estates_used_by_a_plan_serve_once_and_cannot_be_split(game):
    s = game.new_game(players=1, seed=5)
    set_plans(s, ["Two estates of 4", "Estates of 4 and 5", "Estates of 3 and 4"])
    # three estates of 4 in the bottom street
    s.set_var("houses", sheet(bottom=range(0, 12)), player=0)
    s.set_var("fence", flags(24, 28), player=0)
    s.run_procedure("claim_plans", 0, active=0)
    pick(s, "Yes: Achieve city plan n°1 (Two estates of 4) for 6 points?")
    pick(s, "the estate of 4 from the bottom street, house 1")
    assert labels(s) == ["the estate of 4 from the bottom street, house 5",
                         "the estate of 4 from the bottom street, house 9"]
    pick(s, "the estate of 4 from the bottom street, house 9")
    # plan n°3 needs an estate of 3 too; plan n°2 an estate of 5: neither is met with one free
    # estate of 4 left, so nothing more is offered
    assert s.is_over
    assert var(s, "used", 0) == flags(21, 22, 23, 24, 29, 30, 31, 32)
    s.run_procedure("build_fence", 0, active=0)
    pick(s, "a fence in the bottom street")
    assert labels(s) == ["between houses 5 and 6", "between houses 6 and 7", "between houses 7 and 8"]


def test_advanced_plans():
    s = new(players=1, seed=5, advanced_plans=True, roundabouts=True)
    set_plans(s, ["Top street built", "All parks of two streets", "Estates of 3 and 4"])
    s.set_var("houses", sheet(top=[0, 1, 2, 3, None, 5, 6, 7, 8, 9]), player=0)
    s.set_var("roundabout_at", flags(4), player=0)
    s.set_var("fence", flags(3, 4), player=0)
    s.set_var("parks", [3, 0, 5], player=0)
    s.run_procedure("claim_plans", 0, active=0)
    pick(s, "Yes: Achieve city plan n°1 (Top street built) for 6 points?")
    pick(s, "Yes: Achieve city plan n°2 (All parks of two streets) for 7 points?")
    assert s.is_over and var(s, "achieved", 0) == [True, True, False]
    assert breakdown(s)["plans"] == 13


def test_all_three_plans_end_the_game(game):
    s = game.new_game(players=2, seed=5)
    s.set_var("achieved", [True, True, False], player=1)
    set_plans(s, ["Six estates of 1", "Estates of 5, 2 and 2", "Estates of 2 and 5"])
    s.set_var("houses", sheet(top=[1, 2, 3, 4, 5, 6, 7]), player=1)
    s.set_var("fence", flags(1, 6), player=1)
    play_turn_saying(s, {1: {"Yes: Achieve city plan n°3 (Estates of 2 and 5) for 7 points?",
                             "the estate of 2 from the top street, house 1",
                             "the estate of 5 from the top street, house 3"}})
    assert s.is_over and var(s, "achieved", 1) == [True, True, True]


# ---- solo and hold-and-pass ----------------------------------------------------------------------------

def test_solo_rules_need_one_player():
    with pytest.raises(Exception, match="solo rules are for one player"):
        new(players=2, seed=1, solo=True)


def test_solo_card_lies_in_the_lower_half_and_takes_the_plans():
    for seed in range(8):
        s = new(players=1, seed=seed, solo=True)
        deck = s.s.zones["solo_deck"]
        solo = s.find_cards("Solo card")[0]
        assert len(deck) == 79 and len(s.s.zones["row"]) == 3
        assert deck.index(solo) >= 38
    s.run_procedure("solo_card_found")
    assert var(s, "plan_taken") == [True, True, True] and var(s, "solo_card_drawn")


def test_solo_takes_the_number_of_one_card_and_the_effect_of_another():
    s = new(players=1, seed=3, solo=True)
    row = s.s.zones["row"]
    numbers = labels(s)
    assert all(label.startswith("number ") for label in numbers) and len(numbers) == 3
    s.apply(s.legal_actions(0)[0])
    effects = [a.value for a in s.legal_actions(0)]
    assert row[0] not in effects and set(effects) <= set(row[1:])


def test_solo_game_ends_when_the_deck_runs_out():
    g = load(solo=True)
    for seed in range(3):
        s = g.new_game(players=1, seed=seed)
        rng = random.Random(seed)
        while not s.is_over:
            # keep the game going: never refuse if avoidable, never claim
            s.apply(rng.choice(s.legal_actions(0)))
        assert s.s.round <= 28


def test_hold_three_cards_and_pass_the_third_to_the_right():
    s = new(players=3, seed=2, expert=True)
    held = {p: list(s.s.zones[f"held#{p}"]) for p in range(3)}
    assert all(len(h) == 3 for h in held.values())
    passed = {}
    while s.s.round == 1:
        for p in s.decision.players:
            s.apply(s.legal_actions(p)[0])
            if s.s.vars[f"pass_card#{p}"] is not None:
                passed[p] = s.s.vars[f"pass_card#{p}"]
    assert sorted(passed) == [0, 1, 2]
    assert all(len(s.s.zones[f"held#{p}"]) == 3 for p in range(3))
    for p, card in passed.items():
        assert card in held[p]
        # the player on your right is the one before you in seat order
        assert card in s.s.zones[f"held#{(p - 1) % 3}"]
    # the two cards used went to the discard pile
    assert len(s.s.zones["discard"]) == 6


# ---- properties of random games --------------------------------------------------------------------------

def check_step(before, after, players):
    """What must hold between two consecutive states of a game."""
    for p in range(players):
        h0, h1 = before[f"houses#{p}"], after[f"houses#{p}"]
        f0, f1 = before[f"fence#{p}"], after[f"fence#{p}"]
        # once written, a number stays; once drawn, a fence stays
        assert all(a == b for a, b in zip(h0, h1, strict=True) if a >= 0)
        assert all(b for a, b in zip(f0, f1, strict=True) if a)
        check_sheet(after, p)


def check_sheet(vars_, p):
    houses, bis = vars_[f"houses#{p}"], vars_[f"bis_house#{p}"]
    rounds, fences = vars_[f"roundabout_at#{p}"], vars_[f"fence#{p}"]
    for a, b in STREETS:
        part = []
        for i in range(a, b + 1):
            if rounds[i]:
                assert houses[i] == -1
                part = []
                continue
            if houses[i] < 0:
                continue
            if part:
                j, last = part[-1]
                # every street ascends; equal neighbours only through a bis, with no fence between
                assert houses[i] > last or (houses[i] == last and (bis[i] or bis[j]) and j == i - 1
                                            and not fences[j]), (p, houses)
            part.append((i, houses[i]))
        for i in range(a, b + 1):
            if bis[i]:
                neighbours = [houses[j] for j in (i - 1, i + 1) if a <= j <= b
                              and not fences[min(i, j)]]
                assert houses[i] in neighbours
    assert all(0 <= n <= 17 for n in houses if n >= 0)


def sensible(s, p, rng):
    """A less wasteful random player, so that games last and plans get achieved: numbers are
    written roughly where their size puts them, and plans are claimed."""
    acts = s.legal_actions(p)
    prompt = s.view(p)["decision"]["prompt"]
    m = re.match(r"Write (\d+) in which house of the (\w+) street", prompt)
    if m:
        target = int(m.group(1)) / 17 * {"top": 9, "middle": 10, "bottom": 11}[m.group(2)]
        return min(acts, key=lambda a: (abs(int(a.label.split()[1]) - 1 - target), rng.random()))
    claim = [a for a in acts if a.label.startswith("Yes: Achieve")]
    return claim[0] if claim else rng.choice(acts)


def play_random(s, rng, check=True, limit=3000, policy="random"):
    steps = 0
    while not s.is_over:
        for p in s.decision.players:
            before = {k: list(v) if isinstance(v, list) else v for k, v in s.s.vars.items()}
            s.apply(sensible(s, p, rng) if policy == "sensible" else rng.choice(s.legal_actions(p)))
            steps += 1
            assert steps < limit, "the game does not end"
            if check:
                check_step(before, s.s.vars, s.num_players)
    return steps


def check_end(s):
    assert s.check_invariants() == []
    for p in range(s.num_players):
        assert s.scores()[p] == sum(s.score_breakdown(p).values())
    v = s.s.vars
    finished = [v[f"refusals#{p}"] >= 3 or all(v[f"achieved#{p}"])
                or all(h >= 0 or r for h, r in zip(v[f"houses#{p}"], v[f"roundabout_at#{p}"], strict=True))
                for p in range(s.num_players)]
    solo_deck_out = len(s.s.zones.get("row", [])) < 3 and s.num_players == 1
    assert any(finished) or solo_deck_out


OPTION_SETS = [{}, {"roundabouts": True, "advanced_plans": True}, {"expert": True}]


POLICIES = st.sampled_from(["random", "sensible"])


@given(seed=st.integers(0, 2**32), players=st.integers(1, 3), options=st.sampled_from(OPTION_SETS),
       policy=POLICIES)
def test_random_games_keep_the_rules(seed, players, options, policy):
    s = new(players=players, seed=seed, **options)
    play_random(s, random.Random(seed), policy=policy)
    check_end(s)


@given(seed=st.integers(0, 2**32), policy=POLICIES)
def test_random_solo_games_keep_the_rules(seed, policy):
    s = new(players=1, seed=seed, solo=True)
    play_random(s, random.Random(seed), policy=policy)
    check_end(s)


def play_in_order(s, seed, order):
    """Each player's choices come from their own generator; `order` says who answers first."""
    rngs = [random.Random(seed * 100 + p) for p in range(s.num_players)]
    pick_order = random.Random(order)
    while not s.is_over:
        waiting = list(s.decision.players)
        if order == "seats":
            p = waiting[0]
        elif order == "reverse":
            p = waiting[-1]
        else:
            p = pick_order.choice(waiting)
        s.apply(rngs[p].choice(s.legal_actions(p)))
    return s.to_json()


@settings(max_examples=6)
@given(seed=st.integers(0, 2**32), options=st.sampled_from(OPTION_SETS))
def test_the_order_of_simultaneous_answers_leaves_no_trace(seed, options):
    g = load(**options)
    results = {play_in_order(g.new_game(players=3, seed=seed), seed, order)
               for order in ("seats", "reverse", 1)}
    assert len(results) == 1


def test_same_seed_same_game(game):
    a = game.new_game(players=4, seed=11)
    b = game.new_game(players=4, seed=11)
    play_random(a, random.Random(3), check=False)
    play_random(b, random.Random(3), check=False)
    assert a.to_json() == b.to_json()


# ---- heavier runs ----------------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("players,options,games", [
    (4, {}, 200), (1, {}, 200), (1, {"solo": True}, 200),
    (4, {"roundabouts": True, "advanced_plans": True}, 50), (4, {"expert": True}, 50),
    (12, {}, 10), (12, {"expert": True}, 10),
])
def test_many_random_games(players, options, games):
    g = load(**options)
    for seed in range(games):
        s = g.new_game(players=players, seed=seed)
        play_random(s, random.Random(seed), check=seed < 10, policy="sensible" if seed % 2 else "random")
        check_end(s)


@pytest.mark.slow
@given(seed=st.integers(0, 2**32), players=st.integers(2, 6), options=st.sampled_from(OPTION_SETS))
def test_order_independence_more_players(seed, players, options):
    g = load(**options)
    results = {play_in_order(g.new_game(players=players, seed=seed), seed, order)
               for order in ("seats", "reverse", 7)}
    assert len(results) == 1
