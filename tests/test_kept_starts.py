"""A `simultaneously` step whose parts cannot change a card leaves how each part's cards began
out of its start, and what others are shown of the zones and of the vars the parts cannot set
(``information.step_parts`` with `kept`); ``information.start_of`` and ``shown_of`` make them
from the state when asked: views, saves, equal states, checks of saves and determinisations see
the same whole things as when they were made at the step's start."""

import random

import pytest
from conftest import FIXTURES, ROOT

import interpreter
from interpreter.engine import information
from interpreter.engine.information import start_of
from interpreter.tools.simulate import next_player

HEAD = """game "K"
players 2 to 2
var points per player: int = 0
var mark per card: int = 0
var other per player: int = 5
zone hand per player: owner
zone pile: public
token coin: supply 40
kind chip:
    value: int
cards chip (name, value, copies):
    "Chip", 1, 6
procedure quiet(p: player):
    set p.points += 1
procedure loud(p: player):
    reveal p.hand to p
setup:
    for p in players:
        move take(box, 2) to p.hand
        gain 3 coin to p
flow:
    simultaneously for p in players:
"""

KEPT = [
    "may \"Add?\":\n            set p.points += 1",
    "choose n in range(1, 3) prompt \"Bid\"\n        set p.points = n",
    "quiet p\n        may \"Pay?\":\n            pay 1 coin from p",
    "let c = first(p.hand)\n        choose x in p.hand prompt \"Pick\"\n        log to p \"{x.value}\"",
]
CHANGED = [
    "choose c in p.hand prompt \"Mark\"\n        set c.mark = 1",  # a card's var
    "choose c in p.hand prompt \"Drop\"\n        move c to p.hand",  # a move
    "may \"Look?\":\n            loud p",  # a procedure that reveals
    "may \"Look?\":\n            reveal p.hand to p",
]


def _start(tmp_path, body):
    path = tmp_path / "game.rules"
    path.write_text(HEAD + "        " + body + "\n")
    return interpreter.load(str(path), cache=False).new_game(players=2, seed=1)


@pytest.mark.parametrize("body", KEPT)
def test_parts_that_cannot_change_a_card_leave_their_cards_out(tmp_path, body):
    s = _start(tmp_path, body)
    assert s.s.branches and all(b.start.zones is None and b.start.known is None and b.shown["zones"] is None for b in s.s.branches)
    g = s.game.compiled
    for b in s.s.branches:
        whole = start_of(g, s.s, b)
        assert whole.zones == {f"hand#{b.player}": s.s.zones[f"hand#{b.player}"]}
        assert whole.frame is b.start.frame and whole.supply is b.start.supply


def test_only_the_vars_a_part_may_set_are_kept_as_they_began(tmp_path):
    s = _start(tmp_path, "may \"Add?\":\n            set p.points += 1")
    g = s.game.compiled
    assert [b.shown["vars"] for b in s.s.branches] == [{"points#0": 0}, {"points#1": 0}]
    s.apply(s.legal_actions(0)[0])  # player 1 adds a point, unseen by player 2
    assert s.s.vars["points#0"] == 1 and s.view(1)["vars"]["points"]["Player 1"] == 0
    whole = information.shown_of(g, s.s, s.s.branches[0])
    assert whole == {"vars": {"points#0": 0, "other#0": 5}, "zones": {"hand#0": 2}, "tokens": {"p0|coin|": 3}}
    assert list(whole["vars"]) == ["points#0", "other#0"]  # (in the state's order, as a whole one is made)


@pytest.mark.parametrize("body", CHANGED)
def test_parts_that_may_change_a_card_keep_them(tmp_path, body):
    s = _start(tmp_path, body)
    assert s.s.branches and all(b.start.zones is not None for b in s.s.branches)


def _eager(monkeypatch):
    """Starts made whole at the step's start, as before (the general way)."""
    monkeypatch.setattr(information, "_kept_parts", lambda *args: None)


def _walk(game, seed, players):
    """Every state of a seeded random playout with a `simultaneously` step in progress (as
    saves, with the resampled states of each of them)."""
    state = game.new_game(players=players, seed=seed)
    rng = random.Random(seed)
    out = []
    while not state.is_over:
        if state.s.branches:
            out.append((state.to_json(), state.resample(0, seed).to_json(),
                        [None if b.start.zones is None else b.start for b in state.s.branches],
                        [state.view(q) for q in range(players)]))
        p = next_player(state)
        state.apply_index(rng.randrange(state.num_actions(p)), p)
        if len(out) >= 40:
            break
    return out


@pytest.mark.parametrize(("path", "players"), [(FIXTURES / "bids", 3), (ROOT / "games" / "plunderbund", 4)])
def test_left_out_starts_are_saved_compared_and_resampled_as_whole_ones(monkeypatch, path, players):
    game = interpreter.load(str(path))
    lazy = _walk(game, 7, players)
    assert lazy and any(None in starts for _, _, starts, _ in lazy)  # (the way under test was taken)
    with monkeypatch.context() as mp:
        _eager(mp)
        eager = _walk(interpreter.load(str(path)), 7, players)  # (a new game: no setup recorded the other way)
    assert all(None not in starts for _, _, starts, _ in eager)
    assert [(save, resampled, views) for save, resampled, _, views in lazy] == [
        (save, resampled, views) for save, resampled, _, views in eager]
    for save, _, _, _ in lazy:  # a loaded (whole) state equals the live one it was saved from
        loaded = game.state_from_json(save)
        assert all(b.start.zones is not None for b in loaded.s.branches)
        assert loaded.to_json() == save


def test_a_live_state_equals_its_loaded_save_and_not_another(monkeypatch):
    game = interpreter.load(str(FIXTURES / "bids"))
    s = game.new_game(players=3, seed=2)
    assert s.s.branches[0].start.zones is None
    loaded = game.state_from_json(s.to_json())
    assert loaded == s and s == loaded
    other = s.clone()
    other.s.zones["hand#1"].reverse()  # (how player 2's part began differs too: not the same state)
    assert other != s and s != other
