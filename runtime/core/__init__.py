"""The ground: the error type, bounded JSON, atomic writes, JCS, limits, the one registry."""
