"""A new game starts from its setup recorded once per player count (issue 14): the part of the
setup before its first draw from the seeded generator (all of it, when it never draws) runs once,
and each new game runs only the rest. These tests hold it to the setup run from the start."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import interpreter
from interpreter.engine import api, runtime
from interpreter.engine.state import rng_below, rng_shuffle
from rulelang.diagnostics import RuleRuntimeError

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _game_paths() -> list[Path]:
    roots = [ROOT / "games", ROOT / "examples" / "games", FIXTURES]
    return sorted(p for r in roots if r.is_dir() for p in r.iterdir() if (p / "game.rules").is_file())


PATHS = [str(p) for p in _game_paths()]
SEEDS = (0, 3, 17, 2**32 + 5, 2**64 - 1)


@pytest.mark.parametrize("path", PATHS, ids=[Path(p).name for p in PATHS])
def test_a_new_game_is_its_setup_run_from_the_start(path):
    """Every player count, seeds small and huge: the same state and the same work paid."""
    game = interpreter.load(path)
    g = game.compiled
    for players in range(g.min_players, g.max_players + 1):
        if game.refusals(players):
            continue
        start = api._record_setup(g, players)
        for seed in SEEDS:
            full, paid = api._full_setup(g, players, seed)
            assert game.new_game(players=players, seed=seed).s == full, (players, seed)
            if start is not None:
                state, replayed = api._from_start(g, start, seed)
                assert state == full
                assert replayed.used == paid.used, "the budget of the setup is the one it had"


@pytest.mark.parametrize(("name", "done"), [("kuhn_poker", False), ("tic_tac_toe", True)])
def test_the_record_stops_at_the_first_draw(name, done):
    """Kuhn poker's setup deals (it stops at its shuffle, everything before kept); tic-tac-toe's
    never draws, so its record is the game waiting for the first move."""
    game = interpreter.load(str(ROOT / "examples" / "games" / name))
    start = api._record_setup(game.compiled, 2)
    assert start is not None and start.done is done
    assert start.state.rng == start.state.seed == 0
    if done:
        assert start.state.pending is not None
    else:
        assert start.state.zones["deck"] and not start.state.zones["box"]  # moved, not yet shuffled
    seen = {tuple(tuple(game.new_game(players=2, seed=seed).s.zones[f"hand#{p}"]) for p in (0, 1))
            for seed in range(40)} if not done else set()
    assert done or len(seen) == 6, "the deal still depends on the seed: all six deals of three cards"


def test_a_setup_that_fails_fails_in_every_game(tmp_path):
    (tmp_path / "game.rules").write_text(
        'game "Broken setup"\nplayers 2\nkind gem:\n    value: int\ncards gem (name, value):\n    "A", 1\n'
        "zone pile: public\nvar x: int = 0\nsetup:\n    move cards(gem) to pile\n    shuffle pile\n"
        "    set x = 10 / (x - x)\nflow:\n    choose c in pile by first(players)\n")
    game = interpreter.load(str(tmp_path))
    assert api._record_setup(game.compiled, 2) is None  # not recorded: each game runs it and fails
    for seed in (0, 1):
        with pytest.raises(RuleRuntimeError, match="game.rules:12"):
            game.new_game(players=2, seed=seed)


def test_a_count_of_procedure_calls_sees_the_whole_setup(tmp_path):
    """`validate` counts every procedure called (runtime.push_counter): with the count on, each new
    game runs its setup from the start, so the calls the record would skip are counted too."""
    (tmp_path / "game.rules").write_text(
        'game "Counted"\nplayers 2\nvar x: int = 0\nprocedure bump():\n    set x += 1\n'
        "setup:\n    bump\nflow:\n    choose i in [1, 2] by first(players)\n")
    game = interpreter.load(str(tmp_path))
    game.new_game(players=2, seed=0)  # recorded
    calls: dict[str, int] = {}
    runtime.push_counter = calls
    try:
        game.new_game(players=2, seed=1)
        game.new_game(players=2, seed=2)
    finally:
        runtime.push_counter = None
    assert calls == {"proc:bump": 2}


def _shuffle_by_steps(state: int, items: list) -> int:
    """Fisher-Yates over rng_below, as the seeded generator is defined."""
    for i in range(len(items) - 1, 0, -1):
        state, j = rng_below(state, i + 1)
        items[i], items[j] = items[j], items[i]
    return state


def test_the_written_out_shuffle_is_the_generator_s():
    """rng_shuffle inlines rng_below and rng_next: the same orders and generator states, with
    its draws one by one (few items) or worked out together (``_rng_shuffle_packed``: from
    ``_PACKED_FROM`` to ``_PACKED_UPTO`` items; more than ``_FEW`` bounds of their own limits)."""
    from interpreter.engine import state as state_module

    rng = random.Random(5)
    low, high = state_module._PACKED_FROM, state_module._PACKED_UPTO
    for n in [0, 1, 2, 3, 7, 52, 200, low - 1, low, state_module._FEW, state_module._FEW + 1, high, high + 1]:
        for _ in range(30):
            seed = rng.randrange(2**64)
            a, b = list(range(n)), list(range(n))
            assert rng_shuffle(seed, a) == _shuffle_by_steps(seed, b)
            assert a == b


def test_the_written_out_shuffle_rejects_as_the_generator_does(monkeypatch):
    """A draw at or past its bound's limit is drawn again (one draw in 2**58 at most: the limits
    are lowered here, the same for rng_below, so that half the draws are); draws worked out
    together hand over to the loop at the first such draw (from ``_PACKED_FROM`` items on)."""
    from interpreter.engine import state as state_module

    half = 1 << 63
    monkeypatch.setattr(state_module, "_LIMITS", (0,) + (half,) * state_module._FEW)
    monkeypatch.setattr(state_module, "_LOWEST_LIMIT", half)

    def below(state: int, bound: int) -> tuple[int, int]:
        while True:
            state, x = state_module.rng_next(state)
            if x < half:
                return state, x % bound

    rng = random.Random(8)
    for n in [2, 3, 9, 40, state_module._FEW]:
        for _ in range(20):
            seed = rng.randrange(2**64)
            a, b = list(range(n)), list(range(n))
            state = seed
            for i in range(n - 1, 0, -1):
                state, j = below(state, i + 1)
                b[i], b[j] = b[j], b[i]
            assert rng_shuffle(seed, a) == state
            assert a == b


def test_games_of_the_same_deal_are_copied_and_equal_their_full_setup():
    """Kuhn poker's setup shuffles three cards and draws nothing more: six deals, each set up once
    and copied after, every copy the game its own setup makes (its own seed and generator)."""
    game = interpreter.load(str(ROOT / "examples" / "games" / "kuhn_poker"))
    g = game.compiled
    for seed in range(150):
        assert game.new_game(players=2, seed=seed).s == api._full_setup(g, 2, seed)[0], seed
    memo = game._ready[2].deals
    assert memo.states is not None and len(memo.states) == 6
    assert memo.hits == 150 - 6


def test_deals_that_do_not_come_back_are_not_kept():
    """Welcome To's setup shuffles six plans first, then draws again (so no deal is kept): after
    MAX_DEALS_TRIED games without a deal seen twice, nothing more is looked up, and new games are
    still their full setups. A first shuffle of more cards (twenty) keeps no deals at all."""
    game = interpreter.load(str(ROOT / "games" / "welcome_to"))
    g = game.compiled
    for seed in range(api.MAX_DEALS_TRIED + 3):
        assert game.new_game(players=2, seed=seed).s == api._full_setup(g, 2, seed)[0], seed
    memo = game._ready[2].deals
    assert memo.states is None and memo.hits == 0 and memo.tried == api.MAX_DEALS_TRIED
    coin = interpreter.load(str(FIXTURES / "coin"))
    coin.new_game(players=2, seed=0)
    assert coin._ready[2].zone == "deck" and coin._ready[2].deals is None


@pytest.mark.parametrize("path", PATHS, ids=[Path(p).name for p in PATHS])
def test_the_record_is_the_same_in_both_backends(path):
    """The setup's record does not depend on the backend: the same state, stopped at the same
    draw with the same work paid, or not recorded in both (a procedure that cannot stop, called
    from the generated runs without a frame of its own, keeps its frame while a setup is
    recorded, since the record may stop inside it: ``Machine.call_leaf``)."""
    records = []
    for backend in ("reference", "codegen"):
        g = interpreter.load(path, backend=backend).compiled
        starts = []
        for players in range(g.min_players, g.max_players + 1):
            start = api._record_setup(g, players)
            starts.append(None if start is None else (start.state, start.used, start.done, start.zone))
        records.append(starts)
    assert records[0] == records[1]
    assert any(start is not None for start in records[1])
