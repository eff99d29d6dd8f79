"""The HTTP transport of model agents: one ``httpx.Client`` per agent (connections are reused), retries
with full-jitter exponential backoff, and ``Retry-After`` honoured on 429 and 503.

Transport settings (timeout, retries, backoff) say how to reach a server, never what the agent is:
they stay out of the run's identity. The body is posted as the exact bytes it was given (the request's
one serialization), never re-encoded.
"""

from __future__ import annotations

import email.utils
import json
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from schemarouter.errors import SchemaRouterError
from schemarouter.runtime.agents import traffic

# A server asking for more than this is treated as asking for this much (a run should not stall for hours).
MAX_RETRY_AFTER_S = 120.0


class ModelServerError(SchemaRouterError):
    """The model server did not answer usefully after retries (an infrastructure event in a run; one
    line and exit 1 on the command line). ``stops_session`` is set when no attempt could connect: every
    further episode would fail the same way, so a run stops scheduling (runtime/run/outcomes.py) and
    ``--resume`` continues once the server is up. A server that answers badly or slowly does not stop
    the run: that can be one request's trouble."""

    def __init__(self, message: str, *, stops_session: str | None = None) -> None:
        super().__init__(message)
        self.stops_session = stops_session


@dataclass(frozen=True)
class Transport:
    timeout_s: float = 120.0
    retries: int = 3
    backoff_s: float = 1.0


def retry_after_seconds(value: str | None, *, now: float | None = None) -> float | None:
    """``Retry-After`` as seconds: delta-seconds or an HTTP date (RFC 9110 10.2.3); None if absent or
    unreadable."""
    if value is None:
        return None
    text = value.strip()
    if text.isdigit():
        return min(float(text), MAX_RETRY_AFTER_S)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    delta = when.timestamp() - (time.time() if now is None else now)
    return min(max(delta, 0.0), MAX_RETRY_AFTER_S)


def backoff_delay(attempt: int, base_s: float, rng: random.Random) -> float:
    """Full jitter: uniform in [0, base * 2**(attempt-1)] for retry ``attempt`` (1-based)."""
    return rng.uniform(0.0, base_s * 2 ** (attempt - 1))


@dataclass
class ChatClient:
    """POSTs bodies to ``{base_url}/chat/completions`` and returns the JSON object answered.

    Safe to share between the threads of one process (``sr run --concurrency``): ``httpx.Client`` is
    thread-safe and pools connections for all of them; ``post`` returns its own attempt count, so no
    caller reads another thread's attempts off the shared ``calls`` total."""

    base_url: str
    transport: Transport = field(default_factory=Transport)
    api_key: str | None = None
    sleep: Callable[[float], None] = time.sleep
    # Jitter is transport timing only; it never reaches an output.
    rng: random.Random = field(default_factory=random.Random)
    calls: int = 0  # HTTP attempts made, by every thread
    # Connections open and kept alive at most: enough for every episode a process keeps in flight
    # (`sr run --concurrency`, at most 512; httpx's default of 100 would queue the rest).
    max_connections: int = 512
    _client: httpx.Client | None = field(default=None, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    @property
    def url(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"

    def client(self) -> httpx.Client:
        with self._lock:
            if self._client is None:
                headers = {"Content-Type": "application/json"}
                if self.api_key:
                    headers["Authorization"] = f"Bearer {self.api_key}"
                limits = httpx.Limits(
                    max_connections=self.max_connections, max_keepalive_connections=self.max_connections
                )
                self._client = httpx.Client(timeout=self.transport.timeout_s, headers=headers, limits=limits)
            return self._client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def post(self, body: bytes) -> dict[str, Any]:
        return self.post_counted(body)[0]

    def post_counted(self, body: bytes) -> tuple[dict[str, Any], int]:
        """The answer and the number of HTTP attempts this call made."""
        last_error = "no attempt"
        connected = False  # did any attempt reach the server?
        for attempt in range(self.transport.retries + 1):
            with self._lock:
                self.calls += 1
            wait: float | None = None
            try:
                with traffic.request_in_flight():
                    response = self.client().post(self.url, content=body)
            except httpx.TransportError as err:
                traffic.record_error()
                last_error = _transport_error(err)
                connected = connected or not isinstance(err, httpx.ConnectError)
            else:
                connected = True
                if response.status_code == 200:
                    try:
                        data = json.loads(response.content)
                    except (json.JSONDecodeError, UnicodeDecodeError):
                        last_error = "the response is not JSON"
                    else:
                        if isinstance(data, dict):
                            traffic.record_answer(data.get("usage"))
                            return data, attempt + 1
                        last_error = "the response is not a JSON object"
                    traffic.record_error()
                else:
                    traffic.record_error()
                    last_error = f"HTTP {response.status_code}"
                    if response.status_code != 429 and response.status_code < 500:
                        break  # a client error does not heal on retry
                    if response.status_code in (429, 503):
                        wait = retry_after_seconds(response.headers.get("retry-after"))
            if attempt < self.transport.retries:
                self.sleep(
                    wait
                    if wait is not None
                    else backoff_delay(attempt + 1, self.transport.backoff_s, self.rng)
                )
        unreachable = None if connected else f"the model server at {self.url} cannot be reached"
        raise ModelServerError(f"model server at {self.url} failed: {last_error}", stops_session=unreachable)


def _transport_error(err: httpx.TransportError) -> str:
    if isinstance(err, httpx.ConnectError):
        return "cannot connect (is the server running at that address?)"
    if isinstance(err, httpx.TimeoutException):
        return f"timed out ({type(err).__name__})"
    return f"{type(err).__name__}: {err}"
