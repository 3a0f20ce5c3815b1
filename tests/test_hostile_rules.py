"""Hostile rule files (issue 7): whatever a rule file holds, loading it gives a game or a
RuleError with positions, never another exception or a hang.

Three sources of input:
- texts generated from our own grammar (``hypothesis.extra.lark.from_lark``), so they get
  past the parser and into the checker, the compiler and the machine;
- the real rule files of every game, mutated (tokens and lines deleted, duplicated, swapped),
  loaded through the whole pipeline from a copy of the game's folder;
- random bytes, random unicode, huge and deeply nested texts.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import tempfile
from pathlib import Path

import pytest
from hostile_helpers import (
    check_rule_error,
    game_dirs,
    loadable_games,
    no_hang,
    outcome,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.lark import from_lark

import interpreter
from interpreter.tools.mutate import random_mutation
from rulelang.diagnostics import RuleError
from rulelang.nodes import Module, Pos
from rulelang.parser import MAX_FILE_BYTES, _lark, parse_expr, parse_text

EXAMPLES = settings().max_examples  # from the profile (dev 15, ci 25, thorough 300)


def many(factor: int):
    """Settings for a cheap property: `factor` times the profile's number of examples."""
    return settings(max_examples=EXAMPLES * factor, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])


def write_game(folder: str, text: str | bytes, name: str = "game.rules") -> str:
    path = os.path.join(folder, name)
    with open(path, "wb") as f:
        f.write(text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass"))
    return folder


def load_outcome(text: str | bytes, seconds: float = 20) -> str:
    with tempfile.TemporaryDirectory() as folder, no_hang(seconds):
        return outcome(write_game(folder, text))


# ---- texts from the grammar ---------------------------------------------------------------
#
# from_lark draws each terminal from its regular expression, which does not give loadable
# text on its own: tokens must be separated, and the grammar's `%declare _INDENT _DEDENT`
# are made by the parser's post-lexer from the indentation after each newline. So every
# terminal is drawn with `explicit` strategies: keywords and symbols followed by a space,
# NAME/STRING/INT from pools that mean something to the checker, and _NL/_INDENT/_DEDENT
# as markers that `_layout` turns into newlines and the indentation of the following line.

NL, INDENT, DEDENT = "\x00N", "\x00I", "\x00D"
KEYWORDS = {t.pattern.value for t in _lark().terminals
            if type(t.pattern).__name__ == "PatternStr" and t.pattern.value.isalpha()}
POOL_NAMES = [
    "p", "c", "x", "n", "g", "hand", "deck", "market", "discard", "coin", "gem", "card", "color",
    "red", "blue", "value", "player", "int", "bool", "text", "public", "owner", "hidden", "slots",
    "refill", "supply", "sides", "normal", "black", "players", "count", "sum", "first", "range",
    "cards", "draw", "move", "gain", "pay", "shuffle", "flip", "top", "bottom", "box", "turn_start",
    "turn_end", "round_start", "round_end", "active_player", "player_count", "take", "lookup",
    "flatten", "bag", "tokens", "active", "rush", "kind", "zone", "define", "setup",
]
NAMES = st.one_of(
    st.sampled_from([n for n in POOL_NAMES if n not in KEYWORDS]),
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,12}", fullmatch=True).filter(lambda s: s not in KEYWORDS),
)
STRINGS = st.one_of(
    st.sampled_from([
        '"Tiny"', '"x"', '""', '"Take {c}"', '"{p} has {p.coin}"', '"{"', '"}"', '"{}"', '"{1 +}"',
        '"{{1}}"', '"\\n\\t\\""', '"game.rules"', '"parts.rules"', '"../outside.rules"',
        '"/etc/passwd"', '"/dev/zero"', '"."', '"sub/../game.rules"',
        '"{__import__(\\"os\\").system(\\"touch pwned\\")}"', '"{open(\\"x\\")}"',
    ]),
    st.from_regex(r'"([^"\\\n\x00]|\\[^\x00\n])*"', fullmatch=True),
)
INTS = st.one_of(st.integers(0, 12).map(str), st.integers(0, 10**30).map(str),
                 st.just("9" * 5000), st.just("00"))


def _spaced(s: str) -> str:
    return s + " "


def _explicit() -> dict:
    out = {}
    for t in _lark().terminals:
        if t.name in ("NAME", "STRING", "INT", "_NL", "COMMENT") or t.name.startswith("__IGNORE"):
            continue
        if type(t.pattern).__name__ == "PatternStr":
            out[t.name] = st.just(_spaced(t.pattern.value))
        else:
            out[t.name] = st.from_regex(t.pattern.to_regexp(), fullmatch=True).map(_spaced)
    out.update({
        "NAME": NAMES.map(_spaced), "STRING": STRINGS.map(_spaced), "INT": INTS.map(_spaced),
        "_NL": st.sampled_from([NL, "  # a remark" + NL]),
        "_INDENT": st.just(INDENT), "_DEDENT": st.just(DEDENT),
        # Ignored tokens may appear between any two tokens: spaces, a line continuation.
        # A comment there would swallow the rest of its line, so comments come with _NL.
        "COMMENT": st.just(""), "__IGNORE_0": st.sampled_from([" ", "\t", "\f"]),
        "__IGNORE_1": st.just("\\\n"),
    })
    return out


def _layout(raw: str) -> str:
    """Markers -> text: a newline, then the current indentation before the line's first token."""
    out: list[str] = []
    level, line_start = 0, True
    for piece in re.split("(\x00[NID])", raw):
        if piece == NL:
            out.append("\n")
            line_start = True
        elif piece == INDENT:
            level += 1
        elif piece == DEDENT:
            level -= 1
        elif piece:
            if line_start:
                piece = piece.lstrip(" \t\f")
                if not piece:
                    continue
                out.append("    " * level)
                line_start = False
            out.append(piece)
    return "".join(out)


RULE_FILES = from_lark(_lark(), start="start", explicit=_explicit()).map(_layout)
EXPRESSIONS = from_lark(_lark(), start="expr", explicit=_explicit()).map(_layout)
HEADER = 'game "Fuzz"\nplayers 1 to 4\n'
FOOTER = "flow:\n    pass\n"


@many(6)
@given(body=RULE_FILES, frame=st.sampled_from(["bare", "header", "both"]))
def test_grammar_generated_rule_files_load_or_give_rule_errors(body, frame):
    text = {"bare": body, "header": HEADER + body, "both": HEADER + body + "\n" + FOOTER}[frame]
    load_outcome(text)


@many(5)
@given(text=RULE_FILES)
def test_grammar_generated_texts_parse_or_give_rule_errors(text):
    try:
        with no_hang(20):
            module = parse_text(text, "fuzz.rules")
    except RuleError as err:
        check_rule_error(err)
    else:
        assert isinstance(module, Module)


@pytest.mark.slow  # drawing expressions alone from the grammar is slow (about 1 s each)
@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=EXPRESSIONS)
def test_grammar_generated_expressions_parse_or_give_rule_errors(text):
    try:
        with no_hang(20):
            parse_expr(text.replace("\n", " "), Pos("fuzz.rules", 1, 1))
    except RuleError as err:
        check_rule_error(err)


@pytest.mark.slow
@settings(max_examples=2000, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(body=RULE_FILES, frame=st.sampled_from(["bare", "header", "both"]))
def test_grammar_generated_rule_files_many(body, frame):
    text = {"bare": body, "header": HEADER + body, "both": HEADER + body + "\n" + FOOTER}[frame]
    load_outcome(text)


# ---- mutations of the real rule files -------------------------------------------------------

def _mutated_copy(game_dir: str, rng: random.Random, edits: int, folder: str) -> None:
    shutil.copytree(game_dir, folder, dirs_exist_ok=True)
    files = sorted(Path(folder).glob("*.rules"))
    for _ in range(rng.randint(1, 2)):
        f = rng.choice(files)
        f.write_text(random_mutation(f.read_text(encoding="utf-8"), rng, edits), encoding="utf-8")


GAMES = [str(p) for p in game_dirs()]


@pytest.mark.parametrize("game_dir", GAMES, ids=[Path(g).name for g in GAMES])
@settings(max_examples=max(4, EXAMPLES // 3), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), edits=st.integers(1, 4))
def test_mutated_rule_files_load_or_give_rule_errors(game_dir, seed, edits):
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        folder = os.path.join(tmp, "game")
        _mutated_copy(game_dir, rng, edits, folder)
        with no_hang(60):
            outcome(folder, seed=seed, actions=30)


@pytest.mark.slow
@pytest.mark.parametrize("game_dir", GAMES, ids=[Path(g).name for g in GAMES])
@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), edits=st.integers(1, 6))
def test_mutated_rule_files_many(game_dir, seed, edits):
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        folder = os.path.join(tmp, "game")
        _mutated_copy(game_dir, rng, edits, folder)
        with no_hang(60):
            outcome(folder, seed=seed, actions=60)


def test_the_games_under_attack_load_unmutated():
    # The mutation tests are only as good as the games they start from.
    assert len(loadable_games()) >= 2


# ---- random bytes, random text, huge and deep inputs ------------------------------------------


@many(4)
@given(data=st.binary(max_size=3000))
def test_random_bytes_give_rule_errors(data):
    result = load_outcome(data)
    assert result in ("rule error", "game")


@many(4)
@given(text=st.text(max_size=2000))
def test_random_unicode_files_give_rule_errors(text):
    load_outcome(text)


@many(10)
@given(text=st.text(alphabet=st.characters(codec="utf-8"), max_size=500)
       | st.lists(st.sampled_from(list('()[]{}:,."\\#\n\t \r\f=+-*/%<>!|') + ["if", "x", "1", "not ",
                                                                                 "choose", "    "]),
                  max_size=400).map("".join))
def test_random_texts_parse_or_give_rule_errors(text):
    try:
        with no_hang(20):
            parse_text(text, "t.rules")
    except RuleError as err:
        check_rule_error(err)


def test_a_file_over_the_size_limit_is_refused_quickly(tmp_path):
    (tmp_path / "game.rules").write_bytes(b"#" * (10 * 1024 * 1024))
    with no_hang(10), pytest.raises(RuleError, match="the limit is") as err:
        import interpreter
        interpreter.load(str(tmp_path))
    assert err.value.diagnostics[0].code == "E100"


BIG_FILES = [
    lambda n: 'game "Big"\nplayers 1 to 2\nflow:\n' + "    pass\n" * n,
    lambda n: 'game "Big"\nplayers 1 to 2\nflow:\n' + "    log \"{1 + 2}\"\n" * n,
    lambda n: 'game "Big"\nplayers 1 to 2\n' + "".join(f"var v{i}: int = {i}\n" for i in range(n)) + "flow:\n    pass\n",
    lambda n: 'game "Big"\nplayers 1 to 2\nenum e: ' + ", ".join(f"m{i}" for i in range(n)) + "\nflow:\n    pass\n",
    lambda n: 'game "Big"\nplayers 1 to 2\n' + "".join(f"var v{i}: int = q{i}\n" for i in range(n)),
    lambda n: "".join(f"@{i}\n" for i in range(n)),
]
BIG_IDS = ["passes", "templates", "vars", "enum", "unknown names", "bad characters"]


def _big_file(make, size: int) -> str:
    """The text `make(n)` for about the largest n that stays within `size` bytes."""
    per_item = (len(make(1000)) - len(make(1))) / 999
    n = int(size / per_item)
    while len(text := make(n).encode()) > size:
        n = int(n * 0.95)
    return text.decode()


@pytest.mark.parametrize("make", BIG_FILES, ids=BIG_IDS)
def test_big_files_load_in_reasonable_time(tmp_path, make):
    (tmp_path / "game.rules").write_text(_big_file(make, 100_000))
    with no_hang(30):
        outcome(str(tmp_path))


@pytest.mark.slow  # parsing reads about 200 KB a second: each of these takes 10 s or more
@pytest.mark.parametrize("make", BIG_FILES, ids=BIG_IDS)
def test_files_just_under_the_size_limit_load_without_hanging(tmp_path, make):
    (tmp_path / "game.rules").write_text(_big_file(make, MAX_FILE_BYTES))
    with no_hang(120):
        outcome(str(tmp_path))


DEEP = {
    "brackets": lambda n: "flow:\n    log \"{" + "(" * n + "1" + ")" * n + "}\"\n",
    "lists": lambda n: "const k = " + "[" * n + "]" * n + "\nflow:\n    pass\n",
    "minus signs": lambda n: "const k = " + "-" * n + "1\nflow:\n    pass\n",
    "nots": lambda n: "var b: bool = " + "not " * n + "true\nflow:\n    pass\n",
    "sums": lambda n: "const k = " + "1 + " * n + "1\nflow:\n    pass\n",
    "attributes": lambda n: "flow:\n    let x = first(players)" + ".coin" * n + "\n",
    "conditionals": lambda n: "const k = " + "1 if true else " * n + "1\nflow:\n    pass\n",
    "blocks": lambda n: "flow:\n" + "".join("    " * (i + 1) + "if true:\n" for i in range(n))
    + "    " * (n + 1) + "pass\n",
    "tab blocks": lambda n: "flow:\n" + "".join("\t" * (i + 1) + "if true:\n" for i in range(n))
    + "\t" * (n + 1) + "pass\n",
    "indexes": lambda n: "const k = [1]" + "[0]" * n + "\nflow:\n    pass\n",
    "calls": lambda n: "const k = " + "abs(" * n + "1" + ")" * n + "\nflow:\n    pass\n",
    "defines": lambda n: "".join(f"define d{i} = d{i + 1} + 1\n" for i in range(n))
    + f"define d{n} = 1\nflow:\n    log \"{{d0}}\"\n",
    "consts": lambda n: "".join(f"const c{i} = c{i + 1} + 1\n" for i in range(n))
    + f"const c{n} = 1\nflow:\n    log \"{{c0}}\"\n",
    "procedures": lambda n: "".join(f"procedure f{i}(p: player):\n    f{i + 1} p\n" for i in range(n))
    + f"procedure f{n}(p: player):\n    pass\nflow:\n    f0 first(players)\n",
}


@pytest.mark.parametrize("depth", [10, 150, 3000, pytest.param(100_000, marks=pytest.mark.slow)])
@pytest.mark.parametrize("shape", list(DEEP))
def test_deep_nesting_loads_or_gives_a_rule_error(tmp_path, shape, depth):
    if "blocks" in shape and depth > 500:  # indentation grows with the square of the depth
        text = 'game "Deep"\nplayers 1 to 2\n' + "x" * (MAX_FILE_BYTES + 1)  # stands for its size
    else:
        text = 'game "Deep"\nplayers 1 to 2\n' + DEEP[shape](depth)
    if len(text.encode()) > MAX_FILE_BYTES:
        # too big to read: refused before parsing, with the size in the message
        (tmp_path / "game.rules").write_text(text)
        with pytest.raises(RuleError) as err:
            interpreter.load(str(tmp_path))
        assert err.value.diagnostics[0].code == "E100", str(err.value)
        return
    (tmp_path / "game.rules").write_text(text)
    with no_hang(60):
        result = outcome(str(tmp_path))
    if depth <= 10 and shape not in ("attributes", "indexes"):  # those two do not type-check
        assert result == "game", result


def test_no_rule_file_can_run_python_or_touch_files(tmp_path):
    marker = tmp_path / "pwned"
    attempts = [
        f'log "{{__import__(\\"os\\").system(\\"touch {marker}\\")}}"',
        f'log "{{open(\\"{marker}\\", \\"w\\")}}"',
        'log "{().__class__.__bases__[0].__subclasses__()}"',
        'log "{players.__class__}"',
        'let x = eval("1")',
        'log "{exec}"',
    ]
    for i, line in enumerate(attempts):
        folder = tmp_path / f"g{i}"
        folder.mkdir()
        (folder / "game.rules").write_text(f'game "Evil"\nplayers 1 to 2\nflow:\n    {line}\n')
        result = outcome(str(folder))
        assert result == "rule error", (line, result)
    assert not marker.exists()




def test_a_fail_without_a_message_still_says_what_happened(tmp_path):
    """`fail ""` (found by the grammar-generated files) stops the game with an error that says
    something, at the statement's position: an error message is never empty."""
    from interpreter.engine.runtime import RuleRuntimeError

    (tmp_path / "game.rules").write_text('game "G"\nflow:\n    fail "  "\n')
    with pytest.raises(RuleRuntimeError) as info:
        interpreter.load(str(tmp_path), cache=False).new_game(players=1, seed=0)
    assert info.value.pos.line == 3 and "`fail` that gives no message" in info.value.bare_message
