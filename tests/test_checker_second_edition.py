"""Mistakes the checker used to let through (issue 17), each with the exact diagnostic it now gives.

Each case is a whole formatted diagnostic: position, code, message, source line, caret and hint, so a
change of wording is a deliberate change of this file.
"""

import textwrap

import pytest

import interpreter
from rulelang.checker import check
from rulelang.diagnostics import RuleError
from rulelang.parser import load_sources, parse_text

PRELUDE = '''game "T"
players 2 to 4
kind agent:
    power: int
cards agent (name, power):
    "The Scout", 1
    "Old Mill", 2
zone pile: public
var x: int = 0
define twice(a: int, b: list of card) = a
procedure give(p: player):
    pass
'''
FIRST_LINE = PRELUDE.count("\n") + 1


def diagnostics_of(snippet: str) -> str:
    text = PRELUDE + snippet
    with pytest.raises(RuleError) as err:
        check([parse_text(text, "case.rules")], {"case.rules": text})
    return str(err.value)


def test_a_misspelt_card_name_in_card_named_is_an_error_with_a_suggestion():
    out = diagnostics_of('flow:\n    move card_named("The Scuot") to pile\n')
    assert out == textwrap.dedent(f'''\
        case.rules:{FIRST_LINE + 1}:21: E201 no card is named 'The Scuot'
                move card_named("The Scuot") to pile
                                ^
            hint: did you mean `The Scout`?
        1 error''')


def test_a_misspelt_card_name_compared_with_a_name_is_an_error():
    out = diagnostics_of('flow:\n    for c in cards(agent):\n        if c.name == "The Scuot":\n'
                         '            pass\n')
    assert out.splitlines()[0] == f"case.rules:{FIRST_LINE + 2}:22: E201 no card is named 'The Scuot'"
    assert out.splitlines()[3] == "    hint: did you mean `The Scout`?"


def test_every_name_in_a_list_of_card_names_is_checked():
    out = diagnostics_of('flow:\n    for c in cards(agent):\n        if c.name in ["The Scout", "Od Mill"]:\n'
                         '            pass\n')
    assert out.splitlines()[0] == f"case.rules:{FIRST_LINE + 2}:36: E201 no card is named 'Od Mill'"
    assert "did you mean `Old Mill`?" in out


def test_right_card_names_and_other_strings_pass():
    text = PRELUDE + ('flow:\n    move card_named("Old Mill") to pile\n    for c in cards(agent):\n'
                      '        if c.name == "The Scout" or "Old Mill" == c.name:\n            log "{c.name}"\n')
    check([parse_text(text, "case.rules")])


def test_a_house_rule_may_compare_with_a_card_it_removed(tmp_path):
    (tmp_path / "game.rules").write_text(PRELUDE + 'flow:\n    for c in cards(agent):\n'
                                          '        if c.name == "The Scout":\n            pass\n')
    house = tmp_path / "house.rules"
    house.write_text('remove card "The Scout"\n')
    load_sources_and_check(str(tmp_path), [str(house)])


def load_sources_and_check(path, extra):
    modules, sources = load_sources(path, extra)
    return check(modules, sources)


def test_a_while_without_max_is_refused():
    out = diagnostics_of("flow:\n    while x < 3:\n        set x += 1\n")
    assert out == textwrap.dedent(f'''\
        case.rules:{FIRST_LINE + 1}:5: E308 a `while` loop needs a bound: `while ... max N:`
                while x < 3:
                ^
            hint: add `max N` before the colon, N being the most times the loop may run
        1 error''')


def test_a_misspelt_keyword_at_the_start_of_a_line_gets_a_suggestion():
    with pytest.raises(RuleError) as err:
        parse_text('game "T"\nprocedur f():\n    pass\n', "case.rules")
    d = err.value.diagnostics[0]
    assert (d.code, d.pos.line, d.pos.col) == ("E102", 2, 1)
    assert d.hint == "did you mean `procedure`?"


@pytest.mark.parametrize("word, keyword", [("flo", "flow"), ("scoer", "score"), ("setpu", "setup"),
                                           ("invarient", "invariant")])
def test_keywords_beyond_the_listed_ones_are_suggested(word, keyword):
    with pytest.raises(RuleError) as err:
        parse_text(f'game "T"\n{word} x:\n    pass\n', "case.rules")
    assert err.value.diagnostics[0].hint == f"did you mean `{keyword}`?"


def test_a_wrong_number_of_arguments_lists_the_parameters():
    out = diagnostics_of('flow:\n    give\n    log "{twice(1)}"\n')
    lines = out.splitlines()
    assert lines[0] == f"case.rules:{FIRST_LINE + 1}:5: E300 `give` takes 1 argument(s), not 0"
    assert lines[3] == "    hint: procedure give(p: player)"
    assert lines[4] == f"case.rules:{FIRST_LINE + 2}:11: E300 `twice` takes 2 argument(s), not 1"
    assert lines[7] == "    hint: define twice(a: int, b: list of card)"


def test_a_name_declared_twice_is_reported_at_the_later_one_in_reading_order(tmp_path):
    # parts.rules is included at line 3, so its declaration reads before game.rules' line 4.
    (tmp_path / "game.rules").write_text('game "T"\nplayers 2\ninclude "parts.rules"\n'
                                          'var score_a: int = 0\nflow:\n    pass\n')
    (tmp_path / "parts.rules").write_text("var score_a: int = 1\n")
    with pytest.raises(RuleError) as err:
        load_sources_and_check(str(tmp_path), [])
    d = err.value.diagnostics[0]
    assert d.code == "E200"
    assert (d.pos.file, d.pos.line) == (str(tmp_path / "game.rules"), 4)
    assert d.message == f"`score_a` is declared twice (first at {tmp_path / 'parts.rules'}:1:1)"


def test_a_name_declared_twice_in_a_house_rule_points_into_the_house_rule(tmp_path):
    (tmp_path / "game.rules").write_text('game "T"\nplayers 2\nvar score_a: int = 0\nflow:\n    pass\n')
    house = tmp_path / "house.rules"
    house.write_text("\n\nvar score_a: int = 1\n")
    with pytest.raises(RuleError) as err:
        load_sources_and_check(str(tmp_path), [str(house)])
    d = err.value.diagnostics[0]
    assert (d.pos.file, d.pos.line) == (str(house), 3)


def test_players_with_one_number_is_a_fixed_count(tmp_path):
    (tmp_path / "game.rules").write_text('game "T"\nplayers 2\nflow:\n    pass\n')
    game = interpreter.load(str(tmp_path))
    assert (game.min_players, game.max_players) == (2, 2)


def test_a_list_in_a_text_template_reads_by_names(tmp_path):
    (tmp_path / "game.rules").write_text(
        'game "T"\nplayers 3\nkind agent:\n    power: int\ncards agent (name, power):\n'
        '    "The Scout", 1\n    "Old Mill", 2\nzone pile: public\nvar owners: list of player = []\n'
        'flow:\n    set owners = [first(players), last(players)]\n    move cards(agent) to pile\n'
        '    log "owners {owners}; pile {pile}; none {[first(players), none]}; flags {[true, false]}"\n')
    state = interpreter.load(str(tmp_path)).new_game(players=3)
    texts = [e.text for e in state.log]
    assert "owners Player 1, Player 3; pile The Scout, Old Mill; none Player 1, none; flags true, false" in texts


@pytest.mark.parametrize("snippet, first_line", [
    ("flow:\n    return 1\n",
     "E306 `return` belongs in a procedure's own body (not in setup, flow, a trigger or a player's part of "
     "`simultaneously`)"),
    ("procedure f(p: player):\n    return 1\nflow:\n    pass\n", "E302 procedure `f` gives back no value"),
    ("procedure f(p: player) returns int:\n    return first(players)\nflow:\n    pass\n", "E302 expected a int, got a player"),
    ("flow:\n    give first(players) as n\n", "E301 procedure `give` gives back no value to name with `as`"),
    ("flow:\n    choose:\n        for c in 3:\n            option \"{c}\":\n                pass\n",
     "E302 options are made `for` each item of a list or a zone; this is a int"),
])
def test_returning_a_value_and_menus_from_lists_are_checked(snippet, first_line):
    out = diagnostics_of(snippet)
    assert out.splitlines()[0].split(": ", 1)[1] == first_line, out


def test_a_returned_value_has_the_procedure_s_type():
    text = PRELUDE + ("procedure best(p: player) returns card:\n    return first(pile)\n"
                      "flow:\n    best first(players) as c\n    log \"{c.power}\"\n")
    check([parse_text(text, "case.rules")])
