"""A result set: one run directory, or the shard directories of one run, and whether it is terminal.

Terminal means: every episode of the declared scope committed exactly once across the directories, and
no unresolved infrastructure event in any of them. Everything here reads keys and counts only; outcomes
are read by :func:`read_terminal_outcomes`, which refuses a set that is not terminal.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from runtime.core.errors import SchemaRouterError
from runtime.run.manifest import RunManifest, read_manifest
from runtime.run.scope import EpisodeKey, RunScope
from runtime.run.store import EpisodeOutcome, EpisodeStore, InfraEvent


@dataclass(frozen=True)
class DirState:
    """One run directory: its manifest, committed keys and infrastructure events."""

    run_dir: Path
    manifest: RunManifest
    committed: frozenset[EpisodeKey]
    events: tuple[InfraEvent, ...]

    @property
    def unresolved(self) -> tuple[InfraEvent, ...]:
        return tuple(e for e in self.events if e.resolved_at is None)

    @property
    def outside_shard(self) -> list[EpisodeKey]:
        """Committed episodes this directory's scope and shard do not hold: a store never writes one."""
        expected = set(self.manifest.scope.shard_keys(self.manifest.shard))
        return sorted(self.committed - expected)

    @property
    def events_on_committed(self) -> tuple[InfraEvent, ...]:
        """Unresolved events on committed episodes: a commit resolves its episode's events, so ``--resume``
        cannot clear these (the episode is not re-run)."""
        return tuple(e for e in self.unresolved if e.key is not None and e.key in self.committed)

    @property
    def shard_complete(self) -> bool:
        """Every episode of this directory's shard committed and no unresolved infrastructure event."""
        expected = set(self.manifest.scope.shard_keys(self.manifest.shard))
        return self.committed == expected and not self.unresolved


@dataclass(frozen=True)
class ResultSet:
    """The directories of one run and its progress against the declared scope."""

    dirs: tuple[DirState, ...]
    scope: RunScope
    shard_count: int

    @property
    def expected(self) -> list[EpisodeKey]:
        return self.scope.episode_keys()

    @property
    def committed(self) -> set[EpisodeKey]:
        return set().union(*(d.committed for d in self.dirs))

    @property
    def duplicates(self) -> list[EpisodeKey]:
        counts = Counter(key for d in self.dirs for key in d.committed)
        return sorted(key for key, n in counts.items() if n > 1)

    @property
    def unresolved_events(self) -> int:
        return sum(len(d.unresolved) for d in self.dirs)

    @property
    def shards_present(self) -> list[int]:
        return sorted(d.manifest.shard.index for d in self.dirs)

    @property
    def terminal(self) -> bool:
        expected = set(self.expected)
        return (
            self.committed == expected
            and not self.duplicates
            and self.unresolved_events == 0
            and len(self.dirs) == self.shard_count
        )

    def anomaly_lines(self) -> list[str]:
        """Why a set whose counts look complete is still not terminal: store rows outside a directory's
        scope or shard, and unresolved events on committed episodes. Keys only, never outcomes."""
        lines = []
        for d in self.dirs:
            outside = d.outside_shard
            if outside:
                plural = "s" if len(outside) != 1 else ""
                lines.append(
                    f"{d.run_dir}: {len(outside)} committed episode{plural} outside this directory's scope "
                    f"and shard {d.manifest.shard.label()} (first: {outside[0].label()}); "
                    "the store was changed outside sr run, and the set is refused"
                )
            on_committed = d.events_on_committed
            if on_committed:
                first = on_committed[0]
                assert first.key is not None
                lines.append(
                    f"{d.run_dir}: {len(on_committed)} unresolved infrastructure event"
                    f"{'s' if len(on_committed) != 1 else ''} on committed episodes (first: #{first.id} on "
                    f"{first.key.label()}); --resume does not re-run a committed episode, so the set stays "
                    "sealed: the store was changed outside sr run"
                )
        return lines

    def progress_lines(self) -> list[str]:
        """Progress counts only: never a metric, a pass count or anything derived from outcomes."""
        expected = self.expected
        committed = self.committed & set(expected)
        lines = [f"episodes committed: {len(committed)} / {len(expected)}"]
        if self.shard_count > 1:
            present = ", ".join(f"{i}/{self.shard_count}" for i in self.shards_present)
            missing = [i for i in range(1, self.shard_count + 1) if i not in self.shards_present]
            absent = f"; missing: {', '.join(f'{i}/{self.shard_count}' for i in missing)}" if missing else ""
            lines.append(f"shards present: {present}{absent}")
        lines.append(f"unresolved infrastructure events: {self.unresolved_events}")
        lines.extend(self.anomaly_lines())
        per_cell = Counter((k.condition, k.catalog) for k in committed)
        for catalog in self.scope.catalogs:
            for condition in self.scope.conditions:
                lines.append(
                    f"  {condition:<24} catalog {catalog:>3}: {per_cell[(condition, catalog)]:>4} / "
                    f"{len(self.scope.tasks) * self.scope.epochs}"
                )
        return lines


def load_result_set(run_dirs: list[Path]) -> ResultSet:
    """Read the manifests and keys of ``run_dirs`` and check that they belong to one run."""
    if not run_dirs:
        raise SchemaRouterError("no run directory given")
    states = []
    for run_dir in run_dirs:
        manifest = read_manifest(run_dir)
        with EpisodeStore(run_dir, readonly=True) as store:
            states.append(
                DirState(
                    run_dir=run_dir,
                    manifest=manifest,
                    committed=frozenset(store.committed_keys()),
                    events=tuple(store.events()),
                )
            )
    _check_same_run(states)
    first = states[0].manifest
    return ResultSet(dirs=tuple(states), scope=first.scope, shard_count=first.shard.count)


def read_terminal_outcomes(result_set: ResultSet, *, with_traces: bool = False) -> list[EpisodeOutcome]:
    """Every episode's outcome in canonical order (with its stored trace when ``with_traces``); refuses a
    set that is not terminal."""
    if not result_set.terminal:
        raise SealedResultSet(result_set)
    owner = {key: d.run_dir for d in result_set.dirs for key in d.committed}
    by_dir: dict[Path, list[EpisodeKey]] = {}
    for key in result_set.expected:
        by_dir.setdefault(owner[key], []).append(key)
    outcomes: dict[EpisodeKey, EpisodeOutcome] = {}
    for run_dir, keys in by_dir.items():
        with EpisodeStore(run_dir, readonly=True) as store:
            outcomes.update((o.key, o) for o in store.read_outcomes(keys, with_traces=with_traces))
    return [outcomes[key] for key in result_set.expected]


class SealedResultSet(SchemaRouterError):
    """The set is not terminal: only progress counts may be shown."""

    def __init__(self, result_set: ResultSet) -> None:
        self.result_set = result_set
        lines = [
            "sealed: this result set is not terminal, so no outcome is computed or shown.",
            *result_set.progress_lines(),
        ]
        if result_set.duplicates:
            lines.append(f"episodes committed in more than one directory: {len(result_set.duplicates)}")
        lines.append(
            "Terminal means every episode of the declared scope committed once and no unresolved "
            "infrastructure event; continue with `sr run --resume --run-dir DIR` (each shard)."
        )
        super().__init__("\n".join(lines))


def _check_same_run(states: list[DirState]) -> None:
    first = states[0].manifest
    problems = []
    for state in states[1:]:
        m = state.manifest
        where = f"{state.run_dir} vs {states[0].run_dir}"
        if m.freeze != first.freeze:
            problems.append(f"{where}: freeze root hash {m.freeze.root_hash} != {first.freeze.root_hash}")
        if m.source.git_commit != first.source.git_commit:
            problems.append(f"{where}: source commit {m.source.git_commit} != {first.source.git_commit}")
        if m.agent != first.agent:
            problems.append(f"{where}: agent configuration differs")
        if m.scope != first.scope:
            problems.append(f"{where}: declared scope differs")
        if m.shard.count != first.shard.count:
            problems.append(f"{where}: shard count {m.shard.count} != {first.shard.count}")
    indices = Counter(s.manifest.shard.index for s in states)
    for index, n in sorted(indices.items()):
        if n > 1:
            problems.append(f"shard {index}/{first.shard.count} given {n} times")
    seen: dict[str, Path] = {}
    for state in states:
        if state.manifest.run_id in seen:
            problems.append(f"run directory {state.manifest.run_id} given twice")
        seen[state.manifest.run_id] = state.run_dir
    if problems:
        raise SchemaRouterError("these directories are not shards of one run:\n  " + "\n  ".join(problems))
