"""Choices of items written out whole by the code generator (codegen `CodeGen.pick`): the items,
their filter, their labels, the chooser and the prompt worked out in one generated function
called from the choice's run, which parks the choice itself. Each pays what the op pays, in
the same order; anything unusual (a failure, nothing to choose from) puts the budget, the memo
and the choice's name back and leaves the choice to its op. So both backends play the same
games, pay the same units, and at every budget short of what an action costs fail with the
same error, the state unchanged.
"""

from __future__ import annotations

import pytest

import interpreter
from interpreter.engine.budget import Budget
from rulelang.diagnostics import RuleRuntimeError

BACKENDS = ("reference", "codegen")

GAME = '''game "Picks"
players 2 to 2
const names = ["ant", "bee", "cat", "dog", "eel", "fox", "gnu"]
var taken: list of int = [0, 0, 0, 0, 0, 0, 0]
var shift: int = 0
define free(i: int) = taken[i] == 0
define mark(p: player) = index_of(players, p) + 1
flow:
    repeat 3:
        for p in players:
            turn p:
                choose i in range(0, 6) where free(i) by p prompt "Where, {p} ({mark(p)})?" label "{names[i]}"
                set taken[i] = mark(p)
                may choose j in range(0, 6) where taken[j] != 0 and j > i by p label "again {names[j]}"
                if j != none:
                    set taken[j] = 0
                choose k in [1, 2, 1, 3] by first(players) label "k {k}"
                choose w in range(0, 2) where w + shift < 20 by p label "{names[w + shift]}"
                set shift = shift + k
score p:
    line: count([i for i in range(0, 6) where taken[i] == mark(p)])
'''


def _load(tmp_path, text: str, backend: str):
    (tmp_path / "game.rules").write_text(text)
    return interpreter.load(str(tmp_path), backend=backend, cache=False)


def _play(game, choices: list[int], limit: int | None = None):
    """Play the actions at `choices` (indices), the last one paid from a budget of `limit`:
    (its error, what it paid, the state after it)."""
    state = game.new_game(players=2, seed=3)
    for index in choices[:-1]:
        state.apply_index(index)
    before = state.clone()
    paid = Budget(limit) if limit is not None else Budget()
    action = state.legal_actions()[choices[-1]]
    try:
        state.apply(action, paid)
    except RuleRuntimeError as err:
        assert state.s == before.s  # a failing action leaves the state as it was
        return str(err), paid.used, None
    return None, paid.used, (state.s, [(a.value, a.label) for a in state.legal_actions()])


def test_choices_are_written_out(tmp_path):
    game = _load(tmp_path, GAME, "codegen")
    source = "\n".join(game.compiled.generated.source)
    assert source.count("def _p") == 4  # each choice of items (each has a label)
    assert "_disambiguate(_lb)" in source  # `k {k}` may repeat
    assert "L[_k" in source and "= None\n            fr.pc += 1" in source  # `may choose` with nothing


@pytest.mark.parametrize("first", [0, 2, 4])
def test_written_choices_pay_and_fail_as_the_reference_at_any_budget(tmp_path, first):
    games = [_load(tmp_path, GAME, b) for b in BACKENDS]
    # the first player's square, no second square, the `k` (the second 1: its label disambiguated)
    choices = [first, 0, 2, 0]
    for length in range(1, len(choices) + 1):
        full = [_play(game, choices[:length]) for game in games]
        assert full[0] == full[1], length
        assert full[0][0] is None
        for limit in range(0, full[0][1]):
            assert _play(games[0], choices[:length], limit) == _play(games[1], choices[:length], limit), (length, limit)
    labels = [a.label for a in _state_after(games[1], choices[:1]).legal_actions()]
    assert labels == ["k 1 (1)", "k 2", "k 1 (2)", "k 3"]  # (disambiguated)
    if first == 4:  # the second player's second square: `may choose` with something to choose
        labels = [a.label for a in _state_after(games[1], choices[:4]).legal_actions()]
        assert labels == ["again eel", "Skip"]


def _state_after(game, choices):
    state = game.new_game(players=2, seed=3)
    for index in choices:
        state.apply_index(index)
    return state


def test_a_failing_label_is_reported_by_the_reference(tmp_path):
    """`names[w + shift]` past the end of the names (shift 6): the written-out choice fails, puts
    back what it paid and leaves the choice to its op, whose labels go item by item and fail
    at the rule, as the reference does, at every budget."""
    games = [_load(tmp_path, GAME, b) for b in BACKENDS]
    slow = games[1].compiled.generated.slow_calls
    before = slow[0]
    # each `k` chosen 3 (shift + 3) in the first round: the next `w`, once the first player
    # chose their square and `k` again, reads names[6 + 1]
    choices = [0, 3, 0, 0, 3, 0, 0, 0]
    full = [_play(game, choices) for game in games]
    assert full[0] == full[1]
    assert full[0][0] is not None and "index" in full[0][0] and ":18:" in full[0][0]  # (in the label)
    assert slow[0] > before
    for limit in range(0, full[0][1]):
        assert _play(games[0], choices, limit) == _play(games[1], choices, limit), limit


def test_written_choices_need_no_slow_path_where_nothing_fails(tmp_path):
    game = _load(tmp_path, GAME, "codegen")
    slow = game.compiled.generated.slow_calls
    before = slow[0]
    state = game.new_game(players=2, seed=3)
    for index in (4, 1, 0, 0, 0, 0, 0):
        state.apply_index(index)
    assert slow[0] == before


TURNS = '''game "Turns"
players 2 to 3
const words = ["short", "LONG"]
modifier shield "Cannot be targeted"
var n: int = 0
var shielded: list of int = []
flow:
    repeat 3:
        for p in players:
            turn p:
                choose w in range(0, 1) by p label "{words[w]}"
                log "{p} says {words[w]}"
                if w == 1:
                    start shield for p until start of next turn
                set shielded = shielded + [1 if active(shield, p) else 0]
                choose:
                    option "Take" once per turn:
                        set n = n + 1
                    option "Pass":
                        pass
score p:
    line: n
'''


@pytest.mark.parametrize("seed", range(4))
def test_turns_and_log_lines_written_in_runs_play_and_pay_as_the_reference(tmp_path, seed):
    """A turn's start and end and a log line, done in place by the runs (codegen
    `_StepsGen.turn_start`, `log_line`) where no `once` mark, lasting modifier or long line asks
    for more, and by their ops where one does (a modifier until the player's next turn, a menu
    option once per turn, log lines longer than a line may be): both backends play the same
    games, and every action fails the same at every budget short of its cost."""
    from test_backends import play_both

    (tmp_path / "game.rules").write_text(TURNS.replace("LONG", "long " * 250))  # (a line of more than 1,000)
    assert play_both(str(tmp_path), (), 2 + seed % 2, seed) > 0
    games = [interpreter.load(str(tmp_path), backend=b, cache=False) for b in BACKENDS]
    rng = __import__("random").Random(seed)
    choices: list[int] = []
    state = games[1].new_game(players=2, seed=seed)
    while not state.is_over:
        choices.append(rng.randrange(state.num_actions()))
        state.apply_index(choices[-1])
    for length in range(1, len(choices) + 1):
        full = [_play_seeded(game, choices[:length], seed) for game in games]
        assert full[0] == full[1], length
        for limit in range(0, full[0][1], max(1, full[0][1] // 40)):
            assert _play_seeded(games[0], choices[:length], seed, limit) == \
                _play_seeded(games[1], choices[:length], seed, limit), (length, limit)
    # the ops' own ways taken too: a line cut to its length, a modifier in force at a turn's start
    assert any(e[0] == "log" and len(e[2]) <= 1003 and "long long" in e[2] for e in state.s.log)
    assert 1 in state.s.vars["shielded"]


def _play_seeded(game, choices: list[int], seed: int, limit: int | None = None):
    state = game.new_game(players=2, seed=seed)
    for index in choices[:-1]:
        state.apply_index(index)
    before = state.clone()
    paid = Budget(limit) if limit is not None else Budget()
    try:
        state.apply(state.legal_actions()[choices[-1]], paid)
    except RuleRuntimeError as err:
        assert state.s == before.s
        return str(err), paid.used, None
    return None, paid.used, state.s


ROW = '''game "Row"
players 2 to 2
var row: list of int = [0, 0, 0]
flow:
    repeat 2:
        for p in players:
            turn p:
                choose i in range(0, 3) by p label "square {i}"
                set row[i] = row[i - 1] + i + 1
score p:
    line: 0
'''


@pytest.mark.parametrize("square", range(4))
def test_an_item_of_a_var_set_in_place_pays_and_fails_as_the_reference(tmp_path, square):
    """`set row[i] = ...` done by the run in place (codegen `_StepsGen.var_item`): the same list,
    paid for the same, noted for an undo (a failing action is put back); a square past the row
    is the op's, which reports it at the rule, as the reference does, at every budget."""
    (tmp_path / "game.rules").write_text(ROW)
    games = [interpreter.load(str(tmp_path), backend=b, cache=False) for b in BACKENDS]
    choices = [1, square]
    full = [_play_seeded(game, choices, 0) for game in games]
    assert full[0] == full[1]
    assert (full[0][0] is not None) == (square == 3)
    if square == 3:
        assert "index 3 is outside a list of 3" in full[0][0]
    for limit in range(0, full[0][1]):
        assert _play_seeded(games[0], choices, 0, limit) == _play_seeded(games[1], choices, 0, limit), limit
