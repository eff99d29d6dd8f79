"""Retrieval over a catalog: a Tantivy index, injection-safe queries, static and state-aware retrievers."""
