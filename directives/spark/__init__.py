"""Spark compilation of recipes: see docs/architecture.md for the parts (runtime, internals, expr, compile)."""
