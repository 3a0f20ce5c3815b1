"""What the language server knows about a game, in plain data and 1-based positions.

``analyze`` loads a game the way ``rulelang check`` does (the same parser, checker and lint),
reading open files from the editor's unsaved text, and returns every diagnostic by file and
an ``Index`` of names (``rulelang.symbols``). The functions below answer the editor's
questions from it: hover, definition, references, rename, completion and outline. Nothing
here knows about the protocol; ``rulelang.lsp.server`` turns these answers into LSP messages.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import attrs

from .. import nodes as n
from .. import registry
from ..checker import BUILTIN_EVENTS, check_all
from ..diagnostics import Diagnostic, RuleError
from ..lint import lint
from ..parser import MAX_FILE_BYTES, load_sources, parse_text, read_source
from ..symbols import KEYWORDS, NAME_RE, Index, Span, build_index, card_name_column, doc_comment, norm


@attrs.define
class Analysis:
    entry: str  # the file the game is loaded from
    extra: list[str]  # a file of the folder that the entry does not include, loaded after it
    files: list[str]  # every file of the game (normalized paths)
    diagnostics: dict[str, list[Diagnostic]]  # file -> errors and warnings
    index: Index | None  # None when a file cannot be parsed


class RenameError(Exception):
    """A rename that cannot be done, with the reason shown to the author."""


def game_entry(path: str) -> str:
    """The file a rule file's game loads from: the folder's game.rules, or the file itself
    (a scenario file, a house rule or a new card, which `extends` its game)."""
    p = Path(path)
    if p.suffix == ".scenario":
        return str(p)
    folder_entry = p.parent / "game.rules"
    return str(folder_entry) if folder_entry.is_file() else str(p)


def _reader(overlay: dict[str, str]):
    def read(path: str) -> str:
        text = overlay.get(norm(path))
        if text is None:
            return read_source(path)
        if len(text.encode("utf-8")) > MAX_FILE_BYTES:
            raise RuleError([Diagnostic("E100", f"the file is over the limit of {MAX_FILE_BYTES} bytes",
                                        n.Pos(path, 1, 1))])
        return text
    return read


_PARSED: dict[tuple[str, str], n.Module] = {}  # (path, text) -> its syntax tree; trees are immutable
_PARSED_MAX = 256  # files remembered; a game has at most 64


def _parse(text: str, path: str) -> n.Module:
    """``parse_text``, remembered: while an author types, only the file being typed in changes."""
    key = (path, text)
    module = _PARSED.get(key)
    if module is None:
        module = parse_text(text, path)  # a syntax error raises and is not remembered
        if len(_PARSED) >= _PARSED_MAX:
            _PARSED.pop(next(iter(_PARSED)))
        _PARSED[key] = module
    return module


def analyze(path: str, overlay: dict[str, str] | None = None) -> Analysis:
    """Check the game that the rule file at ``path`` belongs to, as ``rulelang check`` would,
    plus the lint warnings; ``overlay`` maps files (normalized) to unsaved text."""
    overlay = overlay or {}
    read = _reader(overlay)
    entry = game_entry(path)
    extra: list[str] = []
    for _ in range(2):
        try:
            modules, sources = load_sources(entry, extra, read=read, parse=_parse)
        except RuleError as err:
            diags, sources, index = list(err.diagnostics), dict(err.sources), None
        else:
            program, diags = check_all(modules)
            if not diags:
                diags = lint(program)
            index = build_index(modules, sources, program)
        files = sorted({norm(f) for f in sources} | {norm(path)})
        if norm(path) in {norm(f) for f in sources} or extra:
            break
        extra = [path]  # a file of the game's folder that game.rules does not include
    by_file: dict[str, list[Diagnostic]] = {f: [] for f in files}
    for d in diags:
        by_file.setdefault(norm(d.pos.file), []).append(d)
    return Analysis(entry, extra, files, by_file, index)


# ---------------------------------------------------------------- hover


def _type_text(t: n.TypeRef) -> str:
    return t.name if t.form == "name" else f"{t.form} of {t.name}"


def _line(index: Index, span: Span) -> str:
    lines = index.sources.get(span.file, "").splitlines()
    return lines[span.line - 1].strip() if 0 < span.line <= len(lines) else ""


def _shown(path: str) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def _builtin_hover(name: str) -> str:
    b = registry.BY_NAME[name]
    out = [f"```rules\n{registry.signature(b)}\n```", f"built-in {b.kind}: {b.doc}"]
    if b.params:
        out.append("\n".join(f"- `{p.name}` ({p.type}{', optional' if p.optional else ''}): {p.doc}"
                             for p in b.params))
    return "\n\n".join(out)


def _what(index: Index, category: str, node, owner: str | None, name: str) -> str:
    """A short description of a declared name: its category and type."""
    p = index.program
    types = p.types if p is not None else {}
    if category == "var" and isinstance(node, n.VarDecl):
        per = f" per {node.per}" if node.per else ""
        return f"var{per}: {_type_text(node.type)}"
    if category in ("const", "define") and node is not None:
        t = types.get(id(node.value))
        return f"{category}: {t}" if t else category
    if category == "zone" and isinstance(node, n.ZoneDecl):
        props = ", ".join(f"{k} {v}" if v is not None else k for k, v, _ in node.props)
        return f"zone{' per ' + node.per if node.per else ''} ({props})"
    if category == "field" and isinstance(node, n.Field):
        return f"field of kind `{owner}`: {_type_text(node.type)}"
    if category == "member":
        return f"a member of enum `{owner}`"
    if category == "choice":
        return f"a value of option `{owner}`"
    if category == "side":
        return f"a side of token `{owner}`"
    return category


def hover(index: Index, file: str, line: int, col: int) -> str | None:
    """Markdown for the name under a position, or None."""
    occ = index.at(file, line, col)
    if occ is None:
        return None
    kind, _, name = occ.key.partition(":")
    if kind == "builtin" and name in registry.BY_NAME:
        return _builtin_hover(name)
    if kind == "builtin_event":
        params = ", ".join(f"{p}: {t}" for p, t in BUILTIN_EVENTS.get(name, ()))
        return f"```rules\non {name}({params})\n```\n\nbuilt-in event, raised by the engine"
    if kind == "card":
        return card_hover(index, name)
    decls = index.declarations(occ.key)
    if kind == "local":
        local = name.rpartition(":")[2]
        t = index.types.get((file, line, occ.span.col))
        if t is None and decls:
            d = decls[0].span
            t = index.types.get((d.file, d.line, d.col))
        return f"```rules\n{local}\n```\n\nlocal name" + (f": {t}" if t else "")
    if not decls:
        return None
    first = decls[0]
    out = [f"```rules\n{_line(index, first.span)}\n```", _what(index, first.category, first.node, first.owner, name)]
    docs = []
    own_doc = getattr(first.node, "doc", "")
    if isinstance(own_doc, str) and own_doc:
        docs.append(own_doc)
    comment = doc_comment(index.sources.get(first.span.file, ""), first.span.line)
    if comment:
        docs.append(comment)
    out += docs
    where = ", ".join(f"{_shown(s.span.file)}:{s.span.line}" for s in decls)
    out.append(f"declared at {where}")
    return "\n\n".join(out)


def card_hover(index: Index, name: str) -> str:
    """A card's rows in its table: the header, then each row as written."""
    decls = index.declarations(f"card:{name}")
    if not decls:
        return f"no card named {name!r}"
    out = []
    for d in decls:
        row = d.node
        table = next((t for mods in index.top_level.values() for t in mods
                      if isinstance(getattr(t, "decl", t), n.CardsDecl) and row in getattr(t, "decl", t).rows), None)
        header = f"cards {d.owner} ({', '.join(table.columns)}):" if table is not None else f"cards {d.owner}:"
        out.append(f"```rules\n{header}\n    {_line(index, d.span)}\n```\n{_shown(d.span.file)}:{d.span.line}")
    copies = len(decls)
    return f"card **{name}** ({d.owner}, {copies} row{'s' if copies != 1 else ''})\n\n" + "\n\n".join(out)


# ---------------------------------------------------------------- definition, references, rename


def definition(index: Index, file: str, line: int, col: int) -> list[Span]:
    occ = index.at(file, line, col)
    if occ is None:
        return []
    return [s.span for s in index.declarations(occ.key) if s.span is not None]


def references(index: Index, file: str, line: int, col: int, include_decls: bool = True) -> list[Span]:
    occ = index.at(file, line, col)
    if occ is None:
        return []
    return [o.span for o in index.references(occ.key, include_decls)]


def rename_target(index: Index, file: str, line: int, col: int) -> Span:
    """The name to rename under a position; raises RenameError when it cannot be renamed."""
    occ = index.at(file, line, col)
    if occ is None:
        raise RenameError("there is no name of the game here")
    if occ.key.startswith(("builtin:", "builtin_event:")):
        raise RenameError(f"`{occ.key.partition(':')[2]}` is a built-in of the language and cannot be renamed")
    return occ.span


def rename(index: Index, file: str, line: int, col: int, new_name: str) -> dict[str, list[tuple[Span, str]]]:
    """file -> [(span, new text)] for every occurrence of the name under a position."""
    rename_target(index, file, line, col)
    occ = index.at(file, line, col)
    assert occ is not None
    kind, _, old = occ.key.partition(":")
    if kind == "card":
        if not new_name or any(ch in new_name for ch in '"\\\n{}'):
            raise RenameError("a card's name is text without quotes, backslashes, braces or line breaks")
        if index.declarations(f"card:{new_name}"):
            raise RenameError(f"there is already a card named {new_name!r}")
    else:
        if not NAME_RE.match(new_name):
            raise RenameError(f"`{new_name}` is not a name: letters, digits and _, not starting with a digit")
        if new_name in KEYWORDS or new_name in registry.BY_NAME:
            raise RenameError(f"`{new_name}` is a word of the language")
        if kind != "local" and any(k.partition(":")[2] == new_name for k in index.symbols
                                   if not k.startswith(("local:", "card:"))):
            raise RenameError(f"`{new_name}` is already the name of something in this game")
    edits: dict[str, list[tuple[Span, str]]] = {}
    for o in index.references(occ.key):
        edits.setdefault(o.span.file, []).append((o.span, new_name))
    return edits


# ---------------------------------------------------------------- completion


@attrs.frozen
class Item:
    label: str
    kind: str  # function, keyword, variable, constant, member, field, class, event, value, text, module
    detail: str = ""
    doc: str = ""


STATEMENT_WORDS = ("let", "set", "if", "elif", "else", "for", "while", "repeat", "choose", "may", "emit",
                   "start", "log", "fail", "pass", "end game", "turn", "round", "simultaneously")
DECLARATION_WORDS = ("game", "players", "include", "extends", "option", "enum", "kind", "cards", "zone",
                     "token", "var", "const", "define", "event", "modifier", "procedure", "setup", "flow",
                     "on", "score", "tiebreak", "winners", "invariant", "require", "remove", "replace",
                     "scenario")


def _in_string(prefix: str) -> bool:
    quotes = 0
    i = 0
    while i < len(prefix):
        ch = prefix[i]
        if ch == "\\" and quotes % 2:
            i += 2
            continue
        if ch == "#" and quotes % 2 == 0:
            return False
        if ch == '"':
            quotes += 1
        i += 1
    return quotes % 2 == 1


def _builtin_item(b: registry.Builtin) -> Item:
    kind = {"effect": "function", "function": "function", "name": "constant"}[b.kind]
    return Item(b.name, kind, registry.signature(b), b.doc)


def _decl_item(index: Index, sym) -> Item:
    kinds = {"procedure": "function", "define": "function", "zone": "variable", "var": "variable",
             "const": "constant", "member": "member", "choice": "member", "enum": "class", "kind": "class",
             "token": "value", "side": "value", "modifier": "value", "event": "event", "option": "variable",
             "field": "field", "card": "text"}
    label = sym.name
    detail = _what(index, sym.category, sym.node, sym.owner, sym.name)
    node = sym.node
    if sym.category in ("procedure", "define", "event") and getattr(node, "params", None) is not None:
        params = ", ".join(f"{p.name}: {_type_text(p.type)}" for p in node.params)
        detail = f"{sym.category} {sym.name}({params})" + (f" -> {detail.split(': ', 1)[1]}" if ": " in detail else "")
    doc = getattr(node, "doc", "") if isinstance(getattr(node, "doc", ""), str) else ""
    doc = doc or doc_comment(index.sources.get(sym.span.file, ""), sym.span.line)
    return Item(label, kinds.get(sym.category, "value"), detail, doc)


def _enclosing(index: Index, file: str, line: int):
    best = None
    for d in index.top_level.get(file, ()):
        if d.pos.line <= line:
            best = getattr(d, "decl", d)
    return best


def completion(index: Index, file: str, text: str, line: int, col: int) -> list[Item]:
    """The names that may be written at a position of ``text`` (the file as the editor has it)."""
    lines = text.splitlines()
    current = lines[line - 1] if 0 < line <= len(lines) else ""
    prefix = current[:max(col - 1, 0)]
    syms = index.globals_named()
    by_cat: dict[str, list] = {}
    for sym in syms.values():
        by_cat.setdefault(sym.category, []).append(sym)

    def items(*cats: str, where=None) -> list[Item]:
        return [_decl_item(index, s) for c in cats for s in by_cat.get(c, ()) if where is None or where(s)]

    if _in_string(prefix):
        return items("card")
    if re.search(r"\.\s*\w*$", prefix):
        def per(s) -> bool:
            return getattr(s.node, "per", None) is not None
        return (items("field") + items("var", "zone", where=per) + items("token")
                + [Item("name", "field", "field of every card: text", "The card's name.")])
    word_before = re.search(r"(\w+)\s+\w*$", prefix)
    before = word_before.group(1) if word_before else ""
    if before == "is" or re.search(r"\bis\s+not\s+\w*$", prefix):
        return items("kind")
    if before == "start":
        return items("modifier")
    if before == "emit":
        return items("event")
    if re.match(r"^on\s+\w*$", prefix):
        return items("event") + [Item(e, "event", "built-in event") for e in BUILTIN_EVENTS]
    if re.match(r"^\w*$", prefix):
        return [Item(w, "keyword", "declaration") for w in DECLARATION_WORDS]
    here = _enclosing(index, file, line)
    local_items = []
    if here is not None:
        tag = f"local:{file}:{here.pos.line}:"
        for key, decls in index.symbols.items():
            if key.startswith(tag):
                d = decls[0].span
                t = index.types.get((d.file, d.line, d.col), "")
                local_items.append(Item(key[len(tag):], "variable", f"local{': ' + t if t else ''}"))
    if re.match(r"^\s+\w*$", prefix):
        return ([Item(w, "keyword", "statement") for w in STATEMENT_WORDS]
                + [_builtin_item(b) for b in registry.EFFECTS] + items("procedure") + local_items)
    def shared(s) -> bool:
        return getattr(s.node, "per", None) is None
    return ([_builtin_item(b) for b in registry.FUNCTIONS + registry.NAMES] + local_items
            + items("define", "const", "member", "choice", "enum", "option", "modifier", "kind", "side")
            + items("var", "zone", where=shared) + items("token"))


# ---------------------------------------------------------------- outline


@attrs.frozen
class OutlineItem:
    name: str
    kind: str  # function, class, field, variable, constant, enum, member, event, module, property
    start: int  # first line (1-based)
    end: int  # last line
    selection: Span | None
    children: tuple = ()


def _decl_name(d) -> tuple[str, str, str | None]:
    """(shown name, kind, the declared name to select) of a top-level declaration."""
    if isinstance(d, n.ProcDecl):
        return f"procedure {d.name}", "function", d.name
    if isinstance(d, n.DefineDecl):
        return f"define {d.name}", "function", d.name
    if isinstance(d, n.TriggerDecl):
        return f"on {d.event}", "event", d.event
    if isinstance(d, n.CardsDecl):
        return f"cards {d.kind}", "class", d.kind
    if isinstance(d, n.KindDecl):
        return f"kind {d.name}", "class", d.name
    if isinstance(d, n.EnumDecl):
        return f"enum {d.name}", "enum", d.name
    if isinstance(d, n.ScenarioDecl):
        return f"scenario {d.name!r}", "module", None
    if isinstance(d, n.InvariantDecl):
        return f"invariant {d.text!r}", "property", None
    if isinstance(d, n.GameDecl):
        return f"game {d.title!r}", "module", None
    if isinstance(d, (n.SetupDecl, n.FlowDecl, n.ScoreDecl, n.TiebreakDecl, n.WinnersDecl)):
        word = type(d).__name__[:-4].lower()
        return word, "function" if word in ("setup", "flow") else "property", None
    name = getattr(d, "name", None)
    word = type(d).__name__.removesuffix("Decl").lower()
    kinds = {"option": "property", "zone": "variable", "token": "variable", "var": "variable",
             "const": "constant", "event": "event", "modifier": "property"}
    if name is not None:
        return f"{word} {name}", kinds.get(word, "variable"), name if word != "remove" else None
    return word, "property", None


def outline(index: Index, file: str) -> list[OutlineItem]:
    """The declarations of one file, with card rows, enum members and fields inside theirs."""
    decls = index.top_level.get(file, [])
    text = index.sources.get(file, "")
    lines = text.splitlines()
    out = []
    for i, outer in enumerate(decls):
        d = getattr(outer, "decl", outer) if isinstance(outer, n.ReplaceDecl) else outer
        start = outer.pos.line
        end = (decls[i + 1].pos.line - 1) if i + 1 < len(decls) else len(lines)
        while end > start and (not lines[end - 1].strip() or lines[end - 1].lstrip().startswith("#")):
            end -= 1
        shown, kind, selected = _decl_name(d)
        if isinstance(outer, n.ReplaceDecl):
            shown = "replace " + shown
        selection = _find(index, file, start, selected) if selected else None
        children: list[OutlineItem] = []
        if isinstance(d, n.CardsDecl):
            i_name = card_name_column(d)
            for row in d.rows:
                if i_name is not None and i_name < len(row.values):
                    value = getattr(row.values[i_name], "value", None)
                    if isinstance(value, str):
                        lit = row.values[i_name].pos
                        span = Span(file, lit.line, lit.col + 1, lit.col + 1 + len(value))
                        children.append(OutlineItem(value, "constant", row.pos.line, row.pos.line, span))
        elif isinstance(d, n.EnumDecl):
            for m, mpos in zip(d.members, d.member_pos, strict=False):
                children.append(OutlineItem(m, "member", mpos.line, mpos.line,
                                            Span(file, mpos.line, mpos.col, mpos.col + len(m))))
        elif isinstance(d, n.KindDecl):
            for f in d.fields:
                children.append(OutlineItem(f.name, "field", f.pos.line, f.pos.line,
                                            Span(file, f.pos.line, f.pos.col, f.pos.col + len(f.name))))
        out.append(OutlineItem(shown, kind, start, max(end, start), selection, tuple(children)))
    return out


def _find(index: Index, file: str, line: int, name: str) -> Span | None:
    for occ in index.occurrences.get(file, ()):
        if occ.span.line == line and index.sources[file].splitlines()[line - 1][occ.span.col - 1:occ.span.end - 1] == name:
            return occ.span
    return None
