"""A row-at-a-time Python interpreter of a few directives: the baseline the Spark compiler is measured against.

This is what running Wrangler's model naively on Spark looks like — every row goes to a Python
worker (`mapPartitions`) and through every directive as a dict — and it is *only* a benchmark
baseline: it covers the directives of `bench/bench_run.py`'s recipe, with the same semantics for
the values that recipe produces. Expressions are interpreted from the parsed tree (no eval).
"""

from __future__ import annotations

import csv
import hashlib
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from directives.base import expression_tree
from grammar.expression_nodes import Binary, Call, Expr, Literal, Name, Ternary, Unary

Row = dict[str, Any]
Step = Callable[[Row], Row | None]  # None: the row is gone (filtered or errored)


class RowError(Exception):
    """A row-level failure: the row goes to the error output."""


def _find(row: Row, name: str) -> str | None:
    if name in row:
        return name
    lowered = name.lower()
    return next((key for key in row if key.lower() == lowered), None)


# -- expressions -------------------------------------------------------------------------------------------------------
def _arith(op: str, left: Any, right: Any) -> Any:
    if left is None or right is None:
        if op == "+" and (isinstance(left, str) or isinstance(right, str)):
            return f"{left}{right}"
        raise RowError(f"null operand of '{op}'")  # JEXL's strict arithmetic, as the Spark compiler does
    if op == "+":
        if isinstance(left, str) or isinstance(right, str):
            return f"{left}{right}"
        return left + right
    left_n, right_n = float(left) if isinstance(left, str) else left, float(right) if isinstance(right, str) else right
    if op == "-":
        return left_n - right_n
    if op == "*":
        return left_n * right_n
    if op == "/":
        if isinstance(left_n, int) and isinstance(right_n, int):
            if right_n == 0:
                raise RowError("division by zero")
            return int(left_n / right_n)
        return left_n / right_n if right_n else float("inf")
    if op == "%":
        return left_n % right_n
    raise NotImplementedError(op)


_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b, ">": lambda a, b: a > b,
    "<=": lambda a, b: a <= b, ">=": lambda a, b: a >= b,
}


def compile_expr(node: Expr) -> Callable[[Row], Any]:
    """A closure evaluating the expression on a row (the subset the benchmark recipe uses)."""
    if isinstance(node, Literal):
        value = node.value
        return lambda row: value
    if isinstance(node, Name):
        name = node.dotted
        return lambda row: row.get(_find(row, name) or name)
    if isinstance(node, Unary):
        operand = compile_expr(node.operand)
        if node.op in ("!", "not"):
            return lambda row: not operand(row)
        return lambda row: -operand(row)
    if isinstance(node, Binary):
        left, right, op = compile_expr(node.left), compile_expr(node.right), node.op
        if op in ("&&", "and"):
            return lambda row: bool(left(row)) and bool(right(row))
        if op in ("||", "or"):
            return lambda row: bool(left(row)) or bool(right(row))
        if op in _COMPARE:
            compare = _COMPARE[op]

            def comparison(row: Row) -> bool:
                a, b = left(row), right(row)
                if a is None or b is None:
                    return (op == "==" and a is b) or (op == "!=" and (a is None) != (b is None))
                return compare(a, b)

            return comparison
        return lambda row: _arith(op, left(row), right(row))
    if isinstance(node, Ternary):
        cond, then, otherwise = compile_expr(node.cond), compile_expr(node.then), compile_expr(node.otherwise)
        return lambda row: then(row) if cond(row) else otherwise(row)
    if isinstance(node, Call) and node.namespace is None and node.name == "empty" and len(node.args) == 1:
        arg = compile_expr(node.args[0])
        return lambda row: arg(row) in (None, "")
    raise NotImplementedError(f"expression node {type(node).__name__} is not in the row executor")


# -- directives --------------------------------------------------------------------------------------------------------
def _mask_number(text: str, mask: str) -> str:
    out, i = [], 0
    for c in mask:
        if c == "#":
            if i < len(text):
                out.append(text[i])
                i += 1
        elif c in "xX":
            out.append("x")
            i += 1
        else:
            out.append(c)
            if i < len(text) and text[i] == c:
                i += 1
    return "".join(out)


def _set_type(kind: str) -> Callable[[Any], Any]:
    kind = kind.lower()
    if kind in ("double", "float"):
        return float
    if kind in ("int", "integer", "long", "short", "i32", "i64"):
        return lambda v: int(str(v).strip())
    if kind == "string":
        return str
    raise NotImplementedError(f"set-type {kind}")


def compile_directive(d: Any) -> Step:
    """One directive as a row function (mutates and returns the row dict, or None to drop it)."""
    name = d.name
    if name == "parse-as-csv":
        column, delimiter, header = d.col, str(d.bound("delimiter", ",")), d.header
        if header:
            raise NotImplementedError("parse-as-csv with a header row")

        def parse_csv(row: Row) -> Row:
            value = row.get(_find(row, column) or column)
            if value:
                for i, field in enumerate(next(csv.reader([value], delimiter=delimiter)), start=1):
                    row[f"{column}_{i}"] = field
            return row

        return parse_csv
    if name == "drop":
        names = [n.strip() for n in d.column]

        def drop(row: Row) -> Row:
            for n in names:
                found = _find(row, n)
                if found is not None:
                    del row[found]
            return row

        return drop
    if name == "rename":
        source, target = d.source, d.target

        def rename(row: Row) -> Row:
            found = _find(row, source)
            if found is None:
                return row
            return {(target if key == found else key): value for key, value in row.items()}

        return rename
    if name in ("trim", "uppercase", "lowercase", "ltrim", "rtrim"):
        column = d.column
        function: Callable[[str], str] = {"trim": str.strip, "uppercase": str.upper, "lowercase": str.lower,
                                          "ltrim": str.lstrip, "rtrim": str.rstrip}[name]

        def text_op(row: Row) -> Row:
            found = _find(row, column)
            if found is not None and isinstance(row[found], str):
                row[found] = function(row[found])
            return row

        return text_op
    if name == "set-type":
        column, convert = d.column, _set_type(str(d.type))

        def set_type(row: Row) -> Row:
            found = _find(row, column)
            if found is None or row[found] is None or row[found] == "":
                if found is not None:
                    row[found] = None
                return row
            try:
                row[found] = convert(row[found])
            except ValueError as error:
                raise RowError(f"Column '{found}' value '{row[found]}' cannot be converted") from error
            return row

        return set_type
    if name == "fill-null-or-empty":
        column, fill = d.column, str(d.value)

        def fill_null(row: Row) -> Row:
            found = _find(row, column) or column
            if row.get(found) in (None, ""):
                row[found] = fill
            return row

        return fill_null
    if name == "merge":
        first, second, target, separator = d.column1, d.column2, d.destination, str(d.separator)

        def merge(row: Row) -> Row:
            a, b = row.get(_find(row, first) or first), row.get(_find(row, second) or second)
            row[target] = f"{'null' if a is None else a}{separator}{'null' if b is None else b}"
            return row

        return merge
    if name == "set-column":
        column, expression = d.column, compile_expr(expression_tree(d.expression))

        def set_column(row: Row) -> Row:
            row[_find(row, column) or column] = expression(row)
            return row

        return set_column
    if name == "filter-row":
        condition, drops_when = compile_expr(expression_tree(d.condition)), bool(d.drops_when)
        return lambda row: None if bool(condition(row)) == drops_when else row
    if name == "mask-number":
        column, mask = d.column, str(d.mask)

        def mask_number(row: Row) -> Row:
            found = _find(row, column)
            if found is not None and row[found] is not None:
                row[found] = _mask_number(str(row[found]), mask)
            return row

        return mask_number
    if name == "hash":
        column, algorithm, encode = d.column, str(d.algorithm), bool(d.encode)
        python_name = algorithm.lower().replace("-", "")

        def hash_(row: Row) -> Row:
            found = _find(row, column)
            if found is None or row[found] is None:
                raise RowError(f"Column '{column}' has null value.")
            digest = hashlib.new(python_name, str(row[found]).encode()).digest()
            row[found] = f"{int.from_bytes(digest, 'big'):064x}" if encode else digest
            return row

        return hash_
    raise NotImplementedError(f"directive {name} is not in the row executor")


def compile_recipe(recipe_text: str, schema: list[str]) -> list[Step]:
    import directives

    return [compile_directive(d) for d in directives.parse(recipe_text, schema=schema).directives]


def run_partition(recipe_text: str, schema: list[str]) -> Callable[[Iterable[Any]], Iterator[tuple[Any, ...]]]:
    """A `mapPartitions` function: compile once per partition, then each row through every step."""

    def partition(rows: Iterable[Any]) -> Iterator[tuple[Any, ...]]:
        steps = compile_recipe(recipe_text, schema)
        for source in rows:
            row: Row | None = dict(zip(schema, source, strict=True))
            try:
                for step in steps:
                    row = step(row)
                    if row is None:
                        break
            except RowError:
                continue
            if row is not None:
                yield tuple(row.values())

    return partition
