"""Running many games without people: simulation, benchmarks, game logs and replay.

- :func:`run_game` plays one game with one agent per seat and returns a
  :class:`GameRecord`; an exception inside the game is caught and recorded, never raised.
- :func:`simulate` plays a batch and sums it up (:class:`Summary`).
- :func:`make_log` / :func:`save_log` / :func:`load_log` / :func:`replay` handle game logs:
  JSON files that hold the game, options, player count, seed and every action, so a game
  (or a crash) can be replayed exactly and its result checked.
- :func:`bench` measures random playouts per second, decisions per second, the cost of
  ``clone()`` and ``to_json()``, and the peak memory of one playout.

A game log::

    {"format": "rulelang-log", "version": 1, "game_path": "games/my_game",
     "options": {"mode": "standard"}, "players": 4, "seed": 7,
     "actions": [[0, <value>], [1, <value>], ...],
     "result": {"scores": [..], "winners": [..]}}

``result`` is ``null`` for a game that stopped with an error; the log then also has
``"error": "<message>"`` and replaying it checks that the same error happens again. A game
played with house rules also has ``"house": [file, ...]``. The last key, ``"checksum"``, is a
SHA-256 of the rest: a log damaged or edited by hand is refused.

A log is someone else's file: it never chooses which files are read. ``replay`` takes the game
(and house rules) from its caller; only a relative ``game_path`` inside the log's own folder is
used when none is given (sealed like an include). Logs are read like rule files (a regular file,
at most ``MAX_LOG_BYTES``, strict JSON: no duplicate keys), seeds must be below 2^64, and an
action is matched only by a legal value of the same type (``true`` or ``1.0`` is not ``1``).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from rulelang.files import FileRefused, read_regular, strict_json

from ..agents import agent_seed, make_agent
from .parallel import GameSpec, Pool, game_for, spec_of
from .play import seat_name, seat_names, seat_scores
from .progress import Progress

if TYPE_CHECKING:
    from ..engine.api import State

__all__ = [
    "LOG_FORMAT",
    "LOG_VERSION",
    "BenchResult",
    "GameRecord",
    "LogError",
    "Progress",
    "ReplayResult",
    "Summary",
    "bench",
    "why_unplayable",
    "dumps_log",
    "format_bench",
    "format_summary",
    "load_log",
    "log_from_state",
    "make_log",
    "next_player",
    "replay",
    "run_game",
    "save_log",
    "sign_log",
    "simulate",
]

LOG_FORMAT = "rulelang-log"
LOG_VERSION = 2  # 2: logs carry a checksum
MAX_LOG_BYTES = 50_000_000
MAX_SEED = 2**64  # seeds are 0 <= seed < 2**64, as new_game takes them
LOG_KEYS = ("game_path", "options", "players", "seed", "actions", "result")
DEFAULT_MAX_DECISIONS = 100_000
UNFINISHED = "unfinished: the game was stopped before its end"


class LogError(ValueError):
    """A game log that cannot be used: unreadable, not a rulelang log, or one whose
    actions are not legal in the game it names."""


def _norm(value: Any) -> Any:
    """A value as it reads back from JSON (tuples become lists, keys strings)."""
    return json.loads(json.dumps(value))


def _describe_error(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _no_action_message(player: int) -> str:
    return f"{seat_name(player)} has no legal action at this decision"


def next_player(state: State) -> int:
    """The seat that acts next at the current decision (``State.current_player``). For a
    simultaneous decision, the first listed player who still has a legal action."""
    player = state.current_player()
    if player is None:
        raise RuntimeError("no player acts now: the game is over")
    return player


# --------------------------------------------------------------------------- one game


@dataclass
class GameRecord:
    """What happened in one game."""

    seed: int
    players: int
    agents: list[str]
    scores: list[int] | None = None
    winners: list[int] | None = None
    decisions: int = 0
    actions: list[list] = field(default_factory=list)  # [[player, value], ...]
    error: str | None = None
    seconds: float = 0.0
    index: int = 0

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_dict(self) -> dict:
        return asdict(self)


def _agent_name(agent: Any) -> str:
    return getattr(agent, "name", type(agent).__name__)


def run_game(game: Any, players: int, seed: int, agents: list | None = None,
             max_decisions: int = DEFAULT_MAX_DECISIONS,
             on_action: Callable[[Any, Any], None] | None = None) -> GameRecord:
    """Play one game. ``agents``: one agent (or agent name) per seat; default random
    everywhere. Names are built with seeds derived from ``seed`` and the seat.
    ``on_action(state, action)`` is called after each applied action.

    Never raises for a failure inside the game: the record's ``error`` says what
    happened (``Type: message``), and ``actions`` holds every action applied before it.
    """
    agents = list(agents) if agents is not None else ["random"] * players
    if len(agents) != players:
        raise ValueError(f"{len(agents)} agents given for {players} players")
    agents = [make_agent(a, agent_seed(seed, seat)) if isinstance(a, str) else a
              for seat, a in enumerate(agents)]
    record = GameRecord(seed=seed, players=players, agents=[_agent_name(a) for a in agents])
    start = time.perf_counter()
    try:
        state = game.new_game(players=players, seed=seed)
        while not state.is_over:
            if record.decisions >= max_decisions:
                raise RuntimeError(f"the game did not end within {max_decisions} decisions")
            player = next_player(state)
            action = agents[player].choose(state, player)
            state.apply(action)
            record.decisions += 1
            record.actions.append([player, _norm(action.value)])
            if on_action is not None:
                on_action(state, action)
        record.scores = list(state.scores())
        record.winners = list(state.winners())
    except Exception as exc:  # recorded, so a batch goes on
        record.error = _describe_error(exc)
    record.seconds = time.perf_counter() - start
    return record


# --------------------------------------------------------------------------- a batch


def _stats(values: list[float]) -> dict:
    if not values:
        return {"mean": None, "min": None, "max": None}
    return {"mean": round(sum(values) / len(values), 3), "min": min(values), "max": max(values)}


@dataclass
class Summary:
    """A batch of games summed up. Win rates, scores and decision counts cover the
    games that finished; games that stopped with an error are listed in ``errors``.
    A game with several winners gives each an equal share of the win."""

    game: str
    game_path: str
    options: dict
    players: int
    games: int
    seed: int
    agents: list[str]
    completed: int = 0
    decisions: dict = field(default_factory=dict)  # mean, min, max per game
    seats: list[dict] = field(default_factory=list)  # seat, agent, wins, win_rate, score{mean,min,max}
    errors: list[dict] = field(default_factory=list)  # game, seed, error
    seconds: float = 0.0
    records: list[GameRecord] = field(default_factory=list, repr=False)

    def to_dict(self) -> dict:
        data = asdict(self)
        del data["records"]
        return data


def _play_task(task: tuple[GameSpec, int, int, list[str], int, int]) -> GameRecord:
    """One game of a batch, in whichever process runs it."""
    spec, players, seed, agents, max_decisions, index = task
    record = run_game(game_for(spec), players, seed, agents, max_decisions=max_decisions)
    record.index = index
    return record


def simulate(game: Any, players: int, games: int, seed: int = 0,
             agent_names: list[str] | None = None, progress: Progress | None = None,
             save_logs: str | None = None, game_path: str | None = None,
             max_decisions: int = DEFAULT_MAX_DECISIONS, workers: int = 1,
             ray: str | None = None) -> Summary:
    """Play ``games`` games; game ``i`` uses seed ``seed + i``. ``agent_names``: one
    name per seat (default all random). ``save_logs``: a folder that gets one game log
    per game (``game-0001.json``, ...), written even for games that failed.
    ``workers`` processes (or a Ray cluster at ``ray``) play them; the summary is the same
    whatever the number, as every game is fixed by its seed and results merge in seed order."""
    agent_names = list(agent_names) if agent_names else ["random"] * players
    if len(agent_names) != players:
        raise ValueError(f"{len(agent_names)} agents given for {players} players")
    if "human" in agent_names:
        raise ValueError("simulate runs without people: use random or greedy agents")
    game_path = game_path or getattr(game, "source_path", "")
    summary = Summary(game=getattr(game, "name", "?"), game_path=game_path,
                      options=dict(getattr(game, "option_values", {}) or {}),
                      players=players, games=games, seed=seed, agents=agent_names)
    if save_logs:
        os.makedirs(save_logs, exist_ok=True)
    start = time.perf_counter()
    spec = spec_of(game)
    tasks = [(spec, players, seed + i, agent_names, max_decisions, i) for i in range(games)]
    failed = 0
    with Pool(workers, ray) as pool:
        for i, record in enumerate(pool.imap(_play_task, tasks)):
            summary.records.append(record)
            failed += not record.ok
            if save_logs:
                save_log(os.path.join(save_logs, f"game-{i + 1:04d}.json"), make_log(game, record, game_path))
            if progress is not None:
                progress.update(i + 1, f"{failed} errors" if failed else "")
    if progress is not None:
        progress.close()
    summary.seconds = round(time.perf_counter() - start, 3)

    done = [r for r in summary.records if r.ok]
    summary.completed = len(done)
    summary.decisions = _stats([r.decisions for r in done])
    for seat in range(players):
        wins = sum(1 / len(r.winners) for r in done if r.winners and seat in r.winners)
        scores = [r.scores[seat] for r in done if r.scores is not None and seat < len(r.scores)]
        summary.seats.append({
            "seat": seat,  # 0-based, as in the Python API; "player" is how people read it
            "player": seat_name(seat),
            "agent": agent_names[seat],
            "wins": round(float(wins), 3),
            "win_rate": round(wins / len(done), 4) if done else None,
            "score": _stats(scores),
        })
    summary.errors = [{"game": r.index + 1, "seed": r.seed, "error": r.error}
                      for r in summary.records if not r.ok]
    return summary


def _num(value: Any, digits: int = 1) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def format_summary(summary: Summary) -> str:
    """The summary as a short text report."""
    s = summary
    opts = ", ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}"
                     for k, v in s.options.items()) or "defaults"
    lines = [
        f"{s.game}: {s.games} game{'s' if s.games != 1 else ''}, {s.players} player{'s' if s.players != 1 else ''}, "
        f"seed {s.seed}, options: {opts}",
        f"agents: {', '.join(s.agents)}",
        f"finished: {s.completed}/{s.games} in {s.seconds:.2f}s",
    ]
    d = s.decisions
    if s.completed:
        lines.append(f"decisions per game: mean {_num(d['mean'])}, min {d['min']}, max {d['max']}")
        if s.games == 1:
            rec = s.records[0]
            lines.append(f"scores: {seat_scores(rec.scores)}")
            lines.append(f"winners: {seat_names(rec.winners)}")
        else:
            header = f"{'player':<10} {'agent':<8} {'wins':>7} {'win rate':>9} {'score mean':>11} {'min':>6} {'max':>6}"
            lines.append(header)
            for row in s.seats:
                sc = row["score"]
                rate = "-" if row["win_rate"] is None else f"{100 * row['win_rate']:.1f}%"
                lines.append(f"{seat_name(row['seat']):<10} {row['agent']:<8} {_num(row['wins']):>7} {rate:>9} "
                             f"{_num(sc['mean']):>11} {_num(sc['min']):>6} {_num(sc['max']):>6}")
    if s.errors:
        lines.append(f"errors: {len(s.errors)}")
        for e in s.errors[:10]:
            lines.append(f"  game {e['game']} (seed {e['seed']}): {e['error']}")
        if len(s.errors) > 10:
            lines.append(f"  ... and {len(s.errors) - 10} more")
    else:
        lines.append("errors: none")
    return "\n".join(lines)


# --------------------------------------------------------------------------- game logs


def make_log(game: Any, record: GameRecord, game_path: str | None = None) -> dict:
    """The game log (a JSON-able dict) for one played game."""
    log = {
        "format": LOG_FORMAT,
        "version": LOG_VERSION,
        "game_path": game_path or getattr(game, "source_path", ""),
        "options": _norm(dict(getattr(game, "option_values", {}) or {})),
        "players": record.players,
        "seed": record.seed,
        "agents": list(record.agents),
        "actions": _norm(record.actions),
        "result": None if record.error else {"scores": record.scores, "winners": record.winners},
        # A replay log holds the seed and every action, so every secret of the game: it is for
        # replays and referees, not for a seat (a seat's own log is `State.log_for(player)`).
        "secrets": "all",
    }
    house = list(getattr(game, "house", None) or [])
    if house:
        log["house"] = house  # house-rule files, applied in order (replay loads them again)
    if record.error:
        log["error"] = record.error
    return log


def log_from_state(game: Any, state: Any, game_path: str | None = None, agents: list | None = None) -> dict:
    """The game log of a finished ``state`` (from ``state.actions_taken``)."""
    record = GameRecord(seed=state.seed, players=state.num_players, agents=list(agents or []),
                        actions=[[p, _norm(v)] for p, v in state.actions_taken])
    record.decisions = len(record.actions)
    if state.is_over:
        record.scores = list(state.scores())
        record.winners = list(state.winners())
    else:
        record.error = UNFINISHED
    return make_log(game, record, game_path)


def _log_checksum(log: dict) -> str:
    body = {k: v for k, v in log.items() if k != "checksum"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def sign_log(log: dict) -> dict:
    """The log with its checksum (re)computed (``dumps_log`` does it when a log is written)."""
    body = {k: v for k, v in log.items() if k != "checksum"}
    return {**body, "checksum": _log_checksum(body)}


def dumps_log(log: dict) -> str:
    """A log as JSON text, with its checksum: one key per line, one action per line."""
    lines = []
    for key, value in sign_log(log).items():
        if key == "actions" and value:
            inner = ",\n".join("  " + json.dumps(a, separators=(",", ":")) for a in value)
            lines.append(f'{json.dumps(key)}: [\n{inner}\n ]')
        else:
            lines.append(f"{json.dumps(key)}: {json.dumps(value)}")
    return "{\n " + ",\n ".join(lines) + "\n}\n"


def save_log(path: str, log: dict) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(dumps_log(log))


def _check_log(data: Any, where: str) -> dict:
    if not isinstance(data, dict):
        raise LogError(f"{where}: not a rulelang game log (the top level is not a JSON object)")
    if data.get("format") != LOG_FORMAT:
        raise LogError(f"{where}: not a rulelang game log (\"format\" is {data.get('format')!r}, "
                       f"expected {LOG_FORMAT!r})")
    if data.get("version") != LOG_VERSION:
        raise LogError(f"{where}: unsupported log version {data.get('version')!r} "
                       f"(this rulelang reads version {LOG_VERSION})")
    missing = [k for k in LOG_KEYS if k not in data]
    if missing:
        raise LogError(f"{where}: missing key{'s' if len(missing) > 1 else ''}: {', '.join(missing)}")

    def bad(key: str, expected: str) -> LogError:
        return LogError(f"{where}: \"{key}\" should be {expected}, not {data[key]!r:.60}")

    if not isinstance(data["game_path"], str) or not data["game_path"]:
        raise bad("game_path", "the path of a game folder or .rules file")
    if not isinstance(data["options"], dict):
        raise bad("options", "an object")
    if type(data["players"]) is not int or data["players"] < 1:
        raise bad("players", "a positive integer")
    if type(data["seed"]) is not int or not 0 <= data["seed"] < MAX_SEED:
        raise bad("seed", "a whole number from 0 to 2^64 - 1")
    actions = data["actions"]
    if not isinstance(actions, list):
        raise bad("actions", "a list of [player, value] pairs")
    for i, a in enumerate(actions):
        if (not isinstance(a, list) or len(a) != 2 or type(a[0]) is not int
                or not 0 <= a[0] < data["players"]):
            raise LogError(f"{where}: action {i + 1} should be [player, value] with a player "
                           f"from 0 to {data['players'] - 1}, not {a!r:.60}")
    result = data["result"]
    if result is None:
        if not isinstance(data.get("error"), str):
            raise LogError(f"{where}: \"result\" is null but the log has no \"error\"")
    elif (not isinstance(result, dict) or not _whole_numbers(result.get("scores"))
          or not _whole_numbers(result.get("winners"))):
        raise bad("result", "an object with \"scores\" and \"winners\" lists of whole numbers (or null)")
    house = data.get("house")
    if house is not None and not (isinstance(house, list) and all(isinstance(h, str) for h in house)):
        raise bad("house", "a list of house-rule files")
    if data.get("checksum") != _log_checksum(data):
        raise LogError(f"{where}: the log was changed after it was written (its checksum does not match)")
    return data


def _whole_numbers(values: Any) -> bool:
    return isinstance(values, list) and all(type(v) is int for v in values)


def load_log(path: str) -> dict:
    """Read and check a game log; :class:`LogError` says what is wrong with it."""
    try:
        text = read_regular(path, MAX_LOG_BYTES)
    except FileRefused as exc:
        raise LogError(f"{path}: not a rulelang game log: {exc}") from None
    try:
        data = strict_json(text)
    except FileRefused as exc:
        raise LogError(f"{path}: {exc}" if str(exc).startswith("not JSON") else f"{path}: not JSON: {exc}") from None
    return _check_log(data, path)


@dataclass
class ReplayResult:
    """``ok`` when the replay gave the recorded result (or the recorded error)."""

    ok: bool
    message: str
    actions: int = 0
    scores: list[int] | None = None
    winners: list[int] | None = None


def _beside_log(log_path: str, path: str) -> str | None:
    """`path` read relative to the log's folder, if it stays inside that folder (links followed)."""
    if os.path.isabs(path):
        return None
    folder = os.path.realpath(os.path.dirname(os.path.abspath(log_path)))
    target = os.path.realpath(os.path.join(folder, path))
    if not target.startswith(folder + os.sep) or not os.path.exists(target):
        return None
    return target


def _resolve_game_path(log: dict, log_path: str, game_path: str | None) -> str:
    if game_path:
        return game_path
    path = log["game_path"]
    beside = _beside_log(log_path, path)
    if beside is not None:
        return beside
    raise LogError(f"{log_path}: give the game to replay with --game PATH (the log names "
                   f"{json.dumps(path)[:80]}, but a log never chooses which files are read; only a "
                   "relative path inside the log's own folder is used)")


def _resolve_house(log: dict, log_path: str, house: list[str] | None) -> list[str]:
    if house is not None:
        return list(house)
    recorded = log.get("house") or []
    found = [_beside_log(log_path, h) for h in recorded]
    if any(h is None for h in found):
        raise LogError(f"{log_path}: the log was played with house rules "
                       f"({', '.join(json.dumps(h)[:60] for h in recorded)}): give them with --house FILE")
    return [h for h in found if h is not None]


def _same(a: Any, b: Any) -> bool:
    """Equal, and of the same types all the way down (true is not 1, 1.0 is not 1)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b


def replay(log_path: str, game_path: str | None = None, house: list[str] | None = None) -> ReplayResult:
    """Load the game (``game_path``, or a relative path in the log that stays inside the log's
    folder) with ``house`` rules, replay the log's actions (each matched by value and type
    against the legal actions at that point) and compare the outcome with the recorded one.

    Raises :class:`LogError` for a log that cannot be replayed (unreadable, wrong
    format, an action that is not legal); returns a result with ``ok=False`` when the
    replay runs but ends differently from the recording."""
    import interpreter

    log = load_log(log_path)
    path = _resolve_game_path(log, log_path, game_path)
    house = _resolve_house(log, log_path, house)
    kwargs = {"house": list(house)} if house else {}
    game = interpreter.load(path, options=dict(log["options"]), **kwargs)
    actions = log["actions"]
    expected_error = log.get("error") if log["result"] is None else None
    done = 0
    try:
        state = game.new_game(players=log["players"], seed=log["seed"])
        for i, (player, value) in enumerate(actions):
            if state.is_over:
                raise LogError(f"{log_path}: the game ended after action {i} but the log has "
                               f"{len(actions)} actions")
            legal = list(state.legal_actions(player))
            match = next((a for a in legal if _same(_norm(a.value), value)), None)
            if match is None:
                seats = list(state.decision.players) if state.decision is not None else []
                shown = ", ".join(repr(a.label) for a in legal[:8]) + (" ..." if len(legal) > 8 else "")
                why = (f"it is not {seat_name(player)}'s decision but "
                       f"{', '.join(seat_name(s) for s in seats) or 'nobody'}'s"
                       if player not in seats
                       else f"legal: {shown or 'none'}")
                raise LogError(f"{log_path}: action {i + 1} of {len(actions)}, [{player}, "
                               f"{json.dumps(value)}], is not legal at that point ({why})")
            state.apply(match)
            done += 1
        if expected_error == UNFINISHED:
            if state.is_over:
                return ReplayResult(False, f"the log was saved before the end, but the game ended "
                                           f"after its {done} actions", done)
            return ReplayResult(True, f"replayed {done} actions of an unfinished game", done)
        if expected_error is not None and not state.is_over:
            # the recorded error may have come from the next decision itself
            player = next_player(state)
            if not state.legal_actions(player):
                raise RuntimeError(_no_action_message(player))
    except LogError:
        raise
    except Exception as exc:
        got = _describe_error(exc)
        if expected_error is not None:
            same = got == expected_error
            return ReplayResult(same, ("reproduced the recorded error: " if same else
                                       f"stopped with a different error: {got} (recorded: ") + (
                                    expected_error if same else f"{expected_error})"), done)
        return ReplayResult(False, f"stopped with an error after {done} actions: {got}", done)

    if expected_error is not None:
        if "did not end within" in expected_error and not state.is_over:
            return ReplayResult(True, f"reproduced the recorded error: {expected_error}", done)
        return ReplayResult(False, f"the recorded error did not happen again (recorded: {expected_error})", done)
    if not state.is_over:
        return ReplayResult(False, f"the log ends after {done} actions but the game is not over", done)
    scores, winners = list(state.scores()), list(state.winners())
    want = log["result"]
    if _same(scores, want["scores"]) and _same(winners, want["winners"]):
        return ReplayResult(True, f"replayed {done} actions: scores {seat_scores(scores)}; winners "
                                  f"{seat_names(winners)} (same as recorded)", done, scores, winners)
    return ReplayResult(False, f"replayed {done} actions but the result differs: scores {seat_scores(scores)}; "
                               f"winners {seat_names(winners)}; recorded scores {seat_scores(want['scores'])}; "
                               f"winners {seat_names(want['winners'])}", done, scores, winners)


# --------------------------------------------------------------------------- benchmarks


def why_unplayable(game: Any, players: int) -> str | None:
    """Why a game cannot be played with this many players and its options, or None."""
    lo, hi = game.min_players, game.max_players
    if not lo <= players <= hi:
        span = f"{lo}" if lo == hi else f"{lo} to {hi}"
        return f"{game.name} is for {span} players, not {players}"
    refused = game.refusals(players)
    return "; ".join(refused) if refused else None



@dataclass
class BenchResult:
    game: str
    players: int
    playouts: int
    seconds: float
    playouts_per_second: float
    decisions_per_second: float
    decisions_per_playout: float
    clone_us: float | None  # mean microseconds per state.clone()
    to_json_us: float | None  # mean microseconds per state.to_json()
    json_bytes: float | None  # mean size of a saved state
    peak_memory_mib: float | None  # tracemalloc peak during one playout
    errors: int
    first_error: str | None = None

    def to_dict(self) -> dict:
        return asdict(self)


def _time_per_call(fn: Callable[[], Any], budget: float = 0.2, max_calls: int = 100_000) -> float:
    """Mean seconds per call of ``fn``, called until ``budget`` seconds have passed."""
    calls = 0
    start = time.perf_counter()
    while True:
        fn()
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= budget or calls >= max_calls:
            return elapsed / calls


def bench(game: Any, players: int, games: int | None = None, seconds: float | None = None,
          seed: int = 0, progress: Progress | None = None, workers: int = 1,
          ray: str | None = None) -> BenchResult:
    """Random playouts until ``games`` are done or ``seconds`` have passed (default:
    20 playouts), on ``workers`` processes (or a Ray cluster): the rates are of all of them
    together, over the wall-clock time. Then: mean cost of ``clone()`` and ``to_json()`` over
    states sampled along one playout, and the tracemalloc peak of one more playout (run apart,
    since tracing slows everything down), in this process."""
    if games is None and seconds is None:
        games = 20
    refused = why_unplayable(game, players)
    if refused:  # refuse before playing: games that all fail would measure nothing
        raise ValueError(refused)
    decisions = 0
    errors = 0
    first_error = None
    playouts = 0
    spec = spec_of(game)
    start = time.perf_counter()
    with Pool(workers, ray) as pool:
        # With --seconds, batches until the time is up: a few games per worker first, then as
        # many as fill about a second (or the time left), since each batch waits for its slowest
        # game and, with small batches, the other workers idle meanwhile.
        batch = games if games is not None else 2 * pool.workers
        while True:
            if games is not None and playouts >= games:
                break
            if seconds is not None:
                now = time.perf_counter() - start
                if now >= seconds:
                    break
                if playouts and games is None:
                    per_second = playouts / now
                    batch = max(2 * pool.workers, int(per_second * min(1.0, seconds - now)))
            count = batch if games is None else min(batch, games - playouts)
            tasks = [(spec, players, seed + playouts + i, ["random"] * players, DEFAULT_MAX_DECISIONS,
                      playouts + i) for i in range(count)]
            for record in pool.imap(_play_task, tasks):
                playouts += 1
                decisions += record.decisions
                if record.error:
                    errors += 1
                    first_error = first_error or record.error
                if progress is not None:
                    progress.update(playouts)
    elapsed = time.perf_counter() - start
    if progress is not None:
        progress.close()

    # states sampled along one playout, for clone and JSON costs
    samples: list = []
    try:
        def keep(state: Any, _action: Any) -> None:
            samples.append(state.clone())

        run_game(game, players, seed, ["random"] * players, on_action=keep)
        if len(samples) > 40:
            step = math.ceil(len(samples) / 40)
            samples = samples[::step]
    except Exception:
        samples = []
    clone_us = to_json_us = json_bytes = None
    if samples:
        per_state = [_time_per_call(s.clone, budget=0.5 / len(samples)) for s in samples]
        clone_us = round(1e6 * sum(per_state) / len(per_state), 2)
        try:
            per_state = [_time_per_call(s.to_json, budget=0.5 / len(samples)) for s in samples]
            to_json_us = round(1e6 * sum(per_state) / len(per_state), 2)
            json_bytes = round(sum(len(s.to_json()) for s in samples) / len(samples), 1)
        except Exception:
            pass

    peak = None
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        run_game(game, players, seed, ["random"] * players)
        peak = round((tracemalloc.get_traced_memory()[1] - base) / 2**20, 3)
    finally:
        if not was_tracing:
            tracemalloc.stop()

    return BenchResult(
        game=getattr(game, "name", "?"), players=players, playouts=playouts,
        seconds=round(elapsed, 3),
        playouts_per_second=round(playouts / elapsed, 2) if elapsed else 0.0,
        decisions_per_second=round(decisions / elapsed, 1) if elapsed else 0.0,
        decisions_per_playout=round(decisions / playouts, 1) if playouts else 0.0,
        clone_us=clone_us, to_json_us=to_json_us, json_bytes=json_bytes,
        peak_memory_mib=peak, errors=errors, first_error=first_error,
    )


def format_bench(r: BenchResult) -> str:
    lines = [
        f"{r.game}, {r.players} players: {r.playouts} random playouts in {r.seconds:.2f}s",
        f"  playouts/s      {r.playouts_per_second:.2f}",
        f"  decisions/s     {r.decisions_per_second:.0f}",
        f"  decisions/game  {r.decisions_per_playout:.1f}",
        f"  clone()         {_num(r.clone_us)} us",
        f"  to_json()       {_num(r.to_json_us)} us, {_num(r.json_bytes, 0)} bytes",
        f"  peak memory     {_num(r.peak_memory_mib, 2)} MiB (one playout, tracemalloc)",
    ]
    if r.errors:
        lines.append(f"  errors          {r.errors} (first: {r.first_error})")
    return "\n".join(lines)
