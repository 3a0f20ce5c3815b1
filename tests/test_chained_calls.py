"""A define's any()/all() over a constant list whose item's condition begins with a call of a
kept pure define (codegen `CodeGen.chain_loop`, MAX_CHAIN_ITEMS): once every item's call has a
kept result, the loop is decided by those results and pays, and remembers, what the calls of
the items it looked at would, in one payment. The same results, units, states and logs as the
reference, which makes every call; the memo holding some of those calls' results (or some of
what they call) makes the calls; at every budget short of an action's cost, the same error with
the state unchanged."""

from __future__ import annotations

import random
from pathlib import Path

from budget_helpers import outcomes_at_budgets

import interpreter
from tests.test_backends import play_both

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "chained_calls"


def _counted(game) -> list[tuple[bool, int]]:
    """Each use of a chain in the game's generated code from now on: (paid by it, items looked at)."""
    ns = game.compiled.generated.ns
    paid = ns["_chain_paid"]
    uses = []

    def counting(m, chain, looked):
        done = paid(m, chain, looked)
        uses.append((done, looked))
        return done
    ns["_chain_paid"] = counting
    return uses


def test_chained_calls_pay_and_remember_what_the_calls_would():
    for seed in range(6):
        assert play_both(str(FIXTURE), (), 2 + seed % 2, seed) > 10  # same actions, states, budgets, logs
    game = interpreter.load(str(FIXTURE), cache=False)
    source = "\n".join(game.compiled.generated.source)
    assert source.count("_chain_note(") == 3  # `shining` (over an enum), `dull` and `plain` (over a const)
    uses = _counted(game)
    for seed in range(4):
        state = game.new_game(players=2 + seed % 2, seed=seed)
        rng = random.Random(seed)
        while not state.is_over:
            state.apply_index(rng.randrange(state.num_actions()))
    chains = game.compiled.generated.ns["_chains"]
    assert chains and {key[0] for key in chains} == {2, 3}  # (kept by the number of players too)
    # the chain paid, stopping early and looking at every item; and the memo holding some of
    # what its calls make (`partly`, `seen`) sent the loop to its calls
    assert {done for done, _ in uses} == {True, False}
    assert {looked for done, looked in uses if done} >= {1, 4}


def test_chained_calls_fail_as_the_reference_at_every_budget():
    games = [interpreter.load(str(FIXTURE), backend=backend, cache=False) for backend in ("reference", "codegen")]
    uses = _counted(games[1])
    costs = set()
    failed = set()
    for seed in range(3):
        states = [game.new_game(players=2, seed=seed) for game in games]
        rng = random.Random(seed)
        for _ in range(13):  # some way in, a colour to choose: the chains made, levels raised
            value = rng.choice([a.value for a in states[0].legal_actions(states[0].decision.players[0])])
            for state in states:
                state.apply(next(a for a in state.legal_actions(state.decision.players[0]) if a.value == value))
        for value in [a.value for a in states[0].legal_actions(states[0].decision.players[0])]:
            outcomes = [outcomes_at_budgets(state, value, (None, *range(0, 700, 3)), "n") for state in states]
            assert outcomes[0] == outcomes[1], (seed, value)
            costs.add(outcomes[0][0][:2])
            failed.update(error is not None for error, _, _ in outcomes[0])
    assert any(done for done, _ in uses)
    assert len(costs) > 2 and failed == {True, False}
