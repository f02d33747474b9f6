"""Every directive family; importing this package registers the whole catalogue."""

from __future__ import annotations

import importlib

FAMILIES = ("column_ops", "transform", "transient", "writers", "parsers", "rows", "quality", "dates", "external")

for _family in FAMILIES:
    importlib.import_module(f"directives.catalog.{_family}")
