"""The import rules ARCHITECTURE.md states, checked on the source tree.

Every module's imports (module-level and inside functions alike) are read with ``ast``. Areas are
layered: an area may import only areas of a lower layer or its own. The nevers are checked apart, so a
failure names the rule it breaks. And the checked-in JSON Schemas describe real files.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from schemarouter.application.schemas import load_schema

REPO = Path(__file__).resolve().parents[1]

# Layers, lowest first (ARCHITECTURE.md, "Packages and what each may import").
LAYERS: tuple[tuple[str, ...], ...] = (
    ("runtime.core", "runtime.documents", "schemarouter"),
    ("schemarouter.project", "schemarouter.project_file", "schemarouter.output_guard"),
    ("runtime.catalog", "runtime.tokens"),
    ("runtime.simulator",),
    ("runtime.state", "runtime.authorization", "runtime.surface"),
    ("runtime.retrieval", "runtime.spec_model", "runtime"),
    ("runtime.exposure", "runtime.agents"),
    ("runtime.engine",),
    ("runtime.run",),
    ("runtime.scoring",),
    ("runtime.diagnostics", "runtime.report", "runtime.analysis"),
    ("compiler", "compiler.generate"),
    ("schemarouter.application",),
    ("schemarouter.api",),
    ("schemarouter.cli",),
)
# Imports that cross the layers the other way, each with the reason it is allowed.
ALLOWED_UPWARD = {
    # The package's public face (``import schemarouter as sr; sr.run(...)``) re-exports the library
    # functions lazily (PEP 562 __getattr__), so importing any other module never loads them.
    ("schemarouter", "schemarouter.api"),
    # The project file is read with the compiler's strict loader (a function-level import).
    ("schemarouter.project_file", "compiler"),
    # The run area drives the engine through its EpisodeEngine port; the metrics audit the engine hands
    # to scoring reads the run store's record type. (One of the two goes when the audit moves.)
    ("runtime.engine", "runtime.run"),
}
LAYER_OF = {area: index for index, areas in enumerate(LAYERS) for area in areas}


def _module_name(path: Path) -> str:
    rel = path.relative_to(REPO).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _modules() -> Iterator[tuple[str, Path]]:
    for top in ("schemarouter", "compiler", "runtime"):
        for path in sorted((REPO / top).rglob("*.py")):
            yield _module_name(path), path


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def _area(module: str) -> str:
    best = max((a for a in LAYER_OF if module == a or module.startswith(a + ".")), key=len, default="")
    return best


MODULES = dict(_modules())
IMPORTS = {name: _imports(path) for name, path in MODULES.items()}


def _target(name: str) -> str | None:
    """The schemarouter module an imported name is (or is a member of); None for other packages."""
    if name in MODULES:
        return name
    parent = name.rsplit(".", 1)[0]
    return parent if parent in MODULES else None


def _edges(imports: dict[str, set[str]] = IMPORTS) -> set[tuple[str, str, str]]:
    """(importing module, its area, imported area) for every import of a schemarouter module."""
    edges = set()
    for module, imported in imports.items():
        for name in imported:
            target = _target(name)
            if target is not None:
                edges.add((module, _area(module), _area(target)))
    return edges


def test_every_module_has_an_area() -> None:
    assert [m for m in MODULES if not _area(m)] == []


def _upward(edges: set[tuple[str, str, str]]) -> list[str]:
    return sorted(
        f"{module} imports {target}"
        for module, area, target in edges
        if target != area and LAYER_OF[target] > LAYER_OF[area] and (area, target) not in ALLOWED_UPWARD
    )


def test_areas_import_only_lower_layers() -> None:
    assert _upward(_edges()) == []


def test_an_upward_import_fails_the_layer_check(tmp_path: Path) -> None:
    """The check is not vacuous: the state contract's guard importing the episode engine is refused."""
    source = tmp_path / "guard.py"
    source.write_text("from runtime.engine import episode\n", encoding="utf-8")
    edges = _edges({"runtime.state.guard": _imports(source)})
    assert _upward(edges) == ["runtime.state.guard imports runtime.engine"]


def _reaches(source_prefix: str, *forbidden: str) -> list[str]:
    return sorted(
        f"{module} imports {target}"
        for module, imported in IMPORTS.items()
        if module == source_prefix or module.startswith(source_prefix + ".")
        for target in imported
        if any(target == f or target.startswith(f + ".") for f in forbidden)
    )


def test_retrieval_never_reaches_generation_or_hidden_task_data() -> None:
    assert _reaches("runtime.retrieval", "compiler", "runtime.surface") == []


def test_policy_never_reaches_retrieval() -> None:
    assert _reaches("runtime.authorization", "runtime.retrieval", "runtime.exposure") == []


def test_the_compiler_never_reaches_the_engine_or_the_run() -> None:
    forbidden = [f"runtime.{area}" for area in ("engine", "run", "scoring", "report", "agents", "exposure")]
    # The compiler reads the exposure registry (kinds and the shape each declares), as it reads the
    # strategy registry; it never builds or drives a policy (issue #25).
    reads_registry = "runtime.exposure.registry"
    found = _reaches("compiler", *forbidden)
    assert [line for line in found if reads_registry not in line.split(" imports ")[1]] == []


def test_nothing_reaches_the_cli() -> None:
    outside = [
        f"{module} imports {target}"
        for module, imported in IMPORTS.items()
        if not module.startswith("schemarouter.cli") and module != "schemarouter.application.llm_smoke"
        for target in imported
        if target.startswith("schemarouter.cli")
    ]
    assert outside == []


def test_the_runtime_never_imports_networkx_or_the_compiler() -> None:
    assert _reaches("runtime", "networkx", "compiler") == []


def test_the_runtime_knows_no_project_layout() -> None:
    # Paths are resolved by the application layer and handed in (catalogs_dir, a LockLocation).
    assert (
        _reaches(
            "runtime",
            "schemarouter.project",
            "schemarouter.project_file",
            "schemarouter.output_guard",
        )
        == []
    )


def test_paths_named_for_output_go_through_the_output_guard() -> None:
    # schemarouter/output_guard.py is the one check of a path the user names for output; the bare file
    # checks of atomic_write are its parts, never called around it.
    bare = {"runtime.core.atomic_write.check_output_file", "runtime.core.atomic_write.write_output_file"}
    callers = sorted(m for m, names in IMPORTS.items() if names & bare)
    assert callers == []


def test_the_lock_and_a_trace_match_their_schemas(tmp_path: Path) -> None:
    lock = json.loads((REPO / "spec" / "0.14" / "freeze.lock").read_text(encoding="utf-8"))
    assert (
        list(
            Draft202012Validator(load_schema("runtime", "spec_model/freeze_lock.schema.json")).iter_errors(
                lock
            )
        )
        == []
    )
    from typer.testing import CliRunner

    from schemarouter.cli.app import app

    out = tmp_path / "trace.json"
    result = CliRunner().invoke(
        app,
        [
            "--project-dir",
            str(REPO),
            "episode",
            "S3-en-01",
            "--condition",
            "SR-5-STATE-AWARE",
            "--json",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    trace = json.loads(out.read_text(encoding="utf-8"))
    schema = load_schema("runtime", "engine/trace.schema.json")
    assert list(Draft202012Validator(schema).iter_errors(trace)) == []
    trace["turns"] = "not a list"
    assert list(Draft202012Validator(schema).iter_errors(trace)) != []


@pytest.mark.parametrize("readme", ["ARCHITECTURE.md"])
def test_architecture_names_every_area(readme: str) -> None:
    text = (REPO / readme).read_text(encoding="utf-8")
    for area in LAYER_OF:
        short = area.removeprefix("schemarouter.") if area != "schemarouter" else "schemarouter"
        assert f"`{short}`" in text, f"{readme} does not name {short}"
