"""The renderers' TypedDicts of report.json stay in step with the Report model, field for field."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from runtime.report import report_data as data
from runtime.scoring import report_model as model

PAIRS: list[tuple[type, type[BaseModel]]] = [
    (data.IntervalData, model.Interval),
    (data.CriterionData, model.Criterion),
    (data.CatalogGateData, model.CatalogGate),
    (data.GateData, model.Gate),
    (data.DifferencesData, model.Differences),
    (data.TasksPerCellData, model.TasksPerCell),
    (data.ScopeData, model.Scope),
    (data.BootstrapData, model.Bootstrap),
    (data.MetricDefinitionData, model.MetricDefinition),
    (data.PilotData, model.Pilot),
    (data.NondeterministicData, model.Nondeterministic),
    (data.ReportData, model.Report),
]


@pytest.mark.parametrize(("typed", "pydantic_model"), PAIRS, ids=[m.__name__ for _, m in PAIRS])
def test_each_typeddict_has_its_models_fields_and_required_ones(
    typed: type, pydantic_model: type[BaseModel]
) -> None:
    fields = pydantic_model.model_fields
    assert set(typed.__annotations__) == set(fields)
    required = {name for name, f in fields.items() if f.is_required()}
    assert set(typed.__required_keys__) == required  # type: ignore[attr-defined]


def test_every_model_of_report_model_has_its_typeddict() -> None:
    models = {
        v
        for v in vars(model).values()
        if isinstance(v, type) and issubclass(v, BaseModel) and v.__module__ == model.__name__
    }
    assert models == {m for _, m in PAIRS}
