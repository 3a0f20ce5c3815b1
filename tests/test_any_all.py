"""`any(...)` and `all(...)` of a comprehension: item by item, stopping at the deciding item.

As in Python, `any(x > 2 for x in xs)` stops at the first true item and `all(...)` at the first
false one; the items after it are neither worked out (an error there is never met) nor paid for.
A filter (`q in players where q.coins > 1`) asks whether some or every item meets its condition.
Each item looked at pays what it paid in the list built whole, so a call that looks at every item
pays what it did; a list written out in brackets (`any([...])`) is still built whole first.
Both backends are checked (the generated code has its own helpers for these).
"""

from __future__ import annotations

import re

import pytest

import interpreter
from interpreter.engine.budget import Budget
from rulelang.diagnostics import RuleRuntimeError

BACKENDS = ("reference", "codegen")


def _game(tmp_path, value: str, setup: str = "") -> str:
    """A game of one choice whose action sets `result` to `value` (worked out after the choice)."""
    (tmp_path / "game.rules").write_text(
        'game "Quantifiers"\nplayers 2 to 2\n'
        "var coins per player: int = 0\n"
        "var xs: list of int = [5, 4, 0, 2]\n"
        "var result: bool = false\n"
        "flow:\n"
        f"{setup}"
        "    for p in players:\n"
        "        if index_of(players, p) == 0:\n"
        "            set p.coins = 3\n"
        "    turn first(players):\n"
        '        choose i in range(0, 1) by first(players) label "go {i}"\n'
        f"        set result = {value}\n"
        "score p:\n    line: 0\n")
    return str(tmp_path)


def _play(path: str, backend: str) -> tuple[object, int]:
    """`result` after the one action, and what the action paid."""
    state = interpreter.load(path, backend=backend, cache=False).new_game(players=2, seed=0)
    paid = Budget()
    state.apply(state.legal_actions(0)[0], paid)
    return state.s.vars["result"], paid.used


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("value", "expected"), [
    ("any(q in players where q.coins > 1)", True),  # only the first player (seat 0) meets it
    ("all(q in players where q.coins > 1)", False),
    ("all(q in players where q.coins >= 0)", True),
    ("any(q in players where q.coins > 5)", False),
    ("any(c in [0, 0] where c == 0)", True),  # the items' own truth does not count: their condition does
])
def test_a_filter_asks_whether_some_or_every_item_meets_its_condition(tmp_path, backend, value, expected):
    assert _play(_game(tmp_path, value), backend)[0] is expected


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("value", "expected"), [
    ("any(10 / x > 1 for x in xs)", True),  # 10 / 5 decides; 10 / 0 (the third) is never worked out
    ("all(10 / x > 2 for x in xs)", False),  # 10 / 4 decides
    ("any(x in xs where 10 / x > 1)", True),
    ("all(x in xs where 10 / x > 2)", False),
    ("any(xs[i] > 4 for i in range(0, 9))", True),  # xs[0]; xs[4] and on would be outside the list
])
def test_the_items_after_the_deciding_one_are_not_worked_out(tmp_path, backend, value, expected):
    assert _play(_game(tmp_path, value), backend)[0] is expected


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("value", ["any(10 / x > 9 for x in xs)", "all(10 / x > 0 for x in xs)",
                                   "any([10 / x > 1 for x in xs])"])
def test_an_item_that_fails_before_the_answer_is_known_is_reported(tmp_path, backend, value):
    """No item decides before 10 / 0 (or the list is built whole, in brackets): the error stands."""
    with pytest.raises(RuleRuntimeError, match="division by zero"):
        _play(_game(tmp_path, value), backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_looking_at_every_item_pays_what_the_built_list_paid(tmp_path, backend):
    """Without a deciding item before the end, the call pays what building the list paid; with
    one, less by what the items after it paid (each `x + 1 > 0` item: the sum checked, twice 1)."""
    whole = [("all(x + 1 > 0 for x in xs)", "all([x + 1 > 0 for x in xs])"),
             ("any(x > 9 for x in xs)", "any([x > 9 for x in xs])"),
             ("all(x in xs where x >= 0)", "all([x in xs where x >= 0])"),
             ("any(x in xs where x > 9)", "any([x in xs where x > 9])")]
    for lazy, built in whole:
        (one, paid), (other, paid_built) = (_play(_game(tmp_path, v), backend) for v in (lazy, built))
        assert paid == paid_built, lazy
        if " for " in lazy:  # (a list of kept items in brackets is true by its items' own truth)
            assert one == other, lazy
    _, paid_all = _play(_game(tmp_path, "any(x > 9 for x in xs)"), backend)
    _, paid_first = _play(_game(tmp_path, "any(x > 4 for x in xs)"), backend)
    assert paid_first == paid_all - 3 * 2  # three items fewer looked at, each paying 2


def test_both_backends_play_a_game_of_quantifiers_alike(tmp_path):
    """Every form, nested and in defines, and what it pays, through both backends in step over
    random games (tests/test_backends.py's comparison)."""
    from test_backends import play_both

    (tmp_path / "game.rules").write_text('''game "More quantifiers"
players 2 to 3
var coins per player: int = 0
var xs: list of int = [3, 6, 4, 2, 5]
var seen: list of bool = []
define rich(p: player) = any(q in players where q.coins > p.coins + 1)
define even = all(x % 2 == 0 for x in xs where x > 2)
flow:
    repeat 4:
        for p in players:
            turn p:
                choose i in range(0, 4) where any(x >= i for x in xs) by p label "slot {i}"
                set xs[i] = xs[i] - 1 if all(y in xs where y > 1) else xs[i] + 2
                set p.coins += 2 if rich(p) or even else 1
                set seen = [any(10 / x > 3 for x in xs), all(x in xs where 6 / x >= 1),
                    any(all(x != y for y in xs where y > i) for x in xs), rich(p),
                    any(q in players where q.coins == 0)]
                log "{p}: {seen}"
score p:
    line: p.coins
''')
    source = "\n".join(interpreter.load(str(tmp_path), cache=False).compiled.generated.source)
    for helper in ("_any_kept", "_all_kept", "_items_until"):  # none left to the reference
        assert f"{helper}(m, (" in source
    assert ", 2, True)" in source and ", 2, False)" in source  # _items_until for any() and all()
    played = [play_both(str(tmp_path), (), 2 + seed % 2, seed) for seed in range(12)]
    assert min(played) == 4 * 2 and sum(played) == 4 * sum(2 + seed % 2 for seed in range(12))


LOOPS_GAME = '''game "Lines"
players 2 to 2
const lines = [[0, 1, 2], [3, 4, 5], [0, 3, 6], [2, 4, 6]]
var board: list of int = [0, 0, 0, 0, 0, 0, 0, 0, 0]
var xs: list of int = [5, 4, 0, 2]
var result: list of bool = []
define mark(p: player) = index_of(players, p) + 1
define has_line(p: player) = any(all(board[i] == mark(p) for i in line) for line in lines)
define some_line(p: player) = any(all(board[i] != 0 for i in line where i > 0) for line in lines where line[0] < 3)
define wide(n: int) = all(any(x + k > n for x in xs) for k in range(0, 3))
define risky(n: int) = any(10 / x > n for x in xs)
define every(n: int) = all(n + x > 0 for x in xs)
define line_of(p: player) = any(all(mark(p) == board[i] for i in line) for line in lines)
define marked(p: player) = any(x != mark(p) for x in board)
define any_any(p: player) = any(any(board[i] == mark(p) for i in line) for line in lines)
define all_all(p: player) = all(all(board[i] != 9 - mark(p) for i in line) for line in lines)
define all_any = all(any(board[i] == 0 for i in line) for line in lines)
define full_board = all(x != 0 for x in board)
define zero_left = any(0 == x for x in xs)
define has_n(n: int) = any(x == n for x in board)
flow:
    for p in players:
        turn p:
            choose i in range(0, 8) where board[i] == 0 by p
            set board[i] = mark(p)
            set board[(i + 4) % 9] = mark(p)
            set result = [has_line(p), some_line(p), wide(i), every(i - 3), line_of(p), marked(p), any_any(p),
                all_all(p), all_any, risky(0 - i), full_board, zero_left, has_n(i)]
            if i == 8:
                set result = [risky(9)]
score p:
    line: 0
'''


@pytest.mark.parametrize("choice", [0, 2, 4, 8])
def test_a_define_that_is_one_any_or_all_pays_and_fails_as_the_reference_at_any_budget(tmp_path, choice):
    """A define whose whole body is any() or all() of a comprehension (nested ones, kept items,
    constant lists, ranges, a var's list) is generated as loops in its function: the same
    results, the same units paid, and, at every budget short of what the action costs, the same
    error, the state unchanged. The last square divides by zero in an item no earlier one decides."""
    (tmp_path / "game.rules").write_text(LOOPS_GAME)
    games = [interpreter.load(str(tmp_path), backend=b, cache=False) for b in BACKENDS]
    source = "\n".join(games[1].compiled.generated.source)
    assert "_items_until(" not in source  # every one of them written as loops
    # mark(p) compared with each item is paid by the items counted (`_counted_held`), on the
    # right and on the left, in loops inside loops and in a loop alone
    assert source.count("is not _MISS else ((_u := _u - 5), ") == 1  # marked(p)
    # ...and in loops over a constant list of lists whose first list has items, made before them
    assert len(re.findall(r"if (_h\d+) is _MISS:\n +_u -= 5\n +\1 = _d\d+(?:_u)?\(m, a0\)", source)) == 3
    # loops of any() or all() over each of a constant list of lists, without a `where`: the lines'
    # lengths paid from a table (`loops_over_lists`): all but some_line
    assert len(re.findall(r"\(_u := _u \+ _k\d+\[_v\d+\] \+ _v\d+ \* \d+\)", source)) == 5
    # ...and, the lines being few and short, written out item by item (`_lines_written_out`),
    # but for all_all, whose item works out a number (a call of check_int when it is large)
    assert source.count("while True:  # (one pass") == 4
    # ...and any() of `x == c`, all() of `x != c` over a var's list by the list's own search
    # (`CodeGen.item_found`): full_board, zero_left (has_n compares with a name: its loop)
    assert source.count(".index(0) + 1") == 2
    full = []
    for game in games:
        state = game.new_game(players=2, seed=1)
        state.apply(state.legal_actions(0)[3], Budget())  # a first mark: some lines half made
        paid = Budget()
        outcome = None
        try:
            state.apply(_square(state, choice), paid)
        except RuleRuntimeError as err:
            outcome = str(err)
        full.append((outcome, paid.used, state.s.vars["result"]))
    assert full[0] == full[1]
    assert (full[0][0] is not None) == (choice == 8)
    for limit in range(full[0][1]):
        outcomes = []
        for game in games:
            state = game.new_game(players=2, seed=1)
            state.apply(state.legal_actions(0)[3], Budget())
            before = state.clone()
            paid = Budget(limit)
            with pytest.raises(RuleRuntimeError) as info:
                state.apply(_square(state, choice), paid)
            assert state.s == before.s
            outcomes.append((str(info.value), paid.used))
        assert outcomes[0] == outcomes[1], limit


def _square(state, i):
    """The second player's action that marks square `i`."""
    return next(a for a in state.legal_actions(1) if a.value == i)


@pytest.mark.parametrize("squares", [[0, 0, 0, 0], [1, 1, 1, 0], [2, 1, 0, 2], [1, 2, 1, 1]])
def test_lines_written_out_fail_and_pay_as_the_reference_at_any_budget(tmp_path, squares):
    """An any() of all() over constant lines written out item by item: a line reaching past the
    board (its last one) fails only when every line before it is looked at and does not decide,
    at the item that reads past the end, and is reported and paid as the reference does, at
    every budget short of the action's cost too (the state unchanged)."""
    (tmp_path / "game.rules").write_text(f'''game "Past the edge"
players 2 to 2
const lines = [[0, 1, 2], [3, 2, 1], [1, 3, 0, 2], [2, 0], [1, 5]]
var board: list of int = {squares}
var won: bool = false
define mark(p: player) = index_of(players, p) + 1
define has_line(p: player) = any(all(board[i] == mark(p) for i in line) for line in lines)
define all_some = all(any(board[i] == 2 for i in line) for line in lines)
flow:
    turn first(players):
        choose i in range(0, 1) by first(players) label "go {{i}}"
        set won = has_line(first(players)) or all_some
score p:
    line: 0
''')
    games = [interpreter.load(str(tmp_path), backend=b, cache=False) for b in BACKENDS]
    assert "\n".join(games[1].compiled.generated.source).count("while True:  # (one pass") == 2

    def outcome(game, limit=None):
        state = game.new_game(players=2, seed=0)
        before = state.clone()
        paid = Budget() if limit is None else Budget(limit)
        try:
            state.apply(state.legal_actions(0)[0], paid)
        except RuleRuntimeError as err:
            assert state.s == before.s
            return str(err), paid.used, None
        return None, paid.used, state.s.vars["won"]

    full = [outcome(game) for game in games]
    assert full[0] == full[1]
    for limit in range(full[0][1]):
        assert outcome(games[0], limit) == outcome(games[1], limit), limit
