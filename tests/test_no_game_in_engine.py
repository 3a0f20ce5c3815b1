"""Rule 1 of DEVELOPERS.md: the engine names no game, card or game noun.

The nouns come from two places: a fixed list of each first game's words, and the names
declared in every game's rule files (kinds, tokens, enum members, cards, procedures).
"""

import re

import pytest
from conftest import ROOT

from rulelang import registry
from rulelang.checker import check
from rulelang.parser import load_sources

FIXED = ["funds", "vulture", "neighbourhood", "neighborhood", "racketeer", "merchant", "hipster",
         "plunderbund", "off_plan", "offplan", "welcome_to", "surveyor", "landscaper", "wildcard",
         "bedroom", "bathroom", "estate", "hangout", "favor", "guild"]

# Words that are the language's own vocabulary, or plain English any engine uses.
GENERIC = {
    "supply", "hand", "deck", "card", "cards", "player", "players", "round", "turn", "black", "normal",
    "public", "owner", "hidden", "table", "market", "discard", "score", "points", "value", "name",
    "count", "first", "last", "bonus", "event", "events", "setup", "token", "tokens", "draw", "move",
    "shuffle", "pass", "done", "build", "take", "take_turn", "other", "others", "start", "end", "next",
    "place", "choose", "option", "mode", "standard", "level", "action", "actions", "total", "order",
    "position", "slots", "refill", "zone", "zones", "kind", "color", "colour", "type", "types", "left",
    "right", "board", "track", "side", "sides", "note", "index", "check", "state", "label",
    "stock", "swap", "pay", "gain", "flip", "spend", "cost", "costs", "free", "played", "play",
    "rank", "ranking", "draft", "store", "basic", "money", "effect", "effects", "extra", "limit", "items",
    "result", "rules", "system", "after", "before", "top", "bottom", "range", "random", "green", "blue",
    "red", "orange", "yellow", "white", "purple", "icon", "icons", "ability", "abilities", "invest",
    "public_building", "building", "buildings", "counter", "record", "report", "summary",
    # "house rules" is the name of one of our features; the others are plain English
    "house", "local", "missing", "apart", "draws", "character", "payment", "double",
    "agent", "every", "numbers", "built", "filled", "above", "below", "refuse", "guard", "offered",
    "parks", "finished", "the local",
    # validate's metrics: whoever has the highest score is "the leader" in any game
    "leader", "leaders",
    # Python's own word (Path.parent) as much as a kind of person in a game
    "parent", "person",
}


def game_nouns() -> set[str]:
    nouns = set(FIXED)
    builtins = set(registry.BY_NAME)
    for game in sorted((ROOT / "games").iterdir()):
        if not (game / "game.rules").exists():
            continue
        modules, sources = load_sources(str(game))
        program = check(modules, sources)
        names = set(program.kinds) | set(program.tokens) | set(program.member_enum) | set(program.procs)
        names |= set(program.zones) | set(program.events) | set(program.modifiers) | set(program.defines)
        for table in program.cards:
            for row in table.rows:
                title = getattr(row.values[table.columns.index("name")], "value", "")
                if isinstance(title, str) and len(title) >= 5:
                    names.add(title)  # a card's whole name; its single words are often plain English
        nouns |= {x.lower() for x in names if len(x) >= 5}
    return {x for x in nouns if x not in GENERIC and x not in builtins}


def engine_files():
    for folder in ("rulelang", "interpreter"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in (".py", ".lark"):
                yield path


def test_there_are_nouns_to_look_for():
    assert len(game_nouns()) > len(FIXED)


@pytest.mark.parametrize("path", list(engine_files()), ids=lambda p: p.name)
def test_engine_file_names_no_game(path):
    text = path.read_text(encoding="utf-8").lower()
    found = sorted(w for w in game_nouns() if re.search(rf"(?<![a-z_]){re.escape(w)}(?![a-z_])", text))
    assert not found, f"{path.relative_to(ROOT)} names game nouns: {found}"
