"""The lean path of a decision (``State.apply_index`` and ``apply`` of one player deciding): an
action that fails halfway leaves the state as it was, and the error names its rule."""

from __future__ import annotations

from pathlib import Path

import pytest

import interpreter
from rulelang.diagnostics import RuleRuntimeError

RULES = '''game "Half done"
players 2
kind gem:
    value: int
cards gem (name, value):
    "Red", 1
    "Blue", 2
zone pile: public
zone hand per player: owner
var x: int = 0
var seen: list of int = []
setup:
    move cards(gem) to pile
    shuffle pile
flow:
    turn first(players):
        choose i in [0, 1, 2] by first(players)
        draw 1 from pile to first(players).hand
        set x += 5
        set seen = seen + [i]
        log "{first(players)} drew"
        set x = 10 / (i - 1)
        choose j in [1, 2] by first(players)
'''


def test_an_action_failing_halfway_changes_nothing(tmp_path):
    (tmp_path / "game.rules").write_text(RULES)
    state = interpreter.load(str(tmp_path)).new_game(players=2, seed=4)
    before = state.clone()
    text = state.to_json()
    with pytest.raises(RuleRuntimeError, match=r"game\.rules:22:"):
        state.apply_index(1, 0)  # i = 1: a card drawn, vars set, a line logged, then 10 / 0
    assert state.s == before.s
    assert state.to_json() == text
    assert state.num_actions(0) == 3
    with pytest.raises(RuleRuntimeError, match=r"game\.rules:22:"):
        state.apply(state.legal_actions(0)[1])
    assert state.s == before.s
    state.apply_index(2, 0)  # i = 2 goes through
    assert state.s.vars["x"] == 10 and state.s.vars["seen"] == [2]
    assert len(state.s.zones["hand#0"]) == 1 and state.num_actions(0) == 2


def test_a_copy_has_every_field_of_the_state_and_equals_it():
    """GameState.copy sets its fields one by one: a field added to GameState and forgotten there
    would be missing from copies. Every field of a copy is set, equal, and a container of its own
    (mid-game in a step of choosing at once, so the branches are copied too)."""
    import random

    import attrs

    from interpreter.engine.state import GameState
    from interpreter.tools.simulate import next_player

    game = interpreter.load(str(Path(__file__).resolve().parent.parent / "games" / "welcome_to"))
    state = game.new_game(players=3, seed=2)
    rng = random.Random(2)
    while not state.s.branches:
        state.apply_index(rng.randrange(state.num_actions(next_player(state))), next_player(state))
    s = state.s
    c = s.copy()
    for field in attrs.fields(GameState):
        mine, theirs = getattr(c, field.name), getattr(s, field.name)
        assert mine == theirs, field.name
        if isinstance(mine, (list, dict)) and field.name != "chance_at":  # (never changed in place)
            assert mine is not theirs, field.name


def test_decisions_kept_for_reuse_are_the_decisions(monkeypatch):
    """State.decision reuses the Decision of a (player, prompt) asked before, up to
    MAX_DECISIONS_KEPT of them per game: the same answers as a Decision made afresh."""
    import random

    from interpreter import Decision
    from interpreter.engine import api

    monkeypatch.setattr(api, "MAX_DECISIONS_KEPT", 1)
    game = interpreter.load(str(Path(__file__).resolve().parent.parent / "examples" / "games" / "tic_tac_toe"))
    rng = random.Random(3)
    seen = set()
    for seed in range(3):
        state = game.new_game(players=2, seed=seed)
        while not state.is_over:
            p = state.s.pending
            assert state.decision == Decision((p.player,), False, p.prompt)
            seen.add((p.player, p.prompt))
            state.apply_index(rng.randrange(state.num_actions()))
        assert state.decision is None
    assert len(seen) == 2 and len(game._decisions) == 1  # X's and O's question; one kept


BIDS_THEN_DRAWS = '''game "Bids then draws"
players 2 to 3
var bid per player: int = 0
var x: int = 0
kind chip:
    value: int
cards chip (name, value, copies):
    "Chip", 1, 12
zone pile: public
zone hand per player: owner
setup:
    move cards(chip) to pile
    shuffle pile
flow:
    repeat 3:
        simultaneously for p in players:
            choose n in range(1, 3) prompt "Your bid" label "bid {n}"
            set p.bid = n
        for p in players:
            turn p:
                choose i in [0, 1, 2] by p
                draw 1 from pile to p.hand
                set x += 5
                log "{p} drew"
                set x = 10 / (i - 1)
'''


def test_failed_actions_without_an_undo_are_put_back_by_playing_again(tmp_path):
    """A new game's actions on the main stack make no Undo: one that fails is put back by playing
    the seed's game again up to it (steps of choosing at once included), then, after
    MAX_REPLAYS of those in one game, by the undo journal again. Either way the state is as
    before, to its save, and plays on as a state that never tried the action."""
    import random

    from interpreter.engine import api
    from interpreter.tools.simulate import next_player

    (tmp_path / "game.rules").write_text(BIDS_THEN_DRAWS)
    game = interpreter.load(str(tmp_path))
    untouched = interpreter.load(str(tmp_path))
    failures = 0
    for seed in range(8):
        state = game.new_game(players=2 + seed % 2, seed=seed)
        twin = untouched.new_game(players=2 + seed % 2, seed=seed)  # never tries the failing action
        rng = random.Random(seed)
        while not state.is_over:
            player = next_player(state)
            together = state.decision.simultaneous
            if not together:
                before = state.clone()
                text = state.to_json()
                with pytest.raises(RuleRuntimeError, match=r"game\.rules:25:"):
                    state.apply_index(1, player)  # i = 1: drawn, set, logged, then 10 / 0
                failures += 1
                # (compared as States: taking `state.s` would end its journal-free actions)
                assert state == before and state.to_json() == text
            i = rng.choice([0, 2]) if not together else rng.randrange(state.num_actions(player))
            state.apply_index(i, player)
            twin.apply_index(i, player)
            assert state.to_json() == twin.to_json()
    assert failures > api.MAX_REPLAYS
    assert game._replays == api.MAX_REPLAYS and untouched._replays == 0


def test_a_state_changed_by_its_methods_is_put_back_by_its_undo(tmp_path):
    """A state set up by hand (set_var, place...) is no longer its seed's game: a failing action
    is put back by its undo journal, keeping what was set, and so is one whose data was taken
    (`state.s`, which may be written); a state changed behind even that is refused rather than
    put back wrongly."""
    (tmp_path / "game.rules").write_text(RULES)
    game = interpreter.load(str(tmp_path))
    state = game.new_game(players=2, seed=4)
    state.set_var("x", 3)
    before = state.clone()
    with pytest.raises(RuleRuntimeError, match=r"game\.rules:22:"):
        state.apply_index(1, 0)
    assert state.s == before.s and state.s.vars["x"] == 3
    assert game._replays == 0
    poked = game.new_game(players=2, seed=4)
    poked.s.vars["x"] = 4  # taking `state.s` is enough: the state no longer vouches for itself
    with pytest.raises(RuleRuntimeError, match=r"game\.rules:22:"):
        poked.apply_index(1, 0)
    assert poked.s.vars["x"] == 4 and poked.s.actions == [] and game._replays == 0
    hidden = game.new_game(players=2, seed=4)
    hidden._s.rng += 1  # past even that (its private data): playing again does not lead back to it
    with pytest.raises(RuntimeError, match="changed outside its methods"):
        hidden.apply_index(1, 0)
    clone = game.new_game(players=2, seed=4).clone()  # a clone is still its seed's game
    before = clone.clone()
    with pytest.raises(RuleRuntimeError):
        clone.apply_index(1, 0)
    assert clone.s == before.s


BIDS_FROM_A_SMALL_SUPPLY = '''game "Bids from a small supply"
players 2 to 3
var bid per player: int = 0
var x: int = 0
token coin: supply 4
flow:
    repeat 3:
        simultaneously for p in players:
            choose n in [1, 2, 3] by p prompt "Your bid" label "bid {n}"
            gain n coin to p
            log "{p} bids"
            set p.bid = 10 / (n - 2)
            choose k in [0, 1] by p prompt "Again?" label "again {k}"
            set p.bid += k
        turn first(players):
            choose i in [0, 1, 2] by first(players)
            log "{first(players)} decides"
            set x = 10 / (i - 1)
        for p in players:
            pay p.coin coin from p
'''


def _try_to_fail(state, player: int, budget=None) -> bool:
    """Apply ``player``'s action that fails halfway (a bid of 2 in a part, i = 1 on the main
    stack), if the decision has one; True when it was tried and failed with the state unchanged."""
    from interpreter.engine.budget import Budget

    labels = [a.label for a in state.legal_actions(player)]
    failing = next((i for i, label in enumerate(labels) if label in ("bid 2", "1")), None)
    if failing is None:
        return False
    before = state.clone()
    text = state.to_json()
    with pytest.raises(RuleRuntimeError, match=r"game\.rules:(12|18):|more than 3 steps"):
        state.apply_index(failing, player, None if budget is None else Budget(limit=budget))
    # (compared as States: taking `state.s` would end its journal-free actions)
    assert state == before and state.to_json() == text
    return True


@pytest.mark.parametrize("backend", ["codegen", "reference"])
def test_failed_actions_in_parts_are_put_back_by_playing_again(tmp_path, backend):
    """In a `simultaneously` step a new game's actions make no Undo either: a part's action that
    fails after it took tokens from the supply, logged and set a var is put back by playing the
    game again (the parts' actions so far included), as is one that runs out of a small budget
    (by its Undo). The state is as before, to its save, and plays on as one that never tried."""
    import random

    from interpreter.tools.simulate import next_player

    (tmp_path / "game.rules").write_text(BIDS_FROM_A_SMALL_SUPPLY)
    game = interpreter.load(str(tmp_path), backend=backend)
    untouched = interpreter.load(str(tmp_path), backend=backend)
    tried = 0
    for seed in range(4):
        state = game.new_game(players=2 + seed % 2, seed=seed)
        twin = untouched.new_game(players=2 + seed % 2, seed=seed)
        rng = random.Random(seed)
        while not state.is_over:
            player = next_player(state)
            if state.decision.simultaneous:
                tried += _try_to_fail(state, player)
                tried += _try_to_fail(state, player, budget=3)
            labels = [a.label for a in state.legal_actions(player)]
            i = rng.choice([k for k, label in enumerate(labels) if label not in ("bid 2", "1")])
            state.apply_index(i, player)
            twin.apply_index(i, player)
            assert state.to_json() == twin.to_json()
    assert tried > 12
    assert game._replays > 0 and untouched._replays == 0  # (not all of them by an Undo)


@pytest.mark.parametrize("backend", ["codegen", "reference"])
def test_parts_answered_out_of_their_order_are_put_back_exactly(tmp_path, backend):
    """The parts' actions are merged part after part when the step ends, but the supply's tokens
    go to whoever answers first: played again in the merged order, a game whose later parts
    answered first would differ. A failing action after (or during) such a step still leaves
    the state exactly as it was."""
    import random

    (tmp_path / "game.rules").write_text(BIDS_FROM_A_SMALL_SUPPLY)
    game = interpreter.load(str(tmp_path), backend=backend)
    untouched = interpreter.load(str(tmp_path), backend=backend)
    for seed in range(3):
        state = game.new_game(players=2, seed=seed)
        twin = untouched.new_game(players=2, seed=seed)
        rng = random.Random(seed)
        while not state.is_over:
            players = state.decision.players
            player = players[-1]  # the last part first
            _try_to_fail(state, player)
            labels = [a.label for a in state.legal_actions(player)]
            i = rng.choice([k for k, label in enumerate(labels) if label not in ("bid 2", "1")])
            state.apply_index(i, player)
            twin.apply_index(i, player)
            assert state.to_json() == twin.to_json()


@pytest.mark.parametrize("question", ["choose", "may"])
def test_each_decision_of_a_plain_text_menu_has_lists_of_its_own(tmp_path: Path, question: str):
    """A menu of plain texts makes its actions once, but each decision it parks has lists of its
    own: a list changed in one state's data changes no later decision of another game. (States
    copied from one another share a decision already parked; that one is never changed.)"""
    asks = ('    choose by p prompt "Which?":\n        option "A":\n            pass\n'
            '        option "B":\n            pass\n') if question == "choose" else \
        '    may "Go on?" by p:\n        pass\n'
    (tmp_path / "game.rules").write_text(
        'game "Menus"\nplayers 2\nflow:\n    let p = first(players)\n' + asks + asks
        + "score p:\n    line: 0\n")
    game = interpreter.load(str(tmp_path))
    first = game.new_game(players=2, seed=0)
    labels = [a.label for a in first.legal_actions()]
    first.apply_index(0)  # the second menu's decision: parked by this action
    first.s.pending.values.append("probe")
    first.s.pending.labels.append("Probe")
    second = game.new_game(players=2, seed=1)
    second.apply_index(0)
    assert [a.label for a in second.legal_actions()] == labels
    assert second.num_actions() == 2


def test_a_machine_of_an_ended_game_serves_the_next_game_as_a_new_one(monkeypatch):
    """The machine of a state whose game ended by `apply_index` is given to the first decision
    of the next state (api.Game._spare_machines): games played one after another with it, and
    without (no machine kept), end the same (log, state, scores), and a kept machine goes to
    one new state only."""
    from interpreter.engine import api

    def play(game, seeds):
        out = []
        for seed in seeds:
            state = game.new_game(players=2, seed=seed)
            index = seed
            while not state.is_over:
                state.apply_index(index % state.num_actions(), None)
                index = index * 7 + 3
            out.append((state.s, state.scores()))
        return out

    seeds = range(12)
    for path in ("examples/games/kuhn_poker", "examples/games/tic_tac_toe"):
        game = interpreter.load(str(Path(__file__).parent.parent / path))
        kept = play(game, seeds)
        assert game._spare_machines  # the last game's machine, kept
        spare = game._spare_machines[-1]
        first = game.new_game(players=2, seed=0)
        second = game.new_game(players=2, seed=1)
        first.apply_index(0)
        second.apply_index(0)
        assert first._kept is spare and second._kept is not spare and spare.s is first.s
        monkeypatch.setattr(api, "MAX_SPARE_MACHINES", 0)
        fresh = play(interpreter.load(str(Path(__file__).parent.parent / path)), seeds)
        monkeypatch.undo()
        assert kept == fresh


def test_a_reused_machine_has_every_field_a_new_one_would_have(monkeypatch):
    """After the first decision of a state, its machine, whether a spare one (reset field by field
    in `apply_index`) or a new one, holds the same in every slot: a field added to Machine and not
    reset there fails this."""
    from interpreter.engine import api
    from interpreter.engine.budget import Budget
    from interpreter.engine.runtime import Machine

    path = str(Path(__file__).parent.parent / "examples/games/kuhn_poker")
    machines = []
    for spares in (api.MAX_SPARE_MACHINES, 0):
        monkeypatch.setattr(api, "MAX_SPARE_MACHINES", spares)
        game = interpreter.load(path)
        ended = game.new_game(players=2, seed=3)
        while not ended.is_over:
            ended.apply_index(0, None)
        assert bool(game._spare_machines) == bool(spares)
        state = game.new_game(players=2, seed=4)
        state.apply_index(1, None)
        machines.append(state._kept)
    reused, new = machines
    for slot in Machine.__slots__:
        mine, theirs = getattr(reused, slot), getattr(new, slot)
        if slot == "game":
            continue  # (each load's own)
        if slot == "runs_of":  # (each load's own tables: the fast ones, in both)
            assert mine is reused.game.fast_runs and theirs is new.game.fast_runs
            continue
        if slot == "budget":
            assert [getattr(mine, k) for k in Budget.__slots__] == [getattr(theirs, k) for k in Budget.__slots__]
        else:
            assert mine == theirs, slot
