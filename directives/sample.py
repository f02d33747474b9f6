"""The values of the first input rows, followed through a recipe as far as the recipe leaves them alone.

`wrangler check --sample FILE` knows what the recipe alone cannot: the CSV header a `parse-as-csv … true`
turns into columns, the keys a `parse-as-json` flattens. Such a directive asks `SampleValues` for its
column's values (`Directive.sample_labels`) and, when they are the input's own or ones derived exactly,
labels the columns it makes by name instead of by pattern, so a later misspelt name is reported.
A column keeps its values through renames and swaps; anything that changes them forgets them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from directives.labels import ColumnLabel, Label

Values = list[object]


class SampleValues:
    """Sample values by (lower-cased) column name, for the columns whose values are still known."""

    def __init__(self, rows: Sequence[Mapping[str, object]]) -> None:
        self._values: dict[str, Values] = {}
        for row in rows:
            for name, value in row.items():
                self._values.setdefault(name.lower(), []).append(value)
        for values in self._values.values():
            values.extend([None] * (len(rows) - len(values)))

    def of(self, column: str) -> Values | None:
        """The column's sample values in row order, or None when the recipe has changed them beyond knowing."""
        return self._values.get(column.lower())

    def advance(self, labels: Sequence[ColumnLabel], produced: Mapping[str, Values] | None = None) -> None:
        """Move past one directive: follow renames and swaps, forget changed columns, learn ``produced`` ones."""
        values = self._values
        for label in labels:
            kind, key = label.label, label.column.lower()
            if label.pattern or not label.exact:
                if kind in (Label.DROP, Label.RENAME) or label.column == "*":
                    values.clear()  # which columns went, or what they are called now, is not known by name
                continue
            if kind is Label.RENAME and label.to is not None:
                moved = values.pop(key, None)
                values.pop(label.to.lower(), None)
                if moved is not None:
                    values[label.to.lower()] = moved
            elif kind is Label.SWAP and label.to is not None:
                left, right = values.pop(key, None), values.pop(label.to.lower(), None)
                if right is not None:
                    values[key] = right
                if left is not None:
                    values[label.to.lower()] = left
            elif kind in (Label.DROP, Label.MODIFY, Label.ADD):
                values.pop(key, None)
        for name, column_values in (produced or {}).items():
            values[name.lower()] = column_values
