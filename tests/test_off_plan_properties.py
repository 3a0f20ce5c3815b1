"""Off-Plan: properties of whole random games (hypothesis picks the seed and player count).

The default run keeps the number of games small; `pytest -m slow` runs heavier versions
(HYPOTHESIS_PROFILE=thorough also raises the example counts of the default ones).
"""

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from off_plan_helpers import COLOURS, GAME_PATH, TOTAL_FUNDS, game, random_playout

from interpreter.engine.api import Action, State
from interpreter.tools.cli import main
from interpreter.tools.simulate import run_game, simulate

# Random games take 150 to 450 decisions (measured over 300 games); far more means a loop.
MAX_DECISIONS = 3000

seeds = st.integers(min_value=0, max_value=2**63 - 1)


def examples(n: int) -> int:
    """n games under the dev and ci profiles; proportionally more under a heavier one."""
    base = settings.default.max_examples
    return n if base <= 25 else n * base // 15
player_counts = st.integers(min_value=2, max_value=5)


def problems(s: State) -> list[str]:
    """Everything wrong with a state: card zones, Funds tokens, declared invariants, decisions."""
    out = []
    zones, where = s.s.zones, s.s.where
    n_cards = len(s.game.compiled.card_names)
    # every card in exactly one zone, and `where` agrees
    seen = [0] * n_cards
    for key, cards in zones.items():
        for c in cards:
            seen[c] += 1
            if where[c] != key:
                out.append(f"card {c} is in {key} but recorded in {where[c]}")
    if any(x != 1 for x in seen):
        out.append(f"cards in no zone or in two: {[c for c, x in enumerate(seen) if x != 1]}")
    if len(where) != n_cards:
        out.append("`where` has the wrong length")
    # the 35 Funds tokens: never negative, always 35, and only where Funds may lie
    players = {f"p{p}" for p in range(s.num_players)}
    total = 0
    for key, count in s.s.tokens.items():
        holder, token, side = key.split("|")
        if count < 0:
            out.append(f"{key} = {count}")
        total += count
        if count == 0:
            continue
        if holder.startswith("c"):
            if where[int(holder[1:])] != "room_market":
                out.append(f"{count} Funds on card {holder} in {where[int(holder[1:])]}")
        elif holder.startswith("m:"):
            if holder[2:] not in COLOURS:
                out.append(f"Funds on {holder}")
            elif side == "black":
                out.append(f"black money lies on the {holder[2:]} neighbourhood")  # investing flips it
        elif holder != "supply" and holder not in players:
            out.append(f"Funds held by {holder}")
    if total != TOTAL_FUNDS:
        out.append(f"{total} Funds tokens exist")
    out += s.check_invariants()
    # a decision with legal actions until the game is over, and none after
    if s.is_over:
        if s.decision is not None or s.legal_actions():
            out.append("the game is over but still asks for a decision")
    else:
        if s.decision is None:
            out.append("the game is not over but waits for nobody")
        elif not all(s.legal_actions(p) for p in s.decision.players):
            out.append(f"no legal action at {s.decision.prompt!r}")
    return out


def assert_sound(s: State) -> None:
    bad = problems(s)
    assert not bad, bad


def check_result(s: State) -> None:
    assert s.is_over
    scores, winners = s.scores(), s.winners()
    assert len(scores) == s.num_players
    assert winners and set(winners) <= set(range(s.num_players))
    assert all(scores[w] == max(scores) for w in winners)
    for p in range(s.num_players):
        assert scores[p] == sum(s.score_breakdown(p).values())
    # the game ended because someone built a 4th House (or no House was left to build)
    houses = [sum(1 for c in s.s.zones[f"play_area#{p}"] if s.game.compiled.card_kinds[c] == "house")
              for p in range(s.num_players)]
    assert max(houses) == 4 or not s.s.zones["house_market"]
    assert max(houses) <= 4


# ---- every step of a random game -------------------------------------------------------------


def play_checked(seed: int, players: int) -> State:
    s = game().new_game(players=players, seed=seed)
    assert_sound(s)
    random_playout(s, random.Random(seed), limit=MAX_DECISIONS, each=assert_sound)
    check_result(s)
    return s


@settings(max_examples=examples(5), deadline=None)
@given(seed=seeds, players=player_counts)
def test_random_game_is_sound_at_every_step(seed, players):
    """Every card in one zone, 35 Funds, the declared invariants, a legal action at every
    decision until the end, and an end within MAX_DECISIONS."""
    play_checked(seed, players)


@pytest.mark.slow
@settings(max_examples=120, deadline=None)
@given(seed=seeds, players=player_counts)
def test_random_game_is_sound_at_every_step_many(seed, players):
    play_checked(seed, players)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_each_player_count_plays_to_the_end(players):
    play_checked(1000 + players, players)


# ---- determinism, saving and cloning -----------------------------------------------------------


def actions_of(s: State) -> list[tuple[int, object]]:
    return list(s.actions_taken)


def replay(seed: int, players: int, actions) -> State:
    s = game().new_game(players=players, seed=seed)
    for p, v in actions:
        s.apply(Action(p, v, ""))
    return s


def determinism(seed: int, players: int) -> None:
    a = game().new_game(players=players, seed=seed)
    random_playout(a, random.Random(seed ^ 0x5EED), limit=MAX_DECISIONS)
    b = replay(seed, players, actions_of(a))
    assert b.is_over
    assert b.to_json() == a.to_json()
    assert b == a
    assert b.scores() == a.scores() and b.winners() == a.winners()


@settings(max_examples=examples(4), deadline=None)
@given(seed=seeds, players=player_counts)
def test_same_seed_and_actions_give_identical_json(seed, players):
    determinism(seed, players)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(seed=seeds, players=player_counts)
def test_same_seed_and_actions_give_identical_json_many(seed, players):
    determinism(seed, players)


def save_and_clone(seed: int, players: int, every: int) -> None:
    rng = random.Random(seed)
    s = game().new_game(players=players, seed=seed)
    step = 0
    while not s.is_over:
        if step % every == 0:
            text = s.to_json()
            # JSON round trip: an equal state, that saves to the same text
            r = game().state_from_json(text)
            assert r == s and r.to_json() == text
            assert json.loads(text)["state"]["num_players"] == players
            # clone: equal, and independent both ways
            c = s.clone()
            assert c == s
            if not c.is_over:
                c.apply(rng.choice(c.legal_actions(c.decision.players[0])))
            # (set-up changes after the action: before it, they could make the pending choice illegal)
            c.set_var("final_round", not c.s.vars["final_round"])
            card = c.s.zones["room_market"][0] if c.s.zones["room_market"] else c.s.zones["box"][0]
            c.place(card, "box" if c.s.where[card] != "box" else "room_discard")
            # and straight into the clone's containers, where sharing would show
            c.s.tokens["supply|funds|normal"] = c.s.tokens.get("supply|funds|normal", 0) + 1
            # (a var's value is shared by clones: nothing changes one in place, a `set` stores a
            # new list; so the clone's list is replaced, as the engine does, not appended to)
            c.set_var("saved#0", c.s.vars["saved#0"] + ["bedroom"])
            c.s.zones["hand#0"].append(-1)
            for f in c.s.stack:
                f.locals["__probe"] = [1]
            if c.s.pending is not None:
                c.s.pending.values.append("probe")
            assert c != s
            assert s.to_json() == text, "changing the clone changed the original"
            # the restored state plays on exactly like the original
            if not r.is_over:
                act = rng.choice(r.legal_actions(r.decision.players[0]))
                r.apply(act)
                s.apply(act)
                assert r.to_json() == s.to_json()
                step += 1
                continue
        s.apply(rng.choice(s.legal_actions(s.decision.players[0])))
        step += 1
        assert step < MAX_DECISIONS


@settings(max_examples=examples(4), deadline=None)
@given(seed=seeds, players=player_counts)
def test_json_round_trip_and_clone_are_equal_and_independent(seed, players):
    save_and_clone(seed, players, every=9)


@pytest.mark.slow
@settings(max_examples=15, deadline=None)
@given(seed=seeds, players=player_counts)
def test_json_round_trip_and_clone_are_equal_and_independent_many(seed, players):
    save_and_clone(seed, players, every=1)


def test_original_changes_leave_the_clone_alone():
    s = game().new_game(players=3, seed=11)
    c = s.clone()
    text = c.to_json()
    s.apply(s.legal_actions(s.decision.players[0])[0])
    s.set_tokens(0, "funds", 9)
    assert c.to_json() == text
    assert c != s


def test_saved_game_finishes_like_the_original():
    a = game().new_game(players=4, seed=21)
    rng = random.Random(3)
    for _ in range(120):
        a.apply(rng.choice(a.legal_actions(a.decision.players[0])))
    b = game().state_from_json(a.to_json())
    random_playout(a, random.Random(4))
    random_playout(b, random.Random(4))
    assert a.to_json() == b.to_json()
    assert a.scores() == b.scores()


# ---- the simulation command --------------------------------------------------------------------


def test_simulate_20_games_with_4_players():
    summary = simulate(game(), players=4, games=20, seed=0, game_path=GAME_PATH)
    assert summary.errors == []
    assert summary.completed == 20
    assert summary.decisions["max"] < MAX_DECISIONS
    assert sum(row["wins"] for row in summary.seats) == pytest.approx(20)


@pytest.mark.parametrize("players", [2, 3, 5])
def test_run_game_with_greedy_agents(players):
    record = run_game(game(), players, seed=7, agents=["greedy"] * players)
    assert record.error is None
    assert record.winners


@pytest.mark.slow
def test_cli_simulate_200_games_with_4_players(capsys):
    """`rulelang simulate games/off_plan --players 4 --games 200` finishes with no errors."""
    assert main(["simulate", GAME_PATH, "--players", "4", "--games", "200"]) == 0
    out = capsys.readouterr().out
    assert "finished: 200/200" in out
    assert "errors: none" in out
