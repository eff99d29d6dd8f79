"""One registry mechanism for every kind of pluggable part, open to installed packages.

Each kind (retrieval strategies, agents, metrics, exposure policies, gate statistics, importers,
exporters, report sections, ...) owns one :class:`Registry` and a thin decorator that calls
:meth:`Registry.add` where the part is defined. Every kind keeps the same three rules:

* **duplicates**: a name is taken once. Registering the same object again (a module imported twice)
  is a no-op; another object under a taken name is one :class:`SchemaRouterError` naming both sources
  (module, and distribution for an installed package's part).
* **discovery**: on first lookup the kind's built-in package is imported (``runtime.core.discovery``:
  its ``first`` modules, then the rest by name), then every entry point of the kind's group
  (``schemarouter.strategies``, ...), sorted by name then distribution. An entry point names a module
  (``name = "package.module"``); importing it registers its parts with the kind's decorator, and it
  must register one under the entry point's name. A part registered while its entry point loads is
  recorded with the entry point's distribution name and version (:class:`Origin`). The installed
  entry points are scanned once for every kind (``_installed_entry_points``), again only when
  ``sys.path`` or the modification time of one of its directories changed (a package installed or
  a directory added since).
* **lookup**: an unknown name is one line naming the kind and every known name.

Threads: the first lookup may come from several threads at once (episodes in flight on a threaded Ray
actor). Discovery runs under the kind's lock, so another thread waits for the whole registry rather
than reading it half filled; a lookup made by the discovering thread itself (a module that looks up
its own kind while it is imported) sees what is registered so far, as it always did.

Order is part of determinism: :meth:`Registry.entries` keeps registration order (built-ins first),
:meth:`Registry.names` is sorted.
"""

from __future__ import annotations

import contextvars
import os
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import metadata
from typing import Generic, Protocol, TypeVar

from runtime.core.discovery import import_modules
from runtime.core.errors import SchemaRouterError

T = TypeVar("T")

ENTRY_POINT_PREFIX = "schemarouter."
# This project's top-level packages (ARCHITECTURE.md, "Import names"): a module under one is never a plugin's.
OWN_PACKAGES = frozenset({"schemarouter", "compiler", "runtime"})


@dataclass(frozen=True)
class Distribution:
    """An installed package a part came from: its distribution name and version."""

    name: str
    version: str

    def label(self) -> str:
        return f"{self.name} {self.version}"


@dataclass(frozen=True)
class Origin:
    """Where a registered part is defined: its module, and the distribution whose entry point loaded it
    (None: this project's own code, or a module the caller imported itself)."""

    module: str
    distribution: Distribution | None = None

    def label(self) -> str:
        if self.distribution is None:
            return self.module
        return f"{self.module} (distribution {self.distribution.label()})"


@dataclass(frozen=True)
class Entry(Generic[T]):
    """One registered part: its name, the object the kind's decorator registered, and its origin."""

    name: str
    value: T
    origin: Origin


_LOADING: contextvars.ContextVar[Distribution | None] = contextvars.ContextVar("loading", default=None)
_ALL: list[Registry[object]] = []


class Registry(Generic[T]):
    """The registry of one kind. ``package`` (dotted) holds the built-in parts, discovered on first
    lookup (``first`` modules first, ``skip`` modules left out); ``group`` is the entry-point group
    (``schemarouter.<group>``) through which installed packages add theirs (None: closed to packages)."""

    def __init__(
        self,
        kind: str,
        *,
        group: str | None,
        package: str | None = None,
        first: Iterable[str] = (),
        skip: Iterable[str] = (),
    ) -> None:
        self.kind = kind
        self.group = None if group is None else ENTRY_POINT_PREFIX + group
        self._package = package
        self._first = tuple(first)
        self._skip = tuple(skip)
        self._entries: dict[str, Entry[T]] = {}
        self._loaded = False  # True once discovery has run to its end (or failed)
        self._discovering: int | None = None  # the thread running discovery now
        self._lock = threading.Lock()
        _ALL.append(self)  # type: ignore[arg-type]

    def add(self, name: str, value: T, *, module: str) -> T:
        """Register ``value`` under ``name`` (the duplicate rule above); returns ``value``."""
        loading = _LOADING.get()
        # This project's own modules are never a plugin's, even when a plugin's import loads them first.
        ours = module.partition(".")[0] in OWN_PACKAGES
        origin = Origin(module, None if ours else loading)
        taken = self._entries.get(name)
        if taken is not None:
            if taken.value is value or taken.value == value:
                return value
            raise SchemaRouterError(
                f"{self.kind} {name!r} is registered twice: by {taken.origin.label()} and by {origin.label()}"
            )
        self._entries[name] = Entry(name, value, origin)
        return value

    def remove(self, name: str) -> None:
        """Forget ``name`` (a test that registers a part of its own cleans up with this)."""
        self._entries.pop(name, None)

    def snapshot(self) -> dict[str, Entry[T]]:
        """The entries as they are now (after discovery); :meth:`restore` puts them back."""
        self.load()
        return dict(self._entries)

    def restore(self, entries: dict[str, Entry[T]]) -> None:
        """Back to a :meth:`snapshot` (tests that register parts of their own clean up with this)."""
        self._entries = dict(entries)

    def load(self) -> None:
        """Discover the built-in parts, then the installed packages' entry points (once per process;
        other threads wait for it, see the module docs)."""
        if self._loaded or self._discovering == threading.get_ident():
            return
        with self._lock:
            if self._loaded:
                return
            self._discovering = threading.get_ident()
            try:
                self._discover()
            finally:
                self._discovering = None
                self._loaded = True

    def _discover(self) -> None:
        if self._package is not None:
            import_modules(self._package, first=self._first, skip=self._skip)
        if self.group is not None:
            for point in _entry_points(self.group):
                self._load_entry_point(point)

    def _load_entry_point(self, point: metadata.EntryPoint) -> None:
        dist = point.dist
        distribution = None if dist is None else Distribution(dist.name, dist.version)
        where = f"entry point {point.name} = {point.value} of group {self.group}" + (
            "" if distribution is None else f" (distribution {distribution.label()})"
        )
        with _loading(distribution):
            try:
                point.load()
            except Exception as err:  # an installed package's import error: one line naming it
                raise SchemaRouterError(f"{where}: cannot be loaded: {type(err).__name__}: {err}") from None
        # Kinds may share a group (report.md and report.html sections): one of them must hold the name.
        if not any(point.name in r._entries for r in _ALL if r.group == self.group):
            raise SchemaRouterError(f"{where}: registers no {self.kind} named {point.name!r}")

    def get(self, name: str) -> T:
        """The part registered under ``name``; an unknown name is one line naming the known ones."""
        return self.entry(name).value

    def __getitem__(self, name: str) -> T:
        return self.get(name)

    def entry(self, name: str) -> Entry[T]:
        self.load()
        try:
            return self._entries[name]
        except KeyError:
            known = ", ".join(sorted(self._entries)) or "none"
            raise SchemaRouterError(f"unknown {self.kind} {name!r}; known: {known}") from None

    def __contains__(self, name: object) -> bool:
        self.load()
        return name in self._entries

    def names(self) -> list[str]:
        """Every registered name, sorted."""
        self.load()
        return sorted(self._entries)

    def entries(self) -> tuple[Entry[T], ...]:
        """Every entry in registration order (built-ins first, then entry points by name)."""
        self.load()
        return tuple(self._entries.values())

    def __iter__(self) -> Iterator[str]:
        return iter([e.name for e in self.entries()])


@contextmanager
def _loading(distribution: Distribution | None) -> Iterator[None]:
    token = _LOADING.set(distribution)
    try:
        yield
    finally:
        _LOADING.reset(token)


class _EntryPointScan(Protocol):
    """What ``metadata.entry_points()`` returns (``SelectableGroups`` on 3.11, ``EntryPoints`` later)."""

    def select(self, *, group: str) -> Iterable[metadata.EntryPoint]: ...


# sys.path with each directory's modification time -> every installed entry point, of every group
_SCANNED: tuple[tuple[tuple[str, int], ...], _EntryPointScan] | None = None


def _path_state() -> tuple[tuple[str, int], ...]:
    """``sys.path`` and the modification time of each of its directories (-1: none there): installing or
    removing a distribution in one of them changes its time."""
    state = []
    for entry in sys.path:
        try:
            state.append((entry, os.stat(entry or ".").st_mtime_ns))
        except OSError:
            state.append((entry, -1))
    return tuple(state)


def _installed_entry_points() -> _EntryPointScan:
    """Every installed entry point: ``metadata.entry_points()`` reads every distribution's metadata, so
    the kinds share one scan (eight kinds read the installed packages once, not eight times)."""
    global _SCANNED
    state = _path_state()
    if _SCANNED is None or _SCANNED[0] != state:
        _SCANNED = (state, metadata.entry_points())
    return _SCANNED[1]


def _entry_points(group: str) -> list[metadata.EntryPoint]:
    points = _installed_entry_points().select(group=group)  # as metadata.entry_points(group=group)
    return sorted(points, key=lambda p: (p.name, p.dist.name if p.dist is not None else "", p.value))


def distribution_of(module: str) -> Distribution | None:
    """The distribution whose entry point registered a part defined in ``module`` (any kind), if any."""
    for registry in _ALL:
        for entry in registry._entries.values():
            if entry.origin.module == module and entry.origin.distribution is not None:
                return entry.origin.distribution
    return None


def decorator(registry: Registry[T], name: str) -> Callable[[T], T]:
    """The plain decorator of a kind whose registered object is the decorated one."""

    def wrap(value: T) -> T:
        return registry.add(name, value, module=str(getattr(value, "__module__", "")))

    return wrap
