"""A load without the on-disk cache compiles each generated function when it is first called
(``CodeGen._compile_on_call``); a load that fills the cache compiles the whole module at once.
Both give every function the very same code, and games play the same either way."""

from __future__ import annotations

import random
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
    held = [fn for fn, _, _ in gen.functions] + list(gen.filters)
    held += [v for v in gen.ns.values() if type(v) is type(_first_call)]
    return list({id(fn): fn for fn in held if fn.__code__ is _first_call.__code__}.values())


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
    assert lazy_gen.source == whole_gen.source
    assert _waiting(lazy_gen) and not _waiting(whole_gen)
    players = max(2, lazy.min_players)
    for seed in range(2):
        assert _playout(lazy, players, seed) == _playout(whole, players, seed)
    # what a game never called compiles too, to the code the whole module gives it
    for fn in _waiting(lazy_gen):
        lazy_gen.ns["_compiled"](fn, fn.__kwdefaults__["_body"])
    assert not _waiting(lazy_gen)
    codes = _module_codes(lazy_gen)
    for fn, body, i in lazy_gen.functions:
        assert fn.__code__ == codes[body] and fn.__defaults__ == (i,)
    for i, fn in enumerate(lazy_gen.filters):
        assert fn.__code__ == codes[f"_f{i}"]
    for name, code in codes.items():
        assert lazy_gen.ns[name].__code__ == code


def test_with_the_cache_turned_off_a_load_compiles_on_call(monkeypatch):
    monkeypatch.setenv("RULELANG_CACHE", "off")
    game = interpreter.load(str(ROOT / "examples/games/tic_tac_toe"))
    gen = game.compiled.generated
    waiting = len(_waiting(gen))
    assert waiting
    _playout(game, 2, 0)
    assert 0 < len(_waiting(gen)) < waiting  # a game calls only some of them
