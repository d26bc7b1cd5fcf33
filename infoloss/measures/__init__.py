"""Measure families, one module each; importing this package registers them all.

Every public module in this package is imported here, so a new family is one
new module and nothing else changes.
"""

import importlib
import pkgutil

for _module in pkgutil.iter_modules(__path__):
    if not _module.name.startswith("_"):
        importlib.import_module(f"{__name__}.{_module.name}")
