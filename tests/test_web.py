"""`rulelang serve` without a browser: pages, sockets, refusals, secrecy on the raw socket
messages, computer players, save and resume, replays, and the command itself."""

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

import httpx  # noqa: E402

import interpreter  # noqa: E402
from interpreter.tools.simulate import log_from_state, run_game, save_log  # noqa: E402
from interpreter.web.server import MAX_MESSAGE, make_app  # noqa: E402
from interpreter.web.session import Replay, Table, restore_from_log  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402
    from starlette.websockets import WebSocketDisconnect  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

ROOT = Path(__file__).resolve().parents[1]
GAMES = {name: str(ROOT / "games" / name) for name in ("welcome_to", "off_plan", "plunderbund")}
TINY = str(ROOT / "tests" / "fixtures" / "tiny")


def table_for(path, agents, seed=1, **kwargs):
    game = interpreter.load(path)
    state = game.new_game(players=len(agents), seed=seed)
    return Table.start(game, state, agents, path, seed, **kwargs)


@contextlib.contextmanager
def serving(app):
    """A test client whose sockets all share one event loop, as under uvicorn."""
    with TestClient(app) as client:
        yield client


def receive(ws, until=lambda m: True, limit=50):
    """Messages until one satisfies `until` (other pages' moves and computer players interleave)."""
    for _ in range(limit):
        msg = json.loads(ws.receive_text())
        if until(msg):
            return msg
    raise AssertionError("the expected message never came")


def is_state(msg):
    return msg["type"] == "state"


def my_turn(msg):
    return msg["type"] == "state" and (msg["over"] or (msg["decision"] or {}).get("yours"))


# ---- pages --------------------------------------------------------------------------------------


def test_pages_need_a_token_and_forbid_other_origins():
    table = table_for(TINY, ["human", "human"])
    client = TestClient(make_app(table))
    page = client.get(f"/seat/{table.token_of(0)}")
    assert page.status_code == 200 and "app.js" in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["referrer-policy"] == "no-referrer"
    assert client.get("/seat/not-a-token").status_code == 404
    assert client.get(f"/hotseat/{table.token_of(0)}").status_code == 404  # a seat token is not the hot-seat one
    assert client.get(f"/hotseat/{table.hotseat_token}").status_code == 200
    seats = client.get(f"/api/hotseat/{table.hotseat_token}").json()["seats"]
    assert [(s["seat"], s["token"]) for s in seats] == [(0, table.token_of(0)), (1, table.token_of(1))]
    home = client.get("/").text
    assert all(token not in home for token in table.tokens)
    assert client.get("/static/app.js").status_code == 200
    assert "http" not in client.get("/static/index.html").text.replace("http-equiv", "")  # no CDN
    with pytest.raises(WebSocketDisconnect), client.websocket_connect("/ws/not-a-token"):
        pass


def test_tokens_are_unguessable_and_distinct():
    tables = [table_for(TINY, ["human", "human", "random"]) for _ in range(3)]
    tokens = [t for table in tables for t in [*table.tokens, table.hotseat_token]]
    assert len(set(tokens)) == len(tokens)
    assert all(len(t) >= 22 for t in tokens)  # 128 random bits
    assert tables[0].hotseat_token is not None and table_for(TINY, ["human", "random"]).hotseat_token is None


# ---- refusals -------------------------------------------------------------------------------------


def test_refusals_leave_the_game_unchanged():
    table = table_for(TINY, ["human", "human", "greedy"])
    saved = table.state.to_json()
    with serving(make_app(table, bot_delay=0)) as client, client.websocket_connect(f"/ws/{table.token_of(0)}") as ws0, \
            client.websocket_connect(f"/ws/{table.token_of(1)}") as ws1:
        first = receive(ws0, is_state)
        receive(ws1, is_state)
        assert first["decision"]["yours"] and first["decision"]["waiting"][0]["seat"] == 0
        ticket = first["decision"]["ticket"]

        def refused(ws, message):
            ws.send_text(message if isinstance(message, str) else json.dumps(message))
            reply = receive(ws, lambda m: m["type"] == "refused")
            assert table.state.to_json() == saved
            return reply["message"]

        assert "not Player 2's decision" in refused(ws1, {"type": "act", "ticket": 1, "index": 0})
        assert "no action 99" in refused(ws0, {"type": "act", "ticket": ticket, "index": 99})
        assert "no action" in refused(ws0, {"type": "act", "ticket": ticket, "index": True})
        assert "already over" in refused(ws0, {"type": "act", "ticket": ticket + 1, "index": 0})
        assert "unknown message" in refused(ws0, "not json")
        assert "unknown message" in refused(ws0, {"type": "cheat"})
        assert "at most" in refused(ws0, json.dumps({"type": "act", "pad": "x" * MAX_MESSAGE}))
        ws0.send_bytes(b"\x00")
        assert receive(ws0, lambda m: m["type"] == "refused")
        assert table.state.to_json() == saved
        # the bot seat's page watches; it cannot act for the bot
        assert "played by the greedy agent" in table.act(2, 1, 0)
        # a real action goes through (taking a gem asks which next), and its ticket is then stale
        ws0.send_text(json.dumps({"type": "act", "ticket": ticket, "index": 0}))
        after = receive(ws0, lambda m: is_state(m) and m["decision"]["ticket"] != ticket)
        assert after["decision"]["yours"] and table.state.to_json() != saved
        saved = table.state.to_json()
        assert "already over" in refused(ws0, {"type": "act", "ticket": ticket, "index": 0})


# ---- secrecy --------------------------------------------------------------------------------------


def _swap_hidden(state, hand_key, deck_key):
    """Exchange a card of a hand with one of a hidden deck, and reverse the deck's order."""
    s = state.s
    hand, deck = s.zones[hand_key], s.zones[deck_key]
    hand[0], deck[0] = deck[0], hand[0]
    deck.reverse()
    for key in (hand_key, deck_key):
        for card in s.zones[key]:
            s.where[card] = key


def _raw_messages(table, seats):
    out = {}
    with serving(make_app(table, bot_delay=0)) as client:
        for seat in seats:
            with client.websocket_connect(f"/ws/{table.token_of(seat)}") as ws:
                out[seat] = ws.receive_text()
    return out


def test_a_seat_is_sent_nothing_of_another_hand_or_the_deck_order():
    path = GAMES["off_plan"]
    a, b = table_for(path, ["human", "human"], seed=3), table_for(path, ["human", "human"], seed=3)
    for _ in range(2):
        _swap_hidden(b.state, "hand#1", "room_deck")
        assert a.state.to_json() != b.state.to_json()
        ma, mb = _raw_messages(a, [0, 1]), _raw_messages(b, [0, 1])
        assert ma[0] == mb[0]  # byte for byte: Player 1 cannot tell the two games apart
        assert ma[1] != mb[1]  # while Player 2 sees their own hand change (the test can fail)
        # the game goes on the same way in both (the first action of whoever decides) and stays secret
        for t in (a, b):
            seat = t.waiting()[0]
            assert t.act(seat, t.ticket(seat), 0) is None


def test_while_choosing_at_once_nobody_sees_the_others_choices():
    path = GAMES["welcome_to"]
    table = table_for(path, ["human", "human", "human"], seed=5)
    before = _raw_messages(table, [0, 1, 2])
    assert table.state.decision.simultaneous
    checked = 0
    while 0 in table.waiting():  # Player 1 picks a combination, a street, a house, ...
        assert table.act(0, table.ticket(0), 0) is None
        after = _raw_messages(table, [0, 1, 2])
        assert after[0] != before[0]
        if 0 in table.waiting():  # (once done, the others see that Player 1 has finished)
            assert after[1] == before[1] and after[2] == before[2]
            checked += 1
    assert checked >= 1


def test_a_seat_is_not_even_told_when_another_chooses_in_secret():
    table = table_for(GAMES["welcome_to"], ["human", "human", "human"], seed=5)
    app = make_app(table)
    hub = app.state.hub
    with serving(app) as client, client.websocket_connect(f"/ws/{table.token_of(0)}") as ws0, \
            client.websocket_connect(f"/ws/{table.token_of(1)}") as ws1:
        first = receive(ws1, is_state)
        d = receive(ws0, is_state)["decision"]
        ws0.send_text(json.dumps({"type": "act", "ticket": d["ticket"], "index": 0}))
        receive(ws0, lambda m: is_state(m) and m["decision"]["ticket"] > d["ticket"])  # the street next
        assert 0 in table.waiting() and hub.sent[1] == 1  # Player 2 was sent nothing new
        ws1.send_text(json.dumps({"type": "refresh"}))
        assert receive(ws1, is_state) == first


def test_a_seat_done_choosing_learns_nothing_of_the_others_choices_so_far():
    table = table_for(GAMES["welcome_to"], ["human", "human"], seed=5)
    while 1 in table.waiting():  # Player 2 finishes its part of the turn first
        assert table.act(1, table.ticket(1), 0) is None
    assert table.waiting() == [0]
    seen = _raw_messages(table, [1])[1]
    assert table.act(0, table.ticket(0), 0) is None  # Player 1 picks a combination: the street next
    assert table.waiting() == [0]
    assert _raw_messages(table, [1])[1] == seen


# ---- playing whole games through the sockets -------------------------------------------------------


@pytest.mark.parametrize("name", ["welcome_to", "off_plan", "plunderbund"])
def test_two_people_and_a_computer_play_a_whole_game(name):
    table = table_for(GAMES[name], ["human", "human", "random"], seed=2)
    with serving(make_app(table, bot_delay=0)) as client, \
            client.websocket_connect(f"/ws/{table.token_of(0)}") as ws0, \
            client.websocket_connect(f"/ws/{table.token_of(1)}") as ws1:
        sockets = {0: ws0, 1: ws1}
        acted = {0: 0, 1: 0}  # the ticket each seat last answered; tickets only grow
        latest = {seat: receive(ws, is_state) for seat, ws in sockets.items()}

        def current(m, seat):
            return m["over"] or (m["decision"]["yours"] and m["decision"]["ticket"] > acted[seat])

        for _ in range(5000):
            if table.state.is_over:
                break
            deciding = [s for s in (0, 1) if s in table.waiting()]
            if not deciding:  # the computer player's move is on its way
                time.sleep(0.005)
                continue
            seat = deciding[0]
            if not (is_state(latest[seat]) and current(latest[seat], seat)):
                latest[seat] = receive(sockets[seat], lambda m, seat=seat: is_state(m) and current(m, seat),
                                       limit=5000)
            msg = latest[seat]
            if msg["over"]:
                break
            d = msg["decision"]
            assert d["actions"] and all(a["label"] for a in d["actions"])
            acted[seat] = d["ticket"]
            sockets[seat].send_text(json.dumps({"type": "act", "ticket": d["ticket"], "index": len(d["actions"]) - 1}))
            # the answer: the table after this choice (the server applied it before sending)
            latest[seat] = receive(sockets[seat], lambda m, seat=seat: is_state(m) and (
                m["over"] or not m["decision"]["yours"] or m["decision"]["ticket"] > acted[seat]), limit=5000)
        assert table.state.is_over
        final = latest[0] if latest[0]["over"] else receive(ws0, lambda m: is_state(m) and m["over"], limit=5000)
        assert [row["seat"] for row in final["result"]["scores"]] == [0, 1, 2]
        assert final["decision"] is None


# ---- save, resume, replay ----------------------------------------------------------------------------


def test_save_over_the_socket_and_resume(tmp_path):
    path = GAMES["off_plan"]
    save = tmp_path / "game.json"
    table = table_for(path, ["human", "human"], seed=4, save_path=str(save))
    for _ in range(6):
        seat = table.waiting()[0]
        assert table.act(seat, table.ticket(seat), 0) is None
    with serving(make_app(table)) as client, client.websocket_connect(f"/ws/{table.token_of(0)}") as ws:
        receive(ws, is_state)
        ws.send_text(json.dumps({"type": "save"}))
        assert receive(ws, lambda m: m["type"] == "saved")["path"] == str(save)
    with pytest.raises(ValueError, match="a log never chooses"):
        restore_from_log(str(save))
    game, states, log, game_path = restore_from_log(str(save), path)
    assert len(states) == 7 and log["agents"] == ["human", "human"]
    assert states[-1].to_json() == table.state.to_json()
    assert game_path == path


def test_autosave_writes_after_every_move(tmp_path):
    save = tmp_path / "auto.json"
    table = table_for(TINY, ["human", "human"], save_path=str(save), autosave=True)
    assert not save.exists()
    assert table.act(0, table.ticket(0), 0) is None
    assert json.loads(save.read_text())["actions"] == [list(a) for a in table.state.actions_taken]


def _logged_game(tmp_path, name="welcome_to", players=3):
    game = interpreter.load(GAMES[name])
    record = run_game(game, players, seed=6)
    assert record.ok
    state = game.new_game(players=players, seed=6)
    for player, value in record.actions:
        state.apply(next(a for a in state.legal_actions(player) if json.loads(json.dumps(a.value)) == value))
    path = tmp_path / "log.json"
    save_log(str(path), log_from_state(game, state, GAMES[name], ["random"] * players))
    return path, state


def test_replay_steps_forward_and_back_from_each_side(tmp_path):
    path, final = _logged_game(tmp_path)
    replay = Replay.from_log(str(path), GAMES["welcome_to"])
    assert replay.steps == len(final.actions_taken)
    assert replay.states[-1].to_json() == final.to_json()
    client = TestClient(make_app(replay=replay))
    assert client.get(f"/replay/{replay.token}").status_code == 200
    assert client.get("/replay/wrong").status_code == 404
    api = f"/api/replay/{replay.token}"
    last = client.get(api, params={"step": replay.steps, "seat": "all"}).json()
    assert last["over"] and last["result"] and len(last["boards"]) == 3
    mid = client.get(api, params={"step": 10, "seat": 1}).json()
    assert mid["step"] == 10 and [b["seat"] for b in mid["boards"]] == [1]
    assert all(m["label"] is None for m in mid["moves"] if m["seat"] != 1)
    assert all(m["label"] for m in last["moves"])
    assert client.get(api, params={"step": 9, "seat": 1}).json()["step"] == 9  # and back
    assert client.get(api, params={"step": replay.steps + 1}).status_code == 400
    assert client.get(api, params={"step": 0, "seat": 7}).status_code == 400
    assert client.get(api, params={"step": "x"}).status_code == 400


# ---- the command -------------------------------------------------------------------------------------


def _serve(args, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "interpreter", "serve", *args, "--port", "0"], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    lines = []
    while True:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        if line.startswith("Each URL"):
            break
    _wait_until_serving(proc, lines)
    return proc, lines


def _stop(proc) -> None:
    """Ctrl-C a server whose printed lines a test checked, and a second Ctrl-C (what a person
    does, uvicorn's forced exit) should the first be lost: stopping on one Ctrl-C is
    test_serve_prints_one_url_per_human_seat_and_stops_on_ctrl_c's subject, not these tests'."""
    proc.send_signal(signal.SIGINT)
    try:
        proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=20)


def _wait_until_serving(proc, lines, seconds: float = 30) -> None:
    """Wait until the server answers its first URL. The URLs are printed before uvicorn starts
    and takes over Ctrl-C; a SIGINT in between can be lost inside asyncio's start-up (on a busy
    machine the full suite hit that window), and then the server never stops."""
    urls = [line.split(": ", 1)[1].strip() for line in lines if line.startswith("  ") and ": http" in line]
    if not urls:
        return
    deadline = time.monotonic() + seconds
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            httpx.get(urls[0], timeout=5)
            return
        except httpx.HTTPError:
            time.sleep(0.05)


def test_serve_prints_one_url_per_human_seat_and_stops_on_ctrl_c(tmp_path):
    proc, lines = _serve([GAMES["welcome_to"], "--players", "3", "--agents", "human,human,greedy",
                          "--seed", "1"], tmp_path)
    try:
        text = "".join(lines)
        urls = [line.split(": ", 1)[1].strip() for line in lines if line.startswith("  ")]
        assert "Welcome To" in text and "seed 1" in text
        assert [line.split(":")[0].strip() for line in lines if line.startswith("  ")] == \
            ["Player 1", "Player 2", "Hot-seat (every human seat in one browser)"]
        assert all(url.startswith("http://127.0.0.1:") for url in urls)
        assert httpx.get(urls[0]).status_code == 200
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    assert "server stopped" in out
    assert not list(tmp_path.iterdir())  # nothing written that was not asked for


def test_serve_usage_errors(tmp_path):
    def run(*args):
        return subprocess.run([sys.executable, "-m", "interpreter", "serve", *args], cwd=ROOT,
                              capture_output=True, text=True)

    assert run(GAMES["off_plan"]).returncode == 2  # no --players
    missing = run(str(tmp_path / "nowhere"), "--players", "2")
    assert missing.returncode == 1 and "no such game folder" in missing.stderr
    bad_log = tmp_path / "bad.json"
    bad_log.write_text("{")
    result = run("--resume", str(bad_log))
    assert result.returncode == 1 and "not JSON" in result.stderr and "Traceback" not in result.stderr


# ---- what the server prints -------------------------------------------------------------------


FAILING_BOT_GAME = """game "Failing bot"
players 2 to 2

flow:
    turn last(players):
        choose x in [1, 2] by active_player
        fail "rules \x1b]0;window title\x07 end"
"""


def test_a_stopped_computer_player_is_reported_with_control_characters_escaped(tmp_path, capfd):
    """The server's own message on stderr quotes a rule's error, which the rule file wrote: its ESC
    and BEL reach the terminal escaped."""
    (tmp_path / "game.rules").write_text(FAILING_BOT_GAME, encoding="utf-8")
    table = table_for(str(tmp_path), ["human", "random"])
    with serving(make_app(table, bot_delay=0)) as client, \
            client.websocket_connect(f"/ws/{table.token_of(0)}") as ws:
        msg = receive(ws, lambda m: is_state(m) and "error" in m, limit=50)
    assert "stopped" in msg["error"]
    err = capfd.readouterr().err
    assert "rulelang serve:" in err and "window title" in err
    assert "\x1b" not in err and "\x07" not in err and "\\x1b]0;window title\\x07" in err


def test_serve_prints_a_game_name_with_control_characters_escaped(tmp_path):
    game = tmp_path / "game"
    game.mkdir()
    (game / "game.rules").write_text(FAILING_BOT_GAME.replace("Failing bot", "Evil\x1b]0;title\x07 bot"),
                                     encoding="utf-8")
    proc, lines = _serve([str(game), "--players", "2", "--agents", "human,human"], tmp_path)
    try:
        text = "".join(lines)
        assert "Evil\\x1b]0;title\\x07 bot: 2 players" in text
        assert "\x1b" not in text and "\x07" not in text
    finally:
        _stop(proc)


def test_serve_resume_and_replay_from_the_command_line(tmp_path):
    path = GAMES["off_plan"]
    save = tmp_path / "saved.json"
    table = table_for(path, ["human", "greedy"], seed=4, save_path=str(save))
    for _ in range(3):
        seat = table.waiting()[0]
        if seat == 0:
            assert table.act(0, table.ticket(0), 0) is None
        else:
            assert table.play_bot(1, table.bot_choice(1)) is None
    table.save()
    moves = len(table.state.actions_taken)
    proc, lines = _serve([path, "--resume", str(save)], tmp_path)
    try:
        text = "".join(lines)
        assert f"{moves} moves played" in text and "Player 2 greedy" in text  # the seats from the log
        assert f"Save writes the game log to {save}" in text
        assert [line.split(":")[0].strip() for line in lines if line.startswith("  ")] == ["Player 1"]
    finally:
        _stop(proc)
    assert proc.returncode == 0
    proc, lines = _serve([path, "--replay", str(save)], tmp_path)
    try:
        url = next(line.split(": ", 1)[1].strip() for line in lines if line.startswith("  Replay"))
        token = url.rsplit("/", 1)[1]
        step = httpx.get(url.replace("/replay/", "/api/replay/"), params={"step": 2, "seat": 0}).json()
        assert step["steps"] == moves and step["step"] == 2 and token
    finally:
        _stop(proc)
    assert proc.returncode == 0
