"""The TextMate grammar of rule files (`.rules`, `.scenario`), for editors' highlighting.

Written to ``editors/vscode/syntaxes/rulelang.tmLanguage.json`` by ``python -m rulelang.docgen``
from the same sources as the language itself: the keywords from ``grammar.lark``, the
effects, functions and names from the registry. A test checks the file is up to date, and
tokenizes every rule file of the repository with VS Code's own TextMate engine.
"""

from __future__ import annotations

import json
from pathlib import Path

from . import registry
from .symbols import KEYWORDS

SCOPE = "source.rulelang"
GRAMMAR_FILE = Path("editors") / "vscode" / "syntaxes" / "rulelang.tmLanguage.json"

DECLARATION_WORDS = ("game", "players", "include", "extends", "option", "enum", "kind", "cards", "zone",
                     "token", "var", "const", "define", "event", "modifier", "procedure", "setup", "flow", "on",
                     "score", "tiebreak", "winners", "invariant", "require", "remove", "replace", "scenario",
                     "table")
CONTROL_WORDS = ("if", "elif", "else", "for", "in", "while", "max", "repeat", "turn", "round", "simultaneously",
                 "choose", "option", "may", "when", "cost", "once", "per", "by", "prompt", "label", "where",
                 "given", "play", "expect", "decision", "return")
STATEMENT_WORDS = ("let", "set", "pass", "end", "game", "log", "fail", "emit", "start", "until", "next", "of",
                   "list", "bag", "seed", "face",
                   # the items of a `table:` section (`score` too, an item there), and `table` itself
                   # where it is used as a zone's name
                   "table", "score", "section", "board", "row", "places", "counter", "track", "markers", "grid", "line", "note")
CLAUSE_WORDS = ("to", "from", "onto", "into", "at", "as", "with", "side", "returns", "unknown", "among")
OPERATOR_WORDS = ("and", "or", "not", "is")
CONSTANT_WORDS = ("true", "false", "none")
# What a house rule's `remove WHAT NAME` takes away (rulelang.checker.Checker.remove).
REMOVABLE = ("kind", "zone", "procedure", "option", "modifier", "define", "var", "const", "invariant", "score",
             "card", "cards", "trigger")
TYPE_WORDS = registry.TYPE_NAMES + ("zone",)  # a zone is a value too: `p: zone`, `returns zone`


def _words(words) -> str:
    return r"\b(?:" + "|".join(sorted(set(words), key=lambda w: (-len(w), w))) + r")\b"


def grammar() -> dict:
    """The grammar as a dict, ready to be written as JSON."""
    effects = sorted(b.name for b in registry.EFFECTS)
    functions = sorted(b.name for b in registry.FUNCTIONS)
    names = sorted(b.name for b in registry.NAMES)
    covered = set(DECLARATION_WORDS + CONTROL_WORDS + STATEMENT_WORDS + CLAUSE_WORDS + OPERATOR_WORDS
                  + CONSTANT_WORDS + TYPE_WORDS)
    missing = KEYWORDS - covered
    if missing:  # a keyword added to grammar.lark must get a colour here
        raise ValueError(f"keywords of grammar.lark without a scope: {sorted(missing)}")
    name = r"[A-Za-z_][A-Za-z0-9_]*"
    return {
        "$schema": "https://raw.githubusercontent.com/martinring/tmlanguage/master/tmlanguage.json",
        "name": "rulelang",
        "scopeName": SCOPE,
        "fileTypes": ["rules", "scenario"],
        "comment": "Generated from rulelang/tmgrammar.py by `python -m rulelang.docgen`; do not edit by hand.",
        "patterns": [{"include": "#comment"}, {"include": "#declaration"}, {"include": "#expression"}],
        "repository": {
            "comment": {"name": "comment.line.number-sign.rulelang", "match": "#.*$"},
            "declaration": {"patterns": [
                {"match": rf"^(?:(replace)\s+)?(procedure|define|event)\s+({name})",
                 "captures": {"1": {"name": "keyword.other.declaration.rulelang"},
                              "2": {"name": "keyword.other.declaration.rulelang"},
                              "3": {"name": "entity.name.function.rulelang"}}},
                {"match": rf"^(?:(replace)\s+)?(zone|var|const|enum|kind|token|modifier|option)\s+({name})",
                 "captures": {"1": {"name": "keyword.other.declaration.rulelang"},
                              "2": {"name": "keyword.other.declaration.rulelang"},
                              "3": {"name": "variable.other.declaration.rulelang"}}},
                {"match": r"^(remove)\s+" + "(" + _words(REMOVABLE) + ")",
                 "captures": {"1": {"name": "keyword.other.declaration.rulelang"},
                              "2": {"name": "keyword.other.rulelang"}}},
                {"match": rf"^(cards)\s+({name})",
                 "captures": {"1": {"name": "keyword.other.declaration.rulelang"},
                              "2": {"name": "entity.name.type.rulelang"}}},
                {"match": rf"^(?:(replace)\s+)?(on)\s+({name})",
                 "captures": {"1": {"name": "keyword.other.declaration.rulelang"},
                              "2": {"name": "keyword.other.declaration.rulelang"},
                              "3": {"name": "entity.name.function.event.rulelang"}}},
                {"match": r"^(?:(replace)\s+)?(" + _words(DECLARATION_WORDS) + ")",
                 "captures": {"1": {"name": "keyword.other.declaration.rulelang"},
                              "2": {"name": "keyword.other.declaration.rulelang"}}},
            ]},
            "expression": {"patterns": [
                {"include": "#comment"},
                {"include": "#string"},
                {"match": r"\b[0-9]+\b", "name": "constant.numeric.integer.rulelang"},
                # a procedure's result type, before `returns` is taken as a plain keyword
                {"match": rf"\b(returns)\s+(?:(list|bag)\s+(of)\s+)?({_words(TYPE_WORDS)})",
                 "captures": {"1": {"name": "keyword.other.clause.rulelang"}, "2": {"name": "keyword.other.rulelang"},
                              "3": {"name": "keyword.other.rulelang"}, "4": {"name": "storage.type.rulelang"}}},
                {"match": _words(CONSTANT_WORDS), "name": "constant.language.rulelang"},
                {"match": _words(OPERATOR_WORDS), "name": "keyword.operator.logical.rulelang"},
                {"match": _words(CONTROL_WORDS), "name": "keyword.control.rulelang"},
                {"match": _words(STATEMENT_WORDS), "name": "keyword.other.rulelang"},
                {"match": _words(CLAUSE_WORDS), "name": "keyword.other.clause.rulelang"},
                # a kind's `text:` line: the type word `text` used as a keyword
                {"match": r"^\s+(text)(?=\s*:)", "captures": {"1": {"name": "keyword.other.rulelang"}}},
                # a type after `name:`
                {"match": rf"(?<=:)\s*(?:(list|bag)\s+(of)\s+)?({_words(TYPE_WORDS)})",
                 "captures": {"1": {"name": "keyword.other.rulelang"}, "2": {"name": "keyword.other.rulelang"},
                              "3": {"name": "storage.type.rulelang"}}},
                {"match": rf"^\s*({_words(effects)})",
                 "captures": {"1": {"name": "support.function.effect.rulelang"}}},
                {"match": rf"{_words(functions)}(?=\s*\()", "name": "support.function.builtin.rulelang"},
                {"match": _words(names), "name": "variable.language.rulelang"},
                {"match": rf"\b{name}(?=\s*\()", "name": "entity.name.function.call.rulelang"},
                {"match": r"\+=|-=|==|!=|<=|>=|<|>|\+|-|\*|/|%|=", "name": "keyword.operator.rulelang"},
                {"match": rf"(?<=\.){name}", "name": "variable.other.property.rulelang"},
                {"match": r"[:,.()\[\]{}|]", "name": "punctuation.rulelang"},
            ]},
            "string": {
                "name": "string.quoted.double.rulelang",
                "begin": '"', "end": '"|$',
                "beginCaptures": {"0": {"name": "punctuation.definition.string.begin.rulelang"}},
                "endCaptures": {"0": {"name": "punctuation.definition.string.end.rulelang"}},
                "patterns": [
                    {"match": r"\\.", "name": "constant.character.escape.rulelang"},
                    {"name": "meta.interpolation.rulelang", "begin": r"\{", "end": r"\}|(?=\")",
                     "beginCaptures": {"0": {"name": "punctuation.section.interpolation.begin.rulelang"}},
                     "endCaptures": {"0": {"name": "punctuation.section.interpolation.end.rulelang"}},
                     "contentName": "meta.embedded.expression.rulelang",
                     "patterns": [{"include": "#expression"}]},
                ],
            },
        },
    }


def grammar_json() -> str:
    return json.dumps(grammar(), indent=2) + "\n"
