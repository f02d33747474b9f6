"""Static lineage checked against execution: does the recipe's lineage explain what perturbing its input does?

`directives.spark.runtime.perturb` runs the recipe on a sample, then once per input column with that column's
values perturbed, and reports which output columns changed (`Effect`). This module compares that
evidence with the static lineage of every output column — the backtracker's DIRECT and INDIRECT
edges — and says where the two disagree:

* **unsound**: perturbing input C changed output O, but O's lineage does not name C. This is a bug in
  the lineage (a label, a directive's declaration or the backtracker): the lineage hides a dependency.
  A value that changed must be explained by a DIRECT edge or a CONDITIONAL one (an `if` decides which
  value a row gets); a row that appeared, vanished or was multiplied may be explained by any edge,
  since a filter or a row-multiplying directive reaches every column as an INDIRECT influence.
* **unobserved**: an edge marked exact that no perturbed run could show. Informational: a sample
  can be too small or too regular to exercise a dependency (a `fill-null-or-empty` on a sample without
  empty values), so this never fails a verification.
* **note**: evidence that says nothing either way — a perturbed value a directive rejected as invalid
  (the perturbation, not the data, made the row fail), a column whose values are all null, a perturbed
  run that failed outright.

Nothing here reads data or imports Spark: the observation is computed by the caller.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from directives.base import RowEffect
from directives.recipe import Recipe
from lineage.backtrack import ANY_COLUMN, Backtracker, ColumnLineage, Transformation

if TYPE_CHECKING:
    from directives.spark.runtime.perturb import Effect, Observation

UNSOUND = "unsound"
UNOBSERVED = "unobserved"
NOTE = "note"

_ROW_EFFECTS = (RowEffect.FILTER, RowEffect.ERROR, RowEffect.ABORT, RowEffect.MULTIPLY)
#: INDIRECT subtypes that decide a row's *value*, not only whether (or how often) the row is there.
_VALUE_INDIRECT = ("CONDITIONAL",)
_ERRORED = "error"


@dataclass(frozen=True)
class Finding:
    kind: str
    input: str
    message: str
    output: str | None = None
    directive: int | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind, "input": self.input, "message": self.message}
        if self.output is not None:
            data["output"] = self.output
        if self.directive is not None:
            data["directive"] = self.directive
        return data


@dataclass
class Verification:
    """The verdict over one sample: ``ok`` when no output changed without its lineage naming the cause."""

    inputs: list[str]
    outputs: list[str]
    findings: list[Finding] = field(default_factory=list)
    #: (input, output) pairs some perturbed run showed, for callers that want the observed edges themselves.
    observed: set[tuple[str, str]] = field(default_factory=set)

    def of_kind(self, kind: str) -> list[Finding]:
        return [finding for finding in self.findings if finding.kind == kind]

    @property
    def unsound(self) -> list[Finding]:
        return self.of_kind(UNSOUND)

    @property
    def unobserved(self) -> list[Finding]:
        return self.of_kind(UNOBSERVED)

    @property
    def notes(self) -> list[Finding]:
        return self.of_kind(NOTE)

    @property
    def ok(self) -> bool:
        return not self.unsound

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "inputs": self.inputs,
            "outputs": self.outputs,
            "unsound": [finding.to_json() for finding in self.unsound],
            "unobserved": [finding.to_json() for finding in self.unobserved],
            "notes": [finding.to_json() for finding in self.notes],
            "observed": [{"input": source, "output": target} for source, target in sorted(self.observed)],
        }

    def to_text(self) -> str:
        lines = [f"verified {len(self.outputs)} output columns against {len(self.inputs)} perturbed input columns: "
                 + ("no unsound edge" if self.ok else f"{len(self.unsound)} unsound")]
        for title, kind in (("UNSOUND", UNSOUND), ("unobserved (informational)", UNOBSERVED), ("note", NOTE)):
            for finding in self.of_kind(kind):
                lines.append(f"  {title}: {finding.message}")
        return "\n".join(lines)


def verify(recipe: Recipe, observation: Observation, inputs: Sequence[str] | None = None) -> Verification:
    """Compare the static lineage of every output column of ``observation``'s baseline with its effects.

    ``recipe`` must be parsed with the sample's columns as its schema, as the observation's runs were.
    """
    outputs = list(observation.baseline.columns)
    tested = list(inputs) if inputs is not None else [effect.column for effect in observation.effects]
    result = Verification(tested, outputs)
    checker = _Checker(recipe, outputs)
    for effect in observation.effects:
        result.findings.extend(checker.effect_findings(effect, result.observed))
    for name in sorted(observation.unstable):
        result.findings.append(Finding(NOTE, "", f"{name} changes from one run to the next on the same input "
                                                 "(generated ids, the current time); its changes are not evidence",
                                       output=name))
    result.findings.extend(checker.unobserved(tested, result.observed))
    return result


class _Checker:
    """The static side of the comparison: each output column's typed edges, computed once."""

    def __init__(self, recipe: Recipe, outputs: list[str]) -> None:
        backtracker = Backtracker(recipe)
        lineages = {name: backtracker.lineage(name) for name in outputs}
        self.outputs = outputs
        self.edges = {name: item.transformations() for name, item in lineages.items()}
        #: outputs whose lineage reaches `*` (any input column): inexact, but they name every input
        self.anything = {name for name, item in lineages.items() if _names_any_input(item)}
        self.row_effects = {step.directive.index: step.directive.row_effect for step in recipe.steps}

    def effect_findings(self, effect: Effect, observed: set[tuple[str, str]]) -> list[Finding]:
        column = effect.column
        if effect.crashed is not None:
            return [Finding(NOTE, column, f"perturbing {column} made the run fail ({effect.crashed}); "
                                          "nothing observed")]
        if effect.perturbed == 0:
            return [Finding(NOTE, column, f"{column} has no value to perturb in the sample (all null); not tested")]
        whole, findings = self._reshaping(effect)
        for target in self.outputs:
            if target in effect.values:
                why, allowed = "its values changed", _value_edge
            elif whole is not None:
                why, allowed = whole, _any_edge
            else:
                continue
            observed.add((column, target))
            if target in self.anything:
                continue
            if not any(allowed(edge) and edge.source.lower() == column.lower() for edge in self.edges[target]):
                findings.append(Finding(
                    UNSOUND, column,
                    f"perturbing {column} changed {target} ({why}), but the lineage of {target} does not name "
                    f"{column}", output=target))
        return findings

    def _reshaping(self, effect: Effect) -> tuple[str | None, list[Finding]]:
        """Why every output column changed (rows filtered, failed, multiplied or aborted in one run only), if so.

        A row a directive without a declared row effect sent to the errors is left out: the perturbed value
        was invalid for it (a date the perturbation broke), which is no data flow.
        """
        whole: str | None = None
        rejected: dict[int, int] = {}
        for row, status, directive in effect.reshaped:
            if status == _ERRORED and directive is not None and self.row_effects.get(directive) not in _ROW_EFFECTS:
                rejected[directive] = rejected.get(directive, 0) + 1
                continue
            if whole is None:
                how = f"directive {directive}" if directive is not None else "a row-multiplying directive"
                whole = f"input row {row + 1} became a different number of output rows ({status} by {how})"
        if effect.aborted_by is not None:
            whole = whole or f"directive {effect.aborted_by} aborted the run"
        notes = [Finding(NOTE, effect.column, f"directive {directive} rejected {rows} perturbed value(s) of "
                                              f"{effect.column} as invalid; those rows say nothing about lineage",
                         directive=directive)
                 for directive, rows in sorted(rejected.items())]
        return whole, notes

    def unobserved(self, inputs: Sequence[str], observed: set[tuple[str, str]]) -> list[Finding]:
        by_lower = {name.lower(): name for name in inputs}
        seen = {(source.lower(), target) for source, target in observed}
        findings = []
        for target in self.outputs:
            for edge in self.edges[target]:
                source = edge.source.lower()
                if edge.exact and source in by_lower and (source, target) not in seen:
                    seen.add((source, target))
                    findings.append(Finding(
                        UNOBSERVED, by_lower[source],
                        f"{target} <- {by_lower[source]} ({edge.type} {edge.subtype}) is exact, but no perturbed "
                        "run showed it on this sample", output=target))
        return findings


def _names_any_input(item: ColumnLineage) -> bool:
    """Whether the lineage reaches an input it could not name (`*`: any input column), directly or indirectly."""
    return any(node.column == ANY_COLUMN and node.directive is None
               for root in (item.tree, *item.indirect) for node in root.walk())


def _value_edge(edge: Transformation) -> bool:
    return edge.type == "DIRECT" or edge.subtype in _VALUE_INDIRECT


def _any_edge(edge: Transformation) -> bool:
    return True
