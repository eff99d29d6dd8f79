"""`sr episode`: run one episode and print a readable trace."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from schemarouter.cli.app import ExperimentOpt, SurfaceFileOpt, SurfaceOpt, app, paths
from schemarouter.cli.model_options import MODEL_OPTIONS, model_options
from schemarouter.cli.option_groups import OptionGroup, with_options
from schemarouter.output_guard import output_guard

TaskArg = Annotated[str, typer.Argument(help="Task ID from the surface, e.g. S1-en-01.")]
EPISODE_OPTIONS: OptionGroup = (
    (
        "condition",
        Annotated[
            str | None,
            typer.Option(
                help="Condition ID or code from the experiment's conditions.yaml (default: the treatment)."
            ),
        ],
        None,
    ),
    ("catalog", Annotated[int, typer.Option(help="Catalog size: 100, 250 or 500.")], 100),
    ("agent", Annotated[str, typer.Option(help="Agent: reference, adversarial or openai.")], "reference"),
    (
        "tokenizer_json",
        Annotated[
            Path | None, typer.Option(help="Count tokens with this Hugging Face tokenizer.json instead.")
        ],
        None,
    ),
    (
        "json_out",
        Annotated[Path | None, typer.Option("--json", help="Also write the full trace JSON here.")],
        None,
    ),
)
WHERE_OPTIONS: OptionGroup = (
    ("surface", SurfaceOpt, None),
    ("surface_file", SurfaceFileOpt, None),
    ("experiment", ExperimentOpt, None),
)


@app.command()
@with_options(EPISODE_OPTIONS, MODEL_OPTIONS, WHERE_OPTIONS)
def episode(ctx: typer.Context, task_id: TaskArg, **o: Any) -> None:
    """Run one episode and print its trace: exposure, retrieval calls, decisions, gate, results, state."""
    from schemarouter.application.episode import EpisodeRequest, show_episode
    from schemarouter.application.surfaces import choose_surface

    project = paths(ctx, o["experiment"])
    inputs = [p for p in (o["tokenizer_json"], o["surface_file"]) if p is not None]
    guard = output_guard(project.root, sources=inputs)
    if o["json_out"] is not None:
        guard.file(o["json_out"], option="--json")
    chosen = choose_surface(project, surface=o["surface"], surface_file=o["surface_file"])
    tokenizer = str(o["tokenizer_json"]) if o["tokenizer_json"] else None
    options = model_options(
        o, default_cache=project.runs_dir / "model-calls.sqlite", project_root=project.root
    )
    request = EpisodeRequest(
        task_id, o["condition"], o["catalog"], o["agent"], tokenizer, chosen.file, options
    )
    text = show_episode(project, request, chosen.pilot.name if chosen.pilot else None)
    if o["json_out"] is not None:
        guard.write_text(o["json_out"], text, option="--json")
