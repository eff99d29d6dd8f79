"""Import problems: one line each, naming the file, the operation (or tool) and the construct."""

from __future__ import annotations

import unicodedata

from runtime.core.errors import SchemaRouterError
from runtime.documents import Position


class ImportProblem(SchemaRouterError):
    """``FILE: WHERE: message``, or ``FILE:LINE:COL: WHERE: message`` where the position is known
    (WHERE: ``GET /pets/{petId} (getPet)``, ``tools[3] (search)``, ...). Whitespace runs become one
    space, and control, invisible and bidirectional characters are escaped, so the line prints as
    one line and as it reads."""

    def __init__(self, file: str, where: str, message: str, position: Position | None = None) -> None:
        self.file, self.where, self.detail = file, where, message
        at = f"{file}:{position.line}:{position.col}" if position is not None else file
        super().__init__(f"{at}: {_printable(where)}: {_printable(message)}")


def _printable(text: str) -> str:
    return "".join(
        f"\\u{ord(c):04x}" if unicodedata.category(c) in ("Cc", "Cf", "Cs", "Zl", "Zp") else c
        for c in " ".join(text.split())
    )


def dependency_missing(module: str, extra: str, what: str) -> SchemaRouterError:
    """The line a missing optional dependency gives."""
    return SchemaRouterError(
        f"{what} needs the Python package {module!r}: pip install -e '.[{extra}]' (or pip install {module})"
    )
