"""Matchups: each agent against each other, on the base game and with the house rules.

A cell (A against B) plays games with A in one seat and B in every other seat, A's seat moving
round the table from game to game (so the first player's advantage is shared out), and gives
A's win rate with its 95 % interval. Against a fair share (1/N), a rule that makes skill matter
less pulls the strong agent's rate down toward it. The games run on the worker pool; every game
is fixed by its seed, so the table is the same for any number of workers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..agents import AGENT_NAMES
from .metrics import GameMeasure, measure_task
from .parallel import Pool, spec_of
from .progress import Progress
from .validate import wilson

__all__ = ["SEARCHING_AGENTS", "Matchups", "computer_agents", "format_matchups", "matchups"]


# Agents that search by playing the game out many times at each decision: a game with one of
# them costs hundreds of random games (MCTS at 20 iterations took over 5 minutes for one game of
# a seed game), so they join the matchups only when named: --matchup-agents random,greedy,mcts:iterations=50.
SEARCHING_AGENTS = ("mcts",)


def computer_agents() -> list[str]:
    """The default matchup agents: every agent that plays without a person and without a search
    (random and greedy); see ``SEARCHING_AGENTS``."""
    return [a for a in AGENT_NAMES if a != "human" and a not in SEARCHING_AGENTS]


@dataclass
class Matchups:
    agents: list[str]
    players: int
    games: int  # per cell
    labels: list[str] = field(default_factory=list)  # one per variant: base, with house rules
    cells: dict[tuple[str, str, str], tuple[float, int]] = field(default_factory=dict)  # (label, a, b) -> wins, games

    def rate(self, label: str, a: str, b: str) -> tuple[float, float, float] | None:
        found = self.cells.get((label, a, b))
        if found is None or not found[1]:
            return None
        wins, n = found
        lo, hi = wilson(wins, n)
        return wins / n, lo, hi

    def to_dict(self) -> dict:
        return {"agents": self.agents, "players": self.players, "games_per_cell": self.games,
                "cells": [{"variant": lab, "agent": a, "against": b, "win_rate": self.rate(lab, a, b)}
                          for (lab, a, b) in self.cells]}


def matchups(variants: list[tuple[str, Any]], players: int, agents: list[str] | None = None, games: int = 20,
             seed: int = 0, workers: int = 1, ray: str | None = None, progress: Progress | None = None,
             max_decisions: int = 2000) -> Matchups:
    agents = agents or computer_agents()
    out = Matchups(agents, players, games, [label for label, _ in variants])
    pairs = [(a, b) for a in agents for b in agents if a != b]
    tasks, keys = [], []
    for label, game in variants:
        spec = spec_of(game)
        for a, b in pairs:
            for i in range(games):
                seat = i % players
                seats = [b] * players
                seats[seat] = a
                tasks.append((spec, players, seed + i, seats, max_decisions))
                keys.append((label, a, b, seat))
    done = 0
    with Pool(workers, ray) as pool:
        for key, g in zip(keys, pool.imap(measure_task, tasks), strict=True):
            label, a, b, seat = key
            wins, n = out.cells.get((label, a, b), (0.0, 0))
            if isinstance(g, GameMeasure) and g.finished:
                out.cells[(label, a, b)] = (wins + g.win_share(seat), n + 1)
            else:
                out.cells.setdefault((label, a, b), (wins, n))
            done += 1
            if progress is not None:
                progress.update(done)
    if progress is not None:
        progress.close()
    return out


def format_matchups(m: Matchups) -> str:
    fair = 1 / m.players
    lines = [f"Win rate of the row's agent in one seat against the column's agent in the other"
             f"{' seats' if m.players > 2 else ''} ({m.games} games a cell, seats rotated; a fair share is "
             f"{100 * fair:.0f} %), with the 95 % interval:"]
    width = max(len(a) for a in m.agents) + 2
    for label in m.labels:
        lines.append(f"  {label}")
        lines.append("    " + " " * width + "".join(f"{'vs ' + b:<22}" for b in m.agents))
        for a in m.agents:
            cells = []
            for b in m.agents:
                r = m.rate(label, a, b)
                cells.append("-" if r is None else f"{100 * r[0]:3.0f} % ({100 * r[1]:.0f}-{100 * r[2]:.0f})")
            lines.append("    " + a.ljust(width) + "".join(f"{c:<22}" for c in cells))
    return "\n".join(lines)
