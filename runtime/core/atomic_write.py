"""Atomic file writes with unique temporary names.

A file is written to a temporary file beside it, named uniquely by ``tempfile`` (never a fixed
``.name.tmp``, which two concurrent writers would share), flushed and fsynced, then renamed over the
target with ``os.replace``. A reader sees the old file or the new one, never half of either; two writers
race only for which complete file wins. A failure removes the temporary file and raises
``SchemaRouterError`` naming the target, never a bare ``OSError``.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from runtime.core.errors import SchemaRouterError

# The process's umask, read once: the written file gets the permissions a plain open() would give it.
_UMASK = os.umask(0o022)
os.umask(_UMASK)


def check_output_file(path: Path, *, option: str) -> None:
    """Refuse, before any work is done, a path the user named for output (``--json PATH``) that is not a
    regular file or a new one in an existing directory (a directory, or a device such as ``/dev/full``,
    which an atomic rename would replace)."""
    if path.exists() and not path.is_file():
        raise SchemaRouterError(f"{option} {path}: not a regular file; name a file to write")
    if not path.parent.is_dir():
        raise SchemaRouterError(f"{option} {path}: the directory {path.parent} does not exist")


def write_output_file(path: Path, text: str, *, option: str) -> None:
    """Write a file the user named on the command line, after ``check_output_file``."""
    check_output_file(path, option=option)
    write_text_atomic(path, text)


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8, LF line endings as given) to ``path`` atomically."""
    write_bytes_atomic(path, text.encode("utf-8"))


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as err:
        raise SchemaRouterError(f"{path}: cannot write ({err.strerror or err})") from None
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o666 & ~_UMASK)
        os.replace(tmp, path)
    except OSError as err:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise SchemaRouterError(f"{path}: cannot write ({err.strerror or err})") from None
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
