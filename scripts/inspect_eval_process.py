"""A whole-process inspect_ai eval to set beside a whole `sr run`: SAMPLES samples, each one tool call and
an answer (two model turns) through inspect_ai's tool loop against ``mockllm``, sample logs off.

Run it under ``/usr/bin/time`` and divide the process's CPU (user + sys) by 2 x SAMPLES model turns;
`sr run`'s counterpart is its own process CPU over its model turns (9,409 for 0.14's 2,700 episodes).
mockllm's usage is preset, so nothing is counted or downloaded. Needs the ``bench`` extra.

    /usr/bin/time -f "%e s wall, %U+%S s CPU" .venv/bin/python scripts/inspect_eval_process.py 2700
"""

from __future__ import annotations

import sys
import tempfile
from typing import Any

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import includes
from inspect_ai.solver import generate, use_tools
from inspect_ai.tool import ToolDef, ToolParams


async def lookup(item_id: str) -> str:
    return '{"status": "ok", "fields": [{"name": "status", "value": "online"}]}'


def outputs(messages: Any, tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
    called = any(getattr(m, "role", None) == "tool" for m in messages)
    if called:
        out = ModelOutput.from_content(model="mockllm", content="The device is online.")
    else:
        out = ModelOutput.for_tool_call(model="mockllm", tool_name="lookup", tool_arguments={"item_id": "d1"})
    out.usage = ModelUsage(input_tokens=len(messages), output_tokens=8, total_tokens=len(messages) + 8)
    return out


def main(samples: int) -> None:
    tool = ToolDef(
        lookup,
        name="lookup",
        description="Look an item up by its ID.",
        parameters=ToolParams.model_validate(
            {
                "type": "object",
                "properties": {"item_id": {"type": "string", "description": "The item's ID."}},
                "required": ["item_id"],
                "additionalProperties": False,
            }
        ),
    )
    dataset = [Sample(input=f"Is device {i} online?", target="online", id=i) for i in range(1, samples + 1)]
    task = Task(dataset=dataset, solver=[use_tools(tool), generate()], scorer=includes())
    with tempfile.TemporaryDirectory(prefix="inspect-process-") as log_dir:
        logs = inspect_eval(
            task,
            model=get_model("mockllm/model", custom_outputs=outputs, memoize=False),
            log_dir=log_dir,
            log_samples=False,
            display="none",
        )
    print(f"{samples} samples, {2 * samples} model turns, status {logs[0].status}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2700)
