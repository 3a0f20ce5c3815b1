"""Any rule-file game as a PettingZoo AEC environment (the optional extra ``rulelang[pettingzoo]``).

    from interpreter.pettingzoo import env
    e = env("path/to/a/game", players=3)
    e.reset(seed=1)
    for agent in e.agent_iter():
        observation, reward, termination, truncation, info = e.last()
        mask = observation["action_mask"]
        e.step(None if termination or truncation else int(mask.nonzero()[0][0]))

Agents are ``player_0 .. player_{n-1}`` (seats). Actions are the game's stable action ids
(``interpreter/adapters/encoding.py``); each observation is ``{"observation": the view as a
float32 vector, "action_mask": 1 for every legal action id}``. Rewards come at the end of the
game, from ``State.returns`` (``utility="win"`` or ``"score"``). When several players decide at
the same time, they act one after the other in seat order, as PettingZoo's AEC convention for
simultaneous moves has it: each choice is held back by the engine, and no player's observation
shows another's choice until everyone has chosen. See docs/adapters.md.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

import interpreter

from ..engine.api import State
from .encoding import ActionIds, ViewEncoder, legal_ids

__all__ = ["RulesEnv", "env"]


def env(path: str, players: int | None = None, options: dict | None = None, **kwargs: Any) -> RulesEnv:
    """A PettingZoo AEC environment for a rule-file game (see :class:`RulesEnv`)."""
    return RulesEnv(path, players=players, options=options, **kwargs)


class RulesEnv(AECEnv):
    """A rule-file game as a PettingZoo AEC environment. ``reset(seed=S)`` starts the game
    with seed ``S`` (default 0), so the same seed and actions give the same game."""

    metadata = {"render_modes": ["ansi"], "name": "rulelang_v0", "is_parallelizable": False}

    def __init__(self, path: str, players: int | None = None, options: dict | None = None, *,
                 utility: str = "win", house: list[str] | None = None, int_actions: int | None = None,
                 negative_actions: int | None = None,
                 render_mode: str | None = None) -> None:
        super().__init__()
        self.rules = interpreter.load(path, options=options, house=house)
        if players is None:
            players = max(self.rules.min_players, min(2, self.rules.max_players))
        if utility not in ("win", "score"):
            raise ValueError(f"utility is `win` or `score`, not {utility!r}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode is None or 'ansi', not {render_mode!r}")
        self.num_seats = players
        self.utility = utility
        self.render_mode = render_mode
        self.ids = ActionIds.for_game(self.rules, int_actions, negative_actions)
        first = self.rules.new_game(players=players, seed=0)
        self.encoder = ViewEncoder.for_game(self.rules, players, first.view(0))
        self.metadata = {**self.metadata, "name": f"rulelang_{self.rules.name}"}
        self.possible_agents = [f"player_{p}" for p in range(players)]
        self.agents = self.possible_agents[:]
        self.action_spaces = {a: spaces.Discrete(self.ids.size) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(-np.inf, np.inf, (self.encoder.size,), np.float32),
                "action_mask": spaces.Box(0, 1, (self.ids.size,), np.int8),
            }) for a in self.possible_agents}
        self.state: State = first
        self._reset_bookkeeping()

    # ---- PettingZoo's API
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.state = self.rules.new_game(players=self.num_seats, seed=0 if seed is None else int(seed))
        self.agents = self.possible_agents[:]
        self._reset_bookkeeping()

    def observe(self, agent: str) -> dict:
        player = self.possible_agents.index(agent)
        mask = np.zeros(self.ids.size, np.int8)
        if agent == self.agent_selection and not self.state.is_over:
            mask[list(legal_ids(self.ids, self.state, player))] = 1
        return {"observation": np.asarray(self.encoder.encode(self.state.view(player)), np.float32),
                "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        player = self.possible_agents.index(agent)
        legal = legal_ids(self.ids, self.state, player)
        if action is None or int(action) not in legal:
            raise ValueError(f"{agent}: action {action} is not legal now; legal: {sorted(legal)}")
        self.state.apply(legal[int(action)])
        self._cumulative_rewards[agent] = 0
        if self.state.is_over:
            returns = self.state.returns(self.utility)
            for p, a in enumerate(self.possible_agents):
                self.rewards[a] = float(returns[p])
                self.terminations[a] = True
        else:
            self.rewards = dict.fromkeys(self.agents, 0.0)
        self.agent_selection = self._next_agent(after=player)
        self._accumulate_rewards()
        if self.render_mode == "ansi":
            print(self.render())

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        view = self.state.view(self.possible_agents.index(self.agent_selection))
        lines = [f"{view['game']}: round {view['round']}, turn {view['turn']}"]
        lines += [f"{name}: {value}" for name, value in view["vars"].items()]
        return "\n".join(lines)

    def close(self) -> None:
        pass

    # ---- bookkeeping
    def _reset_bookkeeping(self) -> None:
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self._next_agent(after=-1)

    def _next_agent(self, after: int) -> str:
        """Who acts next: the deciding player; at a decision taken at the same time, the next
        one still choosing in seat order after the one who just chose (then from the start)."""
        if self.state.is_over:
            return self.possible_agents[(after + 1) % self.num_seats]
        deciding = self.state.decision.players
        later = [p for p in deciding if p > after]
        return self.possible_agents[(later or list(deciding))[0]]
