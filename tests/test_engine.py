"""The interpreter's own behaviour, on a tiny game written for these tests."""

import json
import random

import pytest
from conftest import FIXTURES

import interpreter
from interpreter import Action, IllegalAction, SaveError
from rulelang.diagnostics import RuleRuntimeError

TINY = str(FIXTURES / "tiny")


@pytest.fixture(scope="module")
def game():
    return interpreter.load(TINY)


def play_random(state, seed, limit=10_000):
    rng = random.Random(seed)
    steps = 0
    while not state.is_over and steps < limit:
        player = state.decision.players[0]
        state.apply(rng.choice(state.legal_actions(player)))
        steps += 1
    return steps


def pick(state, label_start):
    player = state.decision.players[0]
    for a in state.legal_actions(player):
        if a.label.startswith(label_start):
            return a
    raise AssertionError(f"no action {label_start!r} in {[a.label for a in state.legal_actions(player)]}")


def test_setup_deals_and_waits_for_first_player(game):
    s = game.new_game(players=3, seed=1)
    assert s.decision.players == (0,)
    assert s.decision.prompt == "Your move"
    view = s.view(0)
    assert view["zones"]["table"]["count"] == 3
    assert view["zones"]["bag"]["cards"] is None  # hidden
    assert view["tokens"]["Player 1"]["coin"] == {"normal": 2}
    assert view["tokens"]["the supply"]["coin"] == {"normal": 4}


def test_hand_is_seen_only_by_its_owner(game):
    s = game.new_game(players=2, seed=1)
    s.apply(pick(s, "Take a gem"))
    s.apply(s.legal_actions(0)[0])
    assert s.view(0)["zones"]["hand#0"]["cards"]
    assert s.view(1)["zones"]["hand#0"]["cards"] is None
    assert s.view(1)["zones"]["hand#0"]["count"] == 1


def test_unaffordable_option_is_not_offered(game):
    s = game.new_game(players=2, seed=1)
    s.s.tokens["p0|coin|normal"] = 0
    s.s.tokens["supply|coin|normal"] += 2
    from interpreter.engine.runtime import Machine
    s.s.pending = None
    s.s.stack[-1].pc = s.s.stack[-1].pc  # re-run the menu with no coins
    Machine(game.compiled, s.s).run()
    labels = [a.label for a in s.legal_actions(0)]
    assert "Buy a draw" not in labels and "Pass" in labels


def test_cost_is_paid_when_chosen(game):
    s = game.new_game(players=2, seed=1)
    # the table starts full (3 slots), so buying is not offered at first
    assert "Buy a draw" not in [a.label for a in s.legal_actions(0)]
    s.apply(pick(s, "Take a gem"))
    s.apply(s.legal_actions(0)[0])  # two gems left: no question about drawing
    # Player 2 now sees a table with room
    assert s.decision.players == (1,)
    before = s.view(1)["tokens"]["Player 2"]["coin"]["normal"]
    s.apply(pick(s, "Buy a draw"))
    assert s.view(1)["tokens"]["Player 2"]["coin"]["normal"] == before - 1


def test_once_per_turn_and_lasting_modifier(game):
    s = game.new_game(players=2, seed=2)
    s.apply(pick(s, "Rush"))
    assert s.s.lasting and s.s.lasting[0].name == "rush"
    # the turn goes on: the may question, then player 2
    while s.decision.players == (0,):
        s.apply(pick(s, "No") if any(a.label == "No" for a in s.legal_actions(0)) else pick(s, "Pass"))
    assert "rush" in [m.name for m in s.s.lasting]  # survives the end of this turn ("next turn")
    # player 2 passes; player 1's next turn: Rush not offered (active), then it ends with that turn
    while s.decision.players == (1,):
        s.apply(pick(s, "Pass") if any(a.label == "Pass" for a in s.legal_actions(1)) else pick(s, "No"))
    assert "Rush" not in [a.label for a in s.legal_actions(0)]
    s.apply(pick(s, "Pass"))
    while s.decision and s.decision.players == (0,):
        s.apply(pick(s, "No"))
    assert s.s.lasting == []


def test_trigger_runs_on_event(game):
    for seed in range(30):
        s = game.new_game(players=2, seed=seed)
        s.apply(pick(s, "Take a gem"))
        rubies = [a for a in s.legal_actions(0) if a.label.startswith("Ruby")]
        if rubies:
            s.apply(rubies[0])
            assert s.view(0)["tokens"]["Player 1"]["coin"] == {"normal": 2, "black": 1}
            return
    pytest.fail("no seed offered a ruby")


def test_choice_labels_use_templates(game):
    s = game.new_game(players=2, seed=1)
    s.apply(pick(s, "Take a gem"))
    labels = [a.label for a in s.legal_actions(0)]
    assert all(("(3)" in lab and lab.startswith("Ruby")) or ("(2)" in lab and lab.startswith("Sapphire"))
               for lab in labels)


def test_games_end_and_scores_add_up(game):
    for seed in range(20):
        s = game.new_game(players=2 + seed % 3, seed=seed)
        play_random(s, seed)
        assert s.is_over and s.decision is None and s.legal_actions(0) == []
        for p in range(s.num_players):
            assert s.scores()[p] == sum(s.score_breakdown(p).values())
        assert s.winners()
        assert s.check_invariants() == []


def test_same_seed_same_game(game):
    a, b = game.new_game(players=3, seed=9), game.new_game(players=3, seed=9)
    play_random(a, 5)
    play_random(b, 5)
    assert a.to_json() == b.to_json()
    c = game.new_game(players=3, seed=10)
    play_random(c, 5)
    assert c.to_json() != a.to_json()


def test_illegal_actions_are_refused_and_change_nothing(game):
    s = game.new_game(players=2, seed=1)
    before = s.to_json()
    with pytest.raises(IllegalAction, match="cannot act now"):
        s.apply(Action(1, 0, "x"))
    with pytest.raises(IllegalAction, match="not a legal choice"):
        s.apply(Action(0, 99, "x"))
    with pytest.raises(IllegalAction, match="not an action"):
        s.apply("take")
    stale = s.legal_actions(0)[0]
    s2 = s.clone()
    s2.apply(stale)
    with pytest.raises(IllegalAction, match="stale"):
        s2.apply(stale)
    assert s.to_json() == before


EQUAL_OPTIONS = """game "Equal options"
players 2
var total: int = 0
flow:
    for p in players:
        turn p:
            choose x in [1, 1, 2] by p prompt "Pick a number" label "take {x}"
            set total += x
score p:
    points: total
"""


@pytest.mark.parametrize("backend", ["codegen", "reference"])
def test_an_option_of_equal_value_is_applied_as_its_index_is(tmp_path, backend):
    """Options of equal value are told apart by their labels: apply() of legal_actions()[i]
    gives the very state apply_index(i) gives (its log line names the option chosen), and an
    action made by hand with only the value takes the first of them."""
    (tmp_path / "game.rules").write_text(EQUAL_OPTIONS)
    g = interpreter.load(str(tmp_path), backend=backend)
    for i in range(3):
        by_action, by_index = g.new_game(players=2, seed=1), g.new_game(players=2, seed=1)
        by_action.apply(by_action.legal_actions(0)[i])
        by_index.apply_index(i, 0)
        assert by_action.to_json() == by_index.to_json()
    labels = [a.label for a in g.new_game(players=2, seed=1).legal_actions(0)]
    assert labels[0] != labels[1]
    second = g.new_game(players=2, seed=1)
    second.apply(second.legal_actions(0)[1])
    assert any(e.text.endswith(labels[1]) for e in second.log)
    by_hand = g.new_game(players=2, seed=1)
    by_hand.apply(Action(0, 1, "one"))
    assert any(e.text.endswith(labels[0]) for e in by_hand.log)


def test_clone_and_json_round_trip_are_equal_and_independent(game):
    s = game.new_game(players=3, seed=4)
    play_random(s, 1, limit=7)
    c = s.clone()
    r = game.state_from_json(s.to_json())
    assert c == s and r == s
    c.apply(c.legal_actions(c.decision.players[0])[0])
    assert c != s and r == s


@pytest.mark.parametrize("edit, reason", [
    (lambda t: t[: len(t) // 2], "not JSON"),
    (lambda t: "[1, 2]", "not a rulelang save"),
    (lambda t: t.replace('"version":1', '"version":7'), "version"),
    (lambda t: t.replace('"game":"Tiny"', '"game":"Other"'), "the save is for"),
])
def test_bad_saves_are_refused_with_a_reason(game, edit, reason):
    s = game.new_game(players=2, seed=1)
    with pytest.raises(SaveError, match=reason):
        game.state_from_json(edit(s.to_json()))


def test_tampered_save_is_refused(game):
    s = game.new_game(players=2, seed=1)
    doc = json.loads(s.to_json())
    doc["state"]["zones"]["table"].append(doc["state"]["zones"]["table"][0])
    with pytest.raises(SaveError, match="inconsistent"):
        game.state_from_json(json.dumps(doc))
    doc = json.loads(s.to_json())
    doc["state"]["tokens"]["p0|coin|normal"] = 50
    with pytest.raises(SaveError, match="tokens exist"):
        game.state_from_json(json.dumps(doc))


def test_options_change_the_game_and_bad_options_are_refused():
    g = interpreter.load(TINY, options={"bonus": "true"})
    s = g.new_game(players=2, seed=1)
    assert s.score_breakdown(0)["bonus"] == 1
    with pytest.raises(ValueError, match="unknown option `colour`"):
        interpreter.load(TINY, options={"colour": 1})
    with pytest.raises(ValueError, match="one of slow, fast"):
        interpreter.load(TINY, options={"speed": "warp"})
    with pytest.raises(ValueError, match="2 to 4 players"):
        g.new_game(players=5)


def write_game(tmp_path, body):
    path = tmp_path / "game.rules"
    path.write_text('game "T"\nplayers 1 to 2\n' + body)
    return str(path)


def test_endless_loop_is_stopped_with_position(tmp_path):
    path = write_game(tmp_path, "var x: int = 0\nflow:\n    while true max 1000000000:\n        set x += 1\n")
    with pytest.raises(RuleRuntimeError, match="steps without a decision") as err:
        interpreter.load(path).new_game(players=1)
    assert err.value.pos is not None and err.value.pos.line >= 4


def test_endless_recursion_is_stopped(tmp_path):
    path = write_game(tmp_path, "procedure f(p: player):\n    f p\nflow:\n    f first(players)\n")
    with pytest.raises(RuleRuntimeError, match="at once"):
        interpreter.load(path).new_game(players=1)


def test_loop_max_is_enforced(tmp_path):
    path = write_game(tmp_path, "flow:\n    while true max 5:\n        pass\n")
    with pytest.raises(RuleRuntimeError, match="max 5"):
        interpreter.load(path).new_game(players=1)


def test_runtime_error_during_an_action_keeps_the_state(tmp_path):
    path = write_game(tmp_path, (
        "var x: int = 0\nflow:\n    turn first(players):\n        may \"Loop forever?\":\n"
        "            while true max 1000000000:\n                set x += 1\n"))
    s = interpreter.load(path).new_game(players=1)
    before = s.to_json()
    yes = s.legal_actions(0)[0]
    with pytest.raises(RuleRuntimeError):
        s.apply(yes)
    assert s.to_json() == before
    s.apply(s.legal_actions(0)[1])
    assert s.is_over


def test_draw_refills_from_the_refill_zone_only_when_empty(game):
    s = game.new_game(players=2, seed=3)
    from interpreter.engine.runtime import EFFECTS, Machine
    m = Machine(game.compiled, s.s)
    bag = list(s.s.zones["bag"])
    for c in bag:
        m.move_card(c, "discard")
    EFFECTS["draw"](m, count=1, source="bag", zone="hand#0")
    assert len(s.s.zones["hand#0"]) == 1
    assert len(s.s.zones["bag"]) == len(bag) - 1 and s.s.zones["discard"] == []


def test_positions_can_be_set_up_and_a_procedure_run(game):
    s = game.new_game(players=2, seed=1)
    for card in list(s.s.zones["table"]):
        s.place(card, "bag")
    ruby = s.place("Ruby", "table", at="top")
    assert s.s.zones["table"][0] == ruby
    s.set_tokens(0, "coin", 0)
    s.set_tokens(1, "coin", 1, side="black")
    assert s.view(0)["tokens"]["Player 2"]["coin"] == {"normal": 2, "black": 1}
    total = sum(v for k, v in s.s.tokens.items() if "|coin|" in k)
    assert total == 10  # conservation kept
    s.run_procedure("take_turn", 0, active=0)
    assert "Buy a draw" not in [a.label for a in s.legal_actions(0)]  # no coins now
    s.apply(pick(s, "Take a gem"))
    s.apply(pick(s, "Ruby"))
    assert ruby in s.s.zones["hand#0"]
    assert s.view(0)["tokens"]["Player 1"]["coin"] == {"black": 1}  # the trigger ran


def test_items_of_lists_and_bags_can_be_set_and_prompts_interpolate(tmp_path):
    path = write_game(tmp_path, (
        "enum gem: ruby, opal\nvar row per player: list of int = [0, 0, 0]\nvar bagged: bag of gem = {ruby: 1}\n"
        "flow:\n    for p in players:\n        turn p:\n            set p.row[1] = 5\n            set p.row[1] += 2\n"
        "            set bagged[opal] += 3\n            may \"Keep {p.row[1]}?\":\n                pass\n"))
    g = interpreter.load(path)
    s = g.new_game(players=1)
    assert s.s.vars["row#0"] == [0, 7, 0]
    assert s.s.vars["bagged"] == {"ruby": 1, "opal": 3}
    assert s.decision.prompt == "Keep 7?"
    c = s.clone()
    c.set_var("bagged", {"ruby": 9, "opal": 3})
    assert s.s.vars["bagged"]["ruby"] == 1  # a clone's changes never reach the original
    # Values in vars are never changed in place (a set makes a new list or bag), so clones share
    # them and copy only the flat state; a list set into a var is the var's own copy.
    assert c.s.vars["row#0"] is s.s.vars["row#0"]


def test_a_choice_for_no_player_is_a_rule_error(tmp_path):
    path = write_game(tmp_path, "flow:\n    may \"Go?\" by active_player:\n        pass\n")
    with pytest.raises(RuleRuntimeError, match="no player to make this choice"):
        interpreter.load(path).new_game(players=1)


def test_a_players_pile_refills_from_their_own_discard(tmp_path):
    path = write_game(tmp_path, (
        "kind c:\n    v: int\ncards c (name, v, copies):\n    \"C\", 1, 6\n"
        "zone pile per player: hidden, refill used\nzone used per player: public\nzone hand per player: owner\n"
        "setup:\n    for p in players:\n        move take(box, 3) to p.used\n"
        "flow:\n    for p in players:\n        draw 2 from p.pile to p.hand\n"))
    s = interpreter.load(path).new_game(players=2)
    for p in range(2):
        assert len(s.s.zones[f"hand#{p}"]) == 2 and len(s.s.zones[f"pile#{p}"]) == 1
        assert s.s.zones[f"used#{p}"] == []


def test_require_refuses_option_combinations_and_player_counts(tmp_path):
    path = write_game(tmp_path, (
        'option solo: bool = false\noption extra: bool = false\n'
        'require not (solo and extra) "the extra rule is not used in solo games"\n'
        'require player_count == 1 or not solo "solo is for one player"\nflow:\n    pass\n'))
    with pytest.raises(ValueError, match="not used in solo games"):
        interpreter.load(path, options={"solo": True, "extra": True})
    g = interpreter.load(path, options={"solo": True})
    g.new_game(players=1)
    with pytest.raises(ValueError, match="solo is for one player"):
        g.new_game(players=2)
    interpreter.load(path, options={"extra": True}).new_game(players=2)


def test_a_winners_rule_can_name_nobody(tmp_path):
    path = write_game(tmp_path, (
        "var lost: bool = false\nvar pts per player: int = 0\nflow:\n    for p in players:\n"
        "        turn p:\n            may \"Give up?\":\n                set lost = true\n"
        "score p:\n    pts: p.pts\nwinners: [] if lost else top_scorers()\n"))
    g = interpreter.load(path)
    s = g.new_game(players=2)
    s.apply(s.legal_actions(0)[1])
    s.apply(s.legal_actions(1)[1])
    assert s.is_over and s.winners() == [0, 1]
    s = g.new_game(players=2)
    s.apply(s.legal_actions(0)[0])
    s.apply(s.legal_actions(1)[1])
    assert s.winners() == []


def test_the_kind_of_token_may_come_from_an_expression(tmp_path):
    """docs/language.md, Tokens: `gain 1, token_for(s) to p` gains the token the define names."""
    path = write_game(tmp_path, "enum symbol: tourist, hipster\ntoken tourists: supply 5\ntoken hipsters: supply 5\n"
                                "define token_for(s: symbol) = tourists if s == tourist else hipsters\n"
                                "setup:\n    gain 1, token_for(hipster) to first(players)\n"
                                "    gain 2, token_for(tourist) to first(players)\n"
                                "flow:\n    pass\n")
    state = interpreter.load(path).new_game(players=1)
    assert state.view(0)["tokens"]["Player 1"] == {"hipsters": 1, "tourists": 2}


def test_a_text_template_shows_values_as_people_read_them(tmp_path):
    """docs/language.md, Layout: players, cards, enum members (display names) and lists in `{...}`."""
    path = write_game(tmp_path, 'enum hue "Colour": red "Red", teal "Teal"\nkind gem:\n    hue: hue\n'
                                'cards gem (name, hue):\n    "Ruby", red\n    "Jade", teal\nzone bag: public\n'
                                "var owners: list of player = []\nsetup:\n    move cards(gem) to bag\n"
                                "    set owners = [first(players), none]\n"
                                '    log "{owners} / {[c for c in bag]} / {[red, teal]} / {[1, 2]} / {first(bag)} / {none}"\n'
                                "flow:\n    pass\n")
    state = interpreter.load(path).new_game(players=2)
    assert state.log[-1].text == "Player 1, none / Ruby, Jade / Red, Teal / 1, 2 / Ruby / none"
