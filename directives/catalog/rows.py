"""Directive family 'rows' (declarations pending)."""

from __future__ import annotations
