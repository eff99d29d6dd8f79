"""The HTTP transport of model agents: one keep-alive connection per thread (``http.client``), retries
with full-jitter exponential backoff, and ``Retry-After`` honoured on 429 and 503.

Transport settings (timeout, retries, backoff) say how to reach a server, never what the agent is:
they stay out of the run's identity. The body is posted as the exact bytes it was given (the request's
one serialization), never re-encoded.
"""

from __future__ import annotations

import email.utils
import http.client
import json
import random
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field

from runtime.agents import request_slots, traffic
from runtime.core.errors import SchemaRouterError
from runtime.core.json_value import JSONObject

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

    Safe to share between the threads of one process (``sr run --concurrency``): each thread keeps its
    own keep-alive connection (standard library ``http.client``), so no request waits on a shared pool
    and nothing is read off another thread's socket; ``post_counted`` returns the call's own attempt
    count. The standard library rather than httpx's pool: with 256 threads in flight httpx's sync
    client spent about 9 ms CPU per request where ``http.client`` spent 0.2 ms (the same 1,024 requests
    to the loopback server of `sr bench serve`; README, "Episodes in flight")."""

    base_url: str
    transport: Transport = field(default_factory=Transport)
    api_key: str | None = None
    sleep: Callable[[float], None] = time.sleep
    # Jitter is transport timing only; it never reaches an output.
    rng: random.Random = field(default_factory=random.Random)
    calls: int = 0  # HTTP attempts made, by every thread
    _local: threading.local = field(default_factory=threading.local, init=False, repr=False)
    _open: list[http.client.HTTPConnection] = field(default_factory=list, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    @property
    def url(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return headers

    def _connection(self) -> http.client.HTTPConnection:
        conn: http.client.HTTPConnection | None = getattr(self._local, "conn", None)
        if conn is None:
            parts = urllib.parse.urlsplit(self.url)
            kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
            conn = kind(parts.hostname or "", parts.port, timeout=self.transport.timeout_s)
            self._local.conn = conn
            with self._lock:
                self._open.append(conn)
        return conn

    def close(self) -> None:
        with self._lock:
            for conn in self._open:
                conn.close()
            self._open.clear()
        self._local = threading.local()

    def _exchange(self, body: bytes) -> tuple[int, bytes, str | None]:
        """One request on this thread's connection: status, body, Retry-After. A kept-alive connection
        the server closed meanwhile is reopened once, without counting as an attempt (as httpx does)."""
        parts = urllib.parse.urlsplit(self.url)
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        for reused in (True, False):
            conn = self._connection()
            fresh = conn.sock is None
            if fresh:
                try:
                    conn.connect()
                except (TimeoutError, OSError) as err:
                    conn.close()
                    raise _ConnectFailed(err) from err
            try:
                conn.request("POST", path, body=body, headers=self._headers())
                response = conn.getresponse()
                data = response.read()
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                conn.close()
                if fresh or not reused:
                    raise
                continue
            except BaseException:
                conn.close()
                raise
            if response.will_close:
                conn.close()
            return response.status, data, response.getheader("retry-after")
        raise AssertionError("unreachable")  # pragma: no cover

    def post(self, body: bytes) -> JSONObject:
        return self.post_counted(body)[0]

    def post_counted(self, body: bytes) -> tuple[JSONObject, int]:
        """The answer and the number of HTTP attempts this call made."""
        last_error = "no attempt"
        connected = False  # did any attempt reach the server?
        for attempt in range(self.transport.retries + 1):
            with self._lock:
                self.calls += 1
            wait: float | None = None
            try:
                with request_slots.slot(), traffic.request_in_flight():
                    status, content, retry_after = self._exchange(body)
            except _ConnectFailed as err:
                traffic.record_error()
                last_error = _transport_error(err.cause, connecting=True)
                connected = connected or isinstance(err.cause, TimeoutError)
            except (TimeoutError, OSError, http.client.HTTPException) as err:
                traffic.record_error()
                last_error = _transport_error(err, connecting=False)
                connected = True
            else:
                connected = True
                if status == 200:
                    try:
                        data = json.loads(content)
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
                    last_error = f"HTTP {status}"
                    if status != 429 and status < 500:
                        break  # a client error does not heal on retry
                    if status in (429, 503):
                        wait = retry_after_seconds(retry_after)
            if attempt < self.transport.retries:
                self.sleep(
                    wait
                    if wait is not None
                    else backoff_delay(attempt + 1, self.transport.backoff_s, self.rng)
                )
        unreachable = None if connected else f"the model server at {self.url} cannot be reached"
        raise ModelServerError(f"model server at {self.url} failed: {last_error}", stops_session=unreachable)


class _ConnectFailed(Exception):
    """Opening the connection failed: nothing reached the server."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.cause = cause


def _transport_error(err: BaseException, *, connecting: bool) -> str:
    if isinstance(err, TimeoutError):
        return f"timed out ({type(err).__name__})"
    if connecting:
        return "cannot connect (is the server running at that address?)"
    return f"{type(err).__name__}: {err}"
