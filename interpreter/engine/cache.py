"""The on-disk load cache: a warm `load` skips Lark, the checker and Python's compiler.

Two kinds of entries, in the user's cache directory (``$RULELANG_CACHE_DIR``, else
``$XDG_CACHE_HOME/rulelang``, else ``~/.cache/rulelang``):

- *parsed*: the syntax trees and texts of a game's files (what ``load_sources`` returns) and,
  once they checked without error, the checked Program (what ``check`` returns), keyed by the
  game's path, its house rules, this engine's code and the Python version; it holds the SHA-256
  of every file read, and is used only while every one of them still has that content. A warm
  load thus runs neither Lark nor the checker: only the compiler, whose output holds closures.
- *grammar*: Lark's parse tables for the rule grammar (``rulelang/parser.py``), keyed by the
  engine's code and Lark's version.
- *code*: the compiled code object of a game's generated module, or of the runs of one of its
  codes (``codegen.code_runs``, made when the code first runs: some fifty a game), with
  ``marshal``, keyed by a hash of the generated source, the engine's code and the Python version
  (marshal is version-specific).
- *generated*: all a warm load needs to rebuild a game's generated module without generating it
  again: its compiled code, its source, its plain constants, and where each other constant (a
  reference closure, a built-in) comes from, keyed by the game's files (names and texts), its
  option values and the engine's code: what the generated source is a function of
  (``codegen.CodeGen``'s replay).

Options are applied after parsing, so the parsed entry serves every option set; where an option's
value shapes the generated source (a number or a flag written into it), the source's hash keys
the code entry, so each option set that needs its own code gets it.

A cache is a way to run code, so it is guarded (see docs/limits.md): every entry carries an
HMAC-SHA256 made with a random key kept in the cache directory (mode 0600) and is ignored unless
it verifies; the directory is ignored unless it belongs to the user and no one else may write to
it. A truncated, edited, swapped or foreign entry is thus never unpickled nor run: the load just
goes the cold way and writes a fresh entry. Writes go to a temporary file renamed into place, and
the cache keeps the entries used last (``MAX_ENTRIES``, ``MAX_BYTES``).
"""

from __future__ import annotations

import hashlib
import hmac
import io
import marshal
import os
import pickle
import stat
import sys
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

import attrs

_MAGIC = b"rulelang-cache-1\n"
_KEY_FILE = "key"


def cache_dir() -> Path | None:
    """The cache directory, or None when caching is off (RULELANG_CACHE=off)."""
    if os.environ.get("RULELANG_CACHE", "").lower() in ("0", "off", "no", "false"):
        return None
    explicit = os.environ.get("RULELANG_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "rulelang"


@cache
def engine_version() -> str:
    """A hash of the code that reads and compiles games: any change to it is a new cache."""
    here = Path(__file__).resolve().parent
    digest = hashlib.sha256(sys.version.encode())
    for folder in (here, here.parent.parent / "rulelang"):
        for f in sorted(folder.glob("*.py")) + sorted(folder.glob("*.lark")):
            digest.update(f.name.encode())
            digest.update(f.read_bytes())
    return digest.hexdigest()


def _safe_dir(d: Path) -> bool:
    """Ours and writable by nobody else (as ssh checks its keys), created so if missing."""
    try:
        d.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = d.stat()
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o022


def _key(d: Path) -> bytes | None:
    path = d / _KEY_FILE
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    except OSError:
        return None
    else:
        with os.fdopen(fd, "wb") as fh:
            fh.write(os.urandom(32))
    try:
        info = path.lstat()
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
            return None
        key = path.read_bytes()
    except OSError:
        return None
    return key if len(key) == 32 else None


def _name(kind: str, *parts: str) -> str:
    digest = hashlib.sha256(engine_version().encode())
    for p in parts:
        digest.update(b"\0" + p.encode())
    return f"{kind}-{digest.hexdigest()[:40]}"


def _read(kind: str, parts: tuple[str, ...]) -> bytes | None:
    d = cache_dir()
    if d is None or not _safe_dir(d):
        return None
    key = _key(d)
    if key is None:
        return None
    try:
        blob = (d / _name(kind, *parts)).read_bytes()
    except OSError:
        return None
    if not blob.startswith(_MAGIC) or len(blob) < len(_MAGIC) + 32:
        return None
    mac, body = blob[len(_MAGIC):len(_MAGIC) + 32], blob[len(_MAGIC) + 32:]
    want = hmac.new(key, _name(kind, *parts).encode() + b"\0" + body, hashlib.sha256).digest()
    if not hmac.compare_digest(mac, want):
        return None
    try:
        os.utime(d / _name(kind, *parts))  # used now: the last to be pruned (see _prune)
    except OSError:
        pass
    return body


def _write(kind: str, parts: tuple[str, ...], body: bytes) -> None:
    d = cache_dir()
    if d is None or not _safe_dir(d):
        return
    key = _key(d)
    if key is None:
        return
    name = _name(kind, *parts)
    mac = hmac.new(key, name.encode() + b"\0" + body, hashlib.sha256).digest()
    try:
        fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-")
        with os.fdopen(fd, "wb") as fh:
            fh.write(_MAGIC + mac + body)
        os.replace(tmp, d / name)
    except OSError:  # a full disk or a read-only home: the cache is only an optimisation
        try:
            os.unlink(tmp)
        except (OSError, UnboundLocalError):
            pass
        return
    _prune(d, len(body))


# Every change of the engine (or of Python) makes new entries and leaves the old ones unused: the
# cache keeps the entries used last (a read touches its entry), this many and this many bytes at
# most (the newest entry always). A game needs its files', its module's and its generated entries
# per option set (about 1.3 MB for the biggest seed game) and one small code entry for each of its codes that
# runs (some fifty, 16 kB each on average); the grammar one entry. At 256 entries the five
# benchmarked games alone did not fit: their runs, evicted, were compiled again in every process.
MAX_ENTRIES = 2048
MAX_BYTES = 128 * 1024 * 1024
_BIG_ENTRY = 64 * 1024


def _prune(d: Path, written: int) -> None:
    """Keep the entries used last, MAX_ENTRIES and MAX_BYTES at most. Their sizes are looked at
    (a stat of each) only when the count is past its limit or the entry just `written` was a
    big one (a module, a game's files): a game's first playouts write some fifty small ones."""
    try:
        entries = [e for e in os.scandir(d) if e.name.startswith(_KINDS) and e.is_file(follow_symlinks=False)]
        if len(entries) <= MAX_ENTRIES and written < _BIG_ENTRY:
            return
        sizes = {e.path: e.stat(follow_symlinks=False) for e in entries}
        if len(entries) <= MAX_ENTRIES and sum(info.st_size for info in sizes.values()) <= MAX_BYTES:
            return
        entries.sort(key=lambda e: sizes[e.path].st_mtime, reverse=True)
        total = 0
        for kept, e in enumerate(entries):
            total += sizes[e.path].st_size
            if kept and (kept >= MAX_ENTRIES or total > MAX_BYTES):
                os.unlink(e.path)
    except OSError:  # another process pruned it first, say
        pass


_KINDS = ("parsed-", "code-", "generated-", "grammar-", ".tmp-")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


# ---- the grammar's tables --------------------------------------------------------------------


def prime_grammar() -> None:
    """Lark's tables for the rule grammar, from the cache (they are written there the first
    time): a cold load in a new process then reads them (16 ms) instead of working them out
    (170 ms). Keyed by the engine's code (the grammar is part of it) and Lark's version."""
    from lark import __version__ as lark_version

    from rulelang import parser

    if parser.grammar_ready():
        return
    parts = ("grammar", lark_version)
    body = _read("grammar", parts)
    if body is not None and parser.use_grammar_tables(body):
        return
    try:
        tables = parser.grammar_tables()
    except Exception:  # noqa: BLE001 - Lark cannot save them: it builds them each time
        return
    _write("grammar", parts, tables)


# ---- parsed and checked games --------------------------------------------------------------


def load_parsed(path: str, house: list[str]) -> tuple[list, dict[str, str], Any] | None:
    """The modules and sources of a game from the cache, if every file read still reads the same,
    and its checked Program (None when the files did not check: they are checked again, to
    report their errors)."""
    from rulelang.diagnostics import RuleError
    from rulelang.parser import read_source

    body = _read("parsed", (os.path.abspath(path), *map(os.path.abspath, house)))
    if body is None:
        return None
    try:
        digests, modules, sources, checked = pickle.loads(body)  # noqa: S301 - verified by its HMAC above
        for file, digest in digests.items():
            if _digest(read_source(file)) != digest:
                return None
    except (RuleError, OSError, ValueError, TypeError, pickle.UnpicklingError, EOFError):
        return None
    return modules, sources, _restore_program(checked)


def store_parsed(path: str, house: list[str], modules: list, sources: dict[str, str],
                 program: Any = None) -> None:
    """Remember a game's parsed files and, once they checked without error, its Program."""
    digests = {file: _digest(text) for file, text in sources.items()}
    try:
        checked = _program_state(program, modules) if program is not None else None
        out = io.BytesIO()
        _NodePickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump((digests, modules, sources, checked))
        body = out.getvalue()
    except (pickle.PicklingError, RecursionError, TypeError, AttributeError):
        return
    _write("parsed", (os.path.abspath(path), *map(os.path.abspath, house)), body)


class _NodePickler(pickle.Pickler):
    """Syntax nodes (and the Program) as their class and field values, so reading one back is
    a call of its class (attrs' own ``__setstate__``, a Python loop per object, takes half as
    long again: a warm load reads some 20,000 of them)."""

    def reducer_override(self, obj: Any) -> Any:
        cls = type(obj)
        if cls.__module__ in _NODE_MODULES and attrs.has(cls):
            fields = attrs.fields(cls)
            if all(f.init and not f.kw_only for f in fields):
                return cls, tuple(getattr(obj, f.name) for f in fields)
        return NotImplemented


_NODE_MODULES = frozenset({"rulelang.nodes", "rulelang.checker"})


# The checker keys what it learns about each node (its type, what a name resolves to, which table
# items are private) by the node's id(): an id means nothing in another process, so the cache holds
# those facts as (node, fact) pairs, pickled with the very nodes of the modules, and makes the id
# keys afresh when it reads them back.
_BY_NODE = ("types", "resolved")


def _program_state(program: Any, modules: list) -> tuple | None:
    objects = _reachable((program, modules))
    try:
        # (nodes and facts as two lists: a list of pairs is a tuple more per fact to read back; and
        # equal facts as one object, written once: a few hundred kinds for thousands of nodes)
        same: dict = {}
        facts = {name: ([objects[k] for k in getattr(program, name)],
                        [same.setdefault(v, v) for v in getattr(program, name).values()])
                 for name in _BY_NODE}
        private = [objects[k] for k in program.table_private]
    except KeyError:  # a fact about a node nothing else holds: no cache, the load checks again
        return None
    bare = attrs.evolve(program, types={}, resolved={}, table_private=set())
    return bare, facts, private


def _restore_program(checked: tuple | None) -> Any:
    if checked is None:
        return None
    bare, facts, private = checked
    for name in _BY_NODE:
        nodes, values = facts[name]
        setattr(bare, name, dict(zip(map(id, nodes), values, strict=True)))
    bare.table_private = {id(node) for node in private}
    return bare


def _reachable(root: Any) -> dict[int, Any]:
    """Every object reachable from root through containers and attrs instances, by id."""
    seen: dict[int, Any] = {}
    todo = [root]
    while todo:
        x = todo.pop()
        if id(x) in seen:
            continue
        seen[id(x)] = x
        if isinstance(x, (list, tuple, set, frozenset)):
            todo.extend(x)
        elif isinstance(x, dict):
            todo.extend(x.keys())
            todo.extend(x.values())
        elif attrs.has(type(x)):
            todo.extend(getattr(x, f.name) for f in attrs.fields(type(x)))
    return seen


# ---- compiled generated modules -------------------------------------------------------------


def compile_cached(source: str, filename: str) -> Any:
    """``compile(source, filename, "exec")``, from the cache when this source was compiled before."""
    parts = (_digest(source), filename)
    body = _read("code", parts)
    if body is not None:
        try:
            return marshal.loads(body)
        except (EOFError, ValueError, TypeError):
            pass
    code = compile(source, filename, "exec")
    _write("code", parts, marshal.dumps(code))
    return code


def load_generated(key: str) -> tuple | None:
    """What ``store_generated`` kept for this key: (code, body names, plain constants, recipes,
    source, the load's values of cards and vars or None), or None."""
    body = _read("generated", (key,))
    if body is None:
        return None
    try:
        code, rest = pickle.loads(body)  # noqa: S301 - verified by its HMAC above
        return (marshal.loads(code), *rest)
    except (EOFError, ValueError, TypeError, pickle.UnpicklingError, AttributeError, ImportError):
        return None


def store_generated(key: str, code: Any, rest: tuple) -> None:
    try:
        body = pickle.dumps((marshal.dumps(code), rest), protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, RecursionError, TypeError, AttributeError, ValueError):
        return
    _write("generated", (key,), body)
