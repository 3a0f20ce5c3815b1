"""The TextMate grammar of editors/vscode: up to date with the language, and, run through VS Code's
own engine (vscode-textmate + vscode-oniguruma, installed by .ci/run into tests/textmate), it
colours every rule file of the repository as the language's own lexer reads it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from functools import lru_cache

import pytest
from conftest import ROOT

from rulelang import registry
from rulelang.parser import _lark
from rulelang.tmgrammar import GRAMMAR_FILE, TYPE_WORDS, grammar_json

ENGINE = ROOT / "tests" / "textmate"
RULE_FILES = sorted(str(p) for folder in ("games", "examples", "tests/fixtures")
                    for ext in ("*.rules", "*.scenario") for p in (ROOT / folder).rglob(ext))


def test_the_grammar_file_is_generated_from_the_language():
    assert (ROOT / GRAMMAR_FILE).read_text(encoding="utf-8") == grammar_json(), \
        "run `python -m rulelang.docgen` after changing grammar.lark, the registry or rulelang/tmgrammar.py"


@lru_cache(maxsize=1)
def _install_engine() -> str | None:
    """Why the TextMate engine cannot run, or None when it can. Node present but the engine not yet
    installed (a fresh checkout): install it from the lock file, as .ci/run does, so a missing
    `npm ci` is never a silent skip. Only a machine without node skips."""
    if shutil.which("node") is None:
        return "node is not installed: the TextMate grammar is tested only where node is (CI has it)"
    if (ENGINE / "node_modules" / "vscode-textmate").is_dir():
        return None
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail("node is installed but npm is not: install npm, then (cd tests/textmate && npm ci)")
    done = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=ENGINE, capture_output=True, text=True,
                          timeout=600)
    if done.returncode != 0:
        pytest.fail(f"(cd tests/textmate && npm ci) failed:\n{done.stdout}{done.stderr}")
    return None


@lru_cache(maxsize=1)
def _tokens() -> dict:
    out = subprocess.run(["node", str(ENGINE / "tokenize.js"), str(ROOT / GRAMMAR_FILE), *RULE_FILES],
                         capture_output=True, text=True, check=True, timeout=300)
    return json.loads(out.stdout)


@pytest.fixture
def tokens() -> dict:
    missing = _install_engine()
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"{missing}; .ci/run installs it")
        pytest.skip(missing)
    return _tokens()


def _scope_at(lines: list, line: int, col: int) -> list[str]:
    """The scopes of the TextMate token covering a 1-based line and column."""
    for start, end, *scopes in lines[line - 1]:
        if start <= col - 1 < end:
            return scopes
    return []


def _lexed(text: str):
    """The language's own lexer over a file: (type, text, line, column) of every token."""
    for tok in _lark().lex(text, dont_ignore=True):
        yield tok.type, str(tok), tok.line, tok.column


# Words the lexer calls keywords in every context but the parser reads as built-in names
# (`first(players)`), or as a plain name inside a declaration's header (`option`, `game`).
_ALSO_NAMES = {b.name for b in registry.NAMES + registry.FUNCTIONS}
_DECLARING = {"PROCEDURE", "DEFINE", "EVENT", "ZONE", "VAR", "CONST", "ENUM", "KIND", "TOKEN", "MODIFIER"}
_SCENARIO_WORDS = {"seed"}  # the grammar reads `seed 3` as a name and a number; it reads as a keyword


def test_every_rule_file_is_coloured_as_the_language_reads_it(tokens):
    assert len(RULE_FILES) >= 40
    problems = []
    for path in RULE_FILES:
        text = open(path, encoding="utf-8").read()
        lines = tokens[path]
        previous, previous_opens = "", False
        for kind, word, line, col in _lexed(text):
            if kind.startswith("__IGNORE"):  # spaces
                continue
            # a declaring word opens its line (after `replace`); elsewhere (`returns zone`) it is a type
            opener = text.splitlines()[line - 1][:col - 1].split() in ([], ["replace"])
            declared = previous in _DECLARING and previous_opens
            after_remove = previous == "REMOVE"  # `remove trigger x`: what is removed reads as a keyword
            after_dot, previous, previous_opens = previous == "DOT", kind, opener
            scopes = " ".join(_scope_at(lines, line, col))
            if kind == "STRING":
                ok = "string.quoted.double" in scopes
            elif kind == "_NL" and "#" in word:  # a comment ends a line
                offset = word.index("#")
                before = word[:offset]
                line2 = line + before.count("\n")
                col2 = (offset - before.rfind("\n")) if "\n" in before else col + offset
                scopes = " ".join(_scope_at(lines, line2, col2))
                ok = "comment.line" in scopes
            elif kind == "INT":
                ok = "constant.numeric" in scopes or "string" in scopes
            elif declared:  # the name a declaration gives, whatever else the word means
                ok = "declaration" in scopes or "entity.name" in scopes
            elif kind == "NAME":
                ok = (not any(s in scopes for s in ("keyword", "comment", "string.quoted")) or word in _SCENARIO_WORDS
                      or after_remove and "keyword" in scopes)
                if word in registry.FUNCTION_NAMES and text.splitlines()[line - 1][col - 1 + len(word):][:1] == "(":
                    ok = ok and "support.function.builtin" in scopes
            elif kind.isalpha() and kind.isupper() and word.isalpha():  # a keyword of grammar.lark
                ok = ("keyword" in scopes or after_dot and "property" in scopes
                      or (word in TYPE_WORDS and "storage.type" in scopes) or (word in ("true", "false", "none") and "constant.language" in scopes)
                      or (word in _ALSO_NAMES and ("variable.language" in scopes or "support.function" in scopes))
                      # a line's label (`cards:` in a score block): the parser reads a name there
                      or (opener and text.splitlines()[line - 1][col - 1 + len(word):].lstrip().startswith(":")
                          and not any(s in scopes for s in ("comment", "string.quoted"))))
            else:
                continue
            if not ok:
                problems.append(f"{os.path.relpath(path, ROOT)}:{line}:{col} {kind} {word!r}: {scopes}")
    assert not problems, f"{len(problems)} tokens coloured wrongly, first: " + "\n".join(problems[:20])


def test_a_snippet_gets_the_scopes_an_author_expects(tokens, tmp_path):
    snippet = tmp_path / "snippet.rules"
    snippet.write_text(
        '# a comment\n'
        'procedure take(p: player):\n'
        '    draw 2 from deck to p.hand  # two cards\n'
        '    log "{p} takes {count(p.hand)} cards"\n'
        '    if not has_room(p) and p.funds >= 3:\n'
        '        end game\n'
        'procedure pile(p: player) returns zone:\n'
        '    return p.hand\n'
        'kind room:\n'
        '    text: "A room"\n'
        'remove trigger turn_start\n')
    lines = json.loads(subprocess.run(
        ["node", str(ENGINE / "tokenize.js"), str(ROOT / GRAMMAR_FILE), str(snippet)],
        capture_output=True, text=True, check=True, timeout=300).stdout)[str(snippet)]
    source = snippet.read_text().splitlines()

    def scope(line: int, word: str, nth: int = 0) -> str:
        col = source[line - 1].index(word)
        for _ in range(nth):
            col = source[line - 1].index(word, col + 1)
        return _scope_at(lines, line, col + 1)[-1]

    assert scope(1, "#") == "comment.line.number-sign.rulelang"
    assert scope(2, "procedure") == "keyword.other.declaration.rulelang"
    assert scope(2, "take") == "entity.name.function.rulelang"
    assert scope(2, "player") == "storage.type.rulelang"
    assert scope(3, "draw") == "support.function.effect.rulelang"
    assert scope(3, "2") == "constant.numeric.integer.rulelang"
    assert scope(3, "from") == "keyword.other.clause.rulelang"
    assert scope(3, "hand") == "variable.other.property.rulelang"
    assert scope(3, "# two") == "comment.line.number-sign.rulelang"
    assert scope(4, "log") == "keyword.other.rulelang"
    assert scope(4, "takes") == "string.quoted.double.rulelang"
    assert scope(4, "count") == "support.function.builtin.rulelang"
    assert scope(4, "p", 1) == "meta.embedded.expression.rulelang"
    assert scope(5, "not") == "keyword.operator.logical.rulelang"
    assert scope(5, "has_room") == "entity.name.function.call.rulelang"
    assert scope(5, ">=") == "keyword.operator.rulelang"
    assert scope(6, "end") == "keyword.other.rulelang"
    assert scope(7, "returns") == "keyword.other.clause.rulelang"
    assert scope(7, "zone") == "storage.type.rulelang"
    assert scope(8, "return") == "keyword.control.rulelang"
    assert scope(10, "text") == "keyword.other.rulelang"
    assert scope(11, "remove") == "keyword.other.declaration.rulelang"
    assert scope(11, "trigger") == "keyword.other.rulelang"
