"""Agents: programs (or people) that pick one legal action at a decision point.

Every agent has one method, ``choose(state, player) -> Action``, and must return one of
``state.legal_actions(player)``. Agents never change the state they are given; the
caller applies the returned action. Each computer agent owns its own seeded
``random.Random``, so the same seed and the same game give the same choices.

``HumanAgent`` (a person at the terminal) lives in :mod:`interpreter.tools.play`;
:func:`make_agent` builds any of them by name.
"""

from __future__ import annotations

import random
from typing import Any, Protocol

from .engine.budget import MAX_STEPS_PER_AGENT, Budget

__all__ = ["AGENT_NAMES", "Agent", "GreedyAgent", "RandomAgent", "agent_seed", "make_agent"]

AGENT_NAMES = ("random", "greedy", "human")


class Agent(Protocol):
    name: str

    def choose(self, state: Any, player: int) -> Any:  # -> Action
        ...


def _legal(state: Any, player: int) -> list:
    actions = list(state.legal_actions(player))
    if not actions:
        raise RuntimeError(f"player {player} has no legal action at this decision")
    return actions


class RandomAgent:
    """Picks uniformly among the legal actions, with its own seeded generator."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def choose(self, state: Any, player: int) -> Any:
        return self.rng.choice(_legal(state, player))


class GreedyAgent:
    """One-step lookahead: tries every legal action on a clone of the state and keeps
    the one after which the player's score (``state.scores()[player]``) is highest.
    Ties are broken by its seeded generator. An action that fails on the clone
    ranks last."""

    name = "greedy"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def evaluate(self, state: Any, player: int, action: Any, budget: Budget | None = None) -> float:
        try:
            trial = state.clone(budget) if budget is not None else state.clone()
            if budget is not None:
                trial.apply(action, budget)
                return trial.scores(budget)[player]
            trial.apply(action)
            return trial.scores()[player]
        except Exception:  # a failing action is simply the worst choice
            return float("-inf")

    def choose(self, state: Any, player: int) -> Any:
        actions = _legal(state, player)
        if len(actions) == 1:
            return actions[0]
        # One budget for the whole look-ahead, however many actions there are: when it runs
        # out, the agent chooses among the actions it had time to try.
        budget = Budget(MAX_STEPS_PER_AGENT, "for the greedy agent's look-ahead")
        best_score = float("-inf")
        best: list = []
        for action in actions:
            if budget.left <= 0:
                break
            score = self.evaluate(state, player, action, budget)
            if budget.left <= 0 and best:
                break  # this action was not fully tried
            if score > best_score or not best:
                best_score, best = score, [action]
            elif score == best_score:
                best.append(action)
        return best[0] if len(best) == 1 else self.rng.choice(best)


def agent_seed(game_seed: int, seat: int) -> int:
    """The seed an agent in ``seat`` gets for a game with ``game_seed``: distinct per
    seat, stable across runs and machines."""
    return (game_seed * 1_000_003 + seat * 7_919 + 1) % (2**63)


def make_agent(name: str, seed: int | None = None, **kwargs: Any) -> Any:
    """Build an agent by name: ``random``, ``greedy`` or ``human``. Extra keyword
    arguments go to :class:`interpreter.tools.play.HumanAgent` (``input``, ``output``)."""
    key = name.strip().lower()
    if key == "random":
        return RandomAgent(seed)
    if key == "greedy":
        return GreedyAgent(seed)
    if key == "human":
        from .tools.play import HumanAgent

        return HumanAgent(**kwargs)
    raise ValueError(f"unknown agent {name!r}; choose from {', '.join(AGENT_NAMES)}")
