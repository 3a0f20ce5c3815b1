"""Issue 11: rule files, logs and saves written to attack the framework. Each route ends in a
positioned rule error or a refusal, in a separate process whose memory is capped (a hang or a
blow-up fails the test; nothing here measures time)."""

from __future__ import annotations

import shutil

import pytest
from hostile_helpers import HOSTILE, run_capped

BUDGET_CASES = ["draw_endless", "refill_cycle", "move_back_and_forth", "const_copies", "nested_compare",
                "shared_structure", "define_calls", "load_budget", "card_var_init", "long_log", "sum_digits"]

RUN_CASE = """
import sys
sys.path.insert(0, "tests")
from pathlib import Path
from test_hostile_files import run_case
print(run_case(Path({folder!r})))
"""


@pytest.mark.parametrize("case", BUDGET_CASES)
def test_work_is_paid_for_under_a_memory_cap(tmp_path, case):
    folder = tmp_path / case
    shutil.copytree(HOSTILE / case, folder)
    expected = (folder / "expected.txt").read_text(encoding="utf-8").strip()
    assert run_capped(RUN_CASE.format(folder=str(folder)), memory_mib=700).strip() == expected


GREEDY_BAIT = '''
game "Greedy bait"
players 2 to 2
var points per player: int = 0

flow:
    turn first(players):
        choose x in range(1, 99999)
        let n = 0
        while n < 250000 max 250000:
            set n += 1
        set active_player.points += x

score p:
    points: p.points
'''


def test_the_greedy_agent_has_one_budget_for_its_whole_look_ahead(tmp_path):
    """100,000 actions of 750,000 steps each: the greedy agent tries what its one budget allows
    and chooses among those, instead of trying every one (7.5 * 10^10 steps)."""
    (tmp_path / "game.rules").write_text(GREEDY_BAIT, encoding="utf-8")
    out = run_capped(f"""
import interpreter
from interpreter.agents import GreedyAgent
game = interpreter.load({str(tmp_path)!r})
state = game.new_game(players=2, seed=0)
assert len(state.legal_actions(0)) == 99999
action = GreedyAgent(seed=1).choose(state, 0)
print(action.value)
""", memory_mib=700)
    # It tried the first few actions (each raising the score by more) and kept the best of them.
    assert 1 < int(out) < 20
