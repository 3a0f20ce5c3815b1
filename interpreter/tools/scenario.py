"""Scenario tests: positions, choices and expectations written in the rules' own terms.

A scenario file extends a game and adds `scenario "name":` blocks (see docs/testing.md):

    extends "../games/my_game"
    scenario "Taking the second card costs one coin":
        players 2
        given:
            gain 3 coin to first(players)
        play take_turn first(players)
        choose "Take"
        expect first(players).coin == 2

Strict by default: a decision the scenario did not script fails it, and so does a scripted
choice when no decision is waiting. `run_paths` runs files and folders; `format_report`
prints the results the way pytest does.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import attrs

from rulelang.diagnostics import RuleError, RuleRuntimeError
from rulelang.files import FileRefused, read_regular
from rulelang.parser import MAX_FILE_BYTES

from ..engine.api import Game, IllegalAction, State, load
from ..engine.compiler import Scenario
from ..engine.runtime import Machine
from ..engine.state import Frame

SCENARIO_SUFFIX = ".scenario"


@attrs.frozen
class ScenarioResult:
    file: str
    name: str
    passed: bool
    message: str = ""
    line: int = 0
    seconds: float = 0.0

    @property
    def node_id(self) -> str:
        return f"{self.file}::{self.name}"


class _Failed(Exception):
    def __init__(self, message: str, line: int):
        super().__init__(message)
        self.message, self.line = message, line


def scenario_files(paths: list[str]) -> list[str]:
    out = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            out += sorted(str(f) for f in path.rglob(f"*{SCENARIO_SUFFIX}"))
        else:
            out.append(str(path))
    return out


def _run_file_task(task: tuple[str, list[str] | None]) -> list[ScenarioResult]:
    return run_file(*task)


def run_paths(paths: list[str], house: list[str] | None = None, workers: int = 1, ray: str | None = None,
              progress: Any = None) -> list[ScenarioResult]:
    """Run every scenario file under ``paths``, one file per task on ``workers`` processes (or a
    Ray cluster); the results come back in file order, the same for any number of workers.
    ``progress``: a :class:`~interpreter.tools.progress.Progress` over the files."""
    from .parallel import Pool

    files = scenario_files(paths)
    results: list[ScenarioResult] = []
    failed = 0
    with Pool(min(workers, max(1, len(files))), ray) as pool:
        for done, found in enumerate(pool.imap(_run_file_task, [(f, house) for f in files]), start=1):
            results += found
            failed += sum(not r.passed for r in found)
            if progress is not None:
                progress.update(done, f"{failed} failed" if failed else "")
    if progress is not None:
        progress.close()
    return results


def run_file(path: str, house: list[str] | None = None) -> list[ScenarioResult]:
    """Run every scenario of one file. A file that does not load is one failed result."""
    try:
        base = load(path, house=house)
    except RuleError as err:
        return [ScenarioResult(path, "<load>", False, str(err), err.diagnostics[0].pos.line)]
    if not base.compiled.scenarios:
        return [ScenarioResult(path, "<load>", False, "the file has no `scenario` blocks", 1)]
    results = []
    games: dict[tuple, Game] = {(): base}
    for i, sc in enumerate(base.compiled.scenarios):
        key = tuple(sorted(sc.options.items()))
        if key not in games:
            games[key] = load(path, options=dict(sc.options), house=house)
        results.append(run_scenario(games[key], i, path))
    return results


def run_scenario(game: Game, index: int, path: str) -> ScenarioResult:
    sc: Scenario = game.compiled.scenarios[index]
    start = time.perf_counter()
    try:
        _run(game, sc, path)
    except _Failed as f:
        return ScenarioResult(path, sc.name, False, f.message, f.line, time.perf_counter() - start)
    return ScenarioResult(path, sc.name, True, "", sc.pos.line, time.perf_counter() - start)


def _source_line(path: str, line: int) -> str:
    """A line of a scenario file to quote, read like any rule file (a regular file, capped)."""
    try:
        return read_regular(path, MAX_FILE_BYTES).splitlines()[line - 1].strip()
    except (FileRefused, IndexError):
        return ""


def _run(game: Game, sc: Scenario, path: str) -> None:
    try:
        state = game.new_game(players=sc.players or game.min_players, seed=sc.seed)
    except (RuleRuntimeError, ValueError) as err:
        raise _Failed(f"the game could not start: {err}", sc.pos.line) from None
    last_kind = None
    for step in sc.steps:
        line = step.pos.line
        try:
            if step.kind == "given":
                _given(state, step.code, line)
            elif step.kind == "play":
                m = Machine(game.compiled, state.s)
                args = [f(m, {}) for f in step.args]
                active = args[step.active] if step.active is not None else None
                state.run_procedure(step.text, *args, active=active)
            elif step.kind == "choose":
                _choose(state, step, line)
            elif step.kind == "decision":
                _expect_decision(state, step, line)
            elif step.kind == "expect":
                _expect(state, step, path, line)
        except RuleRuntimeError as err:
            where = f" (at {err.pos})" if err.pos else ""
            raise _Failed(f"the rules failed: {err.bare_message}{where}", line) from None
        last_kind = step.kind
    waiting = state.decision
    if waiting is not None and last_kind != "decision":
        player = waiting.players[0]
        labels = [a.label for a in state.legal_actions(player)]
        raise _Failed(f"a decision was left unscripted: {waiting.prompt!r} for "
                      f"{game.compiled.player_name(player)}, with {labels}", sc.steps[-1].pos.line
                      if sc.steps else sc.pos.line)


def _given(state: State, code: str, line: int) -> None:
    """Run set-up statements without disturbing where the game stands."""
    s = state.s
    saved = (s.stack, s.pending, s.branches, s.over)
    s.stack, s.pending, s.branches, s.over = [Frame(code, 0, {})], None, [], False
    try:
        Machine(state.game.compiled, s).run()
        if s.pending is not None or s.branches:
            raise _Failed("`given` may not ask anyone to choose", line)
    finally:
        s.stack, s.pending, s.branches, s.over = saved


def _choose(state: State, step, line: int) -> None:
    g = state.game.compiled
    waiting = state.decision
    if waiting is None:
        raise _Failed(f"the scripted choice {step.text!r} was left unused: nobody is deciding", line)
    if step.by is not None:
        player = step.by(Machine(g, state.s), {})
        if player not in waiting.players:
            raise _Failed(f"{g.player_name(player)} is not deciding; waiting for "
                          f"{', '.join(g.player_name(p) for p in waiting.players)}", line)
    elif len(waiting.players) == 1:
        player = waiting.players[0]
    else:
        raise _Failed("several players are deciding: say `by` whom", line)
    actions = state.legal_actions(player)
    want = step.text
    exact = [a for a in actions if a.label == want]
    starts = [a for a in actions if a.label.lower().startswith(want.lower())]
    found = exact or (starts if len(starts) == 1 else [])
    if not found:
        how = "matches several" if len(starts) > 1 else "matches no"
        raise _Failed(f"{want!r} {how} action of {g.player_name(player)} at {waiting.prompt!r}: "
                      f"{[a.label for a in actions]}", line)
    try:
        state.apply(found[0])
    except IllegalAction as err:  # pragma: no cover - legal actions are always accepted
        raise _Failed(str(err), line) from None


def _expect_decision(state: State, step, line: int) -> None:
    waiting = state.decision
    if waiting is None:
        raise _Failed(f"expected the decision {step.text!r}, but nobody is deciding", line)
    prompts = [p.prompt for _, p in state._waiting()]
    if not any(step.text.lower() in p.lower() for p in prompts):
        raise _Failed(f"expected the decision {step.text!r}; the game asks {prompts}", line)


def _expect(state: State, step, path: str, line: int) -> None:
    m = Machine(state.game.compiled, state.s)
    if step.check(m, {}):
        return
    text = _source_line(path, line)
    detail = ""
    if step.sides is not None:
        op, left, right = step.sides
        detail = f"\n    actual: {left(m, {})} {op} {right(m, {})}"
    raise _Failed(f"{text or 'expectation'} is false{detail}", line)


def format_report(results: list[ScenarioResult], seconds: float) -> str:
    lines = []
    for r in results:
        lines.append(f"{r.node_id} {'PASSED' if r.passed else 'FAILED'}")
    failures = [r for r in results if not r.passed]
    if failures:
        lines.append("")
        lines.append("=" * 30 + " FAILURES " + "=" * 30)
        for r in failures:
            lines.append(f"_____ {r.name} _____")
            lines.append(f"{r.file}:{r.line}: {r.message}")
    passed = len(results) - len(failures)
    lines.append("")
    lines.append(f"{passed} passed, {len(failures)} failed in {seconds:.2f}s")
    return "\n".join(lines)
