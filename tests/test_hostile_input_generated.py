"""A generated suite of hostile user documents (issue 28, part 2): variants of every family of
tests/cases/hostile/input.yaml over the three import formats, judged query files and the intents and
pools files of `sr surface generate`, each held to the same rules:

- exit code 1, one line, no traceback (nor an internal error);
- where the input is a file, the line starts ``file:line:col:`` and says what is wrong (``fragment``);
- nothing written outside ``--out``, and spec/, catalogs/, golden/ of the project untouched.

Every input is built here, small: a bomb is refused before it is expanded, so no variant takes long.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from extras import require_module
from hostile_input_support import assert_refused, openapi_document, run_against_project
from hostile_support import REPO

pytestmark = pytest.mark.slow  # seconds of work: scheduled first (tests/conftest.py)

require_module("openapi_spec_validator", extra="catalog-import")
require_module("mcp.types", extra="catalog-import")

DEEP = 70  # past NESTING_DEPTH (64)
BIG = 4_000_001  # past DOCUMENT_BYTES
EXAMPLE = REPO / "tests" / "fixtures" / "surfaces" / "example"
CATALOG = REPO / "catalogs" / "0.14" / "catalog_100.json"
BOMB = "a0: &a0 [x]\n" + "".join(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 9))


@dataclass(frozen=True)
class Variant:
    id: str
    name: str  # the file's name in the work directory ("" when the command reads a device)
    content: bytes | None  # None: ``name`` is an absolute path used as it is
    args: Callable[[str, Path], list[str]]  # the file's path, the work directory -> the arguments
    fragment: str
    located: bool = True
    also: dict[str, bytes] = field(default_factory=dict)


def _import(fmt: str) -> Callable[[str, Path], list[str]]:
    return lambda path, work: ["catalog", "import", path, "--from", fmt, "--out", f"{work}/out.json"]


def _eval(path: str, work: Path) -> list[str]:
    return ["retrieval", "eval", "--catalog-file", str(CATALOG), "--queries", path]


def _intents(path: str, work: Path) -> list[str]:
    return ["surface", "generate", "--intents", path, "--seed", "1", "--out", f"{work}/out"]


def _pools(path: str, work: Path) -> list[str]:
    return ["surface", "generate", "--intents", f"{work}/intents.yaml", "--pools", path, "--seed", "1",
            "--out", f"{work}/out"]  # fmt: skip


def _j(data: Any) -> bytes:
    return json.dumps(data, ensure_ascii=False).encode("utf-8")


def _openapi(**operation: Any) -> dict[str, Any]:
    op = {"operationId": "getPets", "responses": {"200": {"description": "ok"}}, **operation}
    return {"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {"/pets": {"get": op}}}


def _mcp(**tool: Any) -> dict[str, Any]:
    return {"tools": [{"name": "read_file", "inputSchema": {"type": "object", "properties": {}}, **tool}]}


def _openai(**function: Any) -> list[Any]:
    fn = {"name": "list_items", "parameters": {"type": "object", "properties": {}}, **function}
    return [{"type": "function", "function": fn}]


def _ref(ref: str) -> dict[str, Any]:
    return {"type": "object", "properties": {"p": {"$ref": ref}}}


def _import_variants() -> list[Variant]:
    openapi_yaml, openapi_json = _import("openapi"), _import("openapi")
    mcp, openai = _import("mcp"), _import("openai")
    deep_json = "[" * DEEP + "]" * DEEP
    out = [
        Variant("openapi-yaml-alias-bomb", "api.yaml", BOMB.encode(), openapi_yaml, "anchors and aliases"),
        Variant("openapi-yaml-one-anchor", "api.yaml", b"openapi: &v 3.0.3\n", openapi_yaml, "anchor &v"),
        Variant(
            "openapi-yaml-deep-flow", "api.yaml", f"a: {deep_json}\n".encode(), openapi_yaml, "nested deeper"
        ),
        Variant(
            "openapi-yaml-deep-block",
            "api.yaml",
            ("a:\n" + "".join("  " * i + "- \n" for i in range(DEEP))).encode(),
            openapi_yaml,
            "nested deeper",
        ),
        Variant(
            "openapi-json-deep", "api.json", f'{{"a": {deep_json}}}'.encode(), openapi_json, "nested deeper"
        ),
        Variant("mcp-json-deep", "tools.json", f'{{"tools": {deep_json}}}'.encode(), mcp, "nested deeper"),
        Variant("openai-json-deep", "tools.json", deep_json.encode(), openai, "nested deeper"),
        Variant(
            "openapi-yaml-python-tag",
            "api.yaml",
            b"openapi: !!python/object:os.system x\n",
            openapi_yaml,
            "tag",
        ),
        Variant(
            "openapi-yaml-duplicate-key",
            "api.yaml",
            b"openapi: 3.0.3\nopenapi: 3.1.0\n",
            openapi_yaml,
            "duplicate key",
        ),
        Variant("mcp-json-duplicate-key", "tools.json", b'{"tools": [], "tools": []}', mcp, "duplicate key"),
        Variant(
            "openapi-yaml-bell-escape",
            "api.yaml",
            b'openapi: 3.0.3\ninfo: {title: "a\\ab", version: "1"}\npaths: {}\n',
            openapi_yaml,
            "control character U+0007",
        ),
        Variant(
            "mcp-json-bell-escape",
            "tools.json",
            _j(_mcp(description="a\u0007b")),
            mcp,
            "control character U+0007",
        ),
        Variant(
            "openai-json-escape-escape", "tools.json", _j(_openai(description="\u001b[31m")), openai, "U+001B"
        ),
        Variant("openai-json-raw-c1", "tools.json", _j(_openai(description="a\u0085b")), openai, "U+0085"),
        Variant("openapi-yaml-too-big", "api.yaml", b"#" * BIG, openapi_yaml, "DOCUMENT_BYTES"),
        Variant("mcp-json-too-big", "tools.json", b" " * BIG + b"{}", mcp, "DOCUMENT_BYTES"),
        Variant("openai-device", "/dev/zero", None, openai, "not a regular file", located=False),
        Variant("openai-not-utf8", "tools.json", b'[{"name": "\xff"}]', openai, "not UTF-8"),
        Variant("mcp-bidi-isolate-name", "tools.json", _j(_mcp(name="read\u2067file")), mcp, "U+2067"),
        Variant(
            "openapi-rlm-operation-id",
            "api.json",
            _j(_openapi(operationId="get\u200fPets")),
            openapi_json,
            "U+200F",
        ),
        Variant(
            "openai-zero-width-joiner", "tools.json", _j(_openai(name="list\u200ditems")), openai, "U+200D"
        ),
        Variant("mcp-nfkc-ligature", "tools.json", _j(_mcp(name="\ufb01le_read")), mcp, "NFKC"),
        Variant("openai-nfkc-full-width", "tools.json", _j(_openai(name="ｌｉｓｔ_items")), openai, "NFKC"),
        Variant("openapi-nfkc-tag", "api.json", _j(_openapi(tags=["ｐｅｔｓ"])), openapi_json, "NFKC"),
        Variant(
            "openapi-route-id-upper",
            "api.json",
            _j(_openapi(**{"x-route-id": "Pets.Get"})),
            openapi_json,
            "does not match",
        ),
        Variant(
            "openapi-route-id-no-dot",
            "api.json",
            _j(_openapi(**{"x-route-id": "pets"})),
            openapi_json,
            "does not match",
        ),
        Variant(
            "openapi-route-id-number",
            "api.json",
            _j(_openapi(**{"x-route-id": 42})),
            openapi_json,
            "must be a string",
        ),
        Variant(
            "mcp-route-id-path",
            "tools.json",
            _j(_mcp(_meta={"x-route-id": "a.b/../c"})),
            mcp,
            "does not match",
        ),
        Variant(
            "openai-route-id-markup",
            "tools.json",
            _j(_openai(**{"x-route-id": "<script>.x"})),
            openai,
            "does not match",
        ),
        Variant(
            "openapi-domain-space",
            "api.json",
            _j(_openapi(**{"x-domain": "a b"})),
            openapi_json,
            "does not match",
        ),
        Variant(
            "openai-field-name-newline",
            "tools.json",
            _j(_openai(parameters={"type": "object", "properties": {"a\nb": {"type": "string"}}})),
            openai,
            "field name",
        ),
        Variant(
            "mcp-semantic-id-space",
            "tools.json",
            _j(
                _mcp(
                    inputSchema={
                        "type": "object",
                        "properties": {"p": {"type": "string", "x-semantic-id": "Geo Lat"}},
                    }
                )
            ),
            mcp,
            "x-semantic-id",
        ),
        Variant(
            "openapi-ref-url",
            "api.json",
            _j(_openapi(responses={"200": {"$ref": "https://example.com/r.json"}})),
            openapi_json,
            "points outside the document",
        ),
        Variant(
            "mcp-ref-other-file",
            "tools.json",
            _j(_mcp(inputSchema=_ref("other.json#/x"))),
            mcp,
            "points outside",
        ),
        Variant(
            "mcp-ref-dangling",
            "tools.json",
            _j(_mcp(inputSchema=_ref("#/$defs/missing"))),
            mcp,
            "does not resolve",
        ),
        Variant(
            "openai-ref-url",
            "tools.json",
            _j(_openai(parameters=_ref("http://169.254.169.254/x"))),
            openai,
            "points outside",
        ),
        Variant(
            "openai-too-many-tools",
            "tools.json",
            _j([{"type": "function", "function": {"name": f"list_{i}"}} for i in range(2501)]),
            openai,
            "OPERATIONS_PER_DOCUMENT",
        ),
        Variant(
            "mcp-too-many-tools",
            "tools.json",
            _j({"tools": [{"name": f"t{i}", "inputSchema": {"type": "object"}} for i in range(2501)]}),
            mcp,
            "OPERATIONS_PER_DOCUMENT",
        ),
        Variant(
            "openapi-too-many-operations",
            "api.json",
            _j(openapi_document(2501)),
            openapi_json,
            "OPERATIONS_PER_DOCUMENT",
        ),
    ]
    return out


def _query(**fields: Any) -> dict[str, Any]:
    return {"id": "q1", "query": "weather tomorrow", "relevant": ["weather.forecast.daily.v2"], **fields}


def _lines(*rows: Any) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode()


def _query_variants() -> list[Variant]:
    return [
        Variant("query-too-long", "q.jsonl", _lines(_query(query="w" * 4097)), _eval, "QUERY_CHARS"),
        Variant("query-bell", "q.jsonl", _lines(_query(query="a\u0007b")), _eval, "control character U+0007"),
        Variant(
            "query-id-escape", "q.jsonl", _lines(_query(id="\u001b]0;x\u0007")), _eval, "control character"
        ),
        Variant(
            "queries-too-many",
            "q.jsonl",
            _lines(*(_query(id=f"q{i}") for i in range(10_001))),
            _eval,
            "QUERIES_PER_FILE",
        ),
        Variant("queries-not-utf8", "q.jsonl", b'{"id": "\xc3\x28"}\n', _eval, "not UTF-8"),
        Variant("queries-too-big", "q.jsonl", b"#" * BIG, _eval, "DOCUMENT_BYTES"),
        Variant("queries-device", "/dev/zero", None, _eval, "not a regular file", located=False),
        Variant("query-deep", "q.jsonl", ("[" * DEEP + "]" * DEEP + "\n").encode(), _eval, "nested deeper"),
        Variant("query-duplicate-key", "q.jsonl", b'{"id": "a", "id": "b"}\n', _eval, "duplicate key"),
    ]


INTENTS = (EXAMPLE / "intents.yaml").read_text(encoding="utf-8")
POOLS = (EXAMPLE / "pools.yaml").read_text(encoding="utf-8")
FIRST = "Any decent hotels within walking distance of {place}?"


def _phrasing(text: str) -> bytes:
    return INTENTS.replace(FIRST, text, 1).encode()


def _many_intents(count: int) -> bytes:
    head = INTENTS[INTENTS.index("  - id: ex_hotels_nearby") : INTENTS.index("  - id: ex_hold_near_landmark")]
    copies = "".join(head.replace("ex_hotels_nearby", f"ex_copy_{i}") for i in range(count))
    return ("intents:\n" + copies).encode()


def _surface_variants() -> list[Variant]:
    pools_also = {"intents.yaml": INTENTS.encode()}
    out = [
        Variant(
            "intents-alias-bomb", "intents.yaml", (BOMB + INTENTS).encode(), _intents, "anchors and aliases"
        ),
        Variant(
            "intents-anchor",
            "intents.yaml",
            INTENTS.replace("slots: {place: landmark}", "slots: &s {place: landmark}", 1).encode(),
            _intents,
            "anchor &s",
        ),
        Variant(
            "intents-deep",
            "intents.yaml",
            (INTENTS + "deep: " + "[" * DEEP + "]" * DEEP + "\n").encode(),
            _intents,
            "nested deeper",
        ),
        Variant("intents-too-big", "intents.yaml", INTENTS.encode() + b"#" * BIG, _intents, "DOCUMENT_BYTES"),
        Variant("intents-bell-escape", "intents.yaml", _phrasing("near \\a {place}"), _intents, "U+0007"),
        Variant(
            "intents-duplicate-key",
            "intents.yaml",
            (INTENTS + "intents: []\n").encode(),
            _intents,
            "duplicate key",
        ),
        Variant("intents-not-utf8", "intents.yaml", b"intents: [\xff]\n", _intents, "not UTF-8"),
        Variant("intents-etc-passwd", "/etc/passwd", None, _intents, "must be a mapping with 'intents'"),
        Variant("intents-too-many", "intents.yaml", _many_intents(1001), _intents, "INTENTS_PER_FILE"),
        Variant(
            "intents-duplicate-id",
            "intents.yaml",
            _many_intents(2).replace(b"ex_copy_1", b"ex_copy_0"),
            _intents,
            "also intents[0]",
        ),
        Variant(
            "phrasing-too-long",
            "intents.yaml",
            _phrasing("{place} " + "x" * 1000),
            _intents,
            "PHRASING_CHARS",
        ),
        Variant(
            "pools-etc-passwd", "/etc/passwd", None, _pools, "must be a mapping with 'pools'", also=pools_also
        ),
        Variant("pools-list", "pools.yaml", b"pools: [1, 2]\n", _pools, "pools", also=pools_also),
        Variant(
            "pools-alias-bomb",
            "pools.yaml",
            (BOMB + POOLS).encode(),
            _pools,
            "anchors and aliases",
            also=pools_also,
        ),
        Variant(
            "pools-duplicate-key",
            "pools.yaml",
            (POOLS + "pools: {}\n").encode(),
            _pools,
            "duplicate key",
            also=pools_also,
        ),
        Variant("pools-too-big", "pools.yaml", b"#" * BIG, _pools, "DOCUMENT_BYTES", also=pools_also),
    ]
    bombs = {
        "format-spec-width": "{place:>999999999}",
        "format-spec-fill": "{place:\x30>99999}",
        "conversion": "{place!r}",
        "attribute": "{place.__class__}",
        "index": "{place[0]}",
        "empty-braces": "{place} {}",
        "positional": "{place} {0}",
        "nested-spec": "{place:{place}}",
        "open-brace": "near {place",
        "lone-close": "near place} {place}",
        "open-at-end": "{place} {",
    }
    out += [
        Variant(f"phrasing-{name}", "intents.yaml", _phrasing(text), _intents, "intent ex_hotels_nearby (en)")
        for name, text in bombs.items()
    ]
    return out


VARIANTS = _import_variants() + _query_variants() + _surface_variants()


@pytest.mark.parametrize("variant", VARIANTS, ids=[v.id for v in VARIANTS])
def test_variant(variant: Variant, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    for name, data in variant.also.items():
        (work / name).write_bytes(data)
    if variant.content is None:
        path = variant.name
    else:
        path = str(work / variant.name)
        Path(path).write_bytes(variant.content)
    outcome = run_against_project(work, variant.args(path, work), may_write=("out",))
    assert_refused(outcome, file=path if variant.located else None)
    assert outcome.lines[0].startswith(path), outcome.output
    assert variant.fragment in outcome.lines[0], outcome.output


def test_the_suite_is_large_enough() -> None:
    assert len(VARIANTS) >= 30
    assert len({v.id for v in VARIANTS}) == len(VARIANTS)
