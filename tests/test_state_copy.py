"""GameState.copy makes the state's frames and branches field by field (not through their attrs
__init__): every field of each is set in a copy, equal, and a container of its own where the
engine changes it in place, so changing one side never changes the other."""

from __future__ import annotations

import random
from pathlib import Path

import attrs

import interpreter
from interpreter.engine.state import Branch, Frame
from interpreter.tools.simulate import next_player

ROOT = Path(__file__).resolve().parent.parent
SHARED = {"pending", "shown", "start"}  # never changed in place: a copy shares them (see Branch)


def _in_a_step_of_choosing_at_once(seed: int):
    game = interpreter.load(str(ROOT / "games" / "plunderbund"))
    state = game.new_game(players=4, seed=seed)
    rng = random.Random(seed)
    while not (state.s.branches and any(b.stack for b in state.s.branches)):
        assert not state.is_over
        state.apply_index(rng.randrange(state.num_actions(next_player(state))), next_player(state))
    return state


def _same_frame(mine: Frame, theirs: Frame) -> None:
    for field in attrs.fields(Frame):
        assert getattr(mine, field.name) == getattr(theirs, field.name), field.name
    assert mine is not theirs and mine.locals is not theirs.locals


def test_every_field_of_every_branch_and_frame_is_copied():
    for seed in range(3):
        s = _in_a_step_of_choosing_at_once(seed).s
        c = s.copy()
        assert c == s
        for mine, theirs in zip(c.stack, s.stack, strict=True):
            _same_frame(mine, theirs)
        for mine, theirs in zip(c.branches, s.branches, strict=True):
            assert mine is not theirs
            for field in attrs.fields(Branch):
                a, b = getattr(mine, field.name), getattr(theirs, field.name)
                assert a == b, field.name
                if isinstance(a, list) and field.name not in SHARED:
                    assert a is not b, field.name
            for f, g in zip(mine.stack, theirs.stack, strict=True):
                _same_frame(f, g)


def test_changing_the_branches_of_one_leaves_the_other_alone():
    state = _in_a_step_of_choosing_at_once(1)
    copy = state.clone()
    kept = copy.to_json()
    s = state.s
    for b in s.branches:
        b.count += 1
        b.log.append(["info", b.player, "x"])
        b.actions.append([b.player, 0])
        for f in b.stack:
            f.pc += 1
            f.locals["extra"] = 1
    assert copy.to_json() == kept
    # ...and the other way round: the clone played on leaves the original where it was.
    before = state.clone()
    while copy.s.branches and not copy.is_over:
        copy.apply_index(0, next_player(copy))
    assert state.s == before.s


def test_a_decision_parked_and_a_procedure_entered_have_every_field():
    """Machine.wait makes the Pending, and Machine.enter the Frame, field by field (not through
    their attrs __init__): every field is set, as the class's own __init__ would set it."""
    from interpreter.engine.state import Pending

    game = interpreter.load(str(ROOT / "examples" / "games" / "tic_tac_toe"))
    state = game.new_game(players=2, seed=0)
    state.apply_index(4)  # a procedure entered (play_a_square) that waits at its choice
    pending = state.s.pending
    made = Pending(pending.player, pending.prompt, pending.kind, pending.values, pending.labels, pending.serial)
    for field in attrs.fields(Pending):
        assert getattr(pending, field.name) == getattr(made, field.name), field.name
    assert pending.serial == state.s.decisions == 2
    frame = state.s.stack[-1]
    assert frame.code == "proc:play_a_square" and frame.pc == 1  # (its choice, after `let mark`)
    for field in attrs.fields(Frame):
        getattr(frame, field.name)  # set (a slot never set raises AttributeError)


def test_the_decisions_of_parts_have_every_field_as_the_references():
    """A part's choice of items (the generated `_p` function), `may` and menu are parked field by
    field (``Machine.wait`` and the `_p` functions, not through Pending's __init__), numbered
    as `park` numbers them (the state's decisions times 1,000 plus the part's own count): every
    field as the reference's, decision after decision of Plunderbund's plans."""
    from interpreter.engine.state import Pending

    path = str(ROOT / "games" / "plunderbund")
    games = [interpreter.load(path, backend=b) for b in ("reference", "codegen")]
    states = [game.new_game(players=3, seed=5) for game in games]
    rng = random.Random(5)
    seen = 0
    while seen < 60:
        assert not states[0].is_over
        for state in states:
            for b in state.s.branches:
                if b.pending is not None:
                    p = b.pending
                    made = Pending(p.player, p.prompt, p.kind, p.values, p.labels, p.serial)
                    for field in attrs.fields(Pending):
                        assert getattr(p, field.name) == getattr(made, field.name), field.name
        mine, theirs = ([b.pending for b in state.s.branches] for state in states)
        assert mine == theirs
        seen += sum(p is not None for p in mine)
        player = next_player(states[0])
        index = rng.randrange(states[0].num_actions(player))
        for state in states:
            state.apply_index(index, player)
    assert any(p.serial > 1000 for p in mine if p is not None)
