"""Procedures as generated code (issue 14): the runs `codegen.code_runs` makes of each code.

The equivalence of whole games (same actions, states, logs and budgets as the reference, whose
step loop calls every op) is tests/test_backends.py; here: the generated source holds no rule
text, games saved in the middle of a procedure go on identically once restored (the runs
resume at any pc), and a budget spent inside a run stops at the same op as the reference.
"""

from __future__ import annotations

import io
import keyword
import random
import re
import tokenize
from pathlib import Path

import pytest

import interpreter
from interpreter.engine.budget import Budget
from interpreter.engine.codegen import leaf_code, quiet_effects, steps_source
from interpreter.engine.information import with_starts
from interpreter.tools.simulate import next_player
from rulelang.diagnostics import RuleRuntimeError

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
GAMES = [ROOT / "games" / "off_plan", ROOT / "games" / "welcome_to", ROOT / "games" / "plunderbund",
         ROOT / "examples" / "games" / "tic_tac_toe", FIXTURES / "hostile_names"]

# Every name the generated runs may use: their own (the machine, the frame, its locals, the
# budget, the pc, a loop's index) and the namespace's, made of indices.
_OWN = {"m", "fr", "L", "b", "pc", "_t", "budget", "used", "limit", "charge", "memo", "locals", "pop", "len",
        "BaseException", "enter", "call_leaf", "list", "log", "branch", "player", "s", "active",
        "_l", "get",  # (a local read in place: `_l if (_l := L.get(_s3, _s4)) is not _s4 else ...`)
        # a log line and a turn's start and end in place (`_StepsGen.log_line`, `turn_start`)
        "_g", "_x", "_tl", "branches", "append", "type", "int", "game", "turn_lines", "once", "lasting",
        "turn",
        # `set xs[i] = v` of a var in place (`_StepsGen.var_item`)
        "_c", "_v", "_j", "vars", "dict", "set_var", "journal",
        # a move, a draw, a gain or pay in place (`_StepsGen.lean_effect`)
        "move_cards", "transfer_plain"}
_INDEXED = re.compile(r"_(s|run)\d+")


@pytest.mark.parametrize("fast", [False, True], ids=["careful", "fast"])
@pytest.mark.parametrize("path", GAMES, ids=[p.name for p in GAMES])
def test_runs_hold_no_rule_text(path, fast):
    """Rule text never becomes source: no string literal at all, only the runs' own names and
    names made of indices (the ops, their expressions, the locals' names, positions); in the
    careful runs and in the fast ones (tests/test_fast_runs.py), which also write expressions'
    bodies of the game's generated module in place: those bring the module's names (its own
    source holds no rule text either: tests/test_backends.py), whole numbers and its `''`."""
    game = interpreter.load(str(path))
    module = game.compiled.generated
    module_names = {tok.string for tok in tokenize.generate_tokens(io.StringIO("\n".join(module.source)).readline)
                    if tok.type == tokenize.NAME}
    generated = inlined = 0
    for code in game.compiled.codes.values():
        source, ns, entries = steps_source(code, _leaves(game), fast, module)
        generated += sum(e is not None for e in entries)
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            assert tok.type != tokenize.STRING or (fast and tok.string == "''"), tok  # (the module's `''.join`)
            if tok.type == tokenize.NAME:
                own = tok.string in _OWN or keyword.iskeyword(tok.string) or _INDEXED.fullmatch(tok.string)
                assert own or (fast and tok.string in module_names), tok
                inlined += not own
            if tok.type == tokenize.NUMBER:
                assert tok.string.isdigit(), tok  # pcs only (and, in fast runs, numbers of the module)
        for k, v in ns.items():
            assert isinstance(k, str) and (_INDEXED.fullmatch(k) or (fast and module.ns[k] is v))
    assert generated > 0
    assert (inlined > 0) == fast


def _leaves(game):
    """Whether a procedure cannot stop, by its code's key, as the machine tells its runs."""
    g = game.compiled
    return lambda key: key in g.codes and leaf_code(quiet_effects(g.codes[key], g.triggers))


@pytest.mark.parametrize("name", ["plunderbund", "welcome_to"])
def test_saves_made_anywhere_resume_identically(name):
    """At every decision of a random game, a save restored in a freshly loaded game (whose runs
    are made anew) plays on exactly as the state it was saved from."""
    game = interpreter.load(str(ROOT / "games" / name))
    other = interpreter.load(str(ROOT / "games" / name), cache=False)
    assert other.compiled is not game.compiled
    state = game.new_game(players=3, seed=11)
    rng = random.Random(11)
    decisions = 0
    while not state.is_over and decisions < 120:
        fresh = other.state_from_json(state.to_json())
        assert _whole(fresh) == _whole(state)
        player = next_player(state)
        i = rng.randrange(state.num_actions(player))
        paid, paid_fresh = Budget(), Budget()
        state.apply(state.legal_actions(player)[i], paid)
        fresh.apply(fresh.legal_actions(player)[i], paid_fresh)
        assert _whole(fresh) == _whole(state)
        assert paid.used == paid_fresh.used
        decisions += 1
    assert decisions > 20


def _whole(state):
    """The state with what a `simultaneously` step's parts left out made whole (as a save has
    it: ``information.with_starts``), to compare a live state with one loaded from a save."""
    return with_starts(state.game.compiled, state.s)


LOOP_GAME = """game "Loops"
players 2 to 2
var total: int = 0
flow:
    for p in players:
        turn p:
            choose n in [1, 2, 3] by p
            let k = 0
            while k < 100000 max 100000:
                set k = k + 1
                if k > n:
                    set total = total + 1
"""


@pytest.mark.parametrize("limit", [57, 58, 59, 60, 401, 1000])
def test_a_budget_spent_inside_a_run_stops_where_the_reference_does(tmp_path, limit):
    (tmp_path / "game.rules").write_text(LOOP_GAME)
    outcomes = []
    for backend in ("reference", "codegen"):
        game = interpreter.load(str(tmp_path), backend=backend)
        state = game.new_game(players=2, seed=0)
        before = state.clone()
        paid = Budget(limit)
        with pytest.raises(RuleRuntimeError) as info:
            state.apply(state.legal_actions(0)[2], paid)
        assert state.s == before.s  # refused: the state unchanged
        outcomes.append((str(info.value), paid.used))
    assert outcomes[0] == outcomes[1]
    assert f"more than {limit} steps" in outcomes[0][0]


DRAW_GAME = """game "Draws"
players 2 to 2
kind chip:
    value: int
cards chip (name, value, copies):
    "A", 1, 6
    "B", 2, 5
    "C", 3, 2
zone deck per player: hidden, refill discard
zone discard per player: public
zone hand per player: owner
zone tray: public, slots 3
token coin: supply 60
token fund: supply 20, sides normal black
var total: int = 0
procedure tidy(p: player, n: int):
    move [c in p.hand where c.value == n] to p.discard
    set total = total + count(p.discard)
procedure deal(p: player, n: int):
    draw n from p.deck to p.hand as got
    tidy p, 1
    log to p "{p} draws {count(got)}"
setup:
    for p in players:
        move [c in box where c.value == index_of(players, p) + 1] to p.deck
        move first([c in box where c.value == 3]) to p.discard
flow:
    for p in players:
        turn p:
            choose n in [1, 4, 9, 30] by p
            deal p, n
            draw n from p.discard to p.deck as back
            deal p, n + 1
            move p.hand to p.discard
            draw 2 from p.deck to tray
            move tray to box
            gain n coin to p
            gain 2 fund to p
            pay 1 fund from p
            if n > 3:
                pay 3 coin from p
            if n == 9:
                pay 100 coin from p
            if n == 30:
                move cards(chip) to tray
"""


@pytest.mark.parametrize("choice", [0, 1, 2, 3])
def test_draws_and_calls_in_runs_pay_and_fail_as_the_reference(tmp_path, choice):
    """Draws (with refills, past the end of both zones), moves of several cards, a full zone,
    tokens gained and paid (one side and two, too few to pay) and procedure calls run inside
    generated runs pay every step as the reference does, and an action that runs out of budget
    stops at the same step, at any step: every limit up to what it costs."""
    (tmp_path / "game.rules").write_text(DRAW_GAME)
    games = [interpreter.load(str(tmp_path), backend=b) for b in ("reference", "codegen")]
    full = []
    for game in games:
        state = game.new_game(players=2, seed=3)
        paid = Budget()
        outcome = None
        try:
            state.apply(state.legal_actions(0)[choice], paid)
        except RuleRuntimeError as err:
            outcome = str(err)
        full.append((outcome, paid.used, state.s, [e.text for e in state.log]))
    assert full[0] == full[1]
    assert full[0][1] > 20
    # the third pays more coins than it has; the last one fills the tray past its slots
    assert (full[0][0] is not None) == (choice in (2, 3))
    for limit in range(full[0][1]):
        outcomes = []
        for game in games:
            state = game.new_game(players=2, seed=3)
            before = state.clone()
            paid = Budget(limit)
            with pytest.raises(RuleRuntimeError) as info:
                state.apply(state.legal_actions(0)[choice], paid)
            assert state.s == before.s  # refused: the state unchanged
            outcomes.append((str(info.value), paid.used))
        assert outcomes[0] == outcomes[1], limit


CALLS_GAME = """game "Calls"
players 2 to 2
var total: int = 0
var depth_seen: int = 0
procedure down(n: int, stop: int):
    set depth_seen = n
    if n < stop:
        down n + 1, stop
        set total = total + n
    elif stop == 150:
        set total = total / (n - stop)
procedure ask(p: player, n: int):
    if n > 0:
        ask p, n - 1
    else:
        choose k in [1, 2] by p
        set total = total + k
flow:
    for p in players:
        turn p:
            choose stop in [3, 100, 150, 1000] by p
            down 0, stop
            ask p, 30
            log "{total} at {depth_seen}"
"""


@pytest.mark.parametrize("choice", [0, 1, 2, 3])
def test_procedures_run_on_the_spot_as_the_reference(tmp_path, choice):
    """Procedures called from runs and run on the spot (``Machine.enter``): nested a few deep,
    deeper than it runs on the spot, failing deep inside (the error at the failing op) and
    nested past the stack's limit; a decision deep inside, then the rest of every caller."""
    (tmp_path / "game.rules").write_text(CALLS_GAME)
    outcomes = []
    for backend in ("reference", "codegen"):
        game = interpreter.load(str(tmp_path), backend=backend)
        state = game.new_game(players=2, seed=0)
        paid = Budget()
        try:
            state.apply(state.legal_actions(0)[choice], paid)
            state.apply(state.legal_actions(0)[1], paid)
            error = None
        except RuleRuntimeError as err:
            error = str(err)
        outcomes.append((error, paid.used, state.s, [e.text for e in state.log]))
    assert outcomes[0] == outcomes[1]
    error = outcomes[0][0]
    if choice < 2:
        assert error is None and outcomes[0][3][-2] == f"{2 + sum(range({0: 3, 1: 100}[choice]))} at " \
                                                      f"{ {0: 3, 1: 100}[choice]}"
    elif choice == 2:
        assert "game.rules:11:" in error  # the division by zero, 150 calls deep
    else:
        assert "more than 200 procedures" in error and "game.rules:8:" in error


LEAF_GAME = """game "Leaves"
players 2 to 2
var total: int = 0
var seen: list of int = []
procedure add(n: int, d: int):
    let k = 0
    while k < n % 5 max 5:
        set total = total + k
        set k += 1
    for x in [1, 2, 3]:
        if x == d:
            set total = total / (d - x)
        set seen = seen + [x]
    log "added {n}"
procedure down(n: int, stop: int, d: int):
    if n < stop:
        down n + 1, stop, d
    add n, d
flow:
    for p in players:
        turn p:
            choose stop in [0, 3, 197, 198, 199, 250] by p
            choose d in [0, 2] by p
            down 0, stop, d
            add 5, 0
"""


@pytest.mark.parametrize("stop", range(6))
@pytest.mark.parametrize("fail", [0, 1])
def test_procedures_that_cannot_stop_run_as_the_reference(tmp_path, stop, fail):
    """A procedure that cannot stop (no choice, no call, no event answered, no `return`: `add`)
    is called from runs without a frame pushed (``Machine.call_leaf``), and plays, pays and fails
    as the reference: its loops, an error inside it (at its op), called deeper than runs go on
    the spot and at the stack's limit (the same error at the call); and a budget running out
    anywhere in it stops at the same step."""
    (tmp_path / "game.rules").write_text(LEAF_GAME)
    games = [interpreter.load(str(tmp_path), backend=b) for b in ("reference", "codegen")]
    g = games[1].compiled
    assert leaf_code(quiet_effects(g.codes["proc:add"], g.triggers))
    assert not leaf_code(quiet_effects(g.codes["proc:down"], g.triggers))
    assert "call_leaf" in steps_source(quiet_effects(g.codes["flow"], g.triggers), _leaves(games[1]))[0]

    def play(game, budget):
        state = game.new_game(players=2, seed=0)
        before = state.clone()
        try:
            state.apply(state.legal_actions(0)[stop], budget)
            state.apply(state.legal_actions(0)[fail], budget)
            return None, budget.used, state.s, [e.text for e in state.log]
        except RuleRuntimeError as err:
            return str(err), budget.used, state.s, before.s
    outcomes = [play(game, Budget()) for game in games]
    assert outcomes[0] == outcomes[1]
    error = outcomes[0][0]
    if stop >= 3:  # 198 deep, the call of `add` passes the limit (line 18); deeper, a call of `down`
        assert "more than 200 procedures" in error and f"game.rules:{18 if stop == 3 else 17}:" in error
    elif fail:
        assert "game.rules:12:" in error and "division" in error
    else:
        assert error is None and "added 5" in outcomes[0][3]
    if stop < 2:  # every budget short of the whole cost
        for limit in range(0, outcomes[0][1], 3):
            short = [play(game, Budget(limit)) for game in games]
            assert short[0] == short[1], limit
            assert f"more than {limit} steps" in short[0][0]


LITERAL_GAME = '''game "Literals"
players 2 to 2
var seen per player: list of int = []
var count per player: int = 5
var word: text = "start"
var done: bool = false
flow:
    for p in players:
        turn p:
            let xs = []
            let flag = false
            set p.count = 0
            set word = "middle"
            choose n in range(1, 3) by p
            set xs = xs + [n]
            set p.seen = []
            set p.seen = p.seen + xs
            set p.count = count(p.seen) + 7
            set flag = true
            set done = flag
            log "{p}: {p.seen} {p.count} {word}"
score p:
    count: p.count
'''


def test_constants_of_the_rules_are_given_in_place_in_runs(tmp_path):
    """A number, a truth, a text or none of the rules, and `[]`, given to a `let`, a `set` or a
    call, is put in the run in place of its expression's call (`_StepsGen.value`): a number or a
    text by a name of the namespace (no rule text in the source), `[]` as a new list each time.
    Games play, pay and fail as the reference at every budget."""
    (tmp_path / "game.rules").write_text(LITERAL_GAME)
    games = [interpreter.load(str(tmp_path), backend=b) for b in ("reference", "codegen")]
    g = games[1].compiled
    source, ns, _ = steps_source(quiet_effects(g.codes["flow"], g.triggers), _leaves(games[1]))
    assert re.search(r"L\[_s\d+\] = \[\]\n", source) and re.search(r"L\[_s\d+\] = False\n", source)
    assert re.search(r"_s\d+\(m, L, _s\d+\)\n", source)  # `set p.count = 0`, `set word = "middle"`
    assert 0 in ns.values() and "middle" in ns.values()

    def play(game, budget):
        state = game.new_game(players=2, seed=0)
        try:
            while not state.is_over:
                player = next_player(state)
                state.apply(state.legal_actions(player)[1], budget)
            return None, budget.used, state.s, [e.text for e in state.log]
        except RuleRuntimeError as err:
            return str(err), budget.used, state.s, None
    outcomes = [play(game, Budget()) for game in games]
    assert outcomes[0] == outcomes[1] and outcomes[0][0] is None
    assert "Player 1: 2 8 middle" in outcomes[0][3]
    for limit in range(0, 60, 2):
        short = [play(game, Budget(limit)) for game in games]
        assert short[0] == short[1], limit


ENDS_GAME = """game "Ends"
players 2 to 2
var total: int = 0
event poked(p: player)
procedure plain(n: int):
    let k = 0
    while k < n max 5:
        set total = total + k
        set k += 1
procedure poke(p: player, n: int):
    plain n
    emit poked p
on poked(p) when total > 2:
    choose j in [1, 2] by p
    set total = total * j
flow:
    for p in players:
        turn p:
            choose n in [1, 3, 4] by p
            poke p, n
            plain n
            log "{total}"
"""


def test_a_run_reaching_its_code_end_tells_its_caller_nothing_stopped(tmp_path):
    """A run that reaches its code's end hands over `runtime.ended` (``Machine.enter`` and
    ``call_leaf`` then end the procedure without looking at the state); a run whose last op may
    stop (an event a trigger answers: the trigger's frame is pushed, maybe waits) hands over
    nothing, and its caller looks: the trigger's choice waits, then the caller goes on. Games
    play, pay and fail as the reference at every budget."""
    from interpreter.engine.runtime import ended

    (tmp_path / "game.rules").write_text(ENDS_GAME)
    games = [interpreter.load(str(tmp_path), backend=b) for b in ("reference", "codegen")]
    g = games[1].compiled
    for fast in (False, True):
        plain, ns, _ = steps_source(quiet_effects(g.codes["proc:plain"], g.triggers), _leaves(games[1]), fast,
                                    g.generated)
        end = next(k for k, v in ns.items() if v is ended)
        assert f"return {end}\n" in plain
        poke, ns, _ = steps_source(quiet_effects(g.codes["proc:poke"], g.triggers), _leaves(games[1]), fast,
                                   g.generated)
        assert all(v is not ended for v in ns.values())  # (after `emit`, the run returns nothing)

    def play(game, budget):
        state = game.new_game(players=2, seed=0)
        try:
            while not state.is_over:
                player = next_player(state)
                actions = state.legal_actions(player)
                state.apply(actions[-1], budget)
            return None, budget.used, state.s, [e.text for e in state.log]
        except RuleRuntimeError as err:
            return str(err), budget.used, state.s, None
    outcomes = [play(game, Budget()) for game in games]
    assert outcomes[0] == outcomes[1] and outcomes[0][0] is None
    assert outcomes[0][3][-1] == "54"  # (6, doubled by the trigger, 6 more; again for the second player)
    assert sum(e[0] == "choice" for e in outcomes[0][2].log) == 4  # (each turn's and each trigger's choice)
    for limit in range(0, outcomes[0][1], 2):
        short = [play(game, Budget(limit)) for game in games]
        assert short[0] == short[1], limit
