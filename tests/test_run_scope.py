"""Scope, episode order, shards and the --conditions/--catalogs/--tasks selectors."""

from __future__ import annotations

import pytest
from run_fake_engine import fake_tasks, full_scope, scoring_spec

from runtime.core.errors import SchemaRouterError
from runtime.run.scope import Shard, select_catalogs, select_conditions, select_tasks

SPEC = scoring_spec()
STRATA = list(zip(SPEC.strata, SPEC.stratum_codes, strict=True))
CONDITIONS = list(zip(SPEC.conditions, SPEC.condition_codes, strict=True))


def test_full_scope_has_2700_unique_episodes_in_catalog_condition_task_order() -> None:
    keys = full_scope().episode_keys()
    assert len(keys) == 2700 == len(set(keys))
    assert keys == sorted(keys, key=lambda k: (k.catalog, SPEC.conditions.index(k.condition), k.task_id))


@pytest.mark.parametrize("n", [1, 2, 3, 4, 7])
def test_shards_partition_the_scope_and_are_balanced(n: int) -> None:
    scope = full_scope()
    shards = [scope.shard_keys(Shard(index=k, count=n)) for k in range(1, n + 1)]
    union = [key for shard in shards for key in shard]
    assert sorted(union) == sorted(scope.episode_keys())
    assert len(union) == len(set(union))
    assert max(map(len, shards)) - min(map(len, shards)) <= 1


def test_shard_parse_rejects_bad_input() -> None:
    assert Shard.parse("2/4") == Shard(index=2, count=4)
    assert Shard.parse(None) == Shard(index=1, count=1)
    for bad in ("0/4", "5/4", "2-4", "a/b"):
        with pytest.raises(SchemaRouterError):
            Shard.parse(bad)


def test_conditions_by_id_or_code_in_spec_order() -> None:
    assert select_conditions("C3,SR-5-STATIC", CONDITIONS) == ("SR-5-STATIC", "SR-5-STATE-AWARE")
    assert select_conditions(None, CONDITIONS) == SPEC.conditions
    with pytest.raises(SchemaRouterError, match="unknown condition"):
        select_conditions("C9", CONDITIONS)


def test_catalogs_ascending_and_only_from_the_spec() -> None:
    assert select_catalogs("500,100", [100, 250, 500]) == (100, 500)
    with pytest.raises(SchemaRouterError):
        select_catalogs("300", [100, 250, 500])


def test_task_filter_strata_and_languages_intersect_ids_add() -> None:
    tasks = fake_tasks()
    chosen = select_tasks("S1,ko", tasks, strata=STRATA, languages=SPEC.languages)
    assert len(chosen) == 6 and all(t.stratum == "two_step_state" and t.language == "ko" for t in chosen)
    chosen = select_tasks("S1,ko,S2-en-00", tasks, strata=STRATA, languages=SPEC.languages)
    assert len(chosen) == 7 and "S2-en-00" in {t.task_id for t in chosen}
    chosen = select_tasks("recoverable_failure", tasks, strata=STRATA, languages=SPEC.languages)
    assert len(chosen) == 36
    with pytest.raises(SchemaRouterError, match="neither a task ID"):
        select_tasks("xx", tasks, strata=STRATA, languages=SPEC.languages)
