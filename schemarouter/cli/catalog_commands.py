"""`sr catalog import`: option parsing over schemarouter.application.catalog_import."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from schemarouter.cli.app import app, project_root

catalog_app = typer.Typer(help="Catalogs from your own tools: MCP tools/list, OpenAI tools, OpenAPI 3.")
app.add_typer(catalog_app, name="catalog")


@catalog_app.command("import")
def import_command(
    ctx: typer.Context,
    source: Annotated[Path, typer.Argument(help="The source file (JSON; OpenAPI also YAML).")],
    source_format: Annotated[
        str, typer.Option("--from", help="The source format: mcp, openai or openapi.", show_default=False)
    ],
    out: Annotated[Path, typer.Option("--out", help="The catalog file to write.", show_default=False)],
    domain: Annotated[
        str | None,
        typer.Option(
            help="Domain of routes the source does not place (default: the file name's first part)."
        ),
    ] = None,
    strict: Annotated[
        bool,
        typer.Option(
            "--strict", help="Refuse the import if any operation cannot be held (default: skip it, named)."
        ),
    ] = False,
) -> None:
    """Turn a tool source into a catalog file (route IDs, semantic IDs, side effects derived where absent)."""
    from schemarouter.application.catalog_import import import_catalog

    result = import_catalog(
        project_root(ctx), source_format=source_format, source=source, out=out, domain=domain, strict=strict
    )
    for skipped in result.skipped:
        typer.echo(skipped.line())
    n = result.catalog.size
    typer.echo(
        f"{result.out}: {n} endpoints from {source_format} {source.name} ({result.digest}); derived: "
        f"{result.derived_route_ids}/{n} route IDs, {result.derived_side_effects}/{n} side effects, "
        f"{result.derived_semantic_ids} semantic IDs"
    )
    typer.echo(result.summary())
    hint = result.domain_hint()
    if hint:
        typer.echo(hint)
