"""The built-in exposure policy kinds, one module each; each registers itself where it is defined.

The policy registry (``POLICIES`` in ``registry.py``, a ``runtime.core.registry.Registry``) imports
0.14's five first (in the order of its frozen conditions schema), then every other public module by
name: adding a kind is adding its module, no list to edit. Installed packages add theirs through the
``schemarouter.policies`` entry points.
"""
