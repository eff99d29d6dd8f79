"""A real loopback HTTP server (http.server in a thread on 127.0.0.1) that plays a chat-completions
server: it answers scripted responses, or computes one per request, and keeps every raw body and the
client port it came from. ``serving`` and ``send_json`` are the parts other tests' handlers share."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = tuple[int, dict[str, Any], dict[str, str]]  # status, body, headers


@dataclass
class Loopback:
    base_url: str = ""
    scripted: list[Reply] = field(default_factory=list)
    # Used once the script is exhausted: the request's JSON body -> the response body.
    answer: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    raw: list[bytes] = field(default_factory=list)
    client_ports: list[int] = field(default_factory=list)

    @property
    def requests(self) -> list[dict[str, Any]]:
        return [json.loads(r) for r in self.raw]


def _handler(state: Loopback) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, so connection reuse is visible
        # The headers and the body are two writes: with Nagle the body waited for the client's delayed
        # ACK, 46 ms per request (a serial run of 144 two-turn episodes waited 13 s for nothing).
        disable_nagle_algorithm = True

        def do_POST(self) -> None:
            data = self.rfile.read(int(self.headers["Content-Length"]))
            state.raw.append(data)
            state.client_ports.append(self.client_address[1])
            if state.scripted:
                status, payload, headers = state.scripted.pop(0)
            elif state.answer is not None:
                status, payload, headers = 200, state.answer(json.loads(data)), {}
            else:
                status, payload, headers = 500, {"error": {"message": "script exhausted"}}, {}
            send_json(self, status, payload, headers)

        def log_message(self, *args: Any) -> None:
            pass

    return Handler


def send_json(
    handler: BaseHTTPRequestHandler, status: int, payload: Any, headers: dict[str, str] | None = None
) -> None:
    """Answer ``handler``'s request with ``payload`` as JSON."""
    body = json.dumps(payload).encode()
    handler.send_response(status)
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


class _Server(ThreadingHTTPServer):
    # Episodes in flight connect at once (`sr run --concurrency 32`); the default backlog of 5 would
    # have the kernel reset the rest.
    request_queue_size = 256


@contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """``handler`` on a free loopback port for the block; yields the server's base URL (``.../v1``)."""
    httpd = _Server(("127.0.0.1", 0), handler)
    # A short poll interval: shutdown() waits for the next poll (0.5 s by default), on every test.
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        httpd.shutdown()
        httpd.server_close()


@contextmanager
def loopback(state: Loopback | None = None) -> Iterator[Loopback]:
    state = state or Loopback()
    with serving(_handler(state)) as base_url:
        state.base_url = base_url
        yield state


def final_answer(request: dict[str, Any]) -> dict[str, Any]:
    """A model that answers at once: constrained JSON or plain text, as the request's mode asks."""
    content = '{"action":"final_answer","arguments":{}}' if "response_format" in request else "done"
    return {
        "id": "chatcmpl-loopback",
        "object": "chat.completion",
        "model": request.get("model"),
        "choices": [
            {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }
