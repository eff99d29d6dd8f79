"""report.html's traces packed on a second thread: the same bytes as packing in place, used only for the
very trace strings the packing started on, and no thread left behind."""

from __future__ import annotations

import gzip
import json
import threading
from dataclasses import dataclass

from runtime.report.trace_packing import TracePacker, packed_traces


@dataclass(frozen=True)
class _Outcome:
    trace_json: str | None


def _traces(n: int) -> list[str | None]:
    return [json.dumps({"i": i, "text": "r\u00e9sum\u00e9 " * (i % 7)}) if i % 5 else None for i in range(n)]


def _packers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("sr-pack-traces")]


def test_the_background_bytes_are_packed_traces_own_and_decode_to_the_traces() -> None:
    traces = _traces(300)
    packer = TracePacker()
    packer.start([_Outcome(t) for t in traces])
    try:
        got = packer.packed(traces)
    finally:
        packer.close()
    assert got == packed_traces(traces)
    assert json.loads(gzip.decompress(got)) == [None if t is None else json.loads(t) for t in traces]
    assert not _packers()


def test_other_strings_are_packed_again_never_the_stale_result() -> None:
    started = _traces(50)
    packer = TracePacker()
    packer.start([_Outcome(t) for t in started])
    equal_but_not_the_same = [None if t is None else "".join(t) + "" for t in started]
    edited = [*started[:-1], json.dumps({"edited": True})]
    try:
        assert packer.packed(edited) == packed_traces(edited) != packed_traces(started)
        assert packer.packed(started[:10]) == packed_traces(started[:10])
        assert packer.packed(equal_but_not_the_same) == packed_traces(started)
    finally:
        packer.close()


def test_close_without_start_and_twice_is_harmless_and_packed_works_unstarted() -> None:
    packer = TracePacker()
    packer.close()
    assert packer.packed(["{}"]) == packed_traces(["{}"])
    packer.start([_Outcome("{}")])
    packer.close()
    packer.close()
    assert not _packers()
