"""The fast runs (codegen `_StepsGen.run` with ``fast``, runtime `Machine.runs_of`): an action is
carried out by runs that pay their ops' steps in sums and keep no position; should anything be
raised, the action is put back and carried out again by the careful runs. So whatever the
budget and whatever fails, an action comes to exactly what the careful runs make of it: the
same error at the same position, the same units paid, the same state (and the reference, the
oracle of tests/test_backends.py, makes the same of it as the careful runs)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import interpreter
from interpreter.engine import codegen
from interpreter.engine.budget import Budget
from interpreter.tools.simulate import next_player
from rulelang.diagnostics import RuleRuntimeError

ROOT = Path(__file__).resolve().parent.parent


def _outcome(game, seed, players, moves, last, limit):
    """Action `last` (an index) after `moves`, paid from a budget of `limit` (None: the state's
    own, the lean path of apply_index): (error, units used, log added, state after)."""
    state = game.new_game(players=players, seed=seed)
    for move in moves:
        state.apply_index(move, next_player(state))
    before = state.clone()
    budget = Budget(limit) if limit is not None else None
    try:
        state.apply_index(last, next_player(state), budget)
    except RuleRuntimeError as err:
        assert state.s == before.s  # refused: the state as it was
        return str(err), budget.used if budget else None, None, None
    return None, budget.used if budget else None, state.s.log[len(before.s.log):], state.to_json()


def _both(path, seed, players, moves, last, limits):
    """The outcomes of the fast runs and of the careful runs alone, at each budget."""
    fast = interpreter.load(str(path), cache=False)
    careful = interpreter.load(str(path), cache=False)
    careful._fast = False
    got = [[_outcome(game, seed, players, moves, last, limit) for limit in limits] for game in (fast, careful)]
    assert fast.compiled.fast_runs and not careful.compiled.fast_runs  # each played its own runs
    return got


class _CarryOuts:
    """The calls of `State._carry_out` made for the watched state (`.state`), not for the states
    playing its game again to put it back: (in a part, careful) for each."""

    def __init__(self, monkeypatch) -> None:
        from interpreter.engine.api import State

        self.calls: list[tuple[bool, bool]] = []
        self.state = None
        carry_out = State._carry_out

        def counted(state, branch, p, index, budget, undo_wanted=True, careful=False):
            if state is self.state:
                self.calls.append((branch is not None, careful))
            return carry_out(state, branch, p, index, budget, undo_wanted, careful)
        monkeypatch.setattr(State, "_carry_out", counted)


def _moves(path, players, seed, count):
    game = interpreter.load(str(path))
    state = game.new_game(players=players, seed=seed)
    rng = random.Random(seed)
    moves = []
    while not state.is_over and len(moves) < count:
        moves.append(rng.randrange(state.num_actions(next_player(state))))
        state.apply_index(moves[-1], next_player(state))
    return moves


@pytest.mark.parametrize(("name", "players"), [("tic_tac_toe", 2), ("kuhn_poker", 2)])
def test_fast_runs_fail_as_the_careful_ones_at_every_budget(name, players):
    path = ROOT / "examples" / "games" / name
    moves = _moves(path, players, 5, 9)
    for at in range(len(moves)):
        fast, careful = _both(path, 5, players, moves[:at], moves[at], [None])
        assert fast == careful and fast[0][0] is None
        cost = _outcome(interpreter.load(str(path)), 5, players, moves[:at], moves[at], 10**6)[1]
        fast, careful = _both(path, 5, players, moves[:at], moves[at], range(cost + 2))
        assert fast == careful
        assert fast[cost - 1][0] is not None and fast[cost][0] is None  # (short of its cost, it fails)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "players"), [("plunderbund", 3), ("welcome_to", 2), ("off_plan", 2)])
def test_fast_runs_fail_as_the_careful_ones_at_budgets_of_the_big_games(name, players):
    path = ROOT / "games" / name
    moves = _moves(path, players, 7, 40)
    for at in range(0, len(moves), 8):
        cost = _outcome(interpreter.load(str(path)), 7, players, moves[:at], moves[at], 10**6)[1]
        limits = sorted({*range(0, cost + 2, max(1, cost // 60)), cost - 1, cost, None} - {-1},
                        key=lambda x: -1 if x is None else x)
        fast, careful = _both(path, 7, players, moves[:at], moves[at], limits)
        assert fast == careful


FAILING = """game "Faults"
players 2 to 2
var total: int = 0
var squares: list of int = [1, 2, 3]
flow:
    for p in players:
        turn p:
            choose n in [0, 1, 2, 3, 4, 5] by p
            set total = total + n
            log "{p} takes {n}"
            if n == 1:
                set total = 100 / (n - 1)
            if n == 2:
                set total = squares[n + 5]
            if n == 3:
                let k = 0
                while true max 2000000:
                    set k = k + 1
            if n == 5:
                let j = 0
                while j < 100 max 5:
                    set j = j + 1
            set total = total + 1
"""


@pytest.mark.parametrize("choice", [0, 1, 2, 3, 4, 5])
def test_an_action_failing_on_the_lean_path_fails_as_the_reference(tmp_path, choice):
    """An action of apply_index's lean path (the state's own budget) that fails in a fast run
    (a division by zero, an index past the end, a loop that spends the whole budget, a loop past
    its `max`) is refused
    with the reference's error and position, the state unchanged; the game goes on."""
    (tmp_path / "game.rules").write_text(FAILING)
    outcomes = []
    for backend in ("reference", "codegen"):
        game = interpreter.load(str(tmp_path), backend=backend, cache=False)
        state = game.new_game(players=2, seed=0)
        state.apply_index(0)
        before = state.clone()
        try:
            state.apply_index(choice)
            outcomes.append((None, state.to_json()))
        except RuleRuntimeError as err:
            assert state.s == before.s
            outcomes.append((str(err), None))
            state.apply_index(4)  # the game goes on
            assert state.is_over and state.s.vars["total"] == 6
    assert outcomes[0] == outcomes[1]
    assert (outcomes[0][0] is None) == (choice in (0, 4))
    if choice == 3:
        assert "more than 1000000 steps" in outcomes[0][0]
    if choice == 5:
        assert "more than its `max 5` times" in outcomes[0][0]


PARTS = """game "Parts"
players 3 to 3
var total: int = 0
var bid per player: int = 0
var squares: list of int = [1, 2, 3]
flow:
    simultaneously for p in players:
        choose n in [0, 1, 2] by p
        set p.bid = n
        if n == 1:
            set p.bid = squares[n + 5]
        choose k in [0, 1] by p
        set p.bid = p.bid + k
    set total = sum([q.bid for q in players])
"""


@pytest.mark.parametrize("player", [0, 1, 2])
def test_a_part_failing_in_a_fast_run_fails_as_the_reference(tmp_path, player):
    """In a `simultaneously` step, a part's action that fails (an index past the end) on the
    path that puts the state back by playing its game again (the parts are new ones then) is
    refused with the reference's error, the parts as they were; every part then plays on."""
    (tmp_path / "game.rules").write_text(PARTS)
    outcomes = []
    for backend in ("reference", "codegen"):
        game = interpreter.load(str(tmp_path), backend=backend, cache=False)
        state = game.new_game(players=3, seed=0)
        for p in range(player):  # the parts before it have answered (the order a playout plays in)
            state.apply_index(2, p)
        before = state.clone()
        with pytest.raises(RuleRuntimeError) as info:
            state.apply_index(1, player)
        assert state.s == before.s
        for p in range(3):
            if p >= player:
                state.apply_index(0, p)
        while not state.is_over:
            state.apply_index(1, next_player(state))
        outcomes.append((str(info.value), state.to_json()))
    assert outcomes[0] == outcomes[1]
    assert "index" in outcomes[0][0] or "past" in outcomes[0][0] or "list" in outcomes[0][0]


def test_parts_are_answered_on_the_lean_path_and_failures_carried_out_carefully(tmp_path, monkeypatch):
    """The parts' decisions of a playout (the first player still deciding, the state's own
    budget) are answered by `State._answer_part`, not `_carry_out`; one that fails in a fast run
    is put back and carried out once more by `_carry_out` with the careful runs, which raise the
    reference's error; a decision paid from a budget given goes to `_carry_out`."""
    (tmp_path / "game.rules").write_text(PARTS)
    watched = _CarryOuts(monkeypatch)
    calls = watched.calls
    game = interpreter.load(str(tmp_path), cache=False)
    state = watched.state = game.new_game(players=3, seed=0)
    state.apply_index(2, 0)  # n = 2: the part goes on to its next choice
    state.apply_index(0, 0)  # (the first part ends: the others answer in the merged order)
    assert calls == []
    before = state.clone()
    with pytest.raises(RuleRuntimeError, match=r"game\.rules:11:"):
        state.apply_index(1, 1)  # n = 1: an index past the end, in a fast run
    assert calls == [(True, True)] and state == before  # (as States: `state.s` would end the lean path)
    while not state.is_over:
        state.apply_index(0, next_player(state))
    assert len(calls) == 1 and state.s.vars["total"] == 2
    state = watched.state = game.new_game(players=3, seed=0)
    state.apply_index(0, 0, Budget())  # (a budget given: `_carry_out`, with the fast runs)
    assert calls == [(True, True), (True, False)]


MAYS = """game "Mays"
players 2 to 2
var total: int = 0
var squares: list of int = [1, 2, 3]
var bid per player: int = 0
flow:
    for p in players:
        turn p:
            may "Take {total}?" by p:
                set total = squares[total + 5]
            set total = total + 1
    simultaneously for p in players:
        may "Bid?" by p:
            set p.bid = squares[p.bid + 7]
        set p.bid = p.bid + 2
"""


def test_mays_are_answered_on_the_lean_paths_as_the_reference(tmp_path, monkeypatch):
    """`may` (its question a text made each time, or a plain one) outside and inside a
    `simultaneously` step is answered on apply_index's lean paths, not by `_carry_out`, but for
    the careful second try of an answer that fails in a fast run: the reference's error, the
    state as it was; then the game goes on as the reference's."""
    (tmp_path / "game.rules").write_text(MAYS)
    watched = _CarryOuts(monkeypatch)
    calls = watched.calls
    outcomes = []
    for backend in ("reference", "codegen"):
        game = interpreter.load(str(tmp_path), backend=backend, cache=False)
        state = watched.state = game.new_game(players=2, seed=0)
        errors = []
        while not state.is_over:
            player = next_player(state)
            before = state.clone()
            try:
                state.apply_index(0, player)  # yes: past the end of `squares`
            except RuleRuntimeError as err:
                assert state == before  # (as States: `state.s` would end the lean path)
                errors.append(str(err))
                state.apply_index(1, player)
        outcomes.append((errors, state.to_json()))
        if backend == "codegen":
            assert calls == [(False, True), (False, True), (True, True), (True, True)]
        calls.clear()
    assert outcomes[0] == outcomes[1]
    assert [e.split(":")[1] for e in outcomes[0][0]] == ["10", "10", "14", "14"]


SUMS = """game "Sums"
players 2 to 2
var total: int = 0
flow:
    for p in players:
        turn p:
            choose n in [0, 1, 2, 3] by p
            let k = 5
            set k += n * 400000000000000000
            set k -= 1
            set total = total + k
            log "{p}: {k}"
"""


@pytest.mark.parametrize("choice", [0, 1, 2, 3])
def test_a_local_added_to_in_place_pays_and_fails_as_the_careful_runs(tmp_path, choice):
    """`set k += v` and `-=` of a local whose type is a whole number are added in place in fast
    runs (`_StepsGen.local_add`): the same sums, the same units at every
    budget around the action's cost, and past the limit of numbers the careful runs' error."""
    from interpreter.engine.codegen import leaf_code, quiet_effects, steps_source

    (tmp_path / "game.rules").write_text(SUMS)
    game = interpreter.load(str(tmp_path), cache=False)
    g = game.compiled
    adds = [op for op in g.codes["flow"] if getattr(op, "local_add", None) is not None]
    assert [op.local_add[2] for op in adds] == [False, True]  # (`+=` then `-=`)
    source = steps_source(quiet_effects(g.codes["flow"], g.triggers),
                          lambda key: leaf_code(quiet_effects(g.codes[key], g.triggers)), True, g.generated)[0]
    assert source.count("= _t\n") >= 2 and source.count("(_t := _x - _v)") == 1
    cost = _outcome(game, 0, 2, [], choice, 10**6)[1]
    fast, careful = _both(tmp_path, 0, 2, [], choice, [None, *range(cost + 2)])
    assert fast == careful
    assert (fast[0][0] is not None) == (choice == 3)
    if choice == 3:
        assert "grew past" in fast[0][0]
    else:
        assert [line[2] for line in fast[0][2]][-2] == f"Player 1: {4 + choice * 400000000000000000}"
        assert fast[cost][0] is not None and fast[cost + 1][0] is None  # (short of its cost, it fails)


PLAYER_LISTS = """game "Player lists"
players 2 to 2
var seen per player: list of int = []
var best per player: int = 0
flow:
    simultaneously for p in players:
        choose n in [1, 2, 3] by p
        set p.seen = p.seen + [n, n]
        set p.best = n
        set p.best += n * 2
        if n == 3:
            set first(players).seen = [n]
    for p in players:
        turn p:
            choose k in [4, 5] by p
            let xs = [k]
            set p.seen = xs
            set p.best = p.best + count(p.seen)
            set p.best -= (4 - k) * 999999999999999999
"""


@pytest.mark.parametrize("choice", [0, 1, 2])
def test_a_players_list_set_in_place_pays_and_fails_as_the_careful_runs(tmp_path, choice):
    """`set p.x = v` of a list in a fast run (`_StepsGen.player_var`: stored as a copy, as the
    putter stores it) and `set p.x += v` / `-=` (`_StepsGen.player_add`: past the limit of
    numbers, the careful runs' error), in a `simultaneously` part (another player's var refused
    there, by the putter) and outside one: the same state and units as the careful runs at
    every budget."""
    (tmp_path / "game.rules").write_text(PLAYER_LISTS)
    for moves, last in (([], choice), ([0], choice), ([0, 1], choice % 2), ([0, 1, 0], choice % 2)):
        cost = _outcome(interpreter.load(str(tmp_path), cache=False), 0, 2, moves, last, 10**6)[1]
        fast, careful = _both(tmp_path, 0, 2, moves, last, [None, *range(cost + 2)])
        assert fast == careful
        # (player 2 sets player 1's; 5 takes the best past the limit of numbers)
        assert (fast[0][0] is not None) == ((choice == 2 and len(moves) == 1) or (len(moves) > 1 and last == 1))


MENUS = """game "Menus"
players 2 to 2
token coin: supply 20
var total: int = 0
var picks per player: list of int = []
var squares: list of int = [1, 2, 3]
setup:
    for p in players:
        gain 5 coin to p
flow:
    repeat 3:
        simultaneously for p in players:
            choose by p prompt "Part":
                option "Buy (2 coin)" cost 2 coin:
                    set p.picks = p.picks + [2]
                for k in [1, 2]:
                    option "Take {k}" once per game:
                        set p.picks = p.picks + [k]
                option "Break":
                    set p.picks = [squares[count(p.picks) + 7]]
        for p in players:
            turn p:
                choose by p prompt "Turn":
                    option "Pay (1 coin)" cost 1 coin once per turn:
                        set total = total + 1
                    option "Break":
                        set total = squares[total + 7]
                    option "Pass":
                        pass
"""


def test_menus_with_costs_are_answered_on_the_lean_paths_as_the_reference(tmp_path, monkeypatch):
    """A menu with costs, `once` marks or options made from a list, outside and inside a
    `simultaneously` step, is answered on apply_index's lean paths (its own `resume` pays the
    cost and marks the option), not by `_carry_out`, but for the careful second try of an answer
    that fails in a fast run: the reference's error, the state as it was; the game goes on as the
    reference's."""
    (tmp_path / "game.rules").write_text(MENUS)
    watched = _CarryOuts(monkeypatch)
    calls = watched.calls
    outcomes = []
    for backend in ("reference", "codegen"):
        game = interpreter.load(str(tmp_path), backend=backend, cache=False)
        state = watched.state = game.new_game(players=2, seed=0)
        rng = random.Random(3)
        errors = []
        while not state.is_over:
            player = next_player(state)
            labels = [a.label for a in state.legal_actions(player)]
            if len(errors) < 6:  # (each failure plays the game again twice: past MAX_REPLAYS, Undos are made)
                before = state.clone()
                with pytest.raises(RuleRuntimeError) as info:
                    state.apply_index(labels.index("Break"), player)
                assert state == before  # (as States: `state.s` would end the lean path)
                errors.append(str(info.value))
            state.apply_index(rng.choice([i for i, label in enumerate(labels) if label != "Break"]), player)
        outcomes.append((errors, state.to_json()))
        if backend == "codegen":
            assert [careful for _, careful in calls] == [True] * 6  # (each a careful second try)
        calls.clear()
    assert outcomes[0] == outcomes[1]
    assert len(outcomes[0][0]) == 6
    assert any("game.rules:20:" in e for e in outcomes[0][0]) and any("game.rules:27:" in e for e in outcomes[0][0])


LONG_LINES = """game "Long lines"
players 2 to 2
var xs: list of int = []
flow:
    for p in players:
        turn p:
            choose n in [1, 150, 400] by p
            set xs = [k for k in range(1, n)]
            log "{p} counts {xs}"
            log "{p} is done"
"""


@pytest.mark.parametrize("choice", [0, 1, 2])
def test_log_lines_made_in_fast_runs_pay_as_the_careful_ones(tmp_path, choice):
    """A log line whose text a fast run makes and pays for with the line (short, long, past the
    longest line kept): the same line, the same units, at every budget around its cost."""
    (tmp_path / "game.rules").write_text(LONG_LINES)
    cost = _outcome(interpreter.load(str(tmp_path)), 0, 2, [], choice, 10**6)[1]
    fast, careful = _both(tmp_path, 0, 2, [], choice, [None, *range(max(0, cost - 2500), cost + 2)])
    assert fast == careful
    assert fast[0][0] is None and fast[1][0] is not None and fast[-1][0] is None


EFFECTS = """game "Lean effects"
players 2 to 2
kind chip:
    worth: int
cards chip (name, worth, copies):
    "Low", 1, 3
    "High", 5, 2
zone pile per player: hidden, refill spent
zone spent per player: public
zone hand per player: owner
zone table: public
token gold "Gold": supply 12
setup:
    for p in players:
        move [c in cards(chip) where c.worth == (1 if p == first(players) else 5)] to p.pile
        gain 2 gold to p
flow:
    for p in players:
        turn p:
            choose n in [0, 1, 2, 3, 4] by p
            procedure_of p, n
            choose k in [1, 2, 3] by p
            draw k from p.pile to p.hand as drawn
            move drawn to table
            move p.hand to p.spent
            pay k gold from p
            gain k + n gold to p from supply

procedure procedure_of(p: player, n: int):
    draw n from p.pile to p.hand as taken
    move taken to table
    if n == 4:
        pay 9 gold from p
    move [c in table where c.worth > n] to p.spent
    gain n gold to p
"""


@pytest.mark.parametrize("choice", [0, 1, 2, 3, 4])
def test_moves_draws_and_tokens_written_in_fast_runs_pay_as_the_careful_ones(tmp_path, choice):
    """`move`, `draw` (refilled from the discard, bound to a local), `gain` and `pay` written in
    place in a fast run (codegen `_StepsGen.lean_effect`): the same cards, tokens, log and
    units as the careful runs, which call the ops, at every budget around each action's cost; a
    `pay` of more than is held fails as the careful runs fail, with their error and position."""
    (tmp_path / "game.rules").write_text(EFFECTS)
    game = interpreter.load(str(tmp_path), cache=False)
    fast_source = "".join(
        codegen.steps_source(code, None, True, game.compiled.generated)[0] for code in game.compiled.codes.values())
    for written in ("m.move_cards(list(_x), _c)", "m.transfer_plain(_x, ", "(m, _x, _c, _g)"):
        assert written in fast_source
    # (the turn's first choice: choice 4 pays 9 of the 2 gold held; the second, 3 gold: choice
    # 0 holds 2; then the next player's first choice)
    for moves, last, fails in (([], choice, choice == 4), ([choice], 2, choice == 0), ([choice, 0], 1, False)):
        if choice == 4 and moves:
            continue
        cost = _outcome(interpreter.load(str(tmp_path)), 0, 2, moves, last, 10**6)[1]
        fast, careful = _both(tmp_path, 0, 2, moves, last, [None, *range(cost + 2)])
        assert fast == careful
        assert (fast[0][0] is not None) == fails
        if fails:
            assert "gold" in fast[0][0]
        else:
            assert fast[cost][0] is not None and fast[cost + 1][0] is None


LISTS = """game "Kept lists"
players 2 to 2
kind chip:
    worth: int
cards chip (name, worth, copies):
    "Low", 1, 3
zone pile per player: public
zone table: public
var kept per player: list of card = []
var worths per player: list of int = []
setup:
    move cards(chip) to first(players).pile
flow:
    for p in players:
        turn p:
            choose n in [0, 1] by p
            set p.kept = p.pile
            set p.worths = p.worths + [n, count(p.kept)]
            move p.pile to table
            log "{p} kept {count(p.kept)} and {p.worths}"
"""


@pytest.mark.parametrize("choice", [0, 1])
def test_a_list_set_to_a_players_var_in_a_fast_run_is_a_copy(tmp_path, choice):
    """`set p.x = v` of a list written in place in a fast run stores a copy, as the putter does:
    a zone's own list set to a var, then emptied by a move, leaves the var as it was; the same
    state, log and units as the careful runs at every budget around the action's cost."""
    (tmp_path / "game.rules").write_text(LISTS)
    cost = _outcome(interpreter.load(str(tmp_path)), 0, 2, [], choice, 10**6)[1]
    fast, careful = _both(tmp_path, 0, 2, [], choice, [None, *range(cost + 2)])
    assert fast == careful
    assert fast[0][0] is None and fast[cost][0] is not None and fast[cost + 1][0] is None
    assert any("kept 3 and" in line[2] for line in fast[0][2])
