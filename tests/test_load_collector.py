"""What a load does to Python's cyclic garbage collector (api._collector_paused): paused while it
runs, back on after it, everything the load made handed to its oldest generation unwalked, and
nothing kept alive for good: a dropped game is still freed, and objects the program froze stay
frozen."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import interpreter

TIC_TAC_TOE = Path(__file__).resolve().parent.parent / "examples" / "games" / "tic_tac_toe"


def test_the_collector_is_on_after_a_load_and_the_loads_objects_wait_in_its_oldest_generation():
    assert gc.isenabled()
    game = interpreter.load(str(TIC_TAC_TOE), cache=False)
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0  # moved, not frozen
    oldest = gc.get_objects(generation=2)
    assert any(o is game.compiled for o in oldest)  # (a young collection would leave it in the middle one)
    assert game.new_game(players=2, seed=1).num_actions(0) == 9


def test_a_load_with_the_collector_off_leaves_it_off():
    gc.disable()
    try:
        interpreter.load(str(TIC_TAC_TOE), cache=False)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_dropped_game_is_freed_by_a_full_collection():
    game = interpreter.load(str(TIC_TAC_TOE), cache=False)
    game.new_game(players=2, seed=1)
    gone = weakref.ref(game.compiled)
    del game
    gc.collect()
    assert gone() is None


def test_objects_the_program_froze_stay_frozen_through_a_load():
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        assert frozen > 0
        interpreter.load(str(TIC_TAC_TOE), cache=False)
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()
