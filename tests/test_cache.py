"""The on-disk load cache (interpreter/engine/cache.py): a warm load skips Lark and Python's
compiler, gives the same game, and a damaged or forged entry is never used."""

from __future__ import annotations

import os
import pickle
import random
import shutil
from pathlib import Path

import pytest

import interpreter
from interpreter.engine import api, cache, codegen, compiler
from interpreter.engine.budget import Budget
from interpreter.tools.simulate import next_player
from rulelang.diagnostics import RuleError, RuleRuntimeError

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv("RULELANG_CACHE_DIR", str(d))
    return d


@pytest.fixture
def game_dir(tmp_path):
    g = tmp_path / "tiny"
    shutil.copytree(FIXTURES / "tiny", g)
    return g


def _playout(game, seed: int = 3) -> list:
    state = game.new_game(players=3, seed=seed)
    rng = random.Random(seed)
    while not state.is_over:
        actions = state.legal_actions(next_player(state))
        state.apply(actions[rng.randrange(len(actions))])
    return [state.actions_taken, state.scores(), [e.text for e in state.log]]


def _refuse(*args, **kwargs):
    raise AssertionError("parsed, checked or compiled again")


def test_a_warm_load_skips_parsing_and_compiling_and_plays_the_same(cache_dir, game_dir, monkeypatch):
    cold = interpreter.load(str(game_dir), options={"bonus": True})
    kinds = sorted(p.name.split("-")[0] for p in cache_dir.iterdir() if p.name not in ("key",))
    assert [k for k in kinds if k != "grammar"] == ["code", "generated", "parsed"]  # (grammar: once a process)
    with monkeypatch.context() as m:
        m.setattr(api, "load_sources", _refuse)
        m.setattr(api, "check", _refuse)
        m.setattr("builtins.compile", _refuse)
        m.setattr(codegen.CodeGen, "expr", _refuse)  # nor is the module generated again
        warm = interpreter.load(str(game_dir), options={"bonus": True})
    with monkeypatch.context() as m:
        m.setattr(api, "load_sources", _refuse)  # other options: parsed files reused, code compiled
        other = interpreter.load(str(game_dir), options={"speed": "fast"})
    assert _playout(warm) == _playout(cold)
    assert other.option_values["speed"] == "fast" and warm.fingerprint == cold.fingerprint


def test_a_warm_load_knows_each_node_as_the_checker_did(cache_dir, game_dir):
    """The checker's facts are keyed by id(node): the cached Program gets them for its own nodes."""
    interpreter.load(str(game_dir))
    modules, _, program = cache.load_parsed(str(game_dir), [])
    fresh = api.check(modules)
    assert program is not None and len(program.types) == len(fresh.types) > 0
    assert sorted(program.types.values()) == sorted(fresh.types.values())
    assert sorted(map(str, program.resolved.values())) == sorted(map(str, fresh.resolved.values()))
    nodes = {id(x) for x in cache._reachable((program, modules)).values()}
    assert set(program.types) <= nodes and set(program.resolved) <= nodes


def test_files_that_do_not_check_are_parsed_once_and_checked_each_time(cache_dir, game_dir, monkeypatch):
    parts = game_dir / "parts.rules"
    parts.write_text(parts.read_text() + "\nvar broken: number = no_such_thing\n")
    for _ in range(2):
        with pytest.raises(RuleError, match="no_such_thing"):
            interpreter.load(str(game_dir))
        monkeypatch.setattr(api, "load_sources", _refuse)  # the second time: from the cache
    assert cache.load_parsed(str(game_dir), [])[2] is None


def test_a_changed_rule_file_is_read_again(cache_dir, game_dir):
    interpreter.load(str(game_dir))
    parts = game_dir / "parts.rules"
    parts.write_text(parts.read_text().replace('"Ruby", red, 3, 2', '"Ruby", red, 7, 2'))
    game = interpreter.load(str(game_dir))
    ruby = game.compiled.card_names.index("Ruby")
    assert game.compiled.card_attrs[ruby]["value"] == 7


def test_a_damaged_entry_is_ignored_and_replaced(cache_dir, game_dir):
    expected = _playout(interpreter.load(str(game_dir)))
    for entry in cache_dir.iterdir():
        if entry.name != "key":
            data = bytearray(entry.read_bytes())
            data[len(data) // 2] ^= 0xFF
            entry.write_bytes(bytes(data[: len(data) - 7]))
    assert _playout(interpreter.load(str(game_dir))) == expected
    assert _playout(interpreter.load(str(game_dir))) == expected  # from the rewritten entries


class _Forged:
    """A pickle that would create a file when loaded: what an attacker would plant."""

    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_a_forged_entry_is_never_unpickled(cache_dir, game_dir, tmp_path):
    interpreter.load(str(game_dir))
    marker = tmp_path / "pwned"
    for entry in cache_dir.iterdir():
        if entry.name.startswith(("parsed-", "generated-")):
            blob = entry.read_bytes()
            head = len(b"rulelang-cache-1\n")
            entry.write_bytes(blob[: head + 32] + pickle.dumps(_Forged(str(marker))))  # its MAC no longer fits
    game = interpreter.load(str(game_dir))
    assert not marker.exists()
    assert game.name == "Tiny"


def test_a_cache_others_may_write_to_is_not_used(cache_dir, game_dir):
    cache_dir.mkdir()
    os.chmod(cache_dir, 0o777)
    interpreter.load(str(game_dir))
    assert list(cache_dir.iterdir()) == []


def test_the_cache_can_be_turned_off(cache_dir, game_dir, monkeypatch):
    monkeypatch.setenv("RULELANG_CACHE", "off")
    interpreter.load(str(game_dir))
    assert not cache_dir.exists()
    monkeypatch.delenv("RULELANG_CACHE")
    interpreter.load(str(game_dir), cache=False)
    assert not cache_dir.exists()


def test_the_engine_version_covers_the_code_and_python():
    version = cache.engine_version()
    assert len(version) == 64 and version == cache.engine_version()


def test_the_grammar_tables_are_read_back_not_worked_out_again(cache_dir, game_dir, monkeypatch):
    from rulelang import parser

    monkeypatch.setattr(parser, "_built", [])
    monkeypatch.setattr(parser, "_read_back", [])
    interpreter.load(str(game_dir), cache=False)  # no cache: the tables are worked out, not stored
    assert not any(p.name.startswith("grammar-") for p in cache_dir.glob("*"))
    monkeypatch.setattr(parser, "_built", [])
    monkeypatch.setattr(parser, "_read_back", [])
    expected = _playout(interpreter.load(str(game_dir)))
    assert [p.name.split("-")[0] for p in cache_dir.iterdir()].count("grammar") == 1
    monkeypatch.setattr(parser, "_built", [])
    monkeypatch.setattr(parser, "_read_back", [])
    for entry in cache_dir.iterdir():
        if entry.name.startswith("parsed-"):
            entry.unlink()  # so the next load parses: with the tables from the cache
    monkeypatch.setattr(parser, "Lark", _refuse_lark(parser.Lark))
    game = interpreter.load(str(game_dir))
    assert parser._read_back and not parser._built and _playout(game) == expected
    assert parser._reading_lark().options.propagate_positions  # what Lark cannot save is given again


def _refuse_lark(real):
    class NoBuilding(real):
        def __init__(self, *args, **kwargs):
            raise AssertionError("the grammar was worked out again")
    return NoBuilding


@pytest.mark.parametrize("game", ["off_plan", "welcome_to", "plunderbund"])
def test_the_real_games_are_cached_checked(cache_dir, game):
    """Their checked Program pickles (a fact that cannot would silently cost every warm load the
    checker)."""
    path = str(Path(__file__).resolve().parent.parent / "games" / game)
    interpreter.load(path)
    assert cache.load_parsed(path, [])[2] is not None


def test_the_cache_keeps_the_entries_used_last(cache_dir, game_dir, monkeypatch):
    monkeypatch.setattr(cache, "MAX_ENTRIES", 6)
    interpreter.load(str(game_dir))
    used = {p.name for p in cache_dir.iterdir() if p.name != "key"}
    stale = []
    for i in range(10):  # entries of older engines, never read again
        p = cache_dir / f"code-{i:040d}"
        p.write_bytes(b"old")
        os.utime(p, (1_000_000 + i, 1_000_000 + i))
        stale.append(p.name)
    interpreter.load(str(game_dir), options={"speed": "fast"})  # writes new code and generated entries: prunes
    left = {p.name for p in cache_dir.iterdir()}
    assert used <= left and "key" in left
    kept = 6 - len(used) - 2  # the used ones, the two new entries, then the newest stale ones
    assert len(left - {"key"}) == 6 and left & set(stale) == set(stale[len(stale) - kept:])


def test_the_cache_keeps_at_most_its_bytes_of_entries_used_last(cache_dir, game_dir, monkeypatch):
    """Past MAX_BYTES, the entries used longest ago go (the newest one always stays), looked at
    when a big entry is written."""
    interpreter.load(str(game_dir))
    used = sorted((p for p in cache_dir.iterdir() if p.name != "key"), key=lambda p: p.stat().st_mtime)
    stale = []
    for i in range(4):
        p = cache_dir / f"parsed-{i:040d}"
        p.write_bytes(b"x" * 100_000)
        os.utime(p, (1_000_000 + i, 1_000_000 + i))
        stale.append(p)
    monkeypatch.setattr(cache, "MAX_BYTES", sum(p.stat().st_size for p in used) + 250_000)
    cache._write("parsed", ("big",), b"y" * 100_000)  # a big entry: the bytes are counted
    left = {p.name for p in cache_dir.iterdir()}
    assert {p.name for p in used} <= left and cache._name("parsed", "big") in left
    assert [p.name in left for p in stale] == [False, False, False, True]  # 100 kB of room: the newest
    cache._write("code", ("small",), b"z")  # a small one: not even looked at
    assert cache._name("code", "small") in {p.name for p in cache_dir.iterdir()}


@pytest.mark.parametrize("path", ["games/off_plan", "games/plunderbund", "tests/fixtures/hostile_names"])
def test_a_replayed_module_has_every_constant_of_the_generated_one(cache_dir, path):
    """A warm load makes the generated module's constants again without generating it: the plain
    ones from the cache, the others (reference closures, the runtime's functions, consts worked
    out at load time) by their recipes. Each name holds what it held in the cold load, and the
    games play the same."""
    root = Path(__file__).resolve().parent.parent
    cold = interpreter.load(str(root / path))
    warm = interpreter.load(str(root / path))
    cold_gen, warm_gen = cold.compiled.generated, warm.compiled.generated
    assert cold_gen.replay is None and warm_gen.replay is not None
    assert warm_gen.source == cold_gen.source
    names = set(cold_gen.const_names.values())
    assert any(callable(cold_gen.ns[name]) for name in names)  # some are closures
    # the lists of the cards' fields (`CodeGen.card_field`), made again from the warm game's cards
    assert cold_gen.card_fields and warm_gen.card_fields == {}
    for (field, default), name in cold_gen.card_fields.items():
        assert warm_gen.ns[name] == cold_gen.ns[name]
        assert all(x is values.get(field, default) for x, values in zip(warm_gen.ns[name], warm.compiled.card_attrs,
                                                                         strict=True))
    for name in names:
        before, after = cold_gen.ns[name], warm_gen.ns[name]
        if callable(before):
            assert type(after) is type(before) and getattr(after, "__qualname__", "") == before.__qualname__
        else:
            assert after == before and type(after) is type(before)
    players = max(2, cold.min_players)
    for seed in range(3):
        state_cold, state_warm = cold.new_game(players=players, seed=seed), warm.new_game(players=players, seed=seed)
        rng = random.Random(seed)
        while not state_cold.is_over:
            actions = state_cold.legal_actions(next_player(state_cold))
            assert [a.label for a in actions] == [a.label for a in state_warm.legal_actions(next_player(state_warm))]
            pick = rng.randrange(len(actions))
            state_cold.apply(actions[pick])
            state_warm.apply(state_warm.legal_actions(next_player(state_warm))[pick])
        assert state_cold.scores() == state_warm.scores()
        assert [e.text for e in state_cold.log] == [e.text for e in state_warm.log]


@pytest.mark.parametrize("path", ["games/plunderbund", "games/welcome_to"])
def test_a_warm_load_gets_the_cards_and_initial_values_back_without_working_them_out(cache_dir, path, monkeypatch):
    """The cards' values and the vars' initial values are worked out by the load that generates
    the module and kept with it: a warm load evaluates none of them, and has equal ones."""
    root = Path(__file__).resolve().parent.parent
    worked_out: list[str] = []
    static = compiler._Compiler.static

    def noted(self, e, what, local_values=None):
        worked_out.append(what)
        return static(self, e, what, local_values)
    with monkeypatch.context() as m:
        m.setattr(compiler._Compiler, "static", noted)
        cold = interpreter.load(str(root / path))
    cold_work, worked_out[:] = list(worked_out), []
    with monkeypatch.context() as m:
        m.setattr(compiler, "_cards", _refuse)
        m.setattr(compiler._Compiler, "static", noted)
        warm = interpreter.load(str(root / path))
    # Each var's initial value once fewer (those of per-card vars a generated function reads are
    # still worked out by its recipe, as consts are: see `CodeGen.cook`)
    initial = {f"the initial value of `{name}`" for name in cold.compiled.var_inits}
    assert sum(w in initial for w in worked_out) == sum(w in initial for w in cold_work) - len(initial) >= 0
    for field in ("card_names", "card_kinds", "card_attrs", "cards_of_kind", "var_inits"):
        assert getattr(warm.compiled, field) == getattr(cold.compiled, field), field
    assert warm.compiled.card_attrs is warm.compiled.generated.ns["_card_attrs"]  # read by the generated code
    state_cold, state_warm = cold.new_game(players=3, seed=5), warm.new_game(players=3, seed=5)
    assert state_warm.to_json() == state_cold.to_json()


def test_a_cold_load_works_the_cards_out(cache_dir, monkeypatch):
    """Without a kept entry (other option values), the cards are worked out as before."""
    root = Path(__file__).resolve().parent.parent
    interpreter.load(str(root / "games/plunderbund"))
    with monkeypatch.context() as m:
        m.setattr(compiler, "_cards", _refuse)
        with pytest.raises(AssertionError, match="compiled again"):
            interpreter.load(str(root / "games/plunderbund"), cache=False)


FAULTS = """game "Faults"
players 2 to 2
var total: int = 0
var squares: list of int = [1, 2, 3]
define share(n: int) = 60 / (n - 1)
define square_after(n: int) = squares[n + 5]
flow:
    for p in players:
        turn p:
            choose n in [0, 1, 2, 3] by p
            set total = total + n
            if n == 1:
                set total = share(n)
            if n == 2:
                set total = square_after(n)
            if n == 3:
                set total = 100 / (n - 3)
"""


@pytest.mark.parametrize("choice", [1, 2, 3])
def test_a_warm_load_builds_a_reference_closure_at_its_first_call_and_fails_as_a_cold_load(
        cache_dir, tmp_path, choice):
    """A warm load does not build the reference closures (the generated code's slow path) nor the
    defines' closures they call: each is built when first called, as a fault calls it, and the
    action then fails as in a cold load, with the same error, position and units used, and the
    state unchanged."""
    (tmp_path / "faults").mkdir()
    (tmp_path / "faults" / "game.rules").write_text(FAULTS)
    path = str(tmp_path / "faults")
    outcomes = []
    for cached in (False, True):
        if cached:
            interpreter.load(path)  # fills the cache
        game = interpreter.load(path, cache=cached)
        refs = game.compiled.generated.refs
        lazy = [r for r in refs if isinstance(r, compiler._LazyReference)]
        assert (len(lazy) == len(refs)) if cached else not lazy
        assert all(r.built is None for r in lazy)
        state = game.new_game(players=2, seed=0)
        before, budget = state.clone(), Budget(10_000)
        with pytest.raises(RuleRuntimeError) as err:
            state.apply_index(choice, 0, budget)
        assert state.s == before.s
        outcomes.append((str(err.value), budget.used))
        if cached:
            assert 1 <= sum(r.built is not None for r in lazy) <= 2  # the failing expression's, at most
        state.apply_index(0)  # the game goes on
        assert state.s.vars["total"] == 0
    assert outcomes[0] == outcomes[1]
    assert ("division by zero" in outcomes[0][0]) == (choice != 2)


def test_the_runs_of_a_warm_game_are_compiled_once_for_every_process(cache_dir, game_dir, monkeypatch):
    """The generated runs (codegen.code_runs) are made when a code first runs: their compiled
    code goes through the cache, so a game loaded again (another process, a worker) plays the
    same without compiling them: the runs' source is the same whether the load generated the
    game's module or read it from the cache."""
    first = _playout(interpreter.load(str(game_dir)))
    with monkeypatch.context() as m:
        m.setattr("builtins.compile", _refuse)
        again = _playout(interpreter.load(str(game_dir)))
    assert again == first
    monkeypatch.setenv("RULELANG_CACHE", "off")  # no cache: compiled in the process, as before
    compiled = []
    real = compile
    monkeypatch.setattr("builtins.compile", lambda *a, **k: compiled.append(a[1]) or real(*a, **k))
    assert _playout(interpreter.load(str(game_dir))) == first
    assert any(name.startswith("<rulelang steps ") for name in compiled)
