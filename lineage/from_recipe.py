"""A recipe run as field operations (seeds 002/003): READ from the source, TRANSFORMs, WRITE to the destination.

CDAP records one operation per directive, so every output of a `swap` or `merge` depends on
every input (spec §3.4, §4.3). We emit one TRANSFORM per (directive, output field), built from
the backtracker's per-column trees, so each field's lineage is exact: `swap :a :b` gives
`a → b` and `b → a`, `merge :a :b :c` gives `a, b → c` and leaves `a` and `b` alone. Only the
operations that feed a destination field are emitted (per-field pruning, seed 000).
"""

from __future__ import annotations

from collections.abc import Sequence

from directives.recipe import Recipe
from lineage.backtrack import SOURCE, UNRESOLVED, Backtracker, ColumnLineage, LineageNode
from lineage.model import DatasetRef, Destination, FieldOperation, InputField, OutputField, read_fields


def operation_name(node: LineageNode) -> str:
    assert node.directive is not None
    return f"d{node.directive.index}.{node.directive.name}.{node.column}"


def recipe_operations(
    recipe: Recipe,
    source: DatasetRef,
    destination_fields: Sequence[str] | None = None,
    lineages: dict[str, ColumnLineage] | None = None,
) -> list[FieldOperation]:
    """READs of the source fields used, then TRANSFORMs in recipe order (the WRITE is added by the recorder)."""
    if destination_fields is not None and lineages is not None:
        fields, trees = list(destination_fields), lineages
    else:
        backtracker = Backtracker(recipe)
        fields = list(destination_fields) if destination_fields is not None else backtracker.final_columns()
        trees = lineages or {name: backtracker.lineage(name) for name in fields}
    transforms: dict[str, tuple[int, FieldOperation]] = {}
    source_fields: list[str] = []
    for name in fields:
        for node in trees[name].tree.walk():
            if node.directive is None:
                if node.label in (SOURCE, UNRESOLVED) and node.column not in source_fields:
                    source_fields.append(node.column)
                continue
            op_name = operation_name(node)
            if op_name in transforms:
                continue
            inputs = tuple(_input(child, source) for child in node.upstream)
            description = _description(recipe, node)
            properties = {"directive": node.directive.text, "line": str(node.directive.line),
                          "label": node.label, "type": "DIRECT" if node.direct else "INDIRECT",
                          "subtype": node.subtype}
            if node.masking:
                properties["masking"] = "true"
            if not node.exact:
                properties["exact"] = "false"
            transforms[op_name] = (
                node.directive.index,
                FieldOperation(name=op_name, description=description, inputs=inputs,
                               outputs=(OutputField(field=node.column),), properties=properties),
            )
    reads = read_fields(source, source_fields, description=f"Read from {source.name}")
    ordered = [op for _, op in sorted(transforms.values(), key=lambda item: item[0])]
    return [*reads, *ordered]


def _input(child: LineageNode, source: DatasetRef) -> InputField:
    if child.directive is None:
        return InputField(field=child.column, origin=f"read:{source.name}.{child.column}")
    return InputField(field=child.column, origin=operation_name(child))


def _description(recipe: Recipe, node: LineageNode) -> str:
    assert node.directive is not None
    directive = recipe.steps[node.directive.index - 1].directive
    return directive.describe()


def recipe_destination(name: str, fields: Sequence[str], *, namespace: str | None = None,
                       properties: dict[str, str] | None = None, description: str = "") -> Destination:
    return Destination(namespace=namespace, name=name, fields=tuple(fields), properties=properties or {},
                       description=description)
