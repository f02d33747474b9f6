"""The optional fields of a JSON document: our documents leave a field out when it has no value, never write null.

`wrangler parse` (a step's `v1` and `condition`), a label's `to` and the verifier's effects (`aborted_by`,
`crashed`) all follow that rule, through this one function.
"""

from __future__ import annotations


def given(**fields: object) -> dict[str, object]:
    """The fields that have a value (not None), to spread into a document: ``{"a": 1, **given(b=maybe)}``."""
    return {name: value for name, value in fields.items() if value is not None}
