"""Experiment analyses beside the diagnostics: the retrieval-strategy study (see README.md)."""
