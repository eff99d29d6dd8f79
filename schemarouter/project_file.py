"""``schemarouter.yaml``: the project file that names the default experiment.

Read with the compiler's strict, line-aware loader and checked against
``compiler/schemas/project.schema.json``; a problem is one ``file:line:col: key: message`` line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from runtime.core.errors import SchemaRouterError
from runtime.core.json_value import JSONObject
from schemarouter.project import PROJECT_FILE


@dataclass(frozen=True)
class ProjectFile:
    """The parsed project file."""

    default_experiment: str


def project_schema() -> JSONObject:
    text = resources.files("compiler").joinpath("schemas/project.schema.json").read_text("utf-8")
    schema: JSONObject = json.loads(text)
    return schema


def read_project_file(root: Path) -> ProjectFile:
    """The project file at ``root``; one clear line per problem."""
    from compiler.schema_validation import validate_document
    from compiler.spec_files import read_text
    from compiler.yaml_loader import load_yaml_text

    text, problem = read_text(root / PROJECT_FILE, PROJECT_FILE)
    if text is None:
        raise SchemaRouterError(str(problem))
    loaded = load_yaml_text(text, file=PROJECT_FILE)
    issues = loaded.issues or validate_document(loaded, project_schema())
    if issues:
        raise SchemaRouterError("\n".join(str(issue) for issue in issues))
    return ProjectFile(default_experiment=str(loaded.data["default_experiment"]))


def write_project_file(root: Path, default_experiment: str) -> None:
    """Write a project file naming ``default_experiment``."""
    (root / PROJECT_FILE).write_text(
        "# The SchemaRouter project: the experiment `sr` works on when no --experiment is given.\n"
        "# Experiments are the directories spec/<id>/ (with catalogs/<id>/ and golden/<id>/).\n"
        "project_version: 1\n"
        f'default_experiment: "{default_experiment}"\n',
        encoding="utf-8",
    )
