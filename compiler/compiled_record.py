"""When build/<id>/compiled.json is still current, so a run can use it instead of compiling again.

``sr compile`` (``compile_project`` with a lock) writes, beside compiled.json, ``compiled.sources.json``:
the sha256 of the raw bytes of every frozen file and of spec/freeze.lock, taken before compiling, the
sha256 of the compiled.json it wrote, and the digest of the code that compiles (this package and the
spec models). ``reuse_compiled`` returns the compiled spec only when all of these still hold:

* the same code digest and the same set of frozen files, each with the same raw bytes, and the same
  lock bytes (a lock that gained ``scoring_started`` is a new lock);
* compiled.json is the file that compile wrote, and it reads as a compiled spec of the same git state;
* its spec data is the frozen data: each ``raw`` spec document hashes (RFC 8785) to the lock's digest
  of that file, and the typed parts are rebuilt from that data and must equal the ones in the file;
* the freeze check passes: ``verify_project`` runs on the recorded digests (the lock read and checked
  against itself, its root, the experiment id and the lock committed at HEAD).

Anything else (no lock, a draft, a missing or unreadable record, one changed byte) returns None and the
caller compiles. The record proves that the files are the ones compiled, not who wrote them: a person
who rewrites both a spec file and the record by hand defeats it, as they could the build directory.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from compiler.canonical import Fingerprint, sha256_hex
from compiler.frozen_files import frozen_paths
from compiler.git_info import git_state
from runtime.core import safe_json
from runtime.core.atomic_write import write_text_atomic
from runtime.core.errors import SchemaRouterError
from runtime.core.jcs import dumps as jcs_dumps
from runtime.spec_model import CompiledSpec, load_compiled
from schemarouter.project import ProjectPaths

RECORD_NAME = "compiled.sources.json"
RECORD_VERSION = 1
_CODE_ROOTS = ("compiler", "runtime/spec_model")


def record_file(paths: ProjectPaths) -> Path:
    return paths.compiled_manifest.with_name(RECORD_NAME)


def code_digest() -> str:
    """sha256 over the source of the compiler, its loaders (``runtime.documents``) and the spec
    models (path and bytes of each file)."""
    import compiler
    import runtime.documents
    import runtime.spec_model

    digest = hashlib.sha256()
    for package in (compiler, runtime.documents, runtime.spec_model):
        base = Path(next(iter(package.__path__)))
        for file in sorted(base.rglob("*.py")):
            digest.update(f"{package.__name__}/{file.relative_to(base).as_posix()}\n".encode())
            digest.update(hashlib.sha256(file.read_bytes()).digest())
    for module in ("jcs", "safe_json", "__init__"):
        file = Path(safe_json.__file__).with_name(f"{module}.py")
        digest.update(f"schemarouter/{module}.py\n".encode())
        digest.update(hashlib.sha256(file.read_bytes()).digest())
    return digest.hexdigest()


def source_bytes_digests(paths: ProjectPaths) -> dict[str, str]:
    """sha256 of the raw bytes of every frozen file and of the lock, by logical path."""
    found = {path: sha256_hex(paths.physical(path).read_bytes()) for path in frozen_paths(paths)}
    found["spec/freeze.lock"] = sha256_hex(paths.lock_file.read_bytes())
    return found


def sources_if_readable(paths: ProjectPaths) -> dict[str, str] | None:
    """``source_bytes_digests``, or None without a lock or when the files cannot be listed or read
    (the compile then reports why, in its own order: validation first)."""
    if not paths.lock_file.is_file():
        return None
    try:
        return source_bytes_digests(paths)
    except (SchemaRouterError, OSError):
        return None


def write_record(paths: ProjectPaths, sources: dict[str, str]) -> None:
    """Record what the compiled.json just written was compiled from (``sources``: taken before)."""
    record = {
        "record_version": RECORD_VERSION,
        "code": code_digest(),
        "compiled_sha256": sha256_hex(paths.compiled_manifest.read_bytes()),
        "sources": sources,
    }
    write_text_atomic(record_file(paths), jcs_dumps(record).decode("utf-8") + "\n")


def drop_record(paths: ProjectPaths) -> None:
    """No record: the next run compiles (a draft compile, or a compile that did not finish)."""
    record_file(paths).unlink(missing_ok=True)


def reuse_compiled(paths: ProjectPaths) -> CompiledSpec | None:
    """build/<id>/compiled.json as a compiled spec if it is current and intact (see above), else None."""
    try:
        return _current(paths)
    except (SchemaRouterError, OSError, ValueError):
        return None


def _current(paths: ProjectPaths) -> CompiledSpec | None:
    from compiler.compile import build_compiled_spec
    from compiler.verify import verify_project

    record = _read_record(paths)
    if record is None or not paths.lock_file.is_file():
        return None
    if record["code"] != code_digest() or record["sources"] != source_bytes_digests(paths):
        return None
    if sha256_hex(paths.compiled_manifest.read_bytes()) != record["compiled_sha256"]:
        return None
    spec = load_compiled(paths.compiled_manifest)
    build = spec.build
    if build.draft or build.freeze is None or build.git != git_state(paths.root):
        return None
    if set(build.sources) | {"spec/freeze.lock"} != set(record["sources"]):
        return None
    if not _raw_is_frozen_data(spec):
        return None
    rebuilt = build_compiled_spec(dict(spec.raw), build)
    if rebuilt != spec:
        return None
    current = {path: Fingerprint(path, digest) for path, digest in build.sources.items()}
    report = verify_project(paths, current=current)
    if not report.clean or report.lock.root != build.freeze.root:
        return None
    return rebuilt


def _read_record(paths: ProjectPaths) -> dict[str, Any] | None:
    file = record_file(paths)
    if not file.is_file():
        return None
    record = safe_json.loads(file.read_bytes())
    if not isinstance(record, dict) or record.get("record_version") != RECORD_VERSION:
        return None
    if not isinstance(record.get("sources"), dict) or not isinstance(record.get("code"), str):
        return None
    return record


def _raw_is_frozen_data(spec: CompiledSpec) -> bool:
    """Every spec document in the bundle is the data whose digest compile recorded for its file."""
    spec_files = {
        p for p in spec.build.sources if p.startswith("spec/") and p.count("/") == 1 and p.endswith(".yaml")
    }
    if spec_files != {f"spec/{name}.yaml" for name in spec.raw}:
        return False
    for name, data in spec.raw.items():
        digest = spec.build.sources[f"spec/{name}.yaml"]
        if digest.canonical != "jcs-yaml" or sha256_hex(jcs_dumps(data)) != digest.digest:
            return False
    return True
