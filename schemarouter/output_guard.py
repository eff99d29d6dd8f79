"""The one guard for every path a user names for output (``--out``, ``--json``, ``--markdown``,
``--study-out``, ``--run-dir``, ``--model-cache``, and any later one).

A command that writes where the user says calls :func:`output_guard` once with the project root and the
command's own input files, then :meth:`OutputGuard.file` or :meth:`OutputGuard.directory` for each
option before any work is done, and writes a checked file with :meth:`OutputGuard.write_text` /
:meth:`OutputGuard.write_bytes` (atomic: a unique temporary name in the target directory, then a
rename; ``runtime.core.atomic_write``). Refused, each with one line naming the option, the path and why:

- an empty path (``--out ""`` is the current directory) and the current directory itself;
- anything inside the project's ``spec/``, ``catalogs/`` and ``golden/``: the folders of every
  experiment (``spec/<id>/``, ``catalogs/<id>/``, ``golden/<id>/``) and the committed pilot surfaces
  (``spec/_surfaces/``, ``catalogs/_surfaces/``); only ``sr freeze``, ``sr generate``,
  ``sr golden --update``, ``sr deviations --update`` and ``sr experiment new`` write there, each to
  the files it owns, never through this guard;
- the project directory itself or a folder above it, the project file ``schemarouter.yaml`` and
  ``.git/``;
- the command's own input files (``sr catalog import SRC --out SRC``).

Paths are decided on after resolving symlinks and ``..``: a symlink pointing into a frozen folder is
refused like the folder. The checked (resolved) path is the one written.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from runtime.core.atomic_write import write_bytes_atomic, write_text_atomic
from runtime.core.errors import SchemaRouterError
from schemarouter.project import PROJECT_FILE

# The project's trees that hold experiments; nothing a user names for output may land inside them.
PROTECTED_TOPS = ("spec", "catalogs", "golden")
EXPERIMENT_WRITERS = (
    "sr freeze, sr generate, sr golden --update, sr deviations --update and sr experiment new"
)


@dataclass(frozen=True)
class OutputGuard:
    """The output check of one command: its project root and its own input files (both resolved)."""

    root: Path
    sources: tuple[Path, ...] = ()

    def file(self, value: Path | str, *, option: str) -> Path:
        """The resolved file ``value`` names, after every refusal; a regular file or a new one in an
        existing directory."""
        path = self._checked(value, option=option, kind="file")
        if path.exists() and not path.is_file():
            raise SchemaRouterError(f"{option} {_shown(value)}: not a regular file; name a file to write")
        if not path.parent.is_dir():
            raise SchemaRouterError(f"{option} {_shown(value)}: the directory {path.parent} does not exist")
        return path

    def directory(self, value: Path | str, *, option: str, names: Iterable[str] = ()) -> Path:
        """The resolved directory ``value`` names (it may not exist yet), after every refusal; ``names``
        are the files the command writes inside it, none of which may be one of its inputs."""
        path = self._checked(value, option=option, kind="directory")
        if path.exists() and not path.is_dir():
            raise SchemaRouterError(f"{option} {_shown(value)}: exists and is not a directory")
        for name in names:
            self._not_a_source(path / name, value, option=option)
        return path

    def write_text(self, value: Path | str, text: str, *, option: str) -> Path:
        """Check ``value`` as a file and write ``text`` to it atomically; the path written."""
        path = self.file(value, option=option)
        write_text_atomic(path, text)
        return path

    def write_bytes(self, value: Path | str, data: bytes, *, option: str) -> Path:
        """Check ``value`` as a file and write ``data`` to it atomically; the path written."""
        path = self.file(value, option=option)
        write_bytes_atomic(path, data)
        return path

    def _checked(self, value: Path | str, *, option: str, kind: str) -> Path:
        text = str(value)
        if text in ("", "."):
            raise SchemaRouterError(
                f"{option} {_shown(value)}: refused: an empty path (or '.') names the current directory; "
                f"name a {kind} to write"
            )
        try:
            path = Path(value).expanduser().resolve()
        except (OSError, RuntimeError) as err:  # a symlink loop
            raise SchemaRouterError(f"{option} {_shown(value)}: refused: cannot resolve it ({err})") from None
        why = self._refusal(path, kind=kind)
        if why is not None:
            shown = f"{_shown(value)}" + (f" (resolves to {path})" if Path(value).absolute() != path else "")
            raise SchemaRouterError(f"{option} {shown}: refused: {why}")
        self._not_a_source(path, value, option=option)
        return path

    def _not_a_source(self, path: Path, value: Path | str, *, option: str) -> None:
        if path in self.sources:
            raise SchemaRouterError(
                f"{option} {_shown(value)}: refused: it is this command's own input file; write elsewhere"
            )

    def _refusal(self, path: Path, *, kind: str) -> str | None:
        """Why ``path`` may not be written, or None (a file over a directory is refused by ``file``)."""
        root = self.root
        if path == root or path in root.parents:
            if kind == "file":
                return None
            return "it is the project directory or a folder above it"
        if root not in path.parents:
            return None
        parts = path.relative_to(root).parts
        if parts[0] == PROJECT_FILE:
            return "it is the project file"
        if parts[0] == ".git":
            return "it is inside the project's .git/"
        if parts[0] not in PROTECTED_TOPS:
            return None
        return (
            f"it is inside {_folder(root, parts)}, which only {EXPERIMENT_WRITERS} write (each its own files)"
        )


def output_guard(project_root: Path, *, sources: Iterable[Path] = ()) -> OutputGuard:
    """The guard of a command run in the project at ``project_root`` reading ``sources``."""
    resolved = []
    for source in sources:
        try:
            resolved.append(Path(source).expanduser().resolve())
        except (OSError, RuntimeError):
            continue  # an input that cannot be resolved cannot be overwritten through a resolved path
    return OutputGuard(Path(project_root).resolve(), tuple(resolved))


def _folder(root: Path, parts: tuple[str, ...]) -> str:
    """The protected folder a path under spec/, catalogs/ or golden/ is in, for the message."""
    top = parts[0]
    if not (root / PROJECT_FILE).is_file():
        return f"{top}/, the folder of the project's experiment"
    name = parts[1] if len(parts) > 1 else ""
    if name == "_surfaces":
        return f"{top}/_surfaces/, the committed pilot surfaces"
    if name and (root / "spec" / name).is_dir() and not name.startswith("."):
        return f"{top}/{name}/, a folder of experiment {name}"
    return f"{top}/, where the project's experiments live"


def _shown(value: Path | str) -> str:
    """``value`` as the user gave it; quoted when it is empty or holds spaces or control characters."""
    text = str(value)
    return text if text not in ("", ".") and text.isprintable() and " " not in text else repr(text)
