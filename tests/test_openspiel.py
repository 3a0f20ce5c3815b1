"""The OpenSpiel adapter: OpenSpiel's own random simulation test, tic-tac-toe in rule files
cross-checked node by node against OpenSpiel's, its algorithms (minimax, MCTS) on a rule file,
and what the observations may not show."""

from __future__ import annotations

from pathlib import Path

import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import mcts, minimax  # noqa: E402

import interpreter  # noqa: E402
from interpreter.adapters.encoding import ActionIds, EncodingError  # noqa: E402
from interpreter.openspiel import load_game  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TIC_TAC_TOE = str(ROOT / "examples" / "games" / "tic_tac_toe")


@pytest.fixture(scope="module")
def ttt():
    return load_game(TIC_TAC_TOE, players=2)


def test_tic_tac_toe_passes_openspiels_random_simulation_test(ttt):
    pyspiel.random_sim_test(ttt, num_sims=20, serialize=False, verbose=False)


def test_tic_tac_toe_matches_openspiels_node_by_node(ttt):
    """Walk both games' trees side by side, once per distinct position: the same legal actions,
    the same player to move, the same returns at the end; 5,478 positions in both."""
    theirs_game = pyspiel.load_game("tic_tac_toe")
    ours_of: dict[str, str] = {}
    stack = [(ttt.new_initial_state(), theirs_game.new_initial_state())]
    while stack:
        ours, theirs = stack.pop()
        key = str(theirs)
        if key in ours_of:
            assert ours_of[key] == str(ours), f"one OpenSpiel position, two of ours:\n{key}"
            continue
        ours_of[key] = str(ours)
        assert ours.is_terminal() == theirs.is_terminal(), key
        if theirs.is_terminal():
            assert ours.returns() == theirs.returns(), key
            continue
        assert ours.current_player() == theirs.current_player(), key
        assert ours.legal_actions() == theirs.legal_actions(), key
        for action in theirs.legal_actions():
            stack.append((ours.child(action), theirs.child(action)))
    assert len(ours_of) == 5478
    assert len(set(ours_of.values())) == 5478


def test_tic_tac_toe_minimax_value_is_a_draw(ttt):
    """Minimax over the rule file's positions (remembering each by its text): a draw, as in
    OpenSpiel's tic-tac-toe; the first square decides nothing better than a draw either."""
    memo: dict[str, float] = {}

    def value(state) -> float:  # the first player's return under best play
        key = str(state)
        if key not in memo:
            if state.is_terminal():
                memo[key] = state.returns()[0]
            else:
                children = [value(state.child(a)) for a in state.legal_actions()]
                memo[key] = max(children) if state.current_player() == 0 else min(children)
        return memo[key]

    root = ttt.new_initial_state()
    assert value(root) == 0.0
    assert [value(root.child(a)) for a in root.legal_actions()] == [0.0] * 9


@pytest.mark.slow
def test_tic_tac_toe_openspiel_alpha_beta_agrees(ttt):
    value, _ = minimax.alpha_beta_search(ttt)
    assert value == 0.0


def test_chance_mode_is_openspiels_for_the_same_game(ttt):
    """A game whose rules never shuffle has no chance node: deterministic, as OpenSpiel's own
    tic-tac-toe (its solvers refuse other games); Kuhn poker deals: explicitly stochastic."""
    assert ttt.get_type().chance_mode == pyspiel.load_game("tic_tac_toe").get_type().chance_mode \
        == pyspiel.GameType.ChanceMode.DETERMINISTIC
    kuhn = load_game(str(ROOT / "examples" / "games" / "kuhn_poker"), players=2)
    assert kuhn.get_type().chance_mode == pyspiel.load_game("kuhn_poker").get_type().chance_mode \
        == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC


def test_openspiel_mcts_bot_plays_a_rule_file(ttt):
    bot = mcts.MCTSBot(ttt, uct_c=2, max_simulations=300, evaluator=mcts.RandomRolloutEvaluator(1, None),
                       random_state=__import__("numpy").random.RandomState(3))
    state = ttt.new_initial_state()
    for square in (0, 3, 1, 4):  # X to play: the top right square wins at once
        state.apply_action(square)
    assert bot.step(state) == 2


def test_action_ids_are_stable_and_refuse_what_has_no_id():
    game = interpreter.load(TIC_TAC_TOE)
    ids = ActionIds.for_game(game)
    assert ids.int_count == 9  # the largest number written in the rules is 8
    assert [ids.id_of(v) for v in (0, 8, None, False, True)] == [0, 8, 9, 10, 11]
    assert [ids.value_of(i) for i in (0, 8, 9, 10, 11)] == [0, 8, None, False, True]
    with pytest.raises(EncodingError, match="raise int_actions"):
        ids.id_of(9)
    with pytest.raises(EncodingError, match="has no action id"):
        ids.id_of("no such member")
    wider = ActionIds.for_game(game, int_actions=20)
    assert wider.id_of(19) == 19 and wider.id_of(None) == 20


def test_zones_offered_as_options_have_ids_after_everything_else():
    game = interpreter.load(str(ROOT / "examples" / "games" / "expeditions"))
    ids = ActionIds.for_game(game)
    first_zone = ids.int_count + len(ids.members) + 3 + ids.negative_count
    assert ids.id_of("box") == first_zone
    assert ids.value_of(ids.id_of("discard[red]")) == "discard[red]"
    assert ids.value_of(ids.id_of("expedition[red]#1")) == "expedition[red]#1"
    assert ids.size == first_zone + len(ids.zones)
    state = game.new_game(2, seed=3)
    while not any(isinstance(a.value, str) for a in state.legal_actions()):
        state.apply(state.legal_actions()[-1])
    offered = [ids.id_of(a.value) for a in state.legal_actions()]
    assert ids.id_of("deck") in offered and all(i >= first_zone for i in offered)


def test_observation_tensor_has_one_size_and_shows_the_board(ttt):
    state = ttt.new_initial_state()
    size = len(state.observation_tensor(0))
    for square in (4, 0):
        state.apply_action(square)
    tensor = state.observation_tensor(1)
    assert len(tensor) == size
    board = tensor[-10:-1]  # the board var: its length, then its nine squares, then the winner
    assert list(board) == [2, 0, 0, 0, 1, 0, 0, 0, 0]


def rule_games() -> list[str]:
    folders = sorted((ROOT / "games").iterdir()) + sorted((ROOT / "examples" / "games").iterdir())
    return [str(f.relative_to(ROOT)) for f in folders if (f / "game.rules").exists()]


@pytest.mark.parametrize("path", rule_games())
def test_every_game_passes_openspiels_random_simulation_test(path):
    rules = interpreter.load(str(ROOT / path))
    players = max(rules.min_players, min(3, rules.max_players))
    game = load_game(str(ROOT / path), players=players)
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


def _past_chance(state) -> None:
    """Take the first outcome of every chance node in the way (explicit chance deals lazily)."""
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])


def test_what_a_player_cannot_see_changes_nothing_they_observe():
    """Swap a card in Player 2's hidden hand with one in the hidden deck: Player 1's
    observation string, tensor and information state stay the same; Player 2's change."""
    game = load_game(str(ROOT / "games" / "off_plan"), players=3)
    state = game.new_initial_state()
    for _ in range(4):
        state.apply_action(state.legal_actions()[0])
        _past_chance(state)
    swapped = state.clone()
    s = swapped.rules_state
    held = s.s.zones["hand#1"][0]
    hidden = next(c for c in s.s.zones["room_deck"] if game.rules.card_name(c) != game.rules.card_name(held))
    s.place(held, "room_deck", 0)
    s.place(hidden, "hand#1", 0)
    assert state.observation_string(0) == swapped.observation_string(0)
    assert state.observation_tensor(0) == swapped.observation_tensor(0)
    assert state.information_state_string(0) == swapped.information_state_string(0)
    assert state.observation_string(1) != swapped.observation_string(1)
    assert state.observation_tensor(1) != swapped.observation_tensor(1)


def test_simultaneous_decisions_are_one_joint_action():
    game = load_game(str(ROOT / "games" / "welcome_to"), players=2)
    state = game.new_initial_state()
    _past_chance(state)  # the setup's shuffles and deals
    assert game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    assert state.is_simultaneous_node()
    joint = [state.legal_actions(p)[0] for p in range(2)]
    label = state.action_to_string(1, joint[1])
    state.apply_actions(joint)
    while state.is_simultaneous_node():  # each part may go on with further choices
        state.apply_actions([(state.legal_actions(p) or [0])[0] for p in range(2)])
    assert f"Player 2: {label}" in [e.text for e in state.rules_state.log]


# ---- Kuhn poker in rule files (explicit chance, hidden cards) ---------------------------------

KUHN = ROOT / "examples" / "games" / "kuhn_poker"


@pytest.fixture(scope="module")
def kuhn():
    if not (KUHN / "game.rules").exists():
        pytest.skip("needs examples/games/kuhn_poker (issue 12)")
    game = load_game(str(KUHN), players=2, utility="score")
    if game.get_type().chance_mode != pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC:
        pytest.skip("needs explicit chance from the engine (issue 12)")
    return game


def test_kuhn_poker_matches_openspiels_node_by_node(kuhn):
    """Chance outcomes and their odds, the player to move, legal actions, and the chips won at
    the end, at every node of both games' trees."""
    theirs_game = pyspiel.load_game("kuhn_poker")
    stack = [(kuhn.new_initial_state(), theirs_game.new_initial_state())]
    nodes = 0
    while stack:
        ours, theirs = stack.pop()
        nodes += 1
        where = theirs.history_str()
        assert ours.is_terminal() == theirs.is_terminal(), where
        if theirs.is_terminal():
            assert ours.returns() == pytest.approx(theirs.returns()), where
            continue
        assert ours.current_player() == theirs.current_player(), where
        if theirs.is_chance_node():
            mine, expected = zip(*ours.chance_outcomes(), strict=True), zip(*theirs.chance_outcomes(), strict=True)
            (mine_ids, mine_odds), (ids, odds) = mine, expected
            assert mine_ids == ids and mine_odds == pytest.approx(odds), where
        assert ours.legal_actions() == theirs.legal_actions(), where
        for action in theirs.legal_actions():
            stack.append((ours.child(action), theirs.child(action)))
    assert nodes == 58


def test_kuhn_poker_information_states_hide_the_other_card(kuhn):
    """Player 1 holding the Jack cannot tell whether Player 2 holds the Queen or the King."""
    queen, king = kuhn.new_initial_state(), kuhn.new_initial_state()
    for state, second in ((queen, 1), (king, 2)):
        state.apply_action(0)  # the Jack to Player 1
        state.apply_action(second)
    assert queen.information_state_string(0) == king.information_state_string(0)
    assert queen.observation_tensor(0) == king.observation_tensor(0)
    assert queen.information_state_string(1) != king.information_state_string(1)


def test_kuhn_poker_information_state_tensor_is_the_information_state(kuhn):
    """At every node of the tree, two nodes a player cannot tell apart (the same information
    state string) give them the same information-state tensor, and nodes they can tell apart
    give different ones: the tensor is the present view plus their own choices, and in Kuhn
    poker that is all they know."""
    size = kuhn.information_state_tensor_size()
    assert size > kuhn.observation_tensor_size()
    tensors: dict[tuple[int, str], set[tuple[float, ...]]] = {}
    stack = [kuhn.new_initial_state()]
    while stack:
        state = stack.pop()
        if state.is_terminal():
            continue
        if not state.is_chance_node():
            for player in range(2):
                tensor = tuple(state.information_state_tensor(player))
                assert len(tensor) == size
                tensors.setdefault((player, state.information_state_string(player)), set()).add(tensor)
        stack += [state.child(action) for action in state.legal_actions()]
    assert all(len(seen) == 1 for seen in tensors.values())  # a function of the information state
    for player in range(2):
        mine = [next(iter(seen)) for (p, _), seen in tensors.items() if p == player]
        assert len(set(mine)) == len(mine)  # and telling apart what the player can tell apart


def test_cfr_on_kuhn_poker_converges_to_minus_one_eighteenth(kuhn):
    from open_spiel.python.algorithms import cfr, expected_game_score

    solver = cfr.CFRPlusSolver(kuhn)
    for _ in range(60):
        solver.evaluate_and_update_policy()
    value = expected_game_score.policy_value(kuhn.new_initial_state(), [solver.average_policy()] * 2)
    assert value[0] == pytest.approx(-1 / 18, abs=0.002)
    assert value[1] == pytest.approx(1 / 18, abs=0.002)
