"""Writes the reference pages that come from code: docs/builtins.md and docs/errors.md, and
the editors' TextMate grammar (editors/vscode/syntaxes/rulelang.tmLanguage.json).

Run `python -m rulelang.docgen` after changing the registry or the error codes; a test
fails while the pages are out of date.
"""

from __future__ import annotations

import sys
from pathlib import Path

from .diagnostics import CODES
from .registry import reference_markdown
from .tmgrammar import GRAMMAR_FILE, grammar_json


def errors_markdown() -> str:
    out = ["# Diagnostic codes", "", "Generated from `rulelang/diagnostics.py`; do not edit by hand.", "",
           "Every problem in a rule file is reported as `path:line:col: CODE message`, with the source",
           "line, a caret under the spot and, where one is likely, a `did you mean` hint. Codes are",
           "stable: tests and tools may rely on them. Codes starting with W are warnings from",
           "`rulelang validate` (see docs/testing.md): the rules load and run, but part of them can",
           "never matter.", "",
           "| code | meaning |", "| --- | --- |"]
    out += [f"| {code} | {text} |" for code, text in CODES.items()]
    out += ["", "Runtime errors (a rule that loops forever, pays what a player does not have, recurses",
            "without end) are not diagnostics: they are raised as `RuleRuntimeError` with the position",
            "of the rule, and the state from before the action is kept. See `docs/limits.md`.", ""]
    return "\n".join(out)


PAGES = {"builtins.md": reference_markdown, "errors.md": errors_markdown}


def main(argv: list[str] | None = None) -> int:
    docs = Path(__file__).resolve().parent.parent / "docs"
    for name, make in PAGES.items():
        (docs / name).write_text(make() + "\n", encoding="utf-8")
        print(f"wrote docs/{name}")
    target = docs.parent / GRAMMAR_FILE
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(grammar_json(), encoding="utf-8")
    print(f"wrote {GRAMMAR_FILE.as_posix()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
