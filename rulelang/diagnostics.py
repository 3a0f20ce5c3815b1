"""Errors with positions, formatted in one place.

Every problem a rule file can have becomes a ``Diagnostic`` with a stable code (listed in
``docs/errors.md``), a position and a message; ``format_diagnostic`` prints it as
``path:line:col: CODE message`` followed by the source line and a caret.
"""

from __future__ import annotations

import os
import stat

import attrs

from .nodes import Pos

# Stable error codes. The docs list them; tests refer to them by code.
CODES: dict[str, str] = {
    "E100": "the file cannot be read (missing, not text, too large)",
    "E101": "syntax error: an unexpected character",
    "E102": "syntax error: an unexpected word or symbol",
    "E103": "syntax error: the file ends too early",
    "E104": "an include path leaves the folder of the game's entry file",
    "E200": "a name is declared twice",
    "E201": "an unknown name",
    "E202": "an unknown attribute or field",
    "E203": "an unknown effect or procedure",
    "E204": "an unknown type",
    "E205": "an unknown kind of card",
    "E206": "an unknown event",
    "E207": "an unknown modifier",
    "E208": "an unknown token",
    "E209": "an unknown zone property or token property",
    "E210": "an unknown option value",
    "E211": "a `replace` or `remove` names nothing that exists",
    "E300": "wrong number of arguments",
    "E301": "a missing or unexpected clause (to, from, ...)",
    "E302": "a value of the wrong type",
    "E303": "a card row has the wrong number of values",
    "E304": "a value that must be constant is not",
    "E305": "the target of `set` cannot be assigned",
    "E306": "a statement is not allowed here",
    "E307": "a required declaration is missing",
    "E308": "an invalid number (a range, a count, a limit)",
    "E309": "the table would show a player cards they may not see",
    "E400": "a value shown to players who may not see it (a log line, prompt, label, var or amount)",
    # Warnings from `rulelang validate` (rulelang/lint.py): the rules load, but part of them
    # can never matter. They do not stop a game from loading.
    "W100": "warning: a procedure is never called from setup, flow, a trigger or a procedure they run",
    "W101": "warning: statements after `end game`, `fail` or `return` in the same block can never run",
    "W102": "warning: a kind has no cards",
    "W103": "warning: a zone is never named after its declaration",
    "W104": "warning: a token never moves (no `gain`, `pay` or `cost` names it)",
    "W105": "warning: a var is never read (it may be set, but nothing looks at it)",
    "W106": "warning: a trigger can never fire (its event is never raised by rules that run)",
    "W107": "warning: a modifier is never started",
    "W108": "warning: a modifier is started but never tested with `active(...)`",
    "W109": "warning: an option changes nothing (no rule reads it)",
    "W110": "warning: a define or const is never used",
    "W200": "warning: a log line, prompt or label runs under a condition its readers may not see",
}


@attrs.frozen
class Diagnostic:
    code: str
    message: str
    pos: Pos
    hint: str | None = None

    def __str__(self) -> str:
        return f"{self.pos}: {self.code} {self.message}"


class RuleError(Exception):
    """Rule files that cannot be loaded; carries every diagnostic found."""

    def __init__(self, diagnostics: list[Diagnostic], sources: dict[str, str] | None = None):
        self.diagnostics = sorted(diagnostics, key=lambda d: (d.pos.file, d.pos.line, d.pos.col))
        self.sources = sources or {}
        super().__init__(format_diagnostics(self.diagnostics, self.sources))


class RuleRuntimeError(Exception):
    """A rule file misbehaved while a game ran (a loop over budget, an impossible payment).

    Names the rule and its position; the state from before the failing action is kept.
    """

    def __init__(self, message: str, pos: Pos | None = None):
        self.pos = pos
        self.bare_message = message
        super().__init__(f"{pos}: {message}" if pos else message)


RULE_SUFFIXES = (".rules", ".scenario")  # the only files whose lines a diagnostic quotes


def _is_rule_file(path: str) -> bool:
    try:
        return path.endswith(RULE_SUFFIXES) and os.path.realpath(path).endswith(RULE_SUFFIXES)
    except (OSError, ValueError):
        return False


def _read_for_display(path: str) -> str | None:
    """A rule file's text to quote a line of, if it is a small regular file (never a device or a
    pipe) and a rule file, also once links are followed: a diagnostic never echoes a line of
    another file (a log naming /etc/passwd, a link named base.rules)."""
    try:
        if not _is_rule_file(path):
            return None
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size > 2_000_000:
            return None
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError, ValueError):
        return None


def format_diagnostic(diag: Diagnostic, sources: dict[str, str] | None = None,
                      _lines: dict[str, list[str] | None] | None = None) -> str:
    out = [str(diag)]
    cache = {} if _lines is None else _lines  # each file split into lines once, however many errors
    if diag.pos.file not in cache:
        text = (sources or {}).get(diag.pos.file) if _is_rule_file(diag.pos.file) else None
        if text is None:
            text = _read_for_display(diag.pos.file)
        cache[diag.pos.file] = text.splitlines() if text is not None else None
    lines = cache[diag.pos.file]
    if lines is not None and diag.pos.line >= 1:
        if diag.pos.line <= len(lines):
            line = lines[diag.pos.line - 1].replace("\t", " ")
            out.append(f"    {line}")
            out.append("    " + " " * max(diag.pos.col - 1, 0) + "^")
    if diag.hint:
        out.append(f"    hint: {diag.hint}")
    return "\n".join(out)


def format_diagnostics(diags: list[Diagnostic], sources: dict[str, str] | None = None) -> str:
    lines: dict[str, list[str] | None] = {}
    body = "\n".join(format_diagnostic(d, sources, lines) for d in diags)
    n = len(diags)
    return f"{body}\n{n} error{'s' if n != 1 else ''}" if diags else ""


def edit_distance(a: str, b: str) -> int:
    """Optimal string alignment distance: a swap of two neighbours counts as one edit."""
    if a == b:
        return 0
    rows = [list(range(len(b) + 1))]
    for i, ca in enumerate(a, 1):
        row = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            row[j] = min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                row[j] = min(row[j], rows[-2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]


MAX_SUGGEST_LENGTH = 64  # longer names are not typos worth a guess (and cost length^2 to compare)


def suggest(name: str, candidates) -> str | None:
    """The closest candidate by edit distance, if it is close enough to be a likely typo.

    Only names of at most MAX_SUGGEST_LENGTH characters are compared, and at most 2,000 of them,
    so a file of generated names cannot make the suggester work for minutes."""
    if not isinstance(name, str) or len(name) > MAX_SUGGEST_LENGTH:
        return None
    best, best_d = None, None
    limit = 1 if len(name) <= 3 else 2 if len(name) <= 8 else 3
    names = {c for c in set(candidates) if isinstance(c, str) and abs(len(c) - len(name)) <= limit}
    if len(names) > 2000:
        return None  # too many look-alikes (a generated file): no guess is worth the time
    for c in sorted(names):
        d = edit_distance(name.lower(), c.lower())
        if best_d is None or d < best_d:
            best, best_d = c, d
    if best is None or best_d is None:
        return None
    return best if best_d <= limit else None


def did_you_mean(name: str, candidates) -> str | None:
    s = suggest(name, candidates)
    return f"did you mean `{s}`?" if s else None
