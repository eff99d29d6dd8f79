"""The built-in retrieval strategies, one module each; each registers itself where it is defined.

The strategy registry (``STRATEGIES`` in ``strategy.py``, a ``runtime.core.registry.Registry``) imports
every public module of this package in name order on first lookup, so adding a strategy is adding its
module (and its test and spec entry): no list to edit. Installed packages add theirs through the
``schemarouter.strategies`` entry points.
"""
