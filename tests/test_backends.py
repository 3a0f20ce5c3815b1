"""The code-generating backend against the reference evaluator (issue 14).

Random games through both backends, side by side: at every decision the same legal actions
(values and labels), after every action the same state (zones, tokens, vars, frames, log)
and the same work paid from the budget, the same errors, and at the end the same scores and winners. A few games per game and
option set in the default run; hundreds with ``-m slow``. Also: hostile names stay data,
runtime errors keep their rule positions, and no game without errors takes the slow path.
"""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path

import pytest

import interpreter
from interpreter import IllegalAction
from interpreter.engine.budget import Budget
from interpreter.engine.compiler import compile_program
from interpreter.tools.simulate import next_player
from rulelang.diagnostics import RuleRuntimeError

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _game_paths() -> list[Path]:
    roots = [ROOT / "games", ROOT / "examples" / "games", FIXTURES]
    return sorted(p for r in roots if r.is_dir() for p in r.iterdir() if (p / "game.rules").is_file())


@cache
def _pair(path: str, options: tuple) -> tuple:
    opts = dict(options)
    return (interpreter.load(path, options=opts, backend="reference"), interpreter.load(path, options=opts))


def _option_sets(path: Path, most: int = 100) -> list[tuple]:
    """The default options, then each choice of each option alone (those the game allows)."""
    game = _pair(str(path), ())[0]
    sets = [()]
    for o in game.options:
        for value in o.choices[:6]:
            if value != o.default:
                sets.append(((o.name, value),))
    out = []
    for s in sets:
        if len(out) >= most:
            break
        try:
            _pair(str(path), s)
        except ValueError:  # these options cannot be played together
            continue
        out.append(s)
    return out


def _player_counts(path: str, options: tuple) -> list[int]:
    game = _pair(path, options)[0]
    return [n for n in range(game.min_players, min(game.max_players, 5) + 1) if not game.refusals(n)]


def _outcome(fn, *args):
    try:
        return fn(*args), None
    except (RuleRuntimeError, IllegalAction, ValueError) as err:
        return None, f"{type(err).__name__}: {err}"


def play_both(path: str, options: tuple, players: int, seed: int, max_decisions: int = 5000) -> int:
    """Play one random game through both backends in step; returns the decisions made."""
    ref_game, gen_game = _pair(path, options)
    slow_before = gen_game.compiled.generated.slow_calls[0]
    ref, err_ref = _outcome(lambda: ref_game.new_game(players=players, seed=seed))
    gen, err_gen = _outcome(lambda: gen_game.new_game(players=players, seed=seed))
    assert err_ref == err_gen
    if ref is None:
        return 0
    assert ref.s == gen.s
    rng = random.Random(seed)
    decisions = 0
    while not ref.is_over and decisions < max_decisions:
        assert ref.decision == gen.decision
        player = next_player(ref)
        actions = ref.legal_actions(player)
        assert [(a.value, a.label, a.decision) for a in actions] == \
            [(a.value, a.label, a.decision) for a in gen.legal_actions(player)]
        i = rng.randrange(len(actions))
        paid_ref, paid_gen = Budget(), Budget()
        _, err_ref = _outcome(ref.apply, actions[i], paid_ref)
        _, err_gen = _outcome(gen.apply, gen.legal_actions(player)[i], paid_gen)
        assert err_ref == err_gen, f"decision {decisions}"
        assert paid_ref.used == paid_gen.used, f"decision {decisions}: both backends pay the same"
        assert ref.s == gen.s, f"decision {decisions}"
        if err_ref is not None:
            return decisions
        decisions += 1
    assert gen.is_over == ref.is_over
    if ref.is_over:
        paid_ref, paid_gen = Budget(), Budget()
        assert _outcome(ref.scores, paid_ref) == _outcome(gen.scores, paid_gen)
        assert paid_ref.used == paid_gen.used
        assert _outcome(ref.winners) == _outcome(gen.winners)
    assert [(e.kind, e.player, e.text) for e in ref.log] == [(e.kind, e.player, e.text) for e in gen.log]
    assert ref.check_invariants() == gen.check_invariants()
    # The slow path (re-running the reference to report an error) is for errors only: an
    # expression that fell back on every call would be right but slow.
    assert gen_game.compiled.generated.slow_calls[0] == slow_before
    return decisions


PATHS = [str(p) for p in _game_paths()]


@pytest.mark.parametrize("path", PATHS, ids=[Path(p).name for p in PATHS])
def test_backends_play_identically(path):
    """The default options and one other set (all of them with -m slow), two or three players."""
    for k, options in enumerate(_option_sets(Path(path), most=2)):
        counts = _player_counts(path, options)
        small = [c for c in counts if c >= 2] or counts
        play_both(path, options, small[k % min(2, len(small))], seed=k)


@pytest.mark.slow
@pytest.mark.parametrize("path", PATHS, ids=[Path(p).name for p in PATHS])
def test_backends_play_identically_many(path):
    """Hundreds of games per game: every option set, every player count up to five."""
    for options in _option_sets(Path(path)):
        counts = _player_counts(path, options)
        for seed in range(100, 100 + 40):
            play_both(path, options, counts[seed % len(counts)], seed)


@pytest.mark.parametrize("path", PATHS, ids=[Path(p).name for p in PATHS])
def test_generated_modules_reach_no_dunder_name(path):
    """What the code generator writes never names a double-underscore attribute or built-in
    (`x.__class__`, `__import__`): the first steps of every escape from Python's data model.
    Checked on every game's module, whose defines take the generator's rarer paths."""
    source = "\n".join(interpreter.load(path, cache=False).compiled.generated.source)
    assert "__" not in source


def test_hostile_names_are_data():
    """Rule names that are Python words or the generated module's own names, and texts with
    quotes and code in them: the game plays, identically, and nothing runs."""
    path = str(FIXTURES / "hostile_names")
    ref_game, gen_game = _pair(path, ())
    assert gen_game.compiled.backend == "codegen"
    source = "\n".join(gen_game.compiled.generated.source)
    for word in ("os", "system", "pwned", "SystemExit", "__import__", "__builtins__", "exec(", "lambda",
                 "__class__", '"""', "'''"):
        assert word not in source, word
    for seed in range(6):
        assert play_both(path, (), 2 + seed % 2, seed) > 0
    state = gen_game.new_game(players=2, seed=1)
    assert "'); import os #" in set(gen_game.compiled.card_names)
    assert state.decision is not None


def _runtime_error(path: Path, backend: str) -> str:
    game = interpreter.load(str(path), backend=backend)
    with pytest.raises(RuleRuntimeError) as info:
        state = game.new_game(players=2, seed=0)
        while not state.is_over:
            state.apply(state.legal_actions(next_player(state))[0])
    return str(info.value)


@pytest.mark.parametrize(("body", "where"), [
    ("set p.score += nth(p, 9)", "9:33"),  # an index past the end, inside a define
    ("set p.score += 10 / (p.score - p.score)", "15:28"),  # division by zero
    ("set p.score += first([c for c in cards(gem) where c.value > 0]).value", "15:28"),  # none has no field
    ("set p.score += count([x for x in range(1, 400000) where x > 0])", "15:46"),  # a list too long
])
def test_runtime_errors_keep_their_positions(tmp_path, body, where):
    (tmp_path / "game.rules").write_text(
        'game "Errors"\nplayers 2 to 2\nvar score per player: int = 0\nkind gem:\n    value: int\n'
        'cards gem (name, value):\n    "Zero", 0\nzone pile: public\n'
        "define nth(p: player, i: int) = [1, 2][i]\n"
        "setup:\n    move cards(gem) to pile\nflow:\n    for p in players:\n        turn p:\n"
        f"            {body}\n"
        '            choose c in pile by p\n')
    ref = _runtime_error(tmp_path, "reference")
    gen = _runtime_error(tmp_path, "codegen")
    assert gen == ref
    assert f"game.rules:{where}: " in gen, gen


def test_unknown_backend_is_refused():
    path = str(FIXTURES / "tiny")
    game = interpreter.load(path)
    with pytest.raises(ValueError, match="unknown backend"):
        compile_program(None, {}, backend="fast")  # type: ignore[arg-type]
    assert game.compiled.backend == "codegen"


@pytest.mark.parametrize("name", ["off_plan", "welcome_to", "plunderbund", "bids", "tiny"])
def test_undo_journal_puts_every_action_back(name):
    """The journal that replaced the copy per action: after any action of random games, undoing
    it gives the state from before, equal in every part (zones, tokens, vars, frames, log)."""
    path = ROOT / "games" / name if (ROOT / "games" / name).is_dir() else FIXTURES / name
    game = _pair(str(path), ())[1]
    state = game.new_game(players=3, seed=7)
    rng = random.Random(7)
    while not state.is_over:
        player = next_player(state)
        waiting = dict((p.player, (b, p)) for b, p in state._waiting())
        branch, pending = waiting[player]
        i = rng.randrange(len(pending.values))
        before = state.clone()
        undo = state._carry_out(branch, pending, i, None)
        after = state.clone()
        undo.restore(state.s)
        assert state.s == before.s
        state.apply_index(i, player)
        assert state.s == after.s  # apply_index does what the action does


def test_apply_index_refuses_what_is_not_legal():
    game = _pair(str(FIXTURES / "tiny"), ())[1]
    state = game.new_game(players=2, seed=1)
    before = state.clone()
    for bad in (-1, 99, "0", None, 1.0):
        with pytest.raises(IllegalAction):
            state.apply_index(bad)
    with pytest.raises(IllegalAction):
        state.apply_index(0, player=1 - state.decision.players[0])
    assert state.s == before.s


def test_num_actions_counts_the_legal_actions():
    game = _pair(str(FIXTURES / "bids"), ())[1]
    state = game.new_game(players=3, seed=2)
    for p in range(3):
        assert state.num_actions(p) == len(state.legal_actions(p))
    assert state.num_actions() == len(state.legal_actions(state.decision.players[0])) > 0
