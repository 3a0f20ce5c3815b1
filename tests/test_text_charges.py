"""Texts made by templates (labels, prompts, log lines) pay the same in both backends: the
generated code pays a choice's labels all at once (``codegen._paid_texts``) and each other text
in one call (``_paid_text``); the totals, the cut of a long text and the error of an overrun
must be the reference's."""

from __future__ import annotations

import pytest

import interpreter
from interpreter.engine.budget import MAX_TEXT, Budget
from rulelang.diagnostics import RuleRuntimeError

RULES = """game "Texts"
players 2 to 2
const big = "{big}"
var n: int = 0
flow:
    turn first(players):
        choose i in range(1, {count}) by first(players) prompt "Pick {{i_text}}" label "{{big}}{{big}} {{i}}"
        log "{{big}} and {{i}}"
        set n = i
"""


def _game(tmp_path, backend: str, big: int, count: int):
    folder = tmp_path / backend / "texts"  # (the same folder name: errors name the file)
    folder.mkdir(parents=True, exist_ok=True)
    rules = RULES.format(big="x" * big, count=count).replace("{i_text}", "{n}")
    (folder / "game.rules").write_text(rules)
    return interpreter.load(str(folder), backend=backend)


def test_long_labels_are_cut_and_paid_the_same(tmp_path):
    # labels of 2 x 6,000 characters and more: each cut to MAX_TEXT, each paid for in full
    ref, gen = (_game(tmp_path, b, 6000, 5) for b in ("reference", "codegen"))
    states = [g.new_game(players=2, seed=0) for g in (ref, gen)]
    labels = [[a.label for a in s.legal_actions()] for s in states]
    assert labels[0] == labels[1]
    # (cut alike, so told apart by their positions)
    assert labels[0] == [f"{'x' * MAX_TEXT}... ({i})" for i in range(1, 6)]  # (range(1, 5) is 1 to 5)
    assert states[0].s == states[1].s
    paid = [Budget(), Budget()]
    for s, budget in zip(states, paid, strict=True):
        s.apply(s.legal_actions()[2], budget)
    assert paid[0].used == paid[1].used > 0
    assert states[0].s == states[1].s
    assert [e.text for e in states[0].log] == [e.text for e in states[1].log]


def test_labels_past_the_budget_fail_alike(tmp_path):
    # 199 labels of 6,000 characters: past the million steps of a decision while they are made
    errors = []
    for backend in ("reference", "codegen"):
        game = _game(tmp_path, backend, 3000, 200)
        with pytest.raises(RuleRuntimeError) as info:
            game.new_game(players=2, seed=0)
        errors.append(str(info.value).replace(str(tmp_path / backend), ""))
    assert errors[0] == errors[1]
    assert "steps" in errors[0] and "game.rules:7:" in errors[0], errors[0]
