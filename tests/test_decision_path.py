"""The path every decision takes: the generated fast runs handing on to one another
(codegen `_StepsGen.run`), the step loop (runtime `Machine._steps`, `_run_branches`) and
apply_index's lean paths (api `_answer_choice`, `State._answer_part`). Each shortcut is checked
against what it stands for: the careful runs at every budget, or the reference backend."""

from __future__ import annotations

import random
import re

import pytest

import interpreter
from interpreter.engine import codegen
from interpreter.engine.api import _parts_at_rest
from interpreter.engine.state import Branch, Frame
from interpreter.tools.simulate import next_player
from tests.test_fast_runs import _both, _outcome

HAND_ONS = """game "Hand-ons"
players 2 to 2
var total: int = 0
var squares: list of int = [1, 2, 3]
var last per player: int = 0
procedure play(p: player):
    choose k in [0, 1, 2] by p
    set p.last = 7
    for x in [1, 2]:
        set total = total + k * x
    set total = total + squares[k * 2]
flow:
    repeat 2:
        for p in players:
            play p
"""


def _sources(game, key: str) -> tuple[str, str]:
    """The source of a code's fast runs and of its careful ones."""
    g = game.compiled

    def leaves(callee: str) -> bool:
        found = g.codes.get(callee)
        return found is not None and codegen.leaf_code(codegen.quiet_effects(found, g.triggers))
    code = codegen.quiet_effects(g.codes[key], g.triggers)
    return (codegen.steps_source(code, leaves, True, g.generated)[0],
            codegen.steps_source(code, leaves, False, g.generated)[0])


@pytest.mark.parametrize("choice", [0, 1, 2])
def test_a_fast_run_calls_the_run_further_on_in_place(tmp_path, choice):
    """A fast run that ends where a run further on in its code starts calls it and returns what
    it returns (no round of the step loop for it); one that goes back (a loop's way round) hands
    it to the loop, and the careful runs hand every run on to the loop: the same state, log and
    units as the careful runs at every budget, and the careful runs' error (choice 2, past the
    end of a list, after the hand-on)."""
    (tmp_path / "game.rules").write_text(HAND_ONS)
    game = interpreter.load(str(tmp_path), cache=False)
    fast, careful = (a + b for a, b in zip(_sources(game, "proc:play"), _sources(game, "flow"), strict=True))
    called, handed = [], []
    for entry, body in re.findall(r"def _run(\d+)\(m, fr\):\n(.*?)(?=\ndef |\Z)", fast, re.S):
        called += [(int(entry), int(to)) for to in re.findall(r"return _run(\d+)\(m, fr\)", body)]
        handed += [(int(entry), int(to)) for to in re.findall(r"return _run(\d+)$", body, re.M)]
    assert called and all(to > entry for entry, to in called)
    assert handed and all(to <= entry for entry, to in handed)
    assert "(m, fr)\n" not in "".join(re.findall(r"return _run\d+.*\n", careful))
    assert "return _run" in careful
    cost = _outcome(interpreter.load(str(tmp_path), cache=False), 0, 2, [1], choice, 10**6)[1]
    fast_got, careful_got = _both(tmp_path, 0, 2, [1], choice, [None, *range(cost + 2)])
    assert fast_got == careful_got
    assert (fast_got[0][0] is not None) == (choice == 2)


ENDS = """game "Ends"
players 3 to 3
var total: int = 0
var bid per player: int = 0
flow:
    repeat 2:
        simultaneously for p in players:
            choose k in [1, 2, 3] by p
            set p.bid = k
            if p.bid == 3:
                choose j in [0, 1] by p
                set p.bid = p.bid + j
            if p.bid == 4 and p == players[1]:
                end game
        set total = total + sum([q.bid for q in players])
"""


@pytest.mark.parametrize("seed", range(6))
def test_parts_that_end_or_wait_at_different_times_play_as_the_reference(tmp_path, seed):
    """`simultaneously` parts of one choice or two, one of them ending the game: a part that
    ends while another waits leaves `Machine.run` out (`_parts_at_rest`), the last one to end
    joins the parts, a game ended in a part leaves the parts after it unrun (`_run_branches`):
    the same game as the reference's, decision by decision."""
    (tmp_path / "game.rules").write_text(ENDS)
    games = [interpreter.load(str(tmp_path), backend=backend, cache=False) for backend in ("reference", "codegen")]
    states = [game.new_game(players=3, seed=seed) for game in games]
    rng = random.Random(seed)
    ended_early = False
    while not states[0].is_over:
        player = next_player(states[0])
        assert [next_player(state) for state in states[1:]] == [player]
        index = rng.randrange(states[0].num_actions(player))
        for state in states:
            state.apply_index(index, player)
        assert states[0].s == states[1].s
        ended_early = ended_early or (states[0].is_over and states[0].s.vars["total"] == 0)
    assert states[1].is_over and states[0].to_json() == states[1].to_json()


def test_an_ending_part_stops_the_parts_after_it(tmp_path):
    """A part that ends the game (Player 2, bidding 3 then 1): the game is over, the part after it
    (Player 3, who had answered too) is not run again, as in the reference."""
    (tmp_path / "game.rules").write_text(ENDS)
    outcomes = []
    for backend in ("reference", "codegen"):
        state = interpreter.load(str(tmp_path), backend=backend, cache=False).new_game(players=3, seed=0)
        state.apply_index(0, 0)  # Player 1 bids 1: that part ends
        state.apply_index(2, 2)  # Player 3 bids 3: that part waits for its second choice
        state.apply_index(2, 1)  # Player 2 bids 3 ...
        assert not state.is_over
        state.apply_index(1, 1)  # ... and 1: 4, the game ends
        outcomes.append((state.is_over, state.to_json()))
    assert outcomes[0] == outcomes[1] and outcomes[0][0]


ENDS_AT_ONCE = """game "Ends at once"
players 3 to 3
var bid per player: int = 0
flow:
    simultaneously for p in players:
        set p.bid = 9
        if p == players[1]:
            end game
        choose k in [1, 2] by p
        set p.bid = k
"""


def test_a_part_ending_the_game_as_the_step_starts_leaves_the_next_one_unrun(tmp_path):
    """The parts run one after the other as the step starts: Player 2's ends the game, so
    Player 3's never runs (its var is not set), as in the reference; Player 1's had run."""
    (tmp_path / "game.rules").write_text(ENDS_AT_ONCE)
    states = [interpreter.load(str(tmp_path), backend=backend, cache=False).new_game(players=3, seed=0)
              for backend in ("reference", "codegen")]
    assert states[0].to_json() == states[1].to_json()
    assert states[1].is_over and [states[1].s.vars[f"bid#{p}"] for p in range(3)] == [9, 9, 0]


def _branch(pending: bool, stack: bool) -> Branch:
    b = Branch(0, [Frame("flow", 0, {})] if stack else [])
    b.pending = object() if pending else None  # type: ignore[assignment]
    return b


def test_parts_at_rest():
    """`_parts_at_rest`: every part waiting or ended, one at least waiting."""
    assert _parts_at_rest([_branch(True, True), _branch(False, False)])
    assert _parts_at_rest([_branch(False, False), _branch(True, True), _branch(False, False)])
    assert not _parts_at_rest([_branch(False, False), _branch(False, False)])  # (all ended: run joins them)
    assert not _parts_at_rest([_branch(True, True), _branch(False, True)])  # (one has more to run)
    assert not _parts_at_rest([_branch(False, True), _branch(True, True)])


CHOICES = """game "Choices"
players 3 to 3
kind gem:
    points: int
cards gem (name, points, copies):
    "Ruby", 3, 2
    "Opal", 1, 7
zone deck: hidden
zone pool: public
zone hand per player: owner
zone vault per player: hidden
setup:
    move cards(gem) to deck
    shuffle deck
    for p in players:
        draw 3 from deck to p.hand
    draw 2 from deck to pool
flow:
    repeat 2:
        for p in players:
            turn p:
                choose c in p.hand by p prompt "Give a gem" label "{c.name}"
                move c to pool
                choose d in pool by p prompt "Take a gem" label "{d.name}"
                move d to p.hand
    simultaneously for p in players:
        choose c in p.hand by p prompt "Keep" label "{c.name}"
        move c to p.vault
"""


@pytest.mark.parametrize("forget", [False, True])
def test_a_card_chosen_is_logged_for_those_who_see_it(tmp_path, forget):
    """A card chosen on apply_index's lean paths is logged as the reference logs it: for everyone
    from a zone everybody sees (the line written in place), for its owner alone, and that a
    choice was made for the others, from a hand (also in `simultaneously` parts); the same when
    the game's remembered viewers of each zone are forgotten before every decision (the long
    way, `_choice_entries`, which works them out)."""
    (tmp_path / "game.rules").write_text(CHOICES)
    logs = []
    for backend in ("reference", "codegen"):
        game = interpreter.load(str(tmp_path), backend=backend, cache=False)
        state = game.new_game(players=3, seed=1)
        rng = random.Random(1)
        while not state.is_over:
            if forget:
                game.compiled.viewer_cache.clear()
            player = next_player(state)
            state.apply_index(rng.randrange(state.num_actions(player)), player)
        logs.append(state.s.log)
    assert logs[0] == logs[1]
    choices = [e for e in logs[1] if e[0] == "choice"]
    # (a gem taken from the pool: everyone's line; one given or kept that only its owner has
    # seen: the owner's line, and the others')
    assert sum(len(e) == 3 for e in choices) >= 6 and sum(len(e) == 4 for e in choices) >= 2 * 3
