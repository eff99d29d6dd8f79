"""The code an experiment's freeze executes: pinned in its lock, checked by verify and by scoring.

``components_of`` lists what the compiled experiment executes (``code_record.ComponentPin`` says what
each pin holds). ``pin_code`` (``sr lock pin-code``, and ``sr freeze`` after it writes a lock) appends a
``CodeRecord`` to the lock without touching its root or any frozen file. ``check_code`` recomputes the
implementation digests (cheap: source files read with ``ast``, nothing imported); the canary episodes
(about a second) run only when a digest differs from the lock's, or when asked (``sr verify
--canaries``). A component whose canary items differ fails, named; a digest that changed while every
canary is the same is a note (a refactor).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from runtime.core.errors import SchemaRouterError
from runtime.core.json_value import JSONObject, JSONValue
from runtime.core.registry import distribution_of
from runtime.run.manifest import PluginComponent
from runtime.spec_model import CompiledSpec, FreezeLock
from runtime.spec_model.code_record import (
    CANARY_RULE,
    DIGEST_RULE,
    CodeRecord,
    ComponentPin,
    DistributionPin,
)
from runtime.spec_model.lock import lock_guard, read_lock, write_lock
from runtime.spec_model.module_moves import current_module
from schemarouter.application.code_digest import IMPORTS_CACHE, ImportsCache, SourceTree
from schemarouter.application.compiled import compiled_without_writing
from schemarouter.project import ProjectPaths

if TYPE_CHECKING:
    from schemarouter.application import canaries as cn
# The canaries and the registries load the engine: imported only when canaries run, so a verify whose
# digests all match stays cheap.

STATE_GUARD = "runtime.state.guard"
EXPRESSIONS = "runtime.simulator.expressions"
EPISODE = "runtime.engine.episode"


@dataclass(frozen=True)
class Component:
    """One component the experiment executes, before it is pinned."""

    kind: str
    name: str
    module: str
    params: dict[str, object] | None = None

    @property
    def label(self) -> str:
        return f"{self.kind} {self.name}"

    @property
    def distribution(self) -> DistributionPin | None:
        """The installed package whose entry point registered it (None: this project's own code)."""
        found = distribution_of(self.module)
        return None if found is None else DistributionPin(name=found.name, version=found.version)


def components_of(compiled: CompiledSpec) -> list[Component]:
    """What ``compiled`` executes, in a stable order (strategy, policies, agent, guard, expressions,
    engine, metrics in spec order, statistics by name)."""
    from runtime.agents.registry import registered_agent
    from runtime.engine.metrics import metrics_named
    from runtime.exposure.registry import get_policy
    from runtime.retrieval import RetrieverSpec
    from runtime.retrieval.strategy import get_strategy, strategy_of
    from runtime.scoring.statistics import registered_statistics
    from schemarouter.application.canaries import AGENT

    code, params = strategy_of(RetrieverSpec.from_compiled(compiled))
    out = [Component("retrieval strategy", code, get_strategy(code).factory.__module__, dict(params))]
    for condition in compiled.conditions:  # a condition's own retriever (issue #25), in spec order
        own = condition.retriever
        if own is not None and condition.retrieval_query != "none":
            module = get_strategy(own.code).factory.__module__
            out.append(
                Component("retrieval strategy", f"{own.code} for {condition.id}", module, dict(own.params))
            )
    for kind in sorted({c.policy for c in compiled.conditions}):
        out.append(Component("exposure policy", kind, get_policy(kind).factory.__module__))
    agent = registered_agent(AGENT).factory
    out += [
        Component("agent", AGENT, getattr(agent, "__module__", "runtime.agents.reference")),
        Component("state guard", "guard", STATE_GUARD),
        Component("simulator expression language", "expressions", EXPRESSIONS),
        Component("episode engine", "run_episode", EPISODE),
    ]
    out += [
        Component("metric", m.id, m.fn.__module__) for m in metrics_named([m.id for m in compiled.metrics])
    ]
    statistics = registered_statistics()
    for name in sorted({c.statistic for c in compiled.gate.criteria}):
        out.append(Component("gate statistic", name, statistics[name].fn.__module__))
    return out


def canary_of(component: Component | ComponentPin, episodes: cn.CanaryEpisodes) -> dict[str, str]:
    """The canary items of one component."""
    from schemarouter.application import canaries as cn

    per_episode: dict[str, Callable[[JSONObject], JSONValue]] = {
        "agent": cn.decision_items,
        "state guard": cn.state_items,
        "simulator expression language": cn.result_items,
        "episode engine": cn.trace_items,
    }
    if component.kind == "retrieval strategy":
        return cn.strategy_items(episodes)
    if component.kind == "exposure policy":
        conditions = {c.id for c in episodes.resources.compiled.conditions if c.policy == component.name}
        return cn._per_episode(episodes, cn.exposure_items, conditions)
    if component.kind == "metric":
        return cn.metric_items(episodes, component.name)
    if component.kind == "gate statistic":
        return cn.statistic_items(episodes, component.name)
    return cn._per_episode(episodes, per_episode[component.kind])


def build_record(
    paths: ProjectPaths, compiled: CompiledSpec, lock: FreezeLock, *, reason: str, source: SourceTree
) -> CodeRecord:
    from schemarouter.application.canaries import run_canary_episodes

    episodes = run_canary_episodes(paths, compiled)
    pins = []
    for component in components_of(compiled):
        digest, files = source.implementation_digest(component.module)
        pins.append(
            ComponentPin(
                kind=component.kind,
                name=component.name,
                module=component.module,
                params=component.params,
                implementation=digest,
                source_files=files,
                canary=canary_of(component, episodes),
                distribution=component.distribution,
            )
        )
    return CodeRecord(
        root=lock.root,
        at=datetime.now(UTC).replace(microsecond=0),
        reason=reason,
        digest_rule=DIGEST_RULE,
        canary_rule=CANARY_RULE,
        canary_set=episodes.canary_set,
        components=tuple(pins),
    )


def pin_code(
    paths: ProjectPaths, *, reason: str, source: SourceTree | None = None, required: bool = True
) -> str:
    """Append the code record of the experiment's current freeze to its lock (root and files kept).
    Without a development surface there are no canaries: an error, or (``required`` False, as
    ``sr freeze`` calls it) a note that nothing was pinned."""
    from schemarouter.application.canaries import dev_surface_available

    reason = reason.strip()
    if not reason:
        raise SchemaRouterError('sr lock pin-code needs a reason: --reason "<why>"')
    if not dev_surface_available(paths):
        message = (
            f"{paths.lock_display}: code not pinned: the project has no development surface "
            "(spec/_surfaces/dev/) to run the canaries on"
        )
        if required:
            raise SchemaRouterError(message)
        return message
    from compiler.verify import verify_project

    report = verify_project(paths)
    if not report.clean:
        raise SchemaRouterError(report.message() + "\nnothing was pinned: the freeze must verify first")
    compiled = compiled_without_writing(paths)
    with lock_guard(paths):
        lock = read_lock(paths.lock_file, display=paths.lock_display)
        assert lock is not None  # verify_project raised otherwise
        if lock.current_code is not None:
            return (
                f"{paths.lock_display}: the code is already pinned under root {lock.root} "
                f"(at {lock.current_code.at.isoformat()}); a record is never rewritten"
            )
        tree = source or source_tree(paths)
        record = build_record(paths, compiled, lock, reason=reason, source=tree)
        _save_imports(tree)
        write_lock(paths.lock_file, lock.model_copy(update={"code": (*(lock.code or ()), record)}))
    counted = sum(len(p.canary) for p in record.components)
    return (
        f"{paths.lock_display}: pinned the code of {len(record.components)} components "
        f"({counted} canary items over {len(record.canary_set.tasks)} dev tasks x "
        f"{len(record.canary_set.conditions)} conditions); root {lock.root} unchanged"
    )


@dataclass
class CodeCheck:
    """What the code check found: notes (fine) and problems (the behaviour moved)."""

    notes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    recomputed: bool = False


def check_code(
    paths: ProjectPaths,
    lock: FreezeLock,
    *,
    canaries: bool = False,
    source: SourceTree | None = None,
    compiled: CompiledSpec | None = None,
) -> CodeCheck:
    """Compare the running code with the lock's code record (none: a note)."""
    check = CodeCheck()
    record = lock.current_code
    if record is None:
        check.notes.append(
            f"{paths.lock_display}: code not pinned under root {lock.root} "
            f'(sr lock pin-code --experiment {lock.experiment_id} --reason "<why>")'
        )
        return check
    tree = source or source_tree(paths)
    changed = _changed_pins(record, tree)
    key = _rerun_key(paths, record, tree, changed, canaries=canaries, check=check)
    _save_imports(tree)  # every digest is computed by now
    if key is None:
        return check
    check.recomputed = True
    compiled = compiled or compiled_without_writing(paths)
    _compare_canaries(paths, record, compiled, tree, changed, check)
    if not check.problems:
        check.notes.append(f"{paths.lock_display}: code: every canary matches the pinned record")
        _remember_check(paths, key)
    return check


def source_tree(paths: ProjectPaths) -> SourceTree:
    """The running code's source tree, its files' import statements kept in the project's build/
    (``code_digest.ImportsCache``: parsed once for every command that checks or pins the code)."""
    return SourceTree(cache=ImportsCache(paths.build_dir / IMPORTS_CACHE))


def _save_imports(tree: SourceTree) -> None:
    if tree.cache is not None:
        tree.cache.save()


def _changed_pins(record: CodeRecord, tree: SourceTree) -> list[ComponentPin]:
    """The pins whose current implementation digest differs from the recorded one."""
    changed = []
    for pin in record.components:
        digest, _ = tree.implementation_digest(current_module(pin.module))
        if digest != pin.implementation:
            changed.append(pin)
    return changed


def _rerun_key(
    paths: ProjectPaths,
    record: CodeRecord,
    tree: SourceTree,
    changed: list[ComponentPin],
    *,
    canaries: bool,
    check: CodeCheck,
) -> str | None:
    """The check key of a canary rerun, or None when none is needed or possible (the note says why)."""
    display = paths.lock_display
    if not (changed or canaries):
        check.notes.append(
            f"{display}: code: {len(record.components)} component implementations match the pinned digests"
        )
        return None
    from schemarouter.application import canaries as cn

    if not cn.dev_surface_available(paths):
        check.notes.append(
            f"{display}: code: {len(changed)} implementation digest(s) changed and this project has no "
            "development surface to rerun the canaries on: behaviour not checked here"
        )
        return None
    key = _check_key(paths, record, tree)
    if not canaries and _cached_check(paths) == key:
        check.notes.append(
            f"{display}: code: {len(changed)} implementation digest(s) changed since the pin; their canaries "
            f"matched when last rerun on this exact code ({_cache_display(paths)}; --canaries reruns them)"
        )
        return None
    return key


def _compare_canaries(
    paths: ProjectPaths,
    record: CodeRecord,
    compiled: CompiledSpec,
    tree: SourceTree,
    changed: list[ComponentPin],
    check: CodeCheck,
) -> None:
    """Rerun the pinned canary set and compare every pinned component's items with the record's."""
    from schemarouter.application import canaries as cn

    now = {c.label: c for c in components_of(compiled)}
    episodes = cn.run_canary_episodes(paths, compiled, pinned=record.canary_set)
    if episodes.canary_set != record.canary_set:
        check.problems.append(f"{paths.lock_display}: code: the canary set differs from the pinned one")
        return
    for pin in record.components:
        _compare_pin(pin, now.get(pin.label), episodes, tree, digest_changed=pin in changed, check=check)
    for label in sorted(set(now) - {p.label for p in record.components}):
        check.problems.append(f"{label}: used now, not in the pinned code record")


def _compare_pin(
    pin: ComponentPin,
    current: Component | None,
    episodes: cn.CanaryEpisodes,
    tree: SourceTree,
    *,
    digest_changed: bool,
    check: CodeCheck,
) -> None:
    """One pinned component against what implements it now: a problem when its canaries moved (or it is
    gone or its params changed), a note when only its module or its digest did."""
    from schemarouter.application import canaries as cn

    if current is None or current.params != pin.params:
        check.problems.append(
            f"{pin.source_label}: now "
            f"{'not used' if current is None else 'implemented by ' + current.module}"
            f" with params {None if current is None else current.params}; pinned: {pin.module}"
        )
        return
    items = canary_of(pin, episodes)
    differ = sum(1 for k in set(items) | set(pin.canary) if items.get(k) != pin.canary.get(k))
    noun = cn.ITEM_NOUN.get(pin.kind, "canary items")
    if differ:
        moved = _moved(pin, current, digest_changed)
        check.problems.append(f"{pin.source_label}: {differ} of {len(pin.canary)} {noun} differ{moved}")
    elif current.module != pin.module:  # moved (a refactor): its behaviour is what counts
        check.notes.append(
            f"{pin.label}: implementation moved from {pin.module} to {current.module}"
            f"{_by_table(pin.module, current.module)}; "
            f"all {len(pin.canary)} {noun} unchanged"
        )
    elif digest_changed:
        check.notes.append(
            f"{pin.source_label}: implementation digest changed ({pin.implementation} -> "
            f"{tree.implementation_digest(current_module(pin.module))[0]}); "
            f"all {len(pin.canary)} {noun} unchanged"
        )


def _by_table(recorded: str, now: str) -> str:
    """Say when a move is the one the module-move table records (runtime/spec_model/module_moves.py)."""
    return " (the module-move table's)" if current_module(recorded) == now else ""


def _moved(pin: ComponentPin, current: Component, digest_changed: bool) -> str:
    """What changed about an installed package's component since the pin (its version, its code)."""
    if pin.distribution is None:
        return ""
    now = current.distribution
    if now is None:
        return f"; distribution {pin.distribution.name} no longer provides it"
    version = "" if now.version == pin.distribution.version else f", now version {now.version}"
    if not digest_changed:
        return f"; the code of distribution {pin.distribution.name} is as pinned{version}"
    return f"; the code of distribution {pin.distribution.name} changed since the freeze{version}"


def plugin_components(
    compiled: CompiledSpec, source: SourceTree | None = None
) -> tuple[PluginComponent, ...]:
    """Every component of ``compiled`` that an installed package provides, with its distribution,
    version and implementation digest (the run manifest's ``plugins``)."""
    tree = source or SourceTree()
    out = []
    for component in components_of(compiled):
        dist = component.distribution
        if dist is None:
            continue
        digest, _ = tree.implementation_digest(component.module)
        out.append(
            PluginComponent(
                kind=component.kind,
                name=component.name,
                module=component.module,
                distribution=dist.name,
                version=dist.version,
                implementation=f"{digest.algorithm}:{digest.digest}",
            )
        )
    return tuple(out)


CHECK_CACHE = "code_check.json"


def _check_key(paths: ProjectPaths, record: CodeRecord, tree: SourceTree) -> str:
    """sha256 over what a clean canary rerun depended on: the pinned record, every current implementation
    digest, and the bytes of the development surface's files (the catalogs are held by the freeze)."""
    import hashlib

    h = hashlib.sha256(record.model_dump_json().encode())
    for pin in record.components:
        module = current_module(pin.module)
        h.update(f"\n{pin.module}={tree.implementation_digest(module)[0]}".encode())
    for folder in (paths.root / "spec" / "_surfaces" / "dev", paths.root / "catalogs" / "_surfaces" / "dev"):
        for f in sorted(folder.rglob("*")) if folder.is_dir() else ():
            if f.is_file():
                h.update(f"\n{f.relative_to(paths.root).as_posix()}:".encode() + f.read_bytes())
    return "sha256:" + h.hexdigest()


def _cache_display(paths: ProjectPaths) -> str:
    return (paths.experiment_build_dir / CHECK_CACHE).relative_to(paths.root).as_posix()


def _cached_check(paths: ProjectPaths) -> str | None:
    """The key of the last clean canary rerun (a speed-up only: build/ is never committed, a missing or
    unreadable file just means the canaries run again)."""
    import json

    try:
        data = json.loads((paths.experiment_build_dir / CHECK_CACHE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    key = data.get("clean_rerun") if isinstance(data, dict) else None
    return key if isinstance(key, str) else None


def _remember_check(paths: ProjectPaths, key: str) -> None:
    import json

    from runtime.core.atomic_write import write_text_atomic

    try:
        paths.experiment_build_dir.mkdir(parents=True, exist_ok=True)
        write_text_atomic(paths.experiment_build_dir / CHECK_CACHE, json.dumps({"clean_rerun": key}) + "\n")
    except (OSError, SchemaRouterError):  # write_text_atomic says "cannot write" as the latter
        pass  # a read-only checkout still verifies; it only reruns the canaries next time


def require_code_unchanged(
    paths: ProjectPaths, compiled: CompiledSpec, *, source: SourceTree | None = None
) -> None:
    """Scoring's check: refuse when the lock's code record names a component whose canaries moved
    (rerun when an implementation digest differs from the record's)."""
    if compiled.draft:
        return
    lock = read_lock(paths.lock_file, display=paths.lock_display)
    if lock is None:
        return
    check = check_code(paths, lock, compiled=compiled, source=source)
    if check.problems:
        raise SchemaRouterError(
            f"refusing to score: {check.problems[0]}"
            f"{f' (and {len(check.problems) - 1} more)' if len(check.problems) > 1 else ''}; "
            "the code differs in behaviour from the one the freeze pinned"
        )
