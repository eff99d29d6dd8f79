"""Named digests and git state, shared by the freeze lock and the compiled manifest.

A digest always names its algorithm beside it (``{"algorithm": "sha256", "digest": "..."}``), so a
future change of algorithm is visible in the data rather than guessed from a hex string's length.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from runtime.core.frozen_model import FrozenModel

Canonicalization = Literal["jcs-yaml", "jcs-json", "jcs-jsonl", "bytes-lf"]


class Digest(FrozenModel):
    """A hash with its algorithm named."""

    algorithm: Literal["sha256"] = Field(description="Hash algorithm.")
    digest: str = Field(description="Lowercase hex digest.")

    def __str__(self) -> str:
        return f"{self.algorithm}:{self.digest}"


class FileDigest(Digest):
    """The hash of one file's canonical content, and which canonical form was hashed."""

    canonical: Canonicalization = Field(
        description="jcs-yaml / jcs-json: RFC 8785 JSON of the parsed data (comments, key order and "
        "whitespace do not count); jcs-jsonl: RFC 8785 JSON of the array of its records; bytes-lf: the "
        "raw bytes with CRLF and CR turned into LF."
    )


class GitState(FrozenModel):
    """The project's git state at a moment."""

    commit: str | None = Field(description="HEAD commit; null when the project is not a git work tree.")
    dirty: bool | None = Field(
        description="True when the work tree had changes (untracked files included) relative to HEAD; "
        "null without git."
    )
