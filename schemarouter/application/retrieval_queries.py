"""Reading a judged query file for ``sr retrieval eval``: JSON Lines, one query per line.

Each line is an object::

    {"id": "q01", "query": "ship the order with DHL", "relevant": ["shipments.create_shipment"],
     "state": {...}}                                      # state: optional, an ObservableState

- ``id`` (optional): unique; without one a query is ``q0001``, ``q0002``, ... by its position among
  the file's queries; ``query``: the text; ``relevant``: the routes a good ranking puts first (at
  least one), each a route ID of the catalog or, for an imported catalog (one with a ``source``
  record), a tool's name in its source (the MCP tool name, the OpenAI function name, the
  operationId), mapped to its route ID; a name that is the route ID or name of more than one
  endpoint is refused with a line naming the candidates;
- ``state`` (optional): what research strategies are evaluated on, held to everything a state file is
  (``runtime/state/state_file.py``: the contract, and every name registered in the catalog). Static
  strategies ignore it.

Blank lines and lines starting with ``#`` are skipped. The file is read as a user's document is
(``documents.read_user_bytes``: a regular file of at most ``limits.DOCUMENT_BYTES``, UTF-8), holds
at most ``limits.QUERIES_PER_FILE`` queries of at most ``limits.QUERY_CHARS`` characters, and no
string of a line may hold a control character. Every problem is one ``file:line:col: key: message``
line, all of them at once, a value shown escaped and shortened.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from runtime.catalog.model import Catalog
from runtime.core import limits, safe_json
from runtime.core.errors import SchemaRouterError
from runtime.documents import control_characters, decode_user_text, read_user_bytes
from runtime.documents import shown as shown_value
from runtime.state.errors import ContractViolation
from runtime.state.model import ObservableState, with_set_defaults
from runtime.state.state_file import Vocabulary

KEYS = ("id", "query", "relevant", "state")


@dataclass(frozen=True)
class JudgedQuery:
    """One query with its relevant routes (and optionally a state for research strategies)."""

    query_id: str
    query: str
    relevant: frozenset[str]
    state: ObservableState | None


def read_queries(path: Path, catalog: Catalog) -> list[JudgedQuery]:
    """Every query of the file, in file order; one line per problem."""
    shown = str(path)
    text = decode_user_text(read_user_bytes(path, shown_as=shown, what="query file"), shown_as=shown)
    lines = text.splitlines()
    count = sum(1 for line in lines if line.strip() and not line.lstrip().startswith("#"))
    if count > limits.QUERIES_PER_FILE:
        raise SchemaRouterError(f"{shown}:1:1: {limits.over_limit('queries', count, 'QUERIES_PER_FILE')}")
    names = _names(catalog)
    vocabulary = Vocabulary.of(catalog)
    out: list[JudgedQuery] = []
    problems: list[str] = []
    seen: dict[str, int] = {}
    position = 0
    for lineno, line in enumerate(lines, start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        position += 1

        def problem(
            path_: tuple[str | int, ...], message: str, line: str = line, lineno: int = lineno
        ) -> None:
            _, column = safe_json.position_of(line, path_) if path_ else (1, 1)
            key = ".".join(str(p) if isinstance(p, str) else f"[{p}]" for p in path_).replace(".[", "[")
            problems.append(f"{shown}:{lineno}:{column}: {key or '(line)'}: {message}")

        try:
            data = safe_json.loads(line)
        except safe_json.JsonTextError as err:
            problems.append(f"{shown}:{lineno}:{err.column}: not JSON: {err.message}")
            continue
        if not isinstance(data, dict):
            problem((), "each line must be a JSON object")
            continue
        controls = list(control_characters(data))
        if controls:
            problem(*controls[0])
            continue
        for key in data:
            if key not in KEYS:
                problem((key,), f"unknown key (keys: {', '.join(KEYS)})")
        query_id, query, relevant = (
            data.get("id", f"q{position:04d}"),
            data.get("query"),
            data.get("relevant"),
        )
        if not isinstance(query_id, str) or not query_id:
            problem(("id",) if "id" in data else (), "needs a non-empty string 'id'")
            continue
        if query_id in seen:
            problem(("id",), f"{shown_value(query_id)} is also the id of line {seen[query_id]}")
        seen[query_id] = lineno
        if not isinstance(query, str) or not query.strip():
            problem(("query",) if "query" in data else (), "needs a non-empty string 'query'")
            continue
        too_long = limits.query_problem(query)
        if too_long is not None:
            problem(("query",), too_long)
            continue
        if not isinstance(relevant, list) or not relevant or not all(isinstance(r, str) for r in relevant):
            problem(("relevant",) if "relevant" in data else (), "needs a non-empty list of route IDs")
            continue
        unknown = [i for i, r in enumerate(relevant) if len(names.get(r, ())) != 1]
        for i in unknown:
            problem(("relevant", i), _unknown(relevant[i], names.get(relevant[i], ()), catalog))
        state = None
        if "state" in data:
            try:
                raw = with_set_defaults(data["state"])
                state = ObservableState.model_validate(raw)
                vocabulary.check(raw)
            except ContractViolation as err:
                inner = safe_json.parse_path(err.path) if err.path else ()
                problem(("state", *inner), str(err))
                continue
        if not unknown:
            routes = frozenset(names[r][0] for r in relevant)
            out.append(JudgedQuery(query_id, query, routes, state))
    if problems:
        raise SchemaRouterError("\n".join(problems))
    if not out:
        raise SchemaRouterError(f"{shown}: no query")
    return out


def _names(catalog: Catalog) -> dict[str, tuple[str, ...]]:
    """Every name ``relevant`` may use and the route IDs it names (sorted): each route ID, and for an
    imported catalog each tool's source name (``Endpoint.name``: MCP tool, OpenAI function,
    operationId)."""
    found: dict[str, set[str]] = {}
    for endpoint in catalog.endpoints:
        found.setdefault(endpoint.route_id, set()).add(endpoint.route_id)
        if catalog.source is not None:
            found.setdefault(endpoint.name, set()).add(endpoint.route_id)
    return {name: tuple(sorted(routes)) for name, routes in found.items()}


def _unknown(name: str, candidates: tuple[str, ...], catalog: Catalog) -> str:
    if candidates:
        return f"{shown_value(name)} is ambiguous: it names {', '.join(candidates)} (use a route ID)"
    if catalog.source is not None:
        what = f"{catalog.source.format} tool name"
        return f"{shown_value(name)} is neither a route ID nor an {what} of the catalog"
    return f"{shown_value(name)} is not a route of the catalog"
