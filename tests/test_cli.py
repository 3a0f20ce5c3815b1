"""The ``rulelang`` command line, run on the real Off-Plan rules.

Most tests call ``main([...])`` in-process (fast, output through capsys); a few run
``python -m interpreter`` in a subprocess to check the entry point itself.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import interpreter
from interpreter.tools.cli import main, parse_option
from interpreter.tools.simulate import bench, sign_log

ROOT = Path(__file__).resolve().parents[1]
GAME = str(ROOT / "games" / "off_plan")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --------------------------------------------------------------------------- check


def test_check_real_game_is_clean(capsys):
    code, out, err = run(capsys, "check", GAME)
    assert code == 0, err
    assert "ok" in out
    assert err == ""


def test_check_broken_copy_reports_position(tmp_path, capsys):
    broken = tmp_path / "off_plan"
    shutil.copytree(GAME, broken)
    rules = broken / "game.rules"
    text = rules.read_text()
    if not text.endswith("\n"):
        text += "\n"
    line = text.count("\n") + 1
    rules.write_text(text + "const broken_total = no_such_name_here + 1\n")

    code, out, err = run(capsys, "check", str(broken))
    assert code == 1
    assert re.search(rf"game\.rules:{line}:\d+:", err), err
    assert "no_such_name_here" in err
    assert "Traceback" not in err


def test_check_missing_path_exits_1(tmp_path, capsys):
    code, out, err = run(capsys, "check", str(tmp_path / "nowhere"))
    assert code == 1
    assert "nowhere" in err
    assert "Traceback" not in err


# --------------------------------------------------------------------------- info


def test_info_lists_options(capsys):
    game = interpreter.load(GAME)
    code, out, err = run(capsys, "info", GAME)
    assert code == 0, err
    assert game.name in out
    assert f"{game.min_players} to {game.max_players}" in out or str(game.min_players) in out
    for opt in game.options:
        assert opt.name in out


def test_info_json(capsys):
    code, out, _ = run(capsys, "info", GAME, "--json")
    assert code == 0
    data = json.loads(out)
    assert {"name", "min_players", "max_players", "options"} <= set(data)
    for opt in data["options"]:
        assert {"name", "kind", "choices", "default", "doc"} <= set(opt)


# --------------------------------------------------------------------------- simulate


def test_simulate_json_summary(capsys):
    code, out, err = run(capsys, "simulate", GAME, "--players", "3", "--games", "2", "--seed", "4", "--json")
    data = json.loads(out)
    assert code == 0, data.get("errors")
    assert {"game", "players", "games", "seed", "agents", "completed", "decisions", "seats", "errors"} <= set(data)
    assert data["games"] == 2 and data["completed"] == 2 and data["errors"] == []
    assert {"mean", "min", "max"} <= set(data["decisions"])
    assert len(data["seats"]) == 3
    assert sum(s["win_rate"] for s in data["seats"]) <= 1.01  # ties are split, never double-counted
    for seat in data["seats"]:
        assert {"seat", "agent", "wins", "win_rate", "score"} <= set(seat)
    assert "[" not in err  # no progress bar with --json


def test_simulate_text_report(capsys):
    code, out, err = run(capsys, "simulate", GAME, "--players", "4", "--games", "1")
    assert code == 0, err
    assert "scores:" in out and "winner" in out


def test_simulate_is_deterministic(capsys):
    outs = []
    for _ in range(2):
        code, out, _ = run(capsys, "simulate", GAME, "--players", "2", "--games", "2", "--seed", "9", "--json")
        assert code == 0
        data = json.loads(out)
        del data["seconds"]
        outs.append(data)
    assert outs[0] == outs[1]


def test_save_logs_then_replay(tmp_path, capsys):
    logs = tmp_path / "logs"
    code, _, err = run(capsys, "simulate", GAME, "--players", "3", "--games", "2", "--seed", "11",
                       "--save-logs", str(logs), "--json")
    assert code == 0, err
    files = sorted(logs.glob("*.json"))
    assert len(files) == 2
    for f in files:
        log = json.loads(f.read_text())
        assert log["format"] == "rulelang-log" and log["version"] == 2
        assert {"game_path", "options", "players", "seed", "actions", "result"} <= set(log)
        code, out, err = run(capsys, "replay", str(f), "--game", GAME)
        assert code == 0, err
        assert "same as recorded" in out


@pytest.fixture
def good_log(tmp_path, capsys) -> dict:
    code, _, _ = run(capsys, "simulate", GAME, "--players", "2", "--games", "1", "--seed", "3",
                     "--save-logs", str(tmp_path / "logs"), "--json")
    assert code == 0
    return json.loads((tmp_path / "logs" / "game-0001.json").read_text())


def _corrupt(log: dict, how: str) -> str:
    log = json.loads(json.dumps(log))
    if how == "not json":
        return "{this is not json"
    if how == "format":
        log["format"] = "something-else"
    elif how == "version":
        log["version"] = 99
    elif how == "missing":
        del log["actions"]
    elif how == "illegal":
        log["actions"][0][1] = {"no such": "action"}
    elif how == "wrong player":
        log["actions"][0][0] = (log["actions"][0][0] + 1) % log["players"]
    elif how == "extra action":
        log["actions"].append(log["actions"][-1])
    elif how == "checksum":
        log["seed"] += 1
        return json.dumps(log)
    return json.dumps(sign_log(log))  # edited with a recomputed checksum: the deeper checks stand


@pytest.mark.parametrize("how, reason", [
    ("not json", "not JSON"),
    ("format", "not a rulelang game log"),
    ("version", "version"),
    ("missing", "missing key"),
    ("illegal", "not legal"),
    ("wrong player", "not legal"),
    ("extra action", "the game ended"),
    ("checksum", "checksum does not match"),
])
def test_corrupt_log_is_refused(tmp_path, capsys, good_log, how, reason):
    path = tmp_path / "bad.json"
    path.write_text(_corrupt(good_log, how))
    code, out, err = run(capsys, "replay", str(path), "--game", GAME)
    assert code == 1
    assert reason in err
    assert "Traceback" not in err


def test_replay_detects_changed_result(tmp_path, capsys, good_log):
    good_log["result"]["scores"] = [s + 1 for s in good_log["result"]["scores"]]
    path = tmp_path / "changed.json"
    path.write_text(json.dumps(sign_log(good_log)))
    code, _, err = run(capsys, "replay", str(path), "--game", GAME)
    assert code == 1
    assert "differs" in err


# --------------------------------------------------------------------------- play and bench


def test_play_with_scripted_human(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 20000))
    log = tmp_path / "played.json"
    code, out, err = run(capsys, "play", GAME, "--players", "2", "--seed", "5", "--save-log", str(log))
    assert code == 0, err
    assert "Game over." in out
    assert "1." in out  # numbered actions were shown
    code, _, err = run(capsys, "replay", str(log), "--game", GAME)
    assert code == 0, err


def test_play_quit_exits_130(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("nonsense\nq\n"))
    code, out, err = run(capsys, "play", GAME, "--players", "3", "--seed", "1")
    assert code == 130
    assert "Please type a number" in out
    assert "abandoned" in err


def test_play_computer_only(capsys):
    code, out, err = run(capsys, "play", GAME, "--players", "2", "--seed", "2", "--agents", "random")
    assert code == 0, err
    assert "Game over." in out


def test_bench_json(capsys):
    code, out, err = run(capsys, "bench", GAME, "--players", "2", "--games", "2", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["playouts"] == 2
    assert data["playouts_per_second"] > 0 and data["decisions_per_second"] > 0
    assert data["clone_us"] is not None and data["peak_memory_mib"] is not None


def test_bench_refuses_players_or_options_the_game_does_not_allow(capsys):
    """Before playing: games that all fail would otherwise be reported as thousands a second."""
    off_plan = str(Path(__file__).resolve().parent.parent / "games" / "off_plan")
    code, out, err = run(capsys, "bench", off_plan, "--players", "1", "--games", "2")
    assert code == 1 and "playouts" not in out
    assert "Standard Mode and its variants are for 2 to 5 players" in err
    code, out, err = run(capsys, "bench", off_plan, "--players", "6", "--games", "2")
    assert code == 1 and "is for 1 to 5 players, not 6" in err and "playouts" not in out
    with pytest.raises(ValueError, match="for 2 to 5 players"):
        bench(interpreter.load(off_plan), 1, games=1)


# --------------------------------------------------------------------------- usage and errors


@pytest.mark.parametrize("argv", [
    [],
    ["frobnicate"],
    ["check"],
    ["simulate", GAME, "--games", "1"],
    ["simulate", GAME, "--players", "3"],
    ["simulate", GAME, "--players", "x", "--games", "1"],
    ["simulate", GAME, "--players", "0", "--games", "1"],
    ["simulate", GAME, "--players", "3", "--games", "1", "--option", "novalue"],
    ["simulate", GAME, "--players", "3", "--games", "1", "--agents", "random,wizard,random"],
    ["simulate", GAME, "--players", "3", "--games", "1", "--agents", "random,random"],
    ["simulate", GAME, "--players", "2", "--games", "1", "--agents", "human"],
    ["play", GAME],
    ["replay"],
])
def test_bad_usage_exits_2(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert "usage" in capsys.readouterr().err


def test_bad_option_value_exits_1(capsys):
    game = interpreter.load(GAME)
    name = game.options[0].name if game.options else "no_such_option"
    code, _, err = run(capsys, "simulate", GAME, "--players", "2", "--games", "1",
                       "--option", f"{name}=not_a_real_value_xyz")
    assert code == 1
    assert name in err
    assert "Traceback" not in err


def test_players_out_of_range_exits_1(capsys):
    game = interpreter.load(GAME)
    code, _, err = run(capsys, "simulate", GAME, "--players", str(game.max_players + 1), "--games", "1")
    assert code == 1
    assert "players" in err


def test_parse_option_converts_values():
    assert parse_option("outlet=true") == ("outlet", True)
    assert parse_option("outlet=False") == ("outlet", False)
    assert parse_option("rounds=4") == ("rounds", 4)
    assert parse_option("mode=vulture") == ("mode", "vulture")


def test_python_m_interpreter():
    proc = subprocess.run([sys.executable, "-m", "interpreter", "info", GAME],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    proc = subprocess.run([sys.executable, "-m", "interpreter", "simulate", GAME, "--players", "2"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 2


# --------------------------------------------------------------------------- seats for people


def test_every_command_shows_seats_as_player_1_to_n(tmp_path, capsys):
    """People read "Player 1..N"; the Python API and the JSON keep 0-based seats."""
    logs = tmp_path / "logs"
    code, out, err = run(capsys, "simulate", GAME, "--players", "3", "--games", "1", "--seed", "5",
                         "--save-logs", str(logs))
    assert code == 0, err
    assert re.search(r"scores: Player 1 -?\d+, Player 2 -?\d+, Player 3 -?\d+", out)
    assert re.search(r"winners: (Player [1-3](, )?)+|winners: nobody", out)
    log = json.loads(next(logs.glob("*.json")).read_text())
    code, out, err = run(capsys, "replay", str(next(logs.glob("*.json"))), "--game", GAME)
    assert code == 0, err
    want = ", ".join(f"Player {p + 1}" for p in log["result"]["winners"]) or "nobody"
    assert f"winners {want} (same as recorded)" in out and "Player 1 " in out
    assert not re.search(r"winners \[|scores \[", out)
    code, out, err = run(capsys, "simulate", GAME, "--players", "2", "--games", "2")
    assert code == 0 and re.search(r"^Player 1 .*\n^Player 2 ", out, re.M)
    code, out, err = run(capsys, "simulate", GAME, "--players", "2", "--games", "1", "--json")
    assert [(s["seat"], s["player"]) for s in json.loads(out)["seats"]] == [(0, "Player 1"), (1, "Player 2")]
    code, out, err = run(capsys, "play", GAME, "--players", "2", "--agents", "random,random", "--seed", "2")
    assert code == 0, err
    assert "Player 1" in out and "Player 2" in out
    assert not re.search(r"\b(P0|P1|seat 0|player 0)\b", out)
