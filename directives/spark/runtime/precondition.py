"""A Wrangler stage's precondition: a JEXL condition evaluated on each row before the recipe; true skips the row.

Wrangler's transform evaluates it before the directives and drops the row when it is true (counted as
``precondition.filtered``); a condition that cannot be evaluated fails the row as the stage's on-error says.
Here it is the recipe's `filter-row` on the condition, numbered directive 0 so its errors do not look like the
recipe's first directive's: skipped rows are filtered rows, and errors are error rows.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

import directives as _directives
from directives.spark.compilers import compiler_for
from directives.spark.runtime.frame import Frame, RunContext


def apply_precondition(frame: Frame, condition: str, ctx: RunContext, schema: Sequence[str]) -> Frame:
    parsed = _directives.parse(f"filter-row exp:{{{condition}}}", schema=list(schema))
    directive = copy.copy(parsed.directives[0])
    directive.index = 0
    return compiler_for(directive)(directive, frame, ctx)
