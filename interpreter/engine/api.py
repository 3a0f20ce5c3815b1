"""The small public API: load a game, start one, and play it through decisions.

    game = load("games/my_game", options={...})
    state = game.new_game(players=4, seed=1)
    while not state.is_over:
        player = state.decision.players[0]
        state.apply(state.legal_actions(player)[0])
    state.scores(), state.winners()
"""

from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import json
from _thread import RLock  # what threading.RLock() makes, without that wrapper's call (one per State)
from fractions import Fraction
from sys import getrefcount as _refcount
from typing import Any

import attrs
import cattrs

from rulelang.checker import Program, check
from rulelang.diagnostics import Diagnostic, RuleError, RuleRuntimeError
from rulelang.files import FileRefused, read_regular, strict_json
from rulelang.nodes import Pos
from rulelang.parser import load_sources

from . import chance, information, runtime
from .budget import MAX_LOG_LINE, Budget, log_line
from .cache import load_parsed, prime_grammar, store_parsed
from .chance import CHANCE, NeedChance
from .compiler import CompiledGame, _MayOp, _MenuOp, _PickOp, compile_program
from .runtime import MAX_COORDINATE, RULE_FAULTS, Machine, SeedPoint, python_error
from .save_check import structure_problem
from .state import SAVE_FORMAT, SAVE_VERSION, Branch, Frame, GameState, Pending, rng_below, rng_shuffle
from .table import evaluate as evaluate_table
from .undo import Journal, Undo

_converter = cattrs.Converter()
MAX_SAVE_BYTES = 50_000_000
MAX_SPARE_MACHINES = 4  # machines of ended games kept for new ones, per game (Game._spare_machines)
MAX_DECISIONS_KEPT = 1024  # Decisions of one player deciding kept for reuse, per game (Game._decisions)
# A resample completes the part of a player done choosing at random: at most this many choices.
MAX_RANDOM_CHOICES = 1000


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _show(x) -> str:
    """A short, safe repr of something an action was made of (it may be anything)."""
    try:
        text = repr(x)
    except Exception:
        text = f"<a {type(x).__name__}>"
    return text if len(text) <= 80 else text[:77] + "..."


class IllegalAction(Exception):
    """An action that cannot be applied now; the state is unchanged."""


class SaveError(Exception):
    """A save file that cannot be restored; says why."""


@attrs.frozen
class Action:
    player: int
    value: Any
    label: str
    decision: int = -1  # the decision it answers; -1 accepts any (for hand-written actions)

    def to_json(self) -> list:
        return [self.player, self.value]


@attrs.frozen
class Decision:
    players: tuple[int, ...]
    simultaneous: bool
    prompt: str


@attrs.frozen
class OptionInfo:
    name: str
    kind: str  # choice, bool, int, range
    choices: tuple
    default: Any
    doc: str


@attrs.frozen
class LogEntry:
    kind: str
    player: int | None
    text: str
    audience: tuple[int, ...] | None = None  # who reads it; None: everyone


def _options_info(program: Program) -> list[OptionInfo]:
    out = []
    for o in program.options.values():
        d = o.default
        default = d.id if hasattr(d, "id") else getattr(d, "value", None)
        if o.form == "choice":
            out.append(OptionInfo(o.name, "choice", o.choices, default, o.doc))
        elif o.form == "range":
            out.append(OptionInfo(o.name, "range", tuple(range(o.low, o.high + 1)), default, o.doc))
        else:
            out.append(OptionInfo(o.name, o.choices[0], (True, False) if o.choices[0] == "bool" else (),
                                  default, o.doc))
    return out


def _resolve_options(infos: list[OptionInfo], given: dict | None) -> dict:
    values = {o.name: o.default for o in infos}
    known = {o.name: o for o in infos}
    if given is not None and not isinstance(given, dict):
        raise ValueError(f"options are given as names and values, not {_show(given)}")
    for key, value in (given or {}).items():
        if key not in known:
            names = ", ".join(known) or "none"
            raise ValueError(f"unknown option `{key}`; this game's options: {names}")
        o = known[key]
        if o.kind == "bool":
            if isinstance(value, str) and value.lower() in ("true", "false", "yes", "no", "on", "off"):
                value = value.lower() in ("true", "yes", "on")
            if not isinstance(value, bool):
                raise ValueError(f"option `{key}` is true or false, not {value!r}")
        elif o.kind in ("int", "range"):
            try:
                value = int(value)
            except (TypeError, ValueError):
                raise ValueError(f"option `{key}` is a number, not {value!r}") from None
            if o.kind == "range" and value not in o.choices:
                raise ValueError(f"option `{key}` goes from {o.choices[0]} to {o.choices[-1]}, not {value}")
        elif value not in o.choices:
            raise ValueError(f"option `{key}` is one of {', '.join(o.choices)}, not {value!r}")
        values[key] = value
    return values


def _independent_of_players(g: CompiledGame, cond) -> bool:
    """Whether a `require` gives the same answer for every player count the game allows."""
    answers = set()
    for n_players in range(g.min_players, g.max_players + 1):
        try:
            answers.add(bool(cond(Machine(g, GameState(n_players, 0, 0, {}, [], {}, {})), {})))
        except (RuleRuntimeError, *RULE_FAULTS):
            return False
    return len(answers) == 1


def load(path: str, options: dict | None = None, house: list[str] | None = None,
         backend: str = "codegen", cache: bool = True) -> Game:
    """Parse, check and compile a game (a folder with game.rules, or one rule file).

    ``backend``: "codegen" (expressions as generated Python, the default) or "reference"
    (the closure evaluator the generated code is tested against); both play identically.
    ``cache``: reuse what an earlier load parsed and compiled, from the user's cache directory
    (``interpreter/engine/cache.py``; off with RULELANG_CACHE=off), so a warm load skips Lark.
    Raises ``rulelang.RuleError`` with every diagnostic, or ValueError for a bad option.
    """
    house_paths = [str(h) for h in house or []]
    with _collector_paused():
        return _load(str(path), options, house_paths, backend, cache)


@contextlib.contextmanager
def _collector_paused():
    """Loading makes some hundred thousand objects that all stay alive: the cyclic garbage
    collector, started every few hundred of them, would walk them again and again for nothing
    (5-10 % of a load). Nested loads leave it as the outermost found it.

    Once enabled again, the collector's first run would still walk every object the load made
    (a fifth of a warm load): instead they are moved, unwalked, to its oldest generation, where
    long-lived objects end up anyway (walked only by its rare full collections, which also free
    whatever the load left over and any game dropped later). ``gc.freeze()`` then
    ``gc.unfreeze()`` does just that move; it is skipped when the program froze objects itself
    (unfreezing would give its objects back to the collector)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if not gc.get_freeze_count():
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def _load(path: str, options: dict | None, house_paths: list[str], backend: str, cache: bool) -> Game:
    parsed = load_parsed(path, house_paths) if cache else None
    if parsed is not None:
        modules, sources, program = parsed
    else:
        if cache:
            prime_grammar()
        modules, sources = load_sources(path, house_paths)
        program = None
    try:
        if program is None:
            try:
                program = check(modules, sources)
            except RuleError:
                if cache and parsed is None:  # the files parsed: an editor's next load skips Lark
                    store_parsed(path, house_paths, modules, sources)
                raise
            if cache:
                store_parsed(path, house_paths, modules, sources, program)
        infos = _options_info(program)
        values = _resolve_options(infos, options)
        compiled = compile_program(program, values, backend, cache, _program_key(sources, values))
    except RecursionError:  # the parser bounds nesting; this is the last guard, not the first
        where = modules[0].path if modules else path
        raise RuleError([Diagnostic("E102", "the rules nest too deeply to read", Pos(where, 1, 1))],
                        sources) from None
    digest = hashlib.sha256()
    for file in sorted(sources):
        digest.update(sources[file].encode())
    digest.update(json.dumps(values, sort_keys=True).encode())
    game = Game(compiled, infos, path, digest.hexdigest()[:16], house_paths)
    refused = game.refusals()
    if refused:
        raise ValueError("these options cannot be played together: " + "; ".join(refused))
    return game


def _program_key(sources: dict[str, str], values: dict) -> str:
    """What a game's checked program and its generated module are a function of: its files (their
    paths too: positions name them) and its option values (the engine's code keys the cache too)."""
    digest = hashlib.sha256()
    for file in sorted(sources):
        digest.update(b"\0" + file.encode() + b"\0" + sources[file].encode())
    digest.update(json.dumps(values, sort_keys=True).encode())
    return digest.hexdigest()


class Game:
    """A compiled game: fixed data and code, shared by every state of it."""

    def __init__(self, compiled: CompiledGame, options: list[OptionInfo], source_path: str,
                 fingerprint: str, house: list[str]):
        self.compiled = compiled
        self.options = options
        self.source_path = source_path
        self.fingerprint = fingerprint
        self.house = house
        # player count -> its setup's record (see _record_setup), for the counts that passed every
        # check of new_game once and whose setup could be recorded
        self._ready: dict[int, _SetupStart] = {}
        # (player, prompt) -> the Decision of one player deciding, ((players), prompt) -> one of a
        # `simultaneously` step: Decisions are frozen, and a
        # game asks the same few questions again and again (at most MAX_DECISIONS_KEPT kept)
        self._decisions: dict[tuple, Decision] = {}
        self._replays = 0  # failed actions put back by playing their game again (State._put_back)
        # Whether play runs the fast runs (runtime.Machine.runs_of): those of the codegen backend
        self._fast = self.compiled.backend == "codegen"
        # Machines of states whose game ended in `apply_index`'s lean path, for the first decision
        # of a next state (a playout after another): a machine made afresh was a thirtieth of a
        # small game's playout. At most MAX_SPARE_MACHINES; taken and given by one list.pop() and
        # append() each (one step each under the GIL: two threads never take the same one)
        self._spare_machines: list[Machine] = []

    @property
    def name(self) -> str:
        return self.compiled.title

    @property
    def min_players(self) -> int:
        return self.compiled.min_players

    @property
    def max_players(self) -> int:
        return self.compiled.max_players

    @property
    def option_values(self) -> dict:
        return dict(self.compiled.option_values)

    def card_name(self, card: int) -> str:
        return self.compiled.card_names[card]

    def card_face(self, card: int) -> str:
        """The card's face line: its name and the attributes its kind's `face:` names."""
        return self.compiled.card_faces[card]

    def card_text(self, card: int) -> str:
        """The card's rules text (its `text` column), or "" when it has none."""
        return str(self.compiled.card_attrs[card].get("text") or "")

    def display_name(self, name: str) -> str:
        """How a declared name (enum member, zone, var, token, kind) is shown to people."""
        return self.compiled.display_name(name)

    def refusals(self, players: int | None = None) -> list[str]:
        """The messages of the game's `require` lines that these options (and players) break.

        Without a player count, only the lines that do not depend on it are judged.
        """
        out: list[str] = []
        if not self.compiled.requires:
            return out
        probe = GameState(players or 0, 0, 0, {}, [], {}, {})
        for message, cond in self.compiled.requires:
            try:
                ok = cond(Machine(self.compiled, probe), {})
            except (RuleRuntimeError, *RULE_FAULTS):
                continue
            if players is None and not _independent_of_players(self.compiled, cond):
                continue
            if not ok:
                out.append(message)
        return out

    def new_game(self, players: int, seed: int = 0, chance: str = "seeded") -> State:
        """A new game. `chance="explicit"` stops at every random event for its outcome (see
        State.is_chance); the default draws them from the seeded generator, with the same odds."""
        g = self.compiled
        # A player count found here passed every check below before; only the seed is left to check.
        start = self._ready.get(players) if players.__class__ is int and chance == "seeded" else None
        if (start is not None and seed.__class__ is int and 0 <= seed < 2**64
                and runtime.push_counter is None):  # (a count of calls must see the whole setup)
            state = State(self, _from_start(g, start, seed)[0] if start.deals is None else _dealt(g, start, seed))
            state._lineage = state._s  # (what _replayable does, without its call)
            return state
        if not _is_int(players) or not _is_int(seed):
            raise ValueError(f"players and seed are whole numbers, not {_show(players)} and {_show(seed)}")
        if not 0 <= seed < 2**64:  # never taken modulo 2^64: two seeds must not give one game
            raise ValueError(f"a seed is a whole number from 0 to 2^64 - 1, not {_show(seed)}")
        if chance not in ("seeded", "explicit"):
            raise ValueError(f"chance is \"seeded\" or \"explicit\", not {_show(chance)}")
        if not (g.min_players <= players <= g.max_players):
            raise ValueError(f"{g.title} is for {g.min_players} to {g.max_players} players, not {players}")
        # The `require` lines depend on the options (fixed) and the player count only: judged
        # once per count, not before every game of a long run of playouts.
        known = self.__dict__.setdefault("_refusals_by_players", {})
        refused = known.get(players)
        if refused is None:
            refused = known[players] = self.refusals(players)
        if refused:
            raise ValueError("; ".join(refused))
        if chance == "seeded" and runtime.push_counter is None:  # (a count of calls must see them all)
            tried = self.__dict__.setdefault("_setups_tried", set())
            if players not in tried:
                tried.add(players)
                start = _record_setup(g, players)
                if start is not None:
                    self._ready[players] = start
                    return self.new_game(players, seed)
        s = _blank_state(g, players, seed)
        s.chance = chance
        start_state = s.copy() if chance == "explicit" else None
        try:
            _run_action(g, s, None)
        except NeedChance as need:
            start_state.chance_at = [None, need.key, need.cards]
            return State(self, start_state)
        return _replayable(State(self, s)) if chance == "seeded" else State(self, s)

    def load_state(self, path: str) -> State:
        """Restore a state from a save file, read like a rule file (a regular file of at most
        MAX_SAVE_BYTES, UTF-8); refuses (SaveError) anything else, as ``state_from_json`` does."""
        try:
            text = read_regular(str(path), MAX_SAVE_BYTES)
        except FileRefused as err:
            raise SaveError(f"not a rulelang save: {err}") from None
        return self.state_from_json(text)

    def state_from_json(self, text: str) -> State:
        """Restore a saved state; refuses (SaveError) anything truncated, edited, forged or foreign.

        Strict JSON (no duplicate keys), then the save's kind and game, then the state's shape
        against the compiled game (``_consistency_problem``, ``save_check.structure_problem``),
        then its checksum."""
        if not isinstance(text, str):
            raise SaveError(f"a save is text, not {_show(text)}")
        if len(text) > MAX_SAVE_BYTES:
            raise SaveError(f"the save is {len(text)} characters; the limit is {MAX_SAVE_BYTES}")
        try:
            doc = strict_json(text)
        except FileRefused as err:
            raise SaveError(str(err) if str(err).startswith("not JSON") else f"not JSON: {err}") from None
        if not isinstance(doc, dict):
            raise SaveError("not a rulelang save (the top level is not an object)")
        if doc.get("format") != SAVE_FORMAT:
            raise SaveError(f"not a rulelang save (format is {doc.get('format')!r})")
        if doc.get("version") != SAVE_VERSION:
            raise SaveError(f"save version {doc.get('version')!r}; this rulelang reads version {SAVE_VERSION}")
        if doc.get("game") != self.name or doc.get("fingerprint") != self.fingerprint:
            raise SaveError(f"the save is for {doc.get('game')!r} with other rules or options "
                            f"({doc.get('fingerprint')}), not this {self.name!r} ({self.fingerprint})")
        if not isinstance(doc.get("state"), dict):
            raise SaveError("the save holds no state")
        try:
            s = _converter.structure(doc["state"], GameState)
        except Exception as err:  # cattrs reports a wrong shape in several ways
            raise SaveError(f"the state is malformed: {python_error(err)}") from None
        try:
            problem = _consistency_problem(self.compiled, s) or structure_problem(self.compiled, s)
        except Exception as err:  # a shape the checks below did not foresee
            problem = f"it cannot be checked ({python_error(err)})"
        if problem:
            raise SaveError(f"the state is inconsistent: {problem}")
        if doc.get("checksum") != _checksum(_state_text(doc["state"])):
            raise SaveError("the save was changed after it was written (its checksum does not match)")
        return State(self, s)


# ---- a new game's setup, recorded once per player count ----------------------------------------
# A playout of a small game is mostly its setup (half of it in a three-card poker). The setup is the same
# for every seed until it first draws from the seeded generator (the generator is the only thing a
# seed changes): so that part runs once per player count (and the game's options, fixed), and a
# new game starts from a copy of where it stopped, with its own seed. A setup that never draws
# (a game with no cards or dice) is recorded whole, up to the first decision.

@attrs.frozen
class _SetupStart:
    state: GameState  # the setup of seed 0 stopped where it would first draw (or waiting, when done)
    used: int  # the budget spent by then
    done: bool  # the setup never draws: `state` waits for the first decision
    zone: str | None = None  # the zone it first shuffles, when it stops at a shuffle of one zone
    deals: _Deals | None = None  # the games set up so far, by that shuffle's order (when `zone` is known)


# A setup's first shuffle decides the rest of it when the setup draws nothing more: new games whose
# first shuffle gives the same order (a few cards have few orders: three have six) are the same
# game but for their generator, and are copied from the first of them. Only for a shuffle of at
# most MAX_DEALS_CARDS cards (720 orders: the states kept stay few), and a game whose orders do not
# come back gives up after MAX_DEALS_TRIED games without one.
MAX_DEALS_CARDS = 6
MAX_DEALS_TRIED = 64


class _Deals:
    """The setups done so far, by the order of their first shuffle (for one player count)."""

    __slots__ = ("states", "tried", "hits")

    def __init__(self) -> None:
        self.states: dict[tuple, GameState] | None = {}  # None: given up
        self.tried = 0
        self.hits = 0


def _dealt(g: CompiledGame, start: _SetupStart, seed: int) -> GameState:
    """A new game from the record of its setup, copied from an earlier game of the same first
    shuffle when there is one (its own seed and generator put back)."""
    memo = start.deals
    states = memo.states
    if states is None:
        return _from_start(g, start, seed)[0]
    order = start.state.zones[start.zone][:]
    rng = rng_shuffle(seed, order)  # what the setup's shuffle will make of the zone
    key = tuple(order)
    same = states.get(key)
    if same is not None:
        memo.hits += 1
        s = same.copy()
        s.seed, s.rng = seed, rng
        return s
    s = _from_start(g, start, seed)[0]
    memo.tried += 1
    if memo.hits == 0 and memo.tried >= MAX_DEALS_TRIED:
        memo.states = None  # the orders do not come back: stop remembering them
    elif s.rng == rng:  # the setup drew nothing after that shuffle
        states[key] = s.copy()
    return s


def _blank_state(g: CompiledGame, players: int, seed: int) -> GameState:
    """A game before its setup: every card in the box, tokens in the supply, vars at their start."""
    n_cards = len(g.card_names)
    zones: dict[str, list[int]] = {"box": list(range(n_cards))}
    for name, (per_player, _) in g.zone_decls.items():
        if per_player:
            for p in range(players):
                zones[f"{name}#{p}"] = []
        else:
            zones[name] = []
    tokens = {f"supply|{t}|{g.token_sides[t][0]}": n for t, n in g.token_supply.items()}
    values: dict[str, Any] = {}
    for name, (per, init) in g.var_inits.items():
        if per == "player":
            for p in range(players):
                values[f"{name}#{p}"] = init.copy() if isinstance(init, (list, dict)) else init
        elif per is None:
            values[name] = init.copy() if isinstance(init, (list, dict)) else init
    s = GameState(players, seed, seed, zones, ["box"] * n_cards, tokens, values)
    s.stack = [Frame("flow", 0, {}), Frame("setup", 0, {})]
    return s


def _full_setup(g: CompiledGame, players: int, seed: int) -> tuple[GameState, Budget]:
    """A new game's setup run from the start, as without the record (and the budget it spent)."""
    s = _blank_state(g, players, seed)
    m = Machine(g, s, None, chance_ok=True)
    m.run()
    return s, m.budget


def _from_start(g: CompiledGame, start: _SetupStart, seed: int) -> tuple[GameState, Budget]:
    """A new game's setup from its record: a copy with this seed, the rest of the setup run."""
    s = start.state.copy()
    s.seed = s.rng = seed
    if start.done:
        paid = Budget()
        paid.used = start.used
        return s, paid
    m = Machine(g, s, None, chance_ok=True)
    m.seed_mode = start.used  # the op that stopped runs again; from its draw on, the budget is exact
    m.run()
    return s, m.budget


def _record_setup(g: CompiledGame, players: int) -> _SetupStart | None:
    """The setup's part that is the same for every seed, or None when it cannot be recorded (it
    fails, or draws where it cannot stop; then every new game runs all of it)."""
    s = _blank_state(g, players, 0)
    m = Machine(g, s, None, chance_ok=True)
    m.seed_mode = "record"
    try:
        m.run()
        used, done = m.budget.used, True
        zone = None
    except SeedPoint as point:
        used, done, zone = point.used, False, point.zone
    except Exception:  # noqa: BLE001 - a setup that fails is not recorded; each game reports it
        return None
    if s.rng != s.seed:  # something drew that the record does not know of
        return None
    few = zone is not None and len(s.zones[zone]) <= MAX_DEALS_CARDS
    start = _SetupStart(s.copy(), used, done, zone, _Deals() if few else None)
    try:
        if not done:
            # The op that stopped runs again from the record: it must stop at the same place with
            # nothing changed (an op that changed the state before its draw cannot be recorded).
            again = start.state.copy()
            m = Machine(g, again, None, chance_ok=True)
            m.seed_mode = "record"
            try:
                m.run()
                return None
            except SeedPoint as point:
                if again != start.state or point.used > used:
                    return None
        # And the proof: new games from the record are the games of a full setup, budget and all.
        for seed in (1, 2**63 + 12345):
            (a, paid_a), (b, paid_b) = _from_start(g, start, seed), _full_setup(g, players, seed)
            if a != b or paid_a.used != paid_b.used:
                return None
    except Exception:  # noqa: BLE001 - a seed's own setup fails: no record, each game reports it
        return None
    return start


def _entry(e: list) -> LogEntry:
    return LogEntry(e[0], e[1], e[2], tuple(e[3]) if len(e) > 3 and e[3] is not None else None)


def _state_text(state_doc: dict) -> str:
    return json.dumps(state_doc, separators=(",", ":"))


def _checksum(state_text: str) -> str:
    return hashlib.sha256(state_text.encode()).hexdigest()[:16]


def _expected_keys(g: CompiledGame, players: int) -> tuple[set[str], set[str]]:
    """The zone keys and the global or per-player var keys every state of this game has."""
    zones = {"box"}
    for name, (per_player, _) in g.zone_decls.items():
        zones |= {f"{name}#{p}" for p in range(players)} if per_player else {name}
    values = set()
    for name, (per, _) in g.var_inits.items():
        if per == "player":
            values |= {f"{name}#{p}" for p in range(players)}
        elif per is None:
            values.add(name)
    return zones, values


def _holder_ok(g: CompiledGame, holder: str, players: int) -> bool:
    if holder == "supply":
        return True
    if holder[:1] in ("p", "c") and holder[1:].isdigit():
        return int(holder[1:]) < (players if holder[0] == "p" else len(g.card_names))
    return holder.startswith("m:")


def _consistency_problem(g: CompiledGame, s: GameState) -> str | None:  # noqa: C901 - one check per part
    n_cards = len(g.card_names)
    if not isinstance(s.num_players, int) or not (g.min_players <= s.num_players <= g.max_players):
        return f"{s.num_players} players"
    zones, values = _expected_keys(g, s.num_players)
    if set(s.zones) != zones:
        return f"zones {', '.join(sorted(set(s.zones) ^ zones)[:5])} missing or unknown"
    if not values <= set(s.vars):
        return f"vars {', '.join(sorted(values - set(s.vars))[:5])} missing"
    for key in s.tokens:
        parts = key.split("|")
        if (len(parts) != 3 or parts[1] not in g.token_sides or parts[2] not in g.token_sides[parts[1]]
                or not _holder_ok(g, parts[0], s.num_players)):
            return f"an unknown token entry {key!r}"
    if s.active is not None and not (isinstance(s.active, int) and 0 <= s.active < s.num_players):
        return f"active player {s.active!r}"
    for m in s.lasting:
        if m.unit not in ("turn", "round", "game") or not isinstance(m.remaining, int):
            return f"a lasting modifier {m.name!r} until the end of {m.unit!r}"
    logs = [s.log, s.actions] + [x for b in s.branches for x in (b.log, b.actions)]
    if any(not isinstance(e, list) or not (len(e) in (3, 4) if i % 2 == 0 else len(e) == 2)
           for i, entries in enumerate(logs) for e in entries):
        return "a malformed log or list of actions"
    if len(s.where) != n_cards:
        return f"{len(s.where)} card locations for {n_cards} cards"
    seen = [0] * n_cards
    for key, cards in s.zones.items():
        for c in cards:
            if not isinstance(c, int) or not (0 <= c < n_cards):
                return f"zone {key} holds an unknown card {c!r}"
            seen[c] += 1
            if s.where[c] != key:
                return f"card {c} is in {key} but recorded in {s.where[c]}"
    if any(x != 1 for x in seen):
        return "a card is in no zone or in two zones"
    laid = {str(c) for key, cards in s.zones.items() if key.split("#")[0] in g.zone_grids for c in cards}
    if set(s.cells) != laid:
        return "the cells of laid cards do not match the grid zones"
    for cell in s.cells.values():
        if (not isinstance(cell, list) or len(cell) != 3 or type(cell[0]) is not int or type(cell[1]) is not int
                or cell[2] not in ("north", "east", "south", "west")
                or abs(cell[0]) > MAX_COORDINATE or abs(cell[1]) > MAX_COORDINATE):
            return f"a malformed cell {cell!r}"[:200]
    for key, count in s.tokens.items():
        if not isinstance(count, int) or count < 0:
            return f"token count {key} = {count!r}"
    for t, total in g.token_supply.items():
        have = sum(v for k, v in s.tokens.items() if k.split("|")[1:2] == [t])
        if have != total:
            return f"{have} {t} tokens exist; the game has {total}"
    frames = list(s.stack) + [f for b in s.branches for f in b.stack]
    for f in frames:
        if f.code not in g.codes or not (0 <= f.pc <= len(g.codes[f.code])):
            return f"a frame points at {f.code}:{f.pc}"

    def waits_on_a_choice(stack) -> bool:
        return bool(stack) and stack[-1].pc < len(g.codes[stack[-1].code]) and hasattr(
            g.codes[stack[-1].code][stack[-1].pc], "resume")

    for b in s.branches:
        if not (0 <= b.player < s.num_players):
            return f"a simultaneous part for player {b.player}"
        if b.pending is not None and (b.pending.player != b.player or not waits_on_a_choice(b.stack)
                                      or len(b.pending.values) != len(b.pending.labels)):
            return "a malformed simultaneous decision"
        shown = information.shown_of(g, s, b)
        if not (isinstance(shown, dict) and all(isinstance(shown.get(k), dict) for k in ("vars", "zones", "tokens"))
                and {k for k in values if k.endswith(f"#{b.player}")} <= set(shown["vars"])):
            return "a malformed simultaneous decision"
    if s.branches:
        if s.pending is not None or not any(b.pending for b in s.branches):
            return "a simultaneous step that waits for nobody"
        if not s.stack or s.stack[-1].pc >= len(g.codes[s.stack[-1].code]):
            return "a simultaneous step with nothing to go on with"
    elif s.pending is not None:
        if not waits_on_a_choice(s.stack):
            return "a pending decision with no choice behind it"
        if len(s.pending.values) != len(s.pending.labels) or not (0 <= s.pending.player < s.num_players):
            return "a malformed pending decision"
    elif not s.over and s.chance_at is None:
        return "the game is neither waiting for a decision nor over"
    return _information_problem(s, n_cards)


def _information_problem(s: GameState, n_cards: int) -> str | None:
    """Knowledge of cards and explicit chance, as a save may carry them."""
    for key, mask in s.known.items():
        if not (key.isdigit() and int(key) < n_cards and _is_int(mask) and 0 <= mask < 1 << s.num_players):
            return f"knowledge of a card {key!r}: {mask!r}"
    if s.chance not in ("seeded", "explicit"):
        return f"chance mode {s.chance!r}"
    for key, blk in s.unordered.items():
        if (key not in s.zones or not isinstance(blk, list) or len(blk) != 2 or not all(map(_is_int, blk))
                or blk[0] < 0 or blk[1] < 2 or blk[0] + blk[1] > len(s.zones[key])):
            return f"the unknown order of zone {key!r}"
    if not all(_is_int(c) and 0 <= c < n_cards for c in s.tape):
        return "a malformed list of chance outcomes"
    at = s.chance_at
    if at is not None:
        # The node's zone and cards are those of the decision being carried out, not of this state.
        if (s.chance != "explicit" or not isinstance(at, list) or len(at) != 3 or at[1] not in s.zones
                or not isinstance(at[2], list) or len(at[2]) < 2
                or not all(_is_int(c) and 0 <= c < n_cards for c in at[2])):
            return "a malformed chance node"
        act = at[0]
        if act is not None and not (isinstance(act, list) and len(act) == 3 and all(map(_is_int, act))):
            return "a malformed chance node"
    return None


def _choice_entries(g: CompiledGame, s: GameState, p: Pending, index: int, op: Any) -> list[list]:
    """The log lines of a choice: everyone reads it, unless it picked a card some cannot see;
    they read that a choice was made, not which."""
    label = p.labels[index]
    player = p.player
    heads = g.choice_heads  # (each seat's name and ": ", as the line begins; a seat, which `park` checked)
    text = ((heads[player] if player.__class__ is int and 0 <= player < len(heads) else f"{g.player_name(player)}: ")
            + (label if len(label) <= MAX_LOG_LINE else log_line(label)))
    value = p.values[index]
    if not getattr(op, "cards", False) or value.__class__ is not int:  # (a card is an int, never a bool)
        return [["choice", player, text]]
    # (information.card_visible of each player, as one bit mask: the zone's viewers, remembered
    # per game, and who knows the card; both looked up in place, the common case)
    players = s.num_players
    zone = s.where[value]
    seen = g.viewer_cache.get((zone, players))
    if seen is None:
        seen = information.viewers(g, zone, players)
    texts = g.card_texts
    mask = seen | s.known.get(texts[value] if 0 <= value < len(texts) else str(value), 0) | 1 << player
    everyone = (1 << players) - 1
    if mask & everyone == everyone:
        return [["choice", player, text]]
    seeing = [q for q in range(players) if mask >> q & 1]
    others = [q for q in range(s.num_players) if q not in seeing]
    return [["choice", p.player, text, seeing],
            ["choice", p.player, information.HIDDEN_CHOICE.format(player=g.player_name(p.player)), others]]


def _answer_choice(g: CompiledGame, s: GameState, m: Machine, p: Pending, index: int, op: Any, pick: bool,
                   frame: Frame, log: list, actions: list) -> None:
    """The answer `index` to the choice `op` (a choice of items, a menu or a `may`) of apply_index's
    lean paths, in the main stack or a part (its `log` and `actions`): its log line and action noted,
    then the choice's `resume`, written out where it only moves on (an item chosen, a `may`, a
    menu's fixed options) and called for a menu with costs, `once` marks or items."""
    value = p.values[index]
    label = p.labels[index]
    # (_choice_entries of a line everybody reads, without its call: a short label, and the item
    # no card, or a card in a zone everybody sees (its mask remembered: a card chosen from a hand
    # or a hidden zone, or a zone not looked at yet, goes the long way); the player is a seat,
    # which `park` checked)
    if len(label) <= MAX_LOG_LINE and (not pick or not op.cards or value.__class__ is not int
                                       or g.viewer_cache.get((s.where[value], s.num_players)) == (1 << s.num_players) - 1):
        log.append(["choice", p.player, g.choice_heads[p.player] + label])
    else:
        log.extend(_choice_entries(g, s, p, index, op))
    actions.append([p.player, value])
    if pick:
        frame.locals[op.var] = value
        frame.pc += 1
    elif op.__class__ is _MayOp:
        frame.pc = frame.pc + 1 if value else op.end
    elif op.fixed is not None:
        frame.pc = op.starts[value]
    else:
        op.resume(m, frame, value, p.player)


def _run_action(g: CompiledGame, s: GameState, act: list | None, budget: Budget | None = None,
                journal: Journal | None = None, branch: Branch | None | bool = False,
                p: Pending | None = None) -> None:
    """Carry out one decision ([player, index of the action]) or, for None, the setup, on `s`,
    noting what it changes in ``journal`` (for an undo) when one is given. ``branch`` and ``p``:
    the part of a `simultaneously` (None: the main stack) and the decision answered, when the
    caller knows them already.

    Raises NeedChance (explicit chance) when an outcome is missing from ``s.tape``; the caller
    then keeps the state from before."""
    m = Machine(g, s, budget, chance_ok=True)
    m.journal = journal
    if act is None:
        m.run()
        return
    player, index = act[0], act[1]
    if branch is False:
        branch = next((b for b in s.branches if b.pending is not None and b.pending.player == player),
                      None) if s.branches else None
        p = branch.pending if branch is not None else s.pending
    frame = (branch.stack if branch is not None else s.stack)[-1]  # the choice being answered
    op = g.codes[frame.code][frame.pc]
    try:
        value = p.values[index]
        entries = _choice_entries(g, s, p, index, op)
        if branch is not None:
            m.branch = branch
            branch.log.extend(entries)
            branch.actions.append([p.player, value])
            op.resume(m, frame, value, p.player)
            branch.pending = None
            m.branch = None
        else:
            s.log.extend(entries)
            s.actions.append([p.player, value])
            op.resume(m, frame, value, p.player)
            s.pending = None
        m.run()
    except RULE_FAULTS as err:  # raised by a `resume`, outside the step loop's own guard
        raise RuleRuntimeError(f"this choice cannot be carried out ({python_error(err)})",
                               getattr(op, "pos", None)) from None


def _redraw_unknown_vars(g: CompiledGame, t: GameState, player: int) -> None:
    """Give each hidden var declared `unknown among LIST` that `player` cannot read one of the
    values of LIST, each as likely, from the determinisation's generator: what its rules say the
    player may believe of it (LIST is worked out in `t`, from what everyone sees)."""
    for name, (values_of, pos) in g.var_unknown.items():
        if information.var_visible(g, name, None, player):
            continue
        values = values_of(Machine(g, t), {})
        if not values:
            raise RuleRuntimeError(f"`{name}` is unknown among no value at all: it cannot be drawn again", pos)
        t.rng, i = rng_below(t.rng, len(values))
        t.vars[name] = values[i]


def _choose_at_random(r: State, players: list[int]) -> None:
    """Make `players`' choices in the `simultaneously` step of `r` until their parts are done,
    each uniformly at random from the state's own generator (a choice the rules cannot carry
    out is passed over for the next one)."""
    s = r.s
    for p in players:
        for _ in range(MAX_RANDOM_CHOICES):
            if not s.branches or not any(b.player == p and b.pending is not None for b in s.branches):
                break
            n = r.num_actions(p)
            s.rng, first = rng_below(s.rng, n)
            for k in range(n):
                try:
                    r.apply_index((first + k) % n, p)
                    break
                except RuleRuntimeError:
                    if k == n - 1:
                        raise
        else:
            raise RuleRuntimeError(f"{r.game.compiled.player_name(p)} made more than {MAX_RANDOM_CHOICES} "
                                   "choices in one `simultaneously` step while it was dealt again")


def _repark(g: CompiledGame, t: GameState) -> None:
    """Work a waiting pick among cards out again (its cards and labels) after cards were renamed."""
    for branch in [None, *t.branches]:
        stack = t.stack if branch is None else branch.stack
        pending = t.pending if branch is None else branch.pending
        if pending is None or not stack:
            continue
        frame = stack[-1]
        op = g.codes[frame.code][frame.pc]
        if not getattr(op, "cards", False):
            continue
        decisions, count = t.decisions, branch.count if branch is not None else 0
        if branch is None:
            t.pending, t.decisions = None, decisions - 1
        else:
            branch.pending, branch.count = None, count - 1
        m = Machine(g, t)
        m.branch = branch
        try:
            op(m, frame)
        except (RuleRuntimeError, *RULE_FAULTS):
            pass
        fresh = t.pending if branch is None else branch.pending
        if fresh is None:
            fresh = pending
        fresh.serial = pending.serial
        t.decisions = decisions
        if branch is None:
            t.pending = fresh
        else:
            branch.pending, branch.count = fresh, count



# How many failed actions of one game are put back by playing the game again (State._put_back)
# before its actions take the undo journal again: a failure costs a whole game played again.
MAX_REPLAYS = 16
_STATE_FIELDS = tuple(f.name for f in attrs.fields(GameState))


def _replayable(state: State) -> State:
    """A new game of the seeded generator: its state is its seed's game and its actions."""
    state._lineage = state._s
    return state


def _in_merged_order(branches: list[Branch], acting: Branch) -> bool:
    """Whether no part after ``acting`` in a `simultaneously` step's list has answered yet: then
    its parts' actions so far, part after part as the step merges them, are in the order they
    were applied in (see State._carry_out)."""
    after = False
    for b in branches:
        if after:
            if b.actions:
                return False
        elif b is acting:
            after = True
    return True


def _parts_at_rest(branches: list[Branch]) -> bool:
    """Whether every part of a `simultaneously` step waits for its player or has ended, one at
    least waiting: then ``Machine.run`` has nothing to run, and only forgets the define memo."""
    waiting = False
    for b in branches:
        if b.pending is not None:
            waiting = True
        elif b.stack:
            return False
    return waiting


def _played_again(game: Game, s: GameState, actions: list[list]) -> GameState:
    """The new game of ``s``'s seed with ``actions`` applied again (the first of ``s``'s, then
    maybe those of its `simultaneously` parts), each as its value among the legal actions of its
    player, each with a budget as large as it may need (it was carried out once already, from
    whatever budget it was given)."""
    again = game.new_game(players=s.num_players, seed=s.seed)
    for player, value in actions:
        branch, p = next((b, q) for b, q in again._waiting() if q.player == player)
        index = next(i for i, v in enumerate(p.values) if type(v) is type(value) and v == value)
        again._carry_out(branch, p, index, Budget(limit=_REPLAY_STEPS))
    return again._s


_REPLAY_STEPS = 2**62


def _locked(method):
    """Run a method of State holding the state's lock (see State)."""
    @functools.wraps(method)
    def locked(self, *args, **kwargs):
        # `with self._lock:` written out: a `with` block of an RLock costs about 2,000 machine
        # instructions (the lookups of __enter__ and __exit__, and __exit__'s three arguments),
        # its acquire() and release() called half that, measured (three of them per decision of
        # a playout: a twentieth of a small game's)
        lock = self._lock
        lock.acquire()
        try:
            return method(self, *args, **kwargs)
        finally:
            lock.release()
    return locked


class State:
    """One game in progress: a thin face over ``GameState`` data.

    A state may be used from several threads (the browser server serves one game to several
    tasks): every public method that reads or changes it holds the state's own lock, so two
    answers to one decision are applied one after the other (the second is then stale or
    illegal and refused), and a `clone` or `to_json` never sees half an action. Methods added
    to this class must be wrapped in ``_locked`` too. Different states never share a lock.
    """

    __slots__ = ("game", "_s", "_lock", "_kept", "_budget", "_lineage", "_shared_history")

    def __init__(self, game: Game, s: GameState):
        self.game = game
        self._s = s
        self._lock = RLock()
        self._kept: Machine | None = None  # the machine of the last decision (_carry_out)
        self._budget: Budget | None = None  # its budget, when it was the action's own (not a caller's)
        # The GameState this object vouches is exactly the new game of its seed (seeded chance)
        # with the actions of `s.actions` applied, or None: then a failing action on the main
        # stack can be put back by playing those again, and needs no Undo (see _carry_out).
        # Only new_game, clone and successful actions keep it; every other change drops it.
        self._lineage: GameState | None = None
        # Set by clone() on both states: their GameStates may still share the log and the list of
        # actions, which only grow. Whatever changes this state first gives it its own (_own_history).
        self._shared_history = False

    @property
    def s(self) -> GameState:
        """The state's data. Whoever takes it from outside may change it past these methods:
        from then on a failing action is put back by its undo journal (see _carry_out)."""
        self._lineage = None
        if self._shared_history:
            self._own_history()
        return self._s

    def _own_history(self) -> None:
        """Give this state its own log and list of actions if another state still shares them.

        clone() leaves them shared, and those of the parts of a `simultaneously` step: they are
        most of a late state's items, and a copy made to look ahead is often dropped unchanged.
        Whatever changes a state calls this first (apply_index's lean path, _carry_out, the `s`
        property, _machine, run_procedure); one that finds the other state gone (the list's only
        other holder: a reference count of 2 with the call's own) keeps the list."""
        s = self._s
        if _refcount(s.log) > 2:
            s.log = s.log[:]
        if _refcount(s.actions) > 2:
            s.actions = s.actions[:]
        for b in s.branches:  # (the parts of a `simultaneously` step: theirs too, see GameState.copy)
            if _refcount(b.log) > 2:
                b.log = b.log[:]
            if _refcount(b.actions) > 2:
                b.actions = b.actions[:]
        self._shared_history = False

    @s.setter
    def s(self, value: GameState) -> None:
        self._lineage = None
        self._s = value

    # ---- decisions
    def _waiting(self) -> list[tuple[Branch | None, Pending]]:
        """The decisions the game waits for: one, or one per player still choosing."""
        s = self._s
        if s.over:
            return []
        if s.branches:
            return [(b, b.pending) for b in s.branches if b.pending is not None]
        return [(None, s.pending)] if s.pending is not None else []

    @property
    def decision(self) -> Decision | None:
        lock = self._lock  # (`with self._lock:`, written out as in `_locked`)
        lock.acquire()
        try:  # what `_locked` does, without its call: the hot path of playouts
            s = self._s
            p = s.pending
            if p is not None and not s.branches and not s.over and s.chance_at is None:  # the common case
                kept = self.game._decisions
                key = (p.player, p.prompt)
                decision = kept.get(key)
                if decision is None:
                    decision = Decision((p.player,), False, p.prompt)
                    if len(kept) < MAX_DECISIONS_KEPT:
                        kept[key] = decision
                return decision
            if s.branches and not s.over and s.chance_at is None:  # a step of choosing at once
                return self._decision_at_once(s.branches)
            return self._decision()
        finally:
            lock.release()

    def _decision_at_once(self, branches: list[Branch]) -> Decision | None:
        """The Decision of a `simultaneously` step: the players still choosing, the first one's
        prompt (``_decision``, without the list of what waits)."""
        first = None
        players = []
        for b in branches:
            p = b.pending
            if p is not None:
                if first is None:
                    first = p
                players.append(p.player)
        if first is None:
            return None
        kept = self.game._decisions
        key = (tuple(players), first.prompt)
        decision = kept.get(key)
        if decision is None:
            decision = Decision(key[0], True, first.prompt)
            if len(kept) < MAX_DECISIONS_KEPT:
                kept[key] = decision
        return decision

    def _decision(self) -> Decision | None:
        s = self._s
        if s.chance_at is not None:
            return Decision((CHANCE,), False, "Chance")
        waiting = self._waiting()
        if not waiting:
            return None
        players = tuple(p.player for _, p in waiting)
        simultaneous = bool(self._s.branches)
        prompt = waiting[0][1].prompt
        if not simultaneous:
            return Decision(players, simultaneous, prompt)
        # A `simultaneously` step asks each of its decisions of the same players again and again
        # (kept with the ones of one player deciding: the keys differ, a tuple of players here)
        kept = self.game._decisions
        key = (players, prompt)
        decision = kept.get(key)
        if decision is None:
            decision = Decision(players, True, prompt)
            if len(kept) < MAX_DECISIONS_KEPT:
                kept[key] = decision
        return decision

    @_locked
    def legal_actions(self, player: int | None = None) -> list[Action]:
        if self._s.chance_at is not None:
            return [a for a, _ in self.chance_outcomes()] if player in (None, CHANCE) else []
        for _, p in self._waiting():
            if player is None or p.player == player:
                return [Action(p.player, v, lab, p.serial) for v, lab in zip(p.values, p.labels, strict=True)]
        return []

    @_locked
    def apply(self, action: Action, budget: Budget | None = None) -> None:
        """Apply a legal action; an illegal one raises IllegalAction and changes nothing.

        The work it takes is paid from ``budget`` if given (an agent's look-ahead shares one),
        else from a fresh budget of MAX_STEPS_PER_ACTION steps."""
        g = self.game.compiled  # (a clone's shared history: _carry_out's, or a chance outcome's new state)
        if self._s.chance_at is not None:
            self._apply_chance(action)
            return
        if not isinstance(action, Action):
            raise IllegalAction(f"not an action: {_show(action)}")
        waiting = self._waiting()
        if not waiting:
            raise IllegalAction("the game is over")
        if not _is_int(action.player):
            raise IllegalAction(f"the player of an action is a seat number from 0, not {_show(action.player)}")
        found = next(((b, p) for b, p in waiting if p.player == action.player), None)
        if found is None:
            deciding = ", ".join(g.player_name(p.player) for _, p in waiting)
            raise IllegalAction(f"{g.player_name(action.player)} cannot act now; waiting for {deciding}")
        branch, p = found
        if not _is_int(action.decision):
            raise IllegalAction(f"the decision of an action is a number, not {_show(action.decision)}")
        if action.decision not in (-1, p.serial):
            raise IllegalAction(f"stale action: it answers decision {action.decision}, "
                                f"the game is at decision {p.serial}")
        try:
            equal = [i for i, v in enumerate(p.values) if type(v) is type(action.value) and v == action.value]
        except Exception:  # a value whose comparison fails is not one of ours
            equal = []
        # Options of equal value (a choice in [1, 1, 2]) are told apart by their labels ("take 1
        # (2)"): the one whose label the action carries, as apply_index(i) of legal_actions()[i]
        # answers; the first for an action made by hand with another label
        index = next((i for i in equal if p.labels[i] == action.label), equal[0] if equal else None)
        if index is None:
            raise IllegalAction(f"{_show(action.value)} is not a legal choice now")
        self._carry_out(branch, p, index, budget, False)

    def current_player(self) -> int | None:
        """The seat that acts next, as OpenSpiel's ``current_player()``: the player deciding; in
        a `simultaneously` step the first one still choosing who has a legal action (the first
        one still choosing when none has); CHANCE at a chance node; None once the game is over.
        What a program playing the game asks before every action: it makes no Decision."""
        lock = self._lock  # (`with self._lock:`, written out as in `_locked`)
        lock.acquire()
        try:
            s = self._s
            p = s.pending
            if p is not None and not s.branches and not s.over and s.chance_at is None:  # the common case
                return p.player
            if s.chance_at is not None:
                return CHANCE
            if s.over:
                return None
            if s.branches:
                first = None
                for b in s.branches:
                    p = b.pending
                    if p is not None:
                        if p.values:
                            return p.player
                        if first is None:
                            first = p.player
                return first
            return None  # (nothing waits)
        finally:
            lock.release()

    def num_actions(self, player: int | None = None) -> int:
        """How many legal actions ``player`` (default: the first player deciding) has now; with
        ``apply_index``, the lean path for programs that need no labels nor Action objects."""
        lock = self._lock  # (`with self._lock:`, written out as in `_locked`)
        lock.acquire()
        try:  # what `_locked` does, without its call: the hot path of playouts
            s = self._s
            p = s.pending
            if p is not None and not s.branches and not s.over and s.chance_at is None:
                return len(p.values) if player is None or player == p.player else 0
            if s.branches and not s.over and s.chance_at is None:  # a step of choosing at once
                for b in s.branches:
                    p = b.pending
                    if p is not None and (player is None or p.player == player):
                        return len(p.values)
                return 0
            return self._num_actions(player)
        finally:
            lock.release()

    def _num_actions(self, player: int | None) -> int:
        if self._s.chance_at is not None:  # the outcomes of the chance node, as legal_actions lists them
            return len(self.chance_outcomes()) if player in (None, CHANCE) else 0
        s = self._s
        if s.branches and not s.over:  # (_waiting, without its list)
            for b in s.branches:
                p = b.pending
                if p is not None and (player is None or p.player == player):
                    return len(p.values)
            return 0
        for _, p in self._waiting():
            if player is None or p.player == player:
                return len(p.values)
        return 0

    def apply_index(self, index: int, player: int | None = None, budget: Budget | None = None) -> None:
        """Apply the legal action at ``index`` in ``legal_actions(player)`` (default: the first
        player deciding): the lean path for programs, with no Action objects made or compared.
        An index out of range raises IllegalAction and changes nothing."""
        lock = self._lock  # (`with self._lock:`, written out as in `_locked`)
        lock.acquire()
        try:  # what `_locked` does, without its call: the hot path of playouts
            if self._shared_history:
                self._own_history()
            s = self._s
            p = s.pending
            if (p is not None and not s.branches and not s.over and s.chance_at is None
                    and (player is None or player == p.player) and index.__class__ is int
                    and 0 <= index < len(p.values)):
                m = self._kept
                if (budget is None and self._lineage is s and (m is None or m.s is not s or m.budget is self._budget)
                        and runtime.push_counter is None and self.game._replays < MAX_REPLAYS):
                    # `_carry_out` of a choice of items, a menu or a `may`, answered with the
                    # state's own machine and budget and put back by replay should it fail (every
                    # decision of a playout), written out: the path of most decisions of a small
                    # game, where that call and the checks it makes again for every other kind of
                    # decision were a tenth of a decision
                    frame = s.stack[-1]  # the choice being answered
                    g = self.game.compiled
                    op = g.codes[frame.code][frame.pc]
                    pick = op.__class__ is _PickOp
                    if pick or op.__class__ is _MenuOp or op.__class__ is _MayOp:
                        before = (len(s.actions), len(s.log), s.decisions, s.rng, None)
                        m = self._lean_machine(s)
                        # the fast runs (see `_carry_out`), but where chance may stop the action
                        # (explicit chance): that stop would be put back and carried out again
                        if m.runs_of is not g.fast_runs:  # (else this state's last action played them too)
                            m.runs_of = (g.fast_runs if self.game._fast and s.chance != "explicit" and not s.unordered
                                         else g.runs)
                        try:
                            _answer_choice(g, s, m, p, index, op, pick, frame, s.log, s.actions)
                            s.pending = None
                            m._steps(s.stack, s, False)  # (the stack holds the choice's frame; no branches, not over)
                            if s.pending is None or s.branches or s.over:
                                m.run()
                        except BaseException as err:  # never leave half an action (as `_carry_out`)
                            if m.runs_of is g.fast_runs and isinstance(err, Exception):
                                # what the fast runs raise says neither where nor whether the
                                # budget ran out first: put back, and carried out by the careful
                                # runs, which fail (or not) as the reference does
                                self._put_back(None, before)
                                self._carry_out(None, s.pending, index, None, False, True)
                                return
                            if not self._failed(err, p, index, op, before):
                                raise
                            return
                        if s.over:
                            self._spare(m)
                        return
                self._carry_out(None, p, index, budget, False)  # one player deciding, the common case, directly
                return
            if s.branches and not s.over and s.chance_at is None and index.__class__ is int:
                # a step of choosing at once: the player's part (the first one still choosing)
                for b in s.branches:
                    p = b.pending
                    if p is not None and (player is None or p.player == player):
                        if 0 <= index < len(p.values):
                            if budget is not None or not self._answer_part(b, p, index):
                                self._carry_out(b, p, index, budget, False)
                            return
                        break
            self._apply_index_elsewhere(index, player, budget)
        finally:
            lock.release()

    def _answer_part(self, branch: Branch, p: Pending, index: int) -> bool:
        """``_carry_out(branch, p, index, None, False)`` of a choice of items, a menu or a `may`
        in a part of a `simultaneously` step, written out as ``apply_index``'s lean path does it for a
        decision outside one: answered with the state's own machine and budget in the fast runs,
        put back by replay should it fail (then carried out again by the careful runs, which fail,
        or not, as the reference does). Most decisions of a game whose players decide in secret
        are of this kind, and `_carry_out` checks again, for each, what this looks at once.
        False, with nothing done, for any other decision, or where `_carry_out` would make an Undo
        (a part answering out of the merged order) or play the careful runs."""
        s = self._s
        m = self._kept
        game = self.game
        if not (self._lineage is s and (m is None or m.s is not s or m.budget is self._budget) and game._fast
                and runtime.push_counter is None and game._replays < MAX_REPLAYS
                and s.chance != "explicit" and not s.unordered):
            return False
        branches = s.branches
        after = False  # (_in_merged_order, written out)
        for b in branches:
            if after:
                if b.actions:
                    return False
            elif b is branch:
                after = True
        frame = branch.stack[-1]  # the choice being answered
        g = game.compiled
        op = g.codes[frame.code][frame.pc]
        pick = op.__class__ is _PickOp
        if not pick and op.__class__ is not _MenuOp and op.__class__ is not _MayOp:
            return False
        # what `_put_back` needs (as `_carry_out` keeps it for a part)
        before = (len(s.actions), len(s.log), s.decisions, s.rng, (branches, branch, len(branch.actions), len(branch.log)))
        m = self._lean_machine(s)
        m.runs_of = g.fast_runs
        try:
            m.branch = branch  # (a menu's own `resume` runs in the part)
            _answer_choice(g, s, m, p, index, op, pick, frame, branch.log, branch.actions)
            branch.pending = None
            # (the first round of `m.run()`, as `_carry_out` makes it: the acting part is the only
            # one that can run; when it waits again, as most do, run would stop at once)
            m._steps(branch.stack, branch, True)  # (the stack holds the choice's frame; not over)
            m.branch = None
            if branch.pending is None or s.over:
                if branch.stack or s.over or s.branches is not branches or not _parts_at_rest(branches):
                    m.run()
                elif m.memo:  # the part ended while another waits: all that `run` would do
                    m.memo = {}
        except BaseException as err:  # never leave half an action (as `_carry_out`)
            m.branch = None
            self._put_back(None, before)
            if not isinstance(err, Exception):
                raise
            # the parts are new ones, played again: the acting one is at the same place
            part = s.branches[next(k for k, b in enumerate(branches) if b is branch)]
            self._carry_out(part, part.pending, index, None, False, True)
            return True
        if s.over:
            self._spare(m)
        return True

    def _lean_machine(self, s: GameState) -> Machine:
        """The machine of apply_index's lean paths: the state's own, made ready as a new machine
        would be (its own budget, paid afresh), or, at the state's first decision, a spare one
        (see `_spare`) or a new one."""
        m = self._kept
        if m is None or m.s is not s:
            try:
                m = self.game._spare_machines.pop()
            except IndexError:
                m = Machine(self.game.compiled, s, None, True)
            else:
                m.renew(s)
            self._kept = m
            self._budget = m.budget
        else:
            m.budget.used = 0
            m.log_chars = None
            m.tape_pos = 0
            m.branch = None
            if m.memo:
                m.memo = {}
            m.journal = None
        return m

    def _spare(self, m: Machine) -> None:
        """The game is over: nothing more to decide, so its machine serves the next new state."""
        spares = self.game._spare_machines
        if len(spares) < MAX_SPARE_MACHINES:
            self._kept = None
            spares.append(m)

    def _apply_index_elsewhere(self, index: int, player: int | None, budget: Budget | None) -> None:
        """``apply_index`` at a chance node, in a step of choosing at once, or refused."""
        if self._s.chance_at is not None:
            outcomes = self.chance_outcomes()
            if player not in (None, CHANCE) or not _is_int(index) or not 0 <= index < len(outcomes):
                raise IllegalAction(f"action {_show(index)} is not one of the {len(outcomes)} chance outcomes now")
            self._apply_chance(outcomes[index][0])
            return
        waiting = self._waiting()
        if not waiting:
            raise IllegalAction("the game is over")
        if player is None:
            branch, p = waiting[0]
        else:
            found = [(b, q) for b, q in waiting if q.player == player]
            if not found:
                raise IllegalAction(f"{_show(player)} cannot act now")
            branch, p = found[0]
        if not _is_int(index) or not 0 <= index < len(p.values):
            raise IllegalAction(f"action {_show(index)} is not one of the {len(p.values)} legal now")
        self._carry_out(branch, p, index, budget, False)

    def _carry_out(self, branch: Branch | None, p: Pending, index: int, budget: Budget | None,
                   undo_wanted: bool = True, careful: bool = False) -> Undo | None:
        """Apply the legal action at ``index`` of decision ``p``; on any failure, undo all of it.
        Returns what would undo it (tests check that it puts the state back exactly), or None
        when ``undo_wanted`` is false and none was made (see below). In explicit-chance mode an
        action that reaches a random event is undone too, and the game waits at a chance node for
        the outcome (interpreter/engine/chance.py).

        No undo is made for an action paid from its own budget, of a state that is its seed's
        new game and the actions it lists (``_lineage``): should it fail, that game is played
        again to where it stood (``_put_back``), so the rare failure pays for what every action
        saves (an Undo and its journal: a sixth of a small game's playout). In a `simultaneously`
        step the actions the state lists are those of ``s.actions`` and then its parts' own, part
        after part, as the step merges them when it ends; that is the order they were applied in
        while no part answers after a later part of the list has (a program playing the first
        player still deciding, as playouts do). An action out of that order takes its Undo,
        and the state then no longer vouches for its lineage (played again in the merged order,
        its game could differ: the parts share the supply's tokens).

        The action runs the fast runs (runtime.Machine.runs_of) unless ``careful``: should anything
        be raised, it is put back and carried out again by the careful runs, whose outcome (the
        error, its position, the budget used) is the reference's."""
        if self._shared_history:
            self._own_history()
        s = self._s
        g = self.game.compiled
        fast = not careful and self.game._fast and s.chance != "explicit" and not s.unordered
        if fast:  # what a second try needs: the budget given, as it was
            given, used_before = budget, None if budget is None else budget.used
        if (not undo_wanted and budget is None and self._lineage is s
                and runtime.push_counter is None and self.game._replays < MAX_REPLAYS
                and (branch is None or _in_merged_order(s.branches, branch))):
            undo = None
            # what `_put_back` needs: the state's actions, log, decision count and generator, and
            # in a part of a `simultaneously` step the parts, and what this one listed and logged
            before = (len(s.actions), len(s.log), s.decisions, s.rng, None if branch is None
                      else (s.branches, branch, len(branch.actions), len(branch.log)))
        else:
            if branch is not None and self._lineage is s and not _in_merged_order(s.branches, branch):
                self._lineage = None  # (see above)
            undo = Undo(s, branch)
            before = None
        try:
            # `_run_action`, written out: the path of every decision of a playout, one call and
            # one lookup fewer. The machine of this state's last decision, made ready for this one
            # as a new one would be (a new Machine per decision was a twentieth of a small game's
            # decision)
            m = self._kept
            if m is None or m.s is not s:
                m = self._kept = Machine(g, s, budget, True)
                if budget is None:
                    self._budget = m.budget  # its own: the next decision pays from it afresh
            else:
                if budget is None:  # its own budget again, paid afresh: no new Budget per decision
                    budget = m.budget if m.budget is self._budget else Budget()
                    budget.used = 0
                    self._budget = budget
                m.budget = budget
                m.log_chars = None
                m.tape_pos = 0
                m.branch = None
                if m.memo:
                    m.memo = {}
            m.journal = undo  # (its own journal; None: nothing noted)
            m.runs_of = g.fast_runs if fast else g.runs
            frame = (s.stack if branch is None else branch.stack)[-1]  # the choice being answered
            op = g.codes[frame.code][frame.pc]
            try:
                value = p.values[index]
                if branch is None:
                    label = p.labels[index]
                    if len(label) <= MAX_LOG_LINE and not getattr(op, "cards", False):
                        # (_choice_entries of a choice everybody reads, without its call; the
                        # player is a seat, which `park` checked)
                        s.log.append(["choice", p.player, g.choice_heads[p.player] + label])
                    else:
                        s.log.extend(_choice_entries(g, s, p, index, op))
                    s.actions.append([p.player, value])
                    if op.__class__ is _PickOp:  # (its `resume`, without the call: most choices of items)
                        frame.locals[op.var] = value
                        frame.pc += 1
                    elif op.__class__ is _MenuOp and op.fixed is not None:  # (the same: where the option starts)
                        frame.pc = op.starts[value]
                    else:
                        op.resume(m, frame, value, p.player)
                    s.pending = None
                    # (the first round of `m.run()` without its call: most decisions run on to
                    # the next one, with no `simultaneously` on the way; anything else is run's)
                    if s.stack and not s.branches and not s.over:
                        m._steps(s.stack, s, False)
                    if s.pending is None or s.branches or s.over:
                        m.run()
                else:  # a part of a `simultaneously` step
                    label = p.labels[index]
                    if len(label) <= MAX_LOG_LINE and not getattr(op, "cards", False):
                        # (_choice_entries of a choice everybody reads, without its call)
                        branch.log.append(["choice", p.player, g.choice_heads[p.player] + label])
                    else:
                        branch.log.extend(_choice_entries(g, s, p, index, op))
                    branch.actions.append([p.player, value])
                    m.branch = branch
                    op.resume(m, frame, value, p.player)
                    branch.pending = None
                    # (the first round of `m.run()` without its call: the acting part is the
                    # only one that can run, every other waits for its player or has ended;
                    # when it waits again, as most do, the others still wait and run would stop)
                    if branch.stack and not s.over:
                        m._steps(branch.stack, branch, True)
                    m.branch = None
                    if branch.pending is None or s.over:
                        m.run()
            except RULE_FAULTS as err:  # raised by a `resume`, outside the step loop's own guard
                raise RuleRuntimeError(f"this choice cannot be carried out ({python_error(err)})",
                                       getattr(op, "pos", None)) from None
        except Exception as err:
            if fast:  # (see above) put back, and carried out by the careful runs
                self._put_back(undo, before)
                if given is not None:
                    given.used = used_before
                if branch is not None and undo is None:  # (put back by playing again: the parts are new ones)
                    branch = s.branches[next(k for k, b in enumerate(before[4][0]) if b is branch)]
                return self._carry_out(branch, (s if branch is None else branch).pending, index, given,
                                       undo_wanted, True)
            if isinstance(err, NeedChance):  # explicit chance: wait for the outcome, before the decision
                self._put_back(undo, before)
                s.chance_at = [[p.player, index, p.serial], err.key, err.cards]
                s.tape = []
                return undo
            self._put_back(undo, before)
            if not isinstance(err, RuleRuntimeError):
                raise
            if err.pos is None:  # raised by a `resume`: the choice is where it happened
                frame = (branch.stack if branch is not None else s.stack)[-1]
                raise RuleRuntimeError(err.bare_message, getattr(g.codes[frame.code][frame.pc], "pos", None)) from None
            raise
        except BaseException:  # anything else: never leave half an action
            self._put_back(undo, before)
            raise
        return undo

    def _failed(self, err: BaseException, p: Pending, index: int, op: Any, before: Any) -> bool:
        """The lean path of ``apply_index`` failed with ``err``: the state put back as
        ``_carry_out`` puts it, and its error raised as ``_carry_out`` raises it. True when the
        game now waits at a chance node (explicit chance) and nothing is raised; False when
        ``err`` is to be raised as it is."""
        s = self._s
        self._put_back(None, before)
        if isinstance(err, NeedChance):  # explicit chance: wait for the outcome, before the decision
            s.chance_at = [[p.player, index, p.serial], err.key, err.cards]
            s.tape = []
            return True
        if isinstance(err, RULE_FAULTS):  # raised outside the step loop's own guard
            err = RuleRuntimeError(f"this choice cannot be carried out ({python_error(err)})", getattr(op, "pos", None))
            if err.pos is not None:
                raise err from None
        if isinstance(err, RuleRuntimeError) and err.pos is None:  # the choice is where it happened
            frame = s.stack[-1]
            raise RuleRuntimeError(err.bare_message,
                                   getattr(self.game.compiled.codes[frame.code][frame.pc], "pos", None)) from None
        return False

    def _put_back(self, undo: Undo | None, before: Any) -> None:
        """Undo a failed action: by its Undo, or, when it had none, by playing the state's game
        again from its seed up to where the action began (``before``: what the state's actions,
        log, decision count and generator were then, and in a `simultaneously` part the parts and what
        the acting one had listed and logged, checked against the game played again)."""
        s = self._s
        if undo is not None:
            undo.restore(s)
            return
        self.game._replays += 1
        n_actions, n_log, decisions, rng, part = before
        parts: list = []
        if part is not None:  # an action in a part of a `simultaneously` step
            branches, acting, n_part_actions, n_part_log = part
            # each part as it stood: the acting one without what this action listed and logged
            # (a failure may have ended the step since, but the parts' own lists are intact)
            parts = [(b.actions[:n_part_actions], b.log[:n_part_log]) if b is acting else (b.actions[:], b.log[:])
                     for b in branches]
        try:
            again = _played_again(self.game, s, s.actions[:n_actions] + [a for acts, _ in parts for a in acts])
        except Exception:  # noqa: BLE001 - an action that cannot be played again: as below
            again = None
        if (again is None or again.actions != s.actions[:n_actions] or again.log != s.log[:n_log]
                or again.decisions != decisions or again.rng != rng
                or [(b.actions, b.log) for b in again.branches] != parts):
            # Only a change made to `state.s` directly, past State's methods, can lead here.
            self._lineage = None
            raise RuntimeError("a failed action could not be undone: the state was changed outside "
                               "its methods, so playing its game again does not lead back to it")
        for name in _STATE_FIELDS:
            setattr(s, name, getattr(again, name))

    # ---- chance
    @property
    @_locked
    def is_chance(self) -> bool:
        """Whether the game waits for a chance outcome (only in explicit-chance mode)."""
        return self._s.chance_at is not None

    @_locked
    def chance_outcomes(self) -> list[tuple[Action, Fraction]]:
        """At a chance node, each outcome (an action of seat -1 naming the card that comes next)
        with its exact probability; the probabilities sum to 1. Empty elsewhere."""
        at = self._s.chance_at
        if at is None:
            return []
        g = self.game.compiled
        return [(Action(CHANCE, card, g.card_names[card]), prob)
                for card, prob in chance.outcomes(g, self._s, at[2])]

    def _apply_chance(self, action: Any) -> None:
        value = action.value if isinstance(action, Action) else action
        outcomes = {a.value for a, _ in self.chance_outcomes()}
        if isinstance(value, bool) or not isinstance(value, int) or value not in outcomes:
            raise IllegalAction(f"{_show(value)} is not a chance outcome now")
        base = self._s
        tape = base.tape + [value]
        t = base.copy()
        t.chance_at, t.tape = None, tape
        act = base.chance_at[0]
        try:
            _run_action(self.game.compiled, t, act[:2] if act else None)
        except NeedChance as need:
            nxt = base.copy()
            nxt.tape = tape
            nxt.chance_at = [act, need.key, need.cards]
            self._s = nxt
            return
        t.tape = []
        self._s = t

    # ---- results
    @property
    def is_over(self) -> bool:
        return self._s.over

    def _machine(self, budget: Budget | None = None) -> Machine:
        if self._shared_history:  # (its users may change the state: place, set_var, set_tokens)
            self._own_history()
        return Machine(self.game.compiled, self._s, budget)

    @_locked
    def score_breakdown(self, player: int, budget: Budget | None = None) -> dict[str, int]:
        g = self.game.compiled
        m = self._machine(budget)
        return {label: f(m, player) for label, f in g.score_lines}

    @_locked
    def scores(self, budget: Budget | None = None) -> list[int]:
        budget = budget if budget is not None else Budget()
        return [sum(self.score_breakdown(p, budget).values()) for p in range(self._s.num_players)]

    @_locked
    def winners(self, budget: Budget | None = None) -> list[int]:
        """The winning players: the game's `winners:` rule, else the highest score after tiebreaks.

        Empty when nobody wins (a solo game lost, an automated opponent winning)."""
        g = self.game.compiled
        budget = budget if budget is not None else Budget()
        m = self._machine(budget)
        if g.winners is not None:
            chosen = g.winners(m, {})
            return sorted({p for p in chosen if isinstance(p, int) and 0 <= p < self._s.num_players})
        scores = self.scores(budget)
        keys = [(scores[p], *(f(m, p) for f in g.tiebreaks)) for p in range(self._s.num_players)]
        best = max(keys)
        return [p for p, k in enumerate(keys) if k == best]

    # ---- results and utilities: the one definition every agent and adapter uses
    @_locked
    def results(self, budget: Budget | None = None) -> list[float]:
        """Each player's share of the win: 1/k for each of k winners, 0 for everyone else.

        All zeros when nobody wins. Mid-game it is the result if the game ended now."""
        winners = self.winners(budget)
        return [1 / len(winners) if p in winners else 0.0 for p in range(self._s.num_players)]

    @_locked
    def returns(self, utility: str = "win", budget: Budget | None = None) -> list[float]:
        """What the game is worth to each player, from its result (see docs/agents.md).

        ``win`` (the default): ``k * share - 1`` with ``k = max(players, 2)``; a sole winner of a
        two-player game gets +1, the loser -1, a draw 0; with more players a sole winner gets
        ``players - 1`` and the others -1, so the returns add up to 0 whenever somebody wins; when
        nobody wins (a solo game lost) everybody gets -1.
        ``score``: each player's score minus the mean score (zero-sum, and right only for games
        where the higher score is better).
        """
        if utility == "win":
            k = max(self._s.num_players, 2)
            return [k * share - 1 for share in self.results(budget)]
        if utility == "score":
            scores = self.scores(budget)
            mean = sum(scores) / len(scores)
            return [score - mean for score in scores]
        raise ValueError(f"utility is `win` or `score`, not {utility!r}")

    @_locked
    def standing(self, player: int, budget: Budget | None = None) -> float:
        """How well a player stands now, from 0 to 1: a heuristic for agents that cannot search.

        Half is the player's share of the win if the game ended now; half is the score margin over
        the best rival, squashed into 0..1 and pointed the way the game's result rewards: when the
        present winners have lower scores than the rest (a lowest-score-wins game), a lower score
        counts as better. The work is paid from ``budget`` if given."""
        return self.standings(budget)[player]

    @_locked
    def standings(self, budget: Budget | None = None) -> list[float]:
        """``standing`` of every player, worked out together."""
        budget = budget if budget is not None else Budget()
        scores = self.scores(budget)
        results = self.results(budget)
        n = self._s.num_players
        winners = [p for p, r in enumerate(results) if r > 0]
        others = [p for p in range(n) if p not in winners]
        direction = 1
        if winners and others:
            winning = sum(scores[p] for p in winners) / len(winners)
            losing = sum(scores[p] for p in others) / len(others)
            direction = -1 if winning < losing else 1
        out = []
        for player in range(n):
            rivals = [direction * scores[q] for q in range(n) if q != player]
            margin = direction * scores[player] - (max(rivals) if rivals else 0)
            out.append(0.5 * results[player] + 0.25 + 0.25 * margin / (1 + abs(margin)))
        return out

    @_locked
    def check_invariants(self) -> list[str]:
        """The texts of the game's declared invariants that do not hold now."""
        m = self._machine()
        return [text for text, f in self.game.compiled.invariants if not f(m, {})]

    # ---- data
    def clone(self, budget: Budget | None = None) -> State:
        """An independent copy; with a budget, the copy is paid for (one step per card, var,
        token entry and log line)."""
        lock = self._lock  # (`with self._lock:`, written out as in `_locked`)
        lock.acquire()
        try:  # what `_locked` does, without its call: the hot path of search
            if budget is not None:
                s = self._s
                budget.charge(1 + len(s.where) + len(s.vars) + len(s.tokens) + len(s.log) + len(s.actions))
            copy = State(self.game, self._s.copy(share_history=True))
            copy._shared_history = self._shared_history = True
            if self._lineage is self._s:
                copy._lineage = copy._s
            return copy
        finally:
            lock.release()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, State) or other.game is not self.game:
            return False
        first, second = sorted((self, other), key=id)  # always in one order: no deadlock
        with first._lock, second._lock:
            g = self.game.compiled
            return information.with_starts(g, other._s) == information.with_starts(g, self._s)

    def __hash__(self) -> int:  # states are mutable; hash by identity
        return id(self)

    @_locked
    def to_json(self) -> str:
        doc = _converter.unstructure(information.with_starts(self.game.compiled, self._s))
        # Who knows which card, in card order: the order the rules learnt them in (players
        # choosing at the same time, in any order) leaves no trace in a save.
        doc["known"] = {k: doc["known"][k] for k in sorted(doc["known"], key=lambda k: (len(k), k))}
        state_text = _state_text(doc)
        head = json.dumps({"format": SAVE_FORMAT, "version": SAVE_VERSION, "game": self.game.name,
                           "fingerprint": self.game.fingerprint, "checksum": _checksum(state_text)},
                          separators=(",", ":"))
        return f'{head[:-1]},"state":{state_text}}}'

    @property
    def log(self) -> list[LogEntry]:
        """The whole log, every line whatever its audience (for replays and referees); a player's
        own is `log_for(player)`."""
        return [_entry(e) for e in self._s.log]

    @_locked
    def log_for(self, player: int) -> list[LogEntry]:
        """The log lines a player reads."""
        return [_entry(e) for e in information.log_for(self._s, player)]

    @_locked
    def events_since_last_decision(self, player: int) -> list[LogEntry]:
        """The log lines a player reads since their own last choice (all of them before their
        first): what a screen shows as "since your last decision"."""
        log = information.log_for(self._s, player)
        last = max((i for i, e in enumerate(log) if e[0] == "choice" and e[1] == player), default=-1)
        return [_entry(e) for e in log[last + 1:]]

    @_locked
    def action_card(self, action: Action) -> int | None:
        """The card a legal action is about: the card chosen, or else the card its label names
        (the longest name that appears in it); None for an action about no card."""
        g = self.game.compiled
        value, label = action.value, action.label or ""
        if type(value) is int and 0 <= value < len(g.card_names) and g.card_names[value] in label:
            return value
        named = [c for c, name in enumerate(g.card_names) if name and name in label]
        return max(named, key=lambda c: len(g.card_names[c])) if named else None

    @property
    def actions_taken(self) -> list[tuple[int, Any]]:
        return [(p, v) for p, v in self._s.actions]

    @property
    def seed(self) -> int:
        return self._s.seed

    @property
    def num_players(self) -> int:
        return self._s.num_players

    # ---- setting up positions (tests, scenarios, puzzles) ----------------------------------
    # These change the state directly but keep it consistent: cards stay in exactly one zone
    # and tokens move to and from the supply, so conservation still holds.

    def find_cards(self, name: str) -> list[int]:
        """The ids of every copy of the card with this name."""
        ids = [i for i, n in enumerate(self.game.compiled.card_names) if n == name]
        if not ids:
            raise KeyError(f"no card named {name!r}")
        return ids

    @_locked
    def place(self, card: int | str, zone: str, at: int | str | None = None) -> int:
        """Move a card (an id, or a name: the first copy not already in `zone`) into a zone key."""
        if isinstance(card, str):
            ids = [c for c in self.find_cards(card) if self._s.where[c] != zone]
            if not ids:
                raise KeyError(f"every {card!r} is already in {zone}")
            card = ids[0]
        if zone not in self._s.zones:
            raise KeyError(f"no zone {zone!r}; zones: {', '.join(sorted(self._s.zones))}")
        self._lineage = None  # no longer its seed's game and its actions
        self._machine().move_card(card, zone, at)
        return card

    def holder_key(self, holder: int | str) -> str:
        if isinstance(holder, int):
            return f"p{holder}"
        if holder == "supply" or holder[:1] in ("p", "c") and holder[1:].isdigit() or holder.startswith("m:"):
            return holder
        return f"m:{holder}"

    @_locked
    def set_tokens(self, holder: int | str, token: str, count: int, side: str | None = None) -> None:
        """Give a holder exactly `count` tokens on one side, taking from or returning to the supply."""
        self._lineage = None  # no longer its seed's game and its actions
        m = self._machine()
        key = self.holder_key(holder)
        sides = self.game.compiled.token_sides[token]
        side = side or sides[0]
        have = m.token_count(key, token, side)
        if count > have:
            moved = m.transfer(count - have, token, "supply", key, None, strict=True, arrive_side=side)
            assert moved == count - have
        elif count < have:
            m.transfer(have - count, token, key, "supply", side, strict=True)

    @_locked
    def set_var(self, name: str, value: Any, player: int | None = None) -> None:
        key = name if player is None else f"{name}#{player}"
        if key not in self._s.vars:
            raise KeyError(f"no var {key!r}")
        self._lineage = None  # no longer its seed's game and its actions
        self._machine().set_var(key, value)

    @_locked
    def run_procedure(self, name: str, *args: Any, active: int | None = None) -> None:
        """Drop whatever the game was doing and run one procedure (and what it triggers) from here.

        The state then waits for the procedure's decisions; when it finishes, the state is over.
        """
        key = f"proc:{name}"
        if key not in self.game.compiled.codes:
            procs = sorted(k[5:] for k in self.game.compiled.codes if k.startswith("proc:"))
            raise KeyError(f"no procedure {name!r}; procedures: {', '.join(procs)}")
        params = self.game.compiled.proc_params[name]
        if len(params) != len(args):
            raise TypeError(f"{name} takes {len(params)} argument(s)")
        if self._shared_history:
            self._own_history()
        s = self._s
        self._lineage = None  # no longer its seed's game and its actions
        s.over = False
        s.pending = None
        s.branches = []
        if active is not None:
            s.active = active
        s.stack = [Frame(key, 0, dict(zip(params, args, strict=True)))]
        s.chance_at, s.tape = None, []
        start = s.copy() if s.chance == "explicit" else None
        try:
            _run_action(self.game.compiled, s, None)
        except NeedChance as need:  # explicit chance: the procedure waits for an outcome first
            start.chance_at = [None, need.key, need.cards]
            self._s = start

    # ---- what a player may see
    @_locked
    def prompt_for(self, player: int) -> str | None:
        """The question this player is asked now, or None when they are not deciding. (In a
        step of choosing at once, ``decision.prompt`` is one player's; show each their own.)"""
        return next((p.prompt for _, p in self._waiting() if p.player == player), None)

    def _decision_view(self, player: int) -> dict | None:
        s = self._s
        if s.chance_at is not None:
            return {"players": [CHANCE], "simultaneous": False, "prompt": "Chance", "actions": None}
        waiting = self._waiting()
        if not waiting:
            return None
        mine = next((p for _, p in waiting if p.player == player), None)
        # A prompt is shown only to the player it asks: another player's prompt may name what they
        # chose so far ("Write 5 in which row?") or what only they hold.
        return {"players": [p.player for _, p in waiting], "simultaneous": bool(s.branches),
                "prompt": mine.prompt if mine else None, "actions": list(mine.labels) if mine else None}

    @_locked
    def view(self, player: int) -> dict:
        """What this player may see, as JSON-able data (nothing they may not know)."""
        return information.view(self.game.compiled, self._s, player, self._decision_view(player))

    @_locked
    def observation(self, player: int) -> dict:
        """The player's view now, as JSON-able data (the `observation` of OpenSpiel)."""
        return self.view(player)

    @_locked
    def information_state(self, player: int) -> str:
        """A canonical text, equal for two states exactly when this player cannot tell them apart
        (what they see and know now, the log lines and choices they read, their own actions)."""
        return information.information_state(self.game.compiled, self._s, player, self._decision_view(player))

    @_locked
    def resample(self, player: int, seed: int) -> State:
        """A full state consistent with everything this player knows (the cards they do not know
        dealt again among the places they cannot see), for search to play out."""
        g = self.game.compiled
        t = information.resample(g, self._s, player, seed)
        _redraw_unknown_vars(g, t, player)
        _repark(g, t)
        if any(b.pending is None and b.stack for b in t.branches):
            # The others' parts of a `simultaneously` were put back to where the step began:
            # they run again, in the new deal, to their first decision; and whoever the player
            # knows to be done choosing is done again, with choices drawn at random (all the
            # player knows of them is that they were made).
            done = [b.player for b in self._s.branches if b.player != player and b.pending is None and b.start]
            Machine(g, t).run()
            r = State(self.game, t)
            if done:
                _choose_at_random(r, done)
            return r
        return State(self.game, t)

    @_locked
    def table_view(self, player: int) -> dict | None:
        """What ``player`` sees of the table, as the game's `table:` section lays it out: plain
        JSON-able data (see ``interpreter.engine.table``), or None for a game without one."""
        if self.game.compiled.layout is None:
            return None
        return evaluate_table(self.game.compiled, self._s, player)

