"""A turn's or round's start and end, and an `emit`, whose events no trigger answers are run
inside the generated runs (codegen.quiet_effects); answered ones still stop the run, so the
triggers run where the reference runs them. Both backends play alike either way."""

from __future__ import annotations

import pytest

import interpreter
from interpreter.engine.codegen import quiet_effects
from tests.test_backends import play_both

RULES = """game "Turns"
players 2 to 3
var n: int = 0
var starts: int = 0
event bumped(p: player)
{triggers}
flow:
    while n < 12 max 20:
        round:
            for p in players:
                turn p:
                    choose by p prompt "How many?":
                        option "One":
                            set n += 1
                        option "Two":
                            set n += 2
                    emit bumped(p)
score p:
    line: n + starts
"""

TRIGGERS = {
    "none": "",
    "turn_start": "on turn_start(p) when n % 2 == 0:\n    set starts += 1\n",
    "every event": ("on turn_start(p):\n    set starts += 1\non turn_end(p):\n    set starts += 2\n"
                    "on round_start():\n    set starts += 3\non round_end():\n    set starts += 4\n"
                    "on bumped(p) when p == first(players):\n    set starts += 5\n"),
}


@pytest.mark.parametrize("which", list(TRIGGERS))
def test_effects_run_alike_with_and_without_triggers(tmp_path, which):
    (tmp_path / "game.rules").write_text(RULES.format(triggers=TRIGGERS[which]))
    for seed in range(4):
        assert play_both(str(tmp_path), (), 2 + seed % 2, seed) > 3
    game = interpreter.load(str(tmp_path)).compiled
    shapes = [op.shape[0] for op in quiet_effects(game.codes["flow"], game.triggers)
              if getattr(op, "shape", None) is not None and op.shape[0] in ("effect", "advance")]
    effects = shapes.count("effect")
    # five effects raise events: round start and end, turn start and end, the emit
    assert effects == {"none": 0, "turn_start": 1, "every event": 5}[which], shapes
