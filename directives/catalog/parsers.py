"""Directive family 'parsers' (declarations pending)."""

from __future__ import annotations
