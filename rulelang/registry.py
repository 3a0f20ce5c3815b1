"""The one registry of the language's built-ins.

Every effect (a statement verb such as ``move`` or ``draw``), function (conditions,
selectors and aggregates used inside expressions) and built-in name is declared here
once, with its parameters, their types and a one-line doc. The checker validates calls
against it, the reference docs are generated from it (``docs/builtins.md``), and
"did you mean" suggestions are drawn from it. The interpreter supplies one
implementation per entry; a test checks that none is missing.

Types are short strings understood by the checker:
  int, bool, text, player, card, zone, holder (a player, card, enum member or
  ``supply``), token, side, modifier, position, list, cards (a list of cards),
  players (a list of players), ints (a list of ints), bag, audience (a player or a
  list of players), any, facing (north, east, south or west), spot (a cell of a grid
  zone and a facing), spots (a list of spots).
"""

from __future__ import annotations

import attrs


@attrs.frozen
class Param:
    name: str
    type: str
    doc: str
    clause: str | None = None  # the clause word that introduces it ("to", "from"), or positional
    optional: bool = False


@attrs.frozen
class Builtin:
    name: str
    kind: str  # "effect", "function" or "name"
    params: tuple[Param, ...]
    returns: str
    doc: str
    variadic: bool = False  # a function that takes either one list or several values


def _effect(name: str, doc: str, *params: Param) -> Builtin:
    return Builtin(name, "effect", params, "none", doc)


def _function(name: str, returns: str, doc: str, *params: Param, variadic: bool = False) -> Builtin:
    return Builtin(name, "function", params, returns, doc, variadic)


def _name(name: str, type_: str, doc: str) -> Builtin:
    return Builtin(name, "name", (), type_, doc)


P = Param

EFFECTS: tuple[Builtin, ...] = (
    _effect(
        "move",
        "Move a card, or a list of cards, to a zone; at the end unless `at top` or `at N`.",
        P("cards", "cards", "the card or cards to move"),
        P("zone", "zone", "where they go", clause="to"),
        P("position", "position", "top, bottom or a 0-based index", clause="at", optional=True),
    ),
    _effect(
        "draw",
        "Move the first N cards of a zone to another; an empty source with a `refill` zone "
        "is refilled first by shuffling that zone into it. `as x` names the cards drawn.",
        P("count", "int", "how many cards"),
        P("source", "zone", "the zone drawn from (its first card is its top)", clause="from"),
        P("zone", "zone", "where the cards go", clause="to"),
        P("position", "position", "top, bottom or a 0-based index", clause="at", optional=True),
        P("name", "binding", "a local name for the list of cards drawn", clause="as", optional=True),
    ),
    _effect(
        "shuffle",
        "Shuffle a zone with the game's seeded generator; `into z` first moves its cards to z "
        "and shuffles z.",
        P("zone", "zone", "the zone to shuffle"),
        P("into", "zone", "shuffle the cards into this zone instead", clause="into", optional=True),
    ),
    _effect(
        "gain",
        "Move tokens to a holder from the supply (or `from` another holder); takes only what "
        "the source has, since supplies are limited.",
        P("amount", "int", "how many tokens"),
        P("token", "token", "which kind of token"),
        P("holder", "holder", "who receives them", clause="to"),
        P("source", "holder", "where they come from (default: supply)", clause="from", optional=True),
        P("side", "side", "the side they arrive on (default: the first side)", clause="side",
          optional=True),
    ),
    _effect(
        "pay",
        "Move tokens from a holder to the supply (or `to` another holder); fails if the holder "
        "has too few. Sides are spent from the last declared to the first.",
        P("amount", "int", "how many tokens"),
        P("token", "token", "which kind of token"),
        P("holder", "holder", "who pays", clause="from"),
        P("target", "holder", "who receives them (default: supply)", clause="to", optional=True),
        P("side", "side", "spend only tokens on this side", clause="side", optional=True),
    ),
    _effect(
        "flip",
        "Turn tokens held by a holder over to another side.",
        P("amount", "int", "how many tokens"),
        P("token", "token", "which kind of token"),
        P("holder", "holder", "whose tokens", clause="from"),
        P("side", "side", "the side they show afterwards", clause="to"),
    ),
    _effect(
        "place",
        "Lay a card on a cell of a grid zone, facing one way: `place c onto city at s` where s is a "
        "spot (from `open_spots`, `spot_at` or `spot`). A card laid on an occupied cell goes on top.",
        P("card", "card", "the card laid"),
        P("zone", "zone", "a zone declared with `grid`", clause="onto"),
        P("spot", "spot", "the cell and facing", clause="at"),
    ),
    _effect(
        "reveal",
        "Let players see cards now, wherever they lie (a hand, the top of a deck); without `to`, "
        "everyone. They keep knowing a card while they can follow it; a shuffle makes them forget.",
        P("cards", "cards", "the card or cards shown"),
        P("players", "audience", "who sees them: a player or a list of players (default: everyone)",
          clause="to", optional=True),
    ),
)

FUNCTIONS: tuple[Builtin, ...] = (
    # aggregates
    _function("count", "int", "How many items a list or zone has.", P("items", "list", "a list or zone")),
    _function("sum", "int", "The sum of a list of numbers.", P("items", "ints", "numbers")),
    _function("max", "int", "The largest of several numbers, or of a list (0 when empty).",
              P("items", "ints", "numbers"), variadic=True),
    _function("min", "int", "The smallest of several numbers, or of a list (0 when empty).",
              P("items", "ints", "numbers"), variadic=True),
    _function("any", "bool", "Whether any item of a list is true; of a filter (`x in xs where ...`), whether "
              "some item satisfies its condition. Given a comprehension, it stops at the first true item.",
              P("items", "list", "a list")),
    _function("all", "bool", "Whether every item of a list is true; of a filter, whether every item satisfies its "
              "condition. Given a comprehension, it stops at the first false item.", P("items", "list", "a list")),
    _function("abs", "int", "The absolute value of a number.", P("value", "int", "a number")),
    # ranking
    _function("rank_high", "int",
              "Rank of a value among values, largest first; ties share the best place (1, 2, 2, 4).",
              P("value", "int", "the value ranked"), P("values", "ints", "all values compared")),
    _function("rank_low", "int",
              "Rank of a value among values, largest first; ties and all after them drop a place "
              "(1, 3, 3, 4).",
              P("value", "int", "the value ranked"), P("values", "ints", "all values compared")),
    _function("rank_dense", "int",
              "Rank of a value among the distinct values, largest first (1, 2, 2, 3).",
              P("value", "int", "the value ranked"), P("values", "ints", "all values compared")),
    # lists
    _function("first", "any", "The first item of a list or zone (its top), or none.",
              P("items", "list", "a list or zone")),
    _function("last", "any", "The last item of a list or zone, or none.", P("items", "list", "a list or zone")),
    _function("reversed", "list", "A list in the opposite order.", P("items", "list", "a list")),
    _function("distinct", "list", "A list without repeated items, first occurrence kept.",
              P("items", "list", "a list")),
    _function("flatten", "list", "One list made of a list of lists.", P("items", "list", "a list of lists")),
    _function("range", "ints", "The whole numbers from low to high, both included.",
              P("low", "int", "first number"), P("high", "int", "last number")),
    _function("lookup", "int", "The item of a table at an index, clamped to the table's ends.",
              P("table", "ints", "a list of numbers"), P("index", "int", "0-based index")),
    _function("index_of", "int", "The 0-based position of an item in a list, or -1 when it is absent.",
              P("items", "list", "a list or zone"), P("item", "any", "the item looked for")),
    _function("take", "list", "The first N items of a list.", P("items", "list", "a list"),
              P("count", "int", "how many")),
    # bags (multisets of enum members)
    _function("bag", "bag", "Count the members in a list: [a, a, b] becomes {a: 2, b: 1}.",
              P("items", "list", "a list of enum members")),
    _function("size", "int", "The total count of a bag.", P("bag", "bag", "a bag")),
    _function("shortfall", "int",
              "How many items of `need` are not covered by `have`, summed over all members.",
              P("need", "bag", "what is needed"), P("have", "bag", "what is available")),
    # cards and zones
    _function("cards", "cards", "Every card of a kind, in table order.", P("kind", "kind", "a kind of card")),
    _function("card_named", "card", "The first copy of the card with this name (for scenarios and tests).",
              P("name", "text", "the card's name")),
    _function("cards_named", "cards", "Every copy of the card with this name, in table order.",
              P("name", "text", "the card's name")),
    _function("position", "int", "A card's 0-based position in its zone (0 is the top, or leftmost).",
              P("card", "card", "a card")),
    _function("left_of", "cards", "The cards before a card in its zone (to its left).",
              P("card", "card", "a card")),
    _function("right_of", "cards", "The cards after a card in its zone (to its right).",
              P("card", "card", "a card")),
    _function("adjacent", "bool", "Whether two cards sit next to each other in the same zone.",
              P("a", "card", "a card"), P("b", "card", "another card")),
    _function("owner", "player", "The player whose per-player zone holds a card, or none.",
              P("card", "card", "a card")),
    _function("zone_name", "text", "The name of the zone a card is in.", P("card", "card", "a card")),
    # grids: zones declared with `grid` hold cards on square cells, each facing one of four ways
    _function("open_spots", "spots",
              "Every empty cell next to (north, east, south or west of) a card of a grid zone, once "
              "for each facing, by row, column and facing; an empty grid offers row 0, column 0.",
              P("zone", "zone", "a grid zone")),
    _function("spot_at", "spot", "The spot at a row and column with a facing (row numbers grow southward, "
              "columns eastward).",
              P("row", "int", "the row"), P("column", "int", "the column"), P("facing", "facing", "the facing")),
    _function("spot", "spot", "The spot of a card laid on a grid (its cell and facing), or none.",
              P("card", "card", "a card")),
    _function("row", "int", "The row of a spot, or of a card laid on a grid.", P("where", "any", "a spot or card")),
    _function("column", "int", "The column of a spot, or of a card laid on a grid.",
              P("where", "any", "a spot or card")),
    _function("facing", "facing", "The facing of a spot, or of a card laid on a grid.",
              P("where", "any", "a spot or card")),
    _function("step", "spot", "The spot one cell from a spot toward a facing (keeping the spot's own facing).",
              P("spot", "spot", "a spot"), P("toward", "facing", "which way")),
    _function("rotated", "facing", "A facing turned clockwise by a number of quarter turns (2: the opposite).",
              P("facing", "facing", "a facing"), P("turns", "int", "quarter turns, clockwise")),
    _function("card_at", "card", "The top card on a cell of a grid zone, or none.",
              P("zone", "zone", "a grid zone"), P("row", "int", "the row"), P("column", "int", "the column")),
    _function("cards_at", "cards", "Every card on a cell of a grid zone, bottom first (cards may be stacked).",
              P("zone", "zone", "a grid zone"), P("row", "int", "the row"), P("column", "int", "the column")),
    _function("beside", "cards", "The top cards of the four cells next to a laid card (north, east, south, west).",
              P("card", "card", "a laid card")),
    _function("neighbours", "cards", "The top cards of the eight cells around a laid card, by row and column.",
              P("card", "card", "a laid card")),
    _function("around", "cards",
              "The top cards of the eight cells around a spot of a grid zone (the spot need not be empty), "
              "by row and column.",
              P("zone", "zone", "a grid zone"), P("spot", "spot", "a spot")),
    _function("line", "cards",
              "The unbroken run of top cards through a laid card, side by side across its facing "
              "(a card facing north or south: along its row), that face the same way as it; "
              "westmost or northmost first.",
              P("card", "card", "a laid card")),
    _function("ends", "cards",
              "The top cards on the cells just past both ends of a card's `line` (none, one or two).",
              P("card", "card", "a laid card")),
    _function("line_at", "cards",
              "The cards a card laid at a spot would join in its `line` (the spot itself left out), "
              "westmost or northmost first.",
              P("zone", "zone", "a grid zone"), P("spot", "spot", "where the card would go")),
    _function("faces", "bool", "Whether a laid card faces another: the other is on the next cell toward "
              "its facing.",
              P("a", "card", "the card that faces"), P("b", "card", "the card faced")),
    _function("knows", "bool",
              "Whether a player knows a card now: its zone shows it to them, or they looked at it "
              "(`reveal`) or saw it before it moved, and it was not shuffled since.",
              P("player", "player", "a player"), P("card", "card", "a card")),
    # players
    _function("players_from", "players", "All players in turn order, starting with one.",
              P("player", "player", "the first player")),
    _function("next_player", "player", "The player after one in turn order.", P("player", "player", "a player")),
    _function("previous_player", "player", "The player before one in turn order.",
              P("player", "player", "a player")),
    _function("others", "players", "All players but one, in turn order after them.",
              P("player", "player", "the player left out")),
    # tokens and modifiers
    _function("tokens", "int", "How many tokens of a kind a holder has, on one side or all.",
              P("holder", "holder", "who holds them"), P("token", "token", "which token"),
              P("side", "side", "count only this side", optional=True)),
    _function("top_scorers", "players",
              "The players with the highest score, ties broken by the tiebreak lines (the usual winners)."),
    _function("lowest_scorers", "players",
              "The players with the lowest score, ties broken by the tiebreak lines (higher wins the tie): "
              "`winners: lowest_scorers()` for a game where the lowest score wins."),
    _function("score_of", "int", "A player's score now: the sum of the game's score lines.",
              P("player", "player", "a player")),
    _function("score_part", "int", "One score line of a player, by its label.",
              P("player", "player", "a player"), P("label", "text", "the score line's label")),
    _function("active", "bool", "Whether a lasting modifier is in force (for a player, if given).",
              P("modifier", "modifier", "a declared modifier"),
              P("player", "player", "the player it was started for", optional=True)),
)

NAMES: tuple[Builtin, ...] = (
    _name("players", "players", "All players, in seat order."),
    _name("player_count", "int", "The number of players."),
    _name("active_player", "player", "The player whose turn it is."),
    _name("round_number", "int", "How many rounds have begun (1 in the first round)."),
    _name("turn_number", "int", "How many turns have begun."),
    _name("supply", "holder", "The general supply of every token."),
    _name("box", "zone", "Where every card starts, and where removed cards go."),
    _name("top", "position", "The first place of a zone."),
    _name("bottom", "position", "The last place of a zone."),
    _name("north", "facing", "A facing on a grid: toward row - 1."),
    _name("east", "facing", "A facing on a grid: toward column + 1."),
    _name("south", "facing", "A facing on a grid: toward row + 1."),
    _name("west", "facing", "A facing on a grid: toward column - 1."),
    _name("facings", "list:facing", "The four facings, clockwise from north."),
)

# Words with a fixed meaning in declarations, checked by the checker.
ZONE_VISIBILITY = ("public", "owner", "hidden")
ZONE_PROPERTIES = {
    "public": "everyone sees the cards",
    "owner": "only the owning player sees the cards; others see how many",
    "hidden": "nobody sees the cards; everyone sees how many",
    "slots": "the most cards the zone holds (a market row)",
    "refill": "the zone shuffled into this one when a draw finds it empty",
    "grid": "cards are laid on square cells, each facing north, east, south or west (see `place`)",
}
TOKEN_PROPERTIES = {
    "supply": "how many tokens exist; all start in the supply",
    "sides": "the names of the token's sides, or `of ENUM` for one side per member; the first is the usual side",
    "public": "everyone sees how many each holder has (the default)",
    "owner": "a player sees how many they hold; the others see no count",
    "hidden": "nobody sees how many anyone holds",
}
# Who sees a var's value: `var x per player: int = 0, owner`.
VAR_VISIBILITY = {
    "public": "everyone sees it (the default)",
    "owner": "a per-player var: its player sees it; a per-card var: whoever sees the card",
    "hidden": "nobody sees it; only the rules read it",
}
TYPE_NAMES = ("int", "bool", "text", "player", "card", "spot", "facing")
DURATIONS = ("turn", "round", "game")
ONCE_PER = ("turn", "round", "game")
PER_WHAT = ("player",)

BY_NAME: dict[str, Builtin] = {b.name: b for b in EFFECTS + FUNCTIONS + NAMES}
EFFECT_NAMES = frozenset(b.name for b in EFFECTS)
FUNCTION_NAMES = frozenset(b.name for b in FUNCTIONS)


def signature(b: Builtin) -> str:
    """How a built-in is written: `move <cards> to <zone> [at <position>]`, `count(list: list) -> int`."""
    if b.kind == "effect":
        parts = []
        for p in b.params:
            word = f"{p.clause} " if p.clause else ""
            piece = f"{word}<{p.name}>"
            parts.append(f"[{piece}]" if p.optional else piece)
        return f"{b.name} {' '.join(parts)}"
    if b.kind == "function":
        sig = ", ".join(f"{p.name}{'?' if p.optional else ''}: {p.type}" for p in b.params)
        return f"{b.name}({sig}) -> {b.returns}"
    return f"{b.name}: {b.returns}"


def reference_markdown() -> str:
    """The built-ins as a Markdown reference page (written to docs/builtins.md)."""
    out = ["# Built-ins", "", "Generated from `rulelang/registry.py`; do not edit by hand.", ""]
    for title, group in (("Effects", EFFECTS), ("Functions", FUNCTIONS), ("Names", NAMES)):
        out += [f"## {title}", ""]
        for b in group:
            if b.kind == "name":
                out.append(f"### `{b.name}`: {b.returns}")
            else:
                out.append(f"### `{signature(b)}`")
            out += ["", b.doc, ""]
            for p in b.params:
                out.append(f"- `{p.name}` ({p.type}{', optional' if p.optional else ''}): {p.doc}")
            if b.params:
                out.append("")
    return "\n".join(out)
