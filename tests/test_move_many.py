"""A move of many cards (runtime._move_many: each zone they leave loses them in one pass) leaves
exactly what moving them one at a time leaves: zones in the same order, where each card is, who
knows each card, and the budget's units."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import interpreter
from interpreter.engine.budget import Budget
from interpreter.engine.runtime import _MANY_CARDS, Machine, _draw, draw_cards
from interpreter.tools.simulate import next_player
from rulelang.diagnostics import RuleRuntimeError

ROOT = Path(__file__).resolve().parent.parent


def _states():
    game = interpreter.load(str(ROOT / "games" / "plunderbund"))
    state = game.new_game(players=4, seed=5)
    rng = random.Random(5)
    for _ in range(60):  # cards spread over hands, piles and the table, some known to some players
        if state.is_over:
            break
        state.apply_index(rng.randrange(state.num_actions(next_player(state))), next_player(state))
    return game, state


def test_many_cards_moved_at_once_end_where_one_at_a_time_puts_them():
    game, state = _states()
    g = game.compiled
    rng = random.Random(7)
    keys = [k for k in state.s.zones if k.partition("#")[0] not in (g.zone_slots or {})]
    n_cards = len(state.s.where)
    for trial in range(40):
        many = rng.sample(range(n_cards), rng.randrange(_MANY_CARDS, min(n_cards, 120)))
        key = rng.choice(keys)
        if trial % 4 == 0:  # some of them already in the zone they go to
            many = list(state.s.zones[key]) + many[: _MANY_CARDS]
            many = list(dict.fromkeys(many))
        if trial % 3 == 0:  # who sees a zone's cards worked out afresh, not from the cache
            g.viewer_cache.clear()
        one_by_one, at_once = state.clone(), state.clone()
        m1 = Machine(g, one_by_one.s, Budget())
        for card in many:
            m1.move_card(card, key)
        if trial % 3 == 0:
            g.viewer_cache.clear()
        m2 = Machine(g, at_once.s, Budget())
        m2.move_cards(list(many), key)
        assert at_once.s.zones == one_by_one.s.zones
        assert at_once.s.where == one_by_one.s.where
        assert at_once.s.known == one_by_one.s.known
        assert m2.budget.used == m1.budget.used
        assert at_once.s.zones[key][-len(many):] == many


def test_a_zone_a_local_holds_is_changed_in_place():
    game, state = _states()
    src_key = max(state.s.zones, key=lambda k: len(state.s.zones[k]))
    held = state.s.zones[src_key]
    assert len(held) >= _MANY_CARDS
    dst_key = next(k for k in state.s.zones if k != src_key and k.partition("#")[0] not in
                   (game.compiled.zone_slots or {}))
    m = Machine(game.compiled, state.s, Budget())
    m.move_cards(list(held), dst_key)
    assert held == [] and state.s.zones[src_key] is held


def _moved_both_ways(g, state, cards: list[int], key: str, draws: int):
    """`cards` moved to `key` in clones of `state`, one at a time by `move_card` (a draw's step
    before each) and at once by `move_cards`: the same zones, places, knowledge and units.
    Returns the clone moved at once and its zones' lists as they were before the move."""
    one_by_one, at_once = state.clone(), state.clone()
    m1 = Machine(g, one_by_one.s, Budget())
    for card in cards:
        m1.charge(draws)
        m1.move_card(card, key)
    zones_before = dict(at_once.s.zones)
    m2 = Machine(g, at_once.s, Budget())
    m2.move_cards(list(cards), key, draws)
    assert at_once.s.zones == one_by_one.s.zones
    assert at_once.s.where == one_by_one.s.where
    assert at_once.s.known == one_by_one.s.known
    assert m2.budget.used == m1.budget.used == len(cards) * (1 + draws)
    return at_once, zones_before


def test_a_few_cards_moved_at_once_end_where_one_at_a_time_puts_them():
    """No card, one card (most moves: `move_cards` has a path of its own for it) and a few:
    the same zones, places, knowledge and units as `move_card` one at a time (a draw's step
    before each), and at a budget one unit short of the cost, the same overrun."""
    game, state = _states()
    g = game.compiled
    rng = random.Random(11)
    keys = [k for k in state.s.zones if k.partition("#")[0] not in (g.zone_slots or {})]
    n_cards = len(state.s.where)
    checked = 0
    for trial in range(120):
        few = rng.sample(range(n_cards), (0, 1, 1, 2, 5)[trial % 5])
        key = rng.choice(keys)
        draws = trial % 2
        if trial % 3 == 0:
            g.viewer_cache.clear()
        at_once, _ = _moved_both_ways(g, state, few, key, draws)
        checked += bool(few) and at_once.s.known != state.s.known
        if few:  # a budget one unit short: an overrun, with nothing moved past it
            short = state.clone()
            m3 = Machine(g, short.s, Budget(limit=len(few) * (1 + draws) - 1))
            with pytest.raises(RuleRuntimeError):
                m3.move_cards(list(few), key, draws)
            assert m3.budget.used == len(few) * (1 + draws)
    assert checked > 0  # some moves taught somebody a card


@pytest.mark.parametrize("part", ["whole", "first", "last"])
def test_a_whole_zone_moved_at_once_ends_where_one_at_a_time_puts_it(part):
    """A move of every card of a zone, or of its first cards, in its order (a cleanup, a pile
    shuffled back, a draw: `move_cards` has a path of its own for it), or of its last ones (not
    that path): the same zones, places, knowledge and units as `move_card` one at a time, the
    zone changed in place (a local may hold it); a zone moved onto itself stays as it is; at a
    budget one unit short, the same overrun."""
    game, state = _states()
    g = game.compiled
    keys = [k for k in state.s.zones if k.partition("#")[0] not in (g.zone_slots or {})]
    checked = taught = 0
    for src_key in keys:
        for dst_key in (keys[(keys.index(src_key) * 7 + 3) % len(keys)], src_key):
            cards = list(state.s.zones[src_key])
            if part != "whole" and len(cards) < 3:
                continue
            kept = cards[len(cards) // 2:] if part == "first" else cards[:len(cards) // 2]
            cards = cards[:len(cards) // 2] if part == "first" else cards[len(cards) // 2:] if part == "last" else cards
            if not cards:
                continue
            for draws in (0, 1):
                at_once, zones_before = _moved_both_ways(g, state, cards, dst_key, draws)
                held = zones_before[src_key]
                assert at_once.s.zones[src_key] is held
                if dst_key != src_key:
                    assert held == (kept if part != "whole" else []) and at_once.s.zones[dst_key][-len(cards):] == cards
                    checked += 1
                    taught += at_once.s.known != state.s.known
                elif part == "whole":
                    assert held == cards
                short = state.clone()
                m3 = Machine(g, short.s, Budget(limit=len(cards) * (1 + draws) - 1))
                with pytest.raises(RuleRuntimeError):
                    m3.move_cards(list(cards), dst_key, draws)
                assert m3.budget.used == len(cards) * (1 + draws)
    assert checked > 5 and taught > 0


def test_a_draw_ends_where_the_general_draw_puts_it():
    """``draw_cards`` (the fast runs' `draw`: cards between refills moved together; a draw that
    needs no refill, most of them, in one move) leaves what the general effect (``_draw``, card
    by card) leaves: the cards drawn, zones, places, knowledge, log and units; at a budget one
    unit short, the same overrun."""
    game, state = _states()
    g = game.compiled
    piles = [k for k in state.s.zones if k.startswith("draw_pile#")]
    assert piles and g.zone_refill.get("draw_pile")  # (a pile that refills from the discard)
    checked = refilled = 0
    for key in piles:
        owner = key.partition("#")[2]
        size = len(state.s.zones[key]) + len(state.s.zones[f"discard#{owner}"])
        for count in sorted({0, 1, 2, len(state.s.zones[key]), len(state.s.zones[key]) + 1, size, size + 2}):
            general, fast = state.clone(), state.clone()
            m1 = Machine(g, general.s, Budget())
            drawn1 = _draw(m1, count, key, f"play_area#{owner}")
            m2 = Machine(g, fast.s, Budget())
            drawn2 = draw_cards(m2, count, key, f"play_area#{owner}")
            assert drawn2 == drawn1
            assert fast.s.zones == general.s.zones and fast.s.where == general.s.where
            assert fast.s.known == general.s.known and fast.s.log == general.s.log
            assert fast.s.rng == general.s.rng
            assert m2.budget.used == m1.budget.used
            refilled += count > len(state.s.zones[key])
            if m1.budget.used:  # a budget one unit short: the same overrun, at the same unit
                short = state.clone()
                m3 = Machine(g, short.s, Budget(limit=m1.budget.used - 1))
                with pytest.raises(RuleRuntimeError):
                    draw_cards(m3, count, key, f"play_area#{owner}")
                assert m3.budget.used == m1.budget.used
            checked += 1
    assert checked > 10 and refilled > 0
