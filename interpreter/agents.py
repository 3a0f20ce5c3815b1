"""Agents: programs (or people) that pick one legal action at a decision point.

Every agent has one method, ``choose(state, player) -> Action``, and must return one of
``state.legal_actions(player)``. Agents never change the state they are given; the
caller applies the returned action. Each computer agent owns its own seeded
``random.Random``, so the same seed and the same game give the same choices.

Agents judge a game by its result, never by the raw score: ``state.results()``,
``state.returns()`` and ``state.standing(player)`` (defined once, in the engine, from the
game's ``winners:`` rule and its scores), so they play to win even where the lowest score wins.

``HumanAgent`` (a person at the terminal) lives in :mod:`interpreter.tools.play`;
:func:`make_agent` builds any of them by name, with parameters for the search agents
(``mcts:iterations=400``, ``mcts:ms=50``).
"""

from __future__ import annotations

import math
import random
import time
from typing import Any, Protocol

from .engine.budget import MAX_STEPS_PER_AGENT, Budget

__all__ = ["AGENT_NAMES", "Agent", "GreedyAgent", "MCTSAgent", "RandomAgent", "agent_seed", "make_agent",
           "parse_agent_spec"]

AGENT_NAMES = ("random", "greedy", "mcts", "human")


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
    """One-step lookahead: tries every legal action on a copy of the state and keeps
    the one after which the player stands best (``state.standing(player)``: its share of
    the win if the game ended then, then its score margin the way the game's result
    rewards it). Ties are broken by its seeded generator. An action that fails on the
    copy ranks last.

    The copy is a determinisation, as for ``mcts``: ``state.resample(player, seed)`` where the
    engine offers it, so what the action would draw or uncover is what the seat could expect,
    not what the real deck holds (a plain clone would know the order of every hidden card)."""

    name = "greedy"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def evaluate(self, state: Any, player: int, action: Any, budget: Budget | None = None) -> float:
        try:
            trial = state.clone(budget) if budget is not None else state.clone()
            if budget is not None:
                trial.apply(action, budget)
                return trial.standing(player, budget)
            trial.apply(action)
            return trial.standing(player)
        except Exception:  # a failing action is simply the worst choice
            return float("-inf")

    def choose(self, state: Any, player: int) -> Any:
        actions = _legal(state, player)
        if len(actions) == 1:
            return actions[0]
        # One budget for the whole look-ahead, however many actions there are: when it runs
        # out, the agent chooses among the actions it had time to try.
        budget = Budget(MAX_STEPS_PER_AGENT, "for the greedy agent's look-ahead")
        world = determinise(state, player, self.rng, budget)
        # The same choice in the determinisation (it has the same legal actions: the seat
        # cannot tell the two apart), tried there and answered with the real action.
        same = {_key(a.value): a for a in world.legal_actions(player)}
        best_score = float("-inf")
        best: list = []
        for action in actions:
            if budget.left <= 0:
                break
            score = self.evaluate(world, player, same.get(_key(action.value), action), budget)
            if budget.left <= 0 and best:
                break  # this action was not fully tried
            if score > best_score or not best:
                best_score, best = score, [action]
            elif score == best_score:
                best.append(action)
        return best[0] if len(best) == 1 else self.rng.choice(best)


def determinise(state: Any, player: int, rng: random.Random, budget: Budget) -> Any:
    """A full state the seat cannot tell from ``state``, to look ahead in without peeking: the
    engine's ``resample`` (hidden cards dealt again, the generator reseeded) where it has one,
    else a clone (which knows everything: only an engine without hidden information should
    lack ``resample``). The caller owns the result: it may change it."""
    resample = getattr(state, "resample", None)
    if resample is not None:
        return resample(player, rng.getrandbits(63))
    return state.clone(budget)


def _key(value: Any) -> tuple[str, Any]:
    """An action's identity across determinisations: its value, with True kept apart from 1."""
    return (type(value).__name__, value)


class _Node:
    """One decision reached by a sequence of choices, shared by every determinisation that
    reaches it: the statistics of each choice tried there, keyed by the choice's value."""

    __slots__ = ("children", "visits", "available", "totals", "mover")

    def __init__(self) -> None:
        self.children: dict[tuple[str, Any], _Node] = {}
        self.mover: int | None = None  # whose choices key the children
        self.visits = 0
        self.available = 0  # how often this choice was legal when its parent was visited
        self.totals: list[float] = []  # summed reward, per player


class MCTSAgent:
    """Monte Carlo tree search: UCT with random rollouts over clones of the state.

    Each iteration plays in a *determinisation* of the state: with ``state.resample(player,
    seed)`` when the engine offers it, a game the seat cannot tell apart from the real one
    (hidden cards dealt again, the generator reseeded), otherwise a clone. A decision makes up
    to ``determinisations`` of them (default 16) and each iteration plays in a clone of one in
    turn: resampling costs far more than cloning, and a handful of deals already spreads the
    search over what the hidden cards might be. The tree is keyed by the values of the
    choices, and a choice is only scored among the iterations in which it was legal
    (single-observer information-set MCTS), so hidden information never leaks into its
    decisions through the tree.

    Selection maximises, for the player deciding at a node, their mean reward rescaled to 0..1
    between the worst and the best mean among the choices there (so the exploration term keeps
    its meaning whether the rewards differ by a whole win or by one point of a heuristic), plus
    ``exploration * sqrt(ln(available) / visits)``. Rewards are each player's share of the
    win (``state.results()``); a rollout cut short by ``rollout_depth`` decisions (default
    ``None``: played to the end) is scored with ``state.standings()``. At a decision taken at
    the same time by several players, the tree orders them by seat. The choice made is the most
    visited, ties broken by the better mean, then by the generator.

    When the seat decides again right after its own choice, nobody else choosing in between,
    the search starts from that choice's subtree and runs only the iterations it lacks.

    The budget is ``iterations`` (default 200) or ``milliseconds`` of thinking per decision
    (a time budget makes its choices depend on the machine's speed; iterations do not). The
    search stops early once the most visited choice leads the next by more visits than
    iterations are left: the rest could not change the choice.
    """

    name = "mcts"

    def __init__(self, seed: int | None = None, iterations: int | None = None, milliseconds: float | None = None,
                 exploration: float = 1.0, rollout_depth: int | None = None, determinisations: int = 16) -> None:
        if iterations is not None and iterations < 1:
            raise ValueError("iterations is a whole number from 1")
        if milliseconds is not None and milliseconds <= 0:
            raise ValueError("milliseconds is a positive number")
        if rollout_depth is not None and rollout_depth < 0:
            raise ValueError("rollout_depth is a whole number from 0")
        if determinisations < 1:
            raise ValueError("determinisations is a whole number from 1")
        self.seed = seed
        self.rng = random.Random(seed)
        self.iterations = iterations if iterations is not None or milliseconds is not None else 200
        self.milliseconds = milliseconds
        self.exploration = exploration
        self.rollout_depth = rollout_depth
        self.determinisations = determinisations
        # (state, seat, decision serial, the chosen choice's subtree) of the last decision
        self._kept: tuple[Any, int, int, _Node] | None = None

    def choose(self, state: Any, player: int) -> Any:
        actions = _legal(state, player)
        if len(actions) == 1:
            return actions[0]
        serial = actions[0].decision
        root = self._kept_root(state, player, serial)
        deadline = None if self.milliseconds is None else time.perf_counter() + self.milliseconds / 1000
        worlds: list = []
        done = 0
        while (self.iterations is None or root.visits < self.iterations) and (
                deadline is None or time.perf_counter() < deadline or done == 0):
            # Each iteration pays for its work from a budget of its own; a rollout that runs out
            # of it is scored where it stopped, like one cut short by `rollout_depth`.
            budget = Budget(MAX_STEPS_PER_AGENT, "for one iteration of the MCTS agent's search")
            if len(worlds) < self.determinisations:
                worlds.append(self._determinise(state, player, budget))
            self._iterate(root, worlds[done % len(worlds)].clone(budget), player, budget)
            done += 1
            if self.iterations is not None and self._decided(root, self.iterations - root.visits):
                break
        legal = {_key(a.value): a for a in actions}

        def rank(k: tuple[str, Any]) -> tuple[int, float]:
            child = root.children.get(k)
            if child is None or not child.visits:
                return (-1, 0.0)
            return (child.visits, child.totals[player] / child.visits)
        most = max(rank(k) for k in legal)
        best = [k for k in legal if rank(k) == most]  # the most visited, then the best mean
        chosen = best[0] if len(best) == 1 else self.rng.choice(best)
        child = root.children.get(chosen)
        self._kept = (state, player, serial, child) if child is not None else None
        return legal[chosen]

    def _kept_root(self, state: Any, player: int, serial: int) -> _Node:
        """The subtree kept from this agent's last decision, when this decision follows it
        directly: the same game, the same seat, the next decision in the seat's own sequence
        (nobody else chose in between: serials count decisions) and a subtree whose next
        level is this seat's choices. Else a fresh root."""
        kept, self._kept = self._kept, None
        if kept is None:
            return _Node()
        last_state, last_player, last_serial, node = kept
        if last_state is state and last_player == player and serial == last_serial + 1 and node.mover == player:
            return node
        return _Node()

    def _determinise(self, state: Any, player: int, budget: Budget) -> Any:
        return determinise(state, player, self.rng, budget)

    @staticmethod
    def _decided(root: _Node, left: int) -> bool:
        """Whether the most visited choice at the root stays ahead of every other whatever the
        ``left`` iterations do: stopping then chooses exactly what the whole budget would."""
        if len(root.children) < 2:
            return False
        first, second = sorted((c.visits for c in root.children.values()), reverse=True)[:2]
        return first - second > left

    def _mover(self, state: Any, root_player: int, at_root: bool) -> int:
        players = state.decision.players
        return root_player if at_root and root_player in players else players[0]

    def _select(self, node: _Node, keys: list, mover: int) -> int:
        """The index of the choice UCT takes among ``keys`` (all tried before) at ``node``."""
        children = [node.children[k] for k in keys]
        means = [c.totals[mover] / c.visits if c.visits else 0.0 for c in children]
        low, high = min(means), max(means)
        spread = high - low
        best_i, best_value = 0, -math.inf
        for i, child in enumerate(children):
            mean = (means[i] - low) / spread if spread > 0 else 0.5
            value = mean + self.exploration * math.sqrt(math.log(child.available) / max(child.visits, 1))
            if value > best_value:
                best_i, best_value = i, value
        return best_i

    def _iterate(self, root: _Node, state: Any, player: int, budget: Budget) -> None:
        path = [root]
        node = root
        n_players = state.num_players
        try:
            # Selection and expansion: follow the tree while every legal choice has been tried.
            while not state.is_over:
                mover = self._mover(state, player, node is root)
                node.mover = mover
                actions = state.legal_actions(mover)
                keys = [_key(a.value) for a in actions]
                for k in keys:
                    child = node.children.get(k)
                    if child is not None:
                        child.available += 1
                untried = [i for i, k in enumerate(keys) if k not in node.children]
                if untried:
                    i = self.rng.choice(untried)
                    child = _Node()
                    child.available = 1
                    node.children[keys[i]] = child
                    state.apply(actions[i], budget)
                    path.append(child)
                    break
                best_i = self._select(node, keys, mover)
                node = node.children[keys[best_i]]
                state.apply(actions[best_i], budget)
                path.append(node)
            rewards = self._rollout(state, budget)
        except Exception:  # out of budget (scored where it stopped), or a choice the rules cannot carry out
            try:
                rewards = state.standings() if budget.left <= 0 else [0.0] * n_players
            except Exception:
                rewards = [0.0] * n_players
        for visited in path:
            visited.visits += 1
            if not visited.totals:
                visited.totals = [0.0] * n_players
            for p in range(n_players):
                visited.totals[p] += rewards[p]

    def _rollout(self, state: Any, budget: Budget) -> list[float]:
        depth = 0
        rng = self.rng
        while not state.is_over:
            if self.rollout_depth is not None and depth >= self.rollout_depth:
                return state.standings(budget)
            # By index: a random rollout needs no Action objects nor labels.
            state.apply_index(rng.randrange(state.num_actions()), None, budget)
            depth += 1
        return state.results(budget)


def agent_seed(game_seed: int, seat: int) -> int:
    """The seed an agent in ``seat`` gets for a game with ``game_seed``: distinct per
    seat, stable across runs and machines."""
    return (game_seed * 1_000_003 + seat * 7_919 + 1) % (2**63)


_MCTS_PARAMS = {"iterations": int, "ms": float, "milliseconds": float, "exploration": float,
                "rollout_depth": int, "depth": int, "determinisations": int, "worlds": int}


def parse_agent_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"mcts:iterations=400,exploration=1"`` -> ``("mcts", {"iterations": 400, "exploration": 1.0})``.

    Parameters follow a colon as ``name=value`` pairs, separated by commas or colons. Raises
    ValueError, saying why, for an unknown agent, parameter or value."""
    name, _, rest = spec.strip().lower().partition(":")
    if name not in AGENT_NAMES:
        raise ValueError(f"unknown agent {name!r}; choose from {', '.join(AGENT_NAMES)}")
    params: dict[str, Any] = {}
    for item in (x for x in rest.replace(":", ",").split(",") if x.strip()):
        key, eq, value = (part.strip() for part in item.partition("="))
        known = _MCTS_PARAMS if name == "mcts" else {}
        if key not in known or not eq:
            hint = f"; {name} takes {', '.join(known)}" if known else f"; {name} takes no parameters"
            raise ValueError(f"agent {name}: unknown parameter {item.strip()!r}{hint}")
        try:
            number = known[key](value)
        except ValueError:
            raise ValueError(f"agent {name}: {key} is a number, not {value!r}") from None
        if not number > 0 and not (key in ("rollout_depth", "depth") and number == 0):
            raise ValueError(f"agent {name}: {key} must be positive, not {value}")
        params[{"ms": "milliseconds", "depth": "rollout_depth", "worlds": "determinisations"}.get(key, key)] = number
    return name, params


def make_agent(name: str, seed: int | None = None, **kwargs: Any) -> Any:
    """Build an agent by name: ``random``, ``greedy``, ``mcts`` (with parameters, as in
    ``mcts:iterations=400`` or ``mcts:ms=50``) or ``human``. Extra keyword arguments go to
    :class:`interpreter.tools.play.HumanAgent` (``input``, ``output``)."""
    key, params = parse_agent_spec(name)
    if key == "random":
        return RandomAgent(seed)
    if key == "greedy":
        return GreedyAgent(seed)
    if key == "mcts":
        return MCTSAgent(seed, **params)
    if key == "human":
        from .tools.play import HumanAgent

        return HumanAgent(**kwargs)
    raise ValueError(f"unknown agent {name!r}; choose from {', '.join(AGENT_NAMES)}")
