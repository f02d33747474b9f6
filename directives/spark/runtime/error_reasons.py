"""The top reasons rows failed, for the end-of-run summary and `--max-error-rate`.

Messages carry the value that failed (``'oops' is not a number``), so they are grouped with quoted values
replaced by ``'…'``: one reason per directive and kind of failure, with its count and one example message.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

#: Quoted values ('x' or "x", at most 200 characters) in a message.
_QUOTED = r"""'[^']{0,200}'|"[^"]{0,200}\""""


@dataclass(frozen=True)
class Reason:
    directive_index: int
    directive: str
    line: int
    message: str
    example: str
    count: int

    def to_dict(self) -> dict[str, object]:
        return {"directive_index": self.directive_index, "directive": self.directive, "line": self.line,
                "reason": self.message, "example": self.example, "rows": self.count}

    def text(self) -> str:
        where = (f"directive {self.directive_index} ('{self.directive}', line {self.line})" if self.directive_index
                 else f"reading the input ({self.directive})")
        return f"{self.count} row(s): {where}: {self.example}"


def top_reasons(errors: DataFrame, limit: int = 5) -> list[Reason]:
    """The ``limit`` commonest reasons in a run's error rows (one aggregate pass over them)."""
    pattern = F.regexp_replace(F.coalesce(F.col("message"), F.lit("")), _QUOTED, "'…'")
    rows = (errors.groupBy("directive_index", "directive", "line", pattern.alias("reason"))
            .agg(F.count(F.lit(1)).alias("rows"), F.min("message").alias("example"))
            .orderBy(F.desc("rows"), "directive_index").limit(limit).collect())
    return [Reason(int(row["directive_index"] or 0), str(row["directive"] or ""), int(row["line"] or 0),
                   str(row["reason"]), str(row["example"] or ""), int(row["rows"])) for row in rows]
