"""The closed vocabulary of what a directive does to a column (seed 001).

Every column a directive touches gets one label. SWAP and RENAME carry both names.
ADD and MODIFY carry the columns the new value is computed from, which is what the
lineage backtracker follows; `kind` and `masking` type the edge the way OpenLineage
does (DIRECT: IDENTITY / TRANSFORMATION / AGGREGATION; INDIRECT: FILTER / CONDITIONAL …).
"""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple

from directives.json_fields import given


class Label(StrEnum):
    READ = "READ"
    DROP = "DROP"
    MODIFY = "MODIFY"
    ADD = "ADD"
    SWAP = "SWAP"
    RENAME = "RENAME"


class EdgeKind(StrEnum):
    """OpenLineage's transformation subtypes, as far as a data-prep recipe can produce them."""

    IDENTITY = "IDENTITY"
    TRANSFORMATION = "TRANSFORMATION"
    AGGREGATION = "AGGREGATION"
    FILTER = "FILTER"
    CONDITIONAL = "CONDITIONAL"
    JOIN = "JOIN"
    SORT = "SORT"
    GROUP_BY = "GROUP_BY"
    #: Ours, not one of OpenLineage's named subtypes (its ``subtype`` is free text): the input decides how many
    #: output rows a row becomes (`flatten`, `split-to-rows`, `parse-as-json` of an array), so every column's
    #: values are repeated or dropped by it. A filter is the special case of zero or one.
    EXPLODE = "EXPLODE"

    @property
    def is_direct(self) -> bool:
        return self in (EdgeKind.IDENTITY, EdgeKind.TRANSFORMATION, EdgeKind.AGGREGATION)


class ColumnLabel(NamedTuple):
    """One column one directive touches.

    ``column`` is the name before the directive (for RENAME/SWAP: the old name, ``to`` the new
    one). ``pattern`` marks a generated-column pattern such as ``body_<n>`` whose members depend
    on the data; ``exact`` is False when the label over-approximates because the column list at
    that point is unknown (e.g. ``keep`` without a schema).

    A named tuple: every directive of a recipe gets one or more, and the helpers below build them
    with ``tuple.__new__``, several times cheaper than a frozen dataclass.
    """

    column: str
    label: Label
    to: str | None = None
    sources: tuple[str, ...] = ()
    pattern: bool = False
    exact: bool = True
    kind: EdgeKind = EdgeKind.TRANSFORMATION
    masking: bool = False

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {"column": self.column, "label": self.label.value, **given(to=self.to)}
        if self.sources and self.label in (Label.ADD, Label.MODIFY):
            data["sources"] = list(self.sources)
        if self.pattern:
            data["pattern"] = True
        if not self.exact:
            data["exact"] = False
        if self.masking:
            data["masking"] = True
        return data


_make = tuple.__new__  # every field, in order: skips the generated ``__new__`` and its defaults
_READ, _DROP, _MODIFY, _ADD, _RENAME, _SWAP = Label.READ, Label.DROP, Label.MODIFY, Label.ADD, Label.RENAME, Label.SWAP
_TRANSFORMATION, _IDENTITY = EdgeKind.TRANSFORMATION, EdgeKind.IDENTITY


def read(column: str, *, kind: EdgeKind = _TRANSFORMATION) -> ColumnLabel:
    return _make(ColumnLabel, (column, _READ, None, (), False, True, kind, False))


def drop(column: str, *, pattern: bool = False, exact: bool = True) -> ColumnLabel:
    return _make(ColumnLabel, (column, _DROP, None, (), pattern, exact, _TRANSFORMATION, False))


def modify(
    column: str,
    sources: tuple[str, ...] | None = None,
    *,
    kind: EdgeKind = _TRANSFORMATION,
    masking: bool = False,
    exact: bool = True,
) -> ColumnLabel:
    """The column's values change; by default the new value derives from the old one only.

    ``exact=False``: the directive may also remove the column, depending on the data (`parse-as-json`).
    """
    return _make(ColumnLabel, (column, _MODIFY, None, (column,) if sources is None else sources, False, exact, kind,
                               masking))


def add(
    column: str,
    sources: tuple[str, ...] = (),
    *,
    pattern: bool = False,
    exact: bool = True,
    kind: EdgeKind = _TRANSFORMATION,
    masking: bool = False,
) -> ColumnLabel:
    return _make(ColumnLabel, (column, _ADD, None, sources, pattern, exact, kind, masking))


def rename(old: str, new: str, *, exact: bool = True, pattern: bool = False) -> ColumnLabel:
    return _make(ColumnLabel, (old, _RENAME, new, (), pattern, exact, _IDENTITY, False))


def swap(left: str, right: str) -> ColumnLabel:
    return _make(ColumnLabel, (left, _SWAP, right, (), False, True, _IDENTITY, False))
