"""`wrangler run`'s checks around the run: the recipe against the input's real columns before Spark reads data,
and the error rate after.

Before: the input's first rows are read the way `wrangler check --sample` reads them (a CSV header, a parquet
or JSON schema, a text file's lines), without Spark, and every stage's recipe is checked against them with
`wrangler check`'s findings. A rename, drop, swap or keep of a column that does not exist stops the run
(exit 1) — on real data that is a recipe written for another input — unless `--lenient`; other findings are
printed as warnings (so is a missing column where the columns at that point include data-named patterns,
which the static column list cannot name exactly). After: a run where more than `--max-error-rate` of the
rows failed (by default: every row) is a failed run, reported with its commonest reasons.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from server.cli.run_plan import RunPlan
from server.cli.sample_input import SampleInputError, read_sample

if TYPE_CHECKING:
    from directives.spark.runtime.runner import RunCounts

#: Directives whose unknown column means the recipe was written for other data: the run stops.
STOPPING_DIRECTIVES = frozenset({"rename", "drop", "swap", "keep"})


@dataclass(frozen=True)
class Finding:
    where: str
    line: int | None
    column: int | None
    severity: str
    rule: str
    message: str
    stops: bool
    #: The column a `column-not-found` finding names.
    missing: str | None = None

    def text(self) -> str:
        """The finding as `wrangler check` prints it, but an error that does not stop the run says "warning": the
        run goes on, so calling it an error would contradict what happens next."""
        position = f"{self.line}:{self.column}: " if self.line is not None else ""
        severity = "warning" if self.severity == "error" and not self.stops else self.severity
        return f"{self.where}:{position}{severity} [{self.rule}] {self.message}"


def _stops(finding: Any) -> bool:
    """A rename/drop/swap/keep of a missing column, where every column at that point is known by name. When some
    are only patterns (`body_<key>`: JSON keys, CSV values, after whole-schema renames) the static column list can
    miss a real column, so the finding is a warning, never a reason to refuse real data."""
    return (finding.rule == "column-not-found" and finding.severity == "error"
            and (finding.directive or "") in STOPPING_DIRECTIVES and "<" not in (finding.hint or ""))


def _cut(columns: list[str], rows: list[dict[str, Any]], field: str) -> tuple[list[str], list[dict[str, Any]]] | None:
    """The sample as a stage with this ``field`` setting sees it (None when it cannot be told: ``#``)."""
    if field == "*":
        return columns, rows
    if field == "#":
        return None
    wanted = {c.lower(): c for c in columns}.get(field.lower())
    if wanted is None:
        return [field], [{field: None} for _ in rows]
    return [wanted], [{wanted: row.get(wanted)} for row in rows]


def check_against_input(plan: RunPlan, path: str, fmt: str, header: bool) -> tuple[list[Finding], list[str] | None]:
    """Findings of the first stage's recipe (and precondition) on the input's real columns and first rows; later
    stages are checked against the schema their previous stage declares. ([], None) when the input cannot be
    sampled here (not a local file): Spark finds out instead."""
    import directives

    if "://" in path and not path.startswith("file://"):
        return [], None
    try:
        sample = read_sample(path, fmt, header=header, limit=100)
    except (SampleInputError, OSError, ValueError):  # pyarrow's ArrowInvalid is a ValueError
        return [], None  # Spark's reader reports the input's own problems, with the line
    findings: list[Finding] = []
    columns: list[str] | None = sample.columns
    rows: list[dict[str, Any]] | None = sample.rows
    for number, stage in enumerate(plan.stages):
        cut = _cut(columns, rows or [], stage.field) if columns is not None else None
        if cut is None:
            break
        stage_columns, stage_rows = cut
        where = plan.label(stage)
        checks = [(stage.recipe, where)]
        if stage.precondition:
            checks.append((f"filter-row exp:{{{stage.precondition}}}", f"{where} precondition"))
        for text, label in checks:
            for item in directives.validate(text, stage_columns, sample=stage_rows if number == 0 else None):
                findings.append(Finding(label, item.line, item.column, item.severity, item.rule, str(item),
                                        _stops(item), getattr(item, "missing", None)))
        declared = _declared_names(stage.output_schema)
        columns, rows = (declared, None) if declared is not None else (None, None)
    return findings, sample.columns


def _declared_names(schema: Any) -> list[str] | None:
    if schema is None:
        return None
    from directives.pipeline_export import PipelineError, record_fields

    try:
        return [f.name for f in record_fields(schema)]
    except PipelineError:
        return None  # a DDL schema: its names need Spark's parser; later stages are checked without a schema


def source_mismatch(plan: RunPlan, columns: Sequence[str] | None) -> str | None:
    """A note when a pipeline's source declares other fields than the input has."""
    if not plan.source_fields or columns is None:
        return None
    declared = {name.lower() for name in plan.source_fields}
    present = {name.lower() for name in columns}
    if declared == present:
        return None
    return (f"the input's columns ({', '.join(columns)}) are not the fields of the pipeline's source "
            f"{plan.source_name!r} ({', '.join(plan.source_fields)})")


def error_rate_failure(counts: RunCounts, max_rate: float | None) -> str | None:
    """Why the run failed on its error rate, or None. Default (``max_rate`` None): only when every row failed."""
    total = counts.rows_in + counts.rows_added
    if total <= 0 or counts.error_rows == 0:
        return None
    rate = counts.error_rows / total
    if max_rate is None:
        if counts.error_rows >= total:
            return f"every row failed ({counts.error_rows:,} of {total:,})"
        return None
    if rate > max_rate:
        return (f"{rate:.1%} of the rows failed ({counts.error_rows:,} of {total:,}), "
                f"more than --max-error-rate {max_rate:g}")
    return None
