"""Reading a source file: its bytes and digest, and its data (JSON, or YAML where the format allows it).

JSON is read with ``schemarouter.safe_json`` (duplicate keys, NaN, nesting depth, lone surrogates are
refused). YAML is read with PyYAML's safe loader, refusing duplicate keys as well. Any problem is one
``file:line:col: message`` line.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from schemarouter import safe_json
from schemarouter.errors import SchemaRouterError


@dataclass(frozen=True)
class SourceFile:
    """One source file: where it is, how to name it in messages, its bytes' digest and its data."""

    path: Path
    shown: str
    sha256: str
    data: Any


def read_source(path: Path, *, yaml_allowed: bool) -> SourceFile:
    """The file at ``path``; YAML is parsed only when ``yaml_allowed`` and the file is not JSON."""
    shown = str(path)
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise SchemaRouterError(f"{shown}: cannot read ({err.strerror or err})") from None
    digest = "sha256:" + hashlib.sha256(raw).hexdigest()
    looks_json = raw.lstrip()[:1] in (b"{", b"[")
    if looks_json or not yaml_allowed:
        try:
            data = safe_json.loads(raw)
        except safe_json.JsonTextError as err:
            raise SchemaRouterError(f"{shown}:{err.line}:{err.column}: not JSON: {err.message}") from None
    else:
        data = _load_yaml(raw, shown)
    return SourceFile(path=path, shown=shown, sha256=digest, data=data)


class _StrictLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing a key that appears twice in one mapping."""


def _mapping(loader: _StrictLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    out: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in out:
            mark = key_node.start_mark
            raise yaml.MarkedYAMLError(problem=f"duplicate key {key!r}", problem_mark=mark)
        out[key] = loader.construct_object(value_node, deep=True)
    return out


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


def _load_yaml(raw: bytes, shown: str) -> Any:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise SchemaRouterError(f"{shown}: not UTF-8 (byte {err.start})") from None
    try:
        return yaml.load(text, Loader=_StrictLoader)
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark
        where = f":{mark.line + 1}:{mark.column + 1}" if mark is not None else ""
        raise SchemaRouterError(f"{shown}{where}: not YAML: {err.problem}") from None
    except yaml.YAMLError as err:
        raise SchemaRouterError(f"{shown}: not YAML: {err}") from None
