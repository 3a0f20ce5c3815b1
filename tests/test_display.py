"""Display names, card text and card faces (issue 13): what a rule file says people should read."""

import pytest

import interpreter
from interpreter.tools.validate import static_warnings
from rulelang import RuleError

GAME = '''game "Estates"
players 2 to 2

enum color "Neighbourhood": red "Red", orange "Orange"
enum equipment: bedroom "Bedroom", kitchen "Kitchen", garden_shed
kind house "House":
    color: color
    profit "profit": int
    needs "needs": bag of equipment
    starter: bool
    face: color, profit, needs, starter
cards house (name, color, profit, needs, starter, text):
    "Family Home", orange, 6, {kitchen: 1, bedroom: 2}, false, "Score 2 more for each orange House."
    "Shed", red, 1, {garden_shed: 1}, true, "Build it first."
    "Plain", red, 2, {}, false, ability_text[0]

const ability_text = ["No ability."]

zone market "House market": public
zone hand "Hand" per player: owner
token funds "Funds": supply 10
var bonus "Bonus" per player: int = 0

setup:
    move cards(house) to market

flow:
    choose c in market by first(players) prompt "Which House?" label "{c.name} in {c.color}"
    log "{c.name}: {c.text}"
'''


@pytest.fixture
def game(tmp_path):
    (tmp_path / "game.rules").write_text(GAME)
    return interpreter.load(str(tmp_path))


def test_card_face_is_drawn_from_the_face_attributes(game):
    assert game.card_face(0) == "Family Home - Orange - profit 6 - needs Kitchen, Bedroom x2"
    # A true flag shows its label, an unnamed member its name with spaces; false and empty are left out.
    assert game.card_face(1) == "Shed - Red - profit 1 - needs garden shed - starter"
    assert game.card_face(2) == "Plain - Red - profit 2"


def test_card_text_is_the_text_column_and_may_come_from_a_const(game):
    assert game.card_text(0) == "Score 2 more for each orange House."
    assert game.card_text(2) == "No ability."


def test_display_names_of_declarations(game):
    assert game.display_name("market") == "House market"
    assert game.display_name("orange") == "Orange"
    assert game.display_name("funds") == "Funds"
    assert game.display_name("bonus") == "Bonus"
    assert game.display_name("garden_shed") == "garden shed"  # none given: the name, readable


def test_labels_and_logs_use_display_names_and_card_text(game):
    state = game.new_game(players=2, seed=1)
    labels = [a.label for a in state.legal_actions()]
    assert labels == ["Family Home in Orange", "Shed in Red", "Plain in Red"]
    state.apply(state.legal_actions()[0])
    assert state.log[-1].text == "Family Home: Score 2 more for each orange House."


def test_a_table_without_text_gives_empty_text(tmp_path):
    (tmp_path / "game.rules").write_text(GAME.replace(", text):", "):").replace(
        ', "Score 2 more for each orange House."', "").replace(', "Build it first."', "").replace(
        ", ability_text[0]", ""))
    game = interpreter.load(str(tmp_path))
    assert game.card_text(0) == ""


def test_face_naming_an_unknown_attribute_is_an_error(tmp_path):
    (tmp_path / "game.rules").write_text(GAME.replace("face: color, profit", "face: colour, profit"))
    with pytest.raises(RuleError) as err:
        interpreter.load(str(tmp_path))
    assert "E202" in str(err.value) and "`colour`" in str(err.value) and "color" in str(err.value)


def test_a_kind_text_line_gives_each_card_its_text_from_its_fields(tmp_path):
    body = GAME.replace("    face: color, profit, needs, starter\n",
                        "    face: color, profit, needs, starter\n    text: color_text[color]\n")
    body = body.replace('const ability_text', 'const color_text = {red: "Red pays 1.", orange: "Orange pays 2."}\nconst ability_text')
    body = body.replace(', "Build it first."', "")  # no text column: the kind's line gives it
    body = body.replace(", text):", "):").replace(', "Score 2 more for each orange House."', "").replace(
        ", ability_text[0]", "")
    (tmp_path / "game.rules").write_text(body)
    game = interpreter.load(str(tmp_path))
    assert [game.card_text(i) for i in range(3)] == ["Orange pays 2.", "Red pays 1.", "Red pays 1."]
    warnings, _, _ = static_warnings(str(tmp_path))  # the text line reads the const: it is used
    assert not [w for w in warnings if "color_text" in w.message]
