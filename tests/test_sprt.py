"""The sequential test's error rates, measured by simulation (issue 18).

Pure Python on synthetic streams with known answers: paired coin flips whose first seat wins
with probability p (base) and q (house rules), and paired game lengths whose means differ by a
known share. Each configuration runs a few hundred seeded tests to the end and counts how often
the test said "it changes" (H1): at most 5 % when nothing changes (false positives), at least
95 % when the change is exactly the effect size (power).
"""

from __future__ import annotations

import math
import random

import pytest

from interpreter.tools.sprt import MIN_PAIRS, PairedSPRT, bounds, llr_normal, mean_interval, tilted_variance

RUNS = 600
BUDGET = 20_000


def _coin_flips(p: float, q: float, seed: int, effect: float = 0.10, shared: bool = False) -> PairedSPRT:
    """Paired coin flips, independent, or ``shared``: both games of a pair flip the same coin
    (common random numbers at their best, as `validate` pairs games), so the first seat wins
    the house game whenever it wins the base game and d is 0 or 1 (or 0 or -1)."""
    rng = random.Random(seed)
    t = PairedSPRT("first seat wins", effect)
    while not t.decided and t.n < BUDGET:
        u = rng.random()
        t.add(u < p, (u if shared else rng.random()) < q)
    t.give_up()
    return t


def _lengths(ratio: float, seed: int, effect: float = 0.10) -> PairedSPRT:
    """Paired game lengths: the house game shares half its variation with its base game."""
    rng = random.Random(seed)
    t = PairedSPRT("length", effect, relative=True)
    while not t.decided and t.n < BUDGET:
        common = rng.gauss(0, 30)
        base = 160 + common + rng.gauss(0, 30)
        t.add(base, ratio * (160 + common + rng.gauss(0, 30)))
    t.give_up()
    return t


def _rate(tests: list[PairedSPRT]) -> float:
    assert all(t.status in ("H0", "H1") for t in tests), "every run decides within the budget"
    return sum(t.status == "H1" for t in tests) / len(tests)


@pytest.mark.parametrize("p", [0.5, 0.3])
def test_false_positives_on_fair_coin_flips_are_at_most_5_percent(p):
    assert _rate([_coin_flips(p, p, seed) for seed in range(RUNS)]) <= 0.05


@pytest.mark.parametrize("q", [0.6, 0.4])
def test_power_at_the_effect_size_is_at_least_95_percent(q):
    assert _rate([_coin_flips(0.5, q, seed) for seed in range(RUNS)]) >= 0.95


@pytest.mark.parametrize("q", [0.6, 0.4])
def test_power_holds_when_the_paired_games_share_their_coin(q):
    """d is 1 in 10 % of the pairs, 0 otherwise: skewed, its sample variance shrinks with its
    mean, and judged by that variance alone a short run of zeros accepted H0 (93 % power)."""
    assert _rate([_coin_flips(0.5, q, seed, shared=True) for seed in range(RUNS)]) >= 0.95


@pytest.mark.parametrize("p", [0.5, 0.3])
def test_shared_coins_with_the_same_odds_are_neutral_at_once(p):
    tests = [_coin_flips(p, p, seed, shared=True) for seed in range(50)]
    assert all(t.status == "H0" and t.decided_at == MIN_PAIRS for t in tests)


def test_the_tilted_variance_is_that_of_the_nearest_distribution_with_the_mean_asked():
    coin = {0.0: 49, 1.0: 1}  # one head in 50 flips, tilted to a coin with 10 % heads
    assert tilted_variance(coin, 0.1) == pytest.approx(0.1 * 0.9)
    assert tilted_variance(coin, 0.9) == pytest.approx(0.9 * 0.1)
    assert tilted_variance({-1.0: 1, 0.0: 2, 1.0: 1}, 0.0) == pytest.approx(0.5)  # already there
    assert tilted_variance(coin, 1.0) is None and tilted_variance({0.0: 10}, 0.1) is None
    rng = random.Random(5)
    normal = {rng.gauss(0, 30): 1 for _ in range(4000)}  # tilting a normal sample keeps its variance
    assert tilted_variance(normal, 10.0) == pytest.approx(900, rel=0.1)


def test_a_change_twice_the_effect_size_is_found_almost_always_and_sooner():
    at_effect = [_coin_flips(0.5, 0.6, seed) for seed in range(200)]
    twice = [_coin_flips(0.5, 0.7, seed) for seed in range(200)]
    assert _rate(twice) >= 0.99
    assert sum(t.n for t in twice) < sum(t.n for t in at_effect) / 2


def test_relative_questions_keep_the_error_rates_too():
    assert _rate([_lengths(1.0, seed) for seed in range(300)]) <= 0.05
    assert _rate([_lengths(0.9, seed) for seed in range(300)]) >= 0.95


def test_the_estimate_of_a_relative_change_covers_the_truth():
    t = _lengths(0.82, 7)  # games 18 % shorter
    est, lo, hi = t.estimate()
    assert t.status == "H1" and lo < -0.18 < hi and abs(est + 0.18) < 0.05


def test_identical_pairs_are_accepted_as_no_change_as_soon_as_allowed():
    t = PairedSPRT("no-op", 0.1)
    for i in range(200):
        t.add(i % 2, i % 2)
    assert t.status == "H0" and t.decided_at == MIN_PAIRS
    assert t.estimate() == (0.0, 0.0, 0.0)


def test_an_undecided_test_says_so_with_its_estimate_and_interval():
    t = _coin_flips(0.5, 0.55, 3)  # half the effect size: may take long
    t2 = PairedSPRT("short budget", 0.1)
    rng = random.Random(1)
    for _ in range(60):
        t2.add(rng.random() < 0.5, rng.random() < 0.55)
    t2.give_up()
    assert t.status in ("H0", "H1")
    if t2.status == "undecided":
        est, lo, hi = t2.estimate()
        assert lo < est < hi and t2.decided_at == 60


def test_the_bounds_and_the_normal_log_likelihood_ratio():
    lower, upper = bounds(0.05, 0.05, two_sided=False)
    assert (round(lower, 2), round(upper, 2)) == (-2.94, 2.94)
    lower, upper = bounds()
    assert (round(lower, 2), round(upper, 2)) == (-3.2, 4.16)
    # n (mu1 - mu0) (2 mean - mu0 - mu1) / (2 var)
    assert llr_normal(100, 0.05, 0.5, 0.0, 0.1) == pytest.approx(0.0)
    assert llr_normal(100, 0.1, 0.5, 0.0, 0.1) == pytest.approx(1.0)
    assert llr_normal(10, 0.0, 0.0, 0.0, 0.1) == -math.inf
    lo, hi = mean_interval(100, 1.0, 4.0)
    assert (round(lo, 3), round(hi, 3)) == (0.608, 1.392)
