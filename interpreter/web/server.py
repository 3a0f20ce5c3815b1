"""The web server of ``rulelang serve``: a Starlette app (run by uvicorn) with one page per seat
and one websocket per open page.

URLs (every one carries an unguessable token; nothing is listed anywhere):

- ``/seat/TOKEN``: one seat's page; its socket is ``/ws/TOKEN``;
- ``/hotseat/TOKEN``: every human seat in one browser, with a pass-the-device screen between them
  (the page asks ``/api/hotseat/TOKEN`` for the seats' tokens and opens one socket per seat);
- ``/replay/TOKEN``: a game log step by step (``/api/replay/TOKEN?step=K&seat=P``).

The socket protocol (JSON text both ways). The server sends ``{"type": "state", ...}`` (the
seat's whole page, see ``Table.message``) whenever the game changes, ``{"type": "refused",
"message"}`` when an action is refused, and ``{"type": "saved", "path"}``. The page sends
``{"type": "act", "ticket": N, "index": I}`` (the I-th legal action of its N-th decision),
``{"type": "save"}`` and ``{"type": "refresh"}``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from rulelang.printable import printable

from .session import Replay, Table, encode

__all__ = ["MAX_MESSAGE", "Hub", "make_app"]

STATIC = Path(__file__).resolve().parent / "static"
MAX_MESSAGE = 4096  # characters; a page's messages are a few dozen
SECURITY_HEADERS = {
    # Everything the page needs comes from this server; rule files are untrusted, and the page
    # puts their text in with textContent only, so no script of theirs can run either way.
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; "
                               "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'",
    "Referrer-Policy": "no-referrer",  # the URL carries the seat's token
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
}


class Hub:
    """The table, the open sockets of each seat, and the computer players' turns."""

    def __init__(self, table: Table | None, replay: Replay | None, bot_delay: float = 0.8):
        self.table = table
        self.replay = replay
        self.bot_delay = bot_delay
        self.sockets: dict[int, set[WebSocket]] = {}
        self.lock = asyncio.Lock()
        self.bot_task: asyncio.Task | None = None
        self.bot_error: str | None = None
        self.last_sent: dict[WebSocket, str] = {}  # what each socket was last sent
        self.sent: dict[int, int] = {}  # pages sent to each seat (the tests count them)

    async def send(self, ws: WebSocket, message: dict) -> None:
        with contextlib.suppress(Exception):  # a page closed meanwhile: its socket is dropped on exit
            await ws.send_text(encode(message))

    async def send_state(self, seat: int, again: bool = False) -> None:
        """Send the seat's page to its sockets, unless it is what they were last sent (``again``:
        send it anyway). A seat is not even told *that* something changed that it cannot see: the
        moment of a message would give away when another seat chose in secret."""
        assert self.table is not None
        sockets = list(self.sockets.get(seat, ()))
        if sockets:
            message = self.table.message(seat)
            if self.bot_error:
                message["error"] = self.bot_error
            text = encode(message)
            for ws in sockets:
                if again or self.last_sent.get(ws) != text:
                    self.last_sent[ws] = text
                    self.sent[seat] = self.sent.get(seat, 0) + 1
                    with contextlib.suppress(Exception):  # a page closed meanwhile
                        await ws.send_text(text)

    async def broadcast(self) -> None:
        for seat in list(self.sockets):
            await self.send_state(seat)

    def kick_bots(self) -> None:
        if self.table is None or self.bot_error:
            return
        if self.table.bot_to_move() is not None and (self.bot_task is None or self.bot_task.done()):
            self.bot_task = asyncio.get_running_loop().create_task(self.run_bots())

    async def run_bots(self) -> None:
        """Computer seats act one at a time, each after a pause a person can follow."""
        table = self.table
        assert table is not None
        while table.bot_to_move() is not None:
            await asyncio.sleep(self.bot_delay)
            async with self.lock:
                seat = table.bot_to_move()
                if seat is None:
                    return
                try:
                    action = await asyncio.to_thread(table.bot_choice, seat)
                    refused = table.play_bot(seat, action)
                except Exception as err:  # a computer player that cannot choose stops, and says why
                    refused = f"{err}"
                if refused:
                    self.bot_error = f"the {table.agents[seat]} agent of seat {seat + 1} stopped: {refused}"
                    print(printable(f"rulelang serve: {self.bot_error}"), file=sys.stderr)  # rules wrote part of it
                await self.broadcast()
                if refused:
                    return

    async def handle(self, ws: WebSocket, seat: int, text: str | None) -> None:
        table = self.table
        assert table is not None
        if text is None or len(text) > MAX_MESSAGE:
            await self.send(ws, {"type": "refused", "message": "messages are JSON text of at most "
                                                               f"{MAX_MESSAGE} characters"})
            return
        try:
            msg = json.loads(text)
        except (ValueError, RecursionError):
            msg = None
        kind = msg.get("type") if isinstance(msg, dict) else None
        if kind == "act":
            async with self.lock:
                refused = table.act(seat, msg.get("ticket"), msg.get("index"))
                if refused:
                    await self.send(ws, {"type": "refused", "message": refused})
                    await self.send_state(seat, again=True)
                else:
                    await self.broadcast()
            self.kick_bots()
        elif kind == "save":
            async with self.lock:
                try:
                    path = table.save()
                    await self.send(ws, {"type": "saved", "path": path})
                except (OSError, ValueError) as err:
                    await self.send(ws, {"type": "refused", "message": f"the game could not be saved: {err}"})
        elif kind == "refresh":
            await self.send_state(seat, again=True)
        else:
            await self.send(ws, {"type": "refused", "message": "unknown message: send act, save or refresh"})

    async def seat_socket(self, ws: WebSocket) -> None:
        table = self.table
        seat = table.seat_of(ws.path_params["token"]) if table is not None else None
        if seat is None:
            await ws.close(code=4404)
            return
        await ws.accept()
        self.sockets.setdefault(seat, set()).add(ws)
        try:
            await self.send_state(seat)
            self.kick_bots()
            while True:
                event = await ws.receive()
                if event["type"] == "websocket.disconnect":
                    break
                await self.handle(ws, seat, event.get("text"))
        finally:
            self.sockets.get(seat, set()).discard(ws)
            self.last_sent.pop(ws, None)


def _page(ok: bool) -> Response:
    if not ok:
        return PlainTextResponse("No such page: check the URL the server printed.", status_code=404)
    return FileResponse(STATIC / "index.html", media_type="text/html")


class _Headers(BaseHTTPMiddleware):
    async def dispatch(self, request: Request, call_next: Any) -> Response:
        response = await call_next(request)
        for key, value in SECURITY_HEADERS.items():
            response.headers.setdefault(key, value)
        return response


def make_app(table: Table | None = None, replay: Replay | None = None, bot_delay: float = 0.8) -> Starlette:
    """The app for a game being played (``table``) or a log being stepped through (``replay``)."""
    hub = Hub(table, replay, bot_delay)

    async def home(request: Request) -> Response:
        return PlainTextResponse("rulelang serve: open the URL of your seat that the server printed.")

    async def seat_page(request: Request) -> Response:
        return _page(table is not None and table.seat_of(request.path_params["token"]) is not None)

    async def hotseat_page(request: Request) -> Response:
        return _page(table is not None and table.hotseat_seats(request.path_params["token"]) is not None)

    async def hotseat_api(request: Request) -> Response:
        seats = table.hotseat_seats(request.path_params["token"]) if table is not None else None
        if seats is None:
            return JSONResponse({"error": "no such page"}, status_code=404)
        return JSONResponse({"seats": seats})

    def _replay_ok(request: Request) -> bool:
        return replay is not None and request.path_params["token"] == replay.token

    async def replay_page(request: Request) -> Response:
        return _page(_replay_ok(request))

    async def replay_api(request: Request) -> Response:
        if not _replay_ok(request):
            return JSONResponse({"error": "no such page"}, status_code=404)
        assert replay is not None
        try:
            step = int(request.query_params.get("step", "0"))
            seat_text = request.query_params.get("seat", "all")
            seat = None if seat_text == "all" else int(seat_text)
        except ValueError:
            return JSONResponse({"error": "step and seat are numbers (seat may be all)"}, status_code=400)
        message = replay.message(step, seat)
        if message is None:
            return JSONResponse({"error": f"no step {step} for seat {seat_text}: steps go from 0 to "
                                          f"{replay.steps}"}, status_code=400)
        return Response(encode(message), media_type="application/json")

    routes = [
        Route("/", home),
        Route("/seat/{token}", seat_page),
        Route("/hotseat/{token}", hotseat_page),
        Route("/api/hotseat/{token}", hotseat_api),
        Route("/replay/{token}", replay_page),
        Route("/api/replay/{token}", replay_api),
        WebSocketRoute("/ws/{token}", hub.seat_socket),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, middleware=[Middleware(_Headers)])
    app.state.hub = hub
    return app


def listen(host: str, port: int) -> Any:
    """A listening socket on host:port (port 0: any free port), so the printed URLs name the
    real port before the server starts."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(64)
    return sock


def base_url(sock: Any) -> str:
    host, port = sock.getsockname()[:2]
    if host in ("0.0.0.0", "::"):
        host = "127.0.0.1"
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def run(app: Starlette, sock: Any) -> None:
    """Serve until Ctrl-C (uvicorn handles the signal and returns)."""
    import uvicorn

    config = uvicorn.Config(app, log_level="warning", lifespan="off")
    uvicorn.Server(config).run(sockets=[sock])
