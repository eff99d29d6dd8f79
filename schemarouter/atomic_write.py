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

from schemarouter.errors import SchemaRouterError

# The process's umask, read once: the written file gets the permissions a plain open() would give it.
_UMASK = os.umask(0o022)
os.umask(_UMASK)


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8, LF line endings as given) to ``path`` atomically."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as err:
        raise SchemaRouterError(f"{path}: cannot write ({err.strerror or err})") from None
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
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
