"""Spark compilers, one module per directive family."""
