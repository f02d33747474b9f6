"""The bound, labelled recipe (the ParseTree of seed 001) and the validation behind `wrangler check`.

`parse` binds every directive, labels every column it touches against the column list at
that point, and collects every error of the recipe rather than stopping at the first.
"""

from __future__ import annotations

import dataclasses
import difflib
import gc
import json
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import NamedTuple

from directives.base import REGISTRY, Directive
from directives.binding import bind
from directives.column_positions import column_position
from directives.column_state import ColumnState, Slot, _literal_prefix, pattern_regex
from directives.expression_check import function_findings
from directives.json_fields import given
from directives.labels import ColumnLabel, Label
from directives.sample import SampleValues
from directives.transient_names import Variables, columns_only
from directives.udd import declared
from directives.wrangler_readings import bind_wrangler_reading, dropped_line, settle
from grammar.errors import (
    ColumnConflictError,
    ColumnNotFoundError,
    RecipeError,
    StrictRuleError,
    UnknownDirectiveError,
    raise_collected,
)
from grammar.nodes import DirectiveCall, RecipeSyntax, WranglerReading
from grammar.parser import parse_recipe_partial


class Step(NamedTuple):
    """One directive of the recipe with the labels of every column it touches.

    A named tuple (one per directive, built with ``tuple.__new__``); its ``index`` property is the
    directive's index and deliberately hides ``tuple.index``, which a step has no use for.
    """

    directive: Directive
    labels: tuple[ColumnLabel, ...]

    @property
    def index(self) -> int:  # type: ignore[override]
        return self.directive.index

    def to_json(self) -> dict[str, object]:
        call = self.directive.call
        return {
            "index": self.directive.index,
            "line": call.span.line,
            "column": call.span.column,
            "text": call.text,
            "name": self.directive.name,
            "args": self.directive.args_json(),
            "labels": [label.to_json() for label in self.labels],
            **given(v1=call.original, condition=call.condition),
        }


@dataclass(frozen=True)
class Recipe:
    """A parsed, bound and labelled recipe. ``findings`` holds warnings and schema findings."""

    text: str
    syntax: RecipeSyntax
    steps: tuple[Step, ...]
    schema: tuple[str, ...] | None
    final_columns: ColumnState
    findings: tuple[RecipeError, ...] = ()

    @property
    def directives(self) -> tuple[Directive, ...]:
        return tuple(step.directive for step in self.steps)

    def __len__(self) -> int:
        return len(self.steps)

    def to_list(self) -> list[dict[str, object]]:
        return [step.to_json() for step in self.steps]

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_list(), indent=indent)


_make = tuple.__new__  # a Step from (directive, labels), without the generated ``__new__``


def parse(text: str, schema: Sequence[str] | None = None, *, strict: bool = False,
          udds: Mapping[str, type[Directive]] | None = None,
          observed: Mapping[int, Sequence[str]] | None = None) -> Recipe:
    """Parse, bind and label a recipe; raise a `RecipeError` carrying every hard error found.

    Schema findings (unknown columns, conflicts) and, with ``strict``, seed 001's naming rule
    do not stop parsing: they are in ``Recipe.findings`` (and fail `wrangler check`). ``udds``: declared
    user-defined directives (`directives.udd.load_udds`) the recipe may use. ``observed``: the columns a run
    had after each directive (by directive index), which name the members of data-dependent families
    (`_observed`), so a finished run's lineage is exact where the recipe alone only knows `body_<n>`.
    """
    recipe, errors = _analyse(text, schema, strict, udds=udds, observed=observed)
    if errors:
        for error in errors:
            error.with_source(text)
        raise_collected(errors)
    assert recipe is not None
    return recipe


def validate(
    text: str, schema: Sequence[str] | None = None, *, strict: bool = False,
    sample: Sequence[Mapping[str, object]] | None = None, udds: Mapping[str, type[Directive]] | None = None,
) -> list[RecipeError]:
    """Every finding of a recipe, errors and warnings, in source order (what `wrangler check` reports).

    Beyond what `parse` finds, it checks the functions each expression calls against Wrangler's own
    (`expression_check`): Wrangler resolves them only when a row runs. ``sample``: the first input rows
    (their columns are the schema unless one is given), whose values name the columns a CSV header or
    JSON keys make (`Directive.sample_labels`).
    """
    if sample is not None and schema is None:
        schema = list(dict.fromkeys(name for row in sample for name in row))
    recipe, errors = _analyse(text, schema, strict, SampleValues(sample) if sample is not None else None, udds)
    findings = list(errors) + (list(recipe.findings) if recipe is not None else [])
    if recipe is not None:
        for step in recipe.steps:
            findings.extend(function_findings(step.directive))
    for finding in findings:
        finding.with_source(text)
    return sorted(findings, key=lambda f: (f.line or 0, f.column or 0))


@contextmanager
def _without_cyclic_gc() -> Iterator[None]:
    """Parsing allocates many small acyclic objects; the cyclic collector's passes over them cost ~25 %.

    Reference counting still frees everything; the collector is re-enabled (if it was on) right after.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _analyse(text: str, schema: Sequence[str] | None, strict: bool, sample: SampleValues | None = None,
             udds: Mapping[str, type[Directive]] | None = None, observed: Mapping[int, Sequence[str]] | None = None,
             ) -> tuple[Recipe | None, list[RecipeError]]:
    with _without_cyclic_gc(), declared(udds):
        recipe, errors = _analyse_recipe(text, schema, strict, sample, observed)
    if recipe is not None and recipe.syntax.pragmas:
        missing = _undeclared_loads(recipe.syntax, udds or {})
        if missing:
            recipe = dataclasses.replace(recipe, findings=(*recipe.findings, *missing))
    return recipe, errors


def _undeclared_loads(syntax: RecipeSyntax, udds: Mapping[str, type[Directive]]) -> list[RecipeError]:
    """`#pragma load-directives` names a plugin's directives; one without a declaration cannot be checked, and a
    pipeline fails on one whose jar is not deployed (Wrangler: "not deployed or is not available")."""
    findings: list[RecipeError] = []
    for pragma in syntax.pragmas:
        if pragma.kind != "load-directives":
            continue
        for name in pragma.values:
            if name not in udds and name not in REGISTRY:
                findings.append(UnknownDirectiveError(
                    f"User-defined directive '{name}' is loaded by #pragma load-directives but not declared.",
                    line=pragma.span.line, column=pragma.span.column, directive=name, severity="warning",
                    hint="Declare it in a file and pass --udd FILE (docs/udd.md), so that its uses can be checked."))
    return findings


def _analyse_recipe(
    text: str, schema: Sequence[str] | None, strict: bool, sample: SampleValues | None = None,
    observed: Mapping[int, Sequence[str]] | None = None,
) -> tuple[Recipe | None, list[RecipeError]]:
    syntax, errors = parse_recipe_partial(text)
    # Past a line that does not parse, the column list is unknown: schema findings stop there.
    first_bad_line = min((error.line or 0 for error in errors), default=None)
    findings: list[RecipeError] = []
    steps: list[Step] = []
    state = ColumnState.from_schema(schema)
    variables = Variables()
    append = steps.append
    readings = syntax.wrangler
    calls = syntax.directives
    missing = 0  # columns not found so far: past DETAILED_MISSING, their hints stop listing the columns
    per_line: Counter[int] | None = None  # directives per line, counted once (only lines Wrangler reads apart)
    for index, call in enumerate(calls, start=1):
        reading = readings.get(call.line) if readings else None
        try:
            if reading is None:
                directive: Directive | None = bind(call, index, findings)
            else:
                if per_line is None:
                    per_line = Counter(other.line for other in calls)
                directive = _bind_line(call, reading, index, findings, per_line[call.line] == 1)
        except RecipeError as error:
            errors.append(error)
            continue
        if directive is None:
            continue
        labels = tuple(directive.labels(state))
        if sample is not None:
            labels = _sampled(directive, state, sample, labels)
        if observed is not None and index in observed:
            labels = _observed(labels, state, observed[index])
        labels = variables.relabel(directive, labels)
        on_columns = columns_only(labels) if variables else labels
        if first_bad_line is not None and call.span.line > first_bad_line:
            state.known = False
        if state.known:
            found = _column_findings(directive, on_columns, state, missing < DETAILED_MISSING)
            if found:
                missing += sum(1 for finding in found if isinstance(finding, ColumnNotFoundError))
                findings.extend(found)
        if strict:
            findings.extend(_strict_findings(directive, on_columns))
        directive.update_columns(state, on_columns)
        append(_make(Step, (directive, labels)))
    if readings:
        findings.extend(_dropped_lines(readings, calls))
    recipe = Recipe(text, syntax, tuple(steps), tuple(schema) if schema is not None else None, state, tuple(findings))
    errors.sort(key=lambda error: (error.line or 0, error.column or 0))
    return recipe, errors


DETAILED_MISSING = 100
"""Errors for columns that do not exist that list the columns at that point and the closest names; the rest
say only what is missing (a recipe of 50,000 missing columns over a 50,000-column schema stays linear)."""


def _observed(labels: tuple[ColumnLabel, ...], state: ColumnState, after: Sequence[str]) -> tuple[ColumnLabel, ...]:
    """Each data-dependent family a directive adds replaced by the columns of it a run made (``after``: the run's
    columns after the directive). Sound first: a `body_<n>` family takes every name of ``after`` it matches, one
    that was there before included (the run may have overwritten it); a family of names read from the data
    (`<header>`) takes the new names, and keeps the family too when columns from before remain, since the header
    may have named one of them."""
    if not any(label.pattern and label.label is Label.ADD for label in labels):
        return labels
    resolved: list[ColumnLabel] = []
    for label in labels:
        if not (label.pattern and label.label is Label.ADD):
            resolved.append(label)
            continue
        if label.column.startswith("<") and label.column.endswith(">"):  # `<header>`: any name the data gives
            new = [name for name in after if state.exists(name) is not True]
            resolved.extend(label._replace(column=name, pattern=False) for name in new)
            if len(new) < len(after):
                resolved.append(label)
            continue
        family = pattern_regex(label.column)
        resolved.extend(label._replace(column=name, pattern=False) for name in after if family.fullmatch(name))
    return tuple(resolved)


def _sampled(directive: Directive, state: ColumnState, sample: SampleValues,
             labels: tuple[ColumnLabel, ...]) -> tuple[ColumnLabel, ...]:
    """The labels given the sample's values (by name where they fix the columns), and the sample moved past them."""
    resolved = directive.sample_labels(state, sample)
    produced = None
    if resolved is not None:
        labels, produced = tuple(resolved[0]), resolved[1]
    sample.advance(labels, produced)
    return labels


def _bind_line(call: DirectiveCall, reading: WranglerReading, index: int, findings: list[RecipeError],
               alone: bool) -> Directive | None:
    """A directive of a line Wrangler reads differently from how it reads as written (``alone``: the only one
    on its line; counted once per recipe by the caller, so a line of 100,000 directives stays linear)."""
    if call.original is not None:
        return bind_wrangler_reading(call, reading, index, findings)
    return settle(call, reading, index, findings, alone)


def _dropped_lines(readings: Mapping[int, WranglerReading], calls: tuple[DirectiveCall, ...]) -> list[RecipeError]:
    """Warnings for the lines Wrangler drops that hold no directive as written either."""
    lines = {call.line for call in calls}
    return [dropped_line(reading) for number, reading in readings.items()
            if reading.text is None and reading.error is None and number not in lines]


def _column_findings(directive: Directive, labels: Sequence[ColumnLabel], state: ColumnState,
                     detailed: bool = True) -> list[RecipeError]:
    if not state.known:
        return []
    findings: list[RecipeError] = []
    for label in labels:
        if label.pattern and label.label is Label.ADD:
            # only directives that `add` (append) their generated columns duplicate them; addOrSet ones replace
            clash = _pattern_clash(label, state) if getattr(directive, "appends_duplicates", False) else None
            if clash is not None:
                findings.append(_conflict(
                    directive, f"'{directive.name}' generates columns '{label.column}', which clash with "
                    f"'{clash.name}' (created {_origin(clash.created_by)}).",
                    "Rows would hold two columns of one name; rename or drop the earlier ones first."))
            continue
        if label.pattern or not label.exact:
            continue
        if label.label in (Label.READ, Label.MODIFY, Label.DROP, Label.RENAME, Label.SWAP):
            names = [label.column] + ([label.to] if label.label is Label.SWAP and label.to else [])
            for name in names:
                if directive.needs_existing_columns and state.exists(name) is False:
                    findings.append(_not_found(directive, name, state, detailed))
        if label.label is Label.RENAME and label.to is not None:
            target = state.find(label.to)
            if target is not None and target.pattern is None and label.to.lower() != label.column.lower():
                findings.append(_conflict(
                    directive, f"'{directive.name}' renames '{label.column}' onto '{label.to}', which already exists.",
                    f"Drop '{label.to}' first (drop :{label.to}) or pick another name."))
        if label.label is Label.ADD:
            existing = state.find(label.column)
            # Only a real column clashes: a data-dependent family (`<header>`) *may* hold the name, not must.
            if existing is not None and existing.pattern is None and (
                    label.pattern or getattr(directive, "appends_duplicates", False)):
                findings.append(_conflict(
                    directive, f"'{directive.name}' generates column '{label.column}', which already exists "
                    f"(created {_origin(existing.created_by)}).",
                    "The row would hold two columns of that name; rename or drop one first."))
    return findings


def _pattern_clash(label: ColumnLabel, state: ColumnState) -> Slot | None:
    """A live column a generated-name pattern (`body_<n>`) would duplicate: the same pattern, or its first member.

    Constant time (the state's prefix index, and `body_1` for numbered patterns), since recipes of
    thousands of directives are checked on every `wrangler check`.
    """
    wanted = label.column.lower()
    for slot in state._patterns.get(_literal_prefix(label.column), ()):
        if slot.name.lower() == wanted:
            return slot
    if "<n>" in label.column:
        member = state.find(label.column.replace("<n>", "1"))
        if member is not None and member.pattern is None:
            return member
    return None


def _conflict(directive: Directive, message: str, hint: str) -> ColumnConflictError:
    """A column clash found with the schema, pointing at the directive (its line and column: not `.span`, which
    builds a Span)."""
    call = directive.call
    return ColumnConflictError(message, line=call.line, column=call.column, hint=hint, directive=directive.name)


def _not_found(directive: Directive, name: str, state: ColumnState, detailed: bool = True) -> ColumnNotFoundError:
    line, column = column_position(directive.call, name)
    if not detailed:  # listing and matching every column costs O(columns) per error: quadratic over a whole recipe
        return ColumnNotFoundError(
            f"Column '{name}' does not exist at directive {directive.index} ('{directive.name}').",
            line=line, column=column, directive=directive.name, missing=name,
            hint=f"The columns are listed in the first {DETAILED_MISSING} errors of this kind.",
        )
    shown_names = state.display()
    # Two directives may generate the same pattern: name it once. Two columns of one name both stay listed.
    seen: set[str] = set()
    available = [name for name in shown_names if "<" not in name or not (name in seen or seen.add(name))]
    shown = ", ".join(available[:20]) + (" …" if len(available) > 20 else "")
    by_lower = {known.lower(): known for known in state.names()}
    close = [by_lower[match] for match in difflib.get_close_matches(name.lower(), by_lower, n=3, cutoff=0.6)]
    suggestion = f"Did you mean {' or '.join(repr(c) for c in close)}? " if close else ""
    return ColumnNotFoundError(
        f"Column '{name}' does not exist at directive {directive.index} ('{directive.name}').",
        line=line,
        column=column,
        hint=f"{suggestion}Columns at this point: {shown or '(none)'}.",
        directive=directive.name,
        missing=name,
    )


def _strict_findings(directive: Directive, labels: Sequence[ColumnLabel]) -> list[RecipeError]:
    unnamed = [label for label in labels if label.label in (Label.RENAME, Label.DROP) and not label.exact]
    if directive.names_its_columns or not unnamed:
        return []
    span = directive.call.span
    return [
        StrictRuleError(
            f"'{directive.name}' renames or drops columns without naming them, so lineage cannot follow them.",
            line=span.line,
            column=span.column,
            hint="Give the input schema (--schema) or use rename/drop with explicit columns.",
            directive=directive.name,
        )
    ]


def _origin(created_by: int | None) -> str:
    return f"by directive {created_by}" if created_by else "in the input"
