"""Mutation testing of rule files (`rulelang test --mutate`, interpreter/tools/mutate.py): the
mutants it makes, the run on a small fixture whose survivors are known, the command line, and
(slow) each game's scoring files against the kill rate docs/testing.md promises."""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT

from interpreter.tools.cli import main
from interpreter.tools.mutate import mutants, random_mutation, run_mutation

GAME = FIXTURES / "mutants"
RULES = str(GAME / "game.rules")
SCENARIOS = str(GAME / "scoring.scenario")


def whats(text: str, elsewhere: str = "") -> list[str]:
    return [m.what for m in mutants(text, elsewhere)]


def test_the_kinds_of_mutant():
    text = ("define a(p: player) = 5 if p.points >= 3 and not p.done else 0\n"
            "procedure b(p: player):\n"
            "    if p.points < 2:\n"
            "        set p.points += 1\n"
            "    choose c in hand where c.value == 2 prompt \"Take\"\n")
    got = whats(text)
    for expected in ("number 5 -> 6", "number 5 -> 4", ">= -> >", "and -> or", "`not` dropped",
                     "number 0 -> 1", "< -> <=", "+= -> -=",
                     "branch swapped: `if not (p.points >= 3 and not p.done) else`",
                     "condition dropped: `if p.points < 2` always true",
                     "branch swapped: `if not (p.points < 2)`",
                     "condition dropped: `where c.value == 2`",
                     "line dropped: `set p.points += 1`", "== -> !="):
        assert expected in got, expected
    dropped = next(m for m in mutants(text) if m.what == "condition dropped: `where c.value == 2`")
    assert 'choose c in hand prompt "Take"' in dropped.text
    # no number 0 -> -1, and every mutant differs from the text and from the others
    assert "number 0 -> -1" not in got
    texts = [m.text for m in mutants(text)]
    assert len(set(texts)) == len(texts) and text not in texts


def test_positions_are_the_changed_tokens():
    m = next(m for m in mutants("const k = 1\ndefine d = k + 22\n") if m.what == "number 22 -> 23")
    assert (m.line, m.col) == (2, 16) and m.text == "const k = 1\ndefine d = k + 23\n"


def test_comments_strings_and_invariants_are_not_mutated():
    text = ('# 3 < 4 and 5\n'
            'define label = "3 < 4 and 5"\n'
            'define sound = all(x >= 0 for x in [1, 2])\n'
            'invariant "x": sound and 1 < 2\n')
    assert whats(text) == []
    # the same define used by a rule is mutated
    assert whats(text + "define used = sound\n")
    # ... and so is one the game's other files use
    assert whats(text, elsewhere="score p:\n    s: 1 if sound else 0\n")


def test_a_minus_sign_is_not_an_operator():
    got = whats("const k = [-1, 2 - 1]\n")
    assert got.count("- -> +") == 1


def test_the_fixture_run_finds_the_two_untested_numbers():
    before = Path(RULES).read_text()
    report = run_mutation([RULES], [SCENARIOS])
    assert Path(RULES).read_text() == before  # the original is never touched
    assert report.total() == 17
    assert report.count("checker") == 1  # dropping the only line of gain_point leaves an empty block
    survivors = [(r.mutant.line, r.mutant.what) for r in report.survivors()]
    assert survivors == [(9, "number 3 -> 2"), (9, "number 0 -> 1")]
    assert report.count("killed") == 14
    assert report.kill_rate() == pytest.approx(15 / 17)


def test_a_new_scenario_kills_the_survivors(tmp_path):
    extra = tmp_path / "extra.scenario"
    extra.write_text(f'extends "{os.path.relpath(RULES, tmp_path)}"\n\n'
                     'scenario "Two points score 4":\n'
                     '    players 2\n'
                     '    given:\n'
                     '        set first(players).points = 2\n'
                     '    expect score_of(first(players)) == 4\n')
    report = run_mutation([RULES], [SCENARIOS, str(extra)])
    assert report.survivors() == [] and report.kill_rate() == 1.0


def test_a_check_function_can_kill_mutants(tmp_path):
    check = tmp_path / "checks.py"
    check.write_text("import interpreter\n\n"
                     "def check_two_points(game_dir):\n"
                     "    s = interpreter.load(game_dir).new_game(players=2, seed=0)\n"
                     "    s.set_var('points', 2, player=0)\n"
                     "    assert s.scores()[0] == 4\n")
    report = run_mutation([RULES], [SCENARIOS], checks=[str(check)])
    assert report.survivors() == []
    assert any("check_two_points" in r.by for r in report.results)


def test_a_scenario_that_loads_the_file_by_an_absolute_path_is_refused(tmp_path):
    extra = tmp_path / "absolute.scenario"
    extra.write_text(f'extends "{RULES}"\n\nscenario "x":\n    players 2\n    expect true\n')
    with pytest.raises(Exception, match="by an absolute path"):
        run_mutation([RULES], [str(extra)])


def test_the_scenarios_must_pass_unmutated(tmp_path):
    bad = tmp_path / "bad.scenario"
    bad.write_text(f'extends "{os.path.relpath(RULES, tmp_path)}"\n\nscenario "wrong":\n    players 2\n    expect score_of(first(players)) == 1\n')
    with pytest.raises(Exception, match="must pass before mutating"):
        run_mutation([RULES], [str(bad)])


def test_the_command_lists_survivors_and_can_fail_under_a_rate(capsys):
    code = main(["test", "--mutate", RULES, SCENARIOS])
    out = capsys.readouterr().out
    assert code == 0
    assert f"SURVIVED {RULES}:9:44: number 3 -> 2" in out
    assert "killed by the checker (do not load): 1" in out and "kill rate: 88.2%" in out
    assert main(["test", "--mutate", RULES, SCENARIOS, "--fail-under", "90"]) == 1
    capsys.readouterr()
    assert main(["test", "--mutate", SCENARIOS]) == 1  # nothing to mutate
    assert "needs the rule files" in capsys.readouterr().err


def test_the_report_escapes_control_characters(tmp_path, capsys):
    """The report quotes paths and rules, which someone else may have named: an ESC in a folder's
    name is shown as an escape, not sent to the terminal."""
    folder = tmp_path / "odd\x1b]0;title\x07"
    shutil.copytree(Path(RULES).parent, folder)
    assert main(["test", "--mutate", str(folder / "game.rules"), str(folder / "scoring.scenario")]) == 0
    out = capsys.readouterr().out
    assert "SURVIVED" in out and "\x1b" not in out and "\x07" not in out
    assert "odd\\x1b]0;title\\x07" in out


def test_random_mutation_is_seeded():
    text = Path(RULES).read_text()
    a = random_mutation(text, random.Random(4), 3)
    assert a == random_mutation(text, random.Random(4), 3) and a != text


@pytest.mark.slow
@pytest.mark.parametrize("game", ["off_plan", "welcome_to", "plunderbund"])
def test_each_game_scoring_file_kill_rate_is_at_least_90_percent(game):
    """The kill rates recorded in docs/testing.md (the game's scenarios against every mutant of
    its scoring.rules)."""
    rules = str(ROOT / "games" / game / "scoring.rules")
    report = run_mutation([rules])
    assert report.kill_rate() >= 0.9, [f"{r.where}: {r.mutant.what}" for r in report.survivors()]
