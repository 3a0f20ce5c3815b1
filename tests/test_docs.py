"""The docs show rule text that works: every ```rules block in docs/ is checked, not only parsed.

How a block is checked (docs/language.md, "How examples are checked", says the same to authors):
- a block that declares a whole game (`game` and `flow:`) is checked alone;
- a block whose first line is a comment naming a file of the repository (`# games/off_plan/turn.rules`,
  maybe followed by words such as "(abridged)") is an excerpt of that file: its lines of rule text must
  be lines of the file, in the same order (comments aside), and it is checked with the game the file
  belongs to. A block that `extends` a game is a house rule or a scenario file: the game is loaded from
  the path it names (relative to the named file) and the block comes after it as written. Any other
  excerpt is laid over the game of its folder, its declarations replacing the game's of the same name
  (an excerpt may leave lines out of a procedure). Every block under "## The four games in rulelang"
  must be such an excerpt;
- a block that declares its own enums or kinds is checked on its own, inside an empty game;
- any other block is checked on top of docs/examples_prelude.rules, its declarations replacing the
  prelude's of the same name;
- a block made only of statements is checked as the body of a procedure `example(p: player)`.
```rules-planned blocks show what is not built yet: they are not checked.
"""

from __future__ import annotations

import functools
import re
import textwrap
from pathlib import Path

import pytest
from conftest import ROOT

from rulelang import nodes as n
from rulelang.checker import check
from rulelang.diagnostics import RuleError
from rulelang.parser import entry_file, load_sources, parse_text

PRELUDE_PATH = ROOT / "docs" / "examples_prelude.rules"
EMPTY_GAME = 'game "Example"\nplayers 2 to 5\nflow:\n    pass\n'
FOUR_GAMES = "The four games in rulelang"
# A comment naming a file: `# games/off_plan/turn.rules` or `# examples/... (abridged)`.
NAMES_A_FILE = re.compile(r"#\s*((?:games|examples|tests)/[\w./-]+\.(?:rules|scenario))\b")


def _blocks():
    out = []
    for path in sorted((ROOT / "docs").glob("*.md")):
        text = path.read_text(encoding="utf-8")
        h2 = h3 = ""
        for m in re.finditer(r"^(##+) ([^\n]*)$|^```rules\n(.*?)^```", text, re.S | re.M):
            if m.group(1):
                if len(m.group(1)) == 2:
                    h2, h3 = m.group(2), ""
                elif len(m.group(1)) == 3:
                    h3 = m.group(2)
                continue
            line = text[: m.start()].count("\n") + 2  # the block's first line of rule text
            out.append((f"docs/{path.name}:{line}", m.group(3), h2, h3))
    return out


BLOCKS = _blocks()


def _module(block: str, where: str) -> n.Module:
    try:
        return parse_text(block, where)
    except RuleError:  # statements alone: the body of a procedure
        return parse_text("procedure example(p: player):\n" + textwrap.indent(block, "    "), where)


def _overlay(base: list[n.Module], block: n.Module) -> list[n.Module]:
    """The block's declarations over the base's: a name declared again replaces the base's."""
    named = {getattr(d, "name", None) for m in base for d in m.decls} - {None}
    decls = []
    for d in block.decls:
        if isinstance(d, (n.ReplaceDecl, n.GameDecl, n.Players)):
            decls.append(d)
        elif getattr(d, "name", None) in named or isinstance(d, (n.SetupDecl, n.FlowDecl, n.WinnersDecl)):
            decls.append(n.ReplaceDecl(d, d.pos))
        else:
            decls.append(d)
    return base + [n.Module(block.path, tuple(decls), block.reading)]


def _code_lines(text: str) -> list[str]:
    """The lines of rule text, without comments, blank lines and trailing spaces."""
    out = []
    for line in text.splitlines():
        code = re.sub(r'\s*#[^"]*$', "", line).rstrip()  # a comment after the code (no quote in it)
        if code.strip() and not code.strip().startswith("#"):
            out.append(code)
    return out


def _is_excerpt(block: str, text: str) -> str | None:
    """None when every line of rule text of the block is a line of the file, in order; else the first that is not."""
    lines = iter(_code_lines(text))
    for want in _code_lines(block):
        if not any(line == want for line in lines):
            return want
    return None


@functools.cache
def _load(path: str) -> tuple[tuple, dict]:
    """A game's parsed files, read once for all the blocks that use it."""
    modules, sources = load_sources(path)
    return tuple(modules), sources


def _game_folder(file: Path) -> Path:
    """The game a file of a game belongs to: the nearest folder upwards with a game.rules."""
    for folder in file.parents:
        if (folder / "game.rules").exists():
            return folder
    raise AssertionError(f"{file} belongs to no game folder")


def check_excerpt(where: str, block: str, named: str) -> None:
    file = ROOT / named
    assert file.is_file(), f"{where}: the block names {named}, which does not exist"
    missing = _is_excerpt(block, file.read_text(encoding="utf-8"))
    assert missing is None, f"{where}: the block is not an excerpt of {named}: this line is not in it, in order:\n{missing}"
    module = _module(block, where)
    extends = [d for d in module.decls if isinstance(d, n.Extends)]
    if extends:
        base, sources = _load(entry_file(str(file.parent / extends[0].path)))
        rest = n.Module(module.path, tuple(d for d in module.decls if not isinstance(d, n.Extends)), ())
        check([*base, rest], {**sources, where: block})
    else:
        base, sources = _load(str(_game_folder(file)))
        check(_overlay(list(base), module), {**sources, where: block})


def check_block(where: str, block: str, h2: str = "", h3: str = "") -> None:
    first = block.lstrip().splitlines()[0] if block.strip() else ""
    named = NAMES_A_FILE.match(first)
    if named:
        check_excerpt(where, block, named.group(1))
        return
    assert h2 != FOUR_GAMES, f"{where}: a block about the four games must be an excerpt naming its file"
    module = _module(block, where)
    kinds = {type(d) for d in module.decls}
    if n.GameDecl in kinds and n.FlowDecl in kinds:
        check([module], {where: block})
        return
    if n.EnumDecl in kinds or n.KindDecl in kinds:
        base, sources = [parse_text(EMPTY_GAME, "empty.rules")], {"empty.rules": EMPTY_GAME}
    else:
        prelude = PRELUDE_PATH.read_text(encoding="utf-8")
        base, sources = [parse_text(prelude, str(PRELUDE_PATH))], {str(PRELUDE_PATH): prelude}
    check(_overlay(list(base), module), {**sources, where: block})


def test_the_prelude_checks():
    prelude = PRELUDE_PATH.read_text(encoding="utf-8")
    check([parse_text(prelude, str(PRELUDE_PATH))], {str(PRELUDE_PATH): prelude})


@pytest.mark.parametrize("where, block, h2, h3", BLOCKS, ids=[b[0] for b in BLOCKS] or None)
def test_rules_block_checks(where, block, h2, h3):
    if h2 == FOUR_GAMES and h3.startswith("Streets") and not (ROOT / "games" / "streets").is_dir():
        pytest.skip("games/streets is not written yet: its excerpts are checked once it is")
    check_block(where, block, h2, h3)


def test_an_excerpt_must_be_true_to_its_file():
    """The excerpt rule can fail: a line changed from the file is caught."""
    with pytest.raises(AssertionError, match="not an excerpt"):
        check_excerpt("test", "# games/off_plan/turn.rules\nprocedure refill_room_market():\n"
                              "    while count(room_market) < 5 and room_cards_left > 0 max 4:\n", "games/off_plan/turn.rules")


def test_a_wrong_example_fails():
    """The harness is not lenient: an example using a function that does not exist is an error."""
    with pytest.raises(RuleError, match="E203"):
        check_block("test", "procedure example2(p: player):\n    set p.temps = put(p.temps, 1)\n")


def test_the_docs_have_blocks_of_every_kind():
    """The harness is used: whole games, excerpts and prelude examples all occur."""
    firsts = [b.lstrip().splitlines()[0] for _, b, _, _ in BLOCKS if b.strip()]
    assert any(NAMES_A_FILE.match(f) for f in firsts)
    assert any(f.startswith("game ") for f in firsts)
    assert len(BLOCKS) > 40


def test_every_keyword_of_the_grammar_is_documented():
    """A word the grammar accepts appears, in code, in docs/language.md (scenario steps in
    docs/testing.md), so the reference covers every construct."""
    grammar = re.sub(r"//[^\n]*", "", (ROOT / "rulelang" / "grammar.lark").read_text(encoding="utf-8"))
    words = set(re.findall(r'"([a-z_]+)"', grammar))
    reference = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    testing = (ROOT / "docs" / "testing.md").read_text(encoding="utf-8")
    undocumented = sorted(w for w in words if not any(re.search(rf"`[^`\n]*\b{w}\b[^`\n]*`", text)
                                                      for text in (reference, testing)))
    assert undocumented == []
    assert len(words) > 60


def test_every_built_in_is_named_in_the_reference():
    """docs/builtins.md lists the registry (generated); docs/language.md must name every entry too,
    so an author reading the reference learns that it exists."""
    from rulelang import registry

    reference = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    entries = registry.EFFECTS + registry.FUNCTIONS + registry.NAMES
    missing = sorted(b.name for b in entries if f"`{b.name}" not in reference)
    assert missing == []
    props = list(registry.ZONE_PROPERTIES) + list(registry.TOKEN_PROPERTIES)
    assert sorted(p for p in props if not re.search(rf"`[^`\n]*\b{p}\b", reference)) == []
