"""Game metrics: what one game measures (:func:`measure_game`) and what a batch adds up to
(:func:`summarize_measures`). Every formula is in docs/testing.md, "Metrics".

One game, played by its seat's agents, gives a :class:`GameMeasure`: how it ended (finished, hit
the decision limit, or failed), length, legal actions at each decision (branching), the scores
at every decision (for the leader: lead changes, when the final winner takes the lead for good,
whether the leader at half-time wins; the scores are read when a new turn starts, or after every
decision in a game without turns), and what each seat chose (cards picked in a
``choose c in ...`` over cards, options of ``choose:`` menus).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from rulelang.diagnostics import RuleRuntimeError

from ..agents import agent_seed, make_agent
from ..engine import runtime
from .parallel import GameSpec, game_for
from .validate import wilson

__all__ = ["GameMeasure", "Metrics", "PickStat", "chi_square_sf", "measure_game", "summarize_measures",
           "wilson"]

Z95 = 1.959963984540054
DEFAULT_MAX_DECISIONS = 2000


@dataclass
class GameMeasure:
    """One game, measured."""

    seed: int
    players: int
    agents: list[str]
    status: str = "finished"  # finished, limit (still running at the decision limit), error
    error: str | None = None
    decisions: int = 0
    scores: list[int] | None = None
    winners: list[int] | None = None
    choices: int = 0  # legal actions summed over the decisions
    lead_changes: int = 0
    winner_leads_from: float | None = None  # share of the game after which the winner leads for good
    half_time_leader_won: float | None = None
    picks: list[dict[str, int]] = field(default_factory=list)  # per seat: "card Name" / "option Label"
    calls: dict[str, int] = field(default_factory=dict)  # procedure/trigger code -> calls

    @property
    def finished(self) -> bool:
        return self.status == "finished"

    def win_share(self, seat: int) -> float:
        """1 for a sole winner, 1/k for each of k winners, else 0."""
        if not self.winners or seat not in self.winners:
            return 0.0
        return 1 / len(self.winners)

    def spread(self) -> float | None:
        return float(max(self.scores) - min(self.scores)) if self.scores else None

    def to_dict(self) -> dict:
        return asdict(self)


def _leader(scores: Sequence[int]) -> int | None:
    best = max(scores)
    top = [p for p, s in enumerate(scores) if s == best]
    return top[0] if len(top) == 1 else None


def _pick_key(state: Any, player: int, action: Any, card_picks: set) -> str | None:
    """What a choice is counted as: ``card Name``, ``option Label``, or nothing."""
    for branch, pend in state._waiting():
        if pend.player != player:
            continue
        stack = branch.stack if branch is not None else state.s.stack
        if not stack:
            return None
        frame = stack[-1]
        op = state.game.compiled.codes[frame.code][frame.pc]
        if pend.kind == "menu":
            return f"option {action.label}"
        if (pend.kind == "pick" and isinstance(action.value, int) and not isinstance(action.value, bool)
                and getattr(op, "pos", None) in card_picks):
            return f"card {state.game.compiled.card_names[action.value]}"
        return None
    return None


def measure_game(game: Any, players: int, seed: int, agents: Sequence[str], card_picks: set | None = None,
                 max_decisions: int = DEFAULT_MAX_DECISIONS) -> GameMeasure:
    """Play one game with one agent (by name) per seat and measure it. Never raises for a
    failure inside the game: ``status`` and ``error`` say what happened."""
    from .simulate import next_player

    out = GameMeasure(seed, players, list(agents))
    out.picks = [{} for _ in range(players)]
    seats = [make_agent(name, agent_seed(seed, seat)) for seat, name in enumerate(agents)]
    leaders: list[tuple[int, int | None, list[int]]] = []  # (decision, unique leader, scores)
    calls: dict[str, int] = {}
    previous = runtime.push_counter
    runtime.push_counter = calls
    try:
        state = game.new_game(players=players, seed=seed)
        runtime.push_counter = None
        last_turn = state.s.turn
        while not state.is_over:
            if out.decisions >= max_decisions:
                out.status = "limit"
                out.error = f"the game did not end within {max_decisions} decisions"
                break
            player = next_player(state)
            actions = state.legal_actions(player)
            if not actions:
                raise RuntimeError(f"player {player} has no legal action at this decision")
            out.choices += len(actions)
            action = seats[player].choose(state, player)
            if card_picks is not None:
                key = _pick_key(state, player, action, card_picks)
                if key is not None:
                    out.picks[player][key] = out.picks[player].get(key, 0) + 1
            runtime.push_counter = calls  # an agent that looks ahead must not count its trials
            state.apply(action)
            runtime.push_counter = None
            out.decisions += 1
            turn = state.s.turn
            if turn != last_turn or not turn:  # the scores at each new turn (each decision without turns)
                last_turn = turn
                try:
                    scores = state.scores()
                except RuleRuntimeError:  # a score that only makes sense at the end: no leader now
                    continue
                leaders.append((out.decisions, _leader(scores), scores))
        if state.is_over:
            scores = state.scores()
            leaders.append((out.decisions, _leader(scores), scores))
        if out.status == "finished":
            out.scores = list(state.scores())
            out.winners = list(state.winners())
    except Exception as exc:  # recorded (a rule that fails, an engine bug): a batch goes on
        out.status = "error"
        text = str(exc).strip()
        out.error = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    finally:
        runtime.push_counter = previous
    out.calls = calls
    if out.finished:
        _leads(out, leaders)
    return out


def _leads(out: GameMeasure, leaders: list[tuple[int, int | None, list[int]]]) -> None:
    """Lead changes, when the winner leads for good, and whether the half-time leader won."""
    last = None
    for _, leader, _ in leaders:
        if leader is not None:
            if last is not None and leader != last:
                out.lead_changes += 1
            last = leader
    if not leaders or out.decisions == 0:
        return
    if out.winners and len(out.winners) == 1:
        w = out.winners[0]
        since = 0  # the decision after which the winner is the sole leader up to the end
        for decision, leader, _ in leaders:
            if leader != w:
                since = decision
        out.winner_leads_from = since / out.decisions
    half = next(((d, scores) for d, _, scores in leaders if d >= out.decisions / 2), None)
    if half is not None:
        scores = half[1]
        best = max(scores)
        top = [p for p, s in enumerate(scores) if s == best]
        # the share of the half-time leaders who are among the winners (1: the sole leader won)
        out.half_time_leader_won = sum(1.0 for p in top if p in (out.winners or [])) / len(top)


def measure_task(task: tuple) -> GameMeasure:
    """One game of a batch, in whichever process runs it (see interpreter.tools.parallel)."""
    spec, players, seed, agents, max_decisions = task
    return measure_game(game_for(spec), players, seed, agents, card_picks_for(spec), max_decisions)


_CARD_PICKS: dict[GameSpec, set] = {}


def card_picks_for(spec: GameSpec) -> set:
    """The positions of the game's ``choose c in ...`` over cards (from the checked rules)."""
    found = _CARD_PICKS.get(spec)
    if found is None:
        from .validate import Validator, static_warnings  # noqa: I001

        program = static_warnings(spec.path, list(spec.house))[2]
        found = _CARD_PICKS[spec] = Validator(game_for(spec), program).card_picks
    return found


# --------------------------------------------------------------------------- a batch


def chi_square_sf(x: float, df: int) -> float:
    """P(X >= x) for a chi-square variable with ``df`` degrees of freedom (series of the
    regularized lower incomplete gamma function)."""
    if x <= 0:
        return 1.0
    a, t = df / 2, x / 2
    term = total = 1 / a
    k = 0
    while abs(term) > 1e-15 * abs(total) and k < 10_000:
        k += 1
        term *= t / (a + k)
        total += term
    lower = math.exp(-t + a * math.log(t) - math.lgamma(a)) * total
    return min(1.0, max(0.0, 1 - lower))


def _mean_ci(values: list[float]) -> tuple[float, float, float]:
    n = len(values)
    if n == 0:
        return (math.nan, math.nan, math.nan)
    mean = sum(values) / n
    if n == 1:
        return (mean, mean, mean)
    sd = math.sqrt(sum((x - mean) ** 2 for x in values) / (n - 1))
    half = Z95 * sd / math.sqrt(n)
    return (mean, mean - half, mean + half)


@dataclass
class PickStat:
    """One card or option: how often it is chosen and how its choosers do."""

    key: str
    times: int = 0  # chosen, over all games and seats
    choosers: int = 0  # (game, seat) pairs that chose it at least once
    chooser_wins: float = 0.0  # their win shares summed

    def per_game(self, games: int) -> float:
        return self.times / games if games else 0.0

    def chooser_win_rate(self) -> float | None:
        return self.chooser_wins / self.choosers if self.choosers else None


@dataclass
class Metrics:
    """A batch of games summed up; see docs/testing.md for each formula."""

    players: int
    games: int
    finished: int = 0
    hit_limit: int = 0
    failed: int = 0
    seat_wins: list[float] = field(default_factory=list)
    first_player_advantage: float = math.nan  # win rate of seat 1 minus 1/N
    balance_chi2: float = math.nan
    balance_p: float = math.nan
    length: tuple[float, float, float] = (math.nan, math.nan, math.nan)
    branching: float = math.nan  # mean legal actions per decision
    lead_changes: tuple[float, float, float] = (math.nan, math.nan, math.nan)
    winner_leads_from: tuple[float, float, float] = (math.nan, math.nan, math.nan)
    half_time_leader_wins: tuple[float, float, float] = (math.nan, math.nan, math.nan)
    spread: tuple[float, float, float] = (math.nan, math.nan, math.nan)
    picks: dict[str, PickStat] = field(default_factory=dict)
    first_errors: list[str] = field(default_factory=list)

    def win_rate(self, seat: int) -> tuple[float, float, float]:
        w = self.seat_wins[seat] if seat < len(self.seat_wins) else 0.0
        lo, hi = wilson(w, self.finished)
        return (w / self.finished if self.finished else math.nan, lo, hi)

    def to_dict(self) -> dict:
        data = asdict(self)
        data["picks"] = {k: asdict(v) | {"per_game": v.per_game(self.finished),
                                         "chooser_win_rate": v.chooser_win_rate()}
                         for k, v in self.picks.items()}
        data["win_rates"] = [self.win_rate(s) for s in range(self.players)]
        return data


def summarize_measures(measures: list[GameMeasure], players: int) -> Metrics:
    m = Metrics(players, len(measures), seat_wins=[0.0] * players)
    done = [g for g in measures if g.finished]
    m.finished = len(done)
    m.hit_limit = sum(g.status == "limit" for g in measures)
    m.failed = sum(g.status == "error" for g in measures)
    m.first_errors = [f"seed {g.seed}: {g.error}" for g in measures if g.error][:5]
    for g in done:
        for seat in range(players):
            m.seat_wins[seat] += g.win_share(seat)
    if done:
        m.first_player_advantage = m.seat_wins[0] / len(done) - 1 / players
        expected = sum(m.seat_wins) / players
        if expected > 0 and players > 1:
            m.balance_chi2 = sum((w - expected) ** 2 / expected for w in m.seat_wins)
            m.balance_p = chi_square_sf(m.balance_chi2, players - 1)
        decisions = sum(g.decisions for g in done)
        m.branching = sum(g.choices for g in done) / decisions if decisions else math.nan
    m.length = _mean_ci([float(g.decisions) for g in done])
    m.lead_changes = _mean_ci([float(g.lead_changes) for g in done])
    m.winner_leads_from = _mean_ci([g.winner_leads_from for g in done if g.winner_leads_from is not None])
    m.half_time_leader_wins = _mean_ci([g.half_time_leader_won for g in done
                                        if g.half_time_leader_won is not None])
    m.spread = _mean_ci([s for g in done if (s := g.spread()) is not None])
    for g in done:
        for seat, chosen in enumerate(g.picks):
            for key, times in chosen.items():
                stat = m.picks.setdefault(key, PickStat(key))
                stat.times += times
                stat.choosers += 1
                stat.chooser_wins += g.win_share(seat)
    return m
