"""Steps per second through the adapters, against the engine alone (a benchmark, not a test).

    python benchmarks/adapters.py games/off_plan --players 2 --games 5

Plays ``--games`` random games three ways, with the same random choices where the ways allow:
the engine itself (``State.legal_actions`` and ``apply``), the OpenSpiel adapter
(``legal_actions`` / ``apply_action``, chance nodes included as steps when the engine deals
them explicitly) and the PettingZoo environment (``observe`` for the mask, then ``step``).
A step is one decision (or one chance outcome); the figures are steps per second of wall time.
``--observe`` also asks OpenSpiel for the deciding player's observation tensor and information
state string at every step, as a learning loop would.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

import interpreter


def engine_steps(path: str, players: int, games: int) -> tuple[int, float]:
    game = interpreter.load(path)
    steps, start = 0, time.perf_counter()
    for seed in range(games):
        rng = random.Random(seed)
        state = game.new_game(players, seed=seed)
        while not state.is_over:
            state.apply(rng.choice(state.legal_actions(state.decision.players[0])))
            steps += 1
    return steps, time.perf_counter() - start


def openspiel_steps(path: str, players: int, games: int, observe: bool) -> tuple[int, float]:
    import pyspiel

    from interpreter.openspiel import load_game

    game = load_game(path, players=players)
    steps, start = 0, time.perf_counter()
    for seed in range(games):
        rng = random.Random(seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, odds = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, odds)[0])
            elif state.current_player() == pyspiel.PlayerId.SIMULTANEOUS:
                state.apply_actions([rng.choice(state.legal_actions(p) or [0]) for p in range(players)])
            else:
                player = state.current_player()
                if observe:
                    state.observation_tensor(player)
                    state.information_state_string(player)
                state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
    return steps, time.perf_counter() - start


def pettingzoo_steps(path: str, players: int, games: int) -> tuple[int, float]:
    from interpreter.pettingzoo import env

    e = env(path, players=players)
    steps, start = 0, time.perf_counter()
    for seed in range(games):
        rng = random.Random(seed)
        e.reset(seed=seed)
        for _agent in e.agent_iter():
            observation, _, termination, truncation, _ = e.last()
            if termination or truncation:
                e.step(None)
                continue
            e.step(int(rng.choice(observation["action_mask"].nonzero()[0])))
            steps += 1
    return steps, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--observe", action="store_true")
    args = parser.parse_args(argv)
    for name, run in (("engine", lambda: engine_steps(args.path, args.players, args.games)),
                      ("openspiel", lambda: openspiel_steps(args.path, args.players, args.games, args.observe)),
                      ("pettingzoo", lambda: pettingzoo_steps(args.path, args.players, args.games))):
        steps, seconds = run()
        print(f"{args.path} {args.players} players, {name}: {steps} steps in {seconds:.1f} s, "
              f"{steps / seconds:,.0f} steps/s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
