"""`rulelang explain --card NAME`: a card as a player reads it, checked against texts written by
hand from the rule files (what the card's value leads to, in short sentences, the owner as "you")."""

from __future__ import annotations

import pytest
from conftest import ROOT

from interpreter.tools.cardtext import card_text
from interpreter.tools.cli import main
from rulelang.diagnostics import RuleError

EXPECTED = {
    ('off_plan', 'Bathroom'): (
        'Bathroom: a room card, 9 copies\n'
        '  3 copies: provides [Bathroom]; ability Double Bathroom\n'
        '  2 copies: provides [Bathroom]; ability Renovation\n'
        '  2 copies: provides [Bathroom]; ability Investment\n'
        '  2 copies: provides [Bathroom]; ability Promotion\n'
        '\n'
        '  “Double Bathroom: take the adjacent card from the Room market that includes a bathroom. This costs 1 Funds token.”\n'
        '\n'
        '  “Renovation: discard a House from the House market and refill it. This costs 1 Funds token.”\n'
        '\n'
        '  “Investment: place a Funds token from the general supply on one of the neighbourhoods of the Urban Investment card.”\n'
        '\n'
        '  “Promotion: draw a card from the Room deck. This costs 1 Funds token.”\n'
        '\n'
        'Double Bathroom (ability), in “use room ability”:\n'
        '  You choose a card x from room market where bathroom next to(x, slot) (“Double Bathroom: take which adjacent Room?”).\n'
        '  Collect funds for x.\n'
        '  Put x in your hand.\n'
        '\n'
        'Renovation (ability), in “use room ability”:\n'
        '  You choose a card m from house market (“Renovation: discard which House from the House market?”).\n'
        '  Put m in house discard.\n'
        '  Refill house market.\n'
        '\n'
        'Investment (ability), in “use room ability”:\n'
        '  (2 if owns(you, double investment), else 1) times:\n'
        '    If the funds in the supply is more than 0:\n'
        '      You choose a color n (“Investment: place a Funds token from the supply on which neighbourhood?”).\n'
        '      Put 1 funds from the supply on n.\n'
        '\n'
        'Promotion (ability), in “use room ability”:\n'
        '  You draw 1 card from room deck into your hand.\n'
        '\n'
        'Bathroom (provides) counts in bathroom next to, missing, contributes and equipment types.\n'
        '\n'
        'Every room card is used in “exchange step”, “take from room market” and “buy from outlet”.\n'
        '\n'
        '(Every rule in full: rulelang explain games/off_plan --card Bathroom --full)'
    ),
    ('off_plan', 'The Scout'): (
        'The Scout: a character card, 1 copy\n'
        '  icons [School Zone]; power Draw from the deck; mission First to 4 Houses; mission 4\n'
        '\n'
        '  “You may draw the top card of the Room deck instead of taking one from the Room market. Mission (4 profit): Build the 4 Houses first.”\n'
        '\n'
        'Draw from the deck (power), in “play turn”, you may choose “Draw the top card of the Room deck (Character)” when room cards left is more than 0:\n'
        '  You draw 1 card from room deck into your hand.\n'
        '\n'
        'First to 4 Houses (mission) counts in mission done.\n'
        '\n'
        '(Every rule in full: rulelang explain games/off_plan --card "The Scout" --full)'
    ),
    ('off_plan', 'Trick: Two Apart'): (
        'Trick: Two Apart: a trick card, 2 copies\n'
        '  action take two apart\n'
        '\n'
        '  “Take 2 non-adjacent cards from the Room market (and their Funds tokens). You spend no Funds tokens.”\n'
        '\n'
        'Take two apart (action), in “play trick”:\n'
        '  You choose a card a from room market where x is not a and not a is next to x, for some x in room market (“Take which card (1 of 2, not adjacent)?”).\n'
        '  You choose a card b from room market where b is not a and not a is next to b (“Take which other card (not adjacent to the first)?”).\n'
        '  Take without ability for a.\n'
        '  Take without ability for b.\n'
        '\n'
        '(Every rule in full: rulelang explain games/off_plan --card "Trick: Two Apart" --full)'
    ),
    ('off_plan', 'Economic Aid'): (
        'Economic Aid: an event card, 1 copy\n'
        '  effect economic aid\n'
        '\n'
        '  “Economic Aid: place a Funds token on each of the cards in the Room market.”\n'
        '\n'
        'Economic aid (effect), in “resolve event”:\n'
        '  Refill room market.\n'
        '  For each x in room market:\n'
        '    Put 1 funds from the supply on x.\n'
        '\n'
        'Every event card is used in “refill house market”.\n'
        '\n'
        '(Every rule in full: rulelang explain games/off_plan --card "Economic Aid" --full)'
    ),
    ('welcome_to', '1 Surveyor'): (
        '1 Surveyor: a construction card, 1 copy\n'
        '  number 1; effect Surveyor\n'
        '\n'
        '  “Surveyor: draw a fence between two houses of the same street. Estates are the groups of houses between fences.”\n'
        '\n'
        'Surveyor (effect), in “apply effect”:\n'
        '  You may choose st from [0, 1, 2] where fence ok(you, i), for some i in street slots(st), or none (“Surveyor: build a fence in which street?”).\n'
        '  If st is not nothing:\n'
        '    You choose i from street slots(st) where fence ok(you, i) (“Between which houses of the {street name(st)} street?”).\n'
        '    Set your fence[i] to true.\n'
        '\n'
        '(Every rule in full: rulelang explain games/welcome_to --card "1 Surveyor" --full)'
    ),
    ('welcome_to', '7 Pool Manufacturer'): (
        '7 Pool Manufacturer: a construction card, 1 copy\n'
        '  number 7; effect Pool Manufacturer\n'
        '\n'
        '  “Pool Manufacturer: if you wrote the number on a house with a printed pool, build the pool (cross it and the next pool box).”\n'
        '\n'
        'Pool Manufacturer (effect), in “apply effect”:\n'
        '  If your last slot is in pool slots and not your pool built[your last slot]:\n'
        '    You may say yes to “Pool manufacturer: build the pool of the {slot name(your last slot)}?”; if so:\n'
        '      Set your pool built[your last slot] to true.\n'
        '\n'
        '(Every rule in full: rulelang explain games/welcome_to --card "7 Pool Manufacturer" --full)'
    ),
    ('welcome_to', 'Six estates of 1'): (
        'Six estates of 1: a city plan card, 1 copy\n'
        '  n° 1; estates [1, 1, 1, 1, 1, 1]; first 8; later 4; advanced false; goal estate sizes\n'
        '\n'
        'Estate sizes (goal), in “claim plan”:\n'
        "  For each s in c's sizes:\n"
        '    You choose i from all slots where free estate at(you, i, s) (“Which estate of {s} serves plan n°{k + 1}?”).\n'
        '    For each j in the numbers i to (i + s) - 1:\n'
        '      Set your used[j] to true.\n'
        '\n'
        '(Every rule in full: rulelang explain games/welcome_to --card "Six estates of 1" --full)'
    ),
    ('plunderbund', 'Huckster'): (
        'Huckster: a guild member card, 4 copies\n'
        '  origin agent card; actions [seek demand, appeal 1]; costs [1, 1]; synergy []; label 0\n'
        '\n'
        '  “Seek Demand: place an Agent by demand (1 Favors), +1 Appeal (1 Favors)”\n'
        '\n'
        'Seek demand (actions), in “perform”:\n'
        '  If agents in supply(you) is more than 0:\n'
        '    You may choose a card m from sprawl where agent may go(you, m) and the number of coins at(m) is more than 0, or none (“Seek Demand: place an Agent on which merchant (with demand)?”).\n'
        '    If m is not nothing:\n'
        '      Put agent for m.\n'
        '\n'
        'Appeal 1 (actions), in “perform” (as is track move):\n'
        '  Improve for moved track(appeal 1), rows moved(appeal 1), appeal 1 is in last moves.\n'
        '\n'
        'Every guild member card is used in setup, “plan actions” and “play now”.\n'
        '\n'
        '(Every rule in full: rulelang explain games/plunderbund --card Huckster --full)'
    ),
    ('plunderbund', 'Merchant 4'): (
        'Merchant 4: a merchant card, 1 copy\n'
        '  number 4; region Stacktown; icon reputation icon; chit 5\n'
        '\n'
        'Reputation icon (icon), in “fence action”:\n'
        '  Add fence reputation to your reputation.\n'
        '\n'
        '(Every rule in full: rulelang explain games/plunderbund --card "Merchant 4" --full)'
    ),
    ('plunderbund', 'Winter Start Player'): (
        'Winter Start Player: a start token card, 1 copy\n'
        '  season Winter\n'
        '\n'
        '(Every rule in full: rulelang explain games/plunderbund --card "Winter Start Player" --full)'
    ),
}


@pytest.mark.parametrize(("game", "card"), list(EXPECTED), ids=[c for _, c in EXPECTED])
def test_a_card_reads_like_its_printed_text(game, card, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert card_text(f"games/{game}", card) == EXPECTED[(game, card)]


def test_the_command_prints_the_card_text_and_full_keeps_every_rule(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert main(["explain", "games/off_plan", "--card", "The Scout"]) == 0
    assert capsys.readouterr().out == EXPECTED[("off_plan", "The Scout")] + "\n"
    assert main(["explain", "games/off_plan", "--card", "The Scout", "--full"]) == 0
    full = capsys.readouterr().out
    assert full.startswith("The Scout (character card)\n  - icons [school zone]")
    assert "What power draw from deck does:" in full


def test_an_unknown_card_suggests_a_name():
    with pytest.raises(ValueError, match="did you mean `Bathroom`"):
        card_text(str(ROOT / "games" / "off_plan"), "Bathrom")


def _game_with_card_text(folder) -> str:
    """A one-card game whose table gives the card's rules text in a `text` column."""
    rows = '''
enum power: peek, steal
kind spell:
    power: power
{field}
cards spell (name, power, text):
    "Crystal Ball", peek, "Look at the top card of the deck, then put it back."

zone deck: hidden
zone hand per player: owner

procedure cast(p: player, c: card):
    if c.power == peek:
        draw 1 from deck to p.hand
    elif c.power == steal:
        move first(deck) to p.hand

flow:
    for p in players:
        cast p, first(cards(spell))
'''
    head = 'game "Spells"\nplayers 2 to 2\n'
    from interpreter.tools.explain import load_program

    for field in ("", "    text: text"):  # `text` is a column of every kind, or a field declared for it
        (folder / "game.rules").write_text(head + rows.format(field=field))
        try:
            load_program(str(folder))
        except RuleError:
            continue
        return str(folder)
    raise AssertionError("the spell game does not load")


def test_the_cards_own_text_comes_first(tmp_path):
    text = card_text(_game_with_card_text(tmp_path), "Crystal Ball")
    assert text.split("\n")[:4] == [
        "Crystal Ball: a spell card, 1 copy",
        "  power peek",
        "",
        "  \u201cLook at the top card of the deck, then put it back.\u201d",
    ]
    # The rule for the card's own value follows; the other value's rule is not the card's.
    assert "Peek (power), in \u201ccast\u201d:\n  You draw 1 card from deck into your hand." in text
    assert "steal" not in text.lower()
