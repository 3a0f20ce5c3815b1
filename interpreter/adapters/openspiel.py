"""Any rule-file game as an OpenSpiel game (the optional extra ``rulelang[openspiel]``).

    from interpreter.openspiel import load_game
    game = load_game("examples/games/tic_tac_toe", players=2)
    state = game.new_initial_state()            # a pyspiel.State: legal_actions, apply_action, ...

The game is registered with OpenSpiel as a Python game (``pyspiel.load_game(game.short_name)``
loads it again, with the same parameters), so OpenSpiel's algorithms (CFR, MCTS, its random
simulation test) run on it. How choices become action ids, what the observation tensor holds
and how results become returns: docs/adapters.md.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import re
from fractions import Fraction
from typing import Any

import numpy as np
import pyspiel

import interpreter

from ..engine.api import Game, State
from .encoding import ActionIds, ViewEncoder, legal_ids, state_text

__all__ = ["RulesGame", "RulesState", "load_game"]


def _explicit_chance(game: Game) -> bool:
    """Whether the engine can stop at chance events (``new_game(..., chance="explicit")``)."""
    return "chance" in inspect.signature(game.new_game).parameters


def _short_name(game: Game, players: int, utility: str, ids: ActionIds) -> str:
    slug = re.sub(r"[^a-z0-9]+", "_", game.name.lower()).strip("_") or "game"
    what = [game.fingerprint, game.house, players, utility, ids.int_count, ids.negative_count]
    extra = hashlib.sha256(json.dumps(what).encode()).hexdigest()[:8]
    return f"rulelang_{slug}_{extra}"


def _perfect_information(game: Game) -> bool:
    g = game.compiled
    return (all(vis == "public" for _, vis in g.zone_decls.values())
            and not any(key.startswith("simul:") for key in g.codes))


def load_game(path: str, players: int | None = None, options: dict | None = None, *, utility: str = "win",
              house: list[str] | None = None, int_actions: int | None = None,
              negative_actions: int | None = None,
              max_game_length: int = 10_000) -> RulesGame:
    """Load a rule-file game as a ``pyspiel.Game`` for ``players`` players (default: the fewest
    the game allows, at least 2 when it can). ``utility`` is ``win`` (win/loss/draw, the
    default) or ``score`` (score minus the mean score): see ``State.returns``. Raises
    ``rulelang.RuleError`` for rule files with errors, ValueError for bad options or counts."""
    game = interpreter.load(path, options=options, house=house)
    if players is None:
        players = max(game.min_players, min(2, game.max_players))
    if utility not in ("win", "score"):
        raise ValueError(f"utility is `win` or `score`, not {utility!r}")
    game.new_game(players=players, seed=0)  # refuses a player count the game does not allow
    ids = ActionIds.for_game(game, int_actions, negative_actions)
    explicit = _explicit_chance(game)
    n = players
    if utility == "win":
        zero_sum = game.compiled.winners is None  # someone always wins: the returns add up to 0
        low, high = -1.0, float(max(n, 2) - 1)
    else:
        zero_sum, low, high = True, -1e6, 1e6
    game_type = pyspiel.GameType(
        short_name=_short_name(game, n, utility, ids),
        long_name=f"{game.name} (rulelang, {n} players)",
        dynamics=(pyspiel.GameType.Dynamics.SIMULTANEOUS if any(k.startswith("simul:") for k in game.compiled.codes)
                  else pyspiel.GameType.Dynamics.SEQUENTIAL),
        # (a game whose rules never shuffle has no chance node: deterministic, as OpenSpiel's
        # solvers for such games require)
        chance_mode=(pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC if explicit and game.compiled.random
                     else pyspiel.GameType.ChanceMode.DETERMINISTIC),
        information=(pyspiel.GameType.Information.PERFECT_INFORMATION if _perfect_information(game)
                     else pyspiel.GameType.Information.IMPERFECT_INFORMATION),
        utility=pyspiel.GameType.Utility.ZERO_SUM if zero_sum else pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=n,
        min_num_players=n,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"seed": 0},
    )
    game_info = pyspiel.GameInfo(
        num_distinct_actions=ids.size,
        max_chance_outcomes=ids.size if explicit else 0,
        num_players=n,
        min_utility=low,
        max_utility=high,
        utility_sum=0.0 if zero_sum else None,
        max_game_length=max_game_length,
    )

    class _Registered(RulesGame):
        def __init__(self, params: dict | None = None) -> None:
            seed = int((params or {}).get("seed", 0))
            super().__init__(game_type, game_info, params or {}, _Setup(game, n, ids, utility, explicit, seed))

    try:
        pyspiel.register_game(game_type, _Registered)
    except Exception:  # already registered by an earlier load of the same rules; keep the first
        pass
    return _Registered({})


class _Setup:
    """What every state of one loaded game shares. OpenSpiel copies a Python state by deep-
    copying its attributes; this one is shared, never copied."""

    def __init__(self, rules: Game, players: int, ids: ActionIds, utility: str, explicit: bool,
                 seed: int) -> None:
        self.rules = rules
        self.players = players
        self.ids = ids
        self.utility = utility
        self.explicit = explicit
        self.seed = seed
        if explicit:
            self.initial = rules.new_game(players=players, seed=seed, chance="explicit")
        else:
            self.initial = rules.new_game(players=players, seed=seed)
        self.encoder = ViewEncoder.for_game(rules, players, self.initial.view(0))

    def __deepcopy__(self, memo: dict) -> _Setup:
        return self

    def new_rules_state(self) -> State:
        # OpenSpiel clones a Python state by making a new initial state and deep-copying the
        # attributes into it, so this must be cheap: a clone of the state set up once.
        return self.initial.clone()


class _Live:
    """The rule-file state inside an OpenSpiel state, and, once somebody asked for an
    information state, each player's trace of what they saw and chose. A deep copy is the
    engine's own clone (OpenSpiel copies a Python state by deep-copying its attributes)."""

    __slots__ = ("state", "trace", "choices")

    def __init__(self, state: State, trace: list[list[str]] | None = None,
                 choices: list[list[int]] | None = None) -> None:
        self.state = state
        self.trace = trace
        # each player's own choices so far, as action ids (for the information-state tensor)
        self.choices = choices if choices is not None else [[] for _ in range(state.num_players)]

    def __deepcopy__(self, memo: dict) -> _Live:
        return _Live(self.state.clone(), None if self.trace is None else [t[:] for t in self.trace],
                     [c[:] for c in self.choices])


class RulesGame(pyspiel.Game):
    """A rule-file game seen by OpenSpiel."""

    def __init__(self, game_type: Any, game_info: Any, params: dict, setup: _Setup) -> None:
        super().__init__(game_type, game_info, params)
        self.setup = setup
        self.short_name = game_type.short_name

    @property
    def rules(self) -> Game:
        return self.setup.rules

    def new_initial_state(self) -> RulesState:
        return RulesState(self, self.setup)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> RulesObserver:
        if params:
            raise ValueError(f"observation parameters are not supported; given {params}")
        return RulesObserver(self.setup, iig_obs_type)


class RulesState(pyspiel.State):
    """One game in progress; the rule-file state is ``self.rules_state`` (an interpreter State)."""

    def __init__(self, game: RulesGame, setup: _Setup) -> None:
        super().__init__(game)
        self.setup = setup
        self.live = _Live(setup.new_rules_state())

    @property
    def rules_state(self) -> State:
        return self.live.state

    # ---- whose move
    def current_player(self) -> int:
        s = self.rules_state
        if s.is_over:
            return pyspiel.PlayerId.TERMINAL
        if self.setup.explicit and s.is_chance:
            return pyspiel.PlayerId.CHANCE
        deciding = s.decision.players
        if len(deciding) > 1:
            return pyspiel.PlayerId.SIMULTANEOUS
        return deciding[0]

    def _legal_actions(self, player: int) -> list[int]:
        s = self.rules_state
        if s.is_over or player not in s.decision.players:
            return []
        return list(legal_ids(self.setup.ids, s, player))

    def _chance(self) -> dict[int, tuple[Any, Fraction]]:
        """The chance outcomes as {action id: (outcome, probability)}, outcomes with the same
        value merged (the engine names an outcome by an action whose value is the card drawn)."""
        ids = self.setup.ids
        merged: dict[int, tuple[Any, Fraction]] = {}
        for outcome, probability in self.rules_state.chance_outcomes():
            key = ids.id_of(getattr(outcome, "value", outcome))
            before = merged.get(key, (outcome, Fraction(0)))
            merged[key] = (before[0], before[1] + Fraction(probability))
        return dict(sorted(merged.items()))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(a, float(p)) for a, (_, p) in self._chance().items()]

    def _apply_action(self, action: int) -> None:
        s = self.rules_state
        if self.setup.explicit and s.is_chance:
            s.apply(self._chance()[action][0])
            self._record([])
            return
        player = s.decision.players[0]
        chosen = legal_ids(self.setup.ids, s, player)[action]
        s.apply(chosen)
        self.live.choices[player].append(action)
        self._record([chosen])

    def _apply_actions(self, actions: list[int]) -> None:
        s = self.rules_state
        chosen = []
        deciding = s.decision.players
        for player in deciding:  # every deciding player's action, read before any is applied
            chosen.append(legal_ids(self.setup.ids, s, player)[actions[player]])
        for action in chosen:
            s.apply(action)
        for player in deciding:
            self.live.choices[player].append(actions[player])
        self._record(chosen)

    def own_choices(self, player: int) -> list[int]:
        """The action ids ``player`` chose so far, in order (what they know they did)."""
        return self.live.choices[player]

    def _record(self, chosen: list) -> None:
        """Extend each player's trace (once it is kept) with their own choice and what they see now."""
        trace = self.live.trace
        if trace is None:
            return
        for action in chosen:
            trace[action.player].append(f"chose {action.label}")
        for player, seen in enumerate(trace):
            seen.append(observation_text(self.rules_state, player))

    def information_state(self, player: int) -> str:
        """Everything a player has seen, in order: the engine's information state where it
        offers one, else the player's views from the start, each followed by the player's own
        choice (the trace is rebuilt from the history once, then kept up to date)."""
        own = getattr(self.rules_state, "information_state", None)
        if own is not None:
            return own(player)
        if self.live.trace is None:
            self.live.trace = _replayed_trace(self)
        return "\n".join(self.live.trace[player])

    def _action_to_string(self, player: int, action: int) -> str:
        s = self.rules_state
        if player == pyspiel.PlayerId.CHANCE and self.setup.explicit and s.is_chance:
            outcome = self._chance().get(action)
            if outcome is not None:
                # Copies of a card share a name; the id keeps each outcome's text its own.
                return f"chance: {getattr(outcome[0], 'label', outcome[0])} (#{action})"
        if player >= 0 and not s.is_over and player in s.decision.players:
            legal = legal_ids(self.setup.ids, s, player)
            if action in legal:
                return legal[action].label
        return self.setup.ids.describe(action)

    # ---- the end
    def is_terminal(self) -> bool:
        return self.rules_state.is_over

    def returns(self) -> list[float]:
        if not self.rules_state.is_over:
            return [0.0] * self.setup.players
        return [float(x) for x in self.rules_state.returns(self.setup.utility)]

    def __str__(self) -> str:
        return state_text(self.rules_state)


class RulesObserver:
    """OpenSpiel's observer for a rule-file game: what a player knows (perfect recall: the
    information state) or sees now (the observation), as a string and as a tensor. The
    observation tensor is the present view encoded by ``ViewEncoder``; the information-state
    tensor is the same followed by the player's own choices so far: how often they chose each
    action id, then how many choices they made (docs/adapters.md)."""

    def __init__(self, setup: _Setup, iig_obs_type: Any) -> None:
        self.setup = setup
        self.perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        view_size = setup.encoder.size
        size = view_size + (setup.ids.size + 1 if self.perfect_recall else 0)
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor[:view_size]}
        if self.perfect_recall:
            self.dict["choices"] = self.tensor[view_size:]

    def set_from(self, state: RulesState, player: int) -> None:
        view_size = self.setup.encoder.size
        self.tensor[:view_size] = self.setup.encoder.encode(state.rules_state.view(player))
        if self.perfect_recall:
            chosen = self.dict["choices"]
            chosen[:] = 0.0
            own = state.own_choices(player)
            for action in own:
                chosen[action] += 1.0
            chosen[-1] = len(own)

    def string_from(self, state: RulesState, player: int) -> str:
        if self.perfect_recall:
            return state.information_state(player)
        return observation_text(state.rules_state, player)


def observation_text(s: State, player: int) -> str:
    """What a player sees now: their view without the running log."""
    view = dict(s.view(player))
    view.pop("log", None)
    return json.dumps(view, separators=(",", ":"), sort_keys=True)


def _replayed_trace(state: RulesState) -> list[list[str]]:
    replay = state.get_game().new_initial_state()
    replay.live.trace = [[observation_text(replay.rules_state, p)] for p in range(replay.num_players())]
    history = list(state.full_history())
    i = 0
    while i < len(history):
        if replay.is_simultaneous_node():  # one joint action: one history item per player
            replay.apply_actions([item.action for item in history[i:i + replay.num_players()]])
            i += replay.num_players()
        else:
            replay.apply_action(history[i].action)
            i += 1
    return replay.live.trace
