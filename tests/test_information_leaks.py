"""Views never leak: for every game and option set, change only what a player cannot know and
check that nothing they receive changes (issue 12; rule 6 of the house rules).

At random states of random games, for each player P: deal the cards P does not know again among
the places P cannot see (swapping places, so every other reference stays put), alter the hidden
vars, the other players' `owner` vars and `owner` or `hidden` token counts; then P's view, P's
information state and P's legal action labels must be the same. P's state is also resampled
(`State.resample`) and must keep P's information state and legal labels.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import interpreter
from interpreter.agents import RandomAgent
from interpreter.engine import information
from rulelang.diagnostics import RuleRuntimeError

ROOT = Path(__file__).resolve().parent.parent

# Every game (games/, examples/games/ and the cookbook's, so a game added later is covered too)
# with its default options and with each other value of each option alone, at one or two player
# counts it allows.
GAME_DIRS = sorted(p for base in ("games", "examples/games", "examples/cookbook") for p in (ROOT / base).iterdir()
                   if (p / "game.rules").exists()) + [ROOT / "examples" / "information"]


def _cases() -> list:
    cases = []
    for folder in GAME_DIRS:
        game = interpreter.load(str(folder))
        option_sets = [{}] + [{o.name: v} for o in game.options for v in o.choices
                              if v != o.default and o.kind in ("choice", "bool")]
        for options in option_sets:
            try:
                g = interpreter.load(str(folder), options=options)
            except ValueError:  # options that cannot be played together
                continue
            counts = [n for n in range(g.min_players, g.max_players + 1) if not g.refusals(n)]
            if counts:
                picked = (counts[0],) if len(counts) == 1 else (counts[0], counts[min(2, len(counts) - 1)])
                cases.append((str(folder.relative_to(ROOT)), options, picked))
    return cases


CASES = _cases()


def _ids(case):
    path, options, players = case
    opts = ",".join(f"{k}={v}" for k, v in options.items()) or "default"
    return f"{Path(path).name}[{opts}]"


def _perturb(state, player: int, rng: random.Random):
    """A copy of `state` that differs from it only in what `player` cannot know."""
    t = state.clone()
    s, g = t.s, t.game.compiled
    unknown = information.unknown_cards(g, s, player)
    by_kind: dict[str, list[int]] = {}
    for c in unknown:
        by_kind.setdefault(g.card_kinds[c], []).append(c)
    for cards in by_kind.values():  # swap places: each card keeps its own tokens, knowledge, vars
        places = [(s.where[c], s.zones[s.where[c]].index(c)) for c in cards]
        shuffled = cards[:]
        rng.shuffle(shuffled)
        for (key, i), c in zip(places, shuffled, strict=True):
            s.zones[key][i] = c
            s.where[c] = key
    for name, (per, _) in g.var_inits.items():
        keys = [name] if per is None else [f"{name}#{p}" for p in range(s.num_players)] if per == "player" else []
        for key in keys:
            owner = int(key.split("#")[1]) if "#" in key else None
            if information.var_visible(g, name, owner, player):
                continue
            value = s.vars[key]
            if isinstance(value, bool):
                s.vars[key] = not value
            elif isinstance(value, int):
                s.vars[key] = value + rng.randint(1, 5)
    for key in list(s.tokens):
        holder, token, _ = key.split("|")
        if holder.startswith("p") and not information.token_visible(g, token, holder, player):
            give = rng.randint(0, s.tokens.get(f"supply|{token}|{g.token_sides[token][0]}", 0))
            s.tokens[key] += give
    return t


def _seen(state, player: int):
    return (state.view(player), state.information_state(player),
            [a.label for a in state.legal_actions(player)])


def _sample_states(game, players: int, seed: int, count: int):
    """Random states of one random game (a game whose rules fail with these options and players
    ends the sample there: that is another test's business)."""
    try:
        s = game.new_game(players=players, seed=seed)
    except RuleRuntimeError:
        return
    agent = RandomAgent(seed=seed)
    rng = random.Random(seed)
    marks = sorted(rng.sample(range(1, 120), count))
    step = 0
    while not s.is_over and marks:
        if step == marks[0]:
            marks.pop(0)
            yield s.clone()
        try:
            s.apply(agent.choose(s, s.decision.players[0]))
        except RuleRuntimeError:
            return
        step += 1
    yield s


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_what_a_player_cannot_know_leaves_no_trace(case):
    path, options, counts = case
    game = interpreter.load(str(ROOT / path), options=options)
    rng = random.Random(12)
    for players in counts:
        for state in _sample_states(game, players, seed=players * 7 + 1, count=2):
            for p in range(players):
                seen = _seen(state, p)
                for _ in range(2):
                    assert _seen(_perturb(state, p, rng), p) == seen, f"{path} {options}: player {p}"
                for seed in range(5):
                    r = state.resample(p, seed)
                    assert r.information_state(p) == seen[1]
                    assert [a.label for a in r.legal_actions(p)] == seen[2]


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_the_lean_paths_leave_no_more_trace_than_apply(case):
    """Programs and adapters play by `apply_index`, whose lean paths write a choice's log lines
    themselves (in a `simultaneously` part too): a game played by index gives every player what
    the same game played by `apply` gives, and what they cannot know leaves no trace in it."""
    path, options, counts = case
    game = interpreter.load(str(ROOT / path), options=options)
    rng = random.Random(5)
    for players in counts:
        try:
            lean = game.new_game(players=players, seed=players * 5 + 2)
        except RuleRuntimeError:
            continue
        twin = lean.clone()
        marks = set(rng.sample(range(1, 120), 3))
        for step in range(120):
            if lean.is_over:
                break
            player = lean.decision.players[0]
            actions = twin.legal_actions(player)
            index = rng.randrange(len(actions))
            # `apply` answers an action by its value, with the first option of that value (as a
            # replay of the saved actions does); two options of one value (two like tiles) differ
            # only in their labels' numbers, which the log shows: the same option for both
            index = next(i for i, a in enumerate(actions) if a.value == actions[index].value)
            try:
                lean.apply_index(index, player)
            except RuleRuntimeError:
                break
            twin.apply(actions[index])
            if step in marks or lean.is_over:
                for p in range(players):
                    seen = _seen(lean, p)
                    assert seen == _seen(twin, p), f"{path} {options}: player {p}"
                    assert _seen(_perturb(lean, p, rng), p) == seen, f"{path} {options}: player {p}"


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_resampling_a_hundred_times_keeps_what_the_player_knows(case):
    path, options, counts = case
    game = interpreter.load(str(ROOT / path), options=options)
    for players in counts:
        for state in _sample_states(game, players, seed=players * 11 + 3, count=2):
            for p in range(players):
                seen = _seen(state, p)
                for seed in range(100):
                    r = state.resample(p, seed)
                    assert _seen(r, p) == seen
