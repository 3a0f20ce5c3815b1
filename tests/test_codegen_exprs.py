"""The generated defines' own shortcuts (issue 14): what they pay and what they refuse is the reference's.

A define's body tallies some of what it pays (calls of defines whose results it knows, `bag()` of
a parameter counted again) and pays the tally when it ends; a player's var or zone is read through
a table of every seat's key; a few constants are folded. Each test plays or fails a game through
both backends and compares what they do, what they pay and where they fail.
"""

from __future__ import annotations

import re

import pytest
from budget_helpers import outcomes_at_budgets

import interpreter
from interpreter.tools.simulate import next_player
from rulelang.diagnostics import RuleRuntimeError

TALLIES = '''game "Tallies"
players 2 to 3
enum hue: grey, red, green, blue
var score per player: int = 0
var board: list of hue = [grey, red, green, grey, red, grey, green, green]
define mark(p: player) = [red, green, blue][index_of(players, p)]
define marked(p: player) = count(x for x in board where x == mark(p))
define short(p: player, have: list of hue, e: hue) = max(0,
    2 - bag(have)[e] + (2 * 0 - (1 if bag(have)[green] >= 2 else 0) if e == green else 0)
    - (0 if e == red else 0))
define gap(p: player, have: list of hue) = sum(short(p, have, e) for e in [grey, red, green, blue]) - bag(have)[red]
define lead(p: player) = p.score - min(q.score for q in players)
define spread(p: player) = short(p, [x for x in board where x != grey], red) + short(p, board, blue)
const warm = [red, green]
const none_yet = [x for x in [grey] where x == red]
define warmth(p: player, e: hue) = (count(x for x in warm where x == e or e in warm) + sum(i for i in range(0, 3))
    + (1 if e in none_yet else 0) + count(i for i in range(3, 1)) + count(x for x in warm where x == mark(p)))
flow:
    repeat 4:
        for p in players:
            turn p:
                choose i in range(0, 7) where gap(p, board) + marked(p) >= i - 6 by p label "square {i}"
                set board[i] = mark(p)
                set p.score += gap(p, board) + lead(p) + warmth(p, board[i]) + spread(p)
                log "{p} takes {i}: {gap(p, board)} {lead(p)}"
'''


def test_tallied_bodies_play_as_the_reference(tmp_path):
    """Known calls and `bag()` of a parameter tallied in the body, seat keys, folded constants,
    what iterating or searching a constant list or a range of two numbers pays, worked out here:
    the games, their logs and the work paid at every action are the reference's (and nothing
    takes the slow path)."""
    from test_backends import play_both

    (tmp_path / "game.rules").write_text(TALLIES)
    source = "\n".join(interpreter.load(str(tmp_path), cache=False).compiled.generated.source)
    # bag(have) counted once, and what it pays (the list's length and its counts') paid at each use
    assert re.search(r"\((_h\d+)p := len\(a1\) \+ len\(\1\)\)", source)
    assert re.search(r"\((_h\d+) if \1p and \(_u := _u \+ \1p\)", source)
    assert "_mul(2, 0)" not in source
    assert ")[-1]" in source  # `short` written in place, its list worked out first into a name
    assert "[0, 1, 2, 3]" in source and "in range(3, 2)" in source  # ranges (to and with 3): paid for here
    assert re.search(r"\(_u := _u \+ 2\) and \w+ in _k\d+", source)  # `in` a constant list of 2
    assert "_iter(m, range(m.s.num_players))" in source  # the seats iterated as a range (`min(... players)`)
    for seed in range(8):
        assert play_both(str(tmp_path), (), 2 + seed % 2, seed) > 0


def _failure(path, backend: str, budget: int | None = None) -> str:
    game = interpreter.load(str(path), backend=backend, cache=False)
    with pytest.raises(RuleRuntimeError) as info:
        state = game.new_game(players=2, seed=0)
        while not state.is_over:
            state.apply(state.legal_actions(next_player(state))[0])
    return str(info.value)


def test_running_out_inside_a_tallied_body_fails_where_the_reference_does(tmp_path):
    """A body that pays its tally only when it ends still runs out of budget at the rule the
    reference runs out at (the slow path re-runs the reference for the message)."""
    (tmp_path / "game.rules").write_text(
        'game "Spent"\nplayers 2 to 2\nvar score per player: int = 0\n'
        "define one(p: player) = count(x for x in [1, 2, 3] where x > 1)\n"
        "define many(p: player, n: int) = sum(one(p) for i in range(1, n))\n"
        "flow:\n    for p in players:\n        turn p:\n"
        "            set p.score += many(p, 5)\n"
        "            set p.score += many(p, 90000) + many(p, 90001) + many(p, 90002)\n"
        "            choose c in [1, 2] by p\n")
    ref = _failure(tmp_path, "reference")
    gen = _failure(tmp_path, "codegen")
    assert gen == ref
    assert "game.rules:5:" in gen and "steps" in gen, gen  # inside `many`, at its call of `one`


def test_a_player_who_is_none_fails_as_in_the_reference(tmp_path):
    """A player's var read through the seats' table, for a player that is none: the reference's
    error, at its position; while the same read in a branch not taken is no failure."""
    (tmp_path / "game.rules").write_text(
        'game "Nobody"\nplayers 2 to 2\nvar score per player: int = 0\nvar target: player = none\n'
        "define worth(p: player, q: player) = sum((q.score if q != none else 0) + x for x in [1, 2])\n"
        "define bad(p: player, q: player) = sum(q.score + x for x in [1, 2])\n"
        "flow:\n    for p in players:\n        turn p:\n"
        "            set p.score += worth(p, target)\n"
        "            set p.score += bad(p, target)\n"
        "            choose c in [1, 2] by p\n")
    ref = _failure(tmp_path, "reference")
    gen = _failure(tmp_path, "codegen")
    assert gen == ref
    assert "game.rules:11:" in gen, gen  # at `bad`: `worth` went through


def _bounds_game(big: int) -> str:
    return ('game "Bounds"\nplayers 2 to 2\nvar score per player: int = 0\nenum hue: red, blue\n'
            "kind gem:\n    value: int\n    needs: bag of hue\n"
            f'cards gem (name, value, needs):\n    "Small", 3, {{red: 2}}\n    "Big", {big}, {{blue: 1}}\n'
            "zone pile: public\n"
            "define worth(c: card, have: list of hue) = c.value + c.value - bag(have)[red] + c.needs[blue]\n"
            "setup:\n    move cards(gem) to pile\nflow:\n    for p in players:\n        turn p:\n"
            "            choose c in pile where worth(c, [red, blue]) > 0 by p\n"
            "            set p.score += worth(c, [red])\n")


def test_sums_of_small_numbers_go_unchecked_and_large_ones_fail_as_in_the_reference(tmp_path):
    """Numbers the cards and counts keep small are added without the check for numbers past
    MAX_INT; a card number that could pass it keeps the check, and fails where the reference does."""
    from test_backends import play_both

    (tmp_path / "game.rules").write_text(_bounds_game(40))
    source = "\n".join(interpreter.load(str(tmp_path), cache=False).compiled.generated.source)
    assert "1000000000000000000 <=" not in source  # every sum here is of small numbers
    for seed in range(4):
        assert play_both(str(tmp_path), (), 2, seed) > 0
    (tmp_path / "game.rules").write_text(_bounds_game(600_000_000_000_000_000))
    source = "\n".join(interpreter.load(str(tmp_path), cache=False).compiled.generated.source)
    assert "1000000000000000000 <=" in source
    ref = _failure(tmp_path, "reference")
    assert _failure(tmp_path, "codegen") == ref
    assert "grew past" in ref, ref


def test_a_read_hoisted_for_no_player_leaves_the_work_to_the_reference(tmp_path):
    """A player's var read in a define's loop is looked up once before the loop; for a player
    that is none the generated body is not worked out (the reference works it out: here the
    read is never made, so there is no error), and the game goes on as in the reference."""
    (tmp_path / "game.rules").write_text(
        'game "Guarded"\nplayers 2 to 2\nvar score per player: int = 0\nvar target: player = none\n'
        "define worth(p: player, q: player) = sum((q.score if q != none else 2) + x for x in [1, 2])\n"
        "flow:\n    repeat 2:\n        for p in players:\n            turn p:\n"
        "                set p.score += worth(p, target)\n"
        '                log "{p} has {p.score}"\n'
        "                set target = p\n"
        "                choose c in [1, 2] by p\n")
    logs = []
    for backend in ("reference", "codegen"):
        game = interpreter.load(str(tmp_path), backend=backend, cache=False)
        state = game.new_game(players=2, seed=0)
        while not state.is_over:
            state.apply(state.legal_actions(next_player(state))[0])
        logs.append(([e.text for e in state.log], state.scores()))
    assert logs[0] == logs[1]
    assert "Player 1 has 7" in logs[1][0]  # (2 + 1) + (2 + 2): no player yet


@pytest.mark.parametrize("body", [
    # loops over ranges of two numbers, paid for in the tally, nested (the inner list unpaid for)
    "sum(ignore(p, x in range(1, 99999) where x > 0) for y in range(1, 99999))",
    # a long constant list searched in a loop
    "count(y for y in range(1, 99999) where y in long)",
])
def test_tallied_loops_stop_when_the_budget_runs_out(tmp_path, body):
    """Work a define's body pays for in its tally still stops when the budget runs out (each
    loop checks it, the tally counted, before it starts): hostile rules fail as in the
    reference, at its rule, instead of running for hours."""
    (tmp_path / "game.rules").write_text(
        'game "Spin"\nplayers 2 to 2\nvar score per player: int = 0\n'
        "const long = [i for i in range(1, 90000)]\n"
        "define ignore(p: player, xs: list of int) = 1\n"
        f"define spin(p: player) = {body}\n"
        "flow:\n    for p in players:\n        turn p:\n"
        "            set p.score += spin(p)\n"
        "            choose c in [1, 2] by p\n")
    ref = _failure(tmp_path, "reference")
    assert _failure(tmp_path, "codegen") == ref
    assert "game.rules:6:" in ref and "steps" in ref, ref


UNREPEATED = '''game "Unrepeated"
players 2 to 3
enum hue: grey, red, green, blue
const warm = [red, green, red]
var score per player: int = 0
var board: list of hue = [grey, red, green, grey, red, grey, green, green]
define seen(p: player, e: hue) = count(x for x in board where x == e) + p.score
define seen_all(p: player) = sum(seen(p, e) for e in hue)
define warm_seen(p: player, e: hue) = count(x for x in board where x == e)
define warm_all(p: player) = sum(warm_seen(p, e) for e in warm)
define board_seen(p: player, e: hue) = count(x for x in board where x != e)
define board_all(p: player) = sum(board_seen(p, e) for e in board)
define hue_seen(e: hue) = count(x for x in board where x == e)
define hue_all(p: player) = sum(hue_seen(e) for e in hue) + p.score
define alone(p: player) = count(x for x in board where x == red)
const hues = [grey, red, green, blue]
define counted(p: player, e: hue) = count(x for x in board where x == e) + p.score
define weight(p: player) = sum((2 if e == red else 1) * count(x for x in board where x == e) + counted(p, red)
    + (5 if e != blue else 0) for e in hues) + sum(i * counted(p, grey) for i in range(1, 3))
define both(p: player) = seen_all(p) + warm_all(p) + board_all(p) + hue_all(p)
flow:
    repeat 3:
        for p in players:
            turn p:
                choose i in range(0, 7) where both(p) + both(players[0]) + alone(p) >= i by p label "square {i}"
                set board[i] = [red, green, blue][index_of(players, p)]
                set p.score += both(p) + seen_all(p) + alone(p) + weight(p)
'''


def test_defines_no_op_calls_twice_go_without_the_memo(tmp_path):
    """A define called in one place, in the body of a remembered define with each of its
    arguments, in loops over constant lists of distinct items with each item an argument, is
    generated without the memo (it would never hit); one called where its arguments may repeat
    in an op (a list with a repeated item, a variable list, a caller's argument left out) keeps
    it. Games through both backends: the same play, the same work paid at every action."""
    from test_backends import play_both

    (tmp_path / "game.rules").write_text(UNREPEATED)
    generated = interpreter.load(str(tmp_path), cache=False).compiled.generated
    state = interpreter.load(str(tmp_path), cache=False).new_game(players=2, seed=0)
    assert state.num_actions() > 0
    assert generated.source  # every body generated (a cold load generates each at its first call)
    found = generated.known_unrepeated
    assert found.get("seen") is True
    assert found.get("warm_seen") is False  # `warm` names red twice
    assert found.get("board_seen") is False  # a var's list
    assert found.get("hue_seen") is False  # p is not an argument: the same call for every player
    assert not found.get("alone")  # called from a choice's condition, not a define
    for seed in range(6):
        assert play_both(str(tmp_path), (), 2 + seed % 2, seed) > 0


def test_short_constant_loops_in_defines_are_written_out(tmp_path):
    """A comprehension over a constant list or a range of two numbers, in a define: its items
    written out, each item's `e == red` folded, `counted(p, red)` called once; the games through
    both backends play and pay the same."""
    from test_backends import play_both

    (tmp_path / "game.rules").write_text(UNREPEATED)
    generated = interpreter.load(str(tmp_path), cache=False).compiled.generated
    source = "\n".join(generated.source)
    weight = source[source.index(f"def {generated.define_names['weight']}("):]
    weight = weight[:weight.index("\ndef ")]
    assert weight.count(" for ") == 4  # only the count over the board's squares, once per item
    assert re.search(r"_k\d+ [!=]= _k\d+", weight) is None  # (two constants compared)
    kept = set(re.findall(r"\((_h\d+) := _d\d+(?:_u)?\(m, a0, ", weight))
    assert len(kept) == 2  # counted(p, red) and counted(p, grey), each called once and kept
    for seed in range(6):
        assert play_both(str(tmp_path), (), 2 + seed % 2, seed) > 0


KEPT = '''game "Kept"
players 2 to 3
kind gem:
    value: int
cards gem (name, value):
    "Ruby", 3
    "Opal", 1
    "Jade", 2
    "Onyx", 5
var xs per player: list of int = [1, 2, 3]
var bonus: int = 0
var score per player: int = 0
var long: list of int = [i for i in range(1, 300)]
var target: player = none
zone pile: public
zone heap: public
define worth(p: player) = sum(x * 2 for x in p.xs) + bonus
define over(p: player, n: int) = count(x for x in p.xs where x > n)
define on_pile(p: player) = sum(c.value for c in pile) + count(x for x in p.xs where x > 0)
define pile_list(p: player) = [c for c in pile where c.value > p.score - 100]
define both(p: player) = worth(p) + over(p, 1)
define doubled(p: player) = sum(worth(p) * k for k in [1, 2])
define long_sum(p: player) = sum(x for x in long where x > p.score)
define guarded(p: player, q: player) = q != none and count(x for x in q.xs where x > p.score) > 0
setup:
    move cards(gem) to heap
flow:
    repeat 4:
        for p in players:
            turn p:
                choose i in range(0, 2) where over(p, i) >= 0 by p label "slot {i}: {worth(p)}"
                set p.xs[i] += i + 1
                log "{p}: {worth(p)} {over(p, 2)} {both(p)} {doubled(p)} {on_pile(p)} {count(pile_list(p))} {long_sum(p)} {guarded(p, target)}"
                if worth(p) > 16:
                    set bonus += 1
                if count(heap) > 0 and i == 1:
                    draw 1 from heap to pile
                set p.score += worth(p) + on_pile(p)
                set target = p
'''


def test_kept_results_follow_the_state(tmp_path):
    """A define that loops and reads only its players' vars and the game's vars (and zones, for a
    plain value) keeps its results from one op to the next, and from one game to the next,
    checked against the values it read (a zone's cards): each game, its logs and the work paid
    at every action are the reference's, as the vars change and cards move; so does one giving a
    list it makes of a zone's cards (a new list, never the zone's own, which changes as cards
    move). One that calls another define or has no loop works its results out in every op. What
    a game keeps stays small: a result read from a long list is not kept. A player's var
    read only when the player is not none is read as the body reads it: for none, no error (no
    slow path, which `play_both` checks)."""
    from test_backends import _pair, play_both

    (tmp_path / "game.rules").write_text(KEPT)
    gen = interpreter.load(str(tmp_path), cache=False).compiled.generated
    source = "\n".join(gen.source)

    def kept(name: str) -> bool:
        body = source.split(f"def {gen.define_names[name]}(m")[1].split("\ndef ")[0]
        return "_KEPT.get(key)" in body

    assert kept("worth") and kept("over") and kept("on_pile") and kept("long_sum") and kept("guarded")
    assert kept("pile_list") and not kept("both") and not kept("doubled")
    for seed in range(6):
        assert play_both(str(tmp_path), (), 2 + seed % 2, seed) > 0
    entries = _pair(str(tmp_path), ())[1].compiled.generated.ns["_KEPT"]
    assert {key[0] for key in entries} >= {"worth", "over", "on_pile", "pile_list"}  # (kept, and used again above)
    assert "long_sum" not in {key[0] for key in entries}  # read 299 numbers: not kept


IN_PLACE = '''game "In place"
players 2 to 3
enum hue: grey, red, green, blue, white
const hues = [grey, red, green, blue, white]
var score per player: int = 0
var board: list of hue = [grey, red, green, grey, red, grey, green, green, white]
var saved per player: list of hue = []
define owned(p: player) = [x for x in board where x != grey]
define needs(p: player, e: hue) = count(x for x in board where x == e) - bag(p.saved)[e]
define short(p: player, have: list of hue, e: hue) = max(0, needs(p, e) - bag(have)[e])
define shortfall(p: player, e: hue) = short(p, owned(p), e)
define lacking(p: player, e: hue) = shortfall(p, e) > 0
define gap(p: player, n: int) = (sum(short(p, owned(p), e) for e in hues)
    + sum(shortfall(p, e) + count(y for y in owned(p) where y == e) for e in hues)
    + count(e for e in hues where lacking(p, e)) + n)
define many(p: player, n: int) = sum(gap(p, i) for i in range(1, n))
flow:
    repeat 3:
        for p in players:
            turn p:
                choose i in range(0, 8) where gap(p, i) >= i by p label "square {i}: {gap(p, i)}"
                set board[i] = [red, green, blue][index_of(players, p)]
                set p.saved = [x for x in board where x == red]
                set p.score += gap(p, 0) + many(p, 3)
'''


def test_remembered_calls_in_loops_are_written_in_place(tmp_path):
    """A call, in a loop of a define's body, of a define that only remembers its results in the
    define memo is written in place (the memo looked up by the same key, the body worked out there
    on a miss), a call remembered in a name is given as that name (its counts made once), and a
    comprehension over a call's result works the call out first: the games, their logs and the
    work paid at every action are the reference's."""
    from test_backends import play_both

    (tmp_path / "game.rules").write_text(IN_PLACE)
    generated = interpreter.load(str(tmp_path), cache=False).compiled.generated
    source = "\n".join(generated.source)
    gap = source[source.index(f"def {generated.define_names['gap']}("):]
    gap = gap[:gap.index("\ndef ")]
    assert gap.count("m.memo.setdefault(") >= 2  # `shortfall` and `lacking` in place
    assert re.search(r"\(_v\d+ := _iter\(m, \(_h\d+ if", gap)  # owned(p) worked out before its loop
    # bag(owned(p)) counted once (and bag(p.saved)), each use of it given the counts made
    # (a loop over a constant list written out writes the same held counts again for each item)
    assert len(set(re.findall(r"_bag_flat\(m, _h\d+\)", gap))) <= 2
    assert gap.count("_bag_flat(m, _h") == len(re.findall(r"\(_h\d+ := _bag_flat\(m, _h", gap))
    for seed in range(8):
        assert play_both(str(tmp_path), (), 2 + seed % 2, seed) > 0


def test_running_out_inside_a_body_written_in_place_fails_where_the_reference_does(tmp_path):
    """A budget that runs out inside a define's body written in place of its call: the
    reference's error, at its rule."""
    (tmp_path / "game.rules").write_text(
        'game "Spent in place"\nplayers 2 to 2\nvar score per player: int = 0\n'
        "define one(p: player, k: int) = count(x for x in range(1, 3000) where x > k + turn_number)\n"
        "define many(p: player, n: int) = sum(one(p, i) for i in range(1, n))\n"
        "flow:\n    for p in players:\n        turn p:\n"
        "            set p.score += many(p, 5)\n"
        "            set p.score += many(p, 400)\n"
        "            choose c in [1, 2] by p\n")
    generated = interpreter.load(str(tmp_path), cache=False).compiled.generated
    assert "m.memo.setdefault(" in "\n".join(generated.source)
    ref = _failure(tmp_path, "reference")
    gen = _failure(tmp_path, "codegen")
    assert gen == ref
    assert "game.rules:4:" in gen and "steps" in gen, gen  # inside `one`, written in `many`


SITES = '''game "Sites"
players 2 to 2
kind coin:
    worth: int
cards coin (name, worth):
    "Copper", 1
    "Silver", 2
    "Gold", 3
zone purse: public
zone street: public
var site per card: card = none
var held: card = none
var score per player: int = 0
define coins_at(m: card) = [c in street where c.site == m]
define unplaced = count(c in street where c.site == none)
setup:
    move cards(coin) to street
flow:
    repeat 3:
        for p in players:
            turn p:
                choose c in street where count(coins_at(c)) < 2 by p label "{c.name} {count(coins_at(c))}"
                choose d in street by p
                set d.site = c
                set p.score += count(coins_at(c)) + unplaced + (1 if held.site == none else 0)
                set held = d
'''


def test_a_var_of_cards_read_through_the_cards_table_plays_as_the_reference(tmp_path):
    """A var of cards read by a table of every card's key (no text made per read, no call: the
    table subscripted), for cards and for a card that is none (the table's key of none, the
    reference's own: what the reference reads, the var's first value, without the slow path):
    the games, their logs and the work paid are the reference's."""
    from test_backends import play_both

    (tmp_path / "game.rules").write_text(SITES)
    source = "\n".join(interpreter.load(str(tmp_path), cache=False).compiled.generated.source)
    assert "f'{" not in source and re.search(r"m\.s\.vars\.get\(_k\d+\[", source)
    for seed in range(6):
        assert play_both(str(tmp_path), (), 2, seed) > 0


EXTREMES = '''game "Extremes"
players 2 to 3
enum hue: grey, red, green, blue
kind tile:
    saves: list of hue
cards tile (name, saves):
    "Plain", []
    "Warm", [red, green]
    "Cold", [blue]
    "Rich", [red, red, blue, green]
zone pile: public
var score per player: int = 0
var board: list of hue = [grey, red, green, grey]
const shelves = [[red], [], [green, blue, red]]
define gain(p: player, e: hue) = count(x for x in board where x == e)
define most(p: player, e: hue) = max(gain(p, e), 2) + max(0, gain(p, e) - 1) + max(gain(p, red), gain(p, green))
define least(p: player, e: hue) = min(gain(p, e), 1) + min(p.score, gain(p, blue)) + min(gain(p, e) - 5, 0)
define stacked(p: player) = count(s for s in [t.saves for t in pile] where count(s) > 1)
define shelved(p: player, e: hue) = (count(s for s in shelves where e in s) + count(flatten([shelves, [[e]]]))
    + count(s for s in [t.saves for t in pile where e in t.saves] where count(s) > 0))
setup:
    move cards(tile) to pile
flow:
    repeat 3:
        for p in players:
            turn p:
                choose i in range(0, 3) where most(p, board[i]) + least(p, board[i]) > 0 by p label "square {i}"
                set board[i] = [red, green, blue][i % 3]
                set p.score += most(p, board[i]) - least(p, board[i]) + stacked(p) + shelved(p, board[i])
                log "{p} takes {i}: {p.score}"
'''


def test_cards_are_read_through_the_games_own_lists_by_name(tmp_path):
    """The generated code reads a card's name and kind through the compiled game's own lists,
    put in its namespace by name (`_card_names[c]`, not `m.game.card_names[c]`): the very lists
    (not copies, nor the empty ones it starts with, which would send every card read to the slow
    path); and a field through a list of every card's value of it (`_cf0[c]`, not a call of the
    card's dict's get), holding the very values the cards hold. The games play, pay and log as
    the reference, without the slow path."""
    from test_backends import play_both

    (tmp_path / "game.rules").write_text(EXTREMES)
    compiled = interpreter.load(str(tmp_path), cache=False).compiled
    source = "\n".join(compiled.generated.source)
    assert "m.game.card_" not in source and "_card_attrs[" not in source and re.search(r"_cf\d+\[", source)
    ns = compiled.generated.ns
    assert ns["_card_attrs"] is compiled.card_attrs and compiled.card_attrs
    assert ns["_card_names"] is compiled.card_names and ns["_card_kinds"] is compiled.card_kinds
    fields = compiled.generated.card_fields
    assert ("saves", None) in fields
    for (field, default), name in fields.items():
        assert all(x is values.get(field, default) for x, values in zip(ns[name], compiled.card_attrs, strict=True))
    for seed in range(4):
        assert play_both(str(tmp_path), (), 2, seed) > 0


def test_max_and_min_of_two_numbers_and_counts_of_lists_of_lists_play_as_the_reference(tmp_path):
    """`max(x, y)` and `min(x, y)` of two numbers, worked out without the built-in's call (the
    first kept unless the second is strictly past it), and lists of lists (of tiles' `saves`, a
    constant's) paid for by their lengths without a walk: the same games, logs and work paid at every
    action as the reference."""
    from test_backends import play_both

    (tmp_path / "game.rules").write_text(EXTREMES)
    source = "\n".join(interpreter.load(str(tmp_path), cache=False).compiled.generated.source)
    assert not re.search(r"\b(max|min)\(", source)  # every max() and min() here is of two numbers
    assert "_charged_lists(m, " in source
    for seed in range(6):
        assert play_both(str(tmp_path), (), 2 + seed % 2, seed) > 0


def test_max_of_a_number_and_none_fails_as_in_the_reference(tmp_path):
    """`max(x, y)` of a number and none (a var the rules left unset) fails at its rule, with
    the reference's message, rather than giving either value."""
    (tmp_path / "game.rules").write_text(
        'game "Unset"\nplayers 2 to 2\nvar score per player: int = 0\nvar best: int = none\n'
        "define highest(p: player) = (1 if max(best, p.score) == none else 2) + min(0, p.score)\n"
        "flow:\n    for p in players:\n        turn p:\n"
        "            set p.score += highest(p)\n"
        "            choose c in [1, 2] by p\n")
    ref = _failure(tmp_path, "reference")
    gen = _failure(tmp_path, "codegen")
    assert gen == ref
    assert "game.rules:5:" in gen, gen


FOLDED = '''game "Folded"
players 2 to 3
enum hue: grey, red, green, blue, white
const hues = [grey, red, green, blue, white]
var score per player: int = 0
var board: list of hue = [grey, red, green, grey, red, grey, green, green, white]
var saved per player: list of hue = []
define owned(p: player) = [x for x in board where x != grey]
define needs(p: player, e: hue) = 2 - bag(p.saved)[e]
define short(p: player, have: list of hue, e: hue) = max(0, needs(p, e) - bag(have)[e])
define pick(p: player, have: list of hue) = sum(short(p, have, e) for e in hues)
define spare(p: player) = pick(p, owned(p))
define kept(p: player) = sum(count(x for x in p.saved where x == e) for e in hues)
define held(p: player) = [x for x in p.saved where x != white]
define seen(p: player, f: hue) = sum(count(y for y in held(p) where y == e) + needs(p, f) for e in hues)
flow:
    repeat 3:
        for p in players:
            turn p:
                choose i in range(0, 8) where spare(p) + kept(p) + seen(p, red) >= i by p label "square {i}"
                set board[i] = [red, green, blue][index_of(players, p)]
                set p.saved = [x for x in board where x == [red, green, blue][i % 3]]
                set p.score += spare(p) + kept(p)
'''


def test_calls_each_item_begins_with_are_paid_with_the_loop(tmp_path):
    """An item of a loop that begins with an inlined define's call whose body begins with a
    remembered call written in place pays both calls with the loop's items (5 items, each
    paying its iteration and two calls: 55; and the list given to sum(), 2 an item: 65 in all,
    checked before the list is made), and a comprehension over a list worked out first
    into a name, empty at times (`held`), is made only when the list has items: the games,
    their logs and the work paid at every action are the reference's."""
    from test_backends import play_both

    (tmp_path / "game.rules").write_text(FOLDED)
    generated = interpreter.load(str(tmp_path), cache=False).compiled.generated
    source = "\n".join(generated.source)
    spare = source[source.index(f"def {generated.define_names['spare']}("):]
    spare = spare[:spare.index("\ndef ")]
    assert "(_u := _u + 65) + b.used <= b.limit" in spare and "m.memo.setdefault(" in spare
    assert re.search(r"\(_v(\d+) := _iter\(m, .*\(\[_v\d+ for _v\d+ in _v\1 if .*\] if _v\1 else \[\]\)", source)
    for seed in range(8):
        assert play_both(str(tmp_path), (), 2 + seed % 2, seed) > 0


CHIPS = '''game "Chips"
players 2 to 3
token gold: supply 40
token gem: supply 10, sides red blue
kind coin:
    worth: int
cards coin (name, worth):
    "Copper", 1
    "Silver", 2
zone pile: public
var score per player: int = 0
var target: player = none
define rich(c: card) = tokens(c, gold) >= 2
setup:
    move cards(coin) to pile
flow:
    repeat 3:
        for p in players:
            turn p:
                choose c in pile where not rich(c) or p.gold > 0 by p label "{c.name} {tokens(c, gold)}"
                gain 1 gold to c
                gain 2 gold to p
                gain 1 gem to p
                set p.score += p.gold + tokens(p, gold) + c.gold + p.gem * 10
                set target = p
    set target = none
    for p in players:
        set p.score += target.gold
'''


def test_tokens_read_through_tables_play_and_fail_as_the_reference(tmp_path):
    """A player's or a card's tokens read by a table of every holder's key (`p.gold`,
    `tokens(c, gold)`), or keys for a token of several sides, added in their order: the games,
    their logs and the work paid are the reference's; and for a holder that is none, the
    reference's error at its rule."""
    from test_backends import play_both

    (tmp_path / "game.rules").write_text(CHIPS.replace("+= target.gold", "+= p.gold"))
    source = "\n".join(interpreter.load(str(tmp_path), cache=False).compiled.generated.source)
    assert source.count("m.s.tokens.get(") >= 4 and "_token_sum(m.s.tokens, " in source  # (gem: two sides)
    assert "m.token_count(" not in source
    for seed in range(4):
        assert play_both(str(tmp_path), (), 2 + seed % 2, seed) > 0
    (tmp_path / "game.rules").write_text(CHIPS)
    ref = _failure(tmp_path, "reference")
    assert _failure(tmp_path, "codegen") == ref
    assert "game.rules:28:" in ref, ref


LOOKED = '''game "Looked"
players 2 to 3
enum hue: grey, red, green, blue, white
const hues = [grey, red, green, blue, white]
var saved per player: list of hue = []
var score per player: int = 0
define needs(p: player, e: hue) = 2 - bag(p.saved)[e]
define short(p: player, e: hue) = max(0, needs(p, e) - count(x for x in p.saved where x == e))
define total(p: player) = sum(needs(p, e) for e in hues) + sum(short(p, e) for e in hues)
flow:
    repeat 3:
        for p in players:
            turn p:
                choose h in hues where total(p) >= short(p, h) by p label "{h}"
                set p.score += total(p)
                set p.saved = p.saved + [h] if h != white else []
'''


def test_a_call_made_again_looks_up_the_memo_in_place_and_pays_as_the_reference(tmp_path):
    """A remembered define called again in a body with the same arguments (`needs(p, e)` in
    `short`'s body written in place, after `total`'s own loop over the same list called it) looks
    up the memo in place first: a result found pays the call (in the body's tally), as the
    function would; else the function is called. The games and the work paid at every action
    are the reference's, and so is every action cut short by its budget (`short(p, h)` of the
    choice, found or not in the memo)."""
    from test_backends import play_both

    (tmp_path / "game.rules").write_text(LOOKED)
    games = [interpreter.load(str(tmp_path), backend=b, cache=False) for b in ("reference", "codegen")]
    source = "\n".join(games[1].compiled.generated.source)
    assert len(re.findall(r"is not _MISS and \(_u := _u \+ 5\) else _d\d+(?:_u)?\(m, a0, _k\d+\)\)", source)) == 5
    for seed in range(8):
        assert play_both(str(tmp_path), (), 2 + seed % 2, seed) > 0

    outcomes = []
    for game in games:
        state = game.new_game(players=2, seed=1)
        state.apply(next(a for a in state.legal_actions(0) if a.value == "red"))
        outcomes.append(outcomes_at_budgets(state, "green", (None, *range(0, 400, 3)), "score#1", player=1))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0][0] is None and outcomes[0][1][0] is not None
