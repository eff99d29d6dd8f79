"""The checked-in JSON Schemas of the serialized formats, generated from their models.

One command writes them (``sr schemas --update``) and one test checks them (``sr schemas`` exits 1 when
a file differs from its model): the models are the one statement of each format, and the schema files
are what other tools read.

| file | format | model |
| --- | --- | --- |
| runtime/spec_model/compiled_manifest.schema.json | build/<id>/compiled.json | CompiledSpec |
| runtime/spec_model/freeze_lock.schema.json | spec/<id>/freeze.lock | FreezeLock |
| runtime/engine/trace.schema.json | an episode's trace (store, --json) | EpisodeTrace |
| runtime/simulator/expression.schema.json | an endpoint behavior's expressions | expressions.KINDS |
"""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib import resources
from pathlib import Path

from pydantic import BaseModel

from runtime.core.atomic_write import write_text_atomic
from runtime.core.json_value import JSONObject
from runtime.core.registry import Registry

DRAFT = "https://json-schema.org/draft/2020-12/schema"


def _model_schema(model: type[BaseModel], origin: str) -> JSONObject:
    schema = model.model_json_schema(mode="serialization")
    schema["$schema"] = DRAFT
    schema["$comment"] = f"Generated from {origin}; do not edit. Regenerate with: sr schemas --update"
    return schema


def _compiled() -> JSONObject:
    from runtime.spec_model.compiled import manifest_json_schema

    return manifest_json_schema()


def _lock() -> JSONObject:
    from runtime.spec_model.lock import FreezeLock

    return _model_schema(FreezeLock, "runtime.spec_model.lock.FreezeLock")


def _trace() -> JSONObject:
    from runtime.engine.trace import EpisodeTrace

    return _model_schema(EpisodeTrace, "runtime.engine.trace.EpisodeTrace")


def _expression() -> JSONObject:
    from runtime.simulator.expressions import expression_schema

    return expression_schema()


# Each generated schema by its file (``package:name``): a closed kind, the project's own formats.
SCHEMAS: Registry[Callable[[], JSONObject]] = Registry("schema", group=None)
for _file, _build in (
    ("runtime:spec_model/compiled_manifest.schema.json", _compiled),
    ("runtime:spec_model/freeze_lock.schema.json", _lock),
    ("runtime:engine/trace.schema.json", _trace),
    ("runtime:simulator/expression.schema.json", _expression),
):
    SCHEMAS.add(_file, _build, module=__name__)


def _schema_files() -> list[tuple[str, str, Callable[[], JSONObject]]]:
    files = []
    for entry in SCHEMAS.entries():
        package, name = entry.name.split(":", 1)
        files.append((package, name, entry.value))
    return files


def schema_text(schema: JSONObject) -> str:
    return json.dumps(schema, sort_keys=True, ensure_ascii=False, indent=2) + "\n"


def schema_path(package: str, name: str) -> Path:
    return Path(str(resources.files(package).joinpath(name)))


def stale_schemas() -> list[Path]:
    """The schema files that differ from their models (missing ones included)."""
    stale = []
    for package, name, build in _schema_files():
        path = schema_path(package, name)
        if not path.is_file() or path.read_text(encoding="utf-8") != schema_text(build()):
            stale.append(path)
    return stale


def update_schemas() -> list[Path]:
    """Rewrite every stale schema file; the paths written."""
    written = []
    for package, name, build in _schema_files():
        path, text = schema_path(package, name), schema_text(build())
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            write_text_atomic(path, text)
            written.append(path)
    return written


def load_schema(package: str, name: str) -> JSONObject:
    data: JSONObject = json.loads(schema_path(package, name).read_text(encoding="utf-8"))
    return data
