"""The model-server options `sr run` and `sr episode` share (openai agent), parsed into agent options.

Identity options (model, sampling, constrained decoding, server template) become part of a run's
identity (runtime/run/request.py IDENTITY_OPTIONS); transport options (base URL, cache, retries and
backoff) do not: they say how the server is reached, not what the agent is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from runtime.core.json_value import JSONScalar

BaseUrlOpt = Annotated[
    str | None, typer.Option(help="openai agent: the server's base URL (default: spec/agent.yaml).")
]
ModelOpt = Annotated[str | None, typer.Option(help="openai agent: the model name to request.")]
ConstrainedOpt = Annotated[
    bool | None,
    typer.Option(
        "--constrained-decoding/--native-tools",
        help="openai agent: the prompt as text with the tools in the system message and a JSON schema "
        "with one branch per exposed tool (models without native tool calling), or native tool calls.",
    ),
]
ModelCacheOpt = Annotated[
    Path | None,
    typer.Option(help="openai agent: SQLite cache of model calls (default: runs/model-calls.sqlite)."),
]
NoCacheOpt = Annotated[
    bool,
    typer.Option("--no-cache", help="openai agent: call the server every time; read and write no cache."),
]
MaxTokensOpt = Annotated[
    int | None, typer.Option(min=1, help="openai agent: max_tokens per call (default: spec/agent.yaml).")
]
TemperatureOpt = Annotated[
    float | None, typer.Option(min=0.0, help="openai agent: sampling temperature (default: spec/agent.yaml).")
]
TopPOpt = Annotated[
    float | None, typer.Option(min=0.0, max=1.0, help="openai agent: top_p (default: not sent).")
]
SeedOpt = Annotated[
    int | None, typer.Option(help="openai agent: sampling seed of epoch 1 (default: spec/agent.yaml).")
]
ServerTemplateOpt = Annotated[
    str | None,
    typer.Option(
        help="openai agent: the server's chat template (e.g. llama.cpp's chatml-function-calling), so the "
        "run works around what it drops and records what the model cannot see."
    ),
]
ServerIdOpt = Annotated[
    str | None,
    typer.Option(
        help="openai agent: the server's name in the model-call cache instead of its base URL (for a server "
        "that comes back on another port)."
    ),
]
RetriesOpt = Annotated[
    int | None,
    typer.Option(min=0, help="openai agent: retries of a failed call (default: spec/agent.yaml)."),
]
BackoffOpt = Annotated[
    float | None,
    typer.Option(
        min=0.0,
        help="openai agent: base seconds of the jittered exponential backoff between retries "
        "(default: spec/agent.yaml); a server's Retry-After wins.",
    ),
]
ResultsAsTextOpt = Annotated[
    bool | None,
    typer.Option(
        "--tool-results-as-text/--tool-results-as-tool",
        help="openai agent, native tools: carry tool results as user text, for templates without role tool.",
    ),
]


# `sr run` and `sr episode` take these, as one group (cli/option_groups.py).
MODEL_OPTIONS: tuple[tuple[str, Any, Any], ...] = (
    ("base_url", BaseUrlOpt, None),
    ("model", ModelOpt, None),
    ("constrained_decoding", ConstrainedOpt, None),
    ("model_cache", ModelCacheOpt, None),
    ("no_cache", NoCacheOpt, False),
    ("max_tokens", MaxTokensOpt, None),
    ("temperature", TemperatureOpt, None),
    ("top_p", TopPOpt, None),
    ("seed", SeedOpt, None),
    ("server_template", ServerTemplateOpt, None),
    ("server_id", ServerIdOpt, None),
    ("tool_results_as_text", ResultsAsTextOpt, None),
    ("retries", RetriesOpt, None),
    ("backoff", BackoffOpt, None),
)


def model_options(
    params: dict[str, Any], *, default_cache: Path, project_root: Path
) -> dict[str, JSONScalar]:
    """The MODEL_OPTIONS of a command's parsed ``params`` as the agent's options (None: agent.yaml's);
    a ``--model-cache`` the user names passes the output guard (it is a file sr writes)."""
    from schemarouter.output_guard import output_guard

    p = params
    if p["model_cache"] is not None:
        output_guard(project_root).file(p["model_cache"], option="--model-cache")
    return {
        "base_url": p["base_url"],
        "model": p["model"],
        "constrained_decoding": p["constrained_decoding"],
        "cache_path": str(p["model_cache"] or default_cache),
        "no_cache": p["no_cache"] or None,
        "max_tokens": p["max_tokens"],
        "temperature": p["temperature"],
        "top_p": p["top_p"],
        "seed": p["seed"],
        "server_template": p["server_template"],
        "tool_results_as_text": p["tool_results_as_text"],
        "server_id": p["server_id"],
        "retries": p["retries"],
        "backoff_s": p["backoff"],
    }
