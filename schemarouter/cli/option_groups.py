"""Option groups: a command whose options are shared with others (the model-server flags of `sr run` and
`sr episode`) declares them once, as a group, instead of repeating thirty parameters.

``@with_options(GROUP, ...)`` appends each group's options to the command's signature, which is what
typer reads; the command takes them as ``**options`` (or reads ``ctx.params``). A group is a tuple of
``(name, Annotated[type, typer.Option(...)], default)``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, TypeVar

OptionSpec = tuple[str, Any, Any]
OptionGroup = tuple[OptionSpec, ...]
F = TypeVar("F", bound=Callable[..., Any])


def with_options(*groups: OptionGroup) -> Callable[[F], F]:
    """Add the groups' options (keyword-only, in order) to the decorated command's signature."""

    def wrap(fn: F) -> F:
        signature = inspect.signature(fn, eval_str=True)
        own = [p for p in signature.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
        added = [
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation, default=default)
            for group in groups
            for name, annotation, default in group
        ]
        names = [p.name for p in own + added]
        if len(set(names)) != len(names):
            raise ValueError(f"{fn.__name__}: an option is declared twice")
        fn.__signature__ = signature.replace(parameters=[*own, *added])  # type: ignore[attr-defined]
        return fn

    return wrap
