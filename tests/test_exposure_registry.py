"""A new exposure policy kind registers from its own module, with no central table edited: the
compiler's shape checks and the derived enum know it at once, and build_policy builds it."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from compiler.successor import derive_policy_enum
from runtime.core.errors import SchemaRouterError
from runtime.exposure import PolicyInputs, build_policy, get_policy, policy_kinds
from runtime.exposure.registry import BUILTIN_ORDER, unregister_policy
from runtime.spec_model.conditions import ConditionSpec
from schemarouter.project import ProjectPaths

REPO = Path(__file__).resolve().parents[1]

# One module, as a researcher would write it in runtime/exposure/kinds/: a class and its registration.
KIND_MODULE = '''
from pydantic import BaseModel, ConfigDict

from runtime.exposure.policies import HeldExposure
from runtime.exposure.registry import register_policy, needs_initial_k


class RotatedParams(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    skip: int = 0


class Rotated(HeldExposure):
    """The original query's ranking, from rank skip+1 on."""

    def __init__(self, retriever, k, skip):
        self._retriever, self._k, self._skip = retriever, k, skip

    def start(self, query):
        call = self._retriever.rank(query, depth=self._k + self._skip)
        self._exposed = tuple(call.route_ids[self._skip :])
        self._top5 = self._exposed[:5]
        return [call]

    def after_tool_turn(self, task_incomplete, state):
        return []


@register_policy("skip_topk", retrieval_query="original", ranks=True, params=RotatedParams)
def build(condition, inputs, params):
    """The original query's top k after skipping the first few."""
    return Rotated(inputs.static, needs_initial_k(condition), params.skip)
'''


class Call:
    def __init__(self, route_ids: tuple[str, ...]) -> None:
        self.route_ids = route_ids


class Static:
    def rank(self, query: str, depth: int) -> Call:
        return Call(tuple(f"r{i}" for i in range(depth)))


@pytest.fixture
def skip_kind(tmp_path: Path) -> Iterator[str]:
    path = tmp_path / "skip_topk.py"
    path.write_text(KIND_MODULE, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("test_kind_skip_topk", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    yield "skip_topk"
    unregister_policy("skip_topk")
    sys.modules.pop(spec.name, None)


def _condition(**kw: object) -> ConditionSpec:
    base = {"id": "SR-SKIP", "code": "C9", "policy": "skip_topk", "retrieval_query": "original"}
    return ConditionSpec.model_validate({**base, "initial_k": 3, "description": "skip", **kw})


def test_a_kind_from_one_module_is_known_everywhere_the_registry_is_read(skip_kind: str) -> None:
    assert policy_kinds() == (*BUILTIN_ORDER, skip_kind)  # the derived enum grows by itself
    entry = get_policy(skip_kind)
    assert (entry.retrieval_query, entry.ranks, entry.refresh_modes) == ("original", True, ())
    inputs = PolicyInputs(static=Static(), research=None, catalog_route_ids=(), required_route_ids=())  # type: ignore[arg-type]
    policy = build_policy(_condition(params={"skip": 2}), inputs)
    policy.start("q")
    assert policy.exposed == ("r2", "r3", "r4")


def test_the_kinds_params_are_validated_by_its_model(skip_kind: str) -> None:
    inputs = PolicyInputs(static=Static(), research=None, catalog_route_ids=(), required_route_ids=())  # type: ignore[arg-type]
    with pytest.raises(SchemaRouterError, match=r"condition SR-SKIP\.params\.width"):
        build_policy(_condition(params={"width": 2}), inputs)


def test_registering_a_taken_kind_is_refused(skip_kind: str) -> None:
    from runtime.exposure.registry import register_policy

    with pytest.raises(SchemaRouterError, match="registered twice"):
        register_policy("static_topk", retrieval_query="original", ranks=True)(lambda c, i, p: None)  # type: ignore[arg-type,return-value]


def test_after_cleanup_the_registry_is_0_14s_five() -> None:
    assert policy_kinds() == BUILTIN_ORDER
    with pytest.raises(SchemaRouterError, match="unknown exposure policy 'skip_topk'"):
        get_policy("skip_topk")


def _schema_copy(tmp_path: Path) -> tuple[ProjectPaths, Path]:
    paths = ProjectPaths.at(tmp_path)
    paths.schema_dir.mkdir(parents=True)
    target = paths.schema_dir / "conditions.schema.json"
    shutil.copyfile(REPO / "spec" / "0.14" / "schema" / "conditions.schema.json", target)
    return paths, target


def test_a_successors_enum_is_written_from_the_registry(skip_kind: str, tmp_path: Path) -> None:
    paths, target = _schema_copy(tmp_path)
    assert derive_policy_enum(paths) is True
    enum = json.loads(target.read_text(encoding="utf-8"))["properties"]["conditions"]["items"]["properties"]
    assert enum["policy"]["enum"] == [*BUILTIN_ORDER, skip_kind]


def test_an_equal_enum_leaves_the_schema_bytes_alone(tmp_path: Path) -> None:
    paths, target = _schema_copy(tmp_path)
    before = target.read_bytes()
    assert derive_policy_enum(paths) is False
    assert target.read_bytes() == before
