"""`rulelang bench --profile`: where a game's random playouts spend their time, rule by rule.

An author whose game plays slowly wants to know which of their defines and procedures to look
at, not which of the interpreter's functions: the playouts run under Python's profiler
(cProfile), and each generated function's time is put to the rule it was generated from. A
define's function is named by the code generator (``CodeGen.define_functions``); a procedure's
runs are compiled as the file "<rulelang steps KEY>" (``codegen.code_runs``); an expression,
a choice's options or a comprehension counts for the define or procedure that called it. What
is left is the interpreter's own time (the step loop, moves, the API).

The profiler slows everything down, unevenly (a call costs more under it than a loop), so the
shares are a guide to where to look, not a measurement: `rulelang bench` without --profile, or
benchmarks/run.py, measure."""

from __future__ import annotations

import cProfile
import os
import pstats
import random
import re
from typing import Any

import attrs

# A generated define's function, or its variant that pays no budget check of its own ("_u")
_DEFINE_FUNCTION = re.compile(r"(_d\d+)(?:_u)?$")
_STEPS_FILE = re.compile(r"<rulelang steps (.+)>$")
GENERATED_FILE = "<rulelang generated>"
INTERPRETER = "the interpreter itself"


@attrs.frozen
class ProfileRow:
    """One rule's share of the profiled time: ``own`` seconds in its own code (and the
    expressions it evaluates), ``total`` with what it calls (defines only: a procedure's runs
    hand on to each other, so their sum would count time twice)."""

    kind: str  # "define", "procedure" (also "flow", "setup"...), or "interpreter"
    name: str
    where: str  # file:line of its declaration, or ""
    calls: int
    own: float
    total: float | None


@attrs.frozen
class Profile:
    game: str
    players: int
    playouts: int
    decisions: int
    seconds: float  # all the profiled time
    rows: list[ProfileRow]

    def to_dict(self) -> dict:
        return {"game": self.game, "players": self.players, "playouts": self.playouts,
                "decisions": self.decisions, "seconds": self.seconds,
                "rows": [attrs.asdict(r) for r in self.rows]}


def profile_playouts(path: str, players: int, games: int = 20, seed: int = 0,
                     options: dict | None = None, house: list[str] | None = None) -> Profile:
    """``games`` random playouts (seeds ``seed``, ``seed + 1``...) of the game at ``path`` in this
    process, under cProfile, their time put to the rules. The game is loaded anew, without the
    on-disk cache: a load from the cache does not know which define each function is."""
    import interpreter

    from .simulate import DEFAULT_MAX_DECISIONS, why_unplayable

    game = interpreter.load(path, options=options or {}, house=house or [], cache=False)
    refused = why_unplayable(game, players)
    if refused:
        raise ValueError(refused)
    if game.compiled.generated is not None:
        game.compiled.generated.source  # noqa: B018 - every body generated now, not while profiled
    _playout(game, players, seed + games, random.Random(seed + games), DEFAULT_MAX_DECISIONS)  # the runs made
    rng = random.Random(seed)
    decisions = 0
    profiler = cProfile.Profile()
    profiler.enable()
    try:
        for i in range(games):
            decisions += _playout(game, players, seed + i, rng, DEFAULT_MAX_DECISIONS)
    finally:
        profiler.disable()
    stats = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    rows = rule_rows(stats, game)
    return Profile(game.compiled.title, players, games, decisions, sum(r.own for r in rows), rows)


def _playout(game: Any, players: int, seed: int, rng: random.Random, max_decisions: int) -> int:
    """One random playout, as `bench` plays it; its decisions. A game still going after
    `max_decisions` is an error, as in `bench` (random play may never end some games)."""
    state = game.new_game(players=players, seed=seed)
    decisions = 0
    while not state.is_over:
        if decisions >= max_decisions:
            raise ValueError(f"the game with seed {seed} did not end within {max_decisions} decisions")
        player = state.current_player()
        state.apply_index(rng.randrange(state.num_actions(player)), player)
        decisions += 1
    return decisions


def rule_rows(stats: dict, game: Any) -> list[ProfileRow]:
    """cProfile's statistics ((file, line, function) -> (calls, primitive calls, own time, time
    with callees, callers)) put to rules, the most costly first; the interpreter's own time is
    one row."""
    generated = game.compiled.generated
    define_of = dict(generated.define_functions) if generated is not None else {}
    program = generated.p if generated is not None else None
    owners: dict[tuple, tuple[str, str]] = {}

    def owner(func: tuple, depth: int = 0) -> tuple[str, str]:
        """(kind, name) of the rule a profiled function counts for."""
        found = owners.get(func)
        if found is not None:
            return found
        file, _, name = func
        result = ("interpreter", INTERPRETER)
        steps = _STEPS_FILE.match(file)
        if steps:
            kind, _, proc = steps.group(1).partition(":")
            result = (kind, proc) if proc else (steps.group(1), steps.group(1))
        elif file == GENERATED_FILE:
            define = _DEFINE_FUNCTION.match(name)
            if define and define.group(1) in define_of:
                result = ("define", define_of[define.group(1)])
            elif depth < 8:
                # an expression, a choice's options, a comprehension: for whoever called it most
                callers = stats[func][4]
                if callers:
                    top = max(callers, key=lambda c: callers[c][2] + callers[c][3])
                    result = owner(top, depth + 1)
        owners[func] = result
        return result

    own: dict[tuple[str, str], float] = {}
    total: dict[tuple[str, str], float] = {}
    calls: dict[tuple[str, str], int] = {}
    for func, (_, primitive, tt, ct, _callers) in stats.items():
        kind, name = owner(func)
        key = (kind, name)
        own[key] = own.get(key, 0.0) + tt
        if kind == "define" and _DEFINE_FUNCTION.match(func[2]):
            total[key] = total.get(key, 0.0) + ct
            calls[key] = calls.get(key, 0) + primitive
        elif kind not in ("define", "interpreter") and func[2] == "_run0":
            calls[key] = calls.get(key, 0) + primitive  # (a procedure's first run: once a call)
    rows = [ProfileRow(kind, name, _where(program, kind, name), calls.get((kind, name), 0), t,
                       total.get((kind, name)) if kind == "define" else None)
            for (kind, name), t in own.items()]
    rows.sort(key=lambda r: -r.own)
    return rows


def _where(program: Any, kind: str, name: str) -> str:
    """file:line of a define's or a procedure's declaration."""
    decl = None
    if program is not None:
        if kind == "define":
            decl = program.defines.get(name)
        elif kind == "proc":
            decl = program.procs.get(name)
    pos = getattr(decl, "pos", None)
    if pos is None:
        return ""
    file = os.path.relpath(pos.file) if os.path.isabs(pos.file) and pos.file.startswith(os.getcwd()) else pos.file
    return f"{file}:{pos.line}"


def format_profile(p: Profile, top: int = 20) -> str:
    """The rules taking the most time, as a table."""
    seconds = p.seconds or 1.0
    lines = [f"{p.game}, {p.players} players: {p.playouts} random playouts ({p.decisions} decisions), "
             f"{p.seconds:.2f}s under the profiler",
             "  own %  with calls %    calls  rule",
             ]
    for r in p.rows[:top]:
        label = {"define": "define ", "proc": "procedure ", "interpreter": ""}.get(r.kind, "")
        name = r.name if r.kind != "interpreter" else INTERPRETER
        total = f"{100 * r.total / seconds:12.1f}" if r.total is not None else f"{'-':>12}"
        where = f"  {r.where}" if r.where else ""
        lines.append(f"  {100 * r.own / seconds:5.1f} {total} {r.calls:8d}  {label}{name}{where}")
    if len(p.rows) > top:
        rest = sum(r.own for r in p.rows[top:])
        lines.append(f"  {100 * rest / seconds:5.1f} {'':12} {'':8}  ({len(p.rows) - top} more rules)")
    lines.append("(the profiler slows calls more than loops: the shares say where to look; "
                 "`rulelang bench` without --profile measures)")
    return "\n".join(lines)
