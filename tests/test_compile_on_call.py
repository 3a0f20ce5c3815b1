"""A load without the on-disk cache generates and compiles each generated function when it is
first called (``CodeGen._compile_on_call``, ``CodeGen.lazy``); a load that fills the cache
generates and compiles the whole module at once. Both give every function the same code (but for
the names, numbered in the order the bodies were generated), and games play the same either way."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

import interpreter
from interpreter.engine.codegen import _first_call
from interpreter.tools.simulate import next_player

ROOT = Path(__file__).resolve().parent.parent
GAMES = ["games/off_plan", "games/welcome_to", "games/plunderbund", "games/streets",
         "examples/games/tic_tac_toe", "examples/games/kuhn_poker", "tests/fixtures/hostile_names"]


def _waiting(gen) -> list:
    """The functions of a generated module not compiled yet."""
    held = [fn for fn, _, _ in gen.functions] + list(gen.filters) + list(gen.picks)
    held += [v for v in gen.ns.values() if type(v) is type(_first_call)]
    return list({id(fn): fn for fn in held if fn.__code__ is _first_call.__code__}.values())


def _shape(source: str) -> str:
    """A function's source with the module's own names (`_e3`, `_d12_u`, `_v40s`) as `_N`."""
    return re.sub(r"\b_[a-z]+\d+\w*", "_N", source)


def _module_codes(gen) -> dict:
    """Each function's code in the module compiled whole, by name."""
    whole = compile(gen.compiled_source(), "<rulelang generated>", "exec")
    return {c.co_name: c for c in whole.co_consts if hasattr(c, "co_code")}


def _playout(game, players: int, seed: int) -> list:
    state = game.new_game(players=players, seed=seed)
    rng = random.Random(seed)
    while not state.is_over:
        actions = state.legal_actions(next_player(state))
        state.apply(actions[rng.randrange(len(actions))])
    return [state.actions_taken, state.scores(), [e.text for e in state.log], state.to_json()]


@pytest.mark.parametrize("path", GAMES)
def test_a_cold_load_compiles_each_function_on_its_first_call(tmp_path, monkeypatch, path):
    monkeypatch.setenv("RULELANG_CACHE_DIR", str(tmp_path / "cache"))
    lazy = interpreter.load(str(ROOT / path), cache=False)
    whole = interpreter.load(str(ROOT / path))  # fills the cache: compiled at once
    lazy_gen, whole_gen = lazy.compiled.generated, whole.compiled.generated
    assert _waiting(lazy_gen) and not _waiting(whole_gen)
    assert not whole_gen.deferred and (lazy_gen.deferred or path.startswith("examples"))
    # the filters and choices of items, whose conditions call defines, are generated when first called too
    assert not whole_gen.deferred_named and (lazy_gen.deferred_named or not lazy_gen.filters)
    players = max(2, lazy.min_players)
    for seed in range(2):
        assert _playout(lazy, players, seed) == _playout(whole, players, seed)
    # the bodies a game never needed are generated when the source is asked for: the same ones
    assert sorted(map(_shape, lazy_gen.source)) == sorted(map(_shape, whole_gen.source))
    assert not lazy_gen.deferred and not lazy_gen.deferred_named
    # what a game never called compiles too, to the code the whole module gives it
    for fn in _waiting(lazy_gen):
        lazy_gen.ns["_compiled"](fn, fn.__kwdefaults__["_body"])
    assert not _waiting(lazy_gen)
    codes = _module_codes(lazy_gen)
    for fn, body, i in lazy_gen.functions:
        assert fn.__code__ == codes[body] and fn.__defaults__ == (i,)
    for i, fn in enumerate(lazy_gen.filters):
        assert fn.__code__ == codes[f"_f{i}"]
    for j, fn in enumerate(lazy_gen.picks):
        assert fn.__code__ == codes[f"_p{j}"]
    for name, code in codes.items():
        assert lazy_gen.ns[name].__code__ == code


def test_with_the_cache_turned_off_a_load_compiles_on_call(monkeypatch):
    monkeypatch.setenv("RULELANG_CACHE", "off")
    game = interpreter.load(str(ROOT / "examples/games/tic_tac_toe"))
    gen = game.compiled.generated
    waiting = _waiting(gen)
    assert waiting and gen.deferred  # nothing compiled, some bodies not even generated
    deferred = len(gen.deferred)
    _playout(game, 2, 0)
    assert any(fn.__code__ is not _first_call.__code__ for fn in waiting)  # compiled on their first call
    assert _waiting(gen) and 0 < len(gen.deferred) < deferred  # a game calls only some of them


def test_threads_playing_one_cold_game_generate_each_body_once(tmp_path, monkeypatch):
    """Threads playing states of one game loaded without the cache may first call a function
    at the same time: it is generated and compiled once (a lock), and they play as one thread."""
    import threading

    monkeypatch.setenv("RULELANG_CACHE_DIR", str(tmp_path / "cache"))
    path = str(ROOT / "games/plunderbund")
    alone = [_playout(interpreter.load(path, cache=False), 3, seed) for seed in range(4)]
    game = interpreter.load(path, cache=False)
    results: dict[int, list] = {}
    errors: list[BaseException] = []

    def play(seed: int) -> None:
        try:
            results[seed] = _playout(game, 3, seed)
        except BaseException as err:  # noqa: BLE001 - reported below
            errors.append(err)
    threads = [threading.Thread(target=play, args=(seed,)) for seed in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and [results[seed] for seed in range(4)] == alone
    gen = game.compiled.generated
    assert all(name for _, name, i in gen.functions if i not in gen.deferred)  # each generated one has its body
    source = gen.source  # (the rest generated now)
    assert len(set(source)) == len(source) and all(name for _, name, _ in gen.functions)
