"""Measure families, one module each; importing a module registers its measures.

The package itself imports nothing: :func:`infoloss.registry.load_all` imports
every public module in it (so a new family is one new module and nothing else
changes) and :func:`infoloss.registry.get` only the module that defines a
measure (``infoloss/_measure_index.py``, regenerated with
``python -m infoloss._measure_index``).
"""
