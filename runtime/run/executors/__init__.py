"""Executors by stable code (``local``, ``ray``): see ``registry.py`` and runtime/run/README.md."""
