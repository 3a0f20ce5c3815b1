"""``rulelang validate``: the rule author's check-up of a game, with or without house rules.

Three parts, each usable alone:

- **static** (:func:`static_warnings`): the W1xx warnings of :mod:`rulelang.lint`, computed
  from the checked syntax tree: rules that can never run or never matter.
- **dynamic** (:func:`random_games`, :func:`explore`): games played to the end while, after
  every decision, the game's declared invariants (``invariant "text": expr``) and the built-in
  ones are checked: every card in exactly one zone, no negative token count, every token of
  the declared supply somewhere, the game over within a bound of decisions, a legal action
  for whoever must decide. Random games come first; then hypothesis explores the choices
  (each example draws one action index per decision) and, when something breaks, shrinks the
  sequence of choices to a short one. The result names each choice (who chose, the prompt,
  the action's label) and shows the part of the state the broken invariant looks at.
- **balance** (:func:`balance`): the base game and the game with the house rules, side by
  side over the same seeds: win rate per seat with 95% Wilson intervals, score and length
  distributions, how often each card is chosen and each procedure runs. As a terminal table
  (:func:`format_balance`) or an HTML page (:mod:`interpreter.tools.report`).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import attrs

from rulelang import nodes as n
from rulelang.checker import Program, check, elem_type
from rulelang.diagnostics import Diagnostic, RuleRuntimeError
from rulelang.lint import format_warnings, lint, walk
from rulelang.parser import load_sources

from ..engine import runtime
from ..engine.api import Game, State
from ..engine.runtime import Machine
from .explain import shown_path

__all__ = [
    "DEFAULT_MAX_DECISIONS",
    "Outcome",
    "Step",
    "Validator",
    "Variant",
    "Violation",
    "balance",
    "default_players",
    "explore",
    "format_balance",
    "format_violation",
    "random_games",
    "static_warnings",
    "wilson",
]

DEFAULT_MAX_DECISIONS = 2000  # a game still running after this many decisions breaks "the game ends"
Z95 = 1.959963984540054  # the normal quantile of a two-sided 95% interval


def default_players(game: Game) -> int:
    """Two players where the game (with its options) allows it, else the nearest count it allows."""
    first = min(max(2, game.min_players), game.max_players)
    counts = sorted(range(game.min_players, game.max_players + 1), key=lambda k: (abs(k - first), k))
    for k in counts:
        try:
            game.new_game(players=k, seed=0)
        except ValueError:  # a `require` refuses this count with these options
            continue
        except RuleRuntimeError:
            return k  # it starts, and fails: validate will say so
        return k
    return first


# --------------------------------------------------------------------------- static


def static_warnings(path: str, house: list[str] | None = None) -> tuple[list[Diagnostic], dict, Program]:
    """The lint warnings of a game (with house rules applied), its sources and its Program.

    Raises ``RuleError`` when the files do not load."""
    modules, sources = load_sources(str(path), [str(h) for h in house or []])
    program = check(modules, sources)
    shown = []
    for d in lint(program):
        file = shown_path(d.pos.file)
        if file != d.pos.file:
            sources.setdefault(file, sources.get(d.pos.file, ""))
            d = attrs.evolve(d, pos=attrs.evolve(d.pos, file=file))
        shown.append(d)
    return shown, sources, program


def format_static(warnings: list[Diagnostic], sources: dict | None = None) -> str:
    return format_warnings(warnings, sources)


# --------------------------------------------------------------------------- what breaks


@dataclass
class Step:
    """One decision of a game: who chose what, at which prompt."""

    number: int
    player: int
    who: str
    prompt: str
    label: str
    index: int
    choices: int  # how many actions were legal (1: the choice was forced)

    def __str__(self) -> str:
        forced = "  (the only choice)" if self.choices == 1 else ""
        return f"{self.number:>4}. {self.who}: {self.prompt} -> {self.label}{forced}"


@dataclass
class Violation:
    """An invariant that broke, where, and the choices that led there."""

    kind: str  # invariant, components, tokens, length, no-action, error
    name: str  # the invariant's text or the built-in check's name
    detail: str
    steps: list[Step]
    seed: int
    players: int
    state_text: str  # the part of the state the check looks at
    found_by: str = "a random game"
    where: str = ""  # the declaration of a declared invariant, file:line:col

    @property
    def length(self) -> int:
        return len(self.steps)


@dataclass
class Outcome:
    """One played game: its result, or the violation that stopped it."""

    seed: int
    decisions: int = 0
    scores: list[int] | None = None
    winners: list[int] | None = None
    violation: Violation | None = None
    stopped: bool = False  # cut short by the caller (not an error)
    card_picks: dict[str, int] = field(default_factory=dict)
    calls: dict[str, int] = field(default_factory=dict)


Chooser = Callable[[State, int, list], int]  # (state, player, legal actions) -> an index


class Validator:
    """Checks states of one game against its declared and built-in invariants."""

    def __init__(self, game: Game, program: Program | None = None,
                 max_decisions: int = DEFAULT_MAX_DECISIONS):
        self.game = game
        self.g = game.compiled
        self.max_decisions = max_decisions
        self.program = program
        self.card_picks: set = set()
        self.invariant_refs: dict[str, tuple[set, set, set]] = {}
        self.invariant_pos: dict[str, str] = {}
        if program is not None:
            self._read_program(program)

    def _read_program(self, p: Program) -> None:
        for root in list(p.procs.values()) + [d for d in (p.setup, p.flow) if d] + list(p.triggers):
            for node in walk(root):
                if isinstance(node, n.Pick) and elem_type(p.types.get(id(node.source), "any")) == "card":
                    self.card_picks.add(node.pos)
        for inv in p.invariants:
            self.invariant_refs[inv.text] = _refs(p, inv.value)
            self.invariant_pos[inv.text] = f"{shown_path(inv.pos.file)}:{inv.pos.line}:{inv.pos.col}"

    # ---- the checks
    def problems(self, state: State) -> list[tuple[str, str, str]]:
        """(kind, name, detail) of every invariant that does not hold in ``state``."""
        out = []
        s = state.s
        n_cards = len(self.g.card_names)
        held = 0
        for key, cards in s.zones.items():
            held += len(cards)
            for c in cards:
                if not (0 <= c < n_cards) or s.where[c] != key:
                    name = self.g.card_names[c] if 0 <= c < n_cards else repr(c)
                    out.append(("components", "every card is in exactly one zone",
                                f"{name} (card {c}) is in {key} but recorded in "
                                f"{s.where[c] if 0 <= c < n_cards else '?'}"))
                    break
        if held != n_cards:
            out.append(("components", "every card is in exactly one zone",
                        f"the zones hold {held} cards; the game has {n_cards}"))
        totals: dict[str, int] = {}
        for key, count in s.tokens.items():
            token = key.split("|")[1]
            if count < 0:
                out.append(("tokens", "no token count is negative", f"{key} = {count}"))
            totals[token] = totals.get(token, 0) + count
        for token, supply in self.g.token_supply.items():
            if totals.get(token, 0) != supply:
                out.append(("tokens", f"all {supply} {token} tokens are somewhere",
                            f"{totals.get(token, 0)} {token} tokens exist; the game declares {supply}"))
        try:
            for text in state.check_invariants():
                out.append(("invariant", text, "it is false"))
        except RuleRuntimeError as err:
            out.append(("invariant", "the declared invariants can be worked out",
                        f"working one out failed: {err}"))
        return out

    # ---- describing the state where a check broke
    def state_text(self, state: State, kind: str, name: str) -> str:
        s = state.s
        g = self.g
        lines = [f"round {s.round}, turn {s.turn}, active player "
                 f"{g.player_name(s.active) if s.active is not None else 'none'}"
                 f"{', game over' if s.over else ''}"]
        zones: set[str] = set()
        tokens: set[str] = set()
        values: set[str] = set()
        if kind == "invariant" and name in self.invariant_refs:
            zones, tokens, values = self.invariant_refs[name]
        elif kind == "tokens":
            tokens = {t for t in g.token_supply if f" {t} " in f" {name} "} or set(g.token_supply)
        elif kind == "components":
            zones = set(g.zone_decls)
        m = Machine(g, s)
        for z in sorted(zones):
            per_player, _ = g.zone_decls.get(z, (False, ""))
            keys = [f"{z}#{p}" for p in range(s.num_players)] if per_player else [z]
            for key in keys:
                cards = s.zones.get(key, [])
                shown = ", ".join(self._card(m, c) for c in cards[:12])
                more = f", ... ({len(cards)} cards)" if len(cards) > 12 else ""
                lines.append(f"zone {_zone_label(g, key)}: {shown or 'empty'}{more}")
        for t in sorted(tokens):
            holders: dict[str, list[str]] = {}
            for key, count in s.tokens.items():
                holder, token, side = key.split("|")
                if token != t or not count:
                    continue
                sides = g.token_sides[t]
                text = f"{count}" if side == sides[0] else f"{count} {side}"
                holders.setdefault(m.holder_label(holder), []).append(text)
            total = sum(v for k, v in s.tokens.items() if k.split("|")[1] == t)
            parts = [f"{h} {' + '.join(c)}" for h, c in holders.items()]
            lines.append(f"{t} tokens ({total} in all): {', '.join(parts) or 'none'}")
        for v in sorted(values):
            per, _ = g.var_inits.get(v, (None, None))
            if per == "player":
                shown = ", ".join(f"{g.player_name(p)} {s.vars.get(f'{v}#{p}')!r}" for p in range(s.num_players))
            elif per == "card":
                shown = ", ".join(f"{g.card_names[int(k.split('@')[1])]} {val!r}"
                                  for k, val in s.vars.items() if k.startswith(f"{v}@"))
            else:
                shown = repr(s.vars.get(v))
            lines.append(f"var {v}: {shown or 'not set'}")
        waiting = state._waiting()
        for _, pend in waiting[:2]:
            labels = ", ".join(pend.labels[:8]) + (" ..." if len(pend.labels) > 8 else "")
            lines.append(f"{g.player_name(pend.player)} is asked: {pend.prompt} [{labels}]")
        log = [t for _, _, t in s.log[-5:]]
        if log:
            lines.append("last log lines:")
            lines += [f"  {t}" for t in log]
        return "\n".join(lines)

    def _card(self, m: Machine, c: int) -> str:
        name = self.g.card_names[c]
        on = [f"{k} {t}" for t in self.g.token_sides if (k := m.token_count(f"c{c}", t))]
        return f"{name} (+{', '.join(on)})" if on else name

    def is_card_pick(self, state: State, player: int) -> bool:
        """Whether the decision waiting for ``player`` picks a card (for the usage counts)."""
        s = state.s
        for b in s.branches:
            if b.player == player and b.pending is not None and b.stack:
                frame = b.stack[-1]
                break
        else:
            if s.pending is None or not s.stack:
                return False
            frame = s.stack[-1]
        op = self.g.codes[frame.code][frame.pc]
        return getattr(op, "pos", None) in self.card_picks and type(op).__name__ == "_PickOp"


def _zone_label(g, key: str) -> str:
    name, _, owner = key.partition("#")
    return f"{g.player_name(int(owner))}'s {name}" if owner else name


def _refs(p: Program, expr) -> tuple[set, set, set]:
    """The zones, tokens and vars an expression reads, through the defines and consts it uses."""
    zones: set[str] = set()
    tokens: set[str] = set()
    values: set[str] = set()
    seen: set[str] = set()
    todo = [expr]
    while todo:
        for node in walk(todo.pop()):
            res = p.resolved.get(id(node))
            if res is None:
                continue
            cat, name = res
            if cat in ("zone", "pzone", "fzone"):
                zones.add(name)
            elif cat in ("token", "tokens"):
                tokens.add(name)
            elif cat in ("var", "pvar", "cvar"):
                values.add(name)
            elif cat in ("define", "const") and name not in seen:
                seen.add(name)
                d = p.defines.get(name) if cat == "define" else p.consts.get(name)
                if d is not None:
                    todo.append(d.value)
    return zones, tokens, values


# --------------------------------------------------------------------------- playing


def play(game: Game, players: int, seed: int, chooser: Chooser, validator: Validator | None = None,
         cut: int | None = None, count: bool = False, keep_going: bool = False) -> Outcome:
    """Play one game, choosing with ``chooser``; with a validator, check every state.

    Stops at the first violation (``outcome.violation``), or quietly (``stopped``) once more than
    ``cut`` decisions have been made. ``keep_going``: after a broken invariant, play on to the
    end without checking (so the game still counts for the balance); errors stop it anyway.
    ``count``: record card picks and procedure calls.
    """
    g = game.compiled
    out = Outcome(seed)
    steps: list[Step] = []
    limit = validator.max_decisions if validator else DEFAULT_MAX_DECISIONS
    calls: dict[str, int] = {}

    def broke(kind: str, name: str, detail: str, state: State | None) -> Outcome:
        text = validator.state_text(state, kind, name) if (validator and state is not None) else ""
        where = validator.invariant_pos.get(name, "") if validator and kind == "invariant" else ""
        out.violation = Violation(kind, name, detail, list(steps), seed, players, text, where=where)
        out.decisions = len(steps)
        return out

    def check(state: State) -> Outcome | None:
        if validator is None or (keep_going and out.violation is not None):
            return None
        found = validator.problems(state)
        if found:
            kind, name, detail = found[0]
            broke(kind, name, detail, state)
            return None if keep_going else out
        return None

    previous = runtime.push_counter
    if count:
        runtime.push_counter = calls
    try:
        try:
            state = game.new_game(players=players, seed=seed)
        except RuleRuntimeError as err:
            return broke("error", "the rules run without failing", f"the setup failed: {err}", None)
        finally:
            runtime.push_counter = previous
        if (bad := check(state)) is not None:
            return bad
        while not state.is_over:
            if len(steps) >= limit:
                return broke("length", f"the game ends within {limit} decisions",
                             f"still running after {limit} decisions", state)
            if cut is not None and len(steps) >= cut:
                out.stopped = True
                out.decisions = len(steps)
                return out
            decision = state.decision
            if decision is None:
                return broke("no-action", "a legal action exists until the end",
                             "the game is not over but nobody is asked to decide", state)
            player = _next_player(state, decision)
            actions = state.legal_actions(player)
            if not actions:
                return broke("no-action", "a legal action exists until the end",
                             f"{g.player_name(player)} must decide but has no legal action", state)
            index = chooser(state, player, actions)
            action = actions[index]
            pend = next(p for _, p in state._waiting() if p.player == player)
            if count and validator is not None and action.value is not None and validator.is_card_pick(state, player):
                name = g.card_names[action.value]
                out.card_picks[name] = out.card_picks.get(name, 0) + 1
            steps.append(Step(len(steps) + 1, player, g.player_name(player), pend.prompt, action.label, index,
                              len(actions)))
            if count:
                runtime.push_counter = calls
            try:
                state.apply(action)
            except RuleRuntimeError as err:
                return broke("error", "the rules run without failing", str(err), state)
            except Exception as err:  # an engine bug: still a finding, with the choices that led to it
                return broke("error", "the rules run without failing",
                             f"the engine failed: {type(err).__name__}: {err}", state)
            finally:
                runtime.push_counter = previous
            if (bad := check(state)) is not None:
                return bad
        out.decisions = len(steps)
        if out.violation is not None and out.violation.kind in ("error", "length", "no-action"):
            return out
        out.scores = list(state.scores())
        out.winners = list(state.winners())
        out.calls = calls
        return out
    finally:
        runtime.push_counter = previous


def _next_player(state: State, decision) -> int:
    players = list(decision.players)
    if len(players) == 1 or not decision.simultaneous:
        return players[0]
    return next((p for p in players if state.legal_actions(p)), players[0])


def random_chooser(seed: int) -> Chooser:
    rng = random.Random(seed)
    return lambda state, player, actions: rng.randrange(len(actions))


def agent_chooser(names: list[str], seed: int) -> Chooser:
    """One agent per seat (random, greedy), seeded as `simulate` seeds them."""
    from ..agents import agent_seed, make_agent

    agents = [make_agent(name, agent_seed(seed, seat)) for seat, name in enumerate(names)]

    def choose(state: State, player: int, actions: list) -> int:
        picked = agents[player].choose(state, player)
        return next(i for i, a in enumerate(actions) if a == picked)
    return choose


def random_games(game: Game, players: int, seeds: range, validator: Validator | None,
                 agents: list[str] | None = None, count: bool = True) -> list[Outcome]:
    """Play one game per seed with random (or the named) agents, checking every state; a game
    whose invariant breaks is played on to its end, so it still counts for the balance."""
    out = []
    for seed in seeds:
        chooser = agent_chooser(agents, seed) if agents else random_chooser(seed)
        out.append(play(game, players, seed, chooser, validator, count=count, keep_going=True))
    return out


# --------------------------------------------------------------------------- exploring


class _Broken(Exception):
    def __init__(self, violation: Violation):
        super().__init__(violation.name)
        self.violation = violation


def explore(game: Game, players: int, seeds: range, validator: Validator, examples: int = 50,
            search_seed: int = 0) -> tuple[Violation | None, int]:
    """Explore the game's choices with hypothesis; returns the shortest violation and how many
    games were tried.

    Each example draws a game seed from ``seeds`` and, at every decision with more than one
    legal action, an action index. When a violation turns up, hypothesis shrinks the drawn
    choices; the shortest violating sequence seen (fewest decisions) is returned. Examples
    that run longer than that sequence are stopped early, as they cannot beat it.
    """
    # Imported here: hypothesis comes with the test extras, and only this part needs it.
    from hypothesis import HealthCheck, Phase, Verbosity, given, settings
    from hypothesis import seed as fix_seed
    from hypothesis import strategies as st

    best: list[Violation] = []
    tried = [0]

    def one(data) -> None:
        tried[0] += 1
        seed = data.draw(st.integers(seeds[0], seeds[-1])) if len(seeds) > 1 else seeds[0]

        def choose(state: State, player: int, actions: list) -> int:
            return data.draw(st.integers(0, len(actions) - 1)) if len(actions) > 1 else 0

        cut = best[0].length if best else None
        outcome = play(game, players, seed, choose, validator, cut=cut)
        v = outcome.violation
        if v is not None:
            v.found_by = "hypothesis"
            if not best or (v.length, _weight(v)) < (best[0].length, _weight(best[0])):
                best[:] = [v]
            raise _Broken(v)

    test = settings(max_examples=max(1, examples), deadline=None, database=None,
                    suppress_health_check=list(HealthCheck), verbosity=Verbosity.quiet,
                    report_multiple_bugs=False, print_blob=False,
                    phases=[Phase.explicit, Phase.generate, Phase.shrink])(given(st.data())(one))
    test = fix_seed(search_seed)(test)
    try:
        test()
    except _Broken:
        pass
    except Exception as err:
        # Hypothesis may end with its own complaint (a flaky replay, examples too large): what
        # was found is kept in `best` either way. Anything else with nothing found is a bug.
        from hypothesis.errors import HypothesisException

        if not best and not isinstance(err, HypothesisException):
            raise
    return (best[0] if best else None), tried[0]


def _weight(v: Violation) -> int:
    return sum(s.index for s in v.steps)


def format_violation(v: Violation, path: str = "") -> str:
    what = {"invariant": "the invariant", "components": "the built-in invariant",
            "tokens": "the built-in invariant", "length": "the built-in invariant",
            "no-action": "the built-in invariant", "error": "the built-in invariant"}[v.kind]
    lines = [f"VIOLATION of {what} \"{v.name}\"" + (f" (declared at {v.where})" if v.where else ""),
             f"  {v.detail}",
             f"  found by {v.found_by}: {v.players} players, seed {v.seed}; "
             f"{v.length} decision{'s' if v.length != 1 else ''} "
             f"{'(shrunk)' if v.found_by == 'hypothesis' else '(not shrunk)'}:"]
    if not v.steps:
        lines.append("     (before anyone chose: right after setup)")
    lines += [f"  {s}" for s in v.steps]
    if v.state_text:
        lines.append("  the state when it broke:")
        lines += [f"     {line}" for line in v.state_text.splitlines()]
    return "\n".join(lines)


# --------------------------------------------------------------------------- balance


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default)."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def quantile(values: list[float], q: float) -> float:
    """The q-quantile by linear interpolation between the closest ranks."""
    xs = sorted(values)
    if not xs:
        return float("nan")
    pos = (len(xs) - 1) * q
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def describe(values: list[float]) -> dict:
    """mean, sd (sample), min, quartiles and max; empty lists give Nones."""
    if not values:
        return {k: None for k in ("n", "mean", "sd", "min", "q1", "median", "q3", "max")}
    mean = sum(values) / len(values)
    sd = math.sqrt(sum((x - mean) ** 2 for x in values) / (len(values) - 1)) if len(values) > 1 else 0.0
    return {"n": len(values), "mean": mean, "sd": sd, "min": min(values), "q1": quantile(values, 0.25),
            "median": quantile(values, 0.5), "q3": quantile(values, 0.75), "max": max(values)}


@dataclass
class Variant:
    """The games of one variant (the base game, or with house rules) summed up."""

    label: str
    title: str
    players: int
    games: int
    finished: int = 0
    wins: list[float] = field(default_factory=list)  # per seat; a shared win counts 1/k
    scores: list[list[int]] = field(default_factory=list)  # per seat
    lengths: list[int] = field(default_factory=list)
    card_picks: dict[str, int] = field(default_factory=dict)
    calls: dict[str, int] = field(default_factory=dict)  # procedure/trigger -> calls in all games
    games_calling: dict[str, int] = field(default_factory=dict)  # -> games with at least one call
    procedures: list[str] = field(default_factory=list)  # every procedure the game declares
    violations: list[Violation] = field(default_factory=list)
    seconds: float = 0.0

    def win_rate(self, seat: int) -> tuple[float, float, float]:
        w = self.wins[seat] if seat < len(self.wins) else 0.0
        lo, hi = wilson(w, self.finished)
        return (w / self.finished if self.finished else 0.0, lo, hi)

    def to_dict(self) -> dict:
        return {
            "label": self.label, "title": self.title, "players": self.players, "games": self.games,
            "finished": self.finished,
            "seats": [{"seat": s, "wins": self.wins[s], "win_rate": self.win_rate(s),
                       "score": describe(self.scores[s])} for s in range(self.players)],
            "all_scores": describe([x for seat in self.scores for x in seat]),
            "length": describe(self.lengths), "card_picks": self.card_picks, "calls": self.calls,
            "games_calling": self.games_calling, "violations": len(self.violations),
        }


def _code_label(key: str) -> str:
    if key.startswith("proc:"):
        return key[5:]
    if key.startswith("trigger:"):
        _, index, event = key.split(":", 2)
        return f"on {event} (trigger {int(index) + 1})"
    return key


def summarize(label: str, game: Game, players: int, outcomes: list[Outcome]) -> Variant:
    v = Variant(label, game.name, players, len(outcomes))
    v.wins = [0.0] * players
    v.scores = [[] for _ in range(players)]
    v.procedures = sorted(k[5:] for k in game.compiled.codes if k.startswith("proc:"))
    for o in outcomes:
        if o.violation is not None:
            v.violations.append(o.violation)
        if o.scores is None:
            continue
        v.finished += 1
        v.lengths.append(o.decisions)
        for seat in range(players):
            v.scores[seat].append(o.scores[seat])
            if o.winners and seat in o.winners:
                v.wins[seat] += 1 / len(o.winners)
        for name, k in o.card_picks.items():
            v.card_picks[name] = v.card_picks.get(name, 0) + k
        for key, k in o.calls.items():
            label_ = _code_label(key)
            v.calls[label_] = v.calls.get(label_, 0) + k
            v.games_calling[label_] = v.games_calling.get(label_, 0) + 1
    return v


def balance(games: list[tuple[str, Game, Validator | None]], players: int, seeds: range,
            agents: list[str] | None = None) -> list[Variant]:
    """Play every variant over the same seeds and sum each up (checking states with a validator)."""
    out = []
    for label, game, validator in games:
        start = time.perf_counter()
        outcomes = random_games(game, players, seeds, validator or Validator(game), agents=agents)
        v = summarize(label, game, players, outcomes)
        v.seconds = time.perf_counter() - start
        out.append(v)
    return out


def _fmt(x: Any, digits: int = 1) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        if math.isnan(x):
            return "-"
        return f"{x:.{digits}f}" if x != int(x) or digits == 0 else f"{int(x)}"
    return str(x)


def _dist(d: dict) -> str:
    if d["n"] is None:
        return "-"
    return (f"{_fmt(d['mean'])} ± {_fmt(d['sd'])}  [{_fmt(d['min'])} | {_fmt(d['q1'])} "
            f"{_fmt(d['median'])} {_fmt(d['q3'])} | {_fmt(d['max'])}]")


def _rate(v: Variant, seat: int) -> str:
    rate, lo, hi = v.win_rate(seat)
    return f"{100 * rate:5.1f}%  ({100 * lo:.1f}-{100 * hi:.1f})"


def _overlap(a: Variant, b: Variant, seat: int) -> bool:
    _, alo, ahi = a.win_rate(seat)
    _, blo, bhi = b.win_rate(seat)
    return alo <= bhi and blo <= ahi


def balance_rows(variants: list[Variant], top: int = 15) -> list[tuple[str, list[str]]]:
    """The balance table as (row label, one cell per variant) rows, a blank label for a rule."""
    rows: list[tuple[str, list[str]]] = []
    players = variants[0].players
    rows.append(("games finished", [f"{v.finished}/{v.games}" for v in variants]))
    if any(v.violations for v in variants):
        rows.append(("games that broke an invariant", [str(len(v.violations)) for v in variants]))
    rows.append(("", []))
    rows.append(("win rate (95% interval)", ["" for _ in variants]))
    for seat in range(players):
        cells = [_rate(v, seat) for v in variants]
        if len(variants) == 2 and not _overlap(variants[0], variants[1], seat):
            cells[1] += "  *"
        rows.append((f"  Player {seat + 1}", cells))
    rows.append(("", []))
    rows.append(("score: mean ± sd [min | q1 median q3 | max]", ["" for _ in variants]))
    for seat in range(players):
        rows.append((f"  Player {seat + 1}", [_dist(describe(v.scores[seat])) for v in variants]))
    rows.append(("  everyone", [_dist(describe([x for s in v.scores for x in s])) for v in variants]))
    rows.append(("", []))
    rows.append(("decisions per game", [_dist(describe(v.lengths)) for v in variants]))
    rows.append(("", []))
    rows.append(("procedures: calls per game (games using it)", ["" for _ in variants]))
    names = sorted({k for v in variants for k in v.calls} | {p for v in variants for p in v.procedures},
                   key=lambda k: (-max(v.calls.get(k, 0) for v in variants), k))
    for name in names:
        cells = []
        for v in variants:
            if name not in v.calls and name not in v.procedures and not name.startswith("on "):
                cells.append("(not in this game)")
            elif v.finished:
                cells.append(f"{v.calls.get(name, 0) / v.finished:7.2f}  ({v.games_calling.get(name, 0)})")
            else:
                cells.append("-")
        rows.append((f"  {name}", cells))
    cards = sorted({k for v in variants for k in v.card_picks},
                   key=lambda k: (-max(v.card_picks.get(k, 0) for v in variants), k))
    if cards:
        rows.append(("", []))
        rows.append((f"cards: times chosen per game (top {top})", ["" for _ in variants]))
    for name in cards[:top]:
        rows.append((f"  {name}", [f"{v.card_picks.get(name, 0) / v.finished:7.2f}" if v.finished else "-"
                                   for v in variants]))
    if len(cards) > top:
        rows.append((f"  ... {len(cards) - top} more cards", ["" for _ in variants]))
    return rows


def format_balance(variants: list[Variant], seeds: range, agents: list[str] | None = None) -> str:
    players = variants[0].players
    who = ", ".join(agents) if agents else "random"
    head = (f"Balance: {players} player{'s' if players != 1 else ''}, {len(seeds)} games per variant (seeds {seeds[0]}..{seeds[-1]}), "
            f"{who} agents")
    rows = balance_rows(variants)
    width = max(len(label) for label, _ in rows) + 2
    cols = [max([len(v.label)] + [len(cells[i]) for _, cells in rows if len(cells) > i]) + 3
            for i, v in enumerate(variants)]
    lines = [head, " " * width + "".join(v.label.ljust(c) for v, c in zip(variants, cols, strict=True))]
    for label, cells in rows:
        if not label and not cells:
            lines.append("")
            continue
        lines.append((label.ljust(width) + "".join(c.ljust(w) for c, w in zip(cells, cols, strict=False))).rstrip())
    if len(variants) == 2 and any(not _overlap(variants[0], variants[1], s) for s in range(players)):
        lines.append("")
        lines.append("* the two 95% intervals do not overlap: the house rules likely change this win rate")
    return "\n".join(lines)


def variant_from_measures(label: str, game: Game, players: int, measures: list) -> Variant:
    """The balance table's numbers from measured games (:mod:`interpreter.tools.metrics`): the
    sequential test's games, so the table and the verdict speak of the same games."""
    outcomes = []
    for g in measures:
        o = Outcome(g.seed, decisions=g.decisions, scores=g.scores if g.finished else None,
                    winners=g.winners if g.finished else None, calls=g.calls)
        for chosen in g.picks:
            for key, k in chosen.items():
                if key.startswith("card "):
                    o.card_picks[key[5:]] = o.card_picks.get(key[5:], 0) + k
        outcomes.append(o)
    return summarize(label, game, players, outcomes)
