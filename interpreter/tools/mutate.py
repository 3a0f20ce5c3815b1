"""Mutation testing for rule files: `rulelang test --mutate FILES [PATHS]`.

A scenario suite is only as good as the mistakes it catches. This tool makes one small
mistake at a time in the given rule files (a mutant), runs the scenarios against each mutant,
and lists the mutants no scenario noticed (the survivors), with their `file:line:col`:

- a number changed by one (`3` -> `4`, `3` -> `2`);
- a comparison or an operator changed (`<` -> `<=`, `==` -> `!=`, `+` -> `-`, `and` -> `or`,
  `true` -> `false`, a `not` dropped);
- a condition dropped (`if C:` -> `if true:`, a `where C` or `when C` left out);
- a branch swapped (`if C:` -> `if not (C):`, `A if C else B` -> `A if not (C) else B`);
- a statement or a score line dropped.

Comments, strings and invariants are never mutated (invariants are checks, not rules). A
mutant that no longer loads is killed by the checker; it is counted apart from the mutants
the scenarios kill.

The files are mutated in a temporary copy of every file the scenarios load (found by loading
them), laid out as in the original tree, so relative `extends` and `include` paths still
work and the originals are never touched. Each mutant reloads the game; parsing, the costly
part of a load, is remembered per file text during a run, so only the mutated file is parsed
again.

`random_mutation` (token and line edits at random) is the fuzzing counterpart, shared with
the hostile-input tests.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import random
import re
import shutil
import signal
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

import attrs

import rulelang.parser as rule_parser
from rulelang.diagnostics import RuleError

from ..engine.api import load
from .scenario import ScenarioResult, run_file, scenario_files

# One token of a rule file: a string, a comment, a name, a number, a two-character operator,
# a newline with the next line's indentation, a run of spaces, or any other character.
TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|#[^\n]*|[A-Za-z_][A-Za-z0-9_]*|[0-9]+|==|!=|<=|>=|\+=|-=|\n[ \t]*|[ \t]+|.',
                   re.S)


# ---- random edits (fuzzing) -------------------------------------------------------------------

RANDOM_EDITS = ("del token", "dup token", "swap tokens", "replace token", "del line", "dup line",
                "swap lines", "indent line", "dedent line", "cut")


def random_mutation(text: str, rng: random.Random, edits: int) -> str:
    """Delete, duplicate, swap or replace tokens or lines (each edit picked at random)."""
    for _ in range(edits):
        how = rng.choice(RANDOM_EDITS)
        if "line" in how:
            lines = text.split("\n")
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            if how == "del line":
                del lines[i]
            elif how == "dup line":
                lines.insert(i, lines[i])
            elif how == "swap lines":
                lines[i], lines[j] = lines[j], lines[i]
            elif how == "indent line":
                lines[i] = "    " + lines[i]
            else:
                lines[i] = lines[i][4:] if lines[i].startswith("    ") else lines[i].lstrip()
            text = "\n".join(lines)
        elif how == "cut":
            text = text[: rng.randrange(len(text) + 1)]
        else:
            toks = TOKEN.findall(text)
            if not toks:
                continue
            words = [k for k, t in enumerate(toks) if not t.isspace()] or [0]
            i, j = rng.choice(words), rng.choice(words)
            if how == "del token":
                del toks[i]
            elif how == "dup token":
                toks.insert(i, toks[i] + " ")
            elif how == "swap tokens":
                toks[i], toks[j] = toks[j], toks[i]
            else:
                toks[i] = toks[j]
            text = "".join(toks)
    return text


# ---- systematic mutants -------------------------------------------------------------------------


@attrs.frozen
class Mutant:
    """One small change to a file: where (1-based line and column of the changed token), what
    (a short description), and the whole mutated text."""

    line: int
    col: int
    what: str
    text: str


@attrs.frozen
class _Tok:
    text: str
    start: int
    line: int
    col: int
    decl: str  # the top-level declaration the token belongs to ("define", "score", "invariant", ...)
    depth: int  # brackets open before the token (a newline inside brackets continues the line)

    @property
    def end(self) -> int:
        return self.start + len(self.text)


# Declarations whose text is not a rule to mutate: checks, headers and file links.
_SKIPPED_DECLS = {"invariant", "include", "extends", "game", "players", "scenario", "option", "require"}
_COMPARISONS = {"<": ["<="], "<=": ["<"], ">": [">="], ">=": [">"], "==": ["!="], "!=": ["=="]}
_OPERATORS = {"+": ["-"], "-": ["+"], "*": ["/"], "/": ["*"], "+=": ["-="], "-=": ["+="],
              "and": ["or"], "or": ["and"], "true": ["false"], "false": ["true"]}
_OPEN, _CLOSE = "([{", ")]}"
# Words that end a `where` filter at bracket depth 0.
_WHERE_ENDS = {"prompt", "label", "by", "else", "if", "for"}


def _tokens(text: str) -> list[_Tok]:
    """The significant tokens (no spaces or comments; newlines kept, as "\\n"), with
    positions and the top-level declaration each belongs to."""
    out: list[_Tok] = []
    line, line_start, decl, at_line_start, depth = 1, 0, "", True, 0
    for m in TOKEN.finditer(text):
        t = m.group()
        if t.startswith("\n"):
            out.append(_Tok("\n", m.start(), line, m.start() - line_start + 1, decl, depth))
            line += 1
            line_start = m.start() + 1
            at_line_start = True
            continue
        if t.isspace() or t.startswith("#"):
            continue
        col = m.start() - line_start + 1
        if at_line_start and col == 1:
            decl = t
        at_line_start = False
        out.append(_Tok(t, m.start(), line, col, decl, depth))
        if t in _OPEN:
            depth += 1
        elif t in _CLOSE:
            depth = max(0, depth - 1)
    return out


def _extent(toks: list[_Tok], i: int, stops: set[str]) -> int:
    """The index just past the expression that starts at toks[i]: it ends at a stop word at
    its own bracket depth, at a newline outside all brackets, or at a bracket that closes an
    enclosing one."""
    depth = 0
    j = i
    while j < len(toks):
        t = toks[j].text
        if depth == 0 and t in stops or t == "\n" and toks[j].depth == 0:
            return j
        if t in _OPEN:
            depth += 1
        elif t in _CLOSE:
            depth -= 1
            if depth < 0:
                return j
        j += 1
    return j


def _first_on_line(toks: list[_Tok], i: int) -> bool:
    return i == 0 or toks[i - 1].text == "\n"


def _owners(toks: list[_Tok]) -> list[tuple[str, str]]:
    """For each token, the declaration it belongs to: (keyword, name), e.g. ("define", "x")."""
    out, owner = [], ("", "")
    for i, tok in enumerate(toks):
        if tok.col == 1 and tok.text != "\n" and _first_on_line(toks, i):
            owner = (tok.text, toks[i + 1].text if i + 1 < len(toks) else "")
        out.append(owner)
    return out


def _check_helpers(toks: list[_Tok], owners: list[tuple[str, str]], elsewhere: str) -> set[str]:
    """The defines that only invariants use (directly or through other such defines), in this
    file and nowhere else: they are part of the checks, not of the rules."""
    defined = {name for kw, name in set(owners) if kw == "define"}
    used_by: dict[str, set[tuple[str, str]]] = {d: set() for d in defined}
    for tok, owner in zip(toks, owners, strict=True):
        if tok.text in defined and owner != ("define", tok.text):
            used_by[tok.text].add(owner)
    helpers: set[str] = set()
    changed = True
    while changed:
        changed = False
        for d in defined - helpers:
            refs = used_by[d]
            if refs and all(kw == "invariant" or (kw == "define" and n in helpers) for kw, n in refs) \
                    and not re.search(rf"\b{re.escape(d)}\b", elsewhere):
                helpers.add(d)
                changed = True
    return helpers


def mutants(text: str, elsewhere: str = "") -> list[Mutant]:
    """Every small mutant of a rule file's text, each once (mutants that give the same text count once), in
    the order of the file. `elsewhere`: the text of the game's other files, to tell the
    defines only invariants use (not mutated, like the invariants) from the others."""
    toks = _tokens(text)
    owners = _owners(toks)
    helpers = _check_helpers(toks, owners, elsewhere)
    found: dict[str, Mutant] = {}

    def add(tok: _Tok, what: str, start: int, end: int, new: str) -> None:
        mutated = text[:start] + new + text[end:]
        if mutated != text and mutated not in found:
            found[mutated] = Mutant(tok.line, tok.col, what, mutated)

    for i, tok in enumerate(toks):
        t = tok.text
        if tok.decl in _SKIPPED_DECLS or t == "\n" or owners[i][0] == "define" and owners[i][1] in helpers:
            continue
        if t.isdigit():
            n = int(t)
            add(tok, f"number {n} -> {n + 1}", tok.start, tok.end, str(n + 1))
            if n > 0:
                add(tok, f"number {n} -> {n - 1}", tok.start, tok.end, str(n - 1))
        elif t in _COMPARISONS or t in _OPERATORS:
            prev = toks[i - 1].text if i > 0 else "\n"
            if t == "-" and not (prev[:1].isalnum() or prev in _CLOSE or prev == "_"):
                continue  # a minus sign, not a subtraction
            for new in _COMPARISONS.get(t) or _OPERATORS[t]:
                add(tok, f"{t} -> {new}", tok.start, tok.end, new)
        elif t == "not":
            nxt = toks[i + 1] if i + 1 < len(toks) else None
            if nxt is not None and nxt.text != "in":
                add(tok, "`not` dropped", tok.start, nxt.start, "")
        elif t in ("if", "elif") and _first_on_line(toks, i):
            end = _extent(toks, i + 1, {":"})
            if end > i + 1 and end < len(toks) and toks[end].text == ":":
                a, b = toks[i + 1].start, toks[end - 1].end
                cond = text[a:b]
                add(tok, f"condition dropped: `{t} {_short(cond)}` always true", a, b, "true")
                add(tok, f"branch swapped: `{t} not ({_short(cond)})`", a, b, f"not ({cond})")
        elif t == "if":  # a conditional expression: A if C else B
            end = _extent(toks, i + 1, {"else"})
            if end > i + 1 and end < len(toks) and toks[end].text == "else":
                a, b = toks[i + 1].start, toks[end - 1].end
                cond = text[a:b]
                add(tok, f"branch swapped: `if not ({_short(cond)}) else`", a, b, f"not ({cond})")
        elif t in ("where", "when"):
            stops = {":"} if t == "when" else _WHERE_ENDS
            end = _extent(toks, i + 1, stops)
            if end > i + 1:
                a, b = tok.start, toks[end - 1].end
                # keep the space before the filter out of the cut, so the line stays tidy
                while a > 0 and text[a - 1] == " ":
                    a -= 1
                add(tok, f"condition dropped: `{t} {_short(text[toks[i + 1].start:b])}`", a, b, "")
    for line_no, (start, end) in _droppable_lines(text, toks).items():
        if any(owners[i] == ("define", h) for h in helpers for i, t in enumerate(toks) if t.line == line_no):
            continue
        first = next(t for t in toks if t.line == line_no and t.text != "\n")
        add(first, f"line dropped: `{_short(text[start:end].strip())}`", start, end, "")
    return sorted(found.values(), key=lambda m: (m.line, m.col))


# Statements worth dropping one at a time (a `log` line only changes the log).
_STATEMENTS = {"set", "gain", "pay", "move", "draw", "shuffle", "flip", "start", "stop", "end"}


def _droppable_lines(text: str, toks: list[_Tok]) -> dict[int, tuple[int, int]]:
    """Lines that hold one whole statement or one score line: line number -> (start, end)
    offsets of the line including its newline. A line whose brackets do not balance, or that
    opens a block, is part of something bigger and is left alone."""
    lines: dict[int, list[_Tok]] = {}
    for t in toks:
        if t.text != "\n":
            lines.setdefault(t.line, []).append(t)
    out = {}
    offsets = [0] + [m.end() for m in re.finditer("\n", text)]
    for no, ts in lines.items():
        first = ts[0]
        if first.col == 1 or first.decl in _SKIPPED_DECLS or ts[-1].text == ":":
            continue
        depth = sum((t.text in _OPEN) - (t.text in _CLOSE) for t in ts)
        if depth != 0:
            continue
        is_score_line = first.decl == "score" and len(ts) > 1 and ts[1].text == ":"
        if first.text in _STATEMENTS or is_score_line:
            # the line must not continue on the next one (a deeper indentation)
            nxt = lines.get(no + 1)
            if nxt and nxt[0].col > first.col:
                continue
            end = offsets[no] if no < len(offsets) else len(text)
            out[no] = (offsets[no - 1], end)
    return out


def _short(s: str, n: int = 50) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 3] + "..."


# ---- running the scenarios against each mutant --------------------------------------------------


@attrs.frozen
class MutantResult:
    file: str  # the original file's path, as given
    mutant: Mutant
    outcome: str  # "killed" (a scenario failed), "checker" (does not load), "timeout", "survived"
    by: str = ""  # what killed it: the scenario, the check, or the first diagnostic

    @property
    def where(self) -> str:
        return f"{self.file}:{self.mutant.line}:{self.mutant.col}"


@attrs.define
class MutationReport:
    files: list[str]
    scenario_files: list[str]
    results: list[MutantResult] = attrs.Factory(list)

    def count(self, outcome: str, file: str | None = None) -> int:
        return sum(1 for r in self.results if r.outcome == outcome and (file is None or r.file == file))

    def total(self, file: str | None = None) -> int:
        return sum(1 for r in self.results if file is None or r.file == file)

    def kill_rate(self, file: str | None = None) -> float:
        """Killed by the scenarios, the checks or the checker (or a timeout), over all mutants."""
        total = self.total(file)
        return 1.0 if total == 0 else (total - self.count("survived", file)) / total

    def survivors(self, file: str | None = None) -> list[MutantResult]:
        return [r for r in self.results if r.outcome == "survived" and (file is None or r.file == file)]


class MutationError(Exception):
    """The run cannot start: no scenario loads a file, or the scenarios fail unmutated."""


class _Timeout(BaseException):
    """A mutant ran past its time (a BaseException so that nothing in the engine swallows it)."""


@contextlib.contextmanager
def time_limit(seconds: float, error: Callable[[], BaseException] = _Timeout):
    """Raise `error()` if the block runs longer than `seconds` (POSIX main thread only;
    elsewhere, or with 0 seconds, there is no limit). The hostile-input tests use it too."""
    usable = seconds > 0 and hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if not usable:
        yield
        return

    def ring(signum, frame):
        raise error()

    old = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@contextlib.contextmanager
def _remembered_parsing():
    """Parse each (text, path) once during a run: every mutant reloads the whole game, but
    only its mutated file has new text. (Syntax trees are immutable, and the checker keeps
    what it learns about them in each program's own tables, so sharing them is safe.)"""
    original = rule_parser.parse_text
    memo: dict[tuple[str, str], object] = {}

    def parse_text(text: str, path: str = "<string>"):
        key = (text, path)
        if key not in memo:
            if len(memo) > 256:
                memo.clear()
            memo[key] = original(text, path)
        return memo[key]

    rule_parser.parse_text = parse_text
    try:
        yield
    finally:
        rule_parser.parse_text = original


def default_scenarios(files: list[str]) -> list[str]:
    """The scenarios of the games the files belong to: every `.scenario` under the folder
    of each file."""
    folders = sorted({str(Path(f).resolve().parent) for f in files})
    return scenario_files(folders)


def _sources(scenario: str, house: list[str] | None) -> set[str]:
    """Every file a scenario file loads (itself, what it extends, their includes)."""
    _, sources = rule_parser.load_sources(scenario, house)
    return {os.path.realpath(f) for f in sources}


def _load_checks(paths: list[str]) -> list[tuple[str, Callable[[str], object]]]:
    """The `check_*` functions of Python files given with `--check` (trusted code the author
    passes on the command line, not rule files)."""
    checks = []
    for k, path in enumerate(paths):
        spec = importlib.util.spec_from_file_location(f"_rulelang_mutation_check_{k}", path)
        if spec is None or spec.loader is None:
            raise MutationError(f"{path}: not a Python file")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        found = [(f"{path}::{name}", fn) for name, fn in vars(module).items()
                 if name.startswith("check_") and callable(fn)]
        if not found:
            raise MutationError(f"{path}: no function named check_...")
        checks += found
    return checks


def run_mutation(files: list[str], paths: list[str] | None = None, checks: list[str] | None = None,
                 house: list[str] | None = None, timeout: float = 60.0,
                 progress: Callable[[int, int, MutantResult], None] | None = None) -> MutationReport:
    """Mutate each file one mutant at a time and run the scenarios (and the checks) on each.

    `paths`: scenario files or folders (default: the scenarios under each file's folder).
    `checks`: Python files whose `check_*(game_dir)` functions are called with the mutated
    copy of the folder that holds the mutated file; an exception kills the mutant.
    """
    scenarios = scenario_files(paths) if paths else default_scenarios(files)
    if not scenarios:
        raise MutationError("no scenario files to run against the mutants (they end in .scenario)")
    check_fns = _load_checks(checks or [])
    originals = {f: os.path.realpath(f) for f in files}
    with _remembered_parsing():
        try:
            used = {s: _sources(s, house) for s in scenarios}
        except RuleError as err:
            raise MutationError(f"the scenarios do not load:\n{err}") from None
        for f, real in originals.items():
            if not any(real in srcs for srcs in used.values()):
                raise MutationError(f"{f}: no scenario loads this file")
        every = set().union(*used.values()) | {os.path.realpath(s) for s in scenarios}
        root = os.path.commonpath([os.path.dirname(p) for p in every])
        with tempfile.TemporaryDirectory(prefix="rulelang-mutants-") as tmp:
            for p in every:
                dest = Path(tmp, os.path.relpath(p, root))
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(p, dest)

            def copy_of(real: str) -> str:
                return str(Path(tmp, os.path.relpath(real, root)))

            copies = {s: copy_of(os.path.realpath(s)) for s in scenarios}
            for s, copy in copies.items():
                for f, real in originals.items():
                    if real in used[s] and copy_of(real) not in _sources(copy, house):
                        raise MutationError(f"{s} loads {f} by an absolute path: the mutants cannot "
                                            "replace it (use a relative path)")
            baseline = _failures(list(copies.values()), house)
            if baseline:
                raise MutationError("the scenarios must pass before mutating: "
                                    + "; ".join(f"{r.name}: {r.message}" for r in baseline[:3]))
            report = MutationReport(list(files), scenarios)
            todo = []
            for f in files:
                others = sorted(set().union(*(srcs for srcs in used.values() if originals[f] in srcs)) - {originals[f]})
                elsewhere = "\n".join(Path(o).read_text(encoding="utf-8") for o in others)
                todo += [(f, m) for m in mutants(Path(f).read_text(encoding="utf-8"), elsewhere)]
            for k, (f, m) in enumerate(todo):
                target = copy_of(originals[f])
                relevant = [copies[s] for s in scenarios if originals[f] in used[s]]
                result = _try(f, m, target, relevant, check_fns, house, timeout)
                report.results.append(result)
                if progress is not None:
                    progress(k + 1, len(todo), result)
            return report


def _failures(scenarios: list[str], house: list[str] | None, stop: bool = False) -> list[ScenarioResult]:
    failed = []
    for s in scenarios:
        for r in run_file(s, house):
            if not r.passed:
                failed.append(r)
                if stop:
                    return failed
    return failed


def _try(file: str, m: Mutant, target: str, scenarios: list[str],
         checks: list[tuple[str, Callable[[str], object]]], house: list[str] | None,
         timeout: float) -> MutantResult:
    original = Path(target).read_text(encoding="utf-8")
    Path(target).write_text(m.text, encoding="utf-8")
    try:
        with time_limit(timeout):
            try:
                load(scenarios[0], house=house)
            except RuleError as err:
                d = err.diagnostics[0]
                return MutantResult(file, m, "checker", f"{d.code} {d.message}")
            except ValueError as err:  # the mutant refuses its own options
                return MutantResult(file, m, "checker", str(err))
            failed = _failures(scenarios, house, stop=True)
            if failed:
                return MutantResult(file, m, "killed", failed[0].name)
            for name, fn in checks:
                try:
                    fn(str(Path(target).parent))
                except Exception as err:  # any failure of a check kills the mutant
                    return MutantResult(file, m, "killed", f"{name}: {type(err).__name__}")
            return MutantResult(file, m, "survived")
    except _Timeout:
        return MutantResult(file, m, "timeout", f"still running after {timeout:g} s")
    finally:
        Path(target).write_text(original, encoding="utf-8")


def format_mutation_report(report: MutationReport, seconds: float) -> str:
    lines = [f"scenario files: {len(report.scenario_files)}"]
    for f in report.files:
        total = report.total(f)
        lines.append("")
        lines.append(f"{f}: {total} mutants")
        lines.append(f"  killed by the scenarios: {report.count('killed', f)}")
        lines.append(f"  killed by the checker (do not load): {report.count('checker', f)}")
        if report.count("timeout", f):
            lines.append(f"  stopped after the time limit: {report.count('timeout', f)}")
        lines.append(f"  survived: {report.count('survived', f)}")
        lines.append(f"  kill rate: {100 * report.kill_rate(f):.1f}%")
        for r in report.survivors(f):
            lines.append(f"  SURVIVED {r.where}: {r.mutant.what}")
    total = report.total()
    lines.append("")
    lines.append(f"{total - report.count('survived')} of {total} mutants killed "
                 f"({100 * report.kill_rate():.1f}%) in {seconds:.1f}s")
    return "\n".join(lines)
