"""Scenario files: every one in the repository passes, and the runner fails the right way."""

import pytest
from conftest import FIXTURES, ROOT

from interpreter.tools.scenario import format_report, run_file, scenario_files

ALL = scenario_files([str(ROOT / "games"), str(ROOT / "examples"), str(FIXTURES / "scenarios"),
                       str(FIXTURES / "second_edition")])
CASES = [(f, r) for f in ALL for r in run_file(f)]


@pytest.mark.parametrize("file, result", CASES, ids=[r.node_id.replace(str(ROOT) + "/", "") for _, r in CASES])
def test_scenario_passes(file, result):
    assert result.passed, f"{result.file}:{result.line}: {result.message}"


def write(tmp_path, body):
    path = tmp_path / "case.scenario"
    path.write_text(f'extends "{FIXTURES / "tiny"}"\n' + body)
    return str(path)


def one(tmp_path, body):
    results = run_file(write(tmp_path, body))
    assert len(results) == 1
    return results[0]


def test_a_false_expectation_shows_the_actual_values(tmp_path):
    r = one(tmp_path, 'scenario "x":\n    players 2\n    expect first(players).coin == 5\n    choose "Pass"\n'
                      '    expect decision "Your move"\n')
    assert not r.passed and r.line == 4
    assert "expect first(players).coin == 5 is false" in r.message and "actual: 2 == 5" in r.message


def test_an_unscripted_decision_fails(tmp_path):
    r = one(tmp_path, 'scenario "x":\n    players 2\n    expect true\n')
    assert not r.passed and "left unscripted: 'Your move'" in r.message


def test_an_unused_scripted_choice_fails(tmp_path):
    r = one(tmp_path, 'scenario "x":\n    players 2\n    given:\n        move table to bag\n'
                      '    play take_turn first(players)\n    choose "Pass"\n    choose "No"\n    choose "Pass"\n')
    assert not r.passed and "left unused" in r.message and r.line == 9


def test_a_choice_that_matches_nothing_lists_the_actions(tmp_path):
    r = one(tmp_path, 'scenario "x":\n    players 2\n    choose "Fly away"\n')
    assert not r.passed and "matches no action" in r.message and "'Pass'" in r.message


def test_a_scenario_file_with_errors_reports_diagnostics(tmp_path):
    results = run_file(write(tmp_path, 'scenario "x":\n    players 2\n    expect first(players).coins == 2\n'))
    assert not results[0].passed and "E202" in results[0].message


def test_report_reads_like_pytest(tmp_path):
    results = run_file(write(tmp_path, 'scenario "ok":\n    players 2\n    choose "Pass"\n'
                                       '    expect decision "Your move"\n'
                                       'scenario "bad":\n    players 2\n    expect false\n'))
    report = format_report(results, 0.5)
    assert "case.scenario::ok PASSED" in report and "case.scenario::bad FAILED" in report
    assert report.splitlines()[-1] == "1 passed, 1 failed in 0.50s"
