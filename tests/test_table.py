"""The table as players see it (issue 13): the `table:` section, its evaluation into a table
view, the terminal screens drawn from it, and that no screen shows what its viewer may not see.

Snapshots: each game's screen at a fixed seed and step, in plain mode, is held in
tests/snapshots/. They were reviewed by eye once; to accept a deliberate change, run with
RULELANG_UPDATE_SNAPSHOTS=1 and review the diff.
"""

from __future__ import annotations

import io
import json
import os
import random
from pathlib import Path

import pytest

import interpreter
from interpreter.agents import RandomAgent
from interpreter.engine.information import card_visible, zone_visible
from interpreter.tools.play import HumanAgent
from rulelang import RuleError

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"
GAMES = {"off_plan": 2, "welcome_to": 2, "plunderbund": 2, "streets": 2}


@pytest.fixture(scope="module")
def games():
    return {name: interpreter.load(str(ROOT / "games" / name)) for name in GAMES}


def advance(state, steps: int, seed: int):
    agent = RandomAgent(seed=seed)
    for _ in range(steps):
        if state.is_over:
            break
        state.apply(agent.choose(state, state.decision.players[0]))
    return state


def screen(state, player: int | None = None, recap: bool = True) -> list[str]:
    player = state.decision.players[0] if player is None else player
    human = HumanAgent(output=io.StringIO(), plain=True)
    lines = human.screen_lines(state, player, state.legal_actions(player),
                               human.recap(state, player) if recap else [])
    return [line.plain for line in lines]


# ---- snapshots --------------------------------------------------------------------------------


@pytest.mark.parametrize("name,steps", [("off_plan", 40), ("welcome_to", 25), ("plunderbund", 30)])
def test_screen_snapshot(games, name, steps):
    state = advance(games[name].new_game(players=2, seed=7), steps, seed=7)
    text = "\n".join(screen(state)) + "\n"
    path = SNAPSHOTS / f"{name}.txt"
    if os.environ.get("RULELANG_UPDATE_SNAPSHOTS") or not path.exists():
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def test_welcome_to_sheet_is_drawn_as_the_sheet(games):
    """Three streets of 10, 11 and 12 houses, pools where the sheet prints them, the tracks."""
    state = games["welcome_to"].new_game(players=2, seed=1)
    lines = screen(state, 0, recap=False)
    streets = {ln.split()[0]: ln for ln in lines if ln.strip().split(" ")[0] in ("Top", "Middle", "Bottom")}
    assert streets["Top"].count(".") == 10 and streets["Middle"].count(".") == 11
    assert streets["Bottom"].count(".") == 12
    assert [streets[s].split(s, 1)[1].count("o") for s in ("Top", "Middle", "Bottom")] == [3, 3, 3]
    assert any(ln.strip().startswith("Pools:") and "0/9" in ln for ln in lines)
    assert any(ln.strip().startswith("Refusals:") and "0/3" in ln for ln in lines)
    # Writing a number and a fence shows on the sheet, where the rulebook's house is.
    state.set_var("houses", [-1] * 3 + [7] + [-1] * 29, player=0)
    state.set_var("fence", [False] * 3 + [True] + [False] * 29, player=0)
    top = next(ln for ln in screen(state, 0, recap=False) if ln.strip().startswith("Top"))
    cells = top.split("Top", 1)[1]
    assert cells[4 + 15:4 + 20] == " 7  |"  # house 4 (after "Top" padded to "Middle"): number, fence


def test_plunderbund_shows_seats_from_1_and_favors_as_a_count(games):
    state = advance(games["plunderbund"].new_game(players=2, seed=3), 40, seed=3)
    text = "\n".join(screen(state))
    assert "First player this month: Player" in text
    assert "[Favor]" not in text and "Favor pile: " in text
    assert "A1" in text or "A2" in text  # agents on merchants by seat number


# ---- every screen fits --------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(GAMES))
def test_every_screen_of_random_games_fits_100_by_40(games, name):
    rng = random.Random(name)
    for game_no in range(2):
        state = games[name].new_game(players=2, seed=game_no)
        agent = RandomAgent(seed=game_no)
        human = HumanAgent(output=io.StringIO(), plain=True)
        steps = 0
        while not state.is_over and steps < 400:
            player = state.decision.players[0]
            actions = state.legal_actions(player)
            if len(actions) > 1 and rng.random() < 0.5:
                lines = human.screen_lines(state, player, actions, human.recap(state, player))
                assert len(lines) + 1 <= 40, "\n".join(x.plain for x in lines)
                assert max(x.cell_len for x in lines) <= 100, "\n".join(x.plain for x in lines)
            state.apply(agent.choose(state, player))
            steps += 1


# ---- secrets stay secret ------------------------------------------------------------------------


def _unknown(state, viewer: int, card: int) -> bool:
    return not card_visible(state.game.compiled, state.s, card, viewer)


def _swap_hidden(state, viewer: int, rng: random.Random):
    """Change what `viewer` may not see: reorder the cards they do not know within each zone
    they cannot see (a card they know keeps its place). Returns a changed clone."""
    other = state.clone()
    g = other.game.compiled
    for key, cards in other.s.zones.items():
        base = key.partition("#")[0]
        if base == "box" or base not in g.zone_decls or zone_visible(g, key, viewer):
            continue
        places = [i for i, c in enumerate(cards) if _unknown(other, viewer, c)]
        moved = [cards[i] for i in places]
        rng.shuffle(moved)
        for i, c in zip(places, moved, strict=True):
            cards[i] = c
    return other


def _swap_hand_with_deck(state, viewer: int):
    """Exchange a card of another player's owner-only hand with a card of a hidden deck, both
    unknown to the viewer."""
    s = state.clone()
    g = s.game.compiled
    hands = [k for k in s.s.zones if g.zone_decls.get(k.split("#")[0], (0, ""))[1] == "owner"
             and not k.endswith(f"#{viewer}") and any(_unknown(s, viewer, c) for c in s.s.zones[k])]
    decks = [k for k in s.s.zones if g.zone_decls.get(k.split("#")[0], (0, ""))[1] == "hidden"
             and "#" not in k and any(_unknown(s, viewer, c) for c in s.s.zones[k])]
    if not hands or not decks:
        return None
    hand, deck = s.s.zones[hands[0]], s.s.zones[decks[0]]
    i = next(i for i, c in enumerate(hand) if _unknown(s, viewer, c))
    j = max(j for j, c in enumerate(deck) if _unknown(s, viewer, c))
    a, b = hand[i], deck[j]
    hand[i], deck[j] = b, a
    s.s.where[a], s.s.where[b] = decks[0], hands[0]
    return s


def _alter_secrets(state, viewer: int):
    """Change the vars and token counts `viewer` may not read (hidden ones; other players'
    `owner` ones). Returns a changed clone, or None when there is nothing to change."""
    s = state.clone()
    g = s.game.compiled
    changed = False
    for key, value in list(s.s.vars.items()):
        name, _, owner = key.split("@")[0].partition("#")
        vis = g.var_visibility.get(name, "public")
        if vis == "public" or (vis == "owner" and owner == str(viewer)) or name in g.var_card_types:
            continue
        if isinstance(value, bool):
            s.s.vars[key], changed = not value, True
        elif isinstance(value, int):
            s.s.vars[key], changed = value + 1, True
    for key in list(s.s.tokens):
        holder, token, _ = key.split("|")
        vis = g.token_visibility.get(token, "public")
        if vis == "hidden" or (vis == "owner" and holder.startswith("p") and holder != f"p{viewer}"):
            s.s.tokens[key] += 1
            changed = True
    return s if changed else None


@pytest.mark.parametrize("name", list(GAMES))
def test_no_screen_shows_what_its_viewer_may_not_see(games, name):
    rng = random.Random(1)
    checked = 0
    for seed in range(3):
        state = games[name].new_game(players=2, seed=seed)
        for steps in (0, 15, 30):
            state = advance(state, 15 if steps else 0, seed)
            if state.is_over:
                break
            for viewer in range(2):
                before = json.dumps(state.table_view(viewer), sort_keys=True)
                changed = _swap_hidden(state, viewer, rng)
                assert json.dumps(changed.table_view(viewer), sort_keys=True) == before
                swapped = _swap_hand_with_deck(state, viewer)
                if swapped is not None:
                    assert json.dumps(swapped.table_view(viewer), sort_keys=True) == before
                altered = _alter_secrets(state, viewer)
                if altered is not None:
                    assert json.dumps(altered.table_view(viewer), sort_keys=True) == before
                checked += 1
    assert checked >= 6


def test_while_choosing_at_once_others_see_a_sheet_as_it_was(games):
    """Welcome To: after Player 1 writes a number, Player 2's screen still shows Player 1's sheet
    as it was when the turn began; Player 1's own screen shows the number."""
    state = games["welcome_to"].new_game(players=2, seed=2)
    before = json.dumps(state.table_view(1), sort_keys=True)
    while state.decision is not None and 0 in state.decision.players:
        state.apply(state.legal_actions(0)[0])
        if json.dumps(state.table_view(0)) != json.dumps(games["welcome_to"].new_game(players=2, seed=2).table_view(0)):
            break
    assert 1 in state.decision.players  # Player 2 has not chosen yet
    assert json.dumps(state.table_view(1), sort_keys=True) == before


# ---- the language -------------------------------------------------------------------------------

BASE = '''game "Hands"
players 2 to 2
kind chip:
    value "value": int
    face: value
cards chip (name, value, copies):
    "Chip", 1, 4
zone deck "Deck": hidden
zone hand "Hand" per player: owner
zone pool: public
var turns "Turns" per player: int = 0
setup:
    move cards(chip) to deck
    for p in players:
        draw 1 from deck to p.hand
flow:
    for p in players:
        turn p:
            choose c in p.hand prompt "Play" label "Play {c.name}"
            move c to pool
            set p.turns += 1
'''


def load(tmp_path, table: str):
    (tmp_path / "game.rules").write_text(BASE + table)
    return interpreter.load(str(tmp_path))


def test_a_table_shows_what_it_names_and_hides_hands(tmp_path):
    game = load(tmp_path, '''table:
    section "Middle":
        row "Pool" pool
        counter "Deck" count(deck)
    board p:
        row "Hand" p.hand
        counter "Turns" p.turns
        track "Turns taken" p.turns of 1
''')
    view = game.new_game(players=2, seed=1).table_view(0)
    middle, mine, theirs = view["items"]
    assert middle["items"][1] == {"type": "counter", "label": "Deck", "value": "2"}
    assert mine["you"] and mine["label"] == "Player 1" and mine["items"][0]["cards"][0]["face"] == "Chip - value 1"
    assert theirs["items"][0] == {"type": "row", "label": "Hand", "count": 1, "cards": None}
    assert json.loads(json.dumps(view)) == view  # plain data


def test_a_game_without_a_table_has_no_table_view(tmp_path):
    game = load(tmp_path, "")
    assert game.new_game(players=2, seed=1).table_view(0) is None


@pytest.mark.parametrize("table", [
    'table:\n    counter "Top of the deck" first(deck).value\n',
    'table:\n    board p:\n        counter "Hand" count(c in p.hand where c.value > 0)\n',
    'table:\n    row "Peek" [c in deck]\n',
    'table:\n    counter "Peek" peek\ndefine peek = first(deck).name\n',
])
def test_a_table_that_reads_hidden_cards_is_refused(tmp_path, table):
    with pytest.raises(RuleError) as err:
        load(tmp_path, table)
    assert "E309" in str(err.value) and "deck" in str(err.value) or "hand" in str(err.value)


def test_the_generic_view_is_tidy(tmp_path):
    game = load(tmp_path, "")
    state = game.new_game(players=2, seed=1)
    text = "\n".join(screen(state, 0, recap=False))
    assert "box" not in text and "Pool" not in text  # empty zones are left out
    assert "Turns: Player 1 0, Player 2 0" in text  # display names, 0 shown
    assert "Player 2 Hand: 1 card, face down" in text


# ---- secrets of vars and tokens on the table (issue 12's visibility) ------------------------------

SPIES = ROOT / "examples" / "information"


def _board(view, player):
    return next(i for i in view["items"] if i["type"] == "board" and i["player"] == player)


def _counter(board, label):
    return next(i["value"] for i in board["items"] if i.get("label") == label)


def test_owner_secrets_show_on_their_own_board_only():
    """Spies and Seers: each player's chips and looks are `owner`: the viewer reads their own,
    and a `?` on the others' boards, whose running score is unknown too."""
    state = interpreter.load(str(SPIES)).new_game(players=2, seed=1)
    view = state.table_view(0)
    mine, theirs = _board(view, 0), _board(view, 1)
    assert (_counter(mine, "Chips"), _counter(mine, "Looks taken")) == ("5", "0")
    assert (_counter(theirs, "Chips"), _counter(theirs, "Looks taken")) == ("?", "?")
    [score] = [i for i in theirs["items"] if i["type"] == "score"]
    assert score["hidden"] and score["lines"] == [{"label": "chips", "value": None}]
    lines = screen(state, 0, recap=False)
    assert any("Chips: 5" in x for x in lines) and any("Chips: ?" in x for x in lines)


def test_a_hand_looked_at_shows_the_cards_seen_in_place():
    state = interpreter.load(str(SPIES)).new_game(players=2, seed=1)
    state.apply(next(a for a in state.legal_actions(0) if a.label == "Spy"))
    state.apply(next(a for a in state.legal_actions(0) if a.label == "Player 2"))
    row = _board(state.table_view(0), 1)["items"][0]
    hand = [state.game.card_name(c) for c in state.s.zones["hand#1"]]
    assert row["cards"] is None and [(k["at"], k["name"]) for k in row["known"]] == list(enumerate(hand))
    assert "known" not in _board(state.table_view(1), 0)["items"][0]  # Player 2 saw nothing
    assert f"you know #1 {hand[0]}" in "\n".join(screen(state, 0, recap=False))


@pytest.mark.parametrize("table,shown", [
    ('var depth: int = 0, hidden\ntable:\n    counter "Depth" depth\n', "`depth`"),
    ('var note per player: int = 0, owner\ntable:\n    counter "First note" first(players).note\n',
     "`first(players).note`"),
    ('var note per player: int = 0, owner\ntable:\n    board p:\n        counter "Next" next_player(p).note\n',
     "`next_player(p).note`"),
    ('token coin: supply 9, owner\ntable:\n    board p:\n        counter "Left" p.coin when supply.coin > 0\n',
     "`supply.coin`"),
])
def test_a_table_that_shows_a_secret_value_is_refused(tmp_path, table, shown):
    with pytest.raises(RuleError) as err:
        load(tmp_path, table)
    [d] = err.value.diagnostics
    assert d.code == "E309" and d.message.startswith(f"the table shows {shown} to every viewer")


def test_a_players_own_secret_may_be_shown_to_them(tmp_path):
    game = load(tmp_path, 'var note per player: int = 0, owner\ntable:\n    counter "Mine" viewer.note\n'
                          '    board p:\n        counter "Note" p.note\n')
    state = game.new_game(players=2, seed=1)
    state.s.vars["note#1"] = 7
    view = state.table_view(1)
    assert view["items"][0]["value"] == "7" and _counter(_board(view, 1), "Note") == "7"
    assert _counter(_board(state.table_view(0), 1), "Note") == "?"


def test_the_secrecy_check_covers_vars_and_tokens_of_the_example():
    """The leak test's changes (hidden order, hands swapped with the deck, secret amounts) leave
    every table view of Spies and Seers as it was."""
    game = interpreter.load(str(SPIES))
    rng = random.Random(3)
    altered_some = 0
    for seed in range(4):
        state = advance(game.new_game(players=3, seed=seed), seed * 2, seed)
        for viewer in range(3):
            before = json.dumps(state.table_view(viewer), sort_keys=True)
            for changed in (_swap_hidden(state, viewer, rng), _swap_hand_with_deck(state, viewer),
                            _alter_secrets(state, viewer)):
                if changed is not None:
                    assert json.dumps(changed.table_view(viewer), sort_keys=True) == before
            altered_some += _alter_secrets(state, viewer) is not None
    assert altered_some == 12


# ---- the API a front end uses: events since a decision, the card of an action, card text ------

SPELLS = '''game "Spells"
players 2
kind spell:
    power "power": int
    face: power
cards spell (name, power, text):
    "Fireball", 3, "Deal 3 damage to the player on your left."
    "Heal", 1, "Gain 1 life."
    "Frost", 2, "The next player skips a turn."
    "Spark", 1, "Deal 1 damage."
zone deck: hidden
zone hand per player: owner
zone pile: public
setup:
    move cards(spell) to deck
    for p in players:
        draw 2 from deck to p.hand
flow:
    repeat 2:
        for p in players:
            turn p:
                choose c in p.hand by p prompt "Cast" label "Cast {c.name}"
                move c to pile
                log "{p} casts {c.name}"
table:
    row "Pile" pile
    board p:
        row "Hand" p.hand
'''


def test_events_since_a_seats_last_decision(tmp_path):
    (tmp_path / "game.rules").write_text(SPELLS)
    state = interpreter.load(str(tmp_path)).new_game(players=2, seed=1)
    assert state.events_since_last_decision(1) == state.log_for(1)  # before their first: everything
    state.apply(state.legal_actions(0)[0])
    state.apply(state.legal_actions(1)[0])
    state.apply(state.legal_actions(0)[0])
    texts = [e.text for e in state.events_since_last_decision(1)]
    assert texts[0] == "Player 2 casts " + state.game.card_name(state.s.zones["pile"][1])
    assert "Player 1 makes a choice" in texts and texts[-1] == "Player 2's turn"  # not which card
    assert sum(t.startswith("Player 1 casts") for t in texts) == 1
    assert not any(t.startswith("Player 2:") for t in texts)  # their own choice is where it starts


def test_the_card_of_an_action_and_its_text_on_the_terminal(tmp_path):
    (tmp_path / "game.rules").write_text(SPELLS)
    game = interpreter.load(str(tmp_path))
    state = game.new_game(players=2, seed=1)
    actions = state.legal_actions(0)
    cards = [state.action_card(a) for a in actions]
    assert [f"Cast {game.card_name(c)}" for c in cards] == [a.label for a in actions]
    first = cards[0]
    out = io.StringIO()
    human = HumanAgent(input=io.StringIO(f"i 1\nc {game.card_name(first).lower()}\ni 9\nc Nothing\n1\n"),
                       output=out, plain=True)
    assert human.choose(state, 0) == actions[0]
    text = out.getvalue()
    assert text.count(game.card_face(first)) >= 3  # on the table, then for `i 1` and `c NAME`
    assert text.count(game.card_text(first)) == 2
    assert "There is no choice 9." in text and "No card called 'Nothing' is in sight." in text


def test_the_generic_view_shows_a_secret_amount_as_unknown_not_zero(tmp_path):
    game = load(tmp_path, "token gem: supply 9, owner\n")
    state = game.new_game(players=2, seed=1)
    state.s.tokens["p0|gem|gem"] = 3
    text = "\n".join(screen(state, 0, recap=False))
    assert "gem: Player 1 3  Player 2 ?" in text


@pytest.mark.parametrize("name", list(GAMES))
def test_both_backends_draw_the_same_table(name):
    """The table's expressions are generated code by default; the reference closures agree."""
    fast = interpreter.load(str(ROOT / "games" / name), cache=False)
    slow = interpreter.load(str(ROOT / "games" / name), backend="reference", cache=False)
    assert fast.compiled.backend == "codegen" and slow.compiled.backend == "reference"
    a, b = fast.new_game(players=2, seed=4), slow.new_game(players=2, seed=4)
    for _ in range(3):
        for viewer in range(2):
            assert a.table_view(viewer) == b.table_view(viewer)
        a, b = advance(a, 10, seed=4), advance(b, 10, seed=4)


@pytest.mark.parametrize("plain", [True, False])
def test_control_characters_of_a_rule_file_reach_the_screen_as_escapes(tmp_path, plain):
    """A card named with a terminal escape and a bidi override: the screen shows them as text."""
    (tmp_path / "game.rules").write_text(SPELLS.replace('"Heal"', '"He\x1b]0;pwned\x07al\u202e"'))
    game = interpreter.load(str(tmp_path))
    assert "He\x1b]0;pwned\x07al\u202e" in game.compiled.card_names
    state = game.new_game(players=2, seed=1)
    out = io.StringIO()
    human = HumanAgent(output=out, plain=plain)
    human.show(state, 0, state.legal_actions(0), [])
    text = out.getvalue()
    assert "\x1b]0" not in text and "\u202e" not in text and "\x07" not in text
    assert "He\\x1b]0;pwned" in text and "\\u202e" in text  # shown, as escapes (rich drops the bell)


def test_a_define_the_table_uses_is_used(tmp_path):
    from rulelang.checker import check
    from rulelang.lint import lint
    from rulelang.parser import load_sources

    (tmp_path / "game.rules").write_text(BASE + 'define pool_note = "{count(pool)} played"\n'
                                                'table:\n    counter "Pool" pool_note\n')
    modules, sources = load_sources(str(tmp_path), [])
    assert "W110" not in {d.code for d in lint(check(modules, sources))}


def test_streets_city_is_drawn_cell_by_cell(games):
    """Each laid building shows its number (its place in the city's list) at its own row and
    column, with an arrow for its facing; empty cells are dots; rows past the city are left out."""
    state = advance(games["streets"].new_game(players=2, seed=5), 40, seed=5)
    city = state.view(0)["zones"]["city"]
    grid = next(item for item in state.table_view(0)["items"][0]["items"] if item["type"] == "grid")
    header, *rows = grid["lines"]
    columns = [int(c) for c in header["cells"][1:]]
    drawn = {int(line["cells"][0].split()[1]): line["cells"][1:] for line in rows}
    laid = {(r, c): (i + 1, f) for i, (r, c, f) in enumerate(city["cells"])}
    assert set(drawn) == {r for r, _ in laid}  # one line per row of the city, no empty lines
    arrows = {"north": "^", "east": ">", "south": "v", "west": "<"}
    for r, cells in drawn.items():
        for c, cell in zip(columns, cells, strict=True):
            if (r, c) in laid:
                number, facing = laid[(r, c)]
                assert cell.strip().rstrip("*") == f"{number}{arrows[facing]}"
            else:
                assert cell.strip() == "."
