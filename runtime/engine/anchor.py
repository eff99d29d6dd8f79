"""The anchor: inspect_ai's ``mockllm`` model, the harness people would otherwise pick, timed in-process.

An inspect_ai eval of ``samples`` samples, each ``turns`` model turns (a solver that calls ``generate``
that many times), against ``mockllm/model``, with sample logs off or on; the CPU of the whole
``eval`` call (``time.process_time``) divided by its model turns. inspect_ai is an optional
dependency (the ``bench`` extra); :func:`inspect_version` says whether it is there.

mockllm's outputs are its default text with token usage already set: without usage, mockllm counts
the prompt with o200k_base, which tiktoken downloads, and nothing may be downloaded here. That spares
inspect_ai one token count per turn, so the ratio errs in its favour. The eval writes its log to a
temporary directory that is deleted afterwards.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class AnchorCost:
    """CPU of one inspect_ai eval."""

    samples: int
    turns: int
    cpu_s: float

    @property
    def turn_ms(self) -> float:
        return 1000.0 * self.cpu_s / self.turns if self.turns else 0.0


def inspect_version() -> str | None:
    """inspect_ai's version, or None when it is not installed."""
    if importlib.util.find_spec("inspect_ai") is None:
        return None
    try:
        return importlib.metadata.version("inspect-ai")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def inspect_mockllm_cost(queries: Sequence[str], *, turns: int, log_samples: bool) -> AnchorCost:
    """One eval of one sample per query, ``turns`` model turns each, against ``mockllm/model``."""
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import get_model

    samples = [Sample(input=q, target="", id=i) for i, q in enumerate(queries, start=1)]
    task = Task(dataset=samples, solver=_turns(turns))
    with tempfile.TemporaryDirectory(prefix="sr-anchor-") as log_dir:
        started = time.process_time()
        logs = inspect_eval(
            task,
            model=get_model("mockllm/model", custom_outputs=_mock_output, memoize=False),
            log_dir=log_dir,
            log_samples=log_samples,
            display="none",
            score=False,
        )
        cpu = time.process_time() - started
        status = {str(getattr(log, "status", "")) for log in logs}
        done = sum(len(log.samples or ()) for log in logs) if log_samples else len(samples)
    if status != {"success"}:
        raise RuntimeError(f"inspect_ai eval did not succeed: {sorted(status)}")
    return AnchorCost(samples=done, turns=done * turns, cpu_s=cpu)


def _mock_output(messages: Any, tools: Any, tool_choice: Any, config: Any) -> Any:
    """mockllm's default output, with usage set so that it counts no tokens (see the module doc)."""
    from inspect_ai.model import ModelOutput, ModelUsage

    output = ModelOutput.from_content(model="mockllm", content="Default output from mockllm/model")
    output.usage = ModelUsage(input_tokens=len(messages), output_tokens=8, total_tokens=len(messages) + 8)
    return output


def _turns(n: int) -> Any:
    from inspect_ai.solver import Generate, TaskState, solver

    @solver  # type: ignore[untyped-decorator, unused-ignore]  # typed when the bench extra is installed
    def model_turns() -> Any:
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            for _ in range(n):
                state = await generate(state)
            return state

        return solve

    return model_turns()
