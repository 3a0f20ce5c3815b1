"""The fast paths added for speed (issue 14) give what the general code they stand for gives.

Each fast path is checked against the general function it replaces, on values and states
taken from real games, and on the edge cases the fast path must hand back to the general code
(nested values, values too big, none among numbers).
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

import interpreter
from interpreter.engine import codegen
from interpreter.engine.budget import MAX_ITEMS, Budget, charge_value, value_size
from interpreter.engine.compiler import _shown, _shown_all
from interpreter.engine.information import _branch_starts, branch_starts, step_parts
from interpreter.engine.state import Branch, Frame
from interpreter.tools.simulate import next_player
from rulelang.diagnostics import RuleRuntimeError

ROOT = Path(__file__).resolve().parent.parent


def _walk_size(value) -> int:
    """value_size by its general walk alone (a list nested three deep never takes the fast path)."""
    return value_size([[[value]]]) - 3


@pytest.mark.parametrize("value", [
    [], [1, 2, 3], {"a": 1}, [[1, 2], [3]], [[], [1]], {"x": [1, 2], "y": {"z": 1}},
    [[1, [2, 3]], [4]], [[["deep"]]], [{"a": 1, "b": 2}, [1]], ["a", [1, 2, 3], None],
])
def test_value_size_fast_path_counts_as_the_walk(value):
    assert value_size(value) == _walk_size(value)


def test_value_size_refuses_too_big_on_the_fast_path():
    big = [[0] * (MAX_ITEMS // 2 + 1), [0] * (MAX_ITEMS // 2 + 1)]
    with pytest.raises(RuleRuntimeError, match="more than"):
        value_size(big)


@pytest.mark.parametrize("value", [
    [], [1, [2, 3]], [[[1, 2], [3]], []], [[[1], "a", {"k": 2}], {"x": [1, 2]}], {"a": [[1], [2, 3]]},
    [[[]]], [[[[1]]]], [[[1, [2]]]], [[["a"] * 3] * 4] * 2, [{"x": {"y": 1}}, [[None]]],
])
def test_size_counts_three_levels_as_the_walk(value):
    """`_size` (what the generated code pays for a list or map it builds) counts a list of lists
    of lists itself, and hands deeper ones to the walk: the same number either way."""
    assert codegen._size(value) == value_size(value) == _walk_size(value)


def test_size_refuses_too_big_at_three_levels_as_the_walk():
    big = [[[0] * (MAX_ITEMS // 4 + 1)] * 2] * 2
    with pytest.raises(RuleRuntimeError, match="more than") as fast:
        codegen._size(big)
    with pytest.raises(RuleRuntimeError, match="more than") as walked:
        value_size(big)
    assert str(fast.value) == str(walked.value)


class _M:
    """The part of a Machine the generated helpers use: a budget and a memo."""

    def __init__(self):
        self.budget = Budget()
        self.memo = {}

    def charge(self, units, pos=None):
        self.budget.charge(units, pos)


@pytest.mark.parametrize("value", [
    [1, 2], [[1, 2], [3]], {"a": 1}, [[[1]]], [[1, [2]], {"k": [1, 2]}], [],
])
def test_charged_and_paid_pay_what_charge_value_pays(value):
    ref, fast, paid = _M(), _M(), _M()
    charge_value(ref, value)
    assert codegen._charged(fast, value) is value
    codegen._paid(paid, value)
    assert fast.budget.used == ref.budget.used == paid.budget.used
    twice = _M()
    codegen._charged_paid(twice, value)
    assert twice.budget.used == 2 * ref.budget.used


def test_flat_helpers_pay_and_answer_as_the_general_ones():
    for xs in ([3, 1, 2], [], [0, 0], [5]):
        for name in ("count", "sum", "any", "all", "max", "min"):
            general, fast = _M(), _M()
            if name in ("max", "min"):
                want = interpreter.engine.runtime.FUNCTIONS[name](general, codegen._paid_flat(general, xs))
            else:
                want = getattr(codegen, f"_{name}")(general, xs, codegen._paid_flat)
            got = getattr(codegen, f"_{name}_flat")(fast, xs)
            assert got == want and fast.budget.used == general.budget.used, (name, xs)
    general, fast = _M(), _M()
    assert codegen._sum_flat(fast, [1, None, 2]) == codegen._sum(general, [1, None, 2], codegen._paid_flat) == 3
    assert fast.budget.used == general.budget.used


def test_iterating_pays_as_copying_does():
    for v in ([1, 2, 3], {"a": 1, "b": 2}, None, []):
        a, b = _M(), _M()
        assert list(codegen._iter(a, v)) == codegen._items(b, v)
        assert a.budget.used == b.budget.used
        a, b = _M(), _M()
        assert list(codegen._iter_paid_flat(a, v)) == codegen._items_paid_flat(b, v)
        assert a.budget.used == b.budget.used
    for low, high in ((0, 4), (3, 3), (5, 2), (-2, 1)):
        a, b = _M(), _M()
        made = interpreter.engine.runtime.FUNCTIONS["range"](b, low, high)
        assert list(codegen._iter_range(a, low, high)) == codegen._items_paid_flat(b, made)
        assert a.budget.used == b.budget.used


def test_bag_of_the_same_list_is_paid_for_each_time():
    m, fresh = _M(), _M()
    have = ["a", "b", "a"]
    first = codegen._bag(m, have, codegen._paid_flat)
    once = m.budget.used
    assert codegen._bag(m, have, codegen._paid_flat) is first == {"a": 2, "b": 1}
    assert m.budget.used == 2 * once
    assert codegen._bag(fresh, list(have), codegen._paid_flat) == first and fresh.budget.used == once


def test_joining_flat_lists_pays_as_add_values():
    from interpreter.engine.compiler import add_values

    for x, y in (([1], [2, 3]), ([], []), ([1, 2], [])):
        a, b = _M(), _M()
        assert codegen._add_flat(a, x, y) == add_values(b, x, y, None)
        assert a.budget.used == b.budget.used


@pytest.mark.parametrize("times", [1, 2])
def test_joining_lists_just_built_pays_as_paying_for_each_first(times):
    """`_add_built` (both lists of a `+` just built) against the calls it stands for; lists too
    long are refused as before."""
    for x, y in (([1], [2, 3]), ([], []), ([1, 2], []), ([None, "a"], [3])):
        a, b = _M(), _M()
        joined = codegen._add_flat(b, codegen._paid_flat(b, x), codegen._paid_flat(b, y), times)
        assert codegen._add_built(a, x, y, times) == joined
        assert a.budget.used == b.budget.used
    with pytest.raises(RuleRuntimeError):
        codegen._add_built(_M(), list(range(MAX_ITEMS)), [1], times)


def test_min_and_max_of_lists_just_built_pay_as_the_calls_they_stand_for():
    for x, y in (([4], [2, 3]), ([], []), ([1, 2], []), ([], [7])):
        for fused, flat in ((codegen._min_built, codegen._min_flat), (codegen._max_built, codegen._max_flat)):
            a, b = _M(), _M()
            assert fused(a, x, y) == flat(b, codegen._add_built(b, x, y))
            assert a.budget.used == b.budget.used


@pytest.mark.parametrize("name", ["plunderbund", "welcome_to", "streets"])
def test_shown_all_is_shown_for_each_player(name):
    """What a `simultaneously` step keeps of each player (what others saw, where their part
    began) is the same read by the keys known per game as found by a pass over the state."""
    game = interpreter.load(str(ROOT / "games" / name))
    state = game.new_game(players=4, seed=3)
    rng = random.Random(3)
    checked = laid = 0
    while not state.is_over and checked < 60:
        s = state.s
        players = list(range(s.num_players))
        assert _shown_all(s, players) == {p: _shown(s, p) for p in players}
        assert _shown_all(s, players, game.compiled) == {p: _shown(s, p) for p in players}
        first = Frame("flow", 0, {"x": [1, 2]})
        assert branch_starts(s, players, first, game.compiled) == _branch_starts(s, players, first)
        laid += bool(s.cells)
        checked += 1
        player = next_player(state)
        state.apply_index(rng.randrange(state.num_actions(player)), player)
    assert checked > 10
    assert laid > 0 or name != "streets"  # cards on a grid's cells: their cells are kept too


def _parts_the_general_way(s, players, key, base, var, g=None):
    """A `simultaneously` step's parts as the general code makes them (``_shown_all``, then
    ``branch_starts`` with the step's first frame, and a Branch per player); with the game
    `g`, by the keys known per game (``branch_starts`` lists what is known of the cards in the
    order of the player's cards then, rather than the state's)."""
    shown = _shown_all(s, players, g) if g is not None else {p: _shown(s, p) for p in players}
    starts = (branch_starts(s, players, Frame(key, 0, base), g) if g is not None
              else _branch_starts(s, players, Frame(key, 0, base)))
    for p, start in starts.items():
        start.frame.locals[var] = p
    return [Branch(p, [Frame(key, 0, {**base, var: p})], shown=shown[p], start=starts[p])
            for p in sorted(players)]


@pytest.mark.parametrize("name", ["plunderbund", "welcome_to", "streets"])
def test_step_parts_are_the_general_ones(name):
    """The parts of a `simultaneously` step made in one pass (``step_parts``) are those the
    general code makes, keys in the same order (saves keep it), each part's own copies of the
    lists of the frame it began with; players out of seat order give the parts in seat order."""
    game = interpreter.load(str(ROOT / "games" / name))
    state = game.new_game(players=4, seed=5)
    rng = random.Random(5)
    checked = 0
    while not state.is_over and checked < 60:
        s = state.s
        base = {"x": [1, 2], "$items1": [3], "d": {"a": [4]}, "n": 7}
        for players in ([0, 1, 2, 3], [3, 1]):
            made = step_parts(s, players, "flow", base, "p", game.compiled)
            assert made == _parts_the_general_way(s, players, "flow", base, "p")
            general = _parts_the_general_way(s, players, "flow", base, "p", game.compiled)
            assert made == general
            assert [list(part.start.frame.locals) for part in made] == [list(part.start.frame.locals) for part in general]
            assert [list(part.shown["vars"]) for part in made] == [list(part.shown["vars"]) for part in general]
            assert [list(part.start.known) for part in made] == [list(part.start.known) for part in general]
            first = made[0].start.frame.locals
            assert first["x"] is not base["x"] and first["d"]["a"] is not base["d"]["a"]
            assert first["$items1"] is base["$items1"]  # (a loop's own items: never changed in place)
        checked += 1
        player = next_player(state)
        state.apply_index(rng.randrange(state.num_actions(player)), player)
    assert checked > 10
    assert step_parts(state.s, [0, 9], "flow", {}, "p", game.compiled) is None  # not a seat: the general way



LOOPS = '''game "Loops"
players 2 to 3
var board: list of int = [0, 1, 2, 0, 1, 0]
define mark(p: player) = index_of(players, p) + 1
define marked(p: player) = count(x for x in board where x == mark(p))
define offsets(p: player, have: list of int) = [x + mark(p) for x in have where x != mark(p)]
define taken(i: int) = board[i] != 0
define open_for(p: player, i: int) = not taken(i) or (board[i] != mark(p) and marked(p) > 1)
flow:
    repeat 4:
        for p in players:
            turn p:
                choose i in range(0, 5) where open_for(p, i) and count(offsets(p, board)) >= 0 by p label "square {i}"
                set board[i] = mark(p)
                log "{p} takes {i}: {sum(offsets(p, board))}"
'''


def test_remembered_calls_in_loops_pay_as_the_reference(tmp_path):
    """A remembered define called in a loop with the same arguments is called once in the
    generated code, and one whose body pays nothing (`taken`) is not remembered at all but
    written in place of its calls: the games it plays, and the work they pay for, are the
    reference's."""
    from test_backends import play_both

    (tmp_path / "game.rules").write_text(LOOPS)
    source = "\n".join(interpreter.load(str(tmp_path)).compiled.generated.source)
    # a remembered call in a loop, called once (paid for in the body's tally, see CodeGen.paid_call)
    assert "is not _MISS and (_u := _u + 5) else" in source
    assert re.search(r"\((_paid_call\(m\)|\(_u := _u \+ 5\)) and ", source)  # `taken`, written in place of its calls
    for seed in range(6):
        assert play_both(str(tmp_path), (), 2 + seed % 2, seed) > 0


MENUS = '''game "Menus"
players 2
var n: int = 0
flow:
    while n < 6 max 20:
        for p in players:
            choose by p prompt "Which?":
                option "Same"{when}:
                    set n += 1
                option "Same"{when}:
                    set n += 2
                option "Other"{when}:
                    set n -= 1
            may "Go on?" by p:
                set n += 1
'''


def test_menus_of_plain_texts_offer_what_worked_out_menus_offer(tmp_path):
    """A menu whose options and prompt are plain texts makes its actions once (_MenuOp.fixed),
    and `may` with a plain question too; `when true` on every option makes them be worked out
    at every decision instead: the two games offer the same actions (equal labels numbered
    apart), ask the same questions, pay the same and end alike; and each decision is its own."""
    fixed_dir, open_dir = tmp_path / "fixed", tmp_path / "open"
    fixed_dir.mkdir()
    open_dir.mkdir()
    (fixed_dir / "game.rules").write_text(MENUS.replace("{when}", ""))
    (open_dir / "game.rules").write_text(MENUS.replace("{when}", " when true"))
    fixed_game, open_game = interpreter.load(str(fixed_dir)), interpreter.load(str(open_dir))
    menu = next(op for op in fixed_game.compiled.codes["flow"] if hasattr(op, "fixed"))
    assert menu.fixed is not None
    assert next(op for op in open_game.compiled.codes["flow"] if hasattr(op, "fixed")).fixed is None
    for seed in range(8):
        fixed, opened = fixed_game.new_game(players=2, seed=seed), open_game.new_game(players=2, seed=seed)
        rng = random.Random(seed)
        serials = set()
        while not fixed.is_over:
            assert fixed.decision == opened.decision
            player = next_player(fixed)
            assert [(a.value, a.label) for a in fixed.legal_actions(player)] == \
                [(a.value, a.label) for a in opened.legal_actions(player)]
            serials.add(fixed.s.pending.serial)
            i = rng.randrange(fixed.num_actions(player))
            paid_fixed, paid_open = Budget(), Budget()
            fixed.apply(fixed.legal_actions(player)[i], paid_fixed)
            opened.apply(opened.legal_actions(player)[i], paid_open)
            assert paid_fixed.used == paid_open.used
            assert fixed.s == opened.s
        assert len(serials) > 2
    state = fixed_game.new_game(players=2, seed=0)
    assert [a.label for a in state.legal_actions()] == ["Same (1)", "Same (2)", "Other"]
    assert state.decision.prompt == "Which?"
    state.apply_index(2)
    assert [a.label for a in state.legal_actions()] == ["Yes: Go on?", "No"]


PLAYER_SUMS = '''game "Player sums"
players 2 to 3
var chips per player: int = 2
var rounds: int = 0
var spent: int = 0
flow:
    while rounds < 4 max 10:
        simultaneously for p in players:
            choose n in range(1, 3) by p label "take {n}"
            set p.chips {add} n
        for p in players:
            let q = next_player(p)
            choose by p prompt "How many?":
                option "One":
                    set q.chips {add} 1
                    set p.chips {sub} 1
                    set spent {sub} 1
                option "Too many":
                    set p.chips {add} 999999999999999999
        set rounds {add} 1
'''


def test_adding_to_a_player_var_does_what_the_general_set_does(tmp_path):
    """`set p.v += x` (`-=`) with `p` a local, and `set v += x` (`-=`), are one op each
    (add_to_var); `set p.v = p.v + x` is the general set: the same games, budgets and errors (a
    number grown too big), in steps of choosing at once too."""
    special_dir, general_dir = tmp_path / "special", tmp_path / "general"
    special_dir.mkdir()
    general_dir.mkdir()
    (special_dir / "game.rules").write_text(PLAYER_SUMS.replace("{add}", "+=").replace("{sub}", "-="))
    general = PLAYER_SUMS.replace("set p.chips {add} n", "set p.chips = p.chips + n")
    general = general.replace("set q.chips {add} 1", "set q.chips = q.chips + 1")
    general = general.replace("set p.chips {sub} 1", "set p.chips = p.chips - 1")
    general = general.replace("set spent {sub} 1", "set spent = spent - 1")
    general = general.replace("set rounds {add} 1", "set rounds = rounds + 1")
    general = general.replace("set p.chips {add} 999999999999999999", "set p.chips = p.chips + 999999999999999999")
    (general_dir / "game.rules").write_text(general)
    special_game, general_game = interpreter.load(str(special_dir)), interpreter.load(str(general_dir))
    names = {getattr(op, "__name__", "") for code in special_game.compiled.codes.values() for op in code}
    assert {"add_to_pvar", "add_to_var"} <= names
    errors = 0
    for seed in range(10):
        a = special_game.new_game(players=2 + seed % 2, seed=seed)
        b = general_game.new_game(players=2 + seed % 2, seed=seed)
        rng = random.Random(seed)
        while not a.is_over:
            player = next_player(a)
            i = rng.randrange(a.num_actions(player))
            paid_a, paid_b = Budget(), Budget()
            outcome = []
            for state, paid in ((a, paid_a), (b, paid_b)):
                try:
                    state.apply(state.legal_actions(player)[i], paid)
                    outcome.append(None)
                except RuleRuntimeError as err:
                    outcome.append(str(err).split(": ", 1)[1])
            assert outcome[0] == outcome[1]
            assert paid_a.used == paid_b.used
            assert a.s == b.s
            if outcome[0] is not None:
                errors += 1
                assert "grew past" in outcome[0]
                i = 0 if a.decision.prompt == "How many?" else i
                a.apply_index(i, player)
                b.apply_index(i, player)
    assert errors > 0


OWN_GRIDS = """game "Own grids"
players 2 to 3
kind tile:
    weight: int
cards tile (name, weight, copies):
    "T", 1, 9
zone bag: public
zone board per player: public, grid
zone hand per player: owner
var kept per card: int = 0
flow:
    move cards(tile) to bag
    for p in players:
        place first(bag) onto p.board at spot_at(0, 0, south)
        set first(p.board).kept = 2
        move first(bag) to p.hand
    simultaneously for p in players:
        choose t in p.hand by p
        place t onto p.board at spot_at(0, 1, east)
"""


def test_branch_starts_keep_the_cells_and_vars_of_the_players_cards(tmp_path):
    """A `simultaneously` step keeps each player's cards on their own grid, the cards' vars and
    what is known of them; by the keys known per game as by a pass over the state."""
    (tmp_path / "game.rules").write_text(OWN_GRIDS)
    game = interpreter.load(str(tmp_path))
    state = game.new_game(players=3, seed=0)
    s = state.s
    assert s.branches
    starts = {b.player: b.start for b in s.branches}
    assert all(len(start.cells) == 1 and len(start.vars) == 1 and len(start.known) == 2
               for start in starts.values())
    first = Frame(s.branches[0].start.frame.code, 0, {})
    for players in ([0, 1, 2], [2, 0]):
        assert branch_starts(s, players, first, game.compiled) == _branch_starts(s, players, first)


@pytest.mark.parametrize(("names", "low", "distinct", "labels"), [
    ('["a", "b", "c", "d"]', 0, True, ["a", "b", "c"]),
    ('["a", "a", "c", "d"]', 0, False, ["a (1)", "a (2)", "c"]),  # the same text twice: told apart
    ('["a", "b", "c", "d"]', 1, False, ["b", "c", "d"]),  # a low bound worked out, not a number: not known
])
def test_a_choice_skips_telling_labels_apart_only_when_they_always_differ(tmp_path, names, low, distinct, labels):
    """`label "{NAMES[x]}"` of items from `range(A, B)` with NAMES all different texts: the labels
    cannot repeat, so the choice does not look for repeats (`_distinct_labels`); the labels are
    what the general code makes in either case."""
    (tmp_path / "game.rules").write_text(f'''game "Names"
players 2
const names = {names}
flow:
    choose i in range(0{low and f" + {low}"}, {low + 2}) by first(players) label "{{names[i]}}"
score p:
    line: 0
''')
    for backend in ("reference", "codegen"):
        game = interpreter.load(str(tmp_path), backend=backend, cache=False)
        op = game.compiled.codes["flow"][0]
        state = game.new_game(players=2)
        assert [a.label for a in state.legal_actions(0)] == labels
        assert op.distinct is distinct
