"""``schemarouter.yaml``: the project file that names the default experiment.

Read with the compiler's strict, line-aware loader and checked against
``compiler/schemas/project.schema.json``; a problem is one ``file:line:col: key: message`` line.

A file of the plain form every project file has (the two required keys and an optional rationale, of
the types and pattern the schema sets) is taken without loading jsonschema, whose import is about a
tenth of a second of every command's start: ``_plainly_valid`` accepts only documents the schema
accepts (tests/test_project_file_fast_path.py holds it to the schema). Anything else goes to the schema,
which decides and words the problem.
"""

from __future__ import annotations

import json
import re
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


# The schema's experiment id pattern, matched whole (the schema's ``$`` would also let a final newline
# through, which sends such an id to the schema instead).
_EXPERIMENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_REQUIRED = frozenset({"project_version", "default_experiment"})
_ALLOWED = _REQUIRED | {"rationale"}


def _plainly_valid(data: object) -> bool:
    """Whether ``data`` is a project file the schema surely accepts: exactly its keys, ``1`` as an int
    (not a bool or a float), the id a whole match of its pattern, a string rationale if any."""
    if not isinstance(data, dict) or not _REQUIRED <= data.keys() <= _ALLOWED:
        return False
    version, experiment = data["project_version"], data["default_experiment"]
    return (
        type(version) is int
        and version == 1
        and type(experiment) is str
        and _EXPERIMENT_ID.fullmatch(experiment) is not None
        and type(data.get("rationale", "")) is str
    )


def read_project_file(root: Path) -> ProjectFile:
    """The project file at ``root``; one clear line per problem."""
    from compiler.spec_files import read_text
    from compiler.yaml_loader import load_yaml_text

    text, problem = read_text(root / PROJECT_FILE, PROJECT_FILE)
    if text is None:
        raise SchemaRouterError(str(problem))
    loaded = load_yaml_text(text, file=PROJECT_FILE)
    if not loaded.issues and _plainly_valid(loaded.data):
        return ProjectFile(default_experiment=str(loaded.data["default_experiment"]))
    from compiler.schema_validation import validate_document

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
