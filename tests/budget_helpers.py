"""What an action comes to at every budget: the tests that compare the two backends' charges."""

from __future__ import annotations

from typing import Any

from interpreter.engine.budget import Budget
from rulelang.diagnostics import RuleRuntimeError


def outcomes_at_budgets(state: Any, value: Any, limits: Any, var: str, player: int | None = None) -> list[tuple]:
    """The action of `value` applied to a clone of `state` at each budget of `limits` (None: a
    default budget): (the error or None, the units used, the var `var` after it) for each. The
    action's player is `player`, or the one deciding. A failing action must leave the state as it
    was (asserted here)."""
    outcome = []
    for limit in limits:
        trial = state.clone()
        paid = Budget(limit) if limit is not None else Budget()
        who = player if player is not None else trial.decision.players[0]
        try:
            trial.apply(next(a for a in trial.legal_actions(who) if a.value == value), paid)
            outcome.append((None, paid.used, trial.s.vars[var]))
        except RuleRuntimeError as err:
            assert trial.s == state.s  # a failing action leaves the state as it was
            outcome.append((str(err), paid.used, None))
    return outcome
