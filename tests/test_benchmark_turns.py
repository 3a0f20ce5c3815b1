"""benchmarks/run.py measures what it compares in turns (`in_turns`), so the machine's drift meets
both sides of a ratio. A fake clock stands in for time: no test here is timed."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import interpreter

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("bench_run", ROOT / "benchmarks" / "run.py")
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


class FakeClock:
    """A clock that a contender's playout moves on by its own cost, and the order of play."""

    def __init__(self) -> None:
        self.now = 0.0
        self.order: list[str] = []

    def __call__(self) -> float:
        return self.now

    def contender(self, name: str, cost: float, decisions: int = 3):
        def play() -> int:
            self.order.append(name)
            self.now += cost
            return decisions
        return play


def test_contenders_take_turns_and_share_the_time():
    clock = FakeClock()
    rates = bench.in_turns({"a": clock.contender("a", 0.1), "b": clock.contender("b", 0.05)},
                           seconds=1.0, turn=0.25, clock=clock)
    # turns of about 0.25 s: a plays 3 (0.3 s), then b 5 (0.25 s), then a again ...
    assert clock.order[:3] == ["a"] * 3 and clock.order[3:8] == ["b"] * 5 and clock.order[8] == "a"
    switches = sum(1 for x, y in zip(clock.order, clock.order[1:], strict=False) if x != y)
    assert switches >= 5  # not one after the other
    assert abs(rates["a"][0] - 10.0) < 1e-9 and abs(rates["b"][0] - 20.0) < 1e-9
    assert abs(rates["b"][1] - 60.0) < 1e-9  # 3 decisions a playout
    assert clock.order.count("a") == 10 and clock.order.count("b") == 20  # each played its second


def test_a_slow_contender_still_plays_twice():
    clock = FakeClock()
    rates = bench.in_turns({"slow": clock.contender("slow", 5.0)}, seconds=1.0, clock=clock)
    assert clock.order == ["slow", "slow"] and rates["slow"][0] == 2 / 10.0


def test_a_rule_file_playout_counts_its_decisions():
    game = interpreter.load(str(ROOT / "examples" / "games" / "tic_tac_toe"))
    play = bench.playout_of(game, 2)
    decisions = [play() for _ in range(5)]
    assert all(5 <= d <= 9 for d in decisions)  # a tic-tac-toe ends after 5 to 9 moves
