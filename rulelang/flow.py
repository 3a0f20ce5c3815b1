"""The information-flow check: no rule sends a value to readers who may not see it.

Every expression gets a *label*: who may read its value. ``None`` is everyone (public); a
frozenset names the players who may, each written as the text of a player expression in the
rule (``p``, ``first(players)``); the empty set is nobody (hidden). Joining two labels keeps the
readers both allow. Labels come from declarations (a zone's, var's or token's visibility) and flow
through expressions, `let`s, loops, choices and procedure calls (each call is followed with its
arguments' labels and names).

Sinks, each with an audience: a `log` line (everyone, or its `to`), a prompt (everyone), a choice
label (everyone when the choice is public; the chooser when it picks among things others cannot
see), a `set` of a var (the var's readers), an amount of tokens or cards moved (everyone sees
counts). A value whose label does not let the whole audience read it is an error (E400) at the
sink. Card values become readable as the rules show them: moving cards to a zone adds the zone's
readers, `reveal` adds its audience, `draw ... as x` gives x the destination's readers.

Implicit flows (a sink inside an `if`, loop or choice whose condition reads a secret) are
warnings (W200, from `rulelang validate`): rules often act publicly on a secret they thereby
reveal on purpose ("if the card drawn is an event, resolve it").
"""

from __future__ import annotations

import attrs

from . import nodes as n
from .checker import Program
from .diagnostics import Diagnostic

Label = frozenset | None
PUBLIC: Label = None
HIDDEN: Label = frozenset()
EVERYONE = ("everyone",)

_TOKEN_VERBS = {"gain": ("holder", "source"), "pay": ("holder", "target"), "flip": ("holder",)}
MAX_CALL_DEPTH = 40


def join(a: Label, b: Label) -> Label:
    """The readers allowed by both."""
    if a is None:
        return b
    if b is None:
        return a
    return a & b


def union(a: Label, b: Label) -> Label:
    """The readers allowed by either (after a value is shown to more people)."""
    if a is None or b is None:
        return None
    return a | b


def allowed(label: Label, audience: tuple) -> bool:
    if label is None:
        return True
    return audience[0] == "player" and audience[1] in label


def describe(label: Label) -> str:
    if label is None:
        return "everyone"
    if not label:
        return "nobody"
    return " and ".join(f"`{k}`" for k in sorted(label))


def audience_text(audience: tuple) -> str:
    if audience[0] == "player":
        return f"`{audience[1]}`"
    return "every player" if audience == EVERYONE else "several players"


@attrs.define
class _Ctx:
    env: dict  # local name -> label
    subst: dict  # parameter name -> the caller's text for it
    shown: dict  # text of an expression (a zone, a card) -> label after a reveal or a move
    pc: Label = None  # the readers of the conditions the statement runs under
    depth: int = 0
    # A local holding a zone (chosen from a list of zones): who sees the cards of the zones it may
    # be. Its label in `env` says who may know *which* zone it is.
    zone_cards: dict = attrs.Factory(dict)
    returned: list = attrs.Factory(list)  # the labels of the values a procedure gives back

    def fork(self) -> _Ctx:
        return _Ctx(dict(self.env), self.subst, dict(self.shown), self.pc, self.depth, dict(self.zone_cards),
                    self.returned)


class _Flow:
    def __init__(self, p: Program):
        self.p = p
        self.errors: dict[tuple, Diagnostic] = {}
        self.warnings: dict[tuple, Diagnostic] = {}
        self.done: set = set()
        self.returns: dict = {}
        self.running: list[str] = []
        self.define_memo: dict = {}
        self.define_busy: set = set()
        self.zone_vis = {z.name: next((nm for nm, _, _ in z.props if nm in ("public", "owner", "hidden")),
                                      "public") for z in p.zones.values()}
        self.token_vis = {t.name: next((nm for nm, _, _ in t.props if nm in ("public", "owner", "hidden")),
                                       "public") for t in p.tokens.values()}

    # ---- reporting
    def error(self, pos: n.Pos, msg: str, hint: str | None = None) -> None:
        self.errors.setdefault((pos.file, pos.line, pos.col), Diagnostic("E400", msg, pos, hint))

    def warn(self, pos: n.Pos, msg: str) -> None:
        self.warnings.setdefault((pos.file, pos.line, pos.col), Diagnostic("W200", msg, pos))

    def sink(self, ctx: _Ctx, e, audience: tuple, what: str, pos: n.Pos | None = None,
             implicit: bool = True) -> None:
        label = self.label(e, ctx)
        where = pos or e.pos
        if not allowed(label, audience):
            self.error(where, f"{what} shows {self.culprit(e, ctx, audience)} to {audience_text(audience)}; "
                              f"only {describe(label)} may see it",
                       "address it to those who may see it (`log to p`), declare the value as seen "
                       "by them, or `reveal` the cards first")
        elif implicit and not allowed(ctx.pc, audience):
            self.warn(where, f"{what} runs under a condition {audience_text(audience)} may not see "
                             f"(only {describe(ctx.pc)} may): that it runs tells them about it")

    def culprit(self, e, ctx: _Ctx, audience: tuple) -> str:
        """The smallest part of `e` that its audience may not read, as text."""
        best, node = e, e
        while True:  # go down through the parts its audience may not read, to the smallest one
            part = next((x for x in _parts(node) if not allowed(self.label(x, ctx), audience)), None)
            if part is None:
                break
            node = part
            if _key(part, {}) is not None:
                best = part
        text = _key(best, {})
        return f"`{text}`" if text else "a value"

    # ---- labels of expressions
    def key(self, e, ctx: _Ctx) -> str | None:
        return _key(e, ctx.subst)

    def player_label(self, e, ctx: _Ctx) -> Label:
        """The readers of a value owned by the player `e`: that player, if who it is is public."""
        k = self.key(e, ctx)
        if k is None or self.label(e, ctx) is not None:
            return HIDDEN
        return frozenset({k})

    def zone_label(self, e, ctx: _Ctx) -> Label:
        """Who sees the cards of a zone expression (a Name or `p.zone`)."""
        if ctx.shown:
            k = self.key(e, ctx)
            if k is not None and k in ctx.shown:
                return ctx.shown[k]
        if isinstance(e, n.Name):
            cat = self.p.resolved.get(id(e), ("",))[0]
            if cat == "zone":
                return PUBLIC if self.zone_vis.get(e.id) == "public" else HIDDEN
            if cat == "builtin" and e.id == "box":
                return HIDDEN
            if e.id in ctx.zone_cards and cat in ("local", "bind"):
                return ctx.zone_cards[e.id]
            return self.label(e, ctx)
        if isinstance(e, n.Attr) and self.p.resolved.get(id(e), ("",))[0] == "pzone":
            vis = self.zone_vis.get(e.name, "public")
            if vis == "public":
                return self.label(e.obj, ctx)
            return self.player_label(e.obj, ctx) if vis == "owner" else HIDDEN
        return self.label(e, ctx)

    def is_zone(self, e) -> bool:
        return self.p.types.get(id(e)) == "zone"

    def which_zone(self, e, ctx: _Ctx) -> Label:
        """Who may know *which* zone a zone expression names (a zone as a value, in a list of
        piles to choose from), as opposed to who sees its cards: a declared zone's name is public;
        `p.hand` is as known as `p`; `discard[c]` as `c`."""
        if isinstance(e, n.Name):
            cat = self.p.resolved.get(id(e), ("local",))[0]
            return ctx.env.get(e.id, PUBLIC) if cat in ("local", "bind") else PUBLIC
        if isinstance(e, n.Attr):
            return self.which_zone(e.obj, ctx) if self.is_zone(e.obj) else self.label(e.obj, ctx)
        if isinstance(e, n.Index):
            base = self.which_zone(e.obj, ctx) if self.is_zone(e.obj) else self.label(e.obj, ctx)
            return join(base, self.label(e.index, ctx))
        return self.label(e, ctx)

    def value_label(self, e, ctx: _Ctx) -> Label:
        """The label of an item of a list: for a zone, which zone it is, not its cards."""
        return self.which_zone(e, ctx) if self.is_zone(e) else self.label(e, ctx)

    def cards_label(self, e, ctx: _Ctx) -> Label:
        """Who sees the cards of every zone named inside `e` (a list of zones, say)."""
        out = self.zone_label(e, ctx) if self.is_zone(e) else PUBLIC
        if isinstance(e, n.Gen):
            inner = ctx.fork()
            _forget(inner, e.var)
            inner.env[e.var] = self.label(e.source, ctx)
            return join(out, self.cards_label(e.source if e.elem is None else e.elem, inner))
        for part in _parts(e):
            out = join(out, self.cards_label(part, ctx))
        return out

    def label(self, e, ctx: _Ctx) -> Label:  # noqa: C901 - one dispatch over expression kinds
        if ctx.shown:  # (an expression's text is worth making only when something was shown)
            k = self.key(e, ctx)
            if k is not None and k in ctx.shown:
                return ctx.shown[k]
        # (by the node's own class: nodes have no subclasses, and this runs thousands of times)
        kind = type(e)
        if kind is n.Lit:
            return PUBLIC
        if kind is n.Template:
            return self.join_all([p for p in e.parts if not isinstance(p, str)], ctx)
        if kind is n.Name:
            cat, name = self.p.resolved.get(id(e), ("local", e.id))
            if cat in ("local", "bind"):
                return ctx.env.get(name, PUBLIC)
            if cat == "var":
                decl = self.p.vars.get(name)
                return HIDDEN if decl is not None and decl.visibility != "public" else PUBLIC
            if cat == "zone" or (cat == "builtin" and name == "box"):
                return self.zone_label(e, ctx)
            if cat == "define":
                return self.define_label(name, [], ctx)
            return PUBLIC
        if kind is n.Attr:
            cat, name = self.p.resolved.get(id(e), ("", e.name))
            obj = self.label(e.obj, ctx)
            if cat == "pvar":
                vis = self.var_vis(name)
                if vis == "public":
                    return obj
                return self.player_label(e.obj, ctx) if vis == "owner" else HIDDEN
            if cat == "pzone":
                return self.zone_label(e, ctx)
            if cat == "tokens":
                vis = self.token_vis.get(name, "public")
                if vis == "public":
                    return obj
                if vis == "owner" and self.p.types.get(id(e.obj)) == "player":
                    return self.player_label(e.obj, ctx)
                if isinstance(e.obj, n.Name) and e.obj.id == "supply":
                    return HIDDEN  # what is left in the supply would give the players' amounts away
                return obj if vis == "owner" else HIDDEN
            if cat == "cvar":
                vis = self.var_vis(name)
                return HIDDEN if vis == "hidden" else obj
            return obj
        if kind is n.Call:
            cat = self.p.resolved.get(id(e), ("builtin",))[0]
            if cat == "define":
                return self.define_label(e.func, list(e.args), ctx)
            if e.func == "count" and len(e.args) == 1 and self.p.types.get(id(e.args[0])) == "zone":
                a = e.args[0]
                return self.label(a.obj, ctx) if isinstance(a, n.Attr) else PUBLIC  # counts are seen
            out = self.join_all([v for _, v in e.kwargs], ctx) if e.kwargs else PUBLIC  # (most have none)
            for a in e.args:  # a zone passed to a function is read for its cards
                out = join(out, self.zone_label(a, ctx) if self.is_zone(a) else self.label(a, ctx))
            return out
        if kind is n.Gen:
            inner = ctx.fork()
            _forget(inner, e.var)
            src = self.zone_label(e.source, ctx) if self.is_zone(e.source) else self.label(e.source, ctx)
            inner.env[e.var] = src
            out = src
            if e.cond is not None:
                out = join(out, self.label(e.cond, inner))
            if e.elem is not None:
                out = join(out, self.value_label(e.elem, inner))
            return out if out is None else frozenset(x for x in out if x != e.var)
        if kind is n.ListLit:
            return self.join_all_values(list(e.items), ctx)
        if kind is n.MapLit:
            return self.join_all([v for _, v in e.items], ctx)
        if kind is n.Cond:
            # `a if test else b` with a public test: a secret read in a branch is shown only on the
            # games where that branch is taken (a player's own hand counting only for them). Like a
            # sink under a secret `if`, that is the author's call: a warning (W200), not a refusal.
            test = self.label(e.test, ctx)
            if test is not None:
                return join(test, join(self.label(e.then, ctx), self.label(e.orelse, ctx)))
            for branch in (e.then, e.orelse):
                secret = self.label(branch, ctx)
                if secret is not None:
                    self.warn(branch.pos, f"this branch reads what only {describe(secret)} may see; where "
                                          "the value is shown, taking this branch tells the others about it")
            return PUBLIC
        return self.join_all(_parts(e), ctx)

    def join_all(self, parts: list, ctx: _Ctx) -> Label:
        out: Label = PUBLIC
        for part in parts:
            out = join(out, self.label(part, ctx))
        return out

    def join_all_values(self, parts: list, ctx: _Ctx) -> Label:
        out: Label = PUBLIC
        for part in parts:
            out = join(out, self.value_label(part, ctx))
        return out

    def var_vis(self, name: str) -> str:
        decl = self.p.vars.get(name)
        return decl.visibility if decl is not None else "public"

    def define_label(self, name: str, args: list, ctx: _Ctx) -> Label:
        d = self.p.defines.get(name)
        if d is None or name in self.define_busy or ctx.depth > MAX_CALL_DEPTH:
            return HIDDEN if d is None else PUBLIC
        params = [prm.name for prm in (d.params or ())]
        arg_labels = tuple([self.label(a, ctx) for a in args])
        arg_keys = tuple([_key(a, ctx.subst) for a in args])
        shown = tuple(sorted((k, tuple(sorted(v)) if v is not None else None) for k, v in ctx.shown.items()))
        memo_key = (name, arg_labels, arg_keys, shown)
        if memo_key in self.define_memo:
            return self.define_memo[memo_key]
        self.define_busy.add(name)
        inner = _Ctx(dict(zip(params, arg_labels, strict=False)),
                     {p: (k if k is not None else f"${p}") for p, k in zip(params, arg_keys, strict=False)},
                     ctx.shown, PUBLIC, ctx.depth + 1)
        try:
            result = self.label(d.value, inner)
        finally:
            self.define_busy.discard(name)
        self.define_memo[memo_key] = result
        return result

    # ---- statements
    def block(self, stmts, ctx: _Ctx) -> None:
        for s in stmts:
            self.stmt(s, ctx)

    def branches(self, bodies: list, ctx: _Ctx, pc: Label, starts: list | None = None) -> None:
        """Run each body from the same context (or its own, from `starts`); afterwards a local is
        as secret as in any of them."""
        outs = []
        for i, body in enumerate(bodies):
            start = starts[i] if starts is not None and starts[i] is not None else ctx
            inner = start.fork()
            inner.pc = join(ctx.pc, pc)
            self.block(body, inner)
            outs.append(inner)
        for name in set().union(*(o.env for o in outs)) if outs else ():
            label = ctx.env.get(name, PUBLIC) if len(outs) < 2 else PUBLIC
            for o in outs:
                label = join(label, o.env.get(name, ctx.env.get(name, PUBLIC)))
            ctx.env[name] = label
        for k in list(ctx.shown) + [k for o in outs for k in o.shown]:
            values = [o.shown.get(k, ctx.shown.get(k, HIDDEN)) for o in outs]
            label = values[0] if values else ctx.shown.get(k)
            for v in values[1:]:
                label = join(label, v)
            if label is not None or k in ctx.shown or all(k in o.shown for o in outs):
                ctx.shown[k] = label

    def stmt(self, s, ctx: _Ctx) -> None:  # noqa: C901 - one dispatch over statement kinds
        bound = getattr(s, "var", None) or (s.name if isinstance(s, n.Let) else None)
        if bound:  # a local takes a new value: what was shown of the old one says nothing now
            _forget(ctx, bound)
        if isinstance(s, n.Let) and self.is_zone(s.value):  # `let pile = deck`: which zone, and its cards
            ctx.env[s.name] = self.which_zone(s.value, ctx)
            ctx.zone_cards[s.name] = self.zone_label(s.value, ctx)
        elif isinstance(s, n.Let):
            ctx.env[s.name] = self.label(s.value, ctx)
        elif isinstance(s, n.Set):
            self.set_stmt(s, ctx)
        elif isinstance(s, n.Verb):
            self.verb(s, ctx)
        elif isinstance(s, n.Log):
            audience = EVERYONE
            if s.audience is not None:
                k = self.key(s.audience, ctx)
                if self.p.types.get(id(s.audience)) == "player" and k is not None:
                    audience = ("player", k)
                else:
                    audience = ("some",)
            self.sink(ctx, s.text, audience, "this log line", s.pos)
        elif isinstance(s, n.If):
            pc: Label = PUBLIC
            bodies = []
            for cond, body in s.branches:
                pc = join(pc, self.label(cond, ctx))
                bodies.append(body)
            bodies.append(s.orelse or ())
            self.branches(bodies, ctx, pc)
        elif isinstance(s, n.For):
            ctx.env[s.var] = self.zone_label(s.source, ctx) if self.is_zone(s.source) else self.label(s.source, ctx)
            if self.p.types.get(id(s.source)) == "list:zone":
                ctx.zone_cards[s.var] = self.cards_label(s.source, ctx)
            self.branches([s.body, ()], ctx, PUBLIC)
        elif isinstance(s, n.While):
            self.branches([s.body, ()], ctx, self.label(s.cond, ctx))
        elif isinstance(s, n.Repeat):
            self.branches([s.body, ()], ctx, self.label(s.count, ctx))
        elif isinstance(s, (n.Simul, n.Turn, n.Round)):
            if isinstance(s, n.Simul):
                ctx.env[s.var] = PUBLIC
            self.block(s.body, ctx)
        elif isinstance(s, n.Pick):
            self.pick(s, ctx)
        elif isinstance(s, n.Menu):
            if s.prompt is not None:
                self.sink(ctx, s.prompt, EVERYONE, "this prompt")
            pc = PUBLIC
            binds: list[_Ctx | None] = []
            for o in s.options:
                octx = ctx
                if o.each is not None:  # one option per item of a list: the item is as secret as the list
                    octx = ctx.fork()
                    name, items = o.each
                    _forget(octx, name)
                    octx.env[name] = self.label(items, ctx)
                    if self.p.types.get(id(items)) == "list:zone":
                        octx.zone_cards[name] = self.cards_label(items, ctx)
                binds.append(octx if o.each is not None else None)
                self.sink(octx, o.label, EVERYONE, "this option (everyone reads the choice made)")
                if o.when is not None:
                    pc = join(pc, self.label(o.when, octx))
            self.branches([o.body for o in s.options], ctx, pc, binds)
        elif isinstance(s, n.May):
            self.sink(ctx, s.prompt, EVERYONE, "this question")
            self.branches([s.body, ()], ctx, PUBLIC)
        elif isinstance(s, n.Emit):
            for a in s.args:
                self.label(a, ctx)
        elif isinstance(s, n.Return) and s.value is not None:
            # The caller's `as` name is as secret as the value (the conditions it came under are an
            # implicit flow, warned about where they are written).
            ctx.returned.append((self.value_label(s.value, ctx),
                                 self.cards_label(s.value, ctx) if self.is_zone(s.value) else None))

    def set_stmt(self, s: n.Set, ctx: _Ctx) -> None:
        t = s.target
        base = t.obj if isinstance(t, n.Index) else t
        cat, name = self.p.resolved.get(id(base), ("local", getattr(base, "id", "")))
        value = self.label(s.value, ctx)
        if isinstance(t, n.Index):
            value = join(value, self.label(t.index, ctx))
        if cat == "local":
            old = ctx.env.get(name, PUBLIC) if (s.op != "=" or isinstance(t, n.Index)) else PUBLIC
            ctx.env[name] = join(old, value)
            return
        vis = self.var_vis(name)
        if vis == "hidden":
            return
        if cat == "pvar" and vis == "owner":
            audience = ("player", self.key(base.obj, ctx) or "?")
        elif cat == "cvar" and vis == "owner":
            return  # read by whoever sees the card: nothing to check without knowing where it lies
        else:
            audience = EVERYONE
        what = f"setting `{name}` (seen by {audience_text(audience)})"
        self.sink(ctx, s.value, audience, what, s.pos, implicit=False)
        if isinstance(t, n.Index):
            self.sink(ctx, t.index, audience, what, s.pos, implicit=False)

    def pick(self, s: n.Pick, ctx: _Ctx) -> None:
        if s.prompt is not None:
            self.sink(ctx, s.prompt, EVERYONE, "this prompt")
        element = self.zone_label(s.source, ctx) if self.is_zone(s.source) else self.label(s.source, ctx)
        chooser = self.key(s.by, ctx) if s.by is not None else None
        if element is None:
            ctx.env[s.var] = PUBLIC
            if s.label is not None:
                self.sink(ctx, s.label, EVERYONE, "this choice label (the choice is public)")
        elif chooser is not None and self.label(s.by, ctx) is None:
            who = ("player", chooser)
            if not allowed(element, who):
                self.error(s.source.pos, f"this choice shows `{chooser}` things they may not see "
                                         f"(only {describe(element)} may)",
                           "`reveal` them to the chooser first, or let them choose blind by number")
            ctx.env[s.var] = union(element, frozenset({chooser}))
            if s.label is not None:
                self.sink(ctx, s.label, who, "this choice label (only the chooser reads it)")
        else:
            ctx.env[s.var] = element
        if self.p.types.get(id(s.source)) == "list:zone":  # a pile chosen: keep who sees its cards
            ctx.zone_cards[s.var] = self.cards_label(s.source, ctx)
        if s.cond is not None:
            inner = join(ctx.pc, self.label(s.cond, ctx))
            if not allowed(inner, EVERYONE) and element is None:
                self.warn(s.cond.pos, f"which things may be chosen depends on what only {describe(inner)} "
                                      "may see, and the options are read by everyone")

    def verb(self, s: n.Verb, ctx: _Ctx) -> None:  # noqa: C901
        cat, name = self.p.resolved.get(id(s), ("effect", s.name))
        if cat == "proc":
            if ctx.pc is not None:
                self.warn(s.pos, f"`{name}` runs under a condition only {describe(ctx.pc)} may see: what it "
                                 "does in public tells the others about it")
            value, cards = self.call(name, list(s.args), ctx)
            bind = next((v for w, v in s.clauses if w == "as"), None)
            if isinstance(bind, n.Name):
                _forget(ctx, bind.id)
                ctx.env[bind.id] = value
                if cards is not None:
                    ctx.zone_cards[bind.id] = cards
            return
        clauses = dict(s.clauses)
        if name in _TOKEN_VERBS and s.args:
            token = s.unit or (s.args[1].id if len(s.args) > 1 and isinstance(s.args[1], n.Name) else "")
            vis = self.token_vis.get(token, "public")
            if vis == "hidden":
                return
            holders = [clauses.get(w) for w in ("to", "from") if clauses.get(w) is not None]
            audiences = []
            for h in holders:
                if vis == "owner" and self.p.types.get(id(h)) == "player":
                    audiences.append(("player", self.key(h, ctx) or "?"))
                elif vis == "public" or self.p.types.get(id(h)) != "player":
                    audiences.append(EVERYONE)
            for audience in audiences or [EVERYONE]:
                self.sink(ctx, s.args[0], audience, f"this amount of {token} (seen by {audience_text(audience)})",
                          implicit=False)
            return
        if name == "draw" and s.args:
            self.sink(ctx, s.args[0], EVERYONE, "this number of cards drawn (everyone sees counts)", implicit=False)
            dst, bind = clauses.get("to"), clauses.get("as")
            if dst is not None and isinstance(bind, n.Name):
                ctx.env[bind.id] = self.zone_label(dst, ctx)
            return
        if name == "place" and s.args:  # laid on a grid zone: as visible as that zone
            dst = clauses.get("onto")
            if dst is not None:
                self.shown(s.args[0], self.zone_label(dst, ctx), ctx)
            return
        if name == "move" and s.args:
            dst = clauses.get("to")
            if dst is not None and self.p.types.get(id(s.args[0])) != "zone":
                self.shown(s.args[0], self.zone_label(dst, ctx), ctx)
            return
        if name == "reveal" and s.args:
            to = clauses.get("to")
            if to is None:
                readers: Label = PUBLIC
            elif self.p.types.get(id(to)) == "player" and self.key(to, ctx) is not None:
                readers = frozenset({self.key(to, ctx)})
            else:
                readers = HIDDEN
            self.shown(s.args[0], readers, ctx)

    def shown(self, e, readers: Label, ctx: _Ctx) -> None:
        """Cards (a local, a zone, an expression) are now also seen by `readers`."""
        before = self.label(e, ctx)
        after = union(before, readers)
        if isinstance(e, n.Name) and self.p.resolved.get(id(e), ("local",))[0] in ("local", "bind"):
            if e.id in ctx.zone_cards:  # a zone held by a local: its cards are shown, not which zone
                ctx.zone_cards[e.id] = union(ctx.zone_cards[e.id], readers)
            else:
                ctx.env[e.id] = after
            return
        k = self.key(e, ctx)
        if k is not None:
            ctx.shown[k] = after

    def call(self, name: str, args: list, ctx: _Ctx) -> tuple[Label, Label | None]:
        """Follow a procedure with its arguments' labels; the label of the value it gives back
        (and, for a zone, who sees its cards)."""
        proc = self.p.procs.get(name)
        if proc is None or name in self.running or ctx.depth > MAX_CALL_DEPTH:
            return PUBLIC, None
        params = [prm.name for prm in proc.params]
        labels = tuple(self.label(a, ctx) for a in args)
        keys = tuple(self.key(a, ctx) for a in args)
        cards = {prm: self.zone_label(a, ctx) for prm, a in zip(params, args, strict=False) if self.is_zone(a)}
        memo = (name, labels, keys, tuple(sorted((k, _sortable(v)) for k, v in cards.items())))
        if memo in self.done:
            return self.returns.get(memo, (PUBLIC, None))
        self.done.add(memo)
        inner = _Ctx(dict(zip(params, labels, strict=False)),
                     {p: (k if k is not None else f"${p}") for p, k in zip(params, keys, strict=False)},
                     {}, PUBLIC, ctx.depth + 1, cards)  # implicit flows are reported where they are written
        self.running.append(name)
        try:
            self.block(proc.body, inner)
        finally:
            self.running.pop()
        value: Label = PUBLIC
        zone: Label | None = None
        for label, cards_of in inner.returned:
            value = join(value, label)
            if cards_of is not None:
                zone = cards_of if zone is None else join(zone, cards_of)
        # Labels inside already name players in the caller's words (`subst`).
        result = (value, zone)
        self.returns[memo] = result
        return result

    # ---- the whole program
    def run(self) -> None:
        p = self.p
        for decl in (p.setup, p.flow):
            if decl is not None:
                self.block(decl.body, _Ctx({}, {}, {}))
        for t in p.triggers:
            self.block(t.body, _Ctx({}, {}, {}))
        for name, proc in p.procs.items():  # also each procedure on its own, with public arguments
            self.call(name, [n.Name(prm.name, prm.pos) for prm in proc.params], _Ctx({}, {}, {}))
        # What a hidden var may be is worked out in any player's determinisation: from what
        # everyone sees only.
        for v in p.vars.values():
            if v.unknown is not None:
                self.sink(_Ctx({}, {}, {}), v.unknown, EVERYONE, f"the values `{v.name}` may have",
                          implicit=False)
        # Who may read each score line while the game runs (the table's running score):
        # "public", "owner" (its player's own: `p.chips` of owner chips) or "hidden".
        p.score_line_vis = {}
        for line, var in p.score_lines:
            label = self.label(line.value, _Ctx({var: PUBLIC}, {}, {}))
            p.score_line_vis[line.label] = ("public" if label is None else
                                            "owner" if var in label else "hidden")
        if p.table is not None:
            p.table_private = set()
            for item in p.table.items:
                self.table_item(item, _Ctx({"viewer": PUBLIC}, {}, {}), None)

    # ---- the table: every viewer reads it
    def table_item(self, item: n.TableItem, ctx: _Ctx, board: str | None) -> None:
        """What a table item shows must be public, or the viewer's own (`viewer.chips`), or the
        board's player's own (`p.chips` inside `board p:`): such an item is shown on the viewer's
        own board only (recorded in ``table_private``). Anything else is refused (E309)."""
        inner = ctx.fork()
        parts = []  # the expressions whose values are shown
        for i, e in enumerate(item.exprs):
            if item.kind == "row" and i == 0 and self.is_zone(e) and not isinstance(e, n.Gen):
                continue  # a zone named outright: the engine shows its cards to who may see them
            if item.kind == "markers" and i == 3:
                inner.env[item.var] = self.value_label(item.exprs[2], ctx)
            parts.append(e)
        if item.when is not None:
            parts.append(item.when)
        if item.note is not None:
            first = item.exprs[0] if item.exprs else None
            if first is None or (item.kind == "row" and self.is_zone(first)):
                inner.env[item.var] = PUBLIC  # notes are worked out only for cards the viewer sees
            else:
                inner.env[item.var] = self.label(first, ctx)
            parts.append(item.note)
        if item.kind == "board":
            inner.env[item.var] = PUBLIC  # whose board it is, is no secret
            board = item.var
        private = False
        for e in parts:
            label = self.label(e, inner if e is item.note or item.kind == "markers" else ctx)
            if label is None or "viewer" in label:
                continue
            if board is not None and board in label:
                private = True
                continue
            self.errors.setdefault((item.pos.file, e.pos.line, e.pos.col), Diagnostic(
                "E309", f"the table shows {self.culprit(e, inner, EVERYONE)} to every viewer; only "
                        f"{describe(label)} may see it", e.pos,
                f"show it on its owner's board (`board {board or 'p'}:`), or as `viewer`'s own"))
        if private:
            self.p.table_private.add(id(item))
        for child in item.children:
            self.table_item(child, inner, board)


def _sortable(label: Label) -> tuple | None:
    return None if label is None else tuple(sorted(label))


def _forget(ctx: _Ctx, name: str) -> None:
    ctx.zone_cards.pop(name, None)
    for k in [k for k in ctx.shown if k == name or k.startswith((f"{name}.", f"{name}["))]:
        del ctx.shown[k]


_FIELDS: dict[type, tuple[str, ...]] = {}  # node class -> its fields' names (attrs.fields is slow)


def _parts(e) -> list:
    """The expressions directly inside an expression (a list: a generator's frame and a call
    to ``_is_node`` for each field cost more than the list, thousands of times a load)."""
    names = _FIELDS.get(type(e))
    if names is None:
        names = _FIELDS[type(e)] = tuple(f.name for f in attrs.fields(type(e)))
    node_types = _NODE_TYPES
    out = []
    for name in names:
        v = getattr(e, name)
        if isinstance(v, tuple):
            for x in v:
                if isinstance(x, tuple):
                    x = x[-1]
                known = node_types.get(type(x))
                if known is None:
                    known = _is_node(x)
                if known:
                    out.append(x)
        else:
            known = node_types.get(type(v))
            if known is None:
                known = _is_node(v)
            if known:
                out.append(v)
    return out


_NODE_TYPES: dict[type, bool] = {}  # type -> whether its values are nodes (asked thousands of times a load)


def _is_node(x) -> bool:
    """An attrs node other than a position or a type."""
    kind = type(x)
    known = _NODE_TYPES.get(kind)
    if known is None:
        known = _NODE_TYPES[kind] = hasattr(kind, "__attrs_attrs__") and not issubclass(kind, (n.Pos, n.TypeRef))
    return known


def _key(e, subst: dict) -> str | None:
    """The text of a simple expression (names, attributes, calls, literals), parameters replaced
    by their callers' text; None for anything else."""
    if isinstance(e, n.Name):
        return subst.get(e.id, e.id)
    if isinstance(e, n.Lit):
        return repr(e.value)
    if isinstance(e, n.Attr):
        inner = _key(e.obj, subst)
        return None if inner is None else f"{inner}.{e.name}"
    if isinstance(e, n.Index):
        a, b = _key(e.obj, subst), _key(e.index, subst)
        return None if a is None or b is None else f"{a}[{b}]"
    if isinstance(e, n.Call):
        args = [_key(a, subst) for a in e.args]
        return None if None in args or e.kwargs else f"{e.func}({', '.join(args)})"
    return None


def check_flows(p: Program) -> tuple[list[Diagnostic], list[Diagnostic]]:
    """The information-flow errors (E400) and implicit-flow warnings (W200) of a checked program."""
    f = _Flow(p)
    f.run()
    return list(f.errors.values()), list(f.warnings.values())
