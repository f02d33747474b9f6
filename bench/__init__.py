"""Benchmarks (run as modules, e.g. ``python -m bench.bench_store``)."""
