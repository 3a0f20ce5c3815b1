"""`rulelang validate`'s answer to "does this house rule change the game": paired games until the
sequential tests decide, metrics, matchups and the verdict (issue 18).

The whole pipeline runs on `fixtures/coin`, a coin flip whose first seat wins with a known
probability (0.5; `p60.rules`: 0.6; `same_odds.rules` changes the rules but not the odds)."""

from __future__ import annotations

import json
import math
import re
import xml.etree.ElementTree as ET

import pytest
from conftest import FIXTURES, ROOT

import interpreter
from interpreter.tools.cli import main
from interpreter.tools.matchups import computer_agents, matchups
from interpreter.tools.metrics import chi_square_sf, measure_game, summarize_measures
from interpreter.tools.sequential import compare, format_verdict, verdict_lines
from interpreter.tools.sprt import MIN_PAIRS, bounds

COIN = str(FIXTURES / "coin")
P60 = str(FIXTURES / "coin" / "p60.rules")
SAME_ODDS = str(FIXTURES / "coin" / "same_odds.rules")
TINY = str(FIXTURES / "tiny")
OFF_PLAN = str(ROOT / "games" / "off_plan")
HOUSE = ROOT / "examples" / "house_rules" / "off_plan"


def _coin(house: str | None = None):
    return interpreter.load(COIN, house=[house] if house else None)


def _status(result) -> dict[str, str]:
    return {q.key: t.status for q, t in result.tests}


def test_a_house_rule_that_favours_the_first_seat_is_detected():
    result = compare(_coin(), _coin(P60), 2, budget=2000)
    assert _status(result)["balance"] == "H1"
    [t] = [t for q, t in result.tests if q.key == "balance"]
    est, lo, hi = t.estimate()
    assert lo < 0.10 < hi and est > 0  # the true change: +10 points
    assert result.pairs == t.decided_at  # it stopped as soon as every question was decided


def test_a_house_rule_that_changes_nothing_is_accepted_as_neutral_at_once():
    result = compare(_coin(), _coin(), 2, budget=2000)
    assert _status(result) == {"balance": "H0", "length": "H0", "spread": "H0", "half_time": "H0"}
    assert result.pairs == MIN_PAIRS  # identical paired games: no variance, no doubt
    assert "no significant change (SPRT accepted H0 after 50 paired games" in verdict_lines(result)[0]


def test_a_house_rule_with_the_same_odds_is_accepted_as_neutral():
    result = compare(_coin(), _coin(SAME_ODDS), 2, budget=2000)
    assert _status(result)["balance"] == "H0"
    assert result.pairs > MIN_PAIRS  # the games differ, so this took real evidence


def test_the_game_alone_is_tested_against_a_fair_first_seat():
    result = compare(_coin(), None, 2, budget=2000)
    assert _status(result) == {"balance": "H0"} and len(result.house_games) == 0
    p60_alone = compare(_coin(P60), None, 2, budget=2000)
    assert _status(p60_alone) == {"balance": "H1"}
    assert "a fair share is 50 %" in verdict_lines(p60_alone)[0]


def test_the_budget_stops_an_undecided_question_with_its_estimate():
    result = compare(_coin(), _coin(SAME_ODDS), 2, budget=30)
    assert result.pairs == 30 and _status(result)["balance"] == "undecided"
    line = verdict_lines(result)[0]
    assert re.search(r"not enough evidence after 30 paired games \(the game budget\): estimate [+-]\d", line)
    assert "95 % CI" in line


def test_one_and_two_workers_give_the_same_verdict_and_metrics():
    one = compare(_coin(), _coin(SAME_ODDS), 2, budget=400, workers=1)
    two = compare(_coin(), _coin(SAME_ODDS), 2, budget=400, workers=2)
    strip = lambda r: {k: v for k, v in r.to_dict().items()}  # noqa: E731
    assert strip(one) == strip(two)
    assert [g.to_dict() for g in one.base] == [g.to_dict() for g in two.base]


def test_effect_sizes_are_settable_and_unknown_questions_refused():
    small = compare(_coin(), _coin(SAME_ODDS), 2, budget=100, effects={"balance": 0.5})
    [t] = [t for q, t in small.tests if q.key == "balance"]
    assert t.effect == 0.5 and t.status == "H0" and t.decided_at == MIN_PAIRS
    with pytest.raises(ValueError, match="unknown question 'fun'"):
        compare(_coin(), _coin(), 2, effects={"fun": 0.1})


def test_a_measured_game_counts_choices_leads_and_picks():
    game = interpreter.load(TINY)
    from interpreter.tools.metrics import card_picks_for
    from interpreter.tools.parallel import spec_of

    g = measure_game(game, 2, 3, ["random", "random"], card_picks_for(spec_of(game)))
    assert g.finished and g.decisions > 0 and g.choices >= g.decisions
    assert sum(g.win_share(s) for s in range(2)) == pytest.approx(1.0)
    assert any(k.startswith("card ") for seat in g.picks for k in seat)
    assert any(k.startswith("option ") for seat in g.picks for k in seat)
    assert 0 <= g.winner_leads_from <= 1 if g.winner_leads_from is not None else True
    assert g.calls.get("proc:take_turn", 0) > 0


def test_metrics_follow_their_formulas():
    game = interpreter.load(TINY)
    games = [measure_game(game, 2, s, ["random", "random"], set()) for s in range(12)]
    m = summarize_measures(games, 2)
    assert m.finished == 12 and m.failed == 0
    assert sum(m.seat_wins) == pytest.approx(12)
    assert m.first_player_advantage == pytest.approx(m.seat_wins[0] / 12 - 0.5)
    assert m.length[0] == pytest.approx(sum(g.decisions for g in games) / 12)
    assert m.branching == pytest.approx(sum(g.choices for g in games) / sum(g.decisions for g in games))
    assert m.lead_changes[0] == pytest.approx(sum(g.lead_changes for g in games) / 12)
    expected = 6
    assert m.balance_chi2 == pytest.approx(sum((w - expected) ** 2 / expected for w in m.seat_wins))


def test_chi_square_tail_probabilities():
    assert chi_square_sf(3.841, 1) == pytest.approx(0.05, abs=1e-3)
    assert chi_square_sf(5.991, 2) == pytest.approx(0.05, abs=1e-3)
    assert chi_square_sf(0, 3) == 1.0


def test_a_game_that_fails_is_counted_not_raised():
    game = interpreter.load(TINY)
    g = measure_game(game, 2, 1, ["random", "random"], set(), max_decisions=3)
    assert g.status == "limit" and "did not end within 3 decisions" in g.error
    m = summarize_measures([g], 2)
    assert (m.finished, m.hit_limit, m.failed) == (0, 1, 0)


def test_matchups_give_each_agent_a_win_rate_against_each_other():
    game = interpreter.load(TINY)
    m = matchups([("base", game)], 2, ["random", "greedy"], games=6)
    assert sorted(m.cells) == [("base", "greedy", "random"), ("base", "random", "greedy")]
    # the greedy agent's cell, worked out by hand: it sits in seat i % 2 of game i
    wins = 0.0
    for i in range(6):
        seats = ["random", "random"]
        seats[i % 2] = "greedy"
        wins += measure_game(game, 2, i, seats, set()).win_share(i % 2)
    rate, lo, hi = m.rate("base", "greedy", "random")
    assert rate == pytest.approx(wins / 6) and lo <= rate <= hi
    assert m.rate("base", "random", "random") is None


def test_the_matchups_default_to_the_agents_that_do_not_search_and_take_a_named_mcts(capsys):
    assert computer_agents() == ["random", "greedy"]
    code = main(["validate", COIN, "--only", "matchups", "--workers", "1", "--matchup-games", "4",
                 "--matchup-agents", "random,mcts:iterations=5"])
    out = capsys.readouterr().out
    assert code == 0
    table = out.split("== Matchups\n")[1]
    assert "mcts:iterations=5" in table and "greedy" not in table


def test_the_command_prints_the_verdict_first_and_the_report_puts_it_on_top(capsys, tmp_path):
    report = tmp_path / "coin.html"
    code = main(["validate", COIN, "--house", P60, "--games", "5", "--workers", "1", "--matchup-games", "4",
                 "--report", str(report)])
    out = capsys.readouterr().out
    assert code == 0
    sections = re.findall(r"^== (.+)$", out, re.M)
    assert sections[0] == "Verdict"
    assert sections[1:] == ["Static analysis", "Invariants (0 declared, and the built-in ones)",
                            "Balance: the sequential tests", "Balance: the numbers", "Matchups"]
    verdict = out.split("== Verdict\n")[1].split("\n== ")[0]
    assert re.search(r"Seat balance \(the first player's win rate\): CHANGED, \+\d+\.\d points .*"
                     r"\(SPRT accepted H1 after \d+ paired games\)", verdict)
    page = report.read_text()
    assert page.index('id="verdict"') < page.index("<h2>Static analysis")
    assert "SPRT accepted H1 after" in page
    for svg in re.findall(r"<svg.*?</svg>", page, re.S):
        ET.fromstring(svg)
        assert svg.count('font-weight="bold"') >= 1  # every plot names what its axes measure


def test_effect_on_the_command_line(capsys):
    code = main(["validate", COIN, "--house", SAME_ODDS, "--only", "balance", "--effect", "balance=50%",
                 "--workers", "1"])
    out = capsys.readouterr().out
    assert code == 0 and "no change of 50 points or more" in out
    assert main(["validate", COIN, "--only", "balance", "--effect", "fun=1"]) == 1
    assert "no such question" in capsys.readouterr().err


def test_the_verdict_as_json_round_trips():
    result = compare(_coin(), _coin(P60), 2, budget=300)
    data = json.loads(json.dumps(result.to_dict()))
    assert data["verdict"] == verdict_lines(result)
    head = format_verdict(result).splitlines()[0]
    assert head.startswith(f"Verdict after {result.pairs} paired games")
    assert f"({result.games} games in all, random agents in every seat; " in head


# --------------------------------------------------------------------------- slow


@pytest.mark.slow
@pytest.mark.parametrize(("house", "changed"), [(SAME_ODDS, False), (P60, True)])
def test_the_whole_pipelines_error_rates_on_the_coin(house, changed):
    """A few hundred whole runs: the same odds are called changed at most 5 % of the time, and
    the first seat's 10-point gain is found at least 95 % of the time."""
    base, other = _coin(), _coin(house)
    runs = [compare(base, other, 2, seed=10_000 * k, budget=5000, questions=("balance",)) for k in range(200)]
    rate = sum(_status(r)["balance"] == "H1" for r in runs) / len(runs)
    assert rate >= 0.95 if changed else rate <= 0.05


def _chance_of_h1(change: float, effect: float) -> float:
    """The design's chance of "changed" when the true change is ``change``: Wald's operating
    characteristic of the one-sided test towards the change's side, bounds from sprt.bounds(),
    ``P(H1) = (1 - e^(h lower)) / (e^(h upper) - e^(h lower))`` with ``h = 1 - 2 change / effect``
    (normal increments); the other side's test adds well under 1 % for a change of either sign."""
    lower, upper = bounds()
    h = 1 - 2 * abs(change) / effect
    if h == 0:
        return -lower / (upper - lower)
    return (1 - math.exp(h * lower)) / (math.exp(h * upper) - math.exp(h * lower))


def test_the_design_chances_used_below_are_the_promised_error_rates():
    assert _chance_of_h1(0.0, 0.10) == pytest.approx(0.015, abs=1e-3)  # alpha / 2 a side
    assert _chance_of_h1(0.10, 0.10) == pytest.approx(0.96, abs=1e-3)  # 1 - beta at the effect size
    assert _chance_of_h1(0.20, 0.10) > 0.999


@pytest.mark.slow
def test_a_house_rule_that_unbalances_off_plan_is_detected():
    """The first player's 10 bonus points move their win rate by +23.5 points (95 % CI 19.3 to
    27.7 over 400 paired games with random agents): the design calls that changed with a chance
    of over 99.9 % (above), so a seeded run must say H1, and its interval must hold the change."""
    assert _chance_of_h1(0.193, 0.10) > 0.999
    base = interpreter.load(OFF_PLAN)
    house = interpreter.load(OFF_PLAN, house=[str(HOUSE / "first_player_bonus.rules")])
    result = compare(base, house, 2, budget=1500, workers=2, questions=("balance",))
    [t] = [t for q, t in result.tests if q.key == "balance"]
    est, lo, hi = t.estimate()
    assert t.status == "H1" and est > 0.10 and lo < 0.235 < hi


@pytest.mark.slow
def test_a_head_start_far_below_the_effect_size_is_not_called_a_change_on_off_plan():
    """"Head start" (4 more Funds tokens for the first player) was written to unbalance Off-Plan,
    and this test asked for H1. It never got it (H0 at 461 pairs, -2.4 points, on the commit that
    wrote it): with random agents the head start moves the first seat's win rate by +1.0 point
    (95 % CI -2.0 to +3.9 over 1500 paired games), a tenth of the 10-point effect size. At +1
    point the design says "changed" with a chance of 3 % (and 25 % at the interval's top end,
    +3.9): its answer is H0, "no change of 10 points or more", with an interval below 10."""
    assert _chance_of_h1(0.01, 0.10) < 0.05 and _chance_of_h1(0.039, 0.10) < 0.3
    base = interpreter.load(OFF_PLAN)
    house = interpreter.load(OFF_PLAN, house=[str(HOUSE / "head_start.rules")])
    result = compare(base, house, 2, budget=1500, workers=2, questions=("balance",))
    [t] = [t for q, t in result.tests if q.key == "balance"]
    est, lo, hi = t.estimate()
    assert t.status == "H0" and hi < 0.10
