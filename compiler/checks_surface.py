"""Semantic checks of experiment.yaml and strata.yaml against the protocol: identity, surface, bootstrap."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from compiler.issues import SpecIssue
from compiler.protocol_file import protocol_of
from compiler.semantic_view import SpecView, duplicates

# The problems this module reports, by stable code (tests/cases/validation/<code>.yaml shows each).
PROBLEMS: Final[dict[str, str]] = {
    "SU101": "… differs from the protocol's …",
    "SU102": "… differs from the protocol's …",
    "SU103": "exactly one seed document has role original (found …)",
    "SU104": "… differs from the protocol's …",
    "SU105": "… differs from the protocol's …",
    "SU106": "… differs from the protocol's …",
    "SU107": "… strata; the protocol has …",
    "SU108": "… languages; the protocol has …",
    "SU109": "… tasks per cell x … strata x … languages = …, not the protocol's … tasks",
    "SU110": "… is not one of the protocol's strata",
    "SU111": "the protocol's stratum … is missing",
    "SU112": "… is not an error class of the state contract",
}


def check_experiment_identity(view: SpecView) -> Iterator[SpecIssue]:
    """Id, tracking issue and catalog sizes are the protocol's; one seed document is the original."""
    experiment = view.data("experiment")
    protocol = protocol_of(view)
    for key, value in (("id", protocol.experiment_id), ("tracking_issue", protocol.tracking_issue)):
        if experiment[key] != value:
            yield view.issue(
                "experiment",
                (key,),
                f"{experiment[key]!r} differs from the protocol's {value!r}",
                code="SU101",
            )
    if list(experiment["catalog_sizes"]) != protocol.catalog_sizes:
        yield view.issue(
            "experiment",
            ("catalog_sizes",),
            f"{experiment['catalog_sizes']} differs from the protocol's {protocol.catalog_sizes}",
            code="SU102",
        )
    roles = [doc["role"] for doc in experiment["provenance"]["seed_documents"]]
    if roles.count("original") != 1:
        yield view.issue(
            "experiment",
            ("provenance", "seed_documents"),
            f"exactly one seed document has role original (found {roles.count('original')})",
            at_key=True,
            code="SU103",
        )
    yield from duplicates(view, "experiment", ("languages",), experiment["languages"], "code", "language")


def check_bootstrap(view: SpecView) -> Iterator[SpecIssue]:
    """The primary interval is the protocol's bootstrap."""
    bootstrap = view.data("experiment")["bootstrap"]
    expected = protocol_of(view).bootstrap
    for key in ("method", "iterations", "seed", "confidence"):
        if bootstrap[key] != expected[key]:
            yield view.issue(
                "experiment",
                ("bootstrap", key),
                f"{bootstrap[key]!r} differs from the protocol's {expected[key]!r}",
                code="SU104",
            )
    if sorted(bootstrap["strata"]) != sorted(expected["strata"]):
        yield view.issue(
            "experiment",
            ("bootstrap", "strata"),
            f"{bootstrap['strata']} differs from the protocol's {list(expected['strata'])}",
            code="SU105",
        )


def check_cell_counts(view: SpecView) -> Iterator[SpecIssue]:
    """tasks_per_cell x strata x languages is the protocol's surface (0.14: 6 x 5 x 6 = 180)."""
    strata = view.data("strata")
    surface = protocol_of(view).surface
    languages = view.data("experiment")["languages"]
    per_cell, n_strata, n_languages = strata["tasks_per_cell"], len(strata["strata"]), len(languages)
    if per_cell != surface["tasks_per_cell"]:
        yield view.issue(
            "strata",
            ("tasks_per_cell",),
            f"{per_cell} differs from the protocol's {surface['tasks_per_cell']}",
            code="SU106",
        )
    if n_strata != surface["strata_count"]:
        yield view.issue(
            "strata",
            ("strata",),
            f"{n_strata} strata; the protocol has {surface['strata_count']}",
            at_key=True,
            code="SU107",
        )
    if n_languages != surface["language_count"]:
        yield view.issue(
            "experiment",
            ("languages",),
            f"{n_languages} languages; the protocol has {surface['language_count']}",
            at_key=True,
            code="SU108",
        )
    total = per_cell * n_strata * n_languages
    if total != surface["total_tasks"]:
        yield view.issue(
            "strata",
            ("tasks_per_cell",),
            f"{per_cell} tasks per cell x {n_strata} strata x {n_languages} languages = {total}, "
            f"not the protocol's {surface['total_tasks']} tasks",
            code="SU109",
        )


def check_strata(view: SpecView) -> Iterator[SpecIssue]:
    """The protocol's strata, unique ids and codes, and error classes the state contract defines."""
    strata = view.data("strata")["strata"]
    yield from duplicates(view, "strata", ("strata",), strata, "id", "stratum")
    yield from duplicates(view, "strata", ("strata",), strata, "code", "stratum code")
    ids = [s["id"] for s in strata]
    expected = protocol_of(view).stratum_ids
    for index, stratum_id in enumerate(ids):
        if stratum_id not in expected:
            yield view.issue(
                "strata",
                ("strata", index, "id"),
                f"{stratum_id!r} is not one of the protocol's strata",
                code="SU110",
            )
    for stratum_id in expected:
        if stratum_id not in ids:
            yield view.issue(
                "strata",
                ("strata",),
                f"the protocol's stratum {stratum_id!r} is missing",
                at_key=True,
                code="SU111",
            )
    error_classes = set(view.data("state_contract")["error_classes"])
    for index, stratum in enumerate(strata):
        for e_index, error_class in enumerate(stratum["generation"].get("error_classes", [])):
            if error_class not in error_classes:
                yield view.issue(
                    "strata",
                    ("strata", index, "generation", "error_classes", e_index),
                    f"{error_class!r} is not an error class of the state contract",
                    code="SU112",
                )
