"""Load the generator's inputs: its five spec files (schema-validated) and what it reads of the core specs.

Read: spec/fields.yaml, spec/endpoints.yaml, spec/pools.yaml, spec/intents.yaml, spec/generator.yaml
(each validated by spec/schema/<name>.schema.json), and from spec/experiment.yaml the seeds, languages
and catalog sizes, from spec/strata.yaml the strata and their generation keys, from
spec/state_contract.yaml the error classes and identifier pattern.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema

from compiler.generate.spec_model import (
    EndpointsFile,
    FieldDef,
    GeneratorDef,
    IntentDef,
    PoolDef,
    ResourceDef,
)
from compiler.yaml_loader import load_yaml_text
from runtime.core.errors import SchemaRouterError
from runtime.core.json_value import JSONValue

GENERATOR_SPECS = ("fields", "endpoints", "pools", "intents", "generator")
CORE_SPECS = ("experiment", "strata", "state_contract")


@dataclass(frozen=True)
class StratumInfo:
    id: str
    code: str
    plan_steps: int
    error_classes: tuple[str, ...]
    dimensions: tuple[str, ...]


@dataclass(frozen=True)
class GeneratorInputs:
    fields: dict[str, FieldDef]
    resources: dict[str, ResourceDef]
    endpoints: EndpointsFile
    pools: dict[str, PoolDef]
    intents: tuple[IntentDef, ...]
    generator: GeneratorDef
    languages: tuple[str, ...]
    catalog_sizes: tuple[int, ...]
    seeds: dict[str, int]
    strata: tuple[StratumInfo, ...]
    tasks_per_cell: int
    error_classes: frozenset[str]
    identifier_pattern: str
    source_sha256: dict[str, str]
    # How messages name the intents file: spec/intents.yaml, or the file `sr surface generate` was given.
    intents_file: str = "spec/intents.yaml"


def _read_yaml(path: Path, *, yaml11_booleans: bool = False) -> tuple[JSONValue, str]:
    """A spec file through the strict loader (its first problem is an error), and its bytes' sha256."""
    if not path.exists():
        raise SchemaRouterError(f"{path}: missing; `sr generate` needs it")
    raw = path.read_bytes()
    data = parse_yaml_bytes(raw, display=f"spec/{path.name}", yaml11_booleans=yaml11_booleans)
    return data, hashlib.sha256(raw).hexdigest()


def parse_yaml_bytes(raw: bytes, *, display: str, yaml11_booleans: bool = False) -> JSONValue:
    """YAML bytes through the strict loader; every problem at once, as one error."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise SchemaRouterError(f"{display}: not UTF-8 text: {err.reason}") from None
    loaded = load_yaml_text(text, file=display, yaml11_booleans=yaml11_booleans)
    if loaded.issues:
        raise SchemaRouterError("\n".join(str(issue) for issue in loaded.issues))
    data: JSONValue = loaded.data  # the strict loader's plain data
    return data


SCALAR_READING_LEGACY = "yaml-1.1-booleans"
SCALAR_READING_CORE = "yaml-1.2-core"


def legacy_booleans(spec_dir: Path) -> bool:
    """Whether generation reads YAML 1.1 boolean words as booleans (0.14's known defect): unless
    generator.yaml says ``scalar_reading: yaml-1.2-core``."""
    data, _ = _read_yaml(spec_dir / "generator.yaml")
    return not (isinstance(data, dict) and data.get("scalar_reading") == SCALAR_READING_CORE)


def validate_against(schema_path: Path, data: JSONValue, *, display: str) -> None:
    """Check ``data`` against the JSON Schema at ``schema_path``; the first 20 errors, one line each."""
    if not schema_path.is_file():
        raise SchemaRouterError(f"{schema_path}: missing schema for {display}")
    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    errors = sorted(
        jsonschema.Draft202012Validator(schema).iter_errors(data), key=lambda e: list(e.absolute_path)
    )
    if errors:
        raise SchemaRouterError(
            "\n".join(
                f"{display}: {'.'.join(str(p) for p in e.absolute_path) or '<root>'}: {e.message}"
                for e in errors[:20]
            )
        )


def _validate(spec_dir: Path, name: str, data: JSONValue) -> None:
    validate_against(spec_dir / "schema" / f"{name}.schema.json", data, display=f"spec/{name}.yaml")


def load_inputs(spec_dir: Path) -> GeneratorInputs:
    """Everything generation reads, validated; raises SchemaRouterError with file and path on a problem."""
    raw: dict[str, Any] = {}
    sha: dict[str, str] = {}
    legacy = legacy_booleans(spec_dir)
    for name in GENERATOR_SPECS + CORE_SPECS:
        raw[name], sha[f"spec/{name}.yaml"] = _read_yaml(spec_dir / f"{name}.yaml", yaml11_booleans=legacy)
    for name in GENERATOR_SPECS:
        _validate(spec_dir, name, raw[name])
    experiment, strata, contract = raw["experiment"], raw["strata"], raw["state_contract"]
    try:
        return GeneratorInputs(
            fields={k: FieldDef.model_validate(v) for k, v in raw["fields"]["fields"].items()},
            resources={k: ResourceDef.model_validate(v) for k, v in raw["fields"]["resources"].items()},
            endpoints=EndpointsFile.model_validate(raw["endpoints"]),
            pools={k: PoolDef.model_validate(v) for k, v in raw["pools"]["pools"].items()},
            intents=tuple(IntentDef.model_validate(v) for v in raw["intents"]["intents"]),
            generator=GeneratorDef.model_validate(raw["generator"]),
            languages=tuple(lang["code"] for lang in experiment["languages"]),
            catalog_sizes=tuple(sorted(experiment["catalog_sizes"])),
            seeds=dict(experiment["seeds"]),
            strata=tuple(
                StratumInfo(
                    id=s["id"],
                    code=s["code"],
                    plan_steps=int(s["generation"]["plan_steps"]),
                    error_classes=tuple(s["generation"].get("error_classes", ())),
                    dimensions=tuple(s["generation"].get("dimensions", ())),
                )
                for s in strata["strata"]
            ),
            tasks_per_cell=int(strata["tasks_per_cell"]),
            error_classes=frozenset(contract["error_classes"]),
            identifier_pattern=str(contract["identifier_pattern"]),
            source_sha256={k: v for k, v in sorted(sha.items()) if k[5:-5] in GENERATOR_SPECS},
        )
    except (KeyError, ValueError) as err:
        raise SchemaRouterError(f"spec: cannot read the generator inputs: {err}") from None
