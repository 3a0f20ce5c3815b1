"""Grids (zones of cards laid on cells, each facing a way) and tokens with a side per enum member:
the checker's messages, what each grid built-in gives on a known layout, saves and budgets."""

import pytest

import interpreter
from interpreter.engine.api import SaveError
from interpreter.engine.budget import Budget
from interpreter.engine.runtime import Machine
from rulelang.checker import check
from rulelang.diagnostics import RuleError, RuleRuntimeError
from rulelang.parser import parse_text

GAME = '''game "Tiles"
players 1 to 2
enum hue: red, blue
kind tile:
    hue: hue
cards tile (name, hue):
    "A", red
    "B", red
    "C", blue
    "D", blue
    "E", red
    "F", blue
zone bag: public
zone board: public, grid
zone hand per player: owner
token pawn: supply 10, sides of hue

setup:
    move cards(tile) to bag

flow:
    turn first(players):
        choose s in open_spots(board) by first(players) prompt "Where?" label "row {row(s)}, column {column(s)}, {facing(s)}"
        place first(bag) onto board at s

score p:
    laid: count(board)
'''


def load(tmp_path, text=GAME):
    (tmp_path / "game.rules").write_text(text)
    return interpreter.load(str(tmp_path))


def call(state, func, *args):
    """A built-in of the running engine, on a state (what a rule's expression would give)."""
    from interpreter.engine.runtime import FUNCTIONS
    return FUNCTIONS[func](Machine(state.game.compiled, state.s), *args)


def lay(state, name, row, column, facing):
    card = state.find_cards(name)[0]
    m = Machine(state.game.compiled, state.s)
    m.move_card(card, "board", cell=[row, column, facing])
    return card


def names(state, cards):
    return [state.game.card_name(c) for c in cards]


def test_an_empty_grid_offers_its_first_cell_in_every_facing(tmp_path):
    state = load(tmp_path).new_game(1)
    assert [a.label for a in state.legal_actions()] == [
        "row 0, column 0, north", "row 0, column 0, east", "row 0, column 0, south", "row 0, column 0, west"]
    state.apply(state.legal_actions()[2])
    assert state.s.cells == {"0": [0, 0, "south"]}
    assert state.view(0)["zones"]["board"]["cells"] == [[0, 0, "south"]]


def test_lines_ends_and_neighbours_on_a_known_layout(tmp_path):
    state = load(tmp_path).new_game(1)
    # A B C face south side by side on row 0; D caps the east end facing west; E lies below B.
    a, b, c = lay(state, "A", 0, 0, "south"), lay(state, "B", 0, 1, "south"), lay(state, "C", 0, 2, "south")
    d = lay(state, "D", 0, 3, "west")
    e = lay(state, "E", 1, 1, "north")
    assert names(state, call(state, "line", b)) == ["A", "B", "C"]
    assert names(state, call(state, "ends", a)) == ["D"]          # the west end is open
    assert names(state, call(state, "line", d)) == ["D"]          # facing west: its line is its column
    assert names(state, call(state, "ends", d)) == []
    assert names(state, call(state, "line", e)) == ["E"]          # facing the other way: not B's line
    assert names(state, call(state, "beside", b)) == ["C", "E", "A"]  # north, east, south, west
    assert names(state, call(state, "neighbours", e)) == ["A", "B", "C"]
    assert call(state, "faces", d, c) and not call(state, "faces", c, d)
    assert call(state, "faces", e, b) and call(state, "faces", b, e)
    assert names(state, call(state, "line_at", "board", [0, -1, "south"])) == ["A", "B", "C"]
    assert names(state, call(state, "line_at", "board", [0, -1, "north"])) == []
    assert call(state, "card_at", "board", 0, 3) == d and call(state, "card_at", "board", 5, 5) is None
    spots = call(state, "open_spots", "board")
    assert [0, -1, "east"] in spots and [0, 0, "north"] not in spots and len(spots) == 4 * 10
    assert call(state, "spot", d) == [0, 3, "west"] and call(state, "spot", state.find_cards("F")[0]) is None
    assert call(state, "step", [0, 3, "west"], "north") == [-1, 3, "west"]
    assert call(state, "rotated", "west", 1) == "north" and call(state, "rotated", "north", 2) == "south"


def test_a_card_laid_on_another_is_on_top_and_only_the_top_makes_lines(tmp_path):
    state = load(tmp_path).new_game(1)
    a = lay(state, "A", 0, 0, "south")
    b = lay(state, "B", 0, 1, "south")
    c = lay(state, "C", 0, 1, "east")
    assert call(state, "card_at", "board", 0, 1) == c
    assert call(state, "cards_at", "board", 0, 1) == [b, c]
    assert names(state, call(state, "line", a)) == ["A"] and names(state, call(state, "ends", a)) == ["C"]


def test_moving_a_card_off_the_grid_clears_its_cell_and_move_cannot_lay_one(tmp_path):
    state = load(tmp_path).new_game(1)
    a = lay(state, "A", 0, 0, "south")
    m = Machine(state.game.compiled, state.s)
    m.move_card(a, "bag")
    assert state.s.cells == {}
    with pytest.raises(RuleRuntimeError, match="is a grid"):
        m.move_card(a, "board")


def test_a_save_keeps_the_cells_and_refuses_forged_ones(tmp_path):
    game = load(tmp_path)
    state = game.new_game(1)
    state.apply(state.legal_actions()[1])
    restored = game.state_from_json(state.to_json())
    assert restored == state and restored.s.cells == {"0": [0, 0, "east"]}
    assert state.clone() == state and state.clone().s.cells is not state.s.cells
    forged = state.to_json().replace('"east"', '"up"')
    with pytest.raises(SaveError):
        game.state_from_json(forged)


def test_grid_work_is_charged_to_the_budget(tmp_path):
    state = load(tmp_path).new_game(1)
    for i, name in enumerate("ABCDEF"):
        lay(state, name, 0, i, "south")
    m = Machine(state.game.compiled, state.s, Budget(10))
    from interpreter.engine.runtime import FUNCTIONS
    with pytest.raises(RuleRuntimeError, match="steps"):
        for _ in range(5):
            m.memo = {}
            FUNCTIONS["line"](m, state.find_cards("A")[0])


def test_rules_that_use_a_grid_and_sides_by_expression_run(tmp_path):
    text = GAME.replace('''        place first(bag) onto board at s''', '''        let t = first(bag)
        place t onto board at s
        gain 2 pawn to t side t.hue
        pay 1 pawn from t side t.hue
        set shown = "{count(line(t))} {count(ends(t))} {tokens(t, pawn, t.hue)} {tokens(t, pawn, blue)}"''')
    text = text.replace("zone bag: public", 'zone bag: public\nvar shown: text = ""')
    state = load(tmp_path, text).new_game(1)
    state.apply(state.legal_actions()[0])
    assert state.s.vars["shown"] == "1 0 1 0"
    assert state.s.tokens["c0|pawn|red"] == 1 and state.s.tokens["supply|pawn|red"] == 9


def test_a_side_outside_the_tokens_sides_is_refused(tmp_path):
    state = load(tmp_path).new_game(1)
    m = Machine(state.game.compiled, state.s)
    with pytest.raises(RuleRuntimeError, match="no side 'green'"):
        m.transfer(1, "pawn", "supply", "p0", None, strict=False, arrive_side="green")
    with pytest.raises(RuleRuntimeError, match="no side 'green'"):
        m.token_count("p0", "pawn", "green")
    assert m.token_count("supply", "pawn") == 10


BAD = [
    ("zone z: public, grid 3\nflow:\n    pass\n", "E209", "takes no value"),
    ("token t: supply 3, sides of colour\nflow:\n    pass\n", "E204", "not an enum"),
    ("enum hue: red, blue\ntoken t: supply 3, sides of hue\nflow:\n    gain 1 t to supply side 3\n", "E201",
     "expected a token side"),
    ("zone z: public, grid\nflow:\n    place 3 onto z at spot_at(0, 0, south)\n", "E302", "expected a card"),
    ("zone z: public, grid\ndefine d(s: spot) = row(s) + column(s)\ndefine e(f: facing) = rotated(f, 1)\n"
     "flow:\n    let x = d(spot_at(1, 2, up))\n", "E201", "unknown name `up`"),
]


@pytest.mark.parametrize("text, code, message", BAD)
def test_checker_messages_for_grids_and_sides(text, code, message):
    with pytest.raises(RuleError) as err:
        check([parse_text('game "T"\nplayers 1\n' + text, "t.rules")])
    assert any(d.code == code and message in d.message for d in err.value.diagnostics), err.value


def test_spots_have_stable_action_ids_for_the_adapters(tmp_path):
    from interpreter.adapters.encoding import ActionIds, EncodingError
    game = load(tmp_path)
    ids = ActionIds.for_game(game)
    radius = len(game.compiled.card_names)
    assert ids.spot_radius == radius
    seen = set()
    for spot in ([0, 0, "north"], [0, 0, "west"], [-radius, radius, "south"], [3, -2, "east"]):
        i = ids.id_of(spot)
        assert ids.value_of(i) == spot and i not in seen and i < ids.size
        seen.add(i)
    with pytest.raises(EncodingError):
        ids.id_of([radius + 1, 0, "north"])
