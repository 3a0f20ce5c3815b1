"""The hostile rule files in tests/hostile/ (issue 7): each gives exactly the outcome in its
expected.txt (see tests/hostile/README.md), quickly, and a failing action keeps the state."""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import pytest
from hostile_helpers import HOSTILE, no_hang, player_counts

import interpreter
from rulelang.diagnostics import RuleError, RuleRuntimeError

CASES = sorted(p.name for p in HOSTILE.iterdir() if (p / "expected.txt").is_file())


def _write_generated(case: str, folder: Path) -> None:
    """The cases git should not hold."""
    if case == "huge_file":
        line = b'    log "this line is padding, repeated until the file is 10 MB"\n'
        body = b'game "Huge file"\nplayers 1 to 2\nflow:\n' + line * (10_000_000 // len(line) + 1)
        (folder / "game.rules").write_bytes(body)
    elif case == "binary_file":
        data = bytearray(random.Random(7).randbytes(4096))
        data[100] = 0
        (folder / "game.rules").write_bytes(bytes(data))
    elif case in ("include_pipe", "extends_pipe"):
        if not hasattr(os, "mkfifo"):
            pytest.skip("no named pipes here")
        os.mkfifo(folder / ("pipe.rules" if case == "include_pipe" else "base.rules"))


def _entry(folder: Path) -> Path:
    """The game's folder: the case folder, or its `inner` folder (to have an outside)."""
    return folder / "inner" if (folder / "inner" / "game.rules").is_file() else folder


def run_case(folder: Path) -> str:
    """What happens to the game in `folder`, in the words of expected.txt."""
    prefix = str(folder) + os.sep

    def rel(text: str) -> str:
        return text.replace(prefix, "")

    try:
        game = interpreter.load(str(_entry(folder)))
    except RuleError as err:
        return "RuleError\n" + "\n".join(rel(str(d)) for d in err.diagnostics)
    try:
        state = game.new_game(players=player_counts(game)[0], seed=0)
    except RuleRuntimeError as err:
        return f"RuleRuntimeError at setup\n{rel(str(err))}"
    for done in range(100):
        if state.is_over:
            return "plays to the end"
        player = state.decision.players[0]
        before = state.to_json()
        try:
            state.apply(state.legal_actions(player)[0])
        except RuleRuntimeError as err:
            assert state.to_json() == before, "the failing action changed the state"
            return f"RuleRuntimeError after {done} actions\n{rel(str(err))}"
    return "still playing after 100 actions"


@pytest.mark.parametrize("case", CASES)
def test_hostile_file_gives_its_exact_error(tmp_path, case):
    folder = tmp_path / case
    shutil.copytree(HOSTILE / case, folder)
    _write_generated(case, folder)
    expected = (folder / "expected.txt").read_text(encoding="utf-8").strip()
    with no_hang(30):
        got = run_case(folder)
    assert got == expected


def test_every_case_has_an_expectation():
    folders = sorted(p.name for p in HOSTILE.iterdir() if p.is_dir())
    assert folders == CASES
    assert len(CASES) >= 10


def test_nothing_outside_the_game_was_read_or_written(tmp_path):
    # The include_outside case names a real file next to the game: the game never sees it.
    shutil.copytree(HOSTILE / "include_outside", tmp_path / "case")
    with pytest.raises(RuleError) as err:
        interpreter.load(str(tmp_path / "case" / "inner"))
    assert all(str(tmp_path / "case" / "secret.rules") not in f for f in err.value.sources)
    shutil.copytree(HOSTILE / "runs_no_python", tmp_path / "py")
    with pytest.raises(RuleError):
        interpreter.load(str(tmp_path / "py"))
    assert not (tmp_path / "py" / "pwned").exists() and not Path("pwned").exists()
