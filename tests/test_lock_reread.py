"""``read_lock`` remembers the last valid lock by its exact bytes (one ``sr run`` reads the same lock
four times): the same bytes give the very lock they validated to, and any other bytes are read and
checked again, so a hand-edited or corrupt lock is refused exactly as without the memo."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from runtime.core.errors import SchemaRouterError
from runtime.spec_model import lock as lock_module
from runtime.spec_model.lock import FreezeLock, read_lock

REPO = Path(__file__).resolve().parents[1]
LOCK = REPO / "spec" / "0.14" / "freeze.lock"
_VALID_MEMO: dict[Path, tuple[bytes, bool, FreezeLock] | None] = {}


def _fresh(path: Path, *, check_digest: bool = True) -> object:
    """What read_lock gives with nothing remembered: the lock, or the error's message."""
    lock_module._LAST_READ = None
    try:
        return read_lock(path, check_digest=check_digest)
    except SchemaRouterError as err:
        return f"error: {err}"


def _remembered(path: Path, valid: Path, *, check_digest: bool = True) -> object:
    """What read_lock gives right after reading the valid lock (remembered): the memo read_lock left
    after its first read of ``valid`` is put back, rather than validating ``valid`` again each time."""
    if _VALID_MEMO.get(valid) is None:
        lock_module._LAST_READ = None
        read_lock(valid)
        _VALID_MEMO[valid] = lock_module._LAST_READ
    lock_module._LAST_READ = _VALID_MEMO[valid]
    try:
        return read_lock(path, check_digest=check_digest)
    except SchemaRouterError as err:
        return f"error: {err}"


def test_the_same_bytes_give_the_same_lock_and_other_bytes_are_checked_again(tmp_path: Path) -> None:
    valid = tmp_path / "valid.lock"
    valid.write_bytes(LOCK.read_bytes())
    lock_module._LAST_READ = None
    first = read_lock(valid)
    assert first is not None and read_lock(valid) is first  # nothing parsed again
    assert read_lock(valid, check_digest=False) is first  # a checked lock serves an unchecked read

    text = LOCK.read_bytes()
    hand_edited = tmp_path / "edited.lock"
    start = text.index(b'"reason"')
    hand_edited.write_bytes(text[:start] + text[start:].replace(b'": "', b'": "X', 1))
    message = _remembered(hand_edited, valid)
    assert isinstance(message, str) and "edited by hand" in message
    assert message == _fresh(hand_edited)
    lock_module._LAST_READ = None
    assert read_lock(hand_edited, check_digest=False) is not None  # remembered, digest unchecked
    with pytest.raises(SchemaRouterError, match="edited by hand"):  # never served to a checked read
        read_lock(hand_edited)

    rng = random.Random(20261203)  # random corruptions: the memo's answer is always the fresh one
    mutated = tmp_path / "mutated.lock"
    for _ in range(30):
        data = bytearray(text)
        for _ in range(rng.randint(1, 3)):
            data[rng.randrange(len(data))] = rng.randrange(32, 127)
        mutated.write_bytes(bytes(data))
        for check in (True, False):
            assert _remembered(mutated, valid, check_digest=check) == _fresh(mutated, check_digest=check)


def test_a_missing_lock_is_none_even_after_a_valid_read(tmp_path: Path) -> None:
    valid = tmp_path / "valid.lock"
    valid.write_bytes(LOCK.read_bytes())
    read_lock(valid)
    assert read_lock(tmp_path / "absent.lock") is None
    not_json = tmp_path / "bad.lock"
    not_json.write_bytes(b"[1, 2]")
    with pytest.raises(SchemaRouterError, match="not a JSON object"):
        read_lock(not_json)
