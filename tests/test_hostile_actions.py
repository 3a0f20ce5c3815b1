"""Hostile actions, saves and game logs (issue 7), on random states of every game that loads.

- An action that is not legal (the wrong player, a value of the wrong type, a stale one, a
  malformed one, something that is not an Action at all) is refused with IllegalAction and a
  reason, and the state does not change.
- A save that is truncated, edited, damaged, for another game, or not JSON is refused with
  SaveError and a reason; one that is edited and given a fresh checksum (forged) is refused
  or, if it is consistent, plays on with nothing but our own errors.
- A game log that is truncated, edited, for another game or version, or not JSON is refused
  with LogError (a ValueError) and a reason, or its replay reports that it went differently.
"""

from __future__ import annotations

import json
import random
from collections import namedtuple
from pathlib import Path

import pytest
from hostile_helpers import OURS, loadable_games, loaded, no_hang, play_random, player_counts
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interpreter import Action, IllegalAction, SaveError
from interpreter.engine.api import _checksum, _state_text
from interpreter.tools.simulate import LogError, dumps_log, load_log, log_from_state, replay, sign_log
from rulelang.diagnostics import RuleRuntimeError

GAMES = loadable_games()
# Replaying a log loads its game again: the engine's small fixtures keep that quick; the
# slow marker runs the log tests on every game.
QUICK = [g for g in GAMES if "fixtures" in Path(g).parts] or GAMES
EXAMPLES = settings().max_examples


def props(factor: int = 1):
    return settings(max_examples=EXAMPLES * factor, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@st.composite
def game_states(draw, finished: bool = False, games: list[str] | None = None):
    """(game path, a state after some random legal actions, the actions offered on the way)."""
    path = draw(st.sampled_from(games or GAMES))
    game = loaded(path)
    players = draw(st.sampled_from(player_counts(game)))
    seed = draw(st.integers(0, 2**32))
    state = game.new_game(players=players, seed=seed)
    rng = random.Random(seed)
    seen: list[Action] = []
    for _ in range(10_000 if finished else draw(st.integers(0, 60))):
        if state.is_over:
            break
        player = rng.choice(state.decision.players)
        legal = state.legal_actions(player)
        seen.extend(legal)
        state.apply(rng.choice(legal))
    return path, state, seen


class Nasty:
    """Something an action must never trust: its comparison, hash and repr all fail."""

    def __eq__(self, other):
        raise RuntimeError("compared")

    def __hash__(self):
        raise RuntimeError("hashed")

    def __repr__(self):
        raise RuntimeError("shown")


FakeAction = namedtuple("FakeAction", "player value label decision")


def refused(state, action, reason: str | None = None) -> str:
    """Apply `action`, which must be refused with a reason and leave the state as it was."""
    before = state.to_json()
    with pytest.raises(IllegalAction) as err:
        state.apply(action)
    assert str(err.value), "a refusal without a reason"
    if reason is not None:
        assert reason in str(err.value), str(err.value)
    assert state.to_json() == before, "a refused action changed the state"
    return str(err.value)


def still_playable(state) -> None:
    """A legal action still goes through after all the refusals."""
    if not state.is_over:
        player = state.decision.players[0]
        try:
            state.apply(state.legal_actions(player)[0])
        except RuleRuntimeError:
            pass


NOT_ACTIONS = {
    "none": None, "text": "take", "int": 3, "float": 1.5, "tuple": (0, 1), "list": [0, 1],
    "dict": {"player": 0, "value": 1}, "the class": Action, "object": object(), "nasty": Nasty(),
    "namedtuple": FakeAction(0, 0, "x", -1), "bytes": b"\x00",
}


@props(2)
@given(data=game_states(), which=st.sampled_from(sorted(NOT_ACTIONS)))
def test_things_that_are_not_actions_are_refused(data, which):
    junk = NOT_ACTIONS[which]
    _, state, _ = data
    if state.is_over:
        refused(state, junk)
    else:
        refused(state, junk, "not an action")
    still_playable(state)


@props(2)
@given(data=game_states(), k=st.integers(0, 9), pick=st.integers(0, 1000))
def test_actions_from_players_not_deciding_are_refused(data, k, pick):
    who = [-1, 99, 10**30, "0", 0.0, 1.0, True, False, None, Nasty()][k]
    _, state, _ = data
    if state.is_over:
        return
    waiting = state.decision.players
    if isinstance(who, int) and not isinstance(who, bool) and who in waiting:
        return
    legal = state.legal_actions(waiting[0])
    good = legal[pick % len(legal)]
    refused(state, Action(who, good.value, good.label, good.decision))
    # a seated player who is not deciding now
    for p in range(state.num_players):
        if p not in waiting:
            message = refused(state, Action(p, good.value, good.label, good.decision), "cannot act now")
            assert f"Player {p + 1}" in message
    still_playable(state)


def _wrong_values(v) -> list:
    out = [str(v), [v], (v,), {"v": v}, None, Nasty(), object(), 10**30, -1, 3.5, "", b"x"]
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        out += [float(v), v + 100_000, -v - 1, bool(v)]
    if isinstance(v, bool):
        out += [int(v)]
    if isinstance(v, str):
        out += [v.upper() + "_", v + " "]
    return out


@props(2)
@given(data=game_states(), pick=st.integers(0, 1000), k=st.integers(0, 100))
def test_values_that_are_not_legal_are_refused(data, pick, k):
    _, state, _ = data
    if state.is_over:
        return
    player = state.decision.players[pick % len(state.decision.players)]
    legal = state.legal_actions(player)
    good = legal[pick % len(legal)]
    values = _wrong_values(good.value)
    bad = values[k % len(values)]
    if any(type(a.value) is type(bad) and a.value == bad for a in legal if not isinstance(bad, Nasty)):
        return  # by chance a legal value after all
    refused(state, Action(player, bad, good.label, good.decision), "not a legal choice")
    refused(state, Action(player, bad, good.label))
    still_playable(state)


@props(2)
@given(data=game_states(), pick=st.integers(0, 10_000))
def test_stale_and_malformed_actions_are_refused(data, pick):
    _, state, seen = data
    if state.is_over:
        refused(state, seen[pick % len(seen)] if seen else Action(0, 0, "x"), "over")
        return
    player = state.decision.players[0]
    current = state.legal_actions(player)[0].decision
    old = [a for a in seen if a.decision != current and a.player == player]
    if old:
        refused(state, old[pick % len(old)], "stale")
    good = state.legal_actions(player)[pick % len(state.legal_actions(player))]
    for decision in (current + 1, current - 1 if current - 1 != -1 else -2, 10**30):
        refused(state, Action(player, good.value, good.label, decision), "stale")
    for decision in ("1", None, 1.5, True, Nasty()):
        refused(state, Action(player, good.value, good.label, decision))
    still_playable(state)


@props(1)
@given(data=game_states(finished=True))
def test_any_action_on_a_finished_game_is_refused(data):
    _, state, seen = data
    if not state.is_over:
        return  # too long a game for this draw
    assert state.decision is None and state.legal_actions() == []
    refused(state, seen[-1] if seen else Action(0, 0, "x"), "over")


# ---- saves --------------------------------------------------------------------------------


def restored_or_refused(game, text, original) -> None:
    """Loading `text` gives SaveError with a reason, or exactly the original state."""
    try:
        with no_hang(20):
            r = game.state_from_json(text)
    except SaveError as err:
        assert str(err)
        return
    assert original is not None and r == original, "a damaged save was taken as a different state"


@props(4)
@given(data=game_states(), cut=st.floats(0, 1, exclude_max=True))
def test_truncated_saves_are_refused(data, cut):
    path, state, _ = data
    text = state.to_json()
    with pytest.raises(SaveError, match="not JSON"):
        loaded(path).state_from_json(text[: int(len(text) * cut)])


@props(6)
@given(data=game_states(), where=st.integers(0, 10**9), how=st.sampled_from(["delete", "replace", "insert"]),
       char=st.characters(codec="utf-8"))
def test_damaged_saves_are_refused_or_unchanged(data, where, how, char):
    path, state, _ = data
    text = state.to_json()
    i = where % len(text)
    damaged = {"delete": text[:i] + text[i + 1:], "replace": text[:i] + char + text[i + 1:],
               "insert": text[:i] + char + text[i:]}[how]
    restored_or_refused(loaded(path), damaged, state)


def _paths(doc, prefix=()):
    """Every place in a JSON document (as key paths)."""
    yield prefix
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _paths(v, prefix + (i,))


JSON = st.recursive(st.none() | st.booleans() | st.integers(-2, 10**20) | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                                max_size=3),
                    max_leaves=8)


def _edit(doc, rng: random.Random, replacement, how: str):
    """One edit at a random place of the state: a new value, a key removed, a number moved by one."""
    places = [p for p in _paths(doc["state"]) if p]
    place = rng.choice(places)
    parent = doc["state"]
    for k in place[:-1]:
        parent = parent[k]
    key = place[-1]
    if how == "remove":
        del parent[key]
    elif how == "nudge" and type(parent[key]) is int:
        parent[key] += rng.choice([-1, 1])
    else:
        parent[key] = replacement


@props(6)
@given(data=game_states(), seed=st.integers(0, 2**32), replacement=JSON,
       how=st.sampled_from(["replace", "remove", "nudge"]))
def test_edited_saves_are_refused(data, seed, replacement, how):
    path, state, _ = data
    doc = json.loads(state.to_json())
    _edit(doc, random.Random(seed), replacement, how)
    text = json.dumps(doc)
    if json.loads(text)["state"] == json.loads(state.to_json())["state"]:
        return  # the edit changed nothing
    with pytest.raises(SaveError):
        loaded(path).state_from_json(text)


@props(6)
@given(data=game_states(), seed=st.integers(0, 2**32), replacement=JSON,
       how=st.sampled_from(["replace", "remove", "nudge"]))
def test_forged_saves_are_refused_or_play_on_safely(data, seed, replacement, how):
    # Edited on purpose and given a fresh checksum: the consistency checks must refuse what
    # would break the engine, and what they let through must play with only our own errors.
    path, state, _ = data
    game = loaded(path)
    doc = json.loads(state.to_json())
    _edit(doc, random.Random(seed), replacement, how)
    doc["checksum"] = _checksum(_state_text(doc["state"]))
    try:
        forged = game.state_from_json(json.dumps(doc))
    except SaveError as err:
        assert str(err)
        return
    rng = random.Random(seed)
    with no_hang(30):
        try:
            for p in range(forged.num_players):
                forged.view(p)
                forged.legal_actions(p)
            forged.to_json()
            assert isinstance(forged.log, list) and isinstance(forged.actions_taken, list)
            forged.scores(), forged.winners(), forged.check_invariants()
            play_random(forged, rng, 20)
            forged.scores(), forged.winners()
        except OURS:
            pass


@props(2)
@given(data=game_states(), other=st.sampled_from(GAMES))
def test_saves_of_another_game_are_refused(data, other):
    path, state, _ = data
    if other == path:
        return
    with pytest.raises(SaveError, match="the save is for"):
        loaded(other).state_from_json(state.to_json())


@pytest.mark.parametrize("text", [
    "", " ", "null", "true", "0", "[]", "{}", '"text"', "[" * 100_000 + "]" * 100_000,
    '{"format": "rulelang-state"}', '{"format": "rulelang-state", "version": 2}',
    '{"format": "rulelang-state", "version": 1, "game": "Tiny"}', "\x00", "\ufeff{}", "NaN",
    '{"a": ' * 50_000 + "1" + "}" * 50_000,
], ids=["empty", "space", "null", "true", "zero", "list", "object", "text", "deep lists", "format only",
        "version 2", "no fingerprint", "nul", "bom", "nan", "deep objects"])
def test_saves_that_are_not_saves_are_refused(text):
    game = loaded(GAMES[0])
    with no_hang(10), pytest.raises(SaveError):
        game.state_from_json(text)


@pytest.mark.parametrize("junk", [None, 5, 1.5, [], {}, object(), b"\xff\xfe", bytearray(b"{}")])
def test_saves_of_the_wrong_type_are_refused(junk):
    with pytest.raises(SaveError):
        loaded(GAMES[0]).state_from_json(junk)


@props(4)
@given(text=st.text(max_size=300) | JSON.map(json.dumps) | st.binary(max_size=300))
def test_random_saves_are_refused(text):
    with pytest.raises(SaveError):
        loaded(GAMES[0]).state_from_json(text)


def test_a_save_carries_a_format_version_and_checksum():
    state = loaded(GAMES[0]).new_game(players=player_counts(loaded(GAMES[0]))[0], seed=1)
    doc = json.loads(state.to_json())
    assert doc["format"] == "rulelang-state" and doc["version"] == 1
    assert doc["checksum"] == _checksum(_state_text(doc["state"]))


# ---- game logs ------------------------------------------------------------------------------


def _log_text(path: str, state) -> str:
    return dumps_log(log_from_state(loaded(path), state, str(Path(path).resolve())))


def replay_outcome(tmp: Path, text: str | bytes, game_path: str) -> str:
    """Replay a log on the game at `game_path` (a log never chooses the files read)."""
    log = tmp / "game.log.json"
    log.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass"))
    with no_hang(30):
        try:
            result = replay(str(log), game_path)
        except LogError as err:
            assert str(err)
            return "refused"
        except OURS as err:
            assert str(err)
            return "refused"
    return "same" if result.ok else "different"


def check_truncated_log(tmp_path_factory, data, cut):
    path, state, _ = data
    text = _log_text(path, state).rstrip()
    tmp = tmp_path_factory.mktemp("log")
    assert replay_outcome(tmp, text, path) == "same"
    assert replay_outcome(tmp, text[: int(len(text) * cut)], path) == "refused"


@props(2)
@given(data=game_states(games=QUICK), cut=st.floats(0, 1, exclude_max=True))
def test_truncated_game_logs_are_refused(tmp_path_factory, data, cut):
    check_truncated_log(tmp_path_factory, data, cut)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=game_states(), cut=st.floats(0, 1, exclude_max=True))
def test_truncated_game_logs_of_every_game_are_refused(tmp_path_factory, data, cut):
    check_truncated_log(tmp_path_factory, data, cut)


def check_edited_log(tmp_path_factory, data, seed, replacement):
    path, state, _ = data
    doc = json.loads(_log_text(path, state))
    rng = random.Random(seed)
    key = rng.choice(sorted(doc))
    if key == "actions" and doc["actions"] and rng.random() < 0.7:
        i = rng.randrange(len(doc["actions"]))
        doc["actions"][i][rng.randrange(2)] = replacement
    else:
        doc[key] = replacement
    if rng.random() < 0.5:
        doc = sign_log(doc)  # edited with a recomputed checksum: the deeper checks must stand
    outcome = replay_outcome(tmp_path_factory.mktemp("log"), json.dumps(doc), path)
    assert outcome in ("refused", "different", "same")


@props(3)
@given(data=game_states(games=QUICK), seed=st.integers(0, 2**32), replacement=JSON)
def test_edited_game_logs_are_refused_or_replay_differently(tmp_path_factory, data, seed, replacement):
    check_edited_log(tmp_path_factory, data, seed, replacement)


@pytest.mark.slow
@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=game_states(), seed=st.integers(0, 2**32), replacement=JSON)
def test_edited_game_logs_of_every_game_are_refused_or_replay_differently(tmp_path_factory, data, seed,
                                                                         replacement):
    check_edited_log(tmp_path_factory, data, seed, replacement)


@props(1)
@given(data=game_states(games=QUICK), other=st.sampled_from(GAMES))
def test_game_logs_replayed_on_another_game_are_refused(tmp_path_factory, data, other):
    path, state, _ = data
    if other == path or not state.actions_taken:
        return
    outcome = replay_outcome(tmp_path_factory.mktemp("log"), _log_text(path, state), game_path=other)
    # A game log names no game (only a path, which --game overrides) and an unfinished one has
    # no result to compare: its few actions may happen to be legal in the other game too.
    # (Reported: interpreter/simulate.py could store the game's name and fingerprint.)
    assert outcome in ("refused", "different") or not state.is_over


@pytest.mark.parametrize("text", [
    "", "not json", "[]", "null", '{"format": "rulelang-log", "version": 99}',
    '{"format": "other"}', b"\xff\xfe\x00",
    "[" * 100_000,
], ids=["empty", "not json", "a list", "null", "version 99", "other format", "binary", "deep"])
def test_game_logs_that_are_not_logs_are_refused(tmp_path, text):
    assert replay_outcome(tmp_path, text, QUICK[0]) == "refused"


@props(3)
@given(text=st.text(max_size=300) | JSON.map(json.dumps) | st.binary(max_size=300))
def test_random_game_logs_are_refused(tmp_path_factory, text):
    assert replay_outcome(tmp_path_factory.mktemp("log"), text, QUICK[0]) == "refused"


def test_load_log_reports_the_version(tmp_path):
    path = QUICK[0]
    state = loaded(path).new_game(players=player_counts(loaded(path))[0], seed=3)
    doc = json.loads(_log_text(path, state))
    doc["version"] = 1
    (tmp_path / "l.json").write_text(json.dumps(doc))
    with pytest.raises(LogError, match="version"):
        load_log(str(tmp_path / "l.json"))
