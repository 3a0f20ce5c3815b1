"""What each player knows: visibility of vars and tokens, private looks, log audiences, hidden
choices, explicit chance, information states and resampling (issue 12)."""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction
from pathlib import Path

import attrs
import pytest

import interpreter
from interpreter.agents import MCTSAgent, RandomAgent
from interpreter.engine.api import SaveError
from interpreter.engine.chance import CHANCE
from rulelang.diagnostics import RuleRuntimeError

ROOT = Path(__file__).resolve().parent.parent
KUHN = ROOT / "examples" / "games" / "kuhn_poker"
SPIES = ROOT / "examples" / "information"


@pytest.fixture(scope="module")
def kuhn():
    return interpreter.load(str(KUHN))


@pytest.fixture(scope="module")
def spies():
    return interpreter.load(str(SPIES))


def _text(view: dict) -> str:
    return json.dumps(view, sort_keys=True)


# ---- visibility of vars and tokens ---------------------------------------------------------


def test_owner_var_and_owner_tokens_are_seen_by_their_player_only(spies):
    s = spies.new_game(players=3, seed=1)
    s.set_var("looks", 7, player=1)
    mine, theirs = s.view(1), s.view(0)
    assert mine["vars"]["looks"] == {"Player 2": 7}
    assert "Player 2" not in theirs["vars"]["looks"]
    assert mine["tokens"]["Player 2"] == {"chip": 5}
    assert "Player 2" not in theirs["tokens"]
    assert "the supply" not in theirs["tokens"]  # the supply would give the amounts away
    s.set_tokens(1, "chip", 9)
    assert s.view(0) == theirs  # what Player 1 cannot see changed; their view did not


def test_vulture_funds_depth_is_hidden_from_every_player():
    game = interpreter.load(str(ROOT / "games" / "off_plan"), options={"mode": "vulture_funds"})
    s = game.new_game(players=4, seed=5)
    assert s.s.vars["vulture_below"] > 0
    for p in range(4):
        view = s.view(p)
        assert "vulture_below" not in view["vars"]
        assert "vulture_below" not in _text(view)
        changed = s.clone()
        changed.set_var("vulture_below", s.s.vars["vulture_below"] + 3)
        assert changed.view(p) == view
        assert changed.information_state(p) == s.information_state(p)


# ---- private looks, log audiences, hidden choices -----------------------------------------------


def _spy_state(spies, seed=2):
    s = spies.new_game(players=3, seed=seed)
    s.run_procedure("spy", 0, active=0)
    s.apply(next(a for a in s.legal_actions(0) if a.label == "Player 3"))
    return s


def test_a_look_shows_the_hand_to_the_spy_only(spies):
    s = _spy_state(spies)
    hand = s.s.zones["hand#2"]
    spy_view, other_view = s.view(0)["zones"]["hand#2"], s.view(1)["zones"]["hand#2"]
    assert spy_view["cards"] is None
    assert spy_view["known"] == [[i, spies.card_name(c)] for i, c in enumerate(hand)]
    assert "known" not in other_view and other_view["cards"] is None


def test_log_lines_reach_their_audience_only(spies):
    s = _spy_state(spies)
    hand_names = ", ".join(spies.card_name(c) for c in s.s.zones["hand#2"])
    private = f"Player 3 holds {hand_names}"
    assert private in [e.text for e in s.log_for(0)]
    for p in (1, 2):
        assert private not in [e.text for e in s.log_for(p)]
        assert private not in _text(s.view(p))
        assert "Player 1 looks at Player 3's hand" in [e.text for e in s.log_for(p)]
    full = [e for e in s.log if e.text == private]
    assert full and full[0].audience == (0,)  # the full log keeps everything, marked


def test_a_save_keeps_who_reads_each_line_and_who_knows_each_card(spies):
    s = _spy_state(spies)
    back = spies.state_from_json(s.to_json())
    assert back == s
    assert [e.text for e in back.log_for(1)] == [e.text for e in s.log_for(1)]
    assert back.view(0) == s.view(0)


def test_others_see_that_a_hidden_card_was_chosen_not_which(spies):
    s = spies.new_game(players=2, seed=4)
    s.run_procedure("seer", 0, active=0)
    chosen = s.legal_actions(0)[0]
    s.apply(chosen)
    mine = [e.text for e in s.log_for(0)]
    theirs = [e.text for e in s.log_for(1)]
    assert f"Player 1: {chosen.label}" in mine
    assert f"Player 1: {chosen.label}" not in theirs
    assert "Player 1 makes a choice" in theirs


def test_a_public_choice_is_read_by_everyone(spies):
    s = spies.new_game(players=2, seed=4)
    s.run_procedure("spy", 0, active=0)
    s.apply(s.legal_actions(0)[0])
    assert "Player 1: Player 2" in [e.text for e in s.log_for(1)]


# ---- explicit chance ------------------------------------------------------------------------


def test_explicit_chance_deals_kuhn_one_card_at_a_time(kuhn):
    s = kuhn.new_game(players=2, seed=0, chance="explicit")
    assert s.is_chance and s.decision.players == (CHANCE,)
    first = s.chance_outcomes()
    assert [(a.label, p) for a, p in first] == [("Jack", Fraction(1, 3)), ("Queen", Fraction(1, 3)),
                                                 ("King", Fraction(1, 3))]
    s.apply(first[2][0])  # Player 1 gets the King
    second = s.chance_outcomes()
    assert [(a.label, p) for a, p in second] == [("Jack", Fraction(1, 2)), ("Queen", Fraction(1, 2))]
    assert sum(p for _, p in second) == 1
    s.apply(second[0][0].value)  # a bare outcome is accepted too
    assert not s.is_chance
    assert s.decision.players == (0,)
    assert s.view(0)["zones"]["hand#0"]["cards"] == ["King"]
    assert s.view(1)["zones"]["hand#1"]["cards"] == ["Jack"]


def test_a_chance_outcome_that_is_not_offered_is_refused(kuhn):
    s = kuhn.new_game(players=2, seed=0, chance="explicit")
    s.apply(s.chance_outcomes()[0][0])
    before = s.clone()
    with pytest.raises(interpreter.engine.api.IllegalAction):
        s.apply(s.chance_outcomes()[0][0].value - 1 if s.chance_outcomes()[0][0].value else 99)
    assert s == before


def test_seeded_kuhn_deals_all_six_deals_equally_often(kuhn):
    deals = Counter()
    for seed in range(6000):
        s = kuhn.new_game(players=2, seed=seed)
        deals[(s.s.zones["hand#0"][0], s.s.zones["hand#1"][0])] += 1
    assert len(deals) == 6
    expected = 1000
    chi2 = sum((n - expected) ** 2 / expected for n in deals.values())
    assert chi2 < 20.5  # 5 degrees of freedom: p = 0.001


def test_explicit_mode_plays_a_whole_game_with_the_same_rules(kuhn):
    s = kuhn.new_game(players=2, seed=0, chance="explicit")
    agent = RandomAgent(seed=3)
    while not s.is_over:
        if s.is_chance:
            s.apply(s.chance_outcomes()[-1][0])
        else:
            s.apply(agent.choose(s, s.decision.players[0]))
    assert sorted(s.scores()) in ([-1, 1], [-2, 2])


def test_explicit_chance_state_saves_and_restores(kuhn):
    s = kuhn.new_game(players=2, seed=0, chance="explicit")
    s.apply(s.chance_outcomes()[1][0])
    back = kuhn.state_from_json(s.to_json())
    assert back == s and back.is_chance and back.chance_outcomes() == s.chance_outcomes()


# ---- information states and resampling ---------------------------------------------------------------


def _kuhn_after(kuhn, p0_card, p1_card, moves=()):
    s = kuhn.new_game(players=2, seed=0, chance="explicit")
    for name in (p0_card, p1_card):
        s.apply(next(a for a, _ in s.chance_outcomes() if a.label == name))
    for label in moves:
        s.apply(next(a for a in s.legal_actions() if a.label == label))
    return s


def test_information_state_tells_apart_exactly_what_the_player_knows(kuhn):
    a = _kuhn_after(kuhn, "King", "Jack", ["Bet"])
    b = _kuhn_after(kuhn, "King", "Queen", ["Bet"])
    c = _kuhn_after(kuhn, "Queen", "Jack", ["Bet"])
    d = _kuhn_after(kuhn, "King", "Jack", ["Check"])
    assert a.information_state(0) == b.information_state(0)  # Player 1 cannot see Player 2's card
    assert a.information_state(1) != b.information_state(1)
    assert a.information_state(1) == c.information_state(1)
    assert a.information_state(0) != d.information_state(0)  # their own action differs
    assert a.information_state(1) != d.information_state(1)  # Player 2 saw it
    hash(a.information_state(0))


def test_resample_keeps_the_players_information_state(kuhn):
    s = _kuhn_after(kuhn, "Queen", "King", ["Check"])
    seen = set()
    for seed in range(100):
        r = s.resample(0, seed)
        assert r.information_state(0) == s.information_state(0)
        assert r.view(0) == s.view(0)
        assert [a.label for a in r.legal_actions(1)] == [a.label for a in s.legal_actions(1)]
        seen.add(r.s.zones["hand#1"][0])
    assert len(seen) == 2  # Player 2 holds the Jack or the King in the resampled worlds
    assert s.s.zones["hand#0"] == [1]


def test_resample_plays_on(kuhn):
    s = _kuhn_after(kuhn, "Queen", "King", ["Check"])
    r = s.resample(0, 7)
    while not r.is_over:
        r.apply(r.legal_actions()[0])
    assert sum(r.scores()) == 0


def test_looking_at_the_top_three_picks_three_cards_not_the_deck(spies):
    s = spies.new_game(players=2, seed=1, chance="explicit")
    while s.is_chance:  # the deal: one pick per card dealt
        s.apply(s.chance_outcomes()[0][0])
    assert len(s.s.zones["deck"]) == 4 and "deck" in s.s.unordered
    s.run_procedure("seer", 0, active=0)
    sizes = []
    while s.is_chance:
        outcomes = s.chance_outcomes()
        sizes.append([p for _, p in outcomes])
        s.apply(outcomes[-1][0])
    assert sizes == [[Fraction(1, 4)] * 4, [Fraction(1, 3)] * 3, [Fraction(1, 2)] * 2]
    assert s.decision.players == (0,) and len(s.legal_actions(0)) == 3


@pytest.mark.parametrize("path,options,players", [
    ("games/off_plan", {"mode": "vulture_funds"}, 3),
    ("games/welcome_to", {"expert": True}, 2),
    ("games/plunderbund", {}, 2),
])
def test_explicit_chance_plays_every_game_to_its_end(path, options, players):
    game = interpreter.load(str(ROOT / path), options=options)
    s = game.new_game(players=players, seed=1, chance="explicit")
    agent = RandomAgent(seed=2)
    nodes = 0
    while not s.is_over:
        if s.is_chance:
            outcomes = s.chance_outcomes()
            assert sum(p for _, p in outcomes) == 1 and all(p > 0 for _, p in outcomes)
            s.apply(outcomes[nodes % len(outcomes)][0])
            nodes += 1
        else:
            s.apply(agent.choose(s, s.decision.players[0]))
    assert nodes > 20
    assert len(s.scores()) == players


def test_resampling_deals_the_cards_of_a_pending_choice_again_and_leaves_the_state_alone(spies):
    """A state and its copies share the decision they wait for (it never changes once parked):
    a resampled world that renames the cards offered gets its own decision; the real state's
    offer, and its clones', stay as they were."""
    from interpreter.tools.simulate import next_player

    renamed = 0
    for seed in range(40):
        s = spies.new_game(players=2, seed=seed)
        rng_pick = seed
        while not s.is_over and renamed < 3:
            p = s.s.pending
            clone = s.clone()
            assert clone.s.pending is p  # shared, not copied
            if p is not None:
                before = (list(p.values), list(p.labels))
                other = 1 - p.player
                for r_seed in range(8):
                    r = s.resample(other, r_seed)
                    if r.s.pending is not p and r.s.pending.values != p.values:
                        renamed += 1
                assert (p.values, p.labels) == before and clone.s.pending.values == before[0]
            actions = s.legal_actions(next_player(s))
            rng_pick = (rng_pick * 1103515245 + 12345) % 2**31
            s.apply(actions[rng_pick % len(actions)])
        if renamed >= 3:
            break
    assert renamed >= 3  # the resampled worlds did rename offered cards


# ---- determinisations while others choose at the same time (issue 15) ---------------------

SECRET_PLANS = ROOT / "tests" / "fixtures" / "secret_plans"


def _other_worlds(game):
    """Two games seat 0 cannot tell apart while everyone plans at once: seat 1's hidden pile
    holds other gems in another order (changed before the step began, so seat 1's part ran
    on it), and seat 1 has kept another gem so far."""
    first = game.new_game(players=2, seed=3)
    second = first.clone()
    pile, stock = second.s.zones["pile#1"], second.s.zones["stock"]
    top, other = pile[0], stock[0]
    second.place(other, "pile#1", 0)  # a gem of the stock on top of seat 1's pile...
    second.place(top, "stock", 0)  # ...and theirs in its place
    second.place(second.s.zones["pile#1"][-1], "pile#1", 1)  # and their pile in another order
    assert first.information_state(0) == second.information_state(0)
    assert first.s.zones["pile#1"] != second.s.zones["pile#1"]
    for state in (first, second):
        state.apply(state.legal_actions(0)[0])  # "Go": the planning begins, seat 1 draws in secret
    assert first.s.zones["hand#1"] != second.s.zones["hand#1"]
    return first, second


def _same_determinisations(first, second, seat: int, seeds=range(6)) -> None:
    for seed in seeds:
        a, b = first.resample(seat, seed), second.resample(seat, seed)
        assert a.s == b.s, f"seed {seed}: a determinisation depends on what seat {seat} cannot know"
        assert a.information_state(seat) == first.information_state(seat)
        assert [x.label for x in a.legal_actions(seat)] == [x.label for x in first.legal_actions(seat)]


def test_a_determinisation_does_not_see_what_others_drew_or_chose_in_secret():
    game = interpreter.load(str(SECRET_PLANS))
    first, second = _other_worlds(game)
    _same_determinisations(first, second, 0)  # seat 1 still choosing in both
    first.apply(first.legal_actions(1)[0])
    second.apply(second.legal_actions(1)[1])  # another choice: seat 1 is done in both
    assert first.decision.players == second.decision.players == (0,)
    assert first.information_state(0) == second.information_state(0)
    assert first.s.zones["kept#1"] != second.s.zones["kept#1"]
    before = first.to_json()
    _same_determinisations(first, second, 0)
    assert first.to_json() == before  # resampling leaves the state alone


def test_a_determinisation_deals_the_others_secrets_again_and_runs_their_parts():
    game = interpreter.load(str(SECRET_PLANS))
    first, _ = _other_worlds(game)
    first.apply(first.legal_actions(1)[0])
    piles, kept = set(), set()
    for seed in range(20):
        r = first.resample(0, seed)
        assert r.decision.players == (0,)  # seat 1 is done again: seat 0 knows that much
        assert len(r.s.zones["pile#1"]) == 2 and len(r.s.zones["kept#1"]) == 1 and len(r.s.zones["hand#1"]) == 1
        piles.add(tuple(r.s.zones["pile#1"]))
        kept.add(tuple(r.s.zones["kept#1"]))
        assert r.s.zones["hand#0"] == first.s.zones["hand#0"]  # seat 0's own part is kept
        r.apply(r.legal_actions(0)[0])  # and the game plays on from it
    assert len(piles) > 5 and len(kept) > 3


def test_mcts_plans_the_same_whatever_the_others_hid_or_chose():
    game = interpreter.load(str(SECRET_PLANS))
    first, second = _other_worlds(game)
    first.apply(first.legal_actions(1)[0])
    second.apply(second.legal_actions(1)[1])
    for seed in range(4):
        a = MCTSAgent(seed, iterations=40).choose(first, 0)
        b = MCTSAgent(seed, iterations=40).choose(second, 0)
        assert a.value == b.value


def test_a_save_keeps_how_a_simultaneous_part_began_and_refuses_a_forged_one():
    game = interpreter.load(str(SECRET_PLANS))
    first, _ = _other_worlds(game)
    first.apply(first.legal_actions(1)[0])
    restored = game.state_from_json(first.to_json())
    assert restored == first
    assert restored.resample(0, 7).s == first.resample(0, 7).s
    doc = json.loads(first.to_json())
    start = doc["state"]["branches"][1]["start"]
    start["zones"]["pile#1"] = start["zones"]["pile#1"][:-1]  # a gem gone from how the part began
    with pytest.raises(SaveError, match="how a choosing player's part began"):
        game.state_from_json(json.dumps(doc))


def _swap_hidden(state, key: str, i: int, j: int) -> None:
    """Swap two cards of a zone nobody else sees in the state and in how the choosing parts
    began (the zone is the same now as then: another world the others cannot tell apart)."""
    s = state.s
    zone = s.zones[key]
    a, b = zone[i], zone[j]
    zone[i], zone[j] = b, a
    for part in s.branches:
        # (a start whose zones were left out, None, shows the state's: swapped above already)
        if part.start is not None and part.start.zones is not None and key in part.start.zones:
            then = [b if c == a else a if c == b else c for c in part.start.zones[key]]
            part.start = attrs.evolve(part.start, zones={**part.start.zones, key: then})


def test_plunderbund_planning_does_not_see_the_other_guilds_pile_or_plan():
    game = interpreter.load(str(ROOT / "games" / "plunderbund"))
    state = game.new_game(players=2, seed=4)
    agent = RandomAgent(2)

    def plays(p):
        return [i for i, a in enumerate(state.legal_actions(p)) if a.label.startswith("Play ")]
    for _ in range(400):
        d = state.decision
        if (d.simultaneous and d.players == (0, 1) and d.prompt.startswith("Plan:") and len(plays(1)) >= 2
                and len(plays(0)) >= 2 and len(state.s.zones["draw_pile#1"]) >= 2):
            names = [game.card_name(c) for c in state.s.zones["draw_pile#1"]]
            if len(set(names)) > 1:
                break
        state.apply(agent.choose(state, d.players[0]))
    else:
        pytest.fail("no planning step with choices for both guilds")
    names = [game.card_name(c) for c in state.s.zones["draw_pile#1"]]
    other = next(i for i, x in enumerate(names) if x != names[0])
    first, second = state.clone(), state.clone()
    _swap_hidden(second, "draw_pile#1", 0, other)  # the other guild's pile in another order
    first.apply(first.legal_actions(1)[plays(1)[0]])  # and another first card in its plan
    second.apply(second.legal_actions(1)[plays(1)[1]])
    assert first.s.vars["plan#1"] != second.s.vars["plan#1"]
    assert first.information_state(0) == second.information_state(0)
    _same_determinisations(first, second, 0, seeds=range(3))
    for seed in range(2):
        a = MCTSAgent(seed, iterations=30, rollout_depth=10).choose(first, 0)
        b = MCTSAgent(seed, iterations=30, rollout_depth=10).choose(second, 0)
        assert a.value == b.value


def test_the_supply_does_not_show_what_others_paid_in_secret(tmp_path):
    path = tmp_path / "game.rules"
    path.write_text('game "Tips"\nplayers 2\ntoken coin "Coins": supply 10\nsetup:\n    for p in players:\n'
                    '        gain 3 coin to p\nflow:\n    simultaneously for p in players:\n'
                    '        may "Tip 2 coins?" by p:\n            pay 2 coin from p\n')
    game = interpreter.load(str(path))
    paid, kept = game.new_game(players=2), game.new_game(players=2)
    paid.apply(paid.legal_actions(1)[0])  # seat 1 tips, in secret
    kept.apply(kept.legal_actions(1)[1])
    for state in (paid, kept):
        assert state.view(0)["tokens"]["the supply"]["coin"] == 4  # as the step began
    assert paid.view(0) == kept.view(0) and paid.information_state(0) == kept.information_state(0)
    assert paid.resample(0, 1).s == kept.resample(0, 1).s
    assert paid.view(1)["tokens"]["the supply"]["coin"] == 6  # seat 1 sees its own tip
    paid.apply(paid.legal_actions(0)[0])  # everyone has chosen: all of it is seen
    assert paid.view(0)["tokens"]["the supply"]["coin"] == 8


# ---- hidden vars: `unknown among` (issue 15) ---------------------------------------------------

def _vulture_game(players: int = 2):
    game = interpreter.load(str(ROOT / "games" / "off_plan"), options={"mode": "vulture_funds"})
    return game, game.new_game(players=players, seed=8)


def test_a_determinisation_draws_the_vulture_depth_from_what_the_players_know():
    game, state = _vulture_game()
    depth, deck = 20, len(state.s.zones["house_deck"])  # vulture_depth[2]; the deck is deeper
    assert deck > depth
    drawn = Counter(state.resample(0, seed).s.vars["vulture_below"] for seed in range(420))
    assert set(drawn) == set(range(0, depth + 1))  # every depth the card may lie at, each about as often
    assert max(drawn.values()) < 2.2 * min(drawn.values())
    # Once the deck is shallower than the table, the card lies no deeper than the deck goes.
    shallow = state.clone()
    while len(shallow.s.zones["house_deck"]) > 5:
        shallow.place(shallow.s.zones["house_deck"][0], "box")
    shallow.s.vars["vulture_below"] = 3
    assert {shallow.resample(1, seed).s.vars["vulture_below"] for seed in range(60)} == set(range(0, 6))


def test_the_vulture_depth_is_no_secret_of_search():
    """Two games that differ only in where the Vulture Funds card lies: no player can tell them
    apart, so every determinisation and every MCTS choice is the same."""
    game, state = _vulture_game()
    agent = RandomAgent(3)
    while len(state.legal_actions(state.decision.players[0])) < 2:
        state.apply(agent.choose(state, state.decision.players[0]))
    me = state.decision.players[0]
    other = state.clone()
    other.s.vars["vulture_below"] = (state.s.vars["vulture_below"] + 7) % 21
    assert state.information_state(me) == other.information_state(me)
    for seed in range(6):
        assert state.resample(me, seed).s == other.resample(me, seed).s
    for seed in range(2):
        a = MCTSAgent(seed, iterations=30, rollout_depth=8).choose(state, me)
        b = MCTSAgent(seed, iterations=30, rollout_depth=8).choose(other, me)
        assert a.value == b.value


def test_the_standard_game_keeps_its_unused_vulture_depth():
    game = interpreter.load(str(ROOT / "games" / "off_plan"))
    state = game.new_game(players=2, seed=8)
    assert {state.resample(0, seed).s.vars["vulture_below"] for seed in range(10)} == {0}


def test_an_empty_list_of_values_is_an_error_at_the_list(tmp_path):
    path = tmp_path / "game.rules"
    path.write_text('game "T"\nplayers 2\nvar depth: int = 0, hidden, unknown among []\nflow:\n'
                    '    for p in players:\n        may "Go on?" by p:\n            pass\n')
    state = interpreter.load(str(path)).new_game(players=2)
    with pytest.raises(RuleRuntimeError, match=r"game.rules:3:43.*unknown among no value"):
        state.resample(0, 1)
