"""Two agents against each other, for the README's figures (a benchmark, not a test).

    python benchmarks/agents.py examples/games/tic_tac_toe --agents mcts:iterations=1000,random \
        --games 100 --out ttt.jsonl
    python benchmarks/agents.py --summary ttt.jsonl

Games are independent, so ``--workers N`` plays N at once in a process pool (default 1; use
``nice`` on a shared machine); each game is fixed by its seed, so the results do not depend on
the number of workers, only the order of the lines in ``--out`` does. Game i is played with seed i; with two players the seats swap every other game (``--no-swap``
keeps the first agent in seat 0), so neither agent profits from moving first. Each finished game
is appended to ``--out`` as one JSON line at once, so a long run can be stopped and summed up from
what it played. The summary gives each agent's wins, draws and losses (a win shared by k players
counts 1/k), its win rate with a 95 % Wilson interval, and whether that interval lies above 1/2.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import interpreter
from interpreter.tools.parallel import GameSpec, game_for, spec_of
from interpreter.tools.simulate import run_game


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def summarise(lines: list[dict]) -> str:
    # A run restarted over seeds it had played replays the same games: count each once.
    unique = {(line["seed"], tuple(line["agents"])): line for line in lines}
    lines = list(unique.values())
    names: list[str] = []
    for line in lines:
        names += [a for a in line["agents"] if a not in names]
    out = []
    games = [g for g in lines if g.get("error") is None]
    failed = len(lines) - len(games)
    for name in names:
        played = [g for g in games if name in g["agents"]]
        wins = draws = losses = share = 0.0
        first_losses = 0
        for g in played:
            seats = [i for i, a in enumerate(g["agents"]) if a == name]
            winners = g["winners"]
            mine = sum(1 / len(winners) for s in seats if s in winners) / len(seats) if winners else 0.0
            share += mine
            if mine == 1 / len(seats) and len(winners) == 1:
                wins += 1
            elif mine > 0:
                draws += 1
            else:
                losses += 1
                first_losses += 0 in seats
        low, high = wilson(share, len(played))
        rate = share / len(played) if played else 0.0
        verdict = "above 1/2 with 95 % confidence" if low > 0.5 else "not above 1/2 with 95 % confidence"
        out.append(f"{name}: {len(played)} games, {wins:.0f} won, {draws:.0f} drawn, {losses:.0f} lost "
                   f"({first_losses:.0f} of them in the first seat); win rate {100 * rate:.1f} % "
                   f"(95 % interval {100 * low:.1f}-{100 * high:.1f} %, {verdict})")
    first = [g for g in games if g["winners"]]
    first_won = sum(1 for g in first if g["winners"] == [0])
    first_lost = sum(1 for g in first if 0 not in g["winners"])
    out.append(f"the first seat: {first_won} won, {len(games) - first_won - first_lost} drawn or shared, "
               f"{first_lost} lost")
    seconds = sum(g["seconds"] for g in lines)
    out.append(f"{len(lines)} games ({failed} failed), {seconds:.0f} s of play")
    return "\n".join(out)


def play_one(task: tuple[GameSpec, int, int, list[str]]) -> dict:
    """One game of the matchup, as the JSON line written for it (runs in a worker)."""
    spec, players, seed, seats = task
    start = time.perf_counter()
    record = run_game(game_for(spec), players, seed, seats)
    return {"seed": seed, "agents": seats, "winners": record.winners, "scores": record.scores,
            "decisions": record.decisions, "error": record.error, "seconds": time.perf_counter() - start}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", nargs="?")
    parser.add_argument("--agents", help="two agents, comma-separated (parameters after colons)")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--no-swap", action="store_true")
    parser.add_argument("--workers", type=int, default=1, help="games played at once (processes)")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--summary", type=Path, help="sum up a results file and stop")
    args = parser.parse_args(argv)
    if args.summary:
        print(summarise([json.loads(x) for x in args.summary.read_text().splitlines() if x.strip()]))
        return 0
    if not args.path or not args.agents or not args.out:
        parser.error("give a game, --agents and --out (or --summary FILE)")
    agents = [a.strip() for a in args.agents.split(",")]
    spec = spec_of(interpreter.load(args.path))  # loaded once here: forked workers inherit it
    tasks = []
    for seed in range(args.first_seed, args.first_seed + args.games):
        seats = agents[:] if args.no_swap or seed % 2 == 0 else agents[::-1]
        seats += [agents[-1]] * (args.players - len(seats))
        tasks.append((spec, args.players, seed, seats))
    if args.workers <= 1:
        lines = map(play_one, tasks)
    else:
        pool = ProcessPoolExecutor(max_workers=args.workers)
        lines = (future.result() for future in as_completed([pool.submit(play_one, t) for t in tasks]))
    for line in lines:  # each game written as soon as it ends, so a stopped run keeps what it played
        with args.out.open("a") as f:
            f.write(json.dumps(line) + "\n")
        print(json.dumps(line), flush=True)
    print(summarise([json.loads(x) for x in args.out.read_text().splitlines() if x.strip()]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
