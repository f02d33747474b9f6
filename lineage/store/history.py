"""Depth truncation of the opaque per-column directive trees.

The store does not know the tree format the backtracker writes. It only relies on this: a node
is a JSON object, and its parents (the directives/columns it came from) are the elements of a
list under the key ``upstream``. ``max_levels=1`` keeps the root with an empty ``upstream``;
``max_levels=2`` keeps the root and its direct upstream nodes, and so on. Other keys are copied
untouched; non-object list elements are kept as they are. Lists under ``influences`` (INDIRECT
influences on the root) are children too.
"""

from __future__ import annotations

from typing import Any

from lineage.errors import QueryError

UPSTREAM_KEY = "upstream"
INFLUENCES_KEY = "influences"
"""The backtracker puts a column's INDIRECT influences (filters) on its root; they count as one level down."""


def truncate_tree(
    tree: dict[str, Any], max_levels: int | None, *, key: str = UPSTREAM_KEY
) -> tuple[dict[str, Any], bool]:
    """A copy of ``tree`` cut below ``max_levels`` levels, and whether anything was cut.

    Iterative, so a history thousands of directives deep cannot hit the recursion limit. The input
    is never modified (it may be shared through a cache).
    """
    if max_levels is None:
        return tree, False
    if isinstance(max_levels, bool) or not isinstance(max_levels, int) or max_levels < 1:
        raise QueryError(f"max_levels must be a positive integer, got {max_levels!r}")
    truncated = False
    root = dict(tree)
    inner = root.get("tree")
    if key not in root and isinstance(inner, dict):
        # A whole `ColumnLineage.to_json()` stored as the history (sources, directives, tree, …): cut its tree.
        cut, truncated = truncate_tree(inner, max_levels, key=key)
        root["tree"] = cut
        if isinstance(root.get(INFLUENCES_KEY), list) and max_levels <= 1 and root[INFLUENCES_KEY]:
            root[INFLUENCES_KEY], truncated = [], True
        return root, truncated
    stack: list[tuple[dict[str, Any], int]] = [(root, 1)]
    while stack:
        node, level = stack.pop()
        for child_key in (key, INFLUENCES_KEY):
            children = node.get(child_key)
            if not isinstance(children, list):
                continue
            if level >= max_levels:
                if children:
                    node[child_key] = []
                    truncated = True
                continue
            copied: list[Any] = []
            for child in children:
                if isinstance(child, dict):
                    child_copy = dict(child)
                    copied.append(child_copy)
                    stack.append((child_copy, level + 1))
                else:
                    copied.append(child)
            node[child_key] = copied
    return root, truncated
