"""Static lineage as text, JSON or Graphviz dot, for `wrangler lineage` and the API.

Output columns known by name are listed under ``columns``; families whose names only the data can tell
(`body_<n>`, `<header>`) are never columns: they are listed apart, as "columns named by the data, from
directive N", until a sample run or a list of output names resolves their members.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from lineage.backtrack import ColumnLineage, GeneratedColumns, LineageNode


def to_json_document(lineages: dict[str, ColumnLineage],
                     generated: Sequence[GeneratedColumns] | None = None) -> dict[str, object]:
    document: dict[str, object] = {"columns": {name: item.to_json() for name, item in lineages.items()}}
    if generated is not None:
        document["generated"] = [family.to_json() for family in generated]
    return document


def to_document(lineages: dict[str, ColumnLineage], generated: Sequence[GeneratedColumns] = ()) -> dict[str, object]:
    """The CLI shape: ``{"columns": {col: {"sources", "directives", "tree"}}, "generated": [family, …]}``."""
    return {"columns": {name: item.to_document() for name, item in lineages.items()},
            "generated": [family.to_json() for family in generated]}


def to_document_text(lineages: dict[str, ColumnLineage], generated: Sequence[GeneratedColumns] = ()) -> str:
    return json.dumps(to_document(lineages, generated), indent=2)


def to_text(lineages: dict[str, ColumnLineage], generated: Sequence[GeneratedColumns] = ()) -> str:
    lines: list[str] = []
    for name, item in lineages.items():
        sources = ", ".join(item.sources) or "(none: generated)"
        lines.append(f"{name}  <-  {sources}{'' if item.exact else '  (over-approximated)'}")
        stack: list[tuple[LineageNode, int]] = [(item.tree, 1)]
        while stack:
            node, depth = stack.pop()
            lines.append(f"{'  ' * depth}{_node_text(node)}")
            stack.extend((child, depth + 1) for child in reversed(node.upstream))
        for influence in item.indirect:
            assert influence.directive is not None
            reads = ", ".join(child.column for child in influence.upstream) or "-"
            lines.append(f"  ~ {influence.subtype} by #{influence.directive.index}: {influence.directive.text} "
                         f"(reads {reads})")
    for family in generated:
        sources = ", ".join(family.lineage.sources) or "(none)"
        lines.append(f"{family.pattern}: {family.description}  <-  {sources}")
    return "\n".join(lines)


def _node_text(node: LineageNode) -> str:
    what = node.label if node.directive is None else \
        f"{node.label} by #{node.directive.index} (line {node.directive.line}): {node.directive.text}"
    renamed = f" (was {node.before})" if node.before and node.before != node.column else ""
    flags = ("" if node.exact else " ~") + (" [masking]" if node.masking else "") + (
        f" [{node.type} {node.subtype}]" if node.directive is not None and node.subtype != "IDENTITY" else "")
    return f"{node.column}{renamed}: {what}{flags}"


def dot_string(text: str) -> str:
    """A DOT quoted string: only `"` and `\\` are escaped, and a line break becomes DOT's own `\\n`.

    (JSON escaping, used before, turned the `\\n` line break into `\\\\n`, which Graphviz draws literally.)
    """
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\r\n", "\n").replace("\n", "\\n")
    return f'"{escaped}"'


def to_dot(lineages: dict[str, ColumnLineage], generated: Sequence[GeneratedColumns] = ()) -> str:
    """One graph: source columns on the left, output columns (bold) on the right, each directive's step a node.

    Dashed edges are over-approximations; a family of data-named columns is a dashed bold box.
    """
    out = ["digraph lineage {", "  rankdir=LR;", '  node [shape=box, fontname="Helvetica"];']
    seen_edges: set[tuple[str, str]] = set()

    def node_id(node: LineageNode) -> str:
        step = node.directive.index if node.directive else 0
        return dot_string(f"{node.column}@{step}")

    def add(final: str, label: str, item: ColumnLineage, style: str) -> None:
        out.append(f"  {dot_string('final:' + final)} [label={dot_string(label)}, style={style}];")
        out.append(f"  {node_id(item.tree)} -> {dot_string('final:' + final)};")
        for node in item.tree.walk():
            text = node.column if node.directive is None else f"{node.column}\n#{node.directive.index} {node.label}"
            out.append(f"  {node_id(node)} [label={dot_string(text)}];")
            for child in node.upstream:
                edge = (node_id(child), node_id(node))
                if edge not in seen_edges:
                    seen_edges.add(edge)
                    dashed = "" if child.exact and node.exact else " [style=dashed]"
                    out.append(f"  {edge[0]} -> {edge[1]}{dashed};")

    for name, item in lineages.items():
        add(name, name, item, "bold")
    for family in generated:
        add(family.pattern, f"{family.pattern}\n{family.description}", family.lineage, '"bold,dashed"')
    out.append("}")
    return "\n".join(dict.fromkeys(out))
