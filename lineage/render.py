"""Static lineage as text, JSON or Graphviz dot, for `wrangler lineage` and the API."""

from __future__ import annotations

import json

from lineage.backtrack import ColumnLineage, LineageNode


def to_json_document(lineages: dict[str, ColumnLineage]) -> dict[str, object]:
    return {"columns": {name: item.to_json() for name, item in lineages.items()}}


def to_document(lineages: dict[str, ColumnLineage]) -> dict[str, object]:
    """The CLI shape: ``{"columns": {col: {"sources", "directives", "tree"}}}`` and nothing else."""
    return {"columns": {name: item.to_document() for name, item in lineages.items()}}


def to_document_text(lineages: dict[str, ColumnLineage]) -> str:
    return json.dumps(to_document(lineages), indent=2)


def to_json_text(lineages: dict[str, ColumnLineage]) -> str:
    return json.dumps(to_json_document(lineages), indent=2)


def to_text(lineages: dict[str, ColumnLineage]) -> str:
    lines: list[str] = []
    for name, item in lineages.items():
        sources = ", ".join(item.sources) or "(none: generated)"
        lines.append(f"{name}  <-  {sources}{'' if item.exact else '  (over-approximated)'}")
        stack: list[tuple[LineageNode, int]] = [(item.tree, 1)]
        while stack:
            node, depth = stack.pop()
            what = node.label if node.directive is None else f"{node.label} by #{node.directive.index} " \
                f"(line {node.directive.line}): {node.directive.text}"
            renamed = f" (was {node.before})" if node.before and node.before != node.column else ""
            flags = ("" if node.exact else " ~") + (" [masking]" if node.masking else "") + (
                f" [{node.type} {node.subtype}]" if node.directive is not None and node.subtype != "IDENTITY" else "")
            lines.append(f"{'  ' * depth}{node.column}{renamed}: {what}{flags}")
            stack.extend((child, depth + 1) for child in reversed(node.upstream))
        for influence in item.indirect:
            assert influence.directive is not None
            reads = ", ".join(child.column for child in influence.upstream) or "-"
            lines.append(f"  ~ {influence.subtype} by #{influence.directive.index}: {influence.directive.text} "
                         f"(reads {reads})")
    return "\n".join(lines)


def to_dot(lineages: dict[str, ColumnLineage]) -> str:
    """One graph: source columns on the left, final columns on the right, directives on the edges."""
    out = ["digraph lineage {", "  rankdir=LR;", '  node [shape=box, fontname="Helvetica"];']
    seen_edges: set[tuple[str, str, str]] = set()

    def node_id(node: LineageNode) -> str:
        step = node.directive.index if node.directive else 0
        return json.dumps(f"{node.column}@{step}")

    for name, item in lineages.items():
        out.append(f"  {json.dumps('final:' + name)} [label={json.dumps(name)}, style=bold];")
        out.append(f"  {node_id(item.tree)} -> {json.dumps('final:' + name)};")
        for node in item.tree.walk():
            label = node.column if node.directive is None else f"{node.column}\\n#{node.directive.index} {node.label}"
            out.append(f"  {node_id(node)} [label={json.dumps(label)}];")
            for child in node.upstream:
                edge = (node_id(child), node_id(node), "")
                if edge not in seen_edges:
                    seen_edges.add(edge)
                    style = "" if child.exact and node.exact else " [style=dashed]"
                    out.append(f"  {edge[0]} -> {edge[1]}{style};")
    out.append("}")
    return "\n".join(dict.fromkeys(out))
