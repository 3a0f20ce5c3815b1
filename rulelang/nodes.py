"""The syntax tree: small typed classes, each with a source position.

Built from the parse tree by ``rulelang.parser``; read by the checker and the compiler.
Nothing here knows about any game.
"""

from __future__ import annotations

import attrs


@attrs.frozen
class Pos:
    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


NOPOS = Pos("<builtin>", 0, 0)


# ---- expressions -------------------------------------------------------------


@attrs.frozen
class Lit:
    value: object
    pos: Pos


@attrs.frozen
class Template:
    """A string with ``{expr}`` parts; parts are str or expressions."""

    parts: tuple
    pos: Pos


@attrs.frozen
class Name:
    id: str
    pos: Pos


@attrs.frozen
class Attr:
    obj: Expr
    name: str
    pos: Pos


@attrs.frozen
class Index:
    obj: Expr
    index: Expr
    pos: Pos


@attrs.frozen
class Gen:
    """A comprehension: ``elem for var in source where cond``; elem None means the item itself."""

    elem: Expr | None
    var: str
    source: Expr
    cond: Expr | None
    pos: Pos


@attrs.frozen
class Call:
    func: str
    args: tuple
    kwargs: tuple  # of (name, Expr)
    pos: Pos


@attrs.frozen
class BinOp:
    op: str
    left: Expr
    right: Expr
    pos: Pos


@attrs.frozen
class Compare:
    op: str  # == != < <= > >= in notin
    left: Expr
    right: Expr
    pos: Pos


@attrs.frozen
class Is:
    obj: Expr
    kind: str
    negate: bool
    pos: Pos


@attrs.frozen
class BoolOp:
    op: str  # and, or
    left: Expr
    right: Expr
    pos: Pos


@attrs.frozen
class Not:
    operand: Expr
    pos: Pos


@attrs.frozen
class Neg:
    operand: Expr
    pos: Pos


@attrs.frozen
class Cond:
    then: Expr
    test: Expr
    orelse: Expr
    pos: Pos


@attrs.frozen
class ListLit:
    items: tuple
    pos: Pos


@attrs.frozen
class MapLit:
    items: tuple  # of (key: str | int, Expr)
    pos: Pos


Expr = (Lit | Template | Name | Attr | Index | Gen | Call | BinOp | Compare | Is | BoolOp | Not | Neg |
    Cond | ListLit | MapLit)


# ---- statements --------------------------------------------------------------


@attrs.frozen
class Let:
    name: str
    value: Expr
    pos: Pos


@attrs.frozen
class Set:
    target: Expr
    op: str  # = += -=
    value: Expr
    pos: Pos


@attrs.frozen
class Verb:
    """An effect or a procedure call: ``draw 2 from deck to p.hand``, ``gain 1 coin to p``."""

    name: str
    args: tuple
    unit: str | None  # the token named after an amount
    clauses: tuple  # of (word, Expr)
    pos: Pos


@attrs.frozen
class Pass:
    pos: Pos


@attrs.frozen
class EndGame:
    pos: Pos


@attrs.frozen
class Log:
    text: Expr
    pos: Pos
    audience: Expr | None = None  # `log to p`: who reads it; None: everyone


@attrs.frozen
class Fail:
    text: str
    pos: Pos


@attrs.frozen
class Emit:
    event: str
    args: tuple
    pos: Pos


@attrs.frozen
class Start:
    modifier: str
    player: Expr | None
    next: bool
    unit: str
    pos: Pos
    edge: str = "end"  # until the end of ... or until the start of ...


@attrs.frozen
class If:
    branches: tuple  # of (cond, body)
    orelse: tuple | None
    pos: Pos


@attrs.frozen
class For:
    var: str
    source: Expr
    body: tuple
    pos: Pos


@attrs.frozen
class While:
    cond: Expr
    limit: int | None
    body: tuple
    pos: Pos


@attrs.frozen
class Repeat:
    count: Expr
    body: tuple
    pos: Pos


@attrs.frozen
class Simul:
    """``simultaneously for p in players:`` each player runs the body at the same time."""

    var: str
    source: Expr
    body: tuple
    pos: Pos


@attrs.frozen
class Turn:
    player: Expr
    body: tuple
    pos: Pos


@attrs.frozen
class Round:
    body: tuple
    pos: Pos


@attrs.frozen
class Pick:
    var: str
    source: Expr
    cond: Expr | None
    by: Expr | None
    prompt: Expr | None
    label: Expr | None
    optional: bool
    pos: Pos


@attrs.frozen
class Return:
    """`return value`: end the procedure, giving `value` to the caller's `as` name."""

    value: Expr | None
    pos: Pos


@attrs.frozen
class MenuOption:
    label: Expr
    when: Expr | None
    cost: tuple | None  # (amount Expr, token name)
    once: str | None
    body: tuple
    pos: Pos
    each: tuple | None = None  # (name, list Expr): one option per item of the list, as `name`


@attrs.frozen
class Menu:
    by: Expr | None
    prompt: Expr | None
    options: tuple
    pos: Pos


@attrs.frozen
class May:
    prompt: Expr
    by: Expr | None
    body: tuple
    pos: Pos


Stmt = (Let | Set | Verb | Pass | EndGame | Log | Fail | Emit | Start | If | For | While | Repeat | Simul | Turn
    | Round | Pick | Menu | May)


# ---- declarations ------------------------------------------------------------


@attrs.frozen
class TypeRef:
    form: str  # name, list, bag
    name: str
    pos: Pos


@attrs.frozen
class Param:
    name: str
    type: TypeRef
    pos: Pos


@attrs.frozen
class GameDecl:
    title: str
    pos: Pos


@attrs.frozen
class Players:
    low: int
    high: int
    pos: Pos


@attrs.frozen
class Include:
    path: str
    pos: Pos


@attrs.frozen
class Extends:
    path: str
    pos: Pos


@attrs.frozen
class OptionDecl:
    name: str
    form: str  # choice, simple (a type name such as bool or int), range
    choices: tuple
    low: int | None
    high: int | None
    default: Expr
    doc: str
    pos: Pos


@attrs.frozen
class EnumDecl:
    name: str
    members: tuple
    member_pos: tuple
    pos: Pos
    display: str = ""  # the display name shown to people ("" when none is given)
    member_display: tuple = ()  # one display name per member, "" when none


@attrs.frozen
class Field:
    name: str
    type: TypeRef
    pos: Pos
    display: str = ""


@attrs.frozen
class KindDecl:
    name: str
    fields: tuple
    pos: Pos
    display: str = ""
    face: tuple = ()  # the attributes printed on a card's face, in order
    face_pos: Pos | None = None
    text: Expr | None = None  # the rules text of a card, from its own fields (`text:` line)


@attrs.frozen
class CardRow:
    values: tuple
    pos: Pos
    each: tuple = ()  # ((name, list Expr), ...): one row for each combination of the lists' items


@attrs.frozen
class CardsDecl:
    kind: str
    columns: tuple
    rows: tuple
    pos: Pos


@attrs.frozen
class ZoneDecl:
    name: str
    per: str | None  # "player" for a zone each player has
    props: tuple  # of (name, value or None, Pos)
    pos: Pos
    display: str = ""
    member: str | None = None  # an enum: one zone per member of it (`discard[red]`)


@attrs.frozen
class TokenDecl:
    name: str
    props: tuple  # of (name, tuple of values, Pos)
    pos: Pos
    display: str = ""


@attrs.frozen
class VarDecl:
    name: str
    per: str | None
    type: TypeRef
    init: Expr
    pos: Pos
    display: str = ""
    visibility: str = "public"  # public, owner or hidden (who sees its value)
    visibility_pos: Pos | None = None
    # `unknown among LIST`: the values it may have for those who cannot read it, each as likely
    # (a determinisation draws one: interpreter/engine/information.py), or None
    unknown: Expr | None = None


@attrs.frozen
class ConstDecl:
    name: str
    value: Expr
    pos: Pos


@attrs.frozen
class DefineDecl:
    name: str
    params: tuple | None
    value: Expr
    pos: Pos


@attrs.frozen
class EventDecl:
    name: str
    params: tuple
    pos: Pos


@attrs.frozen
class ModifierDecl:
    name: str
    doc: str
    pos: Pos


@attrs.frozen
class ProcDecl:
    name: str
    params: tuple
    body: tuple
    pos: Pos
    returns: TypeRef | None = None  # `returns colour`: the procedure gives a value back


@attrs.frozen
class SetupDecl:
    body: tuple
    pos: Pos


@attrs.frozen
class FlowDecl:
    body: tuple
    pos: Pos


@attrs.frozen
class TriggerDecl:
    event: str
    names: tuple
    when: Expr | None
    body: tuple
    pos: Pos


@attrs.frozen
class ScoreLine:
    label: str
    value: Expr
    pos: Pos


@attrs.frozen
class ScoreDecl:
    var: str
    lines: tuple
    pos: Pos


@attrs.frozen
class TiebreakDecl:
    var: str
    keys: tuple
    pos: Pos


@attrs.frozen
class InvariantDecl:
    text: str
    value: Expr
    pos: Pos


@attrs.frozen
class WinnersDecl:
    """Who wins, as a list of players, when it is not simply the highest score."""

    value: Expr
    pos: Pos


@attrs.frozen
class RequireDecl:
    """A condition on options and the player count; a game that breaks it is refused."""

    value: Expr
    message: str
    pos: Pos


@attrs.frozen
class RemoveDecl:
    what: str
    name: str
    pos: Pos


@attrs.frozen
class ReplaceDecl:
    decl: object
    pos: Pos


Decl = (GameDecl | Players | Include | Extends | OptionDecl | EnumDecl | KindDecl | CardsDecl | ZoneDecl
    | TokenDecl | VarDecl | ConstDecl | DefineDecl | EventDecl | ModifierDecl | ProcDecl | SetupDecl |
    FlowDecl | TriggerDecl | ScoreDecl | TiebreakDecl | InvariantDecl | RemoveDecl | ReplaceDecl)


@attrs.frozen
class ScenarioStep:
    """One line of a scenario: given, play, choose, expect or expect decision."""

    kind: str
    text: str | None  # the label or prompt for choose / expect decision; the procedure for play
    args: tuple  # expressions: play's arguments; expect's condition
    by: Expr | None
    body: tuple  # given's statements
    pos: Pos


@attrs.frozen
class ScenarioDecl:
    name: str
    players: int | None
    seed: int
    options: tuple  # of (name, Expr)
    steps: tuple
    pos: Pos


@attrs.frozen
class TableItem:
    """One item of the `table:` section: what a player sees, in the game's terms.

    kind is section, board, row, places, counter, track, markers, grid, line or score. `exprs`
    holds the item's expressions in the grammar's order (a row's cards, a track's value and
    size, a markers track's from, to, markers and position); `var` is the name an item binds
    (a board's player, a note's item, a marker)."""

    kind: str
    label: str
    exprs: tuple
    var: str | None
    note: Expr | None
    when: Expr | None
    children: tuple
    pos: Pos


@attrs.frozen
class TableDecl:
    items: tuple
    pos: Pos


@attrs.frozen
class Module:
    """One parsed rule file."""

    path: str
    decls: tuple
    # Where the file stands in reading order: the line numbers of the `include`/`extends` lines
    # that led to it, from the entry file down (empty for the entry file itself).
    reading: tuple = ()
