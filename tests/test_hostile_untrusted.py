"""Issue 11: rule files, logs and saves written to attack the framework. Each route ends in a
positioned rule error or a refusal, in a separate process whose memory is capped (a hang or a
blow-up fails the test; nothing here measures time)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import threading
from pathlib import Path

import pytest
from hostile_helpers import FIXTURES, HOSTILE, no_hang, outcome, run_capped
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import interpreter
from interpreter import IllegalAction, SaveError
from interpreter.engine.api import Action
from interpreter.tools.cli import main
from interpreter.tools.simulate import LogError, dumps_log, log_from_state, replay, sign_log
from rulelang.diagnostics import Diagnostic, RuleError, format_diagnostic, suggest
from rulelang.nodes import Pos
from rulelang.printable import printable

TINY = str(FIXTURES / "tiny")
BIDS = str(FIXTURES / "bids")
SECRET = "root:x:0:0:this line must never be printed"

BUDGET_CASES = ["draw_endless", "refill_cycle", "move_back_and_forth", "const_copies", "nested_compare",
                "shared_structure", "define_calls", "load_budget", "card_var_init", "long_log", "sum_digits",
                # what outlives one action: the game's log and its lasting modifiers
                "log_every_turn", "log_lines", "lasting_pileup",
                # crashes of the checker and the runtime, now positioned errors
                "list_named_arg", "side_number_suggestion", "negative_cost"]

RUN_CASE = """
import sys
sys.path.insert(0, "tests")
from pathlib import Path
from test_hostile_files import run_case
print(run_case(Path({folder!r})))
"""


@pytest.mark.parametrize("case", BUDGET_CASES)
def test_work_is_paid_for_under_a_memory_cap(tmp_path, case):
    folder = tmp_path / case
    shutil.copytree(HOSTILE / case, folder)
    expected = (folder / "expected.txt").read_text(encoding="utf-8").strip()
    assert run_capped(RUN_CASE.format(folder=str(folder)), memory_mib=700).strip() == expected


GREEDY_BAIT = '''
game "Greedy bait"
players 2 to 2
var points per player: int = 0

flow:
    turn first(players):
        choose x in range(1, 99999)
        let n = 0
        while n < 250000 max 250000:
            set n += 1
        set active_player.points += x

score p:
    points: p.points
'''


def test_the_greedy_agent_has_one_budget_for_its_whole_look_ahead(tmp_path):
    """100,000 actions of 750,000 steps each: the greedy agent tries what its one budget allows
    and chooses among those, instead of trying every one (7.5 * 10^10 steps)."""
    (tmp_path / "game.rules").write_text(GREEDY_BAIT, encoding="utf-8")
    out = run_capped(f"""
import interpreter
from interpreter.agents import GreedyAgent
game = interpreter.load({str(tmp_path)!r})
state = game.new_game(players=2, seed=0)
assert len(state.legal_actions(0)) == 99999
action = GreedyAgent(seed=1).choose(state, 0)
print(action.value)
""", memory_mib=700)
    # It tried the first few actions (each raising the score by more) and kept the best of them.
    assert 1 < int(out) < 20


def test_the_suggester_does_not_compare_huge_names():
    long_a, long_b = "a" * 30_000, "a" * 29_999 + "b"
    with no_hang(5):
        assert suggest(long_a, [long_b]) is None
    assert suggest("gian", ["gain", 3, None]) == "gain"  # candidates that are not names are skipped


# ---- 2. no file outside the game is read or echoed ------------------------------------------


@pytest.fixture
def secret_file(tmp_path) -> Path:
    path = tmp_path / "outside" / "secret.txt"
    path.parent.mkdir()
    path.write_text(SECRET + "\n", encoding="utf-8")
    return path


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links here")
@pytest.mark.parametrize("target", ["secret.txt", "secret.rules"])
def test_extends_through_a_link_to_a_file_outside_is_refused(tmp_path, secret_file, target):
    outside = secret_file.with_name(target)
    if target != secret_file.name:
        outside.write_text(SECRET + "\n", encoding="utf-8")
    game = tmp_path / "game"
    game.mkdir()
    (game / "base.rules").symlink_to(outside)
    (game / "game.rules").write_text('game "Sealed"\nplayers 1 to 2\nextends "base.rules"\nflow:\n    pass\n')
    with pytest.raises(RuleError) as err:
        interpreter.load(str(game))
    assert [d.code for d in err.value.diagnostics] == ["E104"]
    assert err.value.diagnostics[0].pos.line == 3
    assert "root:x" not in str(err.value)


def test_a_diagnostic_never_quotes_a_file_that_is_not_a_rule_file(secret_file):
    shown = format_diagnostic(Diagnostic("E102", "unexpected", Pos(str(secret_file), 1, 1)),
                              {str(secret_file): SECRET})
    assert "root:x" not in shown and str(secret_file) in shown


def _signed_log(path: str, seed: int = 3, **changes) -> dict:
    game_path = path
    game = interpreter.load(game_path)
    state = game.new_game(players=2, seed=seed)
    while not state.is_over:
        p = state.decision.players[0]
        state.apply(state.legal_actions(p)[0])
    log = log_from_state(game, state, game_path)
    log.update(changes)
    return sign_log(log)


def _write(tmp: Path, log: dict, name: str = "game.json") -> Path:
    path = tmp / name
    path.write_text(dumps_log(log), encoding="utf-8")
    return path


def test_replay_never_reads_the_game_a_log_names(tmp_path, secret_file, capsys):
    log = _write(tmp_path, _signed_log(TINY, game_path=str(secret_file)))
    with pytest.raises(LogError, match="--game"):
        replay(str(log))
    code = main(["replay", str(log)])
    out, err = capsys.readouterr()
    assert code == 1 and "root:x" not in out + err and "--game" in err
    # Nor a relative path that climbs out of the log's folder.
    log = _write(tmp_path, _signed_log(TINY, game_path="../outside/secret.txt"))
    with pytest.raises(LogError, match="--game"):
        replay(str(log))
    # The command line chooses: the same log replays on the game given.
    assert replay(str(log), TINY).ok


def test_replay_reads_a_game_inside_the_logs_folder(tmp_path):
    shutil.copytree(TINY, tmp_path / "tiny")
    log = _write(tmp_path, _signed_log(str(tmp_path / "tiny"), game_path="tiny"))
    assert replay(str(log)).ok


def test_replay_never_reads_the_house_rules_a_log_names(tmp_path, secret_file):
    log = _write(tmp_path, _signed_log(TINY, house=[str(secret_file)]))
    with pytest.raises(LogError, match="--house"):
        replay(str(log), TINY)


def _mkfifo(path: Path) -> Path:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes here")
    os.mkfifo(path)
    return path


READ_LOG = """
from interpreter.tools.simulate import LogError, load_log
try:
    load_log({path!r})
except LogError as err:
    print("refused:", err)
"""

READ_SAVE = """
import interpreter
from interpreter import SaveError
game = interpreter.load({game!r})
try:
    game.load_state({path!r})
except SaveError as err:
    print("refused:", err)
"""


@pytest.mark.parametrize("kind", ["device", "fifo", "huge", "folder"])
@pytest.mark.parametrize("reader", ["log", "save"])
def test_logs_and_saves_are_read_like_rule_files(tmp_path, kind, reader):
    if kind == "device":
        path = Path("/dev/zero")
        if not path.exists():
            pytest.skip("no /dev/zero here")
    elif kind == "fifo":
        path = _mkfifo(tmp_path / "pipe.json")
    elif kind == "huge":
        path = tmp_path / "huge.json"
        with open(path, "wb") as fh:
            fh.truncate(600_000_000)  # sparse: 600 MB claimed, no disk used
    else:
        path = tmp_path
    code = (READ_LOG if reader == "log" else READ_SAVE).format(path=str(path), game=TINY)
    out = run_capped(code, timeout=60, memory_mib=500)
    assert out.startswith("refused:"), out
    assert ("regular file" in out) if kind in ("device", "fifo", "folder") else ("limit" in out)


# ---- 3. tampered logs and forged saves ------------------------------------------------------


def test_seeds_out_of_range_are_refused():
    game = interpreter.load(TINY)
    for seed in (2**64, -1, 2**64 + 3):
        with pytest.raises(ValueError, match="seed"):
            game.new_game(players=2, seed=seed)
    assert game.new_game(players=2, seed=2**64 - 1).seed == 2**64 - 1


def test_a_log_changed_by_hand_is_refused_by_its_checksum(tmp_path):
    log = _signed_log(TINY)
    log["seed"] += 1
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    with pytest.raises(LogError, match="checksum"):
        replay(str(path), TINY)


def _first_number_action(log: dict) -> int:
    return next(i for i, (_, v) in enumerate(log["actions"]) if type(v) is int)


@pytest.mark.parametrize("forgery", ["seed + 2^64", "true for 1", "1.0 for 1", "float score", "bool winner"])
def test_a_forged_log_with_its_checksum_recomputed_is_refused(tmp_path, forgery):
    log = _signed_log(TINY)
    i = _first_number_action(log)
    if forgery == "seed + 2^64":
        log["seed"] += 2**64
    elif forgery == "true for 1":
        log["actions"][i][1] = log["actions"][i][1] == 1 or True
    elif forgery == "1.0 for 1":
        log["actions"][i][1] = float(log["actions"][i][1])
    elif forgery == "float score":
        log["result"]["scores"][0] = float(log["result"]["scores"][0])
    else:
        log["result"]["winners"] = [True]
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(sign_log(log)), encoding="utf-8")
    with no_hang(30), pytest.raises(LogError):
        replay(str(path), TINY)


def test_duplicate_keys_are_refused_in_logs(tmp_path):
    text = dumps_log(_signed_log(TINY))
    path = tmp_path / "dup.json"
    path.write_text(text.replace('"seed": 3', '"seed": 4, "seed": 3'), encoding="utf-8")
    with pytest.raises(LogError, match="appears twice"):
        replay(str(path), TINY)


def _state_checksum(state_doc: dict) -> str:
    return hashlib.sha256(json.dumps(state_doc, separators=(",", ":")).encode()).hexdigest()[:16]


def _forge(save: str, change) -> str:
    doc = json.loads(save)
    change(doc["state"])
    doc["checksum"] = _state_checksum(doc["state"])
    return json.dumps(doc)


@pytest.mark.parametrize("key", ["state", "checksum", "game"])
def test_duplicate_keys_are_refused_in_saves(key):
    game = interpreter.load(TINY)
    text = game.new_game(players=2, seed=1).to_json()
    doc = json.loads(text)
    forged = text[:-1] + f',"{key}":' + json.dumps(doc[key]) + "}"
    with pytest.raises(SaveError, match="appears twice"):
        game.state_from_json(forged)


def _nested(depth: int) -> list:
    v: list = []
    for _ in range(depth):
        v = [v]
    return v


def _a_var(state_doc: dict) -> str:
    return next(k for k, v in state_doc["vars"].items() if type(v) is int)


FORGERIES = {
    "var nested 900 deep": lambda st: st["vars"].__setitem__(_a_var(st), _nested(900)),
    "number of 6000 digits": lambda st: st["vars"].__setitem__(_a_var(st), 10**6000),
    "unknown var": lambda st: st["vars"].__setitem__("no_such_var", 1),
    "decision with no values": lambda st: (st["pending"].__setitem__("values", []),
                                            st["pending"].__setitem__("labels", [])),
    "decision of another kind": lambda st: st["pending"].__setitem__("kind", "nonsense"),
    "seed past 2^64": lambda st: st.__setitem__("seed", 2**64 + 5),
    "log line past its cut": lambda st: st["log"].append(["log", None, "x" * 5000]),
    "too many lasting modifiers": lambda st: st.__setitem__(
        "lasting", [{"name": "rush", "player": -1, "unit": "turn", "remaining": 1}] * 10_001),
}


@pytest.mark.parametrize("forgery", sorted(FORGERIES))
def test_forged_saves_with_a_recomputed_checksum_are_refused(forgery):
    game = interpreter.load(TINY)
    state = game.new_game(players=2, seed=1)
    text = _forge(state.to_json(), FORGERIES[forgery]) if forgery != "number of 6000 digits" else None
    if text is None:  # Python will not write a 6000-digit number to JSON by default: write it by hand
        doc = json.loads(state.to_json())
        key = _a_var(doc["state"])
        doc["state"]["vars"][key] = 123456789
        body = json.dumps(doc).replace(f'"{key}": 123456789', f'"{key}": 1{"0" * 6000}')
        text = body
    with no_hang(10), pytest.raises(SaveError):
        game.state_from_json(text)


def test_a_menu_made_for_each_item_survives_a_save_and_refuses_forged_options():
    """Options made `for` each item are offered as [option, item]: a save keeps them, and a
    forged save may not offer them as plain options (or plain options as items)."""
    game = interpreter.load(str(FIXTURES / "second_edition"))
    state = game.new_game(players=2, seed=1)
    values = [a.value for a in state.legal_actions()]
    assert 0 in values and any(isinstance(v, list) for v in values), values
    restored = game.state_from_json(state.to_json())
    assert restored == state
    item = next(v for v in values if isinstance(v, list))
    for forged_values in ([item[0]], [[0, item[1]]], [[item[0]]]):
        text = _forge(state.to_json(), lambda st, v=forged_values: (
            st["pending"].__setitem__("values", v), st["pending"].__setitem__("labels", ["x"] * len(v))))
        with pytest.raises(SaveError, match="options the rules do not have"):
            game.state_from_json(text)


SHOWN_FORGERIES = {
    "garbage key in shown tokens": lambda b: b["shown"]["tokens"].__setitem__("garbage", 1),
    "unknown token in shown tokens": lambda b: b["shown"]["tokens"].__setitem__("p0|nothing|", 1),
    "unknown zone in shown zones": lambda b: b["shown"]["zones"].__setitem__("nowhere#0", 1),
}


@pytest.mark.parametrize("forgery", sorted(SHOWN_FORGERIES))
def test_forged_simultaneous_saves_are_refused(forgery):
    game = interpreter.load(BIDS)
    state = game.new_game(players=2, seed=1)
    assert state.s.branches, "the bids fixture starts with everyone choosing at once"
    text = _forge(state.to_json(), lambda st: SHOWN_FORGERIES[forgery](st["branches"][0]))
    with pytest.raises(SaveError):
        game.state_from_json(text)


# ---- 4. crashes, threads and terminals ------------------------------------------------------


def test_an_action_nested_3000_deep_is_refused():
    game = interpreter.load(TINY)
    state = game.new_game(players=2, seed=1)
    before = state.to_json()
    player = state.decision.players[0]
    with pytest.raises(IllegalAction):
        state.apply(Action(player, _nested(3000), "deep"))
    assert state.to_json() == before


def test_one_state_used_from_two_threads_applies_each_decision_once():
    """Two threads answer every decision of one state at the same time: with the state's lock,
    exactly one answer is applied per decision (the other is refused as stale or illegal) and
    the state always restores from its own save."""
    game = interpreter.load(TINY)
    for seed in range(40):
        state = game.new_game(players=2, seed=seed)
        applied: list = []
        lock = threading.Lock()
        errors: list = []

        def answer(state=state, applied=applied, lock=lock, errors=errors):
            try:
                while not state.is_over:
                    legal = state.legal_actions(None)
                    if not legal:
                        continue
                    try:
                        state.apply(legal[0])
                    except IllegalAction:
                        continue
                    with lock:
                        applied.append(legal[0].decision)
                    game.state_from_json(state.clone().to_json())
            except Exception as err:  # noqa: BLE001 - reported below
                errors.append(err)

        old = sys.getswitchinterval()
        sys.setswitchinterval(1e-6)  # switch threads as often as possible
        try:
            threads = [threading.Thread(target=answer) for _ in range(2)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(60)
        finally:
            sys.setswitchinterval(old)
        assert not errors, errors
        assert len(applied) == len(set(applied)) == len(state.actions_taken)
        assert game.state_from_json(state.to_json()) == state


def test_control_characters_are_escaped_in_everything_printed(tmp_path, capsys):
    shutil.copytree(HOSTILE / "control_characters", tmp_path / "game")
    path = str(tmp_path / "game")
    outputs = []
    for argv in (["info", path], ["check", path], ["simulate", path, "--players", "1", "--games", "1"],
                 ["play", path, "--players", "1", "--agents", "random", "--seed", "1"],
                 ["explain", path]):
        code = main(argv)
        out, err = capsys.readouterr()
        assert code == 0, err
        outputs.append(out + err)
    text = "\n".join(outputs)
    assert "\x1b" not in text and "\x07" not in text
    assert "\\x1b" in text  # shown, escaped
    assert printable("a\x1bb\u202ec\n") == "a\\x1bb\\u202ec\n"


# ---- the fuzzer for these routes: typed programs that reach the runtime ----------------------
# Programs built from statements that type-check, so they pass the checker and run: whole-zone
# moves, draws through refills, lists nested inside lists, comparisons and logs of them, sums,
# defines called in loops, with counts from 0 to 10^17. Whatever they do, a game loads and plays
# or stops with a positioned error, quickly and (in the slow run) under a memory cap.

OUTCOMES = ("game", "rule error", "runtime error at setup", "runtime error in play", "runtime error in scores")
COUNTS = st.sampled_from([0, 1, 3, 50, 1000, 100_000, 10**17])

PROGRAM_HEAD = """game "Fuzzed"
players 1 to 2
kind chip:
    value: int
cards chip (name, value, copies):
    "Chip", 1, {cards}
zone deck: hidden, refill discard
zone discard: public, refill deck
var total: int = 0
define twice(xs: list of int) = count(xs) + count(xs)

setup:
    move cards(chip) to deck
    let l0 = [1, 2, 3]
"""


@st.composite
def statements(draw, lists: int = 1, depth: int = 0) -> list[str]:
    out = []
    for _ in range(draw(st.integers(1, 4))):
        i, j = draw(st.integers(0, lists - 1)), draw(st.integers(0, lists - 1))
        n = draw(COUNTS)
        kind = draw(st.sampled_from(["move", "draw", "shuffle", "nest", "range", "compare", "log", "sum",
                                     "define", "repeat"] if depth < 2 else
                                    ["move", "draw", "nest", "compare", "log", "sum", "define"]))
        if kind == "move":
            out.append(draw(st.sampled_from(["move deck to discard", "move discard to deck"])))
        elif kind == "draw":
            out.append(f"draw {n} from deck to discard")
        elif kind == "shuffle":
            out.append("shuffle discard into deck")
        elif kind == "nest":
            out.append(f"let l{lists} = [l{i}, l{j}, l{i}]")
            lists += 1
        elif kind == "range":
            out.append(f"let l{lists} = [l{i} for x in range(1, {min(n, 10**6)})]")
            lists += 1
        elif kind == "compare":
            out.append(f"if l{i} == l{j}:\n    log \"same\"")
        elif kind == "log":
            out.append(f'log "{{l{i}}}"')
        elif kind == "sum":
            out.append(f"set total = sum([total, {n}, count(l{i})])")
        elif kind == "define":
            out.append(f"set total = twice(flatten(l{i})) + {min(n, 10**6)}")
        else:
            body = draw(statements(lists, depth + 1))
            out.append(f"repeat {n}:\n" + "\n".join("    " + line for b in body for line in b.split("\n")))
    return out


PLACES = st.sampled_from(["setup", "turn"])
TURN_HEAD = """
flow:
    repeat 1000:
        for p in players:
            turn p:
                choose y in [1, 2] by p
                let l0 = [1, 2, 3]
"""


def _program(cards: int, body: list[str], place: str = "setup") -> str:
    """The statements run once in `setup`, or at every decision of an endless game (`turn`): what
    each action leaves behind (cards moved, the log, the totals) piles up from one to the next."""
    if place == "setup":
        lines = [("    " + line) for stmt in body for line in stmt.split("\n")]
        return PROGRAM_HEAD.format(cards=cards) + "\n".join(lines) + "\n\nflow:\n    pass\n"
    lines = [(" " * 16 + line) for stmt in body for line in stmt.split("\n")]
    return PROGRAM_HEAD.format(cards=cards) + TURN_HEAD + "\n".join(lines) + "\n"


def _fuzzed_outcome(tmp_path_factory, cards: int, body: list[str], place: str) -> str:
    folder = tmp_path_factory.mktemp("fuzzed")
    (folder / "game.rules").write_text(_program(cards, body, place), encoding="utf-8")
    with no_hang(60):
        return outcome(str(folder))


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(cards=st.sampled_from([1, 100, 10_000]), body=statements(), place=PLACES)
def test_typed_programs_with_big_values_end_in_a_game_or_a_positioned_error(tmp_path_factory, cards, body, place):
    assert _fuzzed_outcome(tmp_path_factory, cards, body, place) in OUTCOMES


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(cards=st.sampled_from([1, 100, 10_000]), body=statements(), place=PLACES)
def test_typed_programs_many_under_a_memory_cap(tmp_path_factory, cards, body, place):
    folder = tmp_path_factory.mktemp("fuzzed")
    (folder / "game.rules").write_text(_program(cards, body, place), encoding="utf-8")
    out = run_capped(f"""
import sys
sys.path.insert(0, "tests")
from hostile_helpers import outcome
print(outcome({str(folder)!r}))
""", timeout=120, memory_mib=1000)
    assert out.strip() in OUTCOMES
