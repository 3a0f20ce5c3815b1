"""Determinism does not depend on the process (issue 7): the same seed and the same actions give
the same game under different PYTHONHASHSEED values, in a fresh process, and in this one.

Each process loads every game that loads, plays a few games with actions picked by a seeded
`random.Random` from the legal ones (so any difference in the engine's order of legal actions
shows), and prints the final saves and scores; the outputs must be identical.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hostile_helpers import ROOT, loadable_games, player_counts

# Bags, maps, distinct and flatten: the places where an engine could leak hash order.
HASHY = '''game "Hashy"
players 2 to 3
enum gem: ruby, opal, jade, onyx, pearl, amber
kind chip:
    colour: gem
    worth: int
cards chip (name, colour, worth, copies):
    "Ruby", ruby, 3, 2
    "Opal", opal, 2, 2
    "Jade", jade, 1, 2
    "Onyx", onyx, 4, 1
zone pool: public
zone pile per player: public
var stash per player: bag of gem = {}
var seen: list of text = []

setup:
    move cards(chip) to pool
    shuffle pool

flow:
    repeat 2:
        for p in players:
            turn p:
                choose c in pool prompt "Take a chip" label "{c.name} ({c.worth})"
                move c to p.pile
                set p.stash[c.colour] += 1
                set seen = distinct(seen + [c.name])
                choose g in distinct(flatten([p.stash])) prompt "Polish a gem"
                log "{p} polishes {g}; {flatten([p.stash])}; {seen}"

score p:
    chips: sum(c.worth for c in p.pile)
    kinds: count(distinct(flatten([p.stash])))
'''

def play_all(paths: list[str]) -> dict:
    """Three seeded games of each game: the final save, the labels offered, the scores."""
    import interpreter

    out = {}
    for path in paths:
        game = interpreter.load(path)
        counts = player_counts(game)
        for seed in (0, 1, 2):
            players = counts[seed % len(counts)]
            state = game.new_game(players=players, seed=seed * 7919)
            rng = random.Random(seed)
            for _ in range(400):
                if state.is_over:
                    break
                player = rng.choice(state.decision.players)
                state.apply(rng.choice(state.legal_actions(player)))
            labels = [a.label for a in state.legal_actions(state.decision.players[0])] if state.decision else []
            out[f"{Path(path).name}#{seed}"] = {"save": state.to_json(), "labels": labels,
                                                "scores": state.scores() if state.is_over else None}
    return out


SCRIPT = """
import json, sys
sys.path[:0] = [sys.argv[1], sys.argv[2]]
from test_determinism import play_all
print(json.dumps(play_all(json.loads(sys.argv[3])), sort_keys=True))
"""


@pytest.fixture(scope="module")
def games(tmp_path_factory) -> list[str]:
    """A snapshot of every game that loads (so all the processes read the same files), and Hashy."""
    root = tmp_path_factory.mktemp("games")
    out = []
    for path in loadable_games():
        copy = root / Path(path).name
        shutil.copytree(path, copy)
        out.append(str(copy))
    (root / "hashy").mkdir()
    (root / "hashy" / "game.rules").write_text(HASHY)
    return out + [str(root / "hashy")]


def run_in_process(games: list[str], hash_seed: str) -> dict:
    env = dict(os.environ, PYTHONHASHSEED=hash_seed)
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(ROOT), str(ROOT / "tests"), json.dumps(games)],
                          env=env, cwd=str(ROOT),
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_the_same_game_under_different_hash_seeds_and_in_this_process(games):
    first = run_in_process(games, "0")
    second = run_in_process(games, "4242")
    assert sorted(first) == sorted(second)
    for key in first:
        assert first[key] == second[key], f"{key} differs between PYTHONHASHSEED 0 and 4242"
    # And in this process, whatever its hash seed is.
    assert json.loads(json.dumps(play_all(games), sort_keys=True)) == first


def test_the_hash_sensitive_game_really_plays(games):
    import interpreter

    game = interpreter.load(games[-1])
    state = game.new_game(players=2, seed=5)
    assert not state.is_over and len(state.legal_actions(0)) == 7
