"""Executors by stable code, without the `ray` extra: lookup, one-line refusals, no Ray import."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from extras import require_module
from typer.testing import CliRunner

from runtime.core.errors import SchemaRouterError
from runtime.run.executors.choice import executor_choice
from runtime.run.executors.local import LocalExecutor
from runtime.run.executors.ray_cluster import actor_cpus
from runtime.run.executors.registry import (
    ExecutorOptions,
    executor_codes,
    make_executor,
    register_executor,
)
from schemarouter.cli.app import app


def test_codes_are_stable_and_local_is_the_process_pool() -> None:
    assert executor_codes() == ["local", "ray"]
    assert isinstance(make_executor("local"), LocalExecutor)


def test_an_unknown_code_is_one_line_naming_the_known_ones() -> None:
    with pytest.raises(SchemaRouterError, match=r"^--executor 'dask': unknown executor; known: local, ray$"):
        make_executor("dask")
    with pytest.raises(SchemaRouterError, match="known: local, ray"):
        executor_choice("dask", None)


def test_a_code_is_taken_once() -> None:
    assert "local" in executor_codes()  # discovered first, so the second registration is the one refused
    with pytest.raises(
        SchemaRouterError,
        match=r"executor 'local' is registered twice: by runtime\.run\.executors\.local and by ",
    ):
        register_executor("local")(lambda options: LocalExecutor(options))


def test_ray_address_belongs_to_the_ray_executor() -> None:
    with pytest.raises(SchemaRouterError, match="--ray-address is an option of --executor ray"):
        executor_choice("local", "127.0.0.1:6379")
    with pytest.raises(SchemaRouterError, match="names no cluster"):
        executor_choice("ray", " ")


def test_an_address_is_handed_to_the_ray_executor() -> None:
    require_module("ray", extra="ray")  # choosing the ray executor imports Ray first
    assert executor_choice("ray", "auto") == ExecutorOptions(ray_address="auto")


def test_sr_run_refuses_an_unknown_executor_and_a_stray_address_in_one_line(tmp_path: Path) -> None:
    for args, message in (
        (["--executor", "dask"], "--executor 'dask': unknown executor; known: local, ray"),
        (["--ray-address", "127.0.0.1:6379"], "--ray-address is an option of --executor ray"),
    ):
        result = CliRunner().invoke(app, ["--project-dir", str(tmp_path), "run", *args])
        assert result.exit_code == 1
        assert result.output.strip() == message


def test_without_ray_the_ray_executor_is_one_line_with_the_install_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    with pytest.raises(
        SchemaRouterError, match=r"needs Ray, which is not installed: pip install -e '\.\[ray\]'"
    ):
        make_executor("ray", ExecutorOptions())


def test_without_ray_sr_run_refuses_before_making_a_run_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util

    real_find_spec = importlib.util.find_spec

    def find_spec(name: str, *args: object) -> object:
        return None if name == "ray" else real_find_spec(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    result = CliRunner().invoke(app, ["--project-dir", str(tmp_path), "run", "--executor", "ray"])
    assert result.exit_code == 1
    assert (
        result.output.strip() == "--executor ray needs Ray, which is not installed: pip install -e '.[ray]'"
    )
    assert not (tmp_path / "runs").exists()


def test_the_runtime_and_the_cli_never_import_ray_unless_it_is_chosen() -> None:
    code = (
        "import sys\n"
        "import schemarouter.cli.app, schemarouter.application.run, runtime.run.session\n"
        "from runtime.run.executors.registry import executor_codes, make_executor\n"
        "make_executor('local')\n"
        "assert executor_codes() == ['local', 'ray']  # every executor module imported\n"
        "assert not any(m == 'ray' or m.startswith('ray.') for m in sys.modules), 'ray imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize(
    ("cpus", "workers", "share"),
    [(2.0, 2, 1.0), (8.0, 2, 1.0), (2.0, 4, 0.5), (2.0, 3, 0.6666), (0.0, 2, 0.0)],
)
def test_actors_share_the_cpus_when_there_are_more_workers_than_cpus(
    cpus: float, workers: int, share: float
) -> None:
    assert actor_cpus(cpus, workers) == share
