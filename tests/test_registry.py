"""The one registry mechanism (runtime/core/registry.py): one duplicate rule naming both sources, one
lookup error, discovery of installed packages' entry points with their distribution recorded."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from runtime.core.errors import SchemaRouterError
from runtime.core.registry import Distribution, Registry, distribution_of


def test_a_name_is_taken_once_and_the_error_names_both_sources() -> None:
    registry: Registry[object] = Registry("widget", group=None)
    first, second = object(), object()
    registry.add("w", first, module="pkg.one")
    registry.add("w", first, module="pkg.one")  # the same object again (a re-import): nothing happens
    with pytest.raises(
        SchemaRouterError, match=r"^widget 'w' is registered twice: by pkg\.one and by pkg\.two$"
    ):
        registry.add("w", second, module="pkg.two")
    assert registry.get("w") is first and registry.names() == ["w"]


def test_an_unknown_name_is_one_line_naming_the_known_ones() -> None:
    registry: Registry[int] = Registry("widget", group=None)
    registry.add("b", 2, module="m")
    registry.add("a", 1, module="m")
    with pytest.raises(SchemaRouterError, match=r"^unknown widget 'c'; known: a, b$"):
        registry.get("c")
    assert [e.name for e in registry.entries()] == ["b", "a"]  # registration order; names() sorted


def _fake_distribution(root: Path, group: str, entry: str, module: str, body: str) -> None:
    """A minimal installed distribution on sys.path: a module and a dist-info with its entry point."""
    (root / f"{module}.py").write_text(body, encoding="utf-8")
    info = root / "sr_widgets_demo-1.2.3.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: sr-widgets-demo\nVersion: 1.2.3\n")
    (info / "entry_points.txt").write_text(f"[{group}]\n{entry} = {module}\n")


def test_an_installed_package_registers_through_its_entry_point(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry: Registry[object] = Registry("widget", group="test_widgets_ok")
    monkeypatch.setattr(sys.modules[__name__], "WIDGETS", registry, raising=False)
    body = f"import {__name__} as host\nhost.WIDGETS.add('gear', 'a gear', module=__name__)\n"
    _fake_distribution(tmp_path, "schemarouter.test_widgets_ok", "gear", "sr_widgets_ok_mod", body)
    monkeypatch.syspath_prepend(str(tmp_path))
    entry = registry.entry("gear")
    assert entry.value == "a gear"
    assert entry.origin.distribution == Distribution("sr-widgets-demo", "1.2.3")
    assert "distribution sr-widgets-demo 1.2.3" in entry.origin.label()
    assert distribution_of("sr_widgets_ok_mod") == Distribution("sr-widgets-demo", "1.2.3")


def test_an_entry_point_that_registers_nothing_under_its_name_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry: Registry[object] = Registry("widget", group="test_widgets_none")
    _fake_distribution(tmp_path, "schemarouter.test_widgets_none", "cog", "sr_widgets_none_mod", "x = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(
        SchemaRouterError,
        match=r"entry point cog = sr_widgets_none_mod of group "
        r"schemarouter\.test_widgets_none \(distribution sr-widgets-demo 1\.2\.3\): "
        r"registers no widget named 'cog'",
    ):
        registry.names()


def test_an_entry_point_that_cannot_be_imported_is_one_line_naming_its_distribution(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry: Registry[object] = Registry("widget", group="test_widgets_broken")
    body = "import sr_no_such_dependency_anywhere\n"
    _fake_distribution(tmp_path, "schemarouter.test_widgets_broken", "nut", "sr_widgets_broken_mod", body)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(SchemaRouterError) as err:
        registry.names()
    assert str(err.value) == (
        "entry point nut = sr_widgets_broken_mod of group schemarouter.test_widgets_broken (distribution "
        "sr-widgets-demo 1.2.3): cannot be loaded: ModuleNotFoundError: No module named "
        "'sr_no_such_dependency_anywhere'"
    )


def test_our_own_modules_are_never_attributed_to_a_plugin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry: Registry[object] = Registry("widget", group="test_widgets_mixed")
    monkeypatch.setattr(sys.modules[__name__], "MIXED", registry, raising=False)
    body = (
        f"import {__name__} as host\n"
        "host.MIXED.add('builtin_like', 1, module='runtime.somewhere')\n"
        "host.MIXED.add('bolt', 2, module=__name__)\n"
    )
    _fake_distribution(tmp_path, "schemarouter.test_widgets_mixed", "bolt", "sr_widgets_mixed_mod", body)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert registry.entry("bolt").origin.distribution == Distribution("sr-widgets-demo", "1.2.3")
    assert registry.entry("builtin_like").origin.distribution is None


def test_the_kinds_share_one_scan_of_the_installed_entry_points(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One scan serves every group, with exactly the points a scan of that group alone finds; a
    distribution installed into a directory of sys.path after the scan is found (its time changed)."""
    from importlib import metadata

    from runtime.core import registry as registry_module

    monkeypatch.syspath_prepend(str(tmp_path))
    groups = [f"schemarouter.{kind}" for kind in ("strategies", "agents", "metrics", "policies")]
    groups += ["schemarouter.statistics", "schemarouter.executors", "console_scripts", "test_late"]
    for group in groups:
        assert registry_module._entry_points(group) == sorted(
            metadata.entry_points(group=group),
            key=lambda p: (p.name, p.dist.name if p.dist is not None else "", p.value),
        ), group
    scan = registry_module._installed_entry_points()
    assert registry_module._installed_entry_points() is scan  # nothing changed: the same scan
    assert registry_module._entry_points("test_late") == []
    _fake_distribution(tmp_path, "test_late", "late", "sr_widgets_late_mod", "x = 1\n")
    assert [p.name for p in registry_module._entry_points("test_late")] == ["late"]


def test_a_lookup_from_another_thread_waits_for_the_whole_discovery(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Episodes in flight on threads may make a kind's first lookup at once: the second thread must see
    every built-in part, not the ones imported so far (it did on a threaded Ray actor)."""
    import threading
    import time

    registry: Registry[int] = Registry("widget", group=None, package="sr_widgets_race_pkg")
    monkeypatch.setattr(sys.modules[__name__], "RACE", registry, raising=False)
    package = tmp_path / "sr_widgets_race_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    register = f"import sys\nsys.modules[{__name__!r}].RACE.add({{name!r}}, 1, module=__name__)\n"
    (package / "a_slow.py").write_text("import time\ntime.sleep(0.5)\n" + register.format(name="a"))
    (package / "b_late.py").write_text(register.format(name="b"))
    monkeypatch.syspath_prepend(str(tmp_path))

    first = threading.Thread(target=registry.load)
    first.start()
    time.sleep(0.1)  # the first thread is inside a_slow's import
    assert registry.get("b") == 1  # waited for b_late, imported after a_slow
    first.join()
    assert registry.names() == ["a", "b"]
