"""The error type every user-facing failure raises.

The CLI prints ``str(error)`` and exits 1; a user never sees a traceback for their own mistake.
"""

from __future__ import annotations


class SchemaRouterError(Exception):
    """A user-facing error whose message is complete on its own (one or more lines)."""
