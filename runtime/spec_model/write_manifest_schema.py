"""Regenerate compiled_manifest.schema.json from the models.

Run: ``python -m schemarouter.runtime.spec_model.write_manifest_schema``.

tests/test_spec_compile.py fails when the checked-in schema differs from the models.
"""

from __future__ import annotations

import json
from pathlib import Path

from schemarouter.runtime.spec_model.compiled import manifest_json_schema

SCHEMA_FILE = Path(__file__).with_name("compiled_manifest.schema.json")


def schema_text() -> str:
    """The schema file's text, as checked in."""
    return json.dumps(manifest_json_schema(), sort_keys=True, ensure_ascii=False, indent=2) + "\n"


if __name__ == "__main__":
    SCHEMA_FILE.write_text(schema_text(), encoding="utf-8")
    print(f"wrote {SCHEMA_FILE}")
