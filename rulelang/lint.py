"""Static analysis of a checked ``Program``: warnings about rules that can never matter.

Computed from the syntax tree only (nothing is run). Each finding is a ``Diagnostic`` with
a W1xx code (listed in ``rulelang.diagnostics.CODES``) at the declaration or statement it is
about:

- W100 a procedure nothing reachable calls (setup, flow, triggers of raised events, and the
  procedures those call, transitively);
- W101 statements after `end game`, `fail` or `return` in the same block;
- W102 a kind with no cards; W103 a zone never named after its declaration; W104 a token
  that no effect or cost ever moves; W105 a var that is set but never read;
- W106 a trigger on an event nothing raises; W107 a modifier never started; W108 a modifier
  never tested with `active(...)`;
- W109 an option whose value no rule reads; W110 a define or const nothing uses;
- W200 a log line, prompt or label inside a condition its readers may not see (rulelang/flow.py).

Scenarios are not part of the game: a name used only by a scenario still counts as unused.
"""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from . import nodes as n
from .checker import Program
from .diagnostics import Diagnostic, format_diagnostic

# Events the engine raises itself, and the statements that raise them.
_TURN_EVENTS = ("turn_start", "turn_end")
_ROUND_EVENTS = ("round_start", "round_end")


def children(x) -> Iterator:
    """The syntax nodes directly inside ``x`` (through tuples), positions and types left out."""
    if isinstance(x, (tuple, list)):
        for item in x:
            if isinstance(item, (tuple, list)):
                yield from children(item)
            elif attrs.has(type(item)) and not isinstance(item, (n.Pos, n.TypeRef)):
                yield item
        return
    if not attrs.has(type(x)):
        return
    for f in attrs.fields(type(x)):
        v = getattr(x, f.name)
        if isinstance(v, (tuple, list)):
            yield from children(v)
        elif attrs.has(type(v)) and not isinstance(v, (n.Pos, n.TypeRef)):
            yield v


def walk(x) -> Iterator:
    """Every syntax node at or below ``x``, parents before children."""
    stack = [x]
    while stack:
        node = stack.pop()
        if isinstance(node, (tuple, list)):
            stack.extend(reversed(list(children(node))))
            continue
        yield node
        stack.extend(reversed(list(children(node))))


def game_roots(p: Program) -> list:
    """Every declaration that belongs to the game as it will be played (not its scenarios)."""
    roots: list = []
    roots += [o.default for o in p.options.values()]
    roots += [row for table in p.cards for row in table.rows]
    roots += list(p.vars.values()) + list(p.consts.values()) + list(p.defines.values())
    roots += list(p.procs.values())
    roots += [d for d in (p.setup, p.flow) if d is not None]
    roots += list(p.triggers)
    roots += [line for line, _ in p.score_lines]
    if p.tiebreak is not None:
        roots.append(p.tiebreak)
    roots += list(p.invariants)
    roots += list(getattr(p, "requires", ()))  # which options and player counts go together
    roots += [k.text for k in p.kinds.values() if k.text is not None]  # a kind's `text:` line reads names too
    if p.table is not None:  # what the table shows reads names too
        roots += list(p.table.items)
    if p.winners is not None:
        roots.append(p.winners)
    return roots


def reads(x) -> Iterator:
    """Every expression node that is read at or below ``x``: the targets of `set` are writes.

    The container of an item that is set (`set p.row[i] += 1`) counts as written, not read;
    the index, the owner before the dot and the value are read.
    """
    stack = [x]
    while stack:
        node = stack.pop()
        if isinstance(node, (tuple, list)):
            stack.extend(children(node))
            continue
        if isinstance(node, n.Set):
            stack.append(node.value)
            t = node.target
            while isinstance(t, n.Index):
                stack.append(t.index)
                t = t.obj
            if isinstance(t, n.Attr):
                stack.append(t.obj)
            continue
        yield node
        stack.extend(children(node))


def _proc_calls(p: Program, body) -> Iterator[str]:
    for node in walk(body):
        if isinstance(node, n.Verb):
            res = p.resolved.get(id(node))
            if res and res[0] == "proc":
                yield res[1]


def _events_raised(body) -> Iterator[str]:
    for node in walk(body):
        if isinstance(node, n.Emit):
            yield node.event
        elif isinstance(node, n.Turn):
            yield from _TURN_EVENTS
        elif isinstance(node, n.Round):
            yield from _ROUND_EVENTS


def reachable(p: Program) -> tuple[set[str], set[int]]:
    """The procedures the game can run, and the indexes of its triggers that can fire.

    From setup and flow, follow procedure calls; a trigger joins once its event is raised by
    something already reachable; its body is then followed too.
    """
    procs: set[str] = set()
    events: set[str] = set()
    triggers: set[int] = set()
    todo: list = [d.body for d in (p.setup, p.flow) if d is not None]
    while todo:
        body = todo.pop()
        for name in _proc_calls(p, body):
            if name not in procs and name in p.procs:
                procs.add(name)
                todo.append(p.procs[name].body)
        events.update(_events_raised(body))
        for i, t in enumerate(p.triggers):
            if i not in triggers and t.event in events:
                triggers.add(i)
                todo.append(t.body)
    return procs, triggers


def _after_end(body, out: list) -> None:
    """Statements after `end game`, `fail` or `return` in the same block (the first one of each run)."""
    if not isinstance(body, tuple):
        return
    for i, s in enumerate(body):
        if isinstance(s, (n.EndGame, n.Fail, n.Return)) and i + 1 < len(body):
            what = {n.EndGame: "`end game`", n.Fail: "`fail`", n.Return: "`return`"}[type(s)]
            out.append((body[i + 1], what, s.pos, len(body) - i - 1))
            break
    for s in body:
        for block in _blocks(s):
            _after_end(block, out)


def _blocks(s) -> Iterator[tuple]:
    if isinstance(s, n.If):
        for _, b in s.branches:
            yield b
        if s.orelse:
            yield s.orelse
    elif isinstance(s, (n.For, n.While, n.Repeat, n.Simul, n.Turn, n.Round, n.May)):
        yield s.body
    elif isinstance(s, n.Menu):
        for o in s.options:
            yield o.body


def _card_count(table: n.CardsDecl) -> int:
    total = 0
    for row in table.rows:
        copies = 1
        if "copies" in table.columns:
            i = table.columns.index("copies")
            v = row.values[i] if i < len(row.values) else None
            if isinstance(v, n.Lit) and isinstance(v.value, int):
                copies = v.value
        total += copies
    return total


def _token_moved(p: Program, node) -> str | None:
    if isinstance(node, n.Verb):
        res = p.resolved.get(id(node))
        if res and res[0] == "effect" and res[1] in ("gain", "pay"):
            if node.unit:
                return node.unit
            if len(node.args) > 1 and isinstance(node.args[1], n.Name):
                return node.args[1].id
    if isinstance(node, n.MenuOption) and node.cost is not None:
        return node.cost[1]
    return None


def lint(p: Program) -> list[Diagnostic]:
    """Warnings about the checked program, in file order."""
    out: list[Diagnostic] = []

    def warn(code: str, msg: str, pos: n.Pos, hint: str | None = None) -> None:
        out.append(Diagnostic(code, msg, pos, hint))

    roots = game_roots(p)
    # ---- what every expression reads, and what every statement does
    used: dict[str, set[str]] = {}  # resolution category -> names read
    active_tested: set[str] = set()
    started: set[str] = set()
    emitted: set[str] = set()
    moved_tokens: set[str] = set()
    written: set[str] = set()
    for root in roots:
        for node in reads(root):
            res = p.resolved.get(id(node))
            if res is not None and isinstance(node, (n.Name, n.Attr, n.Call)):
                used.setdefault(res[0], set()).add(res[1])
            if isinstance(node, n.Call) and node.func == "active" and node.args:
                first = node.args[0]
                if isinstance(first, n.Name):
                    active_tested.add(first.id)
        for node in walk(root):
            if isinstance(node, n.Start):
                started.add(node.modifier)
            elif isinstance(node, n.Set):
                t = node.target
                while isinstance(t, n.Index):
                    t = t.obj
                res = p.resolved.get(id(t))
                if res and res[0] in ("var", "pvar", "cvar"):
                    written.add(res[1])
            tok = _token_moved(p, node)
            if tok:
                moved_tokens.add(tok)
        emitted.update(_events_raised(root))
    for z in p.zones.values():
        for name, value, _ in z.props:
            if name == "refill" and isinstance(value, str):
                used.setdefault("zone", set()).add(value)

    def is_used(*cats: str, name: str) -> bool:
        return any(name in used.get(c, ()) for c in cats)

    # ---- W100, W106: what can run
    procs, live_triggers = reachable(p)
    for name, proc in p.procs.items():
        if name not in procs:
            callers = [f"`{other}`" for other, d in p.procs.items() if name in set(_proc_calls(p, d.body))]
            callers += [f"the trigger on `{t.event}`" for t in p.triggers if name in set(_proc_calls(p, t.body))]
            hint = (f"it is called only from {' and '.join(callers)}, which never run{'s' if len(callers) == 1 else ''}"
                    if callers else "call it from setup, flow, a trigger or a procedure they run, or remove it")
            warn("W100", f"procedure `{name}` is never called", proc.pos, hint)
    for i, t in enumerate(p.triggers):
        if t.event not in emitted:
            builtin = {"turn_start": "`turn`", "turn_end": "`turn`", "round_start": "`round`",
                       "round_end": "`round`"}.get(t.event)
            hint = (f"no {builtin} block runs, so the engine never raises it" if builtin
                    else f"nothing says `emit {t.event} ...`")
            warn("W106", f"the trigger on `{t.event}` can never fire: the event is never raised", t.pos, hint)
        elif i not in live_triggers:
            warn("W106", f"the trigger on `{t.event}` can never fire: `{t.event}` is raised only by rules "
                         "that never run", t.pos)
    # ---- W101: after `end game` / `fail`
    after: list = []
    for root in roots:
        if isinstance(root, (n.ProcDecl, n.SetupDecl, n.FlowDecl, n.TriggerDecl)):
            _after_end(root.body, after)
    for stmt, what, where, count in after:
        warn("W101", f"{'this statement' if count == 1 else f'these {count} statements'} can never run: "
                     f"{what} (line {where.line}) comes first", stmt.pos)
    # ---- W102..W105: components
    counts: dict[str, int] = {}
    for table in p.cards:
        counts[table.kind] = counts.get(table.kind, 0) + _card_count(table)
    for name, k in p.kinds.items():
        if counts.get(name, 0) == 0:
            warn("W102", f"kind `{name}` has no cards", k.pos,
                 f"add a table `cards {name} (name, ...)`, or remove the kind")
    for name, z in p.zones.items():
        if not is_used("zone", "pzone", "fzone", name=name):
            warn("W103", f"zone `{name}` is never used", z.pos,
                 "no rule moves cards to it, draws from it or looks at it")
    for name, t in p.tokens.items():
        if name not in moved_tokens:
            warn("W104", f"token `{name}` never moves: no `gain`, `pay` or `cost` names it", t.pos,
                 "all of them stay in the supply for the whole game")
    for name, v in p.vars.items():
        if not is_used("var", "pvar", "cvar", name=name):
            if name in written:
                warn("W105", f"var `{name}` is set but never read", v.pos,
                     "no condition, score or other rule looks at it (players still see it)")
            else:
                warn("W105", f"var `{name}` is never used", v.pos)
    # ---- W107, W108: modifiers
    for name, mdecl in p.modifiers.items():
        if name not in started:
            warn("W107", f"modifier `{name}` is never started", mdecl.pos,
                 f"`active({name})` is then always false")
        elif name not in active_tested:
            warn("W108", f"modifier `{name}` is started but never tested", mdecl.pos,
                 f"no rule asks `active({name})`, so starting it changes nothing")
    # ---- W109, W110: options and definitions
    for name, o in p.options.items():
        if not is_used("option", name=name):
            warn("W109", f"option `{name}` changes nothing: no rule reads it", o.pos)
    for name, d in p.defines.items():
        if not is_used("define", name=name):
            warn("W110", f"define `{name}` is never used", d.pos)
    for name, c in p.consts.items():
        if not is_used("const", name=name):
            warn("W110", f"const `{name}` is never used", c.pos)
    # ---- W200: implicit flows of secrets (rulelang/flow.py)
    from .flow import check_flows

    out.extend(check_flows(p)[1])
    out.sort(key=lambda d: (d.pos.file, d.pos.line, d.pos.col, d.code))
    return out


def format_warnings(diags: list[Diagnostic], sources: dict[str, str] | None = None) -> str:
    """Warnings as `file:line:col: W1xx message`, with the line and a caret, then a count."""
    if not diags:
        return "no warnings"
    body = "\n".join(format_diagnostic(d, sources) for d in diags)
    return f"{body}\n{len(diags)} warning{'s' if len(diags) != 1 else ''}"


__all__ = ["children", "format_warnings", "game_roots", "lint", "reachable", "reads", "walk"]
