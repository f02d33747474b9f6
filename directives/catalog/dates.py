"""Directive family 'dates' (declarations pending)."""

from __future__ import annotations
