"""Shared pieces of the hostile-input tests (issue 7): the games to attack, a guard against
hangs, and the one rule every test checks: a hostile input ends in a game or in one of our
own errors, never in another exception.
"""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path

import interpreter
from interpreter import IllegalAction, SaveError
from interpreter.tools.mutate import time_limit
from rulelang.diagnostics import RuleError, RuleRuntimeError

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
HOSTILE = Path(__file__).resolve().parent / "hostile"

# What the framework may raise at a hostile input: our own errors, and ValueError for a bad
# argument (an option, a player count).
OURS = (RuleError, RuleRuntimeError, IllegalAction, SaveError, ValueError)


class Hang(BaseException):
    """Raised by `no_hang` when a call runs past its time (a BaseException so that nothing in
    the engine can swallow it)."""


def no_hang(seconds: float):
    """Fail with Hang if the block runs longer than `seconds` (POSIX main thread only)."""
    return time_limit(seconds, lambda: Hang(f"still running after {seconds} s"))


def game_dirs() -> list[Path]:
    """Every game folder under games/, and the engine's test fixtures."""
    dirs = sorted(p for p in (ROOT / "games").iterdir() if (p / "game.rules").is_file())
    return dirs + sorted(p for p in FIXTURES.iterdir() if (p / "game.rules").is_file())


@cache
def loaded(path: str):
    """The game at `path`, or None when it does not load (a game being written by a teammate)."""
    try:
        return interpreter.load(path)
    except RuleError:
        return None


def loadable_games() -> list[str]:
    return [str(p) for p in game_dirs() if loaded(str(p)) is not None]


def player_counts(game) -> list[int]:
    """The player counts a game can be started with (its `require` lines may refuse some)."""
    counts = range(game.min_players, game.max_players + 1)
    refusals = getattr(game, "refusals", None)
    allowed = [n for n in counts if refusals is None or not refusals(n)]
    return allowed or list(counts)


def check_rule_error(err: RuleError) -> None:
    """A RuleError must carry diagnostics, each with a code, a message and a real position."""
    assert err.diagnostics, "a RuleError with no diagnostics"
    for d in err.diagnostics:
        assert d.code.startswith("E") and d.message, d
        assert d.pos.line >= 1 and d.pos.col >= 1, f"a diagnostic with no position: {d}"
    assert str(err)


def check_runtime_error(err: RuleRuntimeError) -> None:
    assert err.pos is not None and err.pos.line >= 1, f"a runtime error with no position: {err}"
    assert err.bare_message


def play_random(state, rng: random.Random, limit: int) -> None:
    """Apply up to `limit` random legal actions."""
    for _ in range(limit):
        if state.is_over:
            return
        player = rng.choice(state.decision.players)
        state.apply(rng.choice(state.legal_actions(player)))


def outcome(path: str, players: int | None = None, actions: int = 20, seed: int = 0) -> str:
    """Load the game at `path`, start it and play a few random actions.

    Returns which of the allowed outcomes happened; any other exception propagates (a crash),
    and a failing action must leave the state as it was.
    """
    try:
        game = interpreter.load(path)
    except RuleError as err:
        check_rule_error(err)
        return "rule error"
    n = players if players is not None else player_counts(game)[0]
    try:
        state = game.new_game(players=n, seed=seed)
    except RuleRuntimeError as err:
        check_runtime_error(err)
        return "runtime error at setup"
    except ValueError as err:  # its own `require` lines refuse every player count
        assert str(err)
        return "refused by its requirements"
    rng = random.Random(seed)
    for _ in range(actions):
        if state.is_over:
            break
        player = rng.choice(state.decision.players)
        legal = state.legal_actions(player)
        assert legal, "a decision with no legal action"
        before = state.to_json()
        try:
            state.apply(rng.choice(legal))
        except RuleRuntimeError as err:
            check_runtime_error(err)
            assert state.to_json() == before, "a failing action changed the state"
            return "runtime error in play"
    try:
        state.scores()
        state.winners()
        state.check_invariants()
        for p in range(state.num_players):
            state.view(p)
    except RuleRuntimeError as err:
        check_runtime_error(err)
        return "runtime error in scores"
    return "game"


def run_capped(code: str, timeout: float = 90, memory_mib: int = 1024) -> str:
    """Run Python `code` in a fresh process (from the repository's root) whose address space is
    capped at `memory_mib`; returns what it printed. Running past `timeout` seconds, or dying (a
    MemoryError, a traceback), fails the test: a limit that is not kept is a failure, not a slow
    test."""
    import subprocess
    import sys

    import pytest

    cap = memory_mib * 2**20
    prelude = f"import resource\nresource.setrlimit(resource.RLIMIT_AS, ({cap}, {cap}))\n"
    try:
        done = subprocess.run([sys.executable, "-c", prelude + code], capture_output=True, text=True,
                              timeout=timeout, cwd=ROOT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"still running after {timeout} s")
    if done.returncode != 0:
        pytest.fail(f"the process failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return done.stdout
