"""Semantic checks of spec/experiment.yaml and spec/strata.yaml: identity, surface size, bootstrap."""

from __future__ import annotations

from collections.abc import Iterator

from schemarouter.compiler import seed_facts
from schemarouter.compiler.issues import SpecIssue
from schemarouter.compiler.semantic_view import SpecView, duplicates


def check_experiment_identity(view: SpecView) -> Iterator[SpecIssue]:
    """Id, tracking issue, catalog sizes and seed documents are the seed's."""
    experiment = view.data("experiment")
    for key, seed_value in (("id", seed_facts.EXPERIMENT_ID), ("tracking_issue", seed_facts.TRACKING_ISSUE)):
        if experiment[key] != seed_value:
            yield view.issue(
                "experiment", (key,), f"{experiment[key]!r} differs from the seed's {seed_value!r}"
            )
    if tuple(experiment["catalog_sizes"]) != seed_facts.CATALOG_SIZES:
        yield view.issue(
            "experiment",
            ("catalog_sizes",),
            f"{experiment['catalog_sizes']} differs from the seed's {list(seed_facts.CATALOG_SIZES)}",
        )
    roles = [doc["role"] for doc in experiment["provenance"]["seed_documents"]]
    if roles.count("original") != 1:
        yield view.issue(
            "experiment",
            ("provenance", "seed_documents"),
            f"exactly one seed document has role original (found {roles.count('original')})",
            at_key=True,
        )
    yield from duplicates(view, "experiment", ("languages",), experiment["languages"], "code", "language")


def check_bootstrap(view: SpecView) -> Iterator[SpecIssue]:
    """The primary interval is the seed's stratified task-cluster bootstrap."""
    bootstrap = view.data("experiment")["bootstrap"]
    expected = {
        "method": seed_facts.BOOTSTRAP_METHOD,
        "iterations": seed_facts.BOOTSTRAP_ITERATIONS,
        "seed": seed_facts.BOOTSTRAP_SEED,
        "confidence": seed_facts.BOOTSTRAP_CONFIDENCE,
    }
    for key, seed_value in expected.items():
        if bootstrap[key] != seed_value:
            yield view.issue(
                "experiment", ("bootstrap", key), f"{bootstrap[key]!r} differs from the seed's {seed_value!r}"
            )
    if sorted(bootstrap["strata"]) != sorted(seed_facts.BOOTSTRAP_STRATA):
        yield view.issue(
            "experiment",
            ("bootstrap", "strata"),
            f"{bootstrap['strata']} differs from the seed's {list(seed_facts.BOOTSTRAP_STRATA)}",
        )


def check_cell_counts(view: SpecView) -> Iterator[SpecIssue]:
    """tasks_per_cell x strata x languages is the seed's 180 (6 x 5 x 6)."""
    strata = view.data("strata")
    languages = view.data("experiment")["languages"]
    per_cell, n_strata, n_languages = strata["tasks_per_cell"], len(strata["strata"]), len(languages)
    if per_cell != seed_facts.TASKS_PER_CELL:
        yield view.issue(
            "strata", ("tasks_per_cell",), f"{per_cell} differs from the seed's {seed_facts.TASKS_PER_CELL}"
        )
    if n_strata != seed_facts.STRATA_COUNT:
        yield view.issue(
            "strata", ("strata",), f"{n_strata} strata; the seed has {seed_facts.STRATA_COUNT}", at_key=True
        )
    if n_languages != seed_facts.LANGUAGE_COUNT:
        yield view.issue(
            "experiment",
            ("languages",),
            f"{n_languages} languages; the seed has {seed_facts.LANGUAGE_COUNT}",
            at_key=True,
        )
    total = per_cell * n_strata * n_languages
    if total != seed_facts.TOTAL_TASKS:
        yield view.issue(
            "strata",
            ("tasks_per_cell",),
            f"{per_cell} tasks per cell x {n_strata} strata x {n_languages} languages = {total}, "
            f"not the seed's {seed_facts.TOTAL_TASKS} tasks",
        )


def check_strata(view: SpecView) -> Iterator[SpecIssue]:
    """The seed's five strata, unique ids and codes, and error classes the state contract defines."""
    strata = view.data("strata")["strata"]
    yield from duplicates(view, "strata", ("strata",), strata, "id", "stratum")
    yield from duplicates(view, "strata", ("strata",), strata, "code", "stratum code")
    ids = [s["id"] for s in strata]
    for index, stratum_id in enumerate(ids):
        if stratum_id not in seed_facts.STRATUM_IDS:
            yield view.issue(
                "strata", ("strata", index, "id"), f"{stratum_id!r} is not one of the seed's strata"
            )
    for stratum_id in seed_facts.STRATUM_IDS:
        if stratum_id not in ids:
            yield view.issue(
                "strata", ("strata",), f"the seed's stratum {stratum_id!r} is missing", at_key=True
            )
    error_classes = set(view.data("state_contract")["error_classes"])
    for index, stratum in enumerate(strata):
        for e_index, error_class in enumerate(stratum["generation"].get("error_classes", [])):
            if error_class not in error_classes:
                yield view.issue(
                    "strata",
                    ("strata", index, "generation", "error_classes", e_index),
                    f"{error_class!r} is not an error class of the state contract",
                )
