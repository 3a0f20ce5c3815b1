"""`rulelang lsp`: the language server, started as an editor starts it (a subprocess over stdio),
on a copy of Off-Plan with mistakes planted in it."""

from __future__ import annotations

import asyncio
import re
import shutil
import sys
from pathlib import Path

import pytest
from conftest import ROOT

pytest.importorskip("pygls", reason="the lsp extra (pip install 'rulelang[lsp]') is part of the test extra")

from lsprotocol import types as lsp  # noqa: E402
from pygls.lsp.client import LanguageClient  # noqa: E402
from pygls.uris import from_fs_path  # noqa: E402

WAIT = 60  # seconds to wait for one answer: generous, the machine may be busy (no timing is asserted)


def _line_of(text: str, needle: str) -> int:
    """0-based line of the first line containing ``needle``."""
    return next(i for i, line in enumerate(text.splitlines()) if needle in line)


@pytest.fixture
def game(tmp_path: Path) -> Path:
    folder = tmp_path / "off_plan"
    shutil.copytree(ROOT / "games" / "off_plan", folder)
    return folder


class Session:
    """A client talking to `python -m interpreter lsp`, collecting published diagnostics."""

    def __init__(self) -> None:
        self.client = LanguageClient("rulelang-test", "1")
        self.diagnostics: dict[str, list[lsp.Diagnostic]] = {}
        self.changed = asyncio.Event()

        @self.client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(ls, params: lsp.PublishDiagnosticsParams) -> None:
            self.diagnostics[params.uri] = params.diagnostics
            self.changed.set()

    async def start(self, root: Path) -> None:
        await self.client.start_io(sys.executable, "-m", "interpreter", "lsp")
        await asyncio.wait_for(self.client.initialize_async(lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(), root_uri=from_fs_path(str(root)))), WAIT)
        self.client.initialized(lsp.InitializedParams())

    async def wait_for(self, condition) -> None:
        async def loop():
            while not condition():
                self.changed.clear()
                await self.changed.wait()
        await asyncio.wait_for(loop(), WAIT)

    async def stop(self) -> None:
        await asyncio.wait_for(self.client.shutdown_async(None), WAIT)
        self.client.exit(None)
        await asyncio.wait_for(self.client.stop(), WAIT)


def test_the_server_checks_hovers_jumps_completes_and_renames(game: Path):
    asyncio.run(_session(game))


async def _session(game: Path) -> None:
    turn = game / "turn.rules"
    scoring = game / "scoring.rules"
    text = turn.read_text().replace("        gain 1 funds to p\n", "        gian 1 funds to p\n", 1)
    turn.write_text(text)
    # A second mistake in another file of the game, which the editor has not opened.
    scoring.write_text(scoring.read_text().replace("icons_in(p.play_area)", "icons_in(p.play_aera)", 1))
    turn_uri, scoring_uri = from_fs_path(str(turn)), from_fs_path(str(scoring))
    s = Session()
    await s.start(game)
    try:
        s.client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
            uri=turn_uri, language_id="rulelang", version=1, text=text)))
        await s.wait_for(lambda: turn_uri in s.diagnostics and scoring_uri in s.diagnostics)

        # ---- diagnostics: the same code, position and did-you-mean as `rulelang check`
        [typo] = s.diagnostics[turn_uri]
        line = _line_of(text, "gian 1 funds")
        assert (typo.code, typo.severity) == ("E203", lsp.DiagnosticSeverity.Error)
        assert typo.range.start == lsp.Position(line=line, character=8)
        assert typo.range.end == lsp.Position(line=line, character=12)  # the word `gian`
        assert "unknown effect or procedure `gian`" in typo.message
        assert "did you mean `gain`?" in typo.message
        [elsewhere] = s.diagnostics[scoring_uri]
        assert elsewhere.code == "E202" and "did you mean `play_area`?" in elsewhere.message

        # ---- hover: a built-in's registry doc; an own name's declaration, type and comment
        draw_line = _line_of(text, "draw 1 from room_deck to p.hand")
        hover = await s.client.text_document_hover_async(lsp.HoverParams(
            text_document=lsp.TextDocumentIdentifier(uri=turn_uri),
            position=lsp.Position(line=draw_line, character=text.splitlines()[draw_line].index("draw") + 1)))
        assert "draw <count> from <source> to <zone>" in hover.contents.value
        assert "Move the first N cards of a zone to another" in hover.contents.value
        deck_col = text.splitlines()[draw_line].index("room_deck") + 2
        hover = await s.client.text_document_hover_async(lsp.HoverParams(
            text_document=lsp.TextDocumentIdentifier(uri=turn_uri), position=lsp.Position(line=draw_line,
                                                                                           character=deck_col)))
        components = (game / "components.rules").read_text()
        assert "zone room_deck" in hover.contents.value
        assert f"components.rules:{_line_of(components, 'zone room_deck') + 1}" in hover.contents.value

        # ---- go to definition: a procedure called here, declared in another file
        call_line = _line_of(text, "refill_markets")
        while text.splitlines()[call_line].startswith("procedure"):
            call_line += 1 + _line_of("\n".join(text.splitlines()[call_line + 1:]), "refill_markets")
        col = text.splitlines()[call_line].index("refill_markets") + 3
        found = await s.client.text_document_definition_async(lsp.DefinitionParams(
            text_document=lsp.TextDocumentIdentifier(uri=turn_uri), position=lsp.Position(line=call_line,
                                                                                           character=col)))
        [where] = found
        assert where.uri == turn_uri
        assert where.range.start.line == _line_of(text, "procedure refill_markets(")
        abilities = (game / "abilities.rules").read_text()
        use_line = _line_of(text, "use_room_ability")
        col = text.splitlines()[use_line].index("use_room_ability") + 1
        [where] = await s.client.text_document_definition_async(lsp.DefinitionParams(
            text_document=lsp.TextDocumentIdentifier(uri=turn_uri), position=lsp.Position(line=use_line,
                                                                                           character=col)))
        assert where.uri == from_fs_path(str(game / "abilities.rules"))
        assert where.range.start.line == _line_of(abilities, "procedure use_room_ability(")

        # ---- the outline: the file's procedures, in order
        symbols = await s.client.text_document_document_symbol_async(lsp.DocumentSymbolParams(
            text_document=lsp.TextDocumentIdentifier(uri=turn_uri)))
        names = [sym.name for sym in symbols]
        assert names.index("procedure play_turn") < names.index("procedure refill_markets")
        play = symbols[names.index("procedure play_turn")]
        assert play.selection_range.start == lsp.Position(line=_line_of(text, "procedure play_turn("),
                                                          character=len("procedure "))

        # ---- completion: after `p.` the player's zones and vars; at a statement, effects with signatures
        edited = text.replace("        gian 1 funds to p\n", "        gain 1 funds to p\n        move x to p.\n", 1)
        s.client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=turn_uri, version=2),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=edited)]))
        dot_line = _line_of(edited, "move x to p.")
        items = await s.client.text_document_completion_async(lsp.CompletionParams(
            text_document=lsp.TextDocumentIdentifier(uri=turn_uri),
            position=lsp.Position(line=dot_line, character=len("        move x to p."))))
        labels = {i.label for i in items.items}
        assert {"hand", "play_area", "funds"} <= labels
        assert "gain" not in labels and "refill_markets" not in labels
        items = await s.client.text_document_completion_async(lsp.CompletionParams(
            text_document=lsp.TextDocumentIdentifier(uri=turn_uri),
            position=lsp.Position(line=dot_line, character=len("        mo"))))
        by_label = {i.label: i for i in items.items}
        assert by_label["move"].detail == "move <cards> to <zone> [at <position>]"
        assert "refill_markets" in by_label and "let" in by_label

        # ---- rename: every use, in every file of the game
        decl_line = _line_of(text, "procedure refill_markets(")
        edit = await s.client.text_document_rename_async(lsp.RenameParams(
            text_document=lsp.TextDocumentIdentifier(uri=turn_uri),
            position=lsp.Position(line=decl_line, character=len("procedure ") + 2), new_name="refill_all"))
        expected = {}
        for f in sorted(game.glob("*.rules")):
            body = edited if f == turn else f.read_text()
            count = sum(line.split("#")[0].count("refill_markets") for line in body.splitlines())
            if count:
                expected[from_fs_path(str(f))] = count
        assert {uri: len(edits) for uri, edits in edit.changes.items()} == expected
        assert len(expected) >= 2
        assert all(e.new_text == "refill_all" for edits in edit.changes.values() for e in edits)

        # ---- as you type: fixing the typo clears it, and a new mistake shows up at once
        s.diagnostics.pop(turn_uri, None)
        fixed = edited.replace("        move x to p.\n", "        move c to p.hand\n", 1)
        s.client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=turn_uri, version=3),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=fixed)]))
        await s.wait_for(lambda: turn_uri in s.diagnostics)
        [unknown] = s.diagnostics[turn_uri]
        assert unknown.code == "E201" and "unknown name `c`" in unknown.message
        assert unknown.range.start == lsp.Position(line=dot_line, character=13)
    finally:
        await s.stop()


# ---- the answers themselves, without the protocol (fast)

from rulelang.lsp import analysis as a  # noqa: E402
from rulelang.symbols import norm  # noqa: E402

OFF_PLAN = ROOT / "games" / "off_plan"


@pytest.fixture(scope="module")
def index():
    return a.analyze(str(OFF_PLAN / "game.rules")).index


def _pos(path: Path, needle: str, offset: int = 0) -> tuple[str, int, int]:
    """(file, 1-based line, 1-based column) of the first ``needle`` in a file."""
    for i, line in enumerate(path.read_text().splitlines(), 1):
        if needle in line:
            return norm(str(path)), i, line.index(needle) + 1 + offset
    raise AssertionError(needle)


def test_a_clean_game_has_no_diagnostics_and_the_lint_warnings_show():
    # Implicit information flows (W200, docs/language.md) are the author's call and show as
    # warnings; nothing else is reported on a clean game.
    found = a.analyze(str(OFF_PLAN / "turn.rules")).diagnostics.values()
    assert [d for ds in found for d in ds if d.code != "W200"] == []
    lint = ROOT / "tests" / "fixtures" / "lint" / "game.rules"
    codes = {d.code for ds in a.analyze(str(lint)).diagnostics.values() for d in ds}
    assert {"W100", "W101", "W102", "W103", "W110"} <= codes


def test_a_house_rule_is_checked_with_the_game_it_extends():
    house = ROOT / "examples" / "house_rules" / "off_plan" / "flat_fee.rules"
    result = a.analyze(str(house), {norm(str(house)): house.read_text() + "\nconst x = unknown_thing\n"})
    [diag] = result.diagnostics[norm(str(house))]
    assert diag.code == "E201" and diag.pos.line == len(house.read_text().splitlines()) + 2
    assert norm(str(OFF_PLAN / "turn.rules")) in result.files


def test_hover_on_a_card_name_shows_its_rows(index):
    file, line, col = _pos(OFF_PLAN / "cards.rules", '"Bathroom"', 2)
    text = a.hover(index, file, line, col)
    assert text.startswith("card **Bathroom** (room, 4 rows)")
    assert 'cards room (name, equipment, ability, copies):' in text
    assert '"Bathroom", [bathroom], double_bathroom, 3' in text


def test_hover_on_an_own_name_shows_its_declaration_and_type(index):
    file, line, col = _pos(OFF_PLAN / "scoring.rules", "icons_of(p", 1)
    text = a.hover(index, file, line, col)
    assert "define icons_of(p: player) = icons_in(p.play_area)" in text
    assert "define: list:enum:icon" in text


def test_references_and_definition_of_an_enum_member(index):
    file, line, col = _pos(OFF_PLAN / "components.rules", "bathroom \"Bathroom\"", 1)
    [decl] = a.definition(index, file, line, col)
    assert (decl.file, decl.line) == (file, line)
    refs = a.references(index, file, line, col)
    uses = sum(len([w for w in re.findall(r"[\w.]+", re.sub(r'"[^"]*"', "", ln.split("#")[0])) if w == "bathroom"])
               for f in OFF_PLAN.glob("*.rules") for ln in f.read_text().splitlines())
    assert len(refs) == uses


def test_a_built_in_cannot_be_renamed_nor_a_name_taken_twice(index):
    file, line, col = _pos(OFF_PLAN / "turn.rules", "gain 1 funds", 1)
    with pytest.raises(a.RenameError, match="built-in"):
        a.rename(index, file, line, col, "earn")
    file, line, col = _pos(OFF_PLAN / "turn.rules", "procedure refill_markets", len("procedure ") + 1)
    with pytest.raises(a.RenameError, match="already the name"):
        a.rename(index, file, line, col, "play_turn")
    with pytest.raises(a.RenameError, match="not a name"):
        a.rename(index, file, line, col, "2fast")


def test_renaming_a_card_rewrites_the_strings_that_name_it(index):
    file, line, col = _pos(OFF_PLAN / "cards.rules", '"The Scout"', 2)
    edits = a.rename(index, file, line, col, "The Ranger")
    spans = [s for pieces in edits.values() for s, _ in pieces]
    total = sum(f.read_text().count('"The Scout"') for f in OFF_PLAN.glob("*.rules"))
    assert len(spans) == total


def test_the_outline_lists_procedures_and_card_rows(index):
    items = a.outline(index, norm(str(OFF_PLAN / "cards.rules")))
    rooms = next(i for i in items if i.name == "cards room")
    assert [c.name for c in rooms.children][:3] == ["Bedroom", "Bedroom", "Bedroom"]
    turn = [i.name for i in a.outline(index, norm(str(OFF_PLAN / "turn.rules")))]
    assert "procedure play_turn" in turn and "procedure refill_markets" in turn


def test_completion_in_a_string_offers_card_names_and_after_is_the_kinds(index):
    file = norm(str(OFF_PLAN / "turn.rules"))
    text = 'x\n    move card_named("Ba'
    labels = {i.label for i in a.completion(index, file, text, 2, len('    move card_named("Ba') + 1)}
    assert "Bathroom" in labels and "move" not in labels
    text = "x\n    if c is "
    labels = {i.label for i in a.completion(index, file, text, 2, len("    if c is ") + 1)}
    assert labels == {"house", "room", "trick", "character", "public_building", "event_card"}
