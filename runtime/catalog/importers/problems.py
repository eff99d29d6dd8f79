"""Import problems: one line each, naming the file, the operation (or tool) and the construct."""

from __future__ import annotations

from schemarouter.errors import SchemaRouterError


class ImportProblem(SchemaRouterError):
    """``FILE: WHERE: message`` (WHERE: ``GET /pets/{petId} (getPet)``, ``tools[3] (search)``, ...)."""

    def __init__(self, file: str, where: str, message: str) -> None:
        self.file, self.where, self.detail = file, where, message
        super().__init__(f"{file}: {where}: {_one_line(message)}")


def _one_line(text: str) -> str:
    return " ".join(text.split())


def dependency_missing(module: str, extra: str, what: str) -> SchemaRouterError:
    """The line a missing optional dependency gives."""
    return SchemaRouterError(
        f"{what} needs the Python package {module!r}: pip install -e '.[{extra}]' (or pip install {module})"
    )
