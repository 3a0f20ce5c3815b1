"""Helpers the generated code writes in place in a define's body (codegen `CodeGen.call`,
`first_of`, `looked_at`, `gen`): min()/max() of two lists just joined, a range looped over, any()/all()
of items that only read and compare, any()/all() over a short list written out (`some_left`,
`all_right`), and a list's items over a range of its positions (a slice, when the range lies
inside the list: `span(i - 1, ...)` starts outside it for the first square). Each adds what it pays to the body's tally rather than
paying through a helper's call: the same units, the same results, and, at every budget short of
what an action costs, the same error with the state unchanged, as the reference evaluator gives.
"""

from __future__ import annotations

import re

import pytest
from budget_helpers import outcomes_at_budgets

import interpreter
from interpreter.engine.budget import Budget
from rulelang.diagnostics import RuleRuntimeError

BACKENDS = ("reference", "codegen")

GAME = '''game "Rows"
players 2 to 2
var row: list of int = [4, -1, 7, -1, 2, 9, -1, 5]
var wall: list of bool = [false, true, false, false, true, false, false, false]
var result: list of int = []
var truths: list of bool = []
define filled(i: int) = row[i] >= 0
define start_of(i: int) = max([0] + [j + 1 for j in range(0, i - 1) where wall[j]])
define left(i: int) = max([-1] + [row[j] for j in range(start_of(i), i - 1) where filled(j)])
define right(i: int) = min([99] + [row[j] for j in range(i + 1, 7) where filled(j)])
define none_is(n: int, a: int, b: int) = not any(row[j] == n for j in range(a, b))
define all_filled(a: int, b: int) = a <= b and all(filled(j) for j in range(a, b))
define first_ok(a: int) = a >= 0 and any(row[j] >= 0 for j in range(a, 20))
define far(n: int) = count([j for j in range(0, n)])
define span(a: int, b: int) = max([-5] + [row[j] for j in range(a, b)])
define some_left(i: int) = i >= 0 and any(left(k + i) > 3 for k in [1, 3, 5])
define all_right(i: int) = i >= 0 and all(right(k) < 9 - i for k in [0, 2])
flow:
    for p in players:
        turn p:
            choose i in range(0, 7) by p label "square {i}"
            set truths = [none_is(i, 0, 7), none_is(i + 1, 0, 7), all_filled(i, 7), all_filled(0, i),
                some_left(i), all_right(i)]
            set result = [left(i), right(i), -3 - i, span(i - 1, i + 1), span(i, 7)]
            set row[i] = -1 if i == 6 else i
            set truths = truths + [first_ok(i), span(row[1], i) > 3]
            set result = result + [far(i * 30000)]
score p:
    line: 0
'''


def _play(game, choice: int, limit: int | None = None, names: tuple = ("result", "truths", "row")):
    """The first player's action choosing `choice`: (its error, what it paid, the vars `names`)."""
    state = game.new_game(players=2, seed=1)
    before = state.clone()
    paid = Budget(limit) if limit is not None else Budget()
    action = next(a for a in state.legal_actions(0) if a.value == choice)
    try:
        state.apply(action, paid)
    except RuleRuntimeError as err:
        assert state.s == before.s  # a failing action leaves the state as it was
        return str(err), paid.used, None
    return None, paid.used, tuple(state.s.vars[k] for k in names)


@pytest.mark.parametrize("choice", [0, 3, 4, 6])
def test_helpers_written_in_place_pay_and_fail_as_the_reference_at_any_budget(tmp_path, choice):
    (tmp_path / "game.rules").write_text(GAME)
    games = [interpreter.load(str(tmp_path), backend=b, cache=False) for b in BACKENDS]
    source = "\n".join(games[1].compiled.generated.source)
    # (min()/max() of a joined list as statements before the body: `CodeGen.extreme_statements`)
    for written in ("_u += 3 * (1 + len(", "_too_many()", ".index(False)", ".index(True)", ".start:",
                    "((_u := _u + 2) and "):
        assert written in source, written  # the forms under test are the ones generated
    assert "_max_built(" not in source and "_min_built(" not in source
    full = [_play(game, choice) for game in games]
    assert full[0] == full[1]
    # `far(i * 30000)`: a range of more than 100,000 numbers from the fourth square on
    assert (full[0][0] is not None) == (choice >= 4)
    if full[0][0] is None:
        (left, right, negated, _, _, far), truths, _ = full[0][2]
        assert negated == -3 - choice and far == choice * 30000 + 1
        assert truths[6] is True  # decided at the first filled square, before row[8] (outside the row)
    step = max(1, full[0][1] // 150)  # (every budget, but for the longest actions every few)
    for limit in range(0, full[0][1], step):
        assert _play(games[0], choice, limit) == _play(games[1], choice, limit), limit


def test_the_slow_path_is_not_needed_where_no_item_fails(tmp_path):
    """Looking at items past the deciding one (any() of a list of every item's value) may fail
    where the reference never looks (`first_ok`, past the end of the row): the slow path then
    works it out. Where nothing fails, the generated code does it all."""
    (tmp_path / "game.rules").write_text(GAME)
    game = interpreter.load(str(tmp_path), cache=False)
    slow = game.compiled.generated.slow_calls
    before = slow[0]
    assert _play(game, 0)[0] is None
    assert slow[0] == before + 1  # `truths + [first_ok(0)]` only: the list of first_ok reads row[8]
    (tmp_path / "game.rules").write_text(GAME.replace("range(a, 20)", "range(a, 7)"))
    game = interpreter.load(str(tmp_path), cache=False)
    slow = game.compiled.generated.slow_calls
    before = slow[0]
    assert _play(game, 0)[0] is None
    assert slow[0] == before


SPANS = '''game "Spans"
players 2 to 2
var row per player: list of int = [0, 0, 0, 0, 0, 0, 0, 0]
var seen per player: list of bool = []
define free_in(p: player, n: int, a: int, b: int) = (not any(p.row[j] == n for j in range(a, b))
    and count([j for j in range(a, b) where p.row[j] > n]) < 3)
flow:
    repeat 6:
        for p in players:
            turn p:
                choose i in range(0, 7) by p label "square {i}"
                set p.row[i] = p.row[i] + i + 1
                set p.seen = [free_in(p, 2, 0, 3), free_in(p, 5, 4, 7), free_in(p, 3, 2, 7), free_in(p, 1, -1, 2)]
score p:
    line: 0
'''


def test_a_result_kept_by_the_items_it_read_pays_as_the_reference(tmp_path):
    """A define reading a player's list only at positions between two of its arguments keeps its
    results by those items (a slice of the list): a change elsewhere in the list keeps them, one
    inside works them out again; both pay what the reference pays (a range starting before the
    list, `free_in(p, 1, -1, 2)`, is never kept that way: its first position is read from the end)."""
    from test_backends import play_both

    (tmp_path / "game.rules").write_text(SPANS)
    game = interpreter.load(str(tmp_path), cache=False)
    source = "\n".join(game.compiled.generated.source)
    assert "kept[0] == _h0[a2:(a3) + 1]" in source  # checked by the slice of positions a2 to a3
    assert sum(play_both(str(tmp_path), (), 2, seed) for seed in range(8)) == 8 * 6 * 2


WRITTEN = '''game "Weights"
players 2 to 2
enum shade: pale "Pale", light "Light", mid "Mid", dark "Dark", deep "Deep", black "Black"
const shades = [pale, light, mid, dark, deep, black]
const steps = [3, -2, 5, 0, 6, 1]
var have per player: list of shade = []
var row: list of int = [4, -1, 7, -1, 2, 9, -1, 5]
var result: list of int = []
define owned(p: player, s: shade) = count([x for x in p.have where x == s])
define weight(p: player, k: int) = 100 / (k + row[k + 1]) if k >= 0 else -k
define shade_total(p: player) = sum(owned(p, s) * (2 if s == mid else 1) for s in shades)
define weighted(p: player) = sum(weight(p, k) + owned(p, pale) for k in steps)
define listed(p: player) = max([owned(p, s) - count(p.have) for s in shades])
flow:
    repeat 3:
        for p in players:
            turn p:
                choose s in shades by p label "{s}"
                set p.have = p.have + [s]
                choose i in range(0, 7) by p label "square {i}"
                set row[i] = row[i] + 1
                set result = [shade_total(p), listed(p), weighted(p)]
score p:
    line: 0
'''


def test_a_comprehension_over_a_constant_list_written_out_pays_and_fails_as_the_reference(tmp_path):
    """`[elem for x in LIST]` over a constant list of 5 to 8 items in a define's body is written
    out item by item from the item's source made once (codegen `written_out`): no comprehension
    is made or called, and it pays, and fails (`weight` divides by zero when a square reaches
    minus the square before), as the reference does, at every budget short of an action's cost."""
    from test_backends import play_both

    (tmp_path / "game.rules").write_text(WRITTEN)
    games = [interpreter.load(str(tmp_path), backend=b, cache=False) for b in BACKENDS]
    source = "\n".join(games[1].compiled.generated.source)
    assert not re.search(r"for _v\d+ in _k\d+\]", source)  # every loop over `shades`, `steps` written out
    assert sum(play_both(str(tmp_path), (), 2, seed) for seed in range(12)) > 12
    states = [game.new_game(players=2, seed=1) for game in games]
    for state in states:
        for value in ("dark", 2, "mid"):
            player = state.decision.players[0]
            state.apply(next(a for a in state.legal_actions(player) if a.value == value))
    costs = set()
    for value in (0, 1, 4, 5):
        outcomes = [outcomes_at_budgets(state, value, (None, *range(0, 2000, 7)), "result") for state in states]
        assert outcomes[0] == outcomes[1], value
        costs.add(outcomes[0][0][:2])
    assert {error is None for error, _ in costs} == {True, False}  # square 1 divides by zero


EMPTY_BAG = '''game "Saved"
players 2 to 2
enum hue: grey, red, green, blue, white
const hues = [grey, red, green, blue, white]
var saved per player: list of hue = []
var total per player: int = 0
define needs(p: player, t: int, e: hue) = t - bag(p.saved)[e]
define owed(p: player, t: int) = sum(max(0, needs(p, t, e)) for e in hues)
flow:
    repeat 4:
        for p in players:
            turn p:
                choose h in [grey, red, blue] by p label "{h}"
                set p.total = p.total + owed(p, 1) + owed(p, 2)
                set p.saved = [] if h == grey else p.saved + [h, h]
'''


def test_the_counts_of_an_empty_list_are_made_without_a_call(tmp_path):
    """`bag(xs)` of a list read into a name (a player's var read once for a define's body) is
    an empty bag at once when the list is empty, `_bag_flat` called only for a list with items:
    the same counts, and the same units paid (none for an empty list), as the reference."""
    from test_backends import play_both

    (tmp_path / "game.rules").write_text(EMPTY_BAG)
    source = "\n".join(interpreter.load(str(tmp_path), cache=False).compiled.generated.source)
    assert re.search(r"\(\{\} if (_h\d+) == \[\] else _bag_flat\(m, \1\)\)", source)
    assert sum(play_both(str(tmp_path), (), 2, seed) for seed in range(10)) == 10 * 4 * 2


FLAGS = '''game "Flags"
players 2 to 2
var wall per player: list of bool = [false, true, false, false, true, false, false, false]
var seen per player: list of bool = []
var ends per player: list of int = []
define walled(p: player, a: int, b: int) = a <= b + 1 and any(p.wall[j] for j in range(a, b))
define all_walls(p: player, a: int, b: int) = a <= b + 1 and all(p.wall[j] for j in range(a, b))
define starts(p: player, a: int, b: int) = max([a] + [j + 1 for j in range(a, b) where p.wall[j]])
define times(p: player, v: int) = count(x in p.ends where x == v)
flow:
    repeat 4:
        for p in players:
            turn p:
                choose i in range(0, 6) by p label "square {i}"
                set p.wall[i] = not p.wall[i]
                set p.seen = [walled(p, 0, i), walled(p, i, 7), all_walls(p, i, i + 1), all_walls(p, 0, 7),
                    walled(p, 2, 3), all_walls(p, 1, 1)]
                set p.ends = [starts(p, 0, i), starts(p, i, 7), starts(p, 2, 3)]
                set p.seen = p.seen + [times(p, i) > 0, times(p, 0) == 2, walled(p, i - 1, i), starts(p, i, i + 7) > 0]
score p:
    line: 0
'''


@pytest.mark.parametrize("choice", [0, 1, 4, 6])
def test_truths_of_a_list_of_truths_over_a_range_pay_and_fail_as_the_reference(tmp_path, choice):
    """any()/all() of a list of truths' items over a range of its positions, and a comprehension
    kept where such a list is true, look at a slice of the list (`True in xs[a:b]`) rather than
    at each item, and `count(x in xs where x == v)` is the list's own count(): the same results and units, and at every budget short of what an action costs
    the same error with the state unchanged. A range starting before the list (`walled(p, i - 1,
    i)` at square 0: its first position is read from the end) or ending past it (`starts(p, i,
    i + 7)` from square 1 on, an error) is looked at item by item, as the reference does."""
    from test_backends import play_both

    (tmp_path / "game.rules").write_text(FLAGS)
    games = [interpreter.load(str(tmp_path), backend=b, cache=False) for b in BACKENDS]
    source = "\n".join(games[1].compiled.generated.source)
    assert ".index(True) + 1 if True in" in source and ".index(False) + 1 if False in" in source
    assert "True not in " in source and "_count_equal(m, " in source  # the forms under test are the ones generated

    def play(game, limit=None):
        return _play(game, choice, limit, ("seen#0", "ends#0"))

    full = [play(game) for game in games]
    assert full[0] == full[1]
    assert (full[0][0] is None) == (choice == 0)  # past the list's end from square 1 on
    for limit in range(0, full[0][1]):
        assert play(games[0], limit) == play(games[1], limit), limit
    # (and whole games, with neither of the failing reads)
    source_ok = FLAGS.replace("walled(p, i - 1, i), starts(p, i, i + 7) > 0", "walled(p, i, i + 1)")
    (tmp_path / "game.rules").write_text(source_ok)
    assert sum(play_both(str(tmp_path), (), 2, seed) for seed in range(6)) == 6 * 4 * 2


KITS = '''game "Kits"
players 2 to 2
enum hue: grey, red, green, blue, white
const hues = [grey, red, green, blue, white]
var first per player: list of hue = [red, blue]
var second per player: list of hue = []
var total per player: int = 0
define kits(p: player) = [p.first, p.second, [red, red, green]]
define extra(p: player, h: hue) = [[h, white]] if h != grey else []
define kits_of(p: player, h: hue) = flatten([kits(p), extra(p, h)])
define holding(p: player, e: hue) = count(s for s in [p.first, [], p.second] where e in s)
define holding_with(p: player, h: hue, e: hue) = count(s for s in kits_of(p, h) where e in s)
define held(p: player, h: hue) = sum(holding(p, e) + 2 * holding_with(p, h, e) for e in hues)
flow:
    repeat 3:
        for p in players:
            turn p:
                choose h in hues by p label "{h}"
                set p.total = p.total + held(p, h)
                set p.second = p.first
                set p.first = p.first + [h] if h != white else []
score p:
    line: p.total
'''


def _plays_and_pays_as_the_reference(tmp_path, games: list, budget_step: int) -> None:
    """Whole games of the two-player game in `tmp_path` the same on both backends, and each of
    three values chosen first the same at every budget short of an action's cost (units paid, or
    the error with the state unchanged): it fits in a whole budget, and fails one short of it."""
    from test_backends import play_both

    assert sum(play_both(str(tmp_path), (), 2, seed) for seed in range(12)) == 12 * 6
    for value in ("grey", "red", "white"):
        outcomes = []
        for game in games:
            state = game.new_game(players=2, seed=3)
            outcomes.append(outcomes_at_budgets(state, value, (None, *range(0, 400, budget_step)), "total#0", player=0))
        assert outcomes[0] == outcomes[1], value
        assert outcomes[0][0][0] is None and outcomes[0][1][0] is not None  # it fits, and fails short of it


def test_a_count_of_the_lists_holding_an_item_pays_and_fails_as_the_reference(tmp_path):
    """`count(s for s in xs where x in s)` of a list of lists in a define's body is one call of
    `_count_in_lists` (no comprehension, no call per list): the same count, and, at every budget
    short of an action's cost, the same units paid or the same error with the state unchanged,
    as the reference; empty lists among them, an empty list of lists, lists from a define (the
    list of lists flatten() gives, made and paid for in one call, `_flatten_lists`)."""
    (tmp_path / "game.rules").write_text(KITS)
    games = [interpreter.load(str(tmp_path), backend=b, cache=False) for b in BACKENDS]
    source = "\n".join(games[1].compiled.generated.source)
    assert source.count("_count_in_lists(m, ") >= 2  # both counts take the form under test
    assert "_flatten_lists(m, " in source  # flatten()'s list of lists, paid for in one call
    _plays_and_pays_as_the_reference(tmp_path, games, budget_step=3)


BAGS = '''game "Bags"
players 2 to 2
enum hue: grey, red, green, blue, white
const hues = [grey, red, green, blue, white]
var first per player: list of hue = [red, blue]
var second per player: list of hue = []
var total per player: int = 0
define counted(p: player) = [bag(p.first), bag(p.second)]
define more(p: player, h: hue) = [bag([h, h, white])] if h != grey else []
define bags_of(p: player, h: hue) = flatten([counted(p), more(p, h), [bag(p.first + p.second)]])
define pairs(p: player) = [[x, x] for x in p.second]
define built_bags(p: player, h: hue) = flatten([[bag([x, h]) for x in p.second], [bag(p.second)] if h == white else []])
define held(p: player, h: hue) = sum(
    count([x for x in p.first where x == e]) + count(c for c in bags_of(p, h) where c[e] > 0)
    + (2 if e == red else 0) - (1 if e != white and e != h else 0) + count(s for s in pairs(p) where e in s)
    + count(c for c in built_bags(p, h) where c[e] > 1) for e in hues)
flow:
    repeat 3:
        for p in players:
            turn p:
                choose h in hues by p label "{h}"
                set p.total = p.total + held(p, h)
                set p.second = p.first
                set p.first = p.first + [h, h] if h != white else []
score p:
    line: p.total
'''


def test_a_flattened_list_of_bags_and_a_sum_of_items_holding_lists_pay_and_fail_as_the_reference(tmp_path):
    """flatten() of a list of lists of bags just built is one call of `_flatten_lists` (paid
    for in one payment, empty parts among them; with the parts' own payments when each is a list
    just built, `built_bags`, whose parts are all empty before a second turn unless white is
    chosen), and sum() of a list written out whose items hold a comprehension is Python's sum() with its units in the body's tally (`tallied_sum`,
    the list's length recorded where it is written out): the same results and, at every budget
    short of an action's cost, the same units or the same error with the state unchanged, as the
    reference. An item compared with a constant is decided where it is written out (`folded_test`).
    A count of the lists holding an item is 0 without a call when there are no lists (`pairs`
    before a second turn), and a comprehension over a define's list is not made when the list
    has no items."""
    (tmp_path / "game.rules").write_text(BAGS)
    games = [interpreter.load(str(tmp_path), backend=b, cache=False) for b in BACKENDS]
    source = "\n".join(games[1].compiled.generated.source)
    assert "_flatten_lists(m, " in source and "_sum_flat(" not in source  # the forms under test
    assert re.search(r"_flatten_lists\(m, \[\[.* else \[\]\)\], 1\)", source) is not None
    assert "if True else" in source and "if (False and " in source  # (`e == red`, `e != white and e != h`)
    assert re.search(r"\(_k\d+ [!=]= _k\d+\)", source) is None
    assert re.search(r"\(_count_in_lists\(m, (_v\d+), _k\d+, 2\) if \(\1 := ", source) is not None
    # (a comprehension over a define's list, `built_bags`, made only when the list has items)
    assert re.search(r"\(\[_v\d+ for _v\d+ in (_v\d+) if [^\]]*\] if \1 else \[\]\)", source) is not None
    _plays_and_pays_as_the_reference(tmp_path, games, budget_step=2)


BIG_SUM = '''game "Sums"
players 2 to 2
const steps = [3, -2, 5, 0, 6, 1]
var scale per player: int = 1
var total per player: int = 0
define part(p: player, k: int) = p.scale * k * k
define parts(p: player) = sum(part(p, k) for k in steps) - p.scale * 40
flow:
    repeat 3:
        for p in players:
            turn p:
                choose n in [1, 1000, 20000000000000000] by p label "{n}"
                set p.scale = n
                set p.total = parts(p)
score p:
    line: 0
'''


def test_a_sum_of_a_list_written_out_pays_in_the_tally_and_fails_out_of_bounds_as_the_reference(tmp_path):
    """sum() of a list written out in a define's body is Python's sum() of it, its 2 units an
    item added to the body's tally and checked with the list's own cost (`tallied_sum`): the
    same total and units as the reference at every budget short of an action's cost, and, when
    the total passes 10^18 though each item does not (and the difference would come back under
    it), the same error with the state unchanged."""
    (tmp_path / "game.rules").write_text(BIG_SUM)
    games = [interpreter.load(str(tmp_path), backend=b, cache=False) for b in BACKENDS]
    assert ":= sum([" in "\n".join(games[1].compiled.generated.source)  # the form under test
    for value in (1, 1000, 20000000000000000):
        outcomes = []
        for game in games:
            state = game.new_game(players=2, seed=3)
            outcomes.append(outcomes_at_budgets(state, value, (None, *range(0, 120)), "total#0", player=0))
        assert outcomes[0] == outcomes[1], value
        assert (outcomes[0][0][0] is None) == (value != 20000000000000000)  # 1.5 * 10^18 in all, 0.7 * 10^18 less 40 n
