"""`rulelang lsp`: the language server over stdio, on pygls.

Keeps the text of the files the editor has open, re-checks a game a moment after its files
change (``rulelang.lsp.analysis``), publishes the diagnostics of every file of the game, and
answers hover, definition, references, rename, completion and outline requests. Positions
are converted here between LSP's 0-based lines and UTF-16 columns and our 1-based ones.
"""

from __future__ import annotations

import asyncio
import logging
import re

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from .. import __name__ as _package
from ..diagnostics import Diagnostic
from ..symbols import Index, Span, norm
from . import analysis as a

DEBOUNCE_SECONDS = 0.3  # a pause in typing this long starts a check
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[A-Za-z_][A-Za-z0-9_]*|\S')

_COMPLETION_KINDS = {
    "function": lsp.CompletionItemKind.Function, "keyword": lsp.CompletionItemKind.Keyword,
    "variable": lsp.CompletionItemKind.Variable, "constant": lsp.CompletionItemKind.Constant,
    "member": lsp.CompletionItemKind.EnumMember, "field": lsp.CompletionItemKind.Field,
    "class": lsp.CompletionItemKind.Class, "event": lsp.CompletionItemKind.Event,
    "value": lsp.CompletionItemKind.Value, "text": lsp.CompletionItemKind.Text,
    "module": lsp.CompletionItemKind.Module,
}
_SYMBOL_KINDS = {
    "function": lsp.SymbolKind.Function, "class": lsp.SymbolKind.Class, "field": lsp.SymbolKind.Field,
    "variable": lsp.SymbolKind.Variable, "constant": lsp.SymbolKind.Constant, "enum": lsp.SymbolKind.Enum,
    "member": lsp.SymbolKind.EnumMember, "event": lsp.SymbolKind.Event, "module": lsp.SymbolKind.Module,
    "property": lsp.SymbolKind.Property,
}


class RulesServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("rulelang", _version())
        self.analyses: dict[str, a.Analysis] = {}  # entry file -> its latest analysis
        self.indexes: dict[str, Index] = {}  # entry file -> the latest index that could be built
        self.published: set[str] = set()  # files with diagnostics on the editor's screen
        self.pending: dict[str, asyncio.TimerHandle] = {}

    # ---- texts and positions
    def overlay(self) -> dict[str, str]:
        return {norm(to_fs_path(uri) or uri): doc.source for uri, doc in self.workspace.text_documents.items()}

    def text_of(self, file: str) -> str:
        for uri, doc in self.workspace.text_documents.items():
            if norm(to_fs_path(uri) or uri) == file:
                return doc.source
        for index in self.indexes.values():
            if file in index.sources:
                return index.sources[file]
        try:
            with open(file, encoding="utf-8") as fh:
                return fh.read()
        except OSError:
            return ""

    def index_for(self, file: str) -> Index | None:
        entry = norm(a.game_entry(file))
        index = self.indexes.get(entry)
        if index is None or file not in index.sources:
            self.check(file)
            index = self.indexes.get(entry)
        return index

    # ---- checking
    def check(self, file: str) -> None:
        """Re-check the game of ``file`` and every other game checked so far that reads it."""
        overlay = self.overlay()
        entries = {norm(a.game_entry(file))} | {e for e, an in self.analyses.items() if file in an.files}
        for entry in entries:
            path = file if entry == norm(a.game_entry(file)) else self.analyses[entry].entry
            if path != file and self.analyses[entry].extra:
                path = self.analyses[entry].extra[0]
            try:
                result = a.analyze(path, overlay)
            except Exception as err:  # a bug of ours: say so, keep serving, and keep the last answers
                logging.getLogger(__name__).exception("checking %s failed", path)
                self.window_show_message(lsp.ShowMessageParams(
                    type=lsp.MessageType.Error, message=f"rulelang could not check {path}: {err}"))
                continue
            self.analyses[entry] = result
            if result.index is not None:
                self.indexes[entry] = result.index
        self.publish()

    def schedule(self, file: str) -> None:
        old = self.pending.pop(file, None)
        if old is not None:
            old.cancel()
        loop = asyncio.get_running_loop()
        self.pending[file] = loop.call_later(DEBOUNCE_SECONDS, self._run_pending, file)

    def _run_pending(self, file: str) -> None:
        self.pending.pop(file, None)
        self.check(file)

    def publish(self) -> None:
        merged: dict[str, dict[tuple, Diagnostic]] = {}
        for an in self.analyses.values():
            for file, diags in an.diagnostics.items():
                bucket = merged.setdefault(file, {})
                for d in diags:
                    bucket[(d.code, d.message, d.pos.line, d.pos.col)] = d
        for file in sorted(set(merged) | self.published):
            diags = list(merged.get(file, {}).values())
            text = self.text_of(file)
            self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
                uri=from_fs_path(file) or file, diagnostics=[to_lsp_diagnostic(d, text) for d in diags]))
        self.published = {f for f, d in merged.items() if d}


def _version() -> str:
    try:
        from importlib.metadata import version

        return version(_package)
    except Exception:
        return "unknown"


# ---- position conversion


def _utf16(line_text: str, chars: int) -> int:
    return len(line_text[:chars].encode("utf-16-le")) // 2


def _chars(line_text: str, units: int) -> int:
    count = 0
    for i, ch in enumerate(line_text):
        if count >= units:
            return i
        count += 2 if ord(ch) > 0xFFFF else 1
    return len(line_text)


def _line_text(text: str, line: int) -> str:
    lines = text.splitlines()
    return lines[line - 1] if 0 < line <= len(lines) else ""


def to_lsp_position(text: str, line: int, col: int) -> lsp.Position:
    return lsp.Position(line=max(line - 1, 0), character=_utf16(_line_text(text, line), max(col - 1, 0)))


def from_lsp_position(text: str, pos: lsp.Position) -> tuple[int, int]:
    line = pos.line + 1
    return line, _chars(_line_text(text, line), pos.character) + 1


def span_range(text: str, span: Span) -> lsp.Range:
    return lsp.Range(start=to_lsp_position(text, span.line, span.col),
                     end=to_lsp_position(text, span.line, span.end))


def to_lsp_diagnostic(d: Diagnostic, text: str) -> lsp.Diagnostic:
    """A diagnostic underlines the word, string or character at its position."""
    col = max(d.pos.col, 1)
    token = _TOKEN.match(_line_text(text, d.pos.line)[col - 1:])
    width = len(token.group(0)) if token else 1
    severity = lsp.DiagnosticSeverity.Warning if d.code.startswith("W") else lsp.DiagnosticSeverity.Error
    message = d.message + (f"\n{d.hint}" if d.hint else "")
    return lsp.Diagnostic(range=span_range(text, Span(d.pos.file, max(d.pos.line, 1), col, col + width)),
                          message=message, severity=severity, code=d.code, source="rulelang")


# ---- the server and its features

server = RulesServer()


def _file(uri: str) -> str:
    return norm(to_fs_path(uri) or uri)


def _where(ls: RulesServer, uri: str, position: lsp.Position) -> tuple[str, Index | None, int, int]:
    file = _file(uri)
    line, col = from_lsp_position(ls.text_of(file), position)
    return file, ls.index_for(file), line, col


def _location(ls: RulesServer, span: Span) -> lsp.Location:
    return lsp.Location(uri=from_fs_path(span.file) or span.file, range=span_range(ls.text_of(span.file), span))


@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: RulesServer, params: lsp.DidOpenTextDocumentParams) -> None:
    ls.check(_file(params.text_document.uri))


@server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
async def did_change(ls: RulesServer, params: lsp.DidChangeTextDocumentParams) -> None:
    ls.schedule(_file(params.text_document.uri))


@server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: RulesServer, params: lsp.DidSaveTextDocumentParams) -> None:
    ls.check(_file(params.text_document.uri))


@server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: RulesServer, params: lsp.DidCloseTextDocumentParams) -> None:
    ls.check(_file(params.text_document.uri))  # the file on disk counts again


@server.feature(lsp.TEXT_DOCUMENT_HOVER)
def on_hover(ls: RulesServer, params: lsp.HoverParams) -> lsp.Hover | None:
    file, index, line, col = _where(ls, params.text_document.uri, params.position)
    if index is None:
        return None
    text = a.hover(index, file, line, col)
    if text is None:
        return None
    occ = index.at(file, line, col)
    rng = span_range(ls.text_of(file), occ.span) if occ else None
    return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text), range=rng)


@server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
def on_definition(ls: RulesServer, params: lsp.DefinitionParams) -> list[lsp.Location]:
    file, index, line, col = _where(ls, params.text_document.uri, params.position)
    return [_location(ls, s) for s in a.definition(index, file, line, col)] if index else []


@server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
def on_references(ls: RulesServer, params: lsp.ReferenceParams) -> list[lsp.Location]:
    file, index, line, col = _where(ls, params.text_document.uri, params.position)
    if index is None:
        return []
    spans = a.references(index, file, line, col, params.context.include_declaration)
    return [_location(ls, s) for s in spans]


@server.feature(lsp.TEXT_DOCUMENT_PREPARE_RENAME)
def on_prepare_rename(ls: RulesServer, params: lsp.PrepareRenameParams) -> lsp.Range | None:
    file, index, line, col = _where(ls, params.text_document.uri, params.position)
    if index is None:
        return None
    try:
        span = a.rename_target(index, file, line, col)
    except a.RenameError as err:
        raise ValueError(str(err)) from None
    return span_range(ls.text_of(file), span)


@server.feature(lsp.TEXT_DOCUMENT_RENAME)
def on_rename(ls: RulesServer, params: lsp.RenameParams) -> lsp.WorkspaceEdit | None:
    file, index, line, col = _where(ls, params.text_document.uri, params.position)
    if index is None:
        return None
    try:
        edits = a.rename(index, file, line, col, params.new_name)
    except a.RenameError as err:
        raise ValueError(str(err)) from None
    changes = {}
    for f, pieces in edits.items():
        text = ls.text_of(f)
        changes[from_fs_path(f) or f] = [lsp.TextEdit(range=span_range(text, s), new_text=new) for s, new in pieces]
    return lsp.WorkspaceEdit(changes=changes)


@server.feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=[".", '"']))
def on_completion(ls: RulesServer, params: lsp.CompletionParams) -> lsp.CompletionList:
    file, index, line, col = _where(ls, params.text_document.uri, params.position)
    if index is None:
        return lsp.CompletionList(is_incomplete=False, items=[])
    items = a.completion(index, file, ls.text_of(file), line, col)
    return lsp.CompletionList(is_incomplete=False, items=[
        lsp.CompletionItem(label=i.label, kind=_COMPLETION_KINDS.get(i.kind), detail=i.detail or None,
                           documentation=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=i.doc) if i.doc
                           else None)
        for i in items])


@server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
def on_outline(ls: RulesServer, params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol]:
    file = _file(params.text_document.uri)
    index = ls.index_for(file)
    if index is None:
        return []
    text = ls.text_of(file)

    def convert(item: a.OutlineItem) -> lsp.DocumentSymbol:
        end_line = _line_text(text, item.end)
        rng = lsp.Range(start=lsp.Position(line=item.start - 1, character=0),
                        end=lsp.Position(line=item.end - 1, character=_utf16(end_line, len(end_line))))
        sel = span_range(text, item.selection) if item.selection else lsp.Range(start=rng.start, end=rng.start)
        return lsp.DocumentSymbol(name=item.name, kind=_SYMBOL_KINDS.get(item.kind, lsp.SymbolKind.Variable),
                                  range=rng, selection_range=sel,
                                  children=[convert(c) for c in item.children] or None)

    return [convert(i) for i in a.outline(index, file)]


def main() -> int:
    """Serve over stdin and stdout until the editor says exit."""
    logging.basicConfig(level=logging.WARNING)
    server.start_io()
    return 0
