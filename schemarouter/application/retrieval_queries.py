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

from dataclasses import dataclass, field
from pathlib import Path

from runtime.catalog.model import Catalog
from runtime.core import limits, safe_json
from runtime.core.errors import SchemaRouterError
from runtime.core.json_value import JSONObject
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
    count = sum(1 for line in lines if not _skipped(line))
    if count > limits.QUERIES_PER_FILE:
        raise SchemaRouterError(f"{shown}:1:1: {limits.over_limit('queries', count, 'QUERIES_PER_FILE')}")
    reader = _QueryReader(shown, catalog, _names(catalog), Vocabulary.of(catalog))
    out: list[JudgedQuery] = []
    position = 0
    for lineno, line in enumerate(lines, start=1):
        if _skipped(line):
            continue
        position += 1
        judged = reader.read_line(_Line(reader.problems, shown, line, lineno), position)
        if judged is not None:
            out.append(judged)
    if reader.problems:
        raise SchemaRouterError("\n".join(reader.problems))
    if not out:
        raise SchemaRouterError(f"{shown}: no query")
    return out


def _skipped(line: str) -> bool:
    """A blank line or a comment."""
    return not line.strip() or line.lstrip().startswith("#")


@dataclass(frozen=True)
class _Line:
    """One line of the file, and where its problems go (``file:line:col: key: message``)."""

    problems: list[str]
    shown: str
    text: str
    lineno: int

    def problem(self, path_: tuple[str | int, ...], message: str) -> None:
        _, column = safe_json.position_of(self.text, path_) if path_ else (1, 1)
        key = ".".join(str(p) if isinstance(p, str) else f"[{p}]" for p in path_).replace(".[", "[")
        self.problems.append(f"{self.shown}:{self.lineno}:{column}: {key or '(line)'}: {message}")


@dataclass
class _QueryReader:
    """What every line is read against: the catalog's names and vocabulary, and the ids seen so far."""

    shown: str
    catalog: Catalog
    names: dict[str, tuple[str, ...]]
    vocabulary: Vocabulary
    problems: list[str] = field(default_factory=list)
    seen: dict[str, int] = field(default_factory=dict)

    def read_line(self, line: _Line, position: int) -> JudgedQuery | None:
        """The line's query, or None when it has a problem (each one recorded)."""
        data = self._object(line)
        if data is None:
            return None
        fields = self._fields(line, data, position)
        if fields is None:
            return None
        query_id, query, relevant = fields
        unknown = [i for i, r in enumerate(relevant) if len(self.names.get(r, ())) != 1]
        for i in unknown:
            line.problem(
                ("relevant", i), _unknown(relevant[i], self.names.get(relevant[i], ()), self.catalog)
            )
        valid, state = self._state(line, data)
        if not valid or unknown:
            return None
        return JudgedQuery(query_id, query, frozenset(self.names[r][0] for r in relevant), state)

    def _object(self, line: _Line) -> JSONObject | None:
        """The line as a JSON object without control characters (unknown keys are recorded, not fatal)."""
        try:
            data = safe_json.loads(line.text)
        except safe_json.JsonTextError as err:
            self.problems.append(f"{self.shown}:{line.lineno}:{err.column}: not JSON: {err.message}")
            return None
        if not isinstance(data, dict):
            line.problem((), "each line must be a JSON object")
            return None
        controls = list(control_characters(data))
        if controls:
            line.problem(*controls[0])
            return None
        for key in data:
            if key not in KEYS:
                line.problem((key,), f"unknown key (keys: {', '.join(KEYS)})")
        return data

    def _fields(self, line: _Line, data: JSONObject, position: int) -> tuple[str, str, list[str]] | None:
        """The line's id (a repeated one is recorded, not fatal), query and relevant names."""
        query_id, query, relevant = (
            data.get("id", f"q{position:04d}"),
            data.get("query"),
            data.get("relevant"),
        )
        if not isinstance(query_id, str) or not query_id:
            line.problem(("id",) if "id" in data else (), "needs a non-empty string 'id'")
            return None
        if query_id in self.seen:
            line.problem(("id",), f"{shown_value(query_id)} is also the id of line {self.seen[query_id]}")
        self.seen[query_id] = line.lineno
        if not isinstance(query, str) or not query.strip():
            line.problem(("query",) if "query" in data else (), "needs a non-empty string 'query'")
            return None
        too_long = limits.query_problem(query)
        if too_long is not None:
            line.problem(("query",), too_long)
            return None
        if not isinstance(relevant, list) or not relevant or not all(isinstance(r, str) for r in relevant):
            line.problem(("relevant",) if "relevant" in data else (), "needs a non-empty list of route IDs")
            return None
        return query_id, query, [r for r in relevant if isinstance(r, str)]  # every one is a string

    def _state(self, line: _Line, data: JSONObject) -> tuple[bool, ObservableState | None]:
        """Whether the line's state (if any) holds to the contract and the catalog, and the state."""
        if "state" not in data:
            return True, None
        try:
            raw = with_set_defaults(data["state"])
            state = ObservableState.model_validate(raw)
            self.vocabulary.check(raw)
        except ContractViolation as err:
            inner = safe_json.parse_path(err.path) if err.path else ()
            line.problem(("state", *inner), str(err))
            return False, None
        return True, state


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
