"""`simultaneously`: several players decide at once, unseen, and arrival order does not matter."""

import itertools
import random

import pytest
from conftest import FIXTURES

import interpreter
from interpreter import IllegalAction
from rulelang.diagnostics import RuleRuntimeError


@pytest.fixture(scope="module")
def game():
    return interpreter.load(str(FIXTURES / "bids"))


def test_everyone_decides_at_once(game):
    s = game.new_game(players=3, seed=1)
    d = s.decision
    assert d.simultaneous and d.players == (0, 1, 2)
    assert [a.label for a in s.legal_actions(1)] == ["bid 1", "bid 2", "bid 3"]


def test_a_player_who_has_chosen_waits_for_the_others(game):
    s = game.new_game(players=3, seed=1)
    s.apply(s.legal_actions(1)[2])
    s.apply(s.legal_actions(1)[1])  # no, do not double
    assert s.decision.players == (0, 2)
    assert s.legal_actions(1) == []
    with pytest.raises(IllegalAction, match="waiting for Player 1, Player 3"):
        s.apply(interpreter.Action(1, 1, "bid"))


def test_choices_are_hidden_until_everyone_has_chosen(game):
    s = game.new_game(players=2, seed=1)
    s.apply(s.legal_actions(0)[2])
    assert s.view(0)["vars"]["bid"]["Player 1"] == 3
    assert s.view(1)["vars"]["bid"]["Player 1"] == 0  # as it was before the choosing began
    assert s.view(1)["zones"]["hand#0"]["count"] == 2
    s.apply(s.legal_actions(0)[1])
    s.apply(s.legal_actions(1)[0])
    s.apply(s.legal_actions(1)[1])
    # the next round's choosing has begun: last round's bids and points are visible to all
    assert s.view(1)["vars"]["bid"]["Player 1"] == 3
    assert s.view(1)["vars"]["points"]["Player 1"] == 1


def play_in_order(game, seed, choices, order):
    """Play a round where each player makes `choices[p]`, applying actions in `order`."""
    s = game.new_game(players=len(choices), seed=seed)
    queues = {p: list(c) for p, c in enumerate(choices)}
    while any(queues.values()):
        for p in order:
            if p in s.decision.players and queues[p]:
                want = queues[p].pop(0)
                s.apply(next(a for a in s.legal_actions(p) if a.label == want))
    return s


def test_arrival_order_leaves_no_trace(game):
    choices = [["bid 3", "No"], ["bid 2", "Yes: Double it?"], ["bid 1", "No"]]
    results = {play_in_order(game, 5, choices, order).to_json()
               for order in itertools.permutations(range(3))}
    assert len(results) == 1


def test_random_orders_give_the_same_game(game):
    for seed in range(5):
        rng = random.Random(seed)
        plans = []
        base = game.new_game(players=4, seed=seed)
        picks = {p: [rng.randrange(3), rng.randrange(2)] for p in range(4)}
        for trial in range(3):
            s = base.clone()
            order_rng = random.Random(trial)
            while not s.is_over:
                d = s.decision
                p = order_rng.choice(d.players)
                acts = s.legal_actions(p)
                idx = picks[p][0] if acts[0].label.startswith("bid") else picks[p][1]
                s.apply(acts[idx])
            plans.append(s.to_json())
        assert len(set(plans)) == 1


def test_a_part_that_changes_shared_things_is_refused(tmp_path):
    path = tmp_path / "game.rules"
    path.write_text('game "T"\nplayers 2 to 2\nvar total: int = 0\nflow:\n'
                    '    simultaneously for p in players:\n        may "Add?":\n            set total += 1\n')
    s = interpreter.load(str(path)).new_game(players=2)
    before = s.to_json()
    with pytest.raises(RuleRuntimeError, match="cannot set the shared `total`"):
        s.apply(s.legal_actions(0)[0])
    assert s.to_json() == before


def test_save_in_the_middle_of_a_simultaneous_step(game):
    s = game.new_game(players=3, seed=2)
    s.apply(s.legal_actions(2)[0])
    r = game.state_from_json(s.to_json())
    assert r == s and r.decision == s.decision


def finish_round(s):
    """Every player bids 1 and does not double, until the next round's choosing begins."""
    start = s.view(0)["vars"]["rounds_left"]
    while s.view(0)["vars"]["rounds_left"] == start:
        p = s.decision.players[0]
        s.apply(next(a for a in s.legal_actions(p) if a.label in ("bid 1", "No")))


def test_an_action_left_over_from_the_last_step_is_stale(game):
    # Two steps of choosing at once follow each other with no other decision between them: an
    # action offered in the first must not be accepted in the second.
    s = game.new_game(players=2, seed=1)
    left_over = s.legal_actions(0)[2]
    finish_round(s)
    assert s.decision.players == (0, 1)
    before = s.to_json()
    with pytest.raises(IllegalAction, match="decision"):
        s.apply(left_over)
    assert s.to_json() == before


def test_a_player_sees_only_their_own_prompt(game):
    # Player 1 has finished choosing; whether Player 2 has bid yet (and now sees "Double it?")
    # must not show in Player 1's view.
    def after(bids_by_player_2: bool):
        s = game.new_game(players=3, seed=1)
        s.apply(s.legal_actions(0)[0])  # bid 1
        s.apply(next(a for a in s.legal_actions(0) if a.label == "No"))
        if bids_by_player_2:
            s.apply(s.legal_actions(1)[1])
        return s
    waiting, moved = after(False), after(True)
    assert 0 not in waiting.decision.players
    assert moved.view(1)["decision"]["prompt"] == "Double it?"
    assert waiting.view(0)["decision"] == moved.view(0)["decision"]
    assert waiting.view(0)["decision"]["prompt"] is None


def test_the_terminal_asks_each_player_their_own_question(game):
    import io

    from interpreter.tools.play import HumanAgent

    s = game.new_game(players=2, seed=1)
    s.apply(s.legal_actions(0)[0])  # Player 1 bids and is now asked whether to double
    human = HumanAgent(output=io.StringIO(), plain=True)
    lines = [x.plain for x in human.screen_lines(s, 1, s.legal_actions(1))]
    assert any("Player 2: Your bid" in line for line in lines)
    assert not any("Double it?" in line for line in lines)
    assert s.prompt_for(0) == "Double it?" and s.prompt_for(1) == "Your bid"
