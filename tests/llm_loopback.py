"""A real loopback HTTP server (http.server in a thread on 127.0.0.1) that plays a chat-completions
server: it answers scripted responses, or computes one per request, and keeps every raw body and the
client port it came from."""

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
            body = json.dumps(payload).encode()
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    return Handler


@contextmanager
def loopback(state: Loopback | None = None) -> Iterator[Loopback]:
    state = state or Loopback()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    # A short poll interval: shutdown() waits for the next poll (0.5 s by default), on every test.
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    state.base_url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()


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
