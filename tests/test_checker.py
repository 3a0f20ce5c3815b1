"""The checker's messages, by example: each broken snippet and the diagnostic it must give.

The prelude declares a small game; each case adds a few lines with one mistake.
"""

import pytest

from rulelang.checker import check
from rulelang.diagnostics import RuleError
from rulelang.parser import parse_text

PRELUDE = '''game "T"
players 2 to 4
enum color: red, blue
kind house:
    color: color
    profit: int
cards house (name, color, profit):
    "A", red, 1
zone deck: hidden
zone hand per player: owner
token funds: supply 10, sides normal black
var built per player: int = 0
event built_house(p: player, h: card)
modifier bargains
flow:
    pass
'''

CASES = [
    # (snippet, code, words in the message, words in the hint)
    ("procedure f(p: player):\n    gain 1 fnuds to p\n", "E208", "unknown token `fnuds`", "`funds`"),
    ("procedure f(p: player):\n    move first(p.hnad) to deck\n", "E202", "has no `hnad`", "`hand`"),
    ("procedure f(p: player):\n    shufle deck\n", "E203", "unknown effect or procedure `shufle`", "`shuffle`"),
    ("procedure f(p: player):\n    let x = cuont(deck)\n", "E203", "unknown function `cuont`", "`count`"),
    ("procedure f(p: player):\n    move first(deck) into p.hand\n", "E301", "no `into` clause", "usage: move"),
    ("procedure f(p: player):\n    move first(deck)\n", "E301", "needs a `to` clause", "usage: move"),
    ("procedure f(p: player):\n    let x = hand\n", "E201", "belongs to each player: write `p.hand`", None),
    ("procedure f(p: player):\n    let x = [h in deck where h is hosue]\n", "E205", "unknown kind `hosue`",
     "`house`"),
    ("procedure f(p: player):\n    let x = first(deck).colour\n", "E202", "has no `colour`", "`color`"),
    ("procedure f(p: player):\n    set built += 1\n", "E305", "not a variable that can be set", None),
    ("procedure f(p: player):\n    set p.hand = 1\n", "E305", "cannot be set", None),
    ("procedure f(p: player):\n    emit built_hose p, first(deck)\n", "E206", "unknown event", "`built_house`"),
    ("procedure f(p: player):\n    emit built_house p\n", "E300", "takes 2 value(s), not 1", None),
    ("procedure f(p: player):\n    start bargins until end of turn\n", "E207", "unknown modifier", "`bargains`"),
    ("procedure f(p: player):\n    start bargains until end of week\n", "E209", "until the end of", None),
    ("procedure f(p: player):\n    g p, p\nprocedure g(p: player):\n    pass\n", "E300",
     "takes 1 argument(s), not 2", None),
    ("procedure f(p: player):\n    if p.built:\n        pass\n", "E302", "expected a bool", None),
    ("procedure f(p: player):\n    let x = p.built + red\n", "E302", "needs numbers", None),
    ("procedure f(p: player):\n    for x in 3:\n        pass\n", "E302", "needs a list or a zone", None),
    ("cards house (name, color, profit):\n    \"B\", red\n", "E303", "has 2 values; the table has 3", None),
    ("cards house (name, color, profit):\n    \"B\", green, 1\n", "E201", "unknown name `green`", None),
    ("cards house (name, colour, profit):\n    \"B\", red, 1\n", "E202", "not a field of `house`", "`color`"),
    ("zone market: public, slot 4\n", "E209", "unknown zone property `slot`", "`slots`"),
    ("zone market: public, refill dekc\n", "E201", "`refill` needs a shared zone", "`deck`"),
    ("token gems: suply 3\n", "E209", "unknown token property", "`supply`"),
    ("option mode: a | b = c\n", "E210", "must be one of a, b", None),
    ("kind card2:\n    value: nubmer\n", "E204", "unknown type `nubmer`", None),
    ("zone deck: public\n", "E200", "declared twice", "replace"),
    ("on turn_ends(p):\n    pass\n", "E206", "unknown event", "`turn_end`"),
    ("define v(p: player) = v(p)\n", "E302", "in terms of itself", None),
    ("remove kind hosue\n", "E211", "no kind `hosue`", "`house`"),
    ("score p:\n    a: p.built > 1\n", "E302", "expected a int, got a bool", None),
    ("procedure f(p: player):\n    choose:\n        option \"A\" cost 1 gold:\n            pass\n", "E208",
     "unknown token `gold`", None),
]


@pytest.mark.parametrize("snippet, code, message, hint", CASES)
def test_broken_snippet_gives_its_diagnostic(snippet, code, message, hint):
    text = PRELUDE + snippet
    with pytest.raises(RuleError) as err:
        check([parse_text(text, "case.rules")], {"case.rules": text})
    found = [d for d in err.value.diagnostics if d.code == code and message in d.message]
    assert found, str(err.value)
    d = found[0]
    assert message in d.message, str(err.value)
    if hint:
        assert d.hint and hint in d.hint, str(err.value)
    # the position points into the snippet, not the prelude
    assert d.pos.line > PRELUDE.count("\n"), str(err.value)


def test_every_error_is_reported_in_one_run():
    text = PRELUDE + "procedure f(p: player):\n    shufle deck\n    gain 1 fnuds to p\n    let x = nope\n"
    with pytest.raises(RuleError) as err:
        check([parse_text(text, "case.rules")], {"case.rules": text})
    assert [d.code for d in err.value.diagnostics] == ["E203", "E208", "E201"]


def test_formatted_diagnostic_has_position_source_line_and_caret():
    text = PRELUDE + "procedure f(p: player):\n    gain 1 fnuds to p\n"
    with pytest.raises(RuleError) as err:
        check([parse_text(text, "case.rules")], {"case.rules": text})
    lines = str(err.value).splitlines()
    line_no = PRELUDE.count("\n") + 2
    assert lines[0] == f"case.rules:{line_no}:5: E208 unknown token `fnuds`"
    assert lines[1] == "        gain 1 fnuds to p"
    assert lines[2] == "        ^"
    assert lines[3] == "    hint: did you mean `funds`?"


def test_suggestions_come_only_from_names_valid_there():
    # `built` is a per-player var; as a bare name the hint says how to reach it, not a spelling.
    text = PRELUDE + "procedure f(p: player):\n    let x = built\n"
    with pytest.raises(RuleError) as err:
        check([parse_text(text, "case.rules")], {"case.rules": text})
    assert "write `p.built`" in err.value.diagnostics[0].message


def test_the_prelude_itself_is_clean():
    check([parse_text(PRELUDE, "case.rules")])


@pytest.mark.parametrize("text, code, where", [
    ('game "T"\nflow:\n    pass\n  pass\n', "E102", (4, 1)),
    ('game "T"\nflow:\n', "E103", None),
    ('game "T"\nflow:\n    let x = (1 +\n', "E102", None),
    ('game "T"\nflow:\n    let x = 1 $ 2\n', "E101", (3, 15)),
    ('game "T\n', "E101", (1, 6)),
    ("[" * 500, "E102", (1, 61)),
    # brackets are counted before reading, in comments too, and a closing one never below zero
    ('game "T"\n# ' + "(" * 61 + "\n", "E102", (2, 63)),
    ('game "T"\n' + ")" * 5 + "\n# " + "{" * 61 + "\n", "E102", (3, 63)),
    ('game "T"\nflow:\n' + " " * 241 + "pass\n", "E102", (3, 1)),
    ('game "T"\nflow:\n' + "\t" * 241 + "pass\n", "E102", (3, 1)),
    ('game "T"\nflow:\n' + " \t" * 121 + "pass\n", "E102", (3, 1)),
])
def test_syntax_errors(text, code, where):
    with pytest.raises(RuleError) as err:
        parse_text(text, "s.rules")
    d = err.value.diagnostics[0]
    assert d.code == code, str(err.value)
    if where:
        assert (d.pos.line, d.pos.col) == where, str(err.value)


@pytest.mark.parametrize("text", [
    'game "T"\n# ' + "(" * 60 + "\n",  # as deep as brackets may go
    'game "T"\n# ' + "()" * 100 + ")" * 3 + "\n# " + "[" * 60 + "\n",
    'game "T"\n# ' + " " * 300 + "\n",  # a long run of blanks that indents nothing
])
def test_nesting_at_the_limit_is_not_refused_before_reading(text):
    assert parse_text(text, "s.rules").decls[0].title == "T"


def check_text(text):
    return check([parse_text(text, "case.rules")], {"case.rules": text})


def test_maps_with_enum_keys_and_other_values_are_typed():
    program = check_text(PRELUDE + (
        "enum site: s1, s2\nconst region_of = {s1: red, s2: blue}\nconst table = {red: [1, 2], blue: [3, 4]}\n"
        "var r: color = red\nprocedure f(p: player):\n    set r = region_of[s2]\n"
        "    let x = lookup(table[r], 1)\n"))
    assert program.consts["region_of"]


def test_a_local_first_set_to_none_takes_the_type_of_its_first_value():
    check_text(PRELUDE + "procedure f(p: player):\n    let kept = none\n    set kept = first(deck)\n"
                         "    let v = kept.profit\n")


def test_flatten_of_zones_is_a_list_of_cards():
    check_text(PRELUDE + "procedure f(p: player):\n    let v = sum(c.profit for c in flatten([deck, p.hand]))\n"
                         "    let w = sum(c.profit for c in deck + p.hand)\n")


def load_with_house(tmp_path, house_text):
    from conftest import FIXTURES

    import interpreter
    house = tmp_path / "house.rules"
    house.write_text(f'extends "{FIXTURES / "tiny"}"\n' + house_text)
    return interpreter.load(str(house))


def test_a_house_rule_replaces_and_removes_score_lines_and_cards(tmp_path):
    g = load_with_house(tmp_path, 'score p:\n    gems: 100\n    extra: 1\nremove score "bonus"\nremove card "Ruby"\n')
    s = g.new_game(players=2, seed=1)
    assert s.score_breakdown(0) == {"gems": 100, "coins": 1, "extra": 1}
    assert "Ruby" not in g.compiled.card_names


def test_a_house_rule_with_a_wrong_target_points_into_the_house_file(tmp_path):
    from rulelang.diagnostics import RuleError
    with pytest.raises(RuleError) as err:
        load_with_house(tmp_path, 'remove card "Rubby"\nremove score "bonnus"\nreplace procedure take_trun(p: player):\n    pass\n')
    diags = err.value.diagnostics
    assert all(d.pos.file.endswith("house.rules") for d in diags), str(err.value)
    assert [d.code for d in diags] == ["E211", "E211", "E211"]
    assert "`Ruby`" in diags[0].hint and "`bonus`" in diags[1].hint


def test_the_same_score_line_twice_in_one_file_is_an_error():
    text = PRELUDE + "score p:\n    a: 1\n    a: 2\n"
    with pytest.raises(RuleError) as err:
        check_text(text)
    assert err.value.diagnostics[0].code == "E200"


def test_a_prompt_cannot_use_the_item_being_chosen():
    with pytest.raises(RuleError) as err:
        check_text(PRELUDE + 'procedure f(p: player):\n    choose k in [0, 1] by p prompt "Pick {k}"\n')
    assert err.value.diagnostics[0].code == "E201" and "`k`" in err.value.diagnostics[0].message


def test_a_house_rule_can_remove_an_invariant(tmp_path):
    g = load_with_house(tmp_path, 'remove invariant "the table never overflows"\n')
    assert g.compiled.invariants == []
    from rulelang.diagnostics import RuleError
    with pytest.raises(RuleError, match="no invariant"):
        load_with_house(tmp_path, 'remove invariant "the table never overflow"\n')


def test_the_fields_hidden_reads_walks_are_an_attrs_class_s_but_its_position():
    """checker._walked_fields (kept per class for hidden_reads): every field but `pos`, in order;
    nothing for a class that is not an attrs class."""
    from rulelang import checker
    from rulelang import nodes as n

    assert checker._walked_fields(n.Call) == ("func", "args", "kwargs")
    assert checker._walked_fields(n.Cond) == ("then", "test", "orelse")
    assert checker._walked_fields(str) == () and checker._walked_fields(type(None)) == ()
    assert checker._WALKED_FIELDS[n.Call] == ("func", "args", "kwargs")
