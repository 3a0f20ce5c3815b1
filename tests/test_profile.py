"""`rulelang bench --profile` (interpreter/tools/profile.py): the playouts' time put to the
defines and procedures of the rule files, each named with where it is declared."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from interpreter.tools.cli import main
from interpreter.tools.profile import INTERPRETER, profile_playouts

ROOT = Path(__file__).resolve().parent.parent
TIC_TAC_TOE = str(ROOT / "examples" / "games" / "tic_tac_toe")
RULES = str(ROOT / "examples" / "games" / "tic_tac_toe" / "game.rules")


def _line_of(text: str) -> int:
    return next(i for i, line in enumerate(Path(RULES).read_text().splitlines(), 1) if line.startswith(text))


def test_the_time_goes_to_the_rules_it_was_spent_in():
    profile = profile_playouts(TIC_TAC_TOE, 2, games=5, seed=3)
    rows = {(r.kind, r.name): r for r in profile.rows}
    play = rows[("proc", "play_a_square")]
    # every decision of tic-tac-toe is one call of the procedure that asks it, but each game's
    # first: a new game starts from a copy of the recorded start, at that decision already
    assert play.calls == profile.decisions - profile.playouts > 0
    assert play.where.endswith(f"game.rules:{_line_of('procedure play_a_square')}")
    has_line = rows[("define", "has_line")]
    assert has_line.where.endswith(f"game.rules:{_line_of('define has_line')}")
    assert has_line.calls >= profile.decisions - 5  # checked after each mark (fewer: memo hits)
    assert has_line.total is not None and has_line.total >= has_line.own > 0
    assert ("interpreter", INTERPRETER) in rows and rows[("interpreter", INTERPRETER)].total is None
    assert profile.rows == sorted(profile.rows, key=lambda r: -r.own)
    assert abs(sum(r.own for r in profile.rows) - profile.seconds) < 1e-9
    # a generated function with no rule of its own (an expression, a comprehension) is never
    # shown as one: the rows are the rule files' defines and codes, and the interpreter
    assert all(r.kind in ("define", "proc", "flow", "setup", "interpreter") or r.kind.startswith(("trigger", "score"))
               for r in profile.rows), [r.kind for r in profile.rows]


def test_the_command_prints_the_rules_and_refuses_what_the_game_does_not_allow(capsys):
    code = main(["bench", TIC_TAC_TOE, "--players", "2", "--games", "3", "--profile"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "procedure play_a_square" in out and "define has_line" in out and INTERPRETER in out
    code = main(["bench", TIC_TAC_TOE, "--players", "2", "--games", "3", "--profile", "--json"])
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert code == 0 and data["playouts"] == 3
    assert {"kind", "name", "where", "calls", "own", "total"} <= set(data["rows"][0])
    code = main(["bench", TIC_TAC_TOE, "--players", "3", "--games", "3", "--profile"])
    out, err = capsys.readouterr()
    assert code == 1 and "players" in err and "define" not in out


def test_a_refused_player_count_raises_before_anything_is_played():
    with pytest.raises(ValueError, match="players"):
        profile_playouts(TIC_TAC_TOE, 5, games=1)


def test_a_playout_that_never_ends_is_an_error_not_a_hang(monkeypatch):
    """Random play may never end some games: a profile stops as `bench` does."""
    monkeypatch.setattr("interpreter.tools.simulate.DEFAULT_MAX_DECISIONS", 3)
    with pytest.raises(ValueError, match="did not end within 3 decisions"):
        profile_playouts(TIC_TAC_TOE, 2, games=1)


def test_the_options_a_profile_cannot_honour_are_refused(capsys):
    """The profiler sees only this process, and plays a number of games: --seconds, --workers and
    --ray would be ignored, so they are refused; a missing game is named."""
    for extra in (["--seconds", "1"], ["--workers", "2"], ["--ray"]):
        code = main(["bench", TIC_TAC_TOE, "--players", "2", "--profile", *extra])
        out, err = capsys.readouterr()
        assert code == 1 and "--profile" in err and "define" not in out, extra
    code = main(["bench", TIC_TAC_TOE + "_nowhere", "--players", "2", "--profile"])
    out, err = capsys.readouterr()
    assert code == 1 and "no such game folder" in err
