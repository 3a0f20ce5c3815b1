"""Sequential probability ratio tests on paired measurements (pure Python, no game inside).

The question "does the house rule change X?" is asked of a stream of paired games: game ``i``
of the base rules and game ``i`` of the house rules share their seed (common random numbers),
and each pair gives one number ``d_i`` (house minus base). The test decides between

- H0: the mean of ``d`` is 0 (no change), and
- H1: the mean of ``d`` is ``+delta`` or ``-delta`` (a change at least as large as the effect
  size worth detecting),

looking at the data after every pair and stopping as soon as the evidence is strong enough, the
way chess engines are tested (a generalised SPRT: normal likelihoods with the variance estimated
from the data). "Does the house rule change X" is two-sided: it is two one-sided tests, ``0``
against ``+delta`` and ``0`` against ``-delta``. H1 is accepted as soon as either one-sided
log-likelihood ratio reaches the upper bound, H0 once both have reached the lower bound (a
one-sided test that has reached its lower bound stops there).

The promise is alpha = beta = 0.05: at most 5 % false positives, at least 95 % power at the
effect size. Wald's bounds for one one-sided test at alpha = beta = 0.05 are +-2.94; two of them
add up their false positives (about 10 % measured), and even at alpha / 2 a side (+3.64 / -2.97)
the plug-in variance leaves the measured rates at the edge (5.0 % false positives and 94.4 %
power over 1000 simulated runs). So the bounds are Wald's for alpha = 0.03 (two-sided, 1.5 % a
side) and beta = 0.04: ``log(0.96 / 0.015) = +4.16`` and ``log(0.04 / 0.985) = -3.20``. Measured
over 3000 runs of paired coin flips at p = 0.5: 2.9 % false positives, 95.6 % power at the effect
size, 469 pairs on average under H0 (463 with alpha = 0.04): the margin costs almost nothing.
tests/test_sprt.py checks the rates by simulation; the formulas are in docs/testing.md.

That was measured on independent flips. Paired games share their random numbers, and at best
(both games of a pair flip the same coin) ``d`` is 1 in 10 % of the pairs and 0 otherwise: 93 %
power, the misses all early runs of zeros whose small plug-in variance made them look decisive.
So evidence for H0 is judged with the variance under H1 (``PairedSPRT._llr``): 99.1 % power on
shared coins, 96.2 % on independent ones, the same false positives (1000 runs each).

``relative`` questions (game length, score spread) measure ``delta`` as a share of the base
mean (``delta = effect * mean(base)``, estimated as the data come in) and report the change as
a ratio of means with a delta-method interval.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

__all__ = ["ALPHA", "BETA", "DESIGN_ALPHA", "DESIGN_BETA", "MIN_PAIRS", "PairedSPRT", "bounds", "llr_normal", "mean_interval",
           "tilted_variance"]

ALPHA = 0.05  # promised: false positives (saying "it changes" when it does not), at most
BETA = 0.05  # promised: misses (saying "no change" when it changes by the effect size), at most
DESIGN_ALPHA = 0.03  # the bounds are Wald's for these: a margin for what Wald's formulas neglect
DESIGN_BETA = 0.04
Z95 = 1.959963984540054
MIN_PAIRS = 50  # no decision before this many pairs: the variance estimate needs a few


def bounds(alpha: float = DESIGN_ALPHA, beta: float = DESIGN_BETA, two_sided: bool = True) -> tuple[float, float]:
    """Wald's (lower, upper) bounds on the log-likelihood ratio of each one-sided test.

    One-sided, alpha = beta = 0.05: (-2.94, +2.94). Two-sided, each side spends alpha / 2; the
    default (alpha = 0.03, beta = 0.04): (-3.20, +4.16)."""
    a = alpha / 2 if two_sided else alpha
    return math.log(beta / (1 - a)), math.log((1 - beta) / a)


def llr_normal(n: int, mean: float, var: float, mu0: float, mu1: float) -> float:
    """The log-likelihood ratio of ``n`` normal observations with sample mean ``mean`` and
    variance ``var`` under mean ``mu1`` against mean ``mu0``:
    ``n (mu1 - mu0) (2 mean - mu0 - mu1) / (2 var)``. A zero variance gives +-infinity (or 0
    when the mean sits exactly half-way)."""
    num = n * (mu1 - mu0) * (2 * mean - mu0 - mu1)
    if var <= 0:
        return 0.0 if num == 0 else math.copysign(math.inf, num)
    return num / (2 * var)


def mean_interval(n: int, mean: float, var: float, z: float = Z95) -> tuple[float, float]:
    """The normal-approximation interval of a mean (95% by default)."""
    if n <= 0:
        return (-math.inf, math.inf)
    half = z * math.sqrt(max(var, 0.0) / n)
    return (mean - half, mean + half)


def tilted_variance(counts: dict[float, int], target: float) -> float | None:
    """The variance of the observed values (``counts``: value -> how often) exponentially tilted
    to mean ``target``: the distribution closest to the data (in Kullback-Leibler divergence)
    whose mean is ``target``, weights ``exp(lam * v)``. Tilting a normal sample keeps its
    variance; tilting two values 0 and 1 to mean ``p`` gives ``p (1 - p)``, the variance of
    the coin that has that mean. None when ``target`` is not strictly between the smallest and
    the largest value (no distribution on these values has that mean)."""
    values = [(v, float(c)) for v, c in counts.items()]
    lo = min(v for v, _ in values)
    hi = max(v for v, _ in values)
    if not lo < target < hi:
        return None

    def moments(lam: float) -> tuple[float, float]:
        top = max(lam * v for v, _ in values)  # exp of at most 0: no overflow
        weights = [(v, c * math.exp(lam * v - top)) for v, c in values]
        total = sum(w for _, w in weights)
        mean = sum(v * w for v, w in weights) / total
        return mean, sum((v - mean) ** 2 * w for v, w in weights) / total

    # The tilted mean grows with lam (its derivative is the tilted variance): Newton's method,
    # kept inside the bracket [a, b] around the root and bisecting when a step would leave it.
    a, b = -math.inf, math.inf
    lam, tolerance = 0.0, 1e-9 * (hi - lo)
    for _ in range(200):
        mean, var = moments(lam)
        if abs(mean - target) <= tolerance:
            break
        if mean < target:
            a = lam
        else:
            b = lam
        step = lam - (mean - target) / var if var > 0 else math.nan
        if a < step < b:
            lam = step
        elif math.isfinite(a) and math.isfinite(b):
            lam = (a + b) / 2
        else:  # no usable step (a weight underflowed) and no bracket yet: go twice as far
            lam += math.copysign(max(1.0 / (hi - lo), abs(lam)), target - mean)
    return var


@dataclass
class _Moments:
    """Running sums for means, variances and the covariance of (x, y), Welford-style."""

    n: int = 0
    mean_x: float = 0.0
    mean_y: float = 0.0
    sxx: float = 0.0
    syy: float = 0.0
    sxy: float = 0.0

    def add(self, x: float, y: float) -> None:
        self.n += 1
        dx = x - self.mean_x
        dy = y - self.mean_y
        self.mean_x += dx / self.n
        self.mean_y += dy / self.n
        self.sxx += dx * (x - self.mean_x)
        self.syy += dy * (y - self.mean_y)
        self.sxy += dx * (y - self.mean_y)

    def var(self, s: float) -> float:
        return s / (self.n - 1) if self.n > 1 else 0.0


@dataclass
class PairedSPRT:
    """One question asked of paired measurements (``x`` base, ``y`` house rules).

    ``effect`` is the change worth detecting: in the measurement's own units, or, when
    ``relative``, as a share of the base mean (0.10 = 10 %). ``status`` is ``"running"``,
    ``"H0"`` (no change of that size), ``"H1"`` (a change) or, after :meth:`give_up`,
    ``"undecided"``. ``decided_at`` is the number of pairs the decision took."""

    name: str
    effect: float
    relative: bool = False
    alpha: float = DESIGN_ALPHA
    beta: float = DESIGN_BETA
    status: str = "running"
    decided_at: int | None = None
    llr_up: float = 0.0  # 0 against +delta
    llr_down: float = 0.0  # 0 against -delta
    up_done: bool = False  # that one-sided test has accepted its H0
    down_done: bool = False
    m: _Moments = field(default_factory=_Moments)
    history: list[tuple[float, float]] = field(default_factory=list, repr=False)  # (up, down) per pair
    diffs: dict[float, int] = field(default_factory=dict, repr=False)  # each d seen, and how often

    @property
    def n(self) -> int:
        return self.m.n

    @property
    def decided(self) -> bool:
        return self.status != "running"

    def delta(self) -> float:
        return self.effect * abs(self.m.mean_x) if self.relative else self.effect

    def diff_stats(self) -> tuple[float, float]:
        """The mean and the sample variance of ``d = y - x``."""
        m = self.m
        var = m.var(m.sxx + m.syy - 2 * m.sxy)
        return m.mean_y - m.mean_x, max(var, 0.0)

    def _test_variance(self) -> float:
        """The variance the likelihoods use: the second moment of ``d`` about 0 (its variance
        under H0). It is never below the sample variance, so an early drift away from 0 does not
        shrink the variance that judges it: fewer false positives than the plain sample variance
        gives, at no measurable cost in power (tests/test_sprt.py)."""
        mean, var = self.diff_stats()
        n = self.n
        return var * (n - 1) / n + mean * mean if n else 0.0

    def add(self, x: float, y: float) -> str:
        """Take one pair; returns the status (unchanged once decided)."""
        if self.decided:
            return self.status
        x, y = float(x), float(y)
        self.m.add(x, y)
        d = y - x
        self.diffs[d] = self.diffs.get(d, 0) + 1
        mean, _ = self.diff_stats()
        var = self._test_variance()
        delta = self.delta()
        n = self.n
        if delta <= 0:  # a relative question whose base mean is 0: nothing to scale by yet
            return self.status
        lower, upper = bounds(self.alpha, self.beta)
        if not self.up_done:
            self.llr_up = self._llr(n, mean, var, delta, lower)
        if not self.down_done:
            self.llr_down = self._llr(n, mean, var, -delta, lower)
        self.history.append((self.llr_up, self.llr_down))
        if n < MIN_PAIRS:
            return self.status
        if self.llr_up >= upper or self.llr_down >= upper:
            self._decide("H1")
        else:
            self.up_done = self.up_done or self.llr_up <= lower
            self.down_done = self.down_done or self.llr_down <= lower
            if self.up_done and self.down_done:
                self._decide("H0")
        return self.status

    def _llr(self, n: int, mean: float, var: float, mu1: float, lower: float) -> float:
        """One one-sided log-likelihood ratio, 0 against ``mu1``. Evidence for the change is
        judged with the variance under H0 (``var``, the second moment about 0); evidence that
        reaches the lower bound is judged again with the variance under H1, that of the data
        tilted to mean ``mu1`` (:func:`tilted_variance`), whichever is larger. Well-paired games
        make ``d`` skewed: with common random numbers a house rule that hands the first seat 10
        points more makes ``d`` 1 in 10 % of the pairs and 0 otherwise, and its sample variance
        (about its mean) shrinks with its mean. Judged by that variance alone, a short run of
        zeros reads as strong evidence for "no change": 93 % power, not 95 %
        (tests/test_sprt.py). Tilted to mean 0.1, those pairs have the variance 0.09 they would
        have under H1, and the power is back above 99 %. The larger variance only moves a
        negative LLR towards 0, so H0 is never accepted sooner than before; the false positives
        measured the same, and H0 costs a few more pairs when d is sparse (55 for 50)."""
        llr = llr_normal(n, mean, var, 0.0, mu1)
        if llr > lower:
            return llr
        var1 = tilted_variance(self.diffs, mu1)
        if var1 is None:  # mu1 beyond every d seen: the normal variance about mu1
            var1 = sum(c * (d - mu1) ** 2 for d, c in self.diffs.items()) / n
        return llr_normal(n, mean, max(var, var1), 0.0, mu1)

    def _decide(self, status: str) -> None:
        self.status = status
        self.decided_at = self.n

    def give_up(self) -> None:
        """The game budget ran out: say so (the estimate and interval still stand)."""
        if not self.decided:
            self.status = "undecided"
            self.decided_at = self.n

    @property
    def llr(self) -> float:
        """The larger one-sided log-likelihood ratio (the evidence for a change)."""
        return max(self.llr_up, self.llr_down)

    def estimate(self) -> tuple[float, float, float]:
        """The change and its 95% interval: the mean difference, or for a relative question
        the ratio of means minus 1 (``0.18`` = 18 % more), by the delta method."""
        m = self.m
        mean, var = self.diff_stats()
        if not self.relative:
            lo, hi = mean_interval(self.n, mean, var)
            return mean, lo, hi
        if m.n == 0 or m.mean_x == 0:
            return math.nan, math.nan, math.nan
        ratio = m.mean_y / m.mean_x
        # var(y - R x) / (n mean_x^2) is the variance of the estimated ratio R
        v = m.var(m.syy - 2 * ratio * m.sxy + ratio * ratio * m.sxx)
        lo, hi = mean_interval(m.n, ratio, v / (m.mean_x ** 2))
        return ratio - 1, lo - 1, hi - 1

    def to_dict(self) -> dict:
        est, lo, hi = self.estimate()
        return {"question": self.name, "effect": self.effect, "relative": self.relative,
                "status": self.status, "pairs": self.n, "decided_at": self.decided_at,
                "llr_up": _finite(self.llr_up), "llr_down": _finite(self.llr_down),
                "base_mean": self.m.mean_x, "house_mean": self.m.mean_y,
                "estimate": _finite(est), "interval": [_finite(lo), _finite(hi)]}


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None
