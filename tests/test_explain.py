"""`rulelang explain`: the rules in plain English, from the syntax tree."""

from __future__ import annotations

import re

import attrs
import pytest
from conftest import FIXTURES, ROOT

from interpreter.tools.cli import main
from interpreter.tools.explain import Explainer, explain_card, explain_game, load_program
from rulelang import nodes as n

TINY = str(FIXTURES / "tiny")
OFF_PLAN = str(ROOT / "games" / "off_plan")
GAMES = [str(p) for p in sorted((ROOT / "games").iterdir()) if (p / "game.rules").exists()]


def procedure_text(path: str, name: str) -> list[str]:
    x = Explainer(load_program(path))
    return x.procedure(x.p.procs[name])[1:]


def test_a_procedure_reads_as_plain_english():
    assert procedure_text(TINY, "take_turn") == [
        "  the current player chooses one (\u201cYour move\u201d):",
        "    - \u201cTake a gem\u201d (only if the number of cards in table is more than 0):",
        "      the current player chooses a card g from table (\u201cWhich gem?\u201d)",
        "      put g in p's hand",
        "      add 1 to p's taken",
        "      announce \u201cgem taken\u201d for p, g (which sets off 1 trigger)",
        "    - \u201cBuy a draw\u201d (only if the number of cards in table is less than 3 and the number of cards "
        "in bag is more than 0; paying 1 coin):",
        "      draw 1 card from bag onto table",
        "    - \u201cRush\u201d (only if \u201crush\u201d is not in force for p; once per turn):",
        "      \u201crush\u201d is in force for p until the end of p's next turn",
        "    - \u201cPass\u201d:",
        "      nothing",
        "  if the number of cards in table is less than 2:",
        "    the current player may say yes to \u201cDraw a gem for the table?\u201d; if so:",
        "      draw (2 if speed is fast and the number of cards in table is 0, else 1) cards from bag onto table "
        "(call them drawn)",
    ]


def test_drawing_into_a_players_zone_names_the_player():
    text = explain_game(OFF_PLAN)
    assert "    p draws 2 cards from room deck into their hand" in text.splitlines()


def test_a_menu_with_a_chooser_and_a_cost(tmp_path):
    rules = tmp_path / "g.rules"
    rules.write_text('game "G"\nplayers 2 to 2\ntoken funds: supply 10\nzone deck: hidden\n'
                     'zone hand per player: owner\nflow:\n    for p in players:\n        turn p:\n'
                     '            act p\nprocedure act(p: player):\n    choose by p prompt "Act":\n'
                     '        option "Draw" cost 1 funds:\n            draw 2 from deck to p.hand\n'
                     '        option "Wait":\n            gain 1 funds to p\n')
    assert procedure_text(str(rules), "act") == [
        "  p chooses one (\u201cAct\u201d):",
        "    - \u201cDraw\u201d (paying 1 funds):",
        "      p draws 2 cards from deck into their hand",
        "    - \u201cWait\u201d:",
        "      p gains 1 funds",
    ]
    flow = Explainer(load_program(str(rules))).structure()
    assert flow[:5] == ["Then the game goes:", "  for each player p, in seat order:", "    p's turn:",
                        "      carry out \u201cact\u201d for p",
                        "(The game ends when this is done, or when a rule says the game ends.)"]


def test_the_turn_structure_of_the_tiny_game():
    text = explain_game(TINY)
    assert ("Then the game goes:\n  as long as not last round (at most 40 times):\n    a round:\n"
            "      for each player p, in seat order:\n        p's turn:\n          carry out \u201ctake turn\u201d for p"
            ) in text
    assert "Whenever \u201cgem taken\u201d happens (p, g), if g's color is red:" in text
    assert "  p gains 1 coin (black side up)" in text
    assert "  - gems: the total of g's value over each g in p's hand" in text


def test_a_card_leads_to_the_procedure_of_its_ability():
    text = explain_card(OFF_PLAN, "The Scout")
    assert text.startswith("The Scout (character card)\n  - icons [school zone], power draw from deck")
    assert "What power draw from deck does:" in text
    assert ("    - \u201cDraw the top card of the Room deck (Character)\u201d (only if has(p, draw from deck) "
            "and room cards left is more than 0):\n      p draws 1 card from room deck into their hand") in text
    assert "mission done(p, m) means: (m is first four houses and p's first to four) (among other cases)" in text


def test_an_ability_dispatched_by_if_is_expanded_one_level():
    text = explain_card(OFF_PLAN, "Bedroom")
    assert ("    if c's ability is promotion:\n      carry out \u201cpromotion ability\u201d for p:\n"
            "        p draws 1 card from room deck into their hand") in text


def test_the_else_branch_of_a_dispatch_belongs_to_the_remaining_value():
    text = explain_card(OFF_PLAN, "Economic Aid")
    assert "otherwise (when c's effect is economic aid):" in text
    assert "put 1 funds from the supply on x" in text


def test_an_unknown_card_suggests_a_name(capsys):
    with pytest.raises(ValueError, match="did you mean `The Scout`"):
        explain_card(OFF_PLAN, "The Scuot")
    assert main(["explain", OFF_PLAN, "--card", "The Scuot"]) == 1
    assert "no card named 'The Scuot'" in capsys.readouterr().err


def test_explain_command(capsys):
    assert main(["explain", TINY]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Tiny\n====\nFor 2 to 4 players.")
    house = str(ROOT / "examples" / "house_rules" / "off_plan" / "short_game.rules")
    assert main(["explain", OFF_PLAN, "--house", house]) == 0
    out = capsys.readouterr().out
    assert "if t is a house card and house count(p) is houses to end" in out


def test_every_node_class_has_a_renderer():
    x = Explainer
    for cls in list(vars(n).values()):
        if not (isinstance(cls, type) and attrs.has(cls)):
            continue
        if cls in (n.Lit, n.Template, n.Name, n.Attr, n.Index, n.Gen, n.Call, n.BinOp, n.Compare, n.Is, n.BoolOp,
                   n.Not, n.Neg, n.Cond, n.ListLit, n.MapLit):
            assert hasattr(x, f"x_{cls.__name__}"), cls
        if cls in (n.Let, n.Set, n.Verb, n.Pass, n.EndGame, n.Log, n.Fail, n.Emit, n.Start, n.If, n.For, n.While,
                   n.Repeat, n.Simul, n.Turn, n.Round, n.Pick, n.Menu, n.May):
            assert hasattr(x, f"s_{cls.__name__}"), cls


@pytest.mark.parametrize("game", GAMES, ids=lambda p: p.rsplit("/", 1)[-1])
def test_every_game_explains_without_placeholders(game):
    text = explain_game(game)
    assert "<" not in text.replace("<=", "")  # no `<Class>` left unrendered
    assert "Procedures\n----------" in text and "Scoring\n-------" in text


def test_a_new_card_whose_effect_is_a_trigger():
    text = explain_card(str(ROOT / "examples" / "cards" / "off_plan" / "the_heir.rules"), "The Heir")
    assert re.search(r"What power inheritance does:\n  in the trigger on \u201cturn start\u201d:   "
                     r"\[\S*the_heir\.rules:25:1\]\n", text)
    assert ("    Whenever \u201cturn start\u201d happens (p), if has(p, inheritance):\n"
            "      carry out \u201cinheritance income\u201d for p:\n"
            "        if house count(p) is 0 and the funds in the supply is more than 0:\n"
            "          p gains 1 funds") in text


def test_a_condition_inside_and_or_is_bracketed():
    from interpreter.tools.explain import Explainer
    from rulelang.checker import Program
    from rulelang.nodes import Pos
    from rulelang.parser import parse_expr

    text = Explainer(Program()).expr(parse_expr("true and (false if true else true)", Pos("x", 1, 1)))
    assert text.startswith("true and ") and "(" in text
