"""Does the house rule change the game, how, and how sure are we: paired games until the
sequential tests decide (``rulelang validate``'s balance part).

Pair ``i`` plays the base game and the house-rule game with the same seed and the same agents
(common random numbers: the same shuffles wherever the rules still agree), the agents rotated
one seat further at every pair so no seat keeps the strongest one. Each pair feeds one
:class:`~interpreter.tools.sprt.PairedSPRT` per question; the run stops when every question is
decided or the game budget is spent. Batches of pairs go to the worker pool, and the results
are read in seed order, so the decisions (and the pair each was made at) are the same for any
number of workers. Without house rules there is one question, seat balance, asked of the game
against a perfectly fair one (a first seat winning ``1/N`` of the games).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .metrics import GameMeasure, Metrics, card_picks_for, measure_task, summarize_measures
from .parallel import Pool, spec_of
from .progress import Progress
from .sprt import PairedSPRT

__all__ = ["QUESTIONS", "Question", "SequentialResult", "compare", "format_verdict", "verdict_lines"]


@dataclass(frozen=True)
class Question:
    key: str
    title: str  # as the verdict says it
    effect: float  # the default effect size worth detecting
    relative: bool  # effect as a share of the base mean
    measure: Callable[[GameMeasure], float | None]
    unit: str  # how a difference is shown: "points" (percentage points) or "%" (relative)


QUESTIONS: tuple[Question, ...] = (
    Question("balance", "Seat balance (the first player's win rate)", 0.10, False,
             lambda g: g.win_share(0), "points"),
    Question("length", "Game length (decisions per game)", 0.10, True,
             lambda g: float(g.decisions), "%"),
    Question("spread", "Score spread (highest minus lowest final score)", 0.20, True,
             lambda g: g.spread(), "%"),
    Question("half_time", "The leader at half-time wins", 0.10, False,
             lambda g: g.half_time_leader_won, "points"),
)
QUESTION_KEYS = tuple(q.key for q in QUESTIONS)
DEFAULT_BUDGET = 1000


@dataclass
class SequentialResult:
    players: int
    agents: list[str]
    seed: int
    budget: int
    house: bool
    tests: list[tuple[Question, PairedSPRT]] = field(default_factory=list)
    base: list[GameMeasure] = field(default_factory=list)
    house_games: list[GameMeasure] = field(default_factory=list)
    pairs: int = 0
    backend: str = ""
    base_metrics: Metrics | None = None
    house_metrics: Metrics | None = None

    @property
    def games(self) -> int:
        return len(self.base) + len(self.house_games)

    def to_dict(self) -> dict:
        return {"players": self.players, "agents": self.agents, "seed": self.seed, "budget": self.budget,
                "pairs": self.pairs, "games": self.games, "verdict": verdict_lines(self),
                "tests": [t.to_dict() | {"key": q.key, "title": q.title} for q, t in self.tests],
                "base": self.base_metrics.to_dict() if self.base_metrics else None,
                "house": self.house_metrics.to_dict() if self.house_metrics else None}


def _rotated(agents: list[str], i: int) -> list[str]:
    k = i % len(agents)
    return agents[k:] + agents[:k]


def compare(base: Any, house: Any | None, players: int, agents: list[str] | None = None, seed: int = 0,
            budget: int = DEFAULT_BUDGET, effects: dict[str, float] | None = None, workers: int = 1,
            ray: str | None = None, progress: Progress | None = None, max_decisions: int = 2000,
            questions: tuple[str, ...] | None = None) -> SequentialResult:
    """Play paired games until every question is decided or ``budget`` pairs are played.

    ``house=None``: the base game alone, its seat balance against a fair game."""
    agents = list(agents or ["random"] * players)
    effects = dict(effects or {})
    unknown = sorted(set(effects) - set(QUESTION_KEYS))
    if unknown:
        raise ValueError(f"unknown question {unknown[0]!r}; the questions are {', '.join(QUESTION_KEYS)}")
    wanted = [q for q in QUESTIONS if (questions is None or q.key in questions)
              and (house is not None or q.key == "balance")]
    result = SequentialResult(players, agents, seed, budget, house is not None)
    result.tests = [(q, PairedSPRT(q.title, effects.get(q.key, q.effect), q.relative)) for q in wanted]
    specs = [spec_of(base)] + ([spec_of(house)] if house is not None else [])
    for spec in specs:  # worked out here once, so forked workers inherit it
        card_picks_for(spec)
    with Pool(workers, ray) as pool:
        result.backend = pool.backend
        batch = max(8, 4 * pool.workers)
        while result.pairs < budget and not all(t.decided for _, t in result.tests):
            first = seed + result.pairs
            count = min(batch, budget - result.pairs)
            tasks = [(spec, players, first + i, _rotated(agents, first - seed + i), max_decisions)
                     for i in range(count) for spec in specs]
            measures = pool.map(measure_task, tasks)
            for i in range(count):
                b = measures[i * len(specs)]
                h = measures[i * len(specs) + 1] if house is not None else None
                result.pairs += 1
                result.base.append(b)
                if h is not None:
                    result.house_games.append(h)
                _feed(result, b, h, players)
                if all(t.decided for _, t in result.tests):
                    break
            if progress is not None:
                undecided = sum(not t.decided for _, t in result.tests)
                progress.update(result.games, f"{undecided} question{'s' if undecided != 1 else ''} open")
    if progress is not None:
        progress.set_total(result.games)  # it stopped early: the bar ends full
        progress.close()
    for _, t in result.tests:
        t.give_up()
    result.base_metrics = summarize_measures(result.base, players)
    if house is not None:
        result.house_metrics = summarize_measures(result.house_games, players)
    return result


def _feed(result: SequentialResult, b: GameMeasure, h: GameMeasure | None, players: int) -> None:
    """One pair into every open question; a pair where either game did not finish, or the
    question has no value (no half-time leader), is left out of that question."""
    for q, t in result.tests:
        if t.decided:
            continue
        if h is None:  # the game alone: its first seat against a fair share
            if b.finished:
                t.add(1 / players, b.win_share(0))
            continue
        if not (b.finished and h.finished):
            continue
        x, y = q.measure(b), q.measure(h)
        if x is not None and y is not None:
            t.add(x, y)


# --------------------------------------------------------------------------- the verdict


def _pct(x: float, digits: int = 0) -> str:
    return f"{100 * x:.{digits}f} %"


def _signed_points(x: float) -> str:
    return f"{100 * x:+.1f} points"


def _test_line(q: Question, t: PairedSPRT, house: bool) -> str:
    est, lo, hi = t.estimate()
    if q.relative:
        if math.isnan(est):
            change = "no estimate (the base mean is 0)"
        else:
            word = {"length": ("longer", "shorter"), "spread": ("wider", "narrower")}.get(q.key, ("more", "less"))
            change = (f"{abs(100 * est):.0f} % {word[0] if est >= 0 else word[1]} "
                      f"(95 % CI {100 * lo:+.0f} to {100 * hi:+.0f} %)")
        means = f"mean {t.m.mean_x:.1f} -> {t.m.mean_y:.1f} over those games"
    else:
        if house:
            means = f"{_pct(t.m.mean_x)} -> {_pct(t.m.mean_y)}"
        else:
            means = f"{_pct(t.m.mean_y)}, a fair share is {_pct(t.m.mean_x)}"
        change = f"{_signed_points(est)} (95 % CI {100 * lo:+.1f} to {100 * hi:+.1f})"
    size = f"{100 * t.effect:.0f} %" if q.relative else f"{100 * t.effect:.0f} points"
    games = "paired games" if house else "games"
    if t.status == "H1":
        return f"{q.title}: CHANGED, {change}; {means} (SPRT accepted H1 after {t.decided_at} {games})."
    if t.status == "H0":
        return (f"{q.title}: no significant change (SPRT accepted H0 after {t.decided_at} {games}: "
                f"no change of {size} or more); {means}, {change}.")
    return (f"{q.title}: not enough evidence after {t.decided_at} {games} (the game budget): "
            f"estimate {change}; {means}.")


def _pick_line(result: SequentialResult) -> str | None:
    """The card or option whose popularity changed the most, and how its choosers do."""
    b, h = result.base_metrics, result.house_metrics
    if b is None or h is None or not b.finished or not h.finished:
        return None
    best = None
    for key in set(b.picks) | set(h.picks):
        pb, ph = b.picks.get(key), h.picks.get(key)
        tb, th = (pb.times if pb else 0), (ph.times if ph else 0)
        if tb + th < 30:
            continue
        rb, rh = tb / b.finished, th / h.finished
        ratio = (rh + 0.5 / h.finished) / (rb + 0.5 / b.finished)
        score = abs(math.log(ratio))
        if best is None or score > best[0]:
            best = (score, key, rb, rh, pb, ph)
    if best is None or best[0] < math.log(1.5):
        return None
    _, key, rb, rh, pb, ph = best
    kind, _, name = key.partition(" ")
    what = f"The {kind} \u201c{name}\u201d"
    if rb == 0:
        how = f"{what} is now chosen {rh:.2f} times a game (never before)"
    elif rh == 0:
        how = f"{what} is no longer chosen (was {rb:.2f} times a game)"
    else:
        r = rh / rb
        how = f"{what} is now chosen {r:.1f}x as often" if r >= 1 else f"{what} is now chosen {1 / r:.1f}x less often"
    wb = pb.chooser_win_rate() if pb else None
    wh = ph.chooser_win_rate() if ph else None
    if wb is not None and wh is not None:
        how += f", and whoever chooses it wins {_pct(wh)} vs {_pct(wb)}"
    return how + "."


def verdict_lines(result: SequentialResult) -> list[str]:
    """The verdict in plain words: one line per question, then what changed in the choices and
    the games that did not finish."""
    lines = [_test_line(q, t, result.house) for q, t in result.tests]
    pick = _pick_line(result)
    if pick:
        lines.append(pick)
    for label, m in (("base game", result.base_metrics), ("house rules", result.house_metrics)):
        if m is not None and (m.hit_limit or m.failed):
            lines.append(f"{m.hit_limit + m.failed} of {m.games} games of the {label} did not finish "
                         f"({m.hit_limit} hit the decision limit, {m.failed} failed).")
    return lines


def format_verdict(result: SequentialResult) -> str:
    decided = [t.decided_at for _, t in result.tests if t.status in ("H0", "H1")]
    what = "paired games" if result.house else "games"
    if len(set(result.agents)) == 1:
        seats = f"{result.agents[0]} agents in every seat"
    else:
        seats = f"agents {', '.join(result.agents)} by seat, rotated"
    head = (f"Verdict after {result.pairs} {what} ({result.games} games in all, {seats}; SPRT, false positives "
            f"<= 5 %, power >= 95 %; {result.backend}):")
    if not decided and result.tests:
        head += " nothing decided within the budget."
    return "\n".join([head] + [f"  - {line}" for line in verdict_lines(result)])


# --------------------------------------------------------------------------- the details


def _ci(t: tuple[float, float, float], scale: float = 1.0, digits: int = 1, unit: str = "") -> str:
    mean, lo, hi = t
    if math.isnan(mean):
        return "-"
    return f"{scale * mean:.{digits}f}{unit} ({scale * lo:.{digits}f}-{scale * hi:.{digits}f})"


def metric_rows(result: SequentialResult, top: int = 12) -> list[tuple[str, list[str]]]:
    """The metrics as (row label, one cell per variant) rows; formulas in docs/testing.md."""
    ms = [m for m in (result.base_metrics, result.house_metrics) if m is not None]
    rows: list[tuple[str, list[str]]] = []
    add = rows.append
    add(("games finished / hit the decision limit / failed",
         [f"{m.finished} / {m.hit_limit} / {m.failed}" for m in ms]))
    for seat in range(result.players):
        add((f"win rate, Player {seat + 1} (95 % CI)", [_ci(m.win_rate(seat), 100, 1, " %") for m in ms]))
    add(("first-player advantage (win rate - 1/N)",
         [f"{100 * m.first_player_advantage:+.1f} points" if m.finished else "-" for m in ms]))
    add(("seat balance: chi-square (p-value)",
         [f"{m.balance_chi2:.2f} (p = {m.balance_p:.3f})" if not math.isnan(m.balance_chi2) else "-" for m in ms]))
    add(("length: decisions per game", [_ci(m.length) for m in ms]))
    add(("branching: legal actions per decision", [f"{m.branching:.2f}" if m.finished else "-" for m in ms]))
    add(("decisiveness: the winner leads for good from", [_ci(m.winner_leads_from, 100, 0, " % of the game")
                                                          for m in ms]))
    add(("drama: lead changes per game", [_ci(m.lead_changes, 1, 2) for m in ms]))
    add(("the leader at half-time wins", [_ci(m.half_time_leader_wins, 100, 0, " %") for m in ms]))
    add(("score spread: highest - lowest score", [_ci(m.spread) for m in ms]))
    keys = sorted({k for m in ms for k in m.picks},
                  key=lambda k: (-max(m.picks[k].times / max(m.finished, 1) for m in ms if k in m.picks), k))
    if keys:
        add(("chosen per game; whoever chooses it wins", ["" for _ in ms]))
    for key in keys[:top]:
        cells = []
        for m in ms:
            st = m.picks.get(key)
            if st is None:
                cells.append("never")
            else:
                rate = st.chooser_win_rate()
                cells.append(f"{st.per_game(m.finished):6.2f}; {100 * rate:3.0f} %" if rate is not None else "-")
        add((f"  {key}", cells))
    if len(keys) > top:
        add((f"  ... {len(keys) - top} more (in the JSON and the report)", ["" for _ in ms]))
    return rows


def test_rows(result: SequentialResult) -> list[list[str]]:
    """One row per question: the question, effect size, decision, games, LLRs, estimate."""
    out = []
    for q, t in result.tests:
        est, lo, hi = t.estimate()
        scale, unit = (100, " %") if q.relative else (100, " points")
        size = f"{100 * t.effect:.0f}{unit}"
        decision = {"H0": "no change (H0)", "H1": "changed (H1)", "undecided": "not enough evidence"}.get(
            t.status, t.status)
        estimate = "-" if math.isnan(est) else f"{scale * est:+.1f}{unit} ({scale * lo:+.1f} to {scale * hi:+.1f})"
        out.append([q.title, size, decision, str(t.decided_at or t.n), f"{t.llr_up:+.2f} / {t.llr_down:+.2f}",
                    estimate])
    return out


TEST_HEADER = ["question", "effect size", "decision", "games", "LLR up / down", "change (95 % CI)"]


def format_details(result: SequentialResult) -> str:
    from .sprt import bounds

    lower, upper = bounds()
    lines = [f"Each question stops on its own: H1 (a change at least the effect size) when an LLR reaches "
             f"{upper:+.2f}, H0 (no such change) when both reach {lower:+.2f}; {result.pairs} "
             f"{'pairs' if result.house else 'games'} played, budget {result.budget}."]
    rows = [TEST_HEADER] + test_rows(result)
    widths = [max(len(r[i]) for r in rows) + 2 for i in range(len(TEST_HEADER))]
    for r in rows:
        lines.append("  " + "".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
    lines.append("")
    labels = ["base"] + (["with house rules"] if result.house else [])
    rows2 = metric_rows(result)
    width = max(len(label) for label, _ in rows2) + 2
    cols = [max([len(lab)] + [len(c[i]) for _, c in rows2 if len(c) > i]) + 3 for i, lab in enumerate(labels)]
    lines.append("Metrics " + " " * (width - 8) + "".join(lab.ljust(c) for lab, c in zip(labels, cols, strict=True)))
    for label, cells in rows2:
        lines.append((label.ljust(width) + "".join(c.ljust(w) for c, w in zip(cells, cols, strict=False))).rstrip())
    return "\n".join(lines)
