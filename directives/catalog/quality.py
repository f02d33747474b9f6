"""Directive family 'quality' (declarations pending)."""

from __future__ import annotations
