"""`rulelang validate`: static warnings, invariants over explored games (shrunk), balance, report."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from conftest import FIXTURES, ROOT

import interpreter
from interpreter.engine import runtime
from interpreter.tools.cli import main
from interpreter.tools.validate import (
    Validator,
    balance,
    describe,
    explore,
    format_balance,
    format_violation,
    play,
    random_chooser,
    static_warnings,
    wilson,
)
from rulelang.lint import format_warnings

LINT = str(FIXTURES / "lint")
POT = str(FIXTURES / "pot")
BOTTOMLESS = str(FIXTURES / "pot" / "bottomless.rules")
TINY = str(FIXTURES / "tiny")
OFF_PLAN = str(ROOT / "games" / "off_plan")
HOUSE = ROOT / "examples" / "house_rules"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def validator(path, house=None, **kw):
    _, _, program = static_warnings(path, house)
    game = interpreter.load(path, house=house)
    return game, Validator(game, program, **kw)


# --------------------------------------------------------------------------- static


def test_every_static_finding_of_the_lint_fixture():
    warnings, _, _ = static_warnings(LINT)
    found = sorted((w.code, w.pos.line) for w in warnings)
    assert found == [("W100", 52), ("W100", 55), ("W101", 50), ("W102", 9), ("W103", 16), ("W104", 18),
                     ("W105", 19), ("W105", 20), ("W106", 61), ("W107", 23), ("W108", 24), ("W109", 4),
                     ("W110", 25), ("W110", 26)]


def test_static_findings_read_as_file_line_col_with_a_caret():
    warnings, sources, _ = static_warnings(LINT)
    text = format_warnings(warnings, sources)
    assert re.search(r"lint/game\.rules:52:1: W100 procedure `forgotten` is never called", text)
    assert "it is called only from `forgotten` and the trigger on `never`, which never run" in text
    assert "W101 this statement can never run: `end game` (line 49) comes first" in text
    assert "W106 the trigger on `never` can never fire: the event is never raised" in text
    assert "W105 var `rounds_played` is set but never read" in text
    assert "W105 var `unused_note` is never used" in text
    assert "    zone attic: public\n    ^" in text
    assert text.endswith("14 warnings")


def test_reached_rules_raise_no_warning():
    warnings, _, _ = static_warnings(LINT)
    named = " ".join(w.message for w in warnings)
    for used in ("`take`", "`pile`", "`hand`", "`coin`", "`scored`", "`long`", "`round_start`"):
        assert used not in named


def test_off_plan_has_no_dead_rules():
    warnings, _, _ = static_warnings(OFF_PLAN)
    assert [w for w in warnings if w.code in ("W100", "W101", "W106", "W107", "W109")] == []


def test_a_house_rule_that_replaces_a_procedure_can_leave_its_helpers_unreached(tmp_path):
    house = tmp_path / "solo_pass.rules"
    house.write_text(f'extends "{TINY}"\n\nreplace procedure take_turn(p: player):\n'
                     '    choose prompt "Your move":\n        option "Pass":\n            pass\n')
    warnings, _, _ = static_warnings(str(house))
    messages = {w.code: w.message for w in warnings}
    assert "trigger on `gem_taken`" in messages["W106"]
    assert messages["W107"] == "modifier `rush` is never started"
    assert messages["W109"] == "option `speed` changes nothing: no rule reads it"


# --------------------------------------------------------------------------- dynamic


def test_a_sound_game_breaks_nothing():
    game, v = validator(POT)
    found, tried = explore(game, 2, range(0, 10), v, examples=20)
    assert found is None and tried >= 20
    assert all(play(game, 2, s, random_chooser(s), v).violation is None for s in range(10))


def test_a_broken_house_rule_is_found_and_shrunk_to_four_choices():
    game, v = validator(POT, [BOTTOMLESS])
    found, _ = explore(game, 2, range(0, 10), v, examples=30)
    assert found is not None
    assert found.kind == "invariant" and found.name == "the pot holds at most 3 chips"
    assert found.where.endswith("pot/game.rules:29:1")
    assert found.length == 4
    assert [(s.who, s.label) for s in found.steps] == [
        ("Player 1", "Add a chip to the pot"), ("Player 2", "Add a chip to the pot"),
        ("Player 1", "Add a chip to the pot"), ("Player 2", "Add a chip to the pot")]
    text = format_violation(found)
    assert "4 decisions (shrunk)" in text
    assert "   1. Player 1: Your move -> Add a chip to the pot" in text
    assert "chip tokens (12 in all): the supply 8, pot 4" in text


def test_random_games_see_the_violation_too_and_play_on_for_the_balance():
    game, v = validator(POT, [BOTTOMLESS])
    [variant] = balance([("house", game, v)], 2, range(0, 20))
    assert variant.violations and variant.finished == 20
    first = variant.violations[0]
    assert first.found_by == "a random game" and first.length >= 4


def test_a_game_that_does_not_end_within_the_bound_breaks_the_length_invariant():
    game, v = validator(TINY, max_decisions=6)
    found, _ = explore(game, 2, range(0, 3), v, examples=5)
    assert found is not None and found.kind == "length"
    assert found.name == "the game ends within 6 decisions" and found.length == 6


def test_a_rule_that_fails_while_running_is_reported_with_its_choices(tmp_path):
    house = tmp_path / "fragile.rules"
    house.write_text(f'extends "{POT}"\n\nreplace procedure take_turn(p: player):\n'
                     '    choose by p prompt "Your move":\n        option "Pass":\n            pass\n'
                     '        option "Gamble":\n            pay 5 chip from p\n')
    game, v = validator(str(house))
    found, _ = explore(game, 2, range(0, 3), v, examples=10)
    assert found is not None and found.kind == "error"
    assert found.length == 1 and found.steps[0].label == "Gamble"
    assert "has 2 chip, not 5" in found.detail


def test_built_in_checks_catch_a_corrupted_state():
    game, v = validator(TINY)
    state = game.new_game(players=2, seed=1)
    assert v.problems(state) == []
    bad = state.clone()
    card = bad.s.zones["table"][0]
    bad.s.zones["discard"].append(card)  # one card in two zones
    assert [k for k, _, _ in v.problems(bad)] == ["components", "components"]
    bad = state.clone()
    bad.s.tokens["p0|coin|normal"] += 1  # a coin out of nothing
    kinds = v.problems(bad)
    assert kinds == [("tokens", "all 10 coin tokens are somewhere", "11 coin tokens exist; the game declares 10")]
    bad = state.clone()
    bad.s.tokens["p0|coin|normal"] = -1
    assert ("tokens", "no token count is negative", "p0|coin|normal = -1") in v.problems(bad)


def test_the_off_plan_broken_example_is_found_and_shrunk():
    game, v = validator(OFF_PLAN, [str(HOUSE / "off_plan" / "broken_sponsorship.rules")])
    found, _ = explore(game, 2, range(0, 5), v, examples=5)
    assert found is not None and found.name.startswith("the 35 Funds tokens are in the supply")
    assert found.length <= 12
    assert found.steps[-1].prompt == "Invest 1 Funds token in a neighbourhood?"
    assert re.search(r"funds tokens \(35 in all\): .*, [A-Z][a-z]+ [A-Za-z ]+ 1\b", found.state_text)


# --------------------------------------------------------------------------- balance


def test_wilson_interval():
    lo, hi = wilson(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    assert wilson(0, 20)[0] == 0.0 and wilson(20, 20)[1] == 1.0
    assert wilson(0, 0) == (0.0, 1.0)


def test_describe_gives_quartiles():
    d = describe([1, 2, 3, 4, 5, 6, 7, 8, 9])
    assert (d["min"], d["q1"], d["median"], d["q3"], d["max"]) == (1, 3, 5, 7, 9)
    assert d["mean"] == 5 and d["sd"] == pytest.approx(2.7386, abs=1e-4)


def test_balance_counts_procedures_cards_and_wins():
    game, v = validator(TINY)
    [variant] = balance([("base", game, v)], 2, range(0, 12))
    assert variant.finished == 12
    assert sum(variant.wins) == pytest.approx(12)
    assert 0 < variant.calls["take_turn"] <= sum(variant.lengths)  # a turn asks at least once
    assert set(variant.card_picks) <= {"Ruby", "Sapphire"} and sum(variant.card_picks.values()) > 0
    assert runtime.push_counter is None  # the counter is off again
    text = format_balance([variant], range(0, 12))
    assert "win rate (95% interval)" in text and "take_turn" in text and "Sapphire" in text


def test_procedure_calls_match_the_flow():
    game, v = validator(POT)
    [variant] = balance([("base", game, v)], 3, range(0, 5))
    assert variant.calls == {"take_turn": 5 * 6 * 3}
    assert variant.games_calling == {"take_turn": 5}


# --------------------------------------------------------------------------- command line


def test_validate_command_finds_the_broken_house_rule(capsys, tmp_path):
    report = tmp_path / "report.html"
    code, out, _ = run(capsys, "validate", POT, "--house", BOTTOMLESS, "--games", 10, "--report", report)
    assert code == 1
    assert "== Static analysis\nno warnings" in out
    assert 'VIOLATION of the invariant "the pot holds at most 3 chips"' in out
    assert "4 decisions (shrunk)" in out
    assert re.search(r"games that broke an invariant\s+0\s+\d+", out)
    page = report.read_text()
    assert page.startswith("<!DOCTYPE html>") and "the pot holds at most 3 chips" in page
    svgs = re.findall(r"<svg.*?</svg>", page, re.S)
    assert len(svgs) >= 3
    for svg in svgs:
        ET.fromstring(svg)  # well-formed
    assert "<script" not in page and "http://" not in page.replace("http://www.w3.org/2000/svg", "")


def test_validate_command_on_a_sound_game(capsys):
    code, out, _ = run(capsys, "validate", POT, "--games", 8, "--players", 3)
    assert code == 0
    assert "every invariant held after every decision" in out
    assert "Player 3" in out


def test_validate_only_static(capsys):
    code, out, _ = run(capsys, "validate", LINT, "--only", "static")
    assert code == 0 and "14 warnings" in out and "== Balance" not in out and "== Invariants" not in out


def test_house_option_on_the_other_commands(capsys):
    house = str(HOUSE / "off_plan" / "cash_is_king.rules")
    code, out, _ = run(capsys, "info", OFF_PLAN, "--house", house)
    assert code == 0 and "Off-Plan" in out
    code, out, _ = run(capsys, "simulate", OFF_PLAN, "--house", house, "--players", 2, "--games", 1)
    assert code == 0 and "finished: 1/1" in out
    code, out, _ = run(capsys, "simulate", OFF_PLAN, "--house", str(HOUSE / "nope.rules"), "--players", 2,
                       "--games", 1)
    assert code == 1


def test_score_lines_of_house_rules_change_the_score():
    base = interpreter.load(OFF_PLAN)
    house = interpreter.load(OFF_PLAN, house=[str(HOUSE / "off_plan" / "cash_is_king.rules")])
    a, b = base.new_game(players=2, seed=3), house.new_game(players=2, seed=3)
    a.set_tokens(0, "funds", 7)
    b.set_tokens(0, "funds", 7)
    assert a.score_breakdown(0)["funds_tokens"] == 2 and b.score_breakdown(0)["funds_tokens"] == 3
    assert list(a.score_breakdown(0)) == list(b.score_breakdown(0))  # replaced by label, same place


def test_remove_score_drops_a_line(tmp_path):
    house = tmp_path / "clean_books.rules"
    house.write_text(f'extends "{OFF_PLAN}"\nremove score "black_money"\n')
    game = interpreter.load(OFF_PLAN, house=[str(house)])
    assert "black_money" not in game.new_game(players=2, seed=0).score_breakdown(0)


# --------------------------------------------------------------------------- every example (slow)

EXAMPLES = sorted(str(p) for p in (ROOT / "examples").rglob("*.rules") if "broken" not in p.name)


@pytest.mark.slow
@pytest.mark.parametrize("house", EXAMPLES, ids=lambda p: p.split("examples/")[-1])
def test_every_example_house_rule_keeps_the_invariants(house):
    game, v = validator(house)
    players = max(2, game.min_players)
    outcomes = [play(game, players, s, random_chooser(s), v) for s in range(4)]
    assert [o.violation for o in outcomes] == [None] * 4
    found, _ = explore(game, players, range(0, 4), v, examples=4)
    assert found is None, format_violation(found)
