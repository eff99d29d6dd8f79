"""The compiler's JSON logs read what a hand-edited file holds without a traceback (issue #31's typing)."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.canonical import item_digests
from compiler.chained_log import entries_of
from compiler.deviations import read_log
from compiler.pilots import PILOTS
from runtime.core.errors import SchemaRouterError
from runtime.core.json_value import JSONValue
from schemarouter.project import ProjectPaths


def _flat(tmp_path: Path, deviations: str) -> ProjectPaths:
    (tmp_path / "spec").mkdir()
    (tmp_path / "spec" / "deviations.yaml").write_text(deviations, encoding="utf-8")
    return ProjectPaths.at(tmp_path)


@pytest.mark.parametrize("value", ["5", "1.5", "true", "text", "{a: 1}", "null"])
def test_a_deviations_value_that_is_not_a_list_reads_as_no_entries(tmp_path: Path, value: str) -> None:
    assert read_log(_flat(tmp_path, f"deviations: {value}\n")) == []


def test_deviations_entries_are_the_objects_of_the_list(tmp_path: Path) -> None:
    paths = _flat(tmp_path, "deviations:\n  - {change: a, rationale: r}\n  - 3\n  - [x]\n")
    assert read_log(paths) == [{"change": "a", "rationale": "r"}]


@pytest.mark.parametrize("data", [None, 3, "pilots", [], {"pilots": {"run_id": "x"}}])
def test_a_chained_log_without_its_list_is_one_line(data: JSONValue) -> None:
    with pytest.raises(SchemaRouterError, match=r"^spec/pilots.yaml: pilots must be a list$"):
        entries_of(data, "spec/pilots.yaml", PILOTS)


def test_item_digests_take_the_first_unique_string_id_key() -> None:
    items = [{"route_id": "a", "id": 1}, {"route_id": "b", "id": 2}]
    found = item_digests({"other": 1, "endpoints": items})
    assert found is not None and found[0] == "route_id" and sorted(found[1]) == ["a", "b"]
    assert all(len(digest) == 16 for digest in found[1].values())
    duplicated = item_digests([{"route_id": "a", "id": "x"}, {"route_id": "a", "id": "y"}])
    assert duplicated is not None and duplicated[0] == "id" and sorted(duplicated[1]) == ["x", "y"]
    assert item_digests([{"route_id": "a"}, "b"]) is None
    assert item_digests([{"route_id": "a"}, {"route_id": 2}]) is None
