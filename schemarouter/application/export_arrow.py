"""The per-task and decision-point tables as Arrow tables, written as Parquet or CSV through pyarrow.

Each column has a declared type (``export_tables``: string, int64, float64, bool, list<string>), so a
column that is null in every row keeps its type and the files read back to the same values. CSV has no
list type: a list column is written as its JSON text (``["a","b"]``), and null as an empty field.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from runtime.core.errors import SchemaRouterError
from schemarouter.application.export_tables import Kind, Row

if TYPE_CHECKING:
    import pyarrow


def _pa() -> Any:  # pyarrow ships no type information
    try:
        import pyarrow
    except ImportError:
        raise SchemaRouterError(
            "sr export --format parquet|csv needs pyarrow: pip install -e '.[export]' "
            "(or pip install pyarrow)"
        ) from None
    return pyarrow


def arrow_type(kind: Kind) -> pyarrow.DataType:
    pa = _pa()
    return {
        "string": pa.string(),
        "int": pa.int64(),
        "float": pa.float64(),
        "bool": pa.bool_(),
        "list": pa.list_(pa.string()),
    }[kind]


def arrow_table(
    rows: list[Row], columns: tuple[tuple[str, Kind], ...], *, lists_as_json: bool = False
) -> pyarrow.Table:
    """The rows as a ``pyarrow.Table`` with exactly ``columns``, in that order."""
    pa = _pa()
    fields, arrays = [], []
    for name, kind in columns:
        values = [r.get(name) for r in rows]
        if kind == "float":
            values = [None if v is None else float(v) for v in values]
        if kind == "list" and lists_as_json:
            kind = "string"
            values = [None if v is None else json.dumps(v, ensure_ascii=False) for v in values]
        fields.append(pa.field(name, arrow_type(kind)))
        arrays.append(pa.array(values, type=arrow_type(kind)))
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def parquet_bytes(rows: list[Row], columns: tuple[tuple[str, Kind], ...]) -> bytes:
    pa = _pa()
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.write_table(arrow_table(rows, columns), sink, compression="zstd")
    return bytes(sink.getvalue().to_pybytes())


def csv_bytes(rows: list[Row], columns: tuple[tuple[str, Kind], ...]) -> bytes:
    pa = _pa()
    import pyarrow.csv as pcsv

    sink = pa.BufferOutputStream()
    pcsv.write_csv(arrow_table(rows, columns, lists_as_json=True), sink)
    return bytes(sink.getvalue().to_pybytes())


def read_csv_rows(data: bytes, columns: tuple[tuple[str, Kind], ...]) -> list[Row]:
    """The rows of a CSV written by ``csv_bytes``, with their declared types (lists decoded)."""
    pa = _pa()
    import pyarrow.csv as pcsv

    types = {name: arrow_type("string" if kind == "list" else kind) for name, kind in columns}
    table = pcsv.read_csv(
        pa.BufferReader(data),
        convert_options=pcsv.ConvertOptions(
            column_types=types, strings_can_be_null=True, quoted_strings_can_be_null=False
        ),
    )
    lists = [name for name, kind in columns if kind == "list"]
    rows: list[Row] = table.to_pylist()
    for row in rows:
        for name in lists:
            if row[name] is not None:
                row[name] = json.loads(row[name])
    return rows
