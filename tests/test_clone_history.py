"""clone() leaves the log and the list of actions shared between the two states, since they
only grow; whatever changes either state first gives it its own (State._own_history). These
tests play both states on after a clone, in every order, and compare each with the same game
played again from its seed: sharing must never let one state's actions show in the other."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import interpreter
from interpreter import IllegalAction
from interpreter.tools.simulate import next_player

ROOT = Path(__file__).resolve().parent.parent
GAMES = [("games/plunderbund", 4), ("games/off_plan", 3), ("examples/games/tic_tac_toe", 2)]


def _played(game, players: int, seed: int, moves: int):
    state = game.new_game(players=players, seed=seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if state.is_over:
            break
        state.apply_index(rng.randrange(state.num_actions(next_player(state))), next_player(state))
    return state, rng


def _play_on(state, rng: random.Random, moves: int) -> None:
    for _ in range(moves):
        if state.is_over:
            return
        state.apply_index(rng.randrange(state.num_actions(next_player(state))), next_player(state))


@pytest.mark.parametrize(("path", "players"), GAMES)
@pytest.mark.parametrize("first", ["original", "copy"])
def test_both_states_play_on_as_if_never_cloned(path: str, players: int, first: str):
    game = interpreter.load(str(ROOT / path))
    for seed in range(3):
        state, _ = _played(game, players, seed, 5)
        copy = state.clone()
        log_then, actions_then = state.log, state.actions_taken
        order = [(state, 0), (copy, 1)] if first == "original" else [(copy, 1), (state, 0)]
        for s, i in order:
            _play_on(s, random.Random(seed * 10 + i), 4)
        for s, i in ((state, 0), (copy, 1)):
            # the same game played the same way by a state that was never cloned
            control, _ = _played(game, players, seed, 5)
            _play_on(control, random.Random(seed * 10 + i), 4)
            assert s == control
            assert s.log == control.log and s.actions_taken == control.actions_taken
            assert s.log[: len(log_then)] == log_then  # what both had, each still has
            assert s.actions_taken[: len(actions_then)] == actions_then


def test_a_copy_left_unplayed_keeps_its_history_while_the_original_plays_on():
    game = interpreter.load(str(ROOT / "games" / "plunderbund"))
    state, rng = _played(game, 4, 7, 30)
    copy = state.clone()
    saved = copy.to_json()
    _play_on(state, rng, 40)
    assert copy.to_json() == saved
    assert copy == game.state_from_json(saved)


def test_the_data_taken_from_outside_is_the_state_s_own():
    """`state.s` may be changed from outside: it must not reach into the other state's log."""
    game = interpreter.load(str(ROOT / "games" / "plunderbund"))
    state, _ = _played(game, 4, 3, 20)
    copy = state.clone()
    lines = len(state.log)
    copy.s.log.append(["note", None, "added from outside"])
    copy.s.actions.append([0, "not played"])
    assert len(state.log) == lines and len(state.actions_taken) == 20
    assert len(copy.log) == lines + 1


def test_a_refused_action_on_a_copy_changes_neither_state():
    game = interpreter.load(str(ROOT / "games" / "plunderbund"))
    state, _ = _played(game, 4, 5, 12)
    copy = state.clone()
    before_state, before_copy = state.to_json(), copy.to_json()
    with pytest.raises(IllegalAction):
        copy.apply_index(10**6)
    assert copy.to_json() == before_copy and state.to_json() == before_state
    _play_on(copy, random.Random(1), 3)
    assert state.to_json() == before_state


def test_a_state_whose_copy_is_gone_keeps_its_own_lists():
    """Only a list another state still holds is copied: once the copy is dropped, the original
    plays on with the lists it had (one copy at most, made by whichever state changes first).
    (Lists are followed by id, not held: holding one here would be one more holder. A copy is
    made while the old list is alive, so a copied list never has the old one's id.)"""
    game = interpreter.load(str(ROOT / "games" / "plunderbund"))
    state, rng = _played(game, 4, 2, 10)
    log = id(state._s.log)
    copy = state.clone()
    assert id(copy._s.log) == log  # shared, not copied
    del copy
    _play_on(state, rng, 1)
    assert id(state._s.log) == log
    copy = state.clone()
    _play_on(state, rng, 1)
    assert id(state._s.log) != log and id(copy._s.log) == log  # the one that changed copied
    lines = len(copy.log)
    moves = random.Random(4)
    while len(copy.log) == lines and not copy.is_over:  # (a part of a step taken at once logs in its own branch first)
        _play_on(copy, moves, 1)
    assert id(copy._s.log) == log  # and the other keeps the list


def _in_a_step_of_choosing_at_once(game, seed: int):
    """A Plunderbund state in a `simultaneously` step where a part has answered already."""
    state, rng = _played(game, 4, seed, 0)
    while not state._s.branches or not any(b.actions for b in state._s.branches):
        state.apply_index(rng.randrange(state.num_actions(next_player(state))), next_player(state))
    return state, rng


def test_the_parts_of_a_step_of_choosing_at_once_keep_their_own_log_and_actions():
    """clone() shares each part's log and actions too: an answer in a part of either state, or a
    change from outside, never shows in the other state's part."""
    game = interpreter.load(str(ROOT / "games" / "plunderbund"))
    for first in ("original", "copy"):
        state, rng = _in_a_step_of_choosing_at_once(game, 11)
        copy = state.clone()
        assert copy._s.branches[0].log is state._s.branches[0].log  # shared until one changes
        parts = [(b.log[:], b.actions[:]) for b in state._s.branches]
        saved = state.to_json()
        mover, other = (state, copy) if first == "original" else (copy, state)
        player = next_player(mover)
        mover.apply_index(0, player)  # an answer in a part: that part's log and actions grow
        assert [(b.log, b.actions) for b in other._s.branches] == parts
        assert other.to_json() == saved
        assert any(len(b.actions) > len(a) for b, (_, a) in zip(mover._s.branches, parts, strict=True)) \
            or not mover._s.branches  # (or the step ended, its parts merged into the state's own)
        # changed from outside (the `s` property): the other state's parts stay as they were
        other_before = [(b.log[:], b.actions[:]) for b in other._s.branches]
        if mover._s.branches:
            mover.s.branches[0].log.append(["note", None, "added from outside"])
            mover.s.branches[0].actions.append([0, "not played"])
        assert [(b.log, b.actions) for b in other._s.branches] == other_before
