"""Field-level lineage: the program API (model, recorder), pure graph functions, and the store.

Kept light on purpose: importing ``lineage`` pulls in pydantic only — never pyspark, never the
store (``from lineage.store import SQLiteLineageStore`` when you need it).
"""

from __future__ import annotations

from lineage.errors import (
    LineageError,
    LineageValidationError,
    Problem,
    QueryError,
    RunConflictError,
    RunNotFoundError,
)
from lineage.model import (
    DatasetRef,
    Destination,
    Direction,
    FieldOperation,
    InputField,
    OperationType,
    OutputField,
    RunInfo,
)
from lineage.recorder import LineageRecorder, RecordedRun

__all__ = [
    "DatasetRef",
    "Destination",
    "Direction",
    "FieldOperation",
    "InputField",
    "LineageError",
    "LineageRecorder",
    "LineageValidationError",
    "OperationType",
    "OutputField",
    "Problem",
    "QueryError",
    "RecordedRun",
    "RunConflictError",
    "RunInfo",
    "RunNotFoundError",
]
