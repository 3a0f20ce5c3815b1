"""Define results remembered until the state may change (docs/limits.md, "What costs what").

A define reads the state and its arguments, so within one action its result is remembered from
op to op (a call found in the memo pays STEPS_PER_CALL, its body nothing) and forgotten after
every op that may change the state, at the start of every action and of every `simultaneously`
part. These tests ask defines before and after each kind of change (the fixture's log pairs),
compare the charges of remembered and forgotten calls in both backends, and play the fixture
through both backends in step.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

import interpreter
from interpreter.engine.budget import STEPS_PER_CALL, Budget
from interpreter.tools.simulate import next_player

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "define_memo"
BACKENDS = ("reference", "codegen")

# the changes the fixture makes between a "before X" and an "after X" line (each of its pairs)
CHANGES = {"move", "set", "item", "place", "gain", "cost", "start", "card var", "turn", "part move", "part gain"}


def _played(backend: str, players: int, seed: int):
    game = interpreter.load(str(FIXTURE), backend=backend, cache=False)
    state = game.new_game(players=players, seed=seed)
    rng = random.Random(seed)
    while not state.is_over:
        player = next_player(state)
        state.apply_index(rng.randrange(state.num_actions(player)), player)
    return state


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("players", "seed"), [(2, 0), (3, 1), (3, 2)])
def test_a_define_asked_again_after_a_change_gives_the_new_answer(backend, players, seed):
    """Each line logs a define's answer and the same expression written out: they agree on
    every line, and the answer changes across each kind of change (a card moved, a var and an
    item of a list var set, a card laid on a grid, tokens gained, a menu's cost paid, a modifier started, a card's
    var set, a turn begun, a card moved and tokens gained in a `simultaneously` part), which a
    result remembered past the change would not."""
    state = _played(backend, players, seed)
    before: dict[str, int] = {}
    pairs = set()
    for entry in state.log:
        found = re.fullmatch(r"(before|after) ([a-z ]+) (-?\d+) (-?\d+)", entry.text)
        if found is None:
            continue
        when, change, asked, written_out = found[1], found[2], int(found[3]), int(found[4])
        assert asked == written_out, entry.text
        if when == "after" and change in before:
            assert asked != before[change], f"{change}: {entry.text}"
            pairs.add(change)
        before[change] = asked
    assert pairs == CHANGES
    # knowledge: a card revealed (kept in a hidden var, which no log line may show)
    for p in range(players):
        notes = state.s.vars[f"notes#{p}"]
        quads = [notes[i:i + 4] for i in range(0, len(notes), 4)]
        assert len(quads) == 2
        for seen_before, counted_before, seen_after, counted_after in quads:
            assert (seen_before, seen_after) == (counted_before, counted_after)
            assert seen_after == seen_before + 1


def test_the_fixture_plays_the_same_through_both_backends():
    """Actions, logs, states and the work paid at every action (tests/test_backends.py's check)."""
    from test_backends import play_both

    for players, seed in ((2, 3), (3, 4)):
        assert play_both(str(FIXTURE), (), players, seed) > 0


CHARGES = '''game "Charges"
players 2 to 2
var board: list of int = [1, 2, 3, 4, 5, 6]
var score per player: int = 0
define total(p: player) = sum(x for x in board where x > p.score)
define over(p: player) = sum(x for x in board where x > p.score) > 100
define none_over(p: player) = count(x in board where x > p.score + 100)
define big(p: player) = first([x for x in board where x > p.score + 100])
flow:
    for p in players:
        turn p:
            choose i in [1, 2] where {FILTER} by p
            {BODY}
'''


def _paid(tmp_path: Path, backend: str, body: list[str], filter_: str = "i > 0", second: bool = False) -> int:
    """What the first action (or the `second`) of a game whose turns run `body` after their
    choice pays."""
    folder = tmp_path / f"{abs(hash((tuple(body), filter_)))}"
    folder.mkdir(exist_ok=True)
    (folder / "game.rules").write_text(
        CHARGES.replace("{FILTER}", filter_).replace("{BODY}", "\n            ".join(body)))
    state = interpreter.load(str(folder), backend=backend, cache=False).new_game(players=2, seed=0)
    if second:
        state.apply(state.legal_actions(0)[0])
    paid = Budget()
    state.apply(state.legal_actions(1 if second else 0)[0], paid)
    return paid.used


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_call_remembered_across_ops_pays_only_the_call(tmp_path, backend):
    """`let b = total(p)` after `let a = total(p)`, nothing changed in between: one step for the
    op and STEPS_PER_CALL for the call. After `set board[0] = 9` (a change), the same call works
    its body out again and pays what the first call paid."""
    base = _paid(tmp_path, backend, ["let a = 0"])
    once = _paid(tmp_path, backend, ["let a = total(p)"])
    first_call = once - base
    assert first_call > STEPS_PER_CALL  # the body pays for its list
    twice = _paid(tmp_path, backend, ["let a = total(p)", "let b = total(p)"])
    assert twice - once == 1 + STEPS_PER_CALL
    # read-only ops in between (a test, a log, a loop over a list) keep it too
    between = ["let a = total(p)", "if a > 0:", "    log \"{a}\"", "for x in [1, 2]:", "    let y = x",
               "let b = total(p)"]
    without = between[:-1]
    assert _paid(tmp_path, backend, between) - _paid(tmp_path, backend, without) == 1 + STEPS_PER_CALL
    changed = _paid(tmp_path, backend, ["let a = total(p)", "set board[0] = 9"])
    again = _paid(tmp_path, backend, ["let a = total(p)", "set board[0] = 9", "let b = total(p)"])
    assert again - changed == 1 + first_call


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_remembered_false_pays_only_the_call(tmp_path, backend):
    """`over(p)` always gives a bool (a comparison), false here: its generated function looks
    the memo up without a default (None is never a result of it) and must still tell a
    remembered False from no result at all: asked twice, the second call pays the call alone."""
    once = _paid(tmp_path, backend, ["let a = over(p)"])
    first_call = once - _paid(tmp_path, backend, ["let a = false"])
    assert first_call > STEPS_PER_CALL  # the body pays for its list
    assert _paid(tmp_path, backend, ["let a = over(p)", "let b = over(p)"]) - once == 1 + STEPS_PER_CALL
    if backend == "codegen":
        folder = tmp_path / f"{abs(hash((('let a = over(p)',), 'i > 0')))}"  # (the game `_paid` wrote)
        game = interpreter.load(str(folder), backend=backend, cache=False)
        function = next(f for f in game.compiled.generated.source if "(_k" in f and "> 100" in f)
        assert "r = memo.get(key)\n" in function and "if r is None:" in function


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("define", "looked_up"), [("none_over", "r = memo.get(key)\n"),
                                                   ("big", "r = memo.get(key, _MISS)\n")])
def test_a_remembered_zero_or_none_pays_only_the_call(tmp_path, backend, define, looked_up):
    """`none_over(p)` never gives none (a count: its memo looked up without a default), 0 here;
    `big(p)` may (the first of an empty list: looked up with one), and gives none here. Asked
    twice, each second call pays the call alone."""
    once = _paid(tmp_path, backend, [f"let a = {define}(p)"])
    assert once - _paid(tmp_path, backend, ["let a = 0"]) > STEPS_PER_CALL  # the body pays for its list
    assert _paid(tmp_path, backend, [f"let a = {define}(p)", f"let b = {define}(p)"]) - once == 1 + STEPS_PER_CALL
    if backend == "codegen":
        folder = tmp_path / f"{abs(hash(((f'let a = {define}(p)',), 'i > 0')))}"  # (the game `_paid` wrote)
        game = interpreter.load(str(folder), backend=backend, cache=False)
        function = next(f for f in game.compiled.generated.source if "+ 100" in f and f.startswith("def _d"))
        assert looked_up in function


@pytest.mark.parametrize("backend", BACKENDS)
def test_nothing_remembered_survives_into_the_next_action(tmp_path, backend):
    """The second player's choice asks `total(p)` in its filter as the first action ends (the
    state's machine is kept for its next action); the next action asks it again and pays its
    body again: each action starts with the memo forgotten."""
    first_call = (_paid(tmp_path, backend, ["let a = total(p)"], second=True)
                  - _paid(tmp_path, backend, ["let a = 0"], second=True))
    assert first_call > STEPS_PER_CALL
    asked = "total(p) > i"
    assert (_paid(tmp_path, backend, ["let a = total(p)"], asked, second=True)
            - _paid(tmp_path, backend, ["let a = 0"], asked, second=True)) == first_call


def test_both_backends_pay_the_same_for_remembered_calls(tmp_path):
    bodies = [["let a = total(p)", "let b = total(p)"],
              ["let a = total(p)", "set board[0] = 9", "let b = total(p)"],
              ["let a = total(p)", "set p.score += 1", "let b = total(p)", "let c = total(p)"]]
    for body in bodies:
        assert _paid(tmp_path, "reference", body) == _paid(tmp_path, "codegen", body), body
