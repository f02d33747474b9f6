"""Directive family 'external' (declarations pending)."""

from __future__ import annotations
