"""The loopback model server of `sr bench serve`: a real HTTP server on 127.0.0.1 (uvicorn, one ASGI
callable, no framework) that answers OpenAI chat-completions requests after a set latency.

Every answer is the scripted final answer (``{"action":"final_answer","arguments":{}}`` when the
request asks for a JSON response format, plain text otherwise), so each episode is one model turn.
``--jitter`` adds a uniform delay in [0, jitter]; ``--error-rate`` answers that share of requests with
HTTP 503 and ``Retry-After: 0`` (the client retries); both draw from one RNG seeded by ``--seed``.

It measures what the bench reports as occupancy: the time-weighted mean of requests in flight over the
window from the first request's arrival to the last answer (``GET /stats``; ``POST /stats/reset``
starts a new window). ``GET /stats/timeline`` gives every change of the count in that window (seconds
since the first arrival, requests in flight after it; at most ``MAX_TIMELINE`` changes), from which the
bench tells where occupancy was lost (``bench_occupancy.py``). Run it as
``python -m schemarouter.application.bench_server --port 0``: it prints ``port N`` on stdout once it
listens.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import socket
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypedDict

from runtime.core.json_value import JSONObject, JSONValue

# ASGI's own messages (deliberately Any: the ASGI spec's dicts, as uvicorn hands them in).
Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


BACKLOG = 4096  # connections the listening socket queues (a run at N = 1024 connects at once)
MAX_TIMELINE = 1_000_000  # changes kept for /stats/timeline (two per request); later ones are dropped


class Timeline(TypedDict):
    """``GET /stats/timeline``: (seconds since the first arrival, requests in flight after the change)."""

    events: list[tuple[float, int]]
    truncated: bool


class ServerStats(TypedDict):
    """``GET /stats``: the requests answered and refused, the peak and the time-weighted mean in flight."""

    requests: int
    errors: int
    peak_in_flight: int
    window_s: float
    mean_in_flight: float


@dataclass
class Occupancy:
    """Requests in flight over time: their time-weighted mean over the busy window."""

    in_flight: int = 0
    peak: int = 0
    requests: int = 0
    errors: int = 0
    _area: float = 0.0
    _since: float = 0.0
    _first: float | None = None
    _last: float | None = None
    _events: list[tuple[float, int]] = field(default_factory=list)
    _truncated: bool = False

    def change(self, delta: int) -> None:
        now = time.perf_counter()
        if self._first is None:
            self._first = self._since = now
        self._area += self.in_flight * (now - self._since)
        self._since = now
        self.in_flight += delta
        self.peak = max(self.peak, self.in_flight)
        if delta < 0:
            self._last = now
        if len(self._events) < MAX_TIMELINE:
            self._events.append((now - self._first, self.in_flight))
        else:
            self._truncated = True

    def timeline(self) -> Timeline:
        return {"events": list(self._events), "truncated": self._truncated}

    def stats(self) -> ServerStats:
        window = (self._last - self._first) if self._first is not None and self._last is not None else 0.0
        return {
            "requests": self.requests,
            "errors": self.errors,
            "peak_in_flight": self.peak,
            "window_s": window,
            "mean_in_flight": self._area / window if window > 0 else 0.0,
        }


@dataclass
class ScriptedServer:
    latency_s: float
    jitter_s: float = 0.0
    error_rate: float = 0.0
    seed: int = 0
    occupancy: Occupancy = field(default_factory=Occupancy)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        body = await _body(receive)
        path = scope["path"]
        if path.endswith("/stats/timeline"):
            await _json(send, 200, self.occupancy.timeline())
            return
        if path.endswith("/stats"):
            if scope["method"] == "POST":
                self.occupancy = Occupancy()
            await _json(send, 200, self.occupancy.stats())
            return
        if not path.endswith("/chat/completions"):
            await _json(send, 404, {"error": {"message": f"no route {path}"}})
            return
        self.occupancy.change(+1)
        try:
            delay = self.latency_s + (self._rng.uniform(0.0, self.jitter_s) if self.jitter_s else 0.0)
            fail = self.error_rate > 0 and self._rng.random() < self.error_rate
            await asyncio.sleep(delay)
            if fail:
                self.occupancy.errors += 1
                await _json(send, 503, {"error": {"message": "scripted error"}}, retry_after="0")
                return
            self.occupancy.requests += 1
            await _json(send, 200, scripted_answer(json.loads(body or b"{}")))
        finally:
            self.occupancy.change(-1)


def scripted_answer(request: JSONObject) -> JSONObject:
    """The final answer at once, in the form the request's mode reads."""
    constrained = "response_format" in request
    content = '{"action":"final_answer","arguments":{}}' if constrained else "done"
    return {
        "id": "chatcmpl-bench",
        "object": "chat.completion",
        "created": 0,
        "model": request.get("model", "scripted"),
        "choices": [
            {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}
        ],
        "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
    }


async def _body(receive: Receive) -> bytes:
    chunks = []
    while True:
        message = await receive()
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(chunks)


async def _json(
    send: Send, status: int, payload: JSONValue | ServerStats | Timeline, retry_after: str | None = None
) -> None:
    body = json.dumps(payload).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if retry_after is not None:
        headers.append((b"retry-after", retry_after.encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


def listening_socket(port: int) -> socket.socket:
    """The loopback server's socket on ``port`` (0: any free one), bound and ready for uvicorn.

    proto IPPROTO_TCP, not 0: accepted sockets inherit it, and asyncio sets TCP_NODELAY only on a socket
    whose proto says TCP. Without it each answer's body waited behind its headers for the client's
    delayed ACK (Nagle): 44 ms per request on loopback, against 0.8 ms with it.

    It listens before the port is announced: a client that connects between the announcement and
    uvicorn's start waits in the backlog instead of being refused (a bound socket that does not listen
    yet refuses connections)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(BACKLOG)
    return sock


def main(argv: list[str] | None = None) -> None:
    import uvicorn

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=1.0)
    parser.add_argument("--jitter", type=float, default=0.0)
    parser.add_argument("--error-rate", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    app = ScriptedServer(args.latency, args.jitter, args.error_rate, args.seed)
    sock = listening_socket(args.port)
    print(f"port {sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(
        app, log_level="warning", backlog=BACKLOG, timeout_keep_alive=60, access_log=False
    )
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main(sys.argv[1:])
