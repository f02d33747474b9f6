"""Compile a parsed JEXL expression tree (grammar.expression nodes) into one Spark Column.

Nothing is evaluated in Python and no user text reaches `eval`, `exec` or Spark SQL parsing:
every node maps to Column API calls. Two things run alongside the value:

* **Failures.** JEXL (strict, as Wrangler configures it) throws on a null operand of `+ - * /`,
  on text that is not a number, on division by zero; Wrangler then sends the row to the error
  output. Each such place adds a `(condition, message)`; the directive compilers turn them into
  `Step.fail_when`. A failure inside a branch that is not taken does not count: conditions are
  guarded by the branch condition (ternary, `if`, `&&`/`||` short-circuit, `?:`).
* **Bindings.** Names resolve as in Wrangler's ELContext: script locals (`var x`), then transient
  variables (set-variable), then row columns (case-insensitive, first match), then null.
  `ctx` and `this` are the execution context and the row.

Unknown functions and methods are reported at compile time with their line and column.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T

from directives.spark.expr.functions import FUNCTIONS, METHODS, NAMESPACES, ROW_METHODS, Function
from directives.spark.expr.values import (
    NUMERIC,
    KindError,
    Value,
    as_number,
    cast_value,
    constant,
    element_kind,
    java_string,
    kind_name,
    kind_of,
    known_type,
    not_a_number,
    time_column,
    time_text,
    truthy,
    unify,
    wider_number,
)
from directives.spark.runtime.frame import VARIABLE_PREFIX, Frame, RunContext, Step, col
from grammar.errors import RecipeError
from grammar.expression import (
    ArrayLiteral,
    Assign,
    Attribute,
    Binary,
    Block,
    Call,
    Elvis,
    Expr,
    If,
    Index,
    Literal,
    MethodCall,
    Name,
    Ternary,
    Unary,
    Var,
    expression_text,
)

if TYPE_CHECKING:
    from directives.base import Directive


#: Argument kinds after which a call's result is type-checked by Spark while compiling (see `_checked`): text,
#: numbers, dates and nulls are what the functions convert themselves, so calls on them cost no analysis.
_CHECKED_KINDS = frozenset({"bool", "binary", "array", "struct", "map", "row", "context"})
#: Calls (function, and each argument's kind, element kind and literalness) Spark has typed once: the same call on
#: the same kinds types the same, so each is analysed once per process (an analysis costs about 10 ms). Kinds whose
#: Spark types vary within the kind (records, maps, JSON, unknown) are analysed every time.
_RESOLVED: set[tuple[object, ...]] = set()
_VARIED_KINDS = frozenset({"struct", "map", "row", "context", "variant", "any"})


#: Kinds whose non-null constants stay non-null as Spark literals (`values.constant`: no cast that can fail).
_NEVER_NULL_CONSTANTS = frozenset({"int", "long", "double", "string", "bool", "decimal"})

class ExpressionError(RecipeError):
    """An expression that parses but cannot be compiled: unknown function or method, wrong arity, bad types."""

    rule = "expression"


@dataclass
class Compiled:
    """The value of an expression plus the conditions under which evaluating it fails for a row."""

    value: Value
    failures: list[tuple[Column, str]] = field(default_factory=list)


def variable_column(name: str) -> str:
    """The hidden column that holds a transient variable (names are case-insensitive)."""
    return VARIABLE_PREFIX + name.lower()


class ExprCompiler:
    """One compilation of one expression against one frame (the columns before the directive)."""

    def __init__(self, frame: Frame, ctx: RunContext, directive: Directive | None = None,
                 bindings: dict[str, Value] | None = None) -> None:
        self.frame = frame
        self.ctx = ctx
        self.directive = directive
        self.failures: list[tuple[Column, str]] = []
        self._guard: Column | None = None
        self.locals: dict[str, Value] = {}
        self.bindings = {name.lower(): value for name, value in (bindings or {}).items()}
        self._text = ""

    # -- entry points ------------------------------------------------------------------------------------------------
    def compile_tree(self, tree: Expr) -> Compiled:
        self._text = _text_of(tree)
        value = self.compile(tree)
        return Compiled(value, list(self.failures))

    def error(self, node: Expr, message: str, hint: str | None = None) -> ExpressionError:
        name = self.directive.name if self.directive is not None else None
        return ExpressionError(message, line=node.span.line or None, column=node.span.column or None, hint=hint,
                               directive=name)

    def fail_when(self, condition: Column, reason: str) -> None:
        """Record that evaluating the current node fails for rows where ``condition`` holds."""
        guarded = condition if self._guard is None else (self._guard & condition)
        self.failures.append((guarded, f"Expression '{self._text}' failed: {reason}"))

    def guarded(self, condition: Column, thunk: Callable[[], Value]) -> Value:
        """Compile ``thunk`` so that its failures only count where ``condition`` is true."""
        saved = self._guard
        self._guard = condition if saved is None else (saved & condition)
        try:
            return thunk()
        finally:
            self._guard = saved

    # -- dispatch ----------------------------------------------------------------------------------------------------
    def compile(self, node: Expr) -> Value:
        try:
            return self._compile_node(node)
        except KindError as error:  # an operator given bytes or a list (a call names its function itself)
            raise self.error(node, f"'{_text_of(node)}' uses {error}.") from None

    def _compile_node(self, node: Expr) -> Value:
        match node:
            case Literal():
                return self._literal(node)
            case Name():
                return self._name(node)
            case Unary():
                return self._unary(node)
            case Binary():
                return self._binary(node)
            case Ternary(cond=cond, then=then, otherwise=otherwise):
                return self._choose(self.compile(cond), then, otherwise)
            case Elvis(value=value_node, default=default):
                value = self.compile(value_node)
                test = truthy(value)
                other = self.guarded(~test, lambda: self.compile(default))
                kind, (a, b) = unify([value, other])
                return Value(F.when(test, a).otherwise(b), kind)
            case Call():
                return self._call(node)
            case MethodCall():
                return self._method(node)
            case Attribute(target=target, name=member):
                return self._member(node, self.compile(target), member)
            case Index(target=target, index=index):
                return self._index(node, self.compile(target), self.compile(index))
            case ArrayLiteral(items=items):
                return self.array_value([self.compile(item) for item in items])
            case Block(statements=statements):
                result = constant(None, "null")
                for statement in statements:
                    result = self.compile(statement)
                return result
            case Var(name=name, value=value_node):
                value = self.compile(value_node) if value_node is not None else constant(None, "null")
                self.locals[name] = value
                return value
            case Assign():
                return self._assign(node)
            case If(cond=cond, then=then, otherwise=otherwise):
                return self._if(self.compile(cond), then, otherwise)
        raise self.error(node, f"Unsupported expression element {type(node).__name__}.")

    # -- leaves ------------------------------------------------------------------------------------------------------
    def _literal(self, node: Literal) -> Value:
        kind = {"int": "int", "long": "long", "bigint": "decimal", "double": "double", "float": "double",
                "bigdecimal": "decimal", "string": "string", "bool": "bool", "null": "null"}[node.kind]
        return constant(node.value, kind)

    def _name(self, node: Name) -> Value:
        parts = node.parts
        dotted = ".".join(parts)
        head = parts[0]
        if head in self.locals:
            return self._path(node, self.locals[head], parts[1:])
        if dotted.lower() in self.bindings:
            return self.bindings[dotted.lower()]
        if head.lower() in self.bindings:
            return self._path(node, self.bindings[head.lower()], parts[1:])
        if head == "ctx":
            return self._context(node, parts[1:])
        if head == "this":
            if len(parts) == 1:
                return Value(F.lit(None), "row")
            row_value = self.column_value(parts[1])
            return row_value if len(parts) == 2 else self._path(node, row_value, parts[2:])
        variable = self.variable(dotted)
        if variable is not None:
            return variable
        variable = self.variable(head) if len(parts) > 1 else None
        if variable is not None:
            return self._path(node, variable, parts[1:])
        actual = self.frame.find(dotted)
        if actual is not None:
            return self.column_value(actual)
        if len(parts) > 1 and self.frame.find(head) is not None:
            return self._path(node, self.column_value(head), parts[1:])
        return constant(None, "null")  # Wrangler binds a missing column to null

    def variable(self, name: str) -> Value | None:
        """A transient variable set by an earlier directive (a hidden per-row column), or None."""
        if name.lower() not in self.ctx.variables:
            return None
        hidden = variable_column(name)
        if hidden in self.frame.df.columns:
            data_type = self.frame.df.schema[hidden].dataType
            if kind_of(data_type) == "time":
                from directives.spark.expr.functions import nanos_of_text

                return Value(nanos_of_text(col(hidden).cast("string")), "time")
            return Value(col(hidden), kind_of(data_type), element=element_kind(data_type))
        value = self.ctx.variables[name.lower()]
        return Value(value, "any")

    def column_value(self, name: str) -> Value:
        actual = self.frame.find(name)
        if actual is None:
            return constant(None, "null")
        data_type = self.frame.data_type(actual)
        kind = kind_of(data_type)
        if kind == "time":  # inside expressions a time of day is nanoseconds since midnight
            from directives.spark.expr.functions import nanos_of_text

            return Value(nanos_of_text(col(actual).cast("string")), "time")
        return Value(col(actual), kind, element=element_kind(data_type), data_type=data_type)

    def _path(self, node: Expr, value: Value, path: tuple[str, ...]) -> Value:
        for member in path:
            value = self._member(node, value, member)
        return value

    def _member(self, node: Expr, value: Value, member: str) -> Value:
        """`a.b` on a value: a struct field (case-insensitive), a map key, a JSON field, else an error."""
        if value.kind == "struct":
            data_type = self.frame.df.select(value.col).schema[0].dataType
            for struct_field in getattr(data_type, "fields", []):
                if struct_field.name.lower() == member.lower():
                    return Value(value.col.getField(struct_field.name), kind_of(struct_field.dataType),
                                 element=element_kind(struct_field.dataType))
            return constant(None, "null")
        if value.kind == "map":
            return Value(value.col.getItem(member), "any")
        if value.kind == "variant":
            return Value(F.try_variant_get(value.col, f"$.{member}", "variant"), "variant")
        if value.kind == "null":
            return value
        if value.kind == "any":
            return Value(value.col.getField(member), "any")
        raise self.error(node, f"Cannot read property '{member}' of a {value.kind} value.",
                         "Property access works on records (structs), maps and parsed JSON.")

    def _context(self, node: Name, path: tuple[str, ...]) -> Value:
        """`ctx.name`, `ctx.environment`, `ctx.nano`, `ctx.millis` (Wrangler's ELContext.Context)."""
        member = path[0] if path else ""
        if member == "name":
            return constant(str(getattr(self.ctx, "name", "spark")), "string")
        if member == "environment":
            return constant("SPARK", "string")
        if member == "nano":
            return Value(F.unix_micros(F.current_timestamp()) * F.lit(1000), "long")
        if member == "millis":
            return Value(F.unix_millis(F.current_timestamp()), "long")
        raise self.error(node, f"Unknown context property 'ctx.{member}'.", "Use ctx.name, ctx.environment, "
                         "ctx.nano or ctx.millis.")

    # -- operators ---------------------------------------------------------------------------------------------------
    def _unary(self, node: Unary) -> Value:
        operand = self.compile(node.operand)
        if node.op == "!":
            return Value(~truthy(operand), "bool")
        if node.op == "-":
            if operand.kind == "null":
                self.fail_when(F.lit(True), "null operand of '-'")
                return operand
            kind = operand.kind if operand.numeric else "double"
            number = as_number(operand, kind)
            self._null_operand(operand, "-")
            self._check_number(operand, number)
            return Value(-number, kind)
        if node.op == "~":
            kind = operand.kind if operand.kind in ("int", "long") else "long"
            return Value(F.bitwise_not(as_number(operand, kind)), kind)
        raise self.error(node, f"Unsupported operator '{node.op}'.")

    def _null_operand(self, value: Value, op: str) -> None:
        if value.kind == "null":
            self.fail_when(F.lit(True), f"null operand of '{op}'")
        elif value.is_literal and value.literal is not None and value.kind in _NEVER_NULL_CONSTANTS:
            return  # a constant that is not null never fails this check (nothing for a row's status to test)
        elif value.kind not in ("array", "row", "context"):
            self.fail_when(value.col.isNull(), f"null operand of '{op}'")

    def _check_number(self, value: Value, number: Column) -> None:
        bad = not_a_number(value, number)
        if bad is not None:
            self.fail_when(bad, "a value is not a number")

    def _binary(self, node: Binary) -> Value:
        op = node.op
        left = self.compile(node.left)
        if op == "&&":
            test = truthy(left)
            right = self.guarded(test, lambda: self.compile(node.right))
            return Value(test & truthy(right), "bool")
        if op == "||":
            test = truthy(left)
            right = self.guarded(~test, lambda: self.compile(node.right))
            return Value(test | truthy(right), "bool")
        right = self.compile(node.right)
        if op in ("+", "-", "*", "/", "%"):
            return self._arithmetic(op, left, right)
        if op in ("==", "!="):
            equal = self._equals(left, right)
            return Value(equal if op == "==" else ~equal, "bool")
        if op in ("<", "<=", ">", ">="):
            return self._compare(op, left, right)
        if op in ("=~", "!~"):
            matched = self._matches(node, left, right)
            return Value(matched if op == "=~" else ~matched, "bool")
        if op in ("=^", "!^", "=$", "!$"):
            text, affix = java_string(left), java_string(right)
            hit = text.startswith(affix) if op in ("=^", "!^") else text.endswith(affix)
            hit = F.coalesce(hit, F.lit(False))
            return Value(hit if op[0] == "=" else ~hit, "bool")
        if op in ("&", "|", "^"):
            kind = "long" if "long" in (left.kind, right.kind) else "int"
            if left.kind == "bool" and right.kind == "bool":
                combined = {"&": left.col & right.col, "|": left.col | right.col, "^": left.col != right.col}[op]
                return Value(combined, "bool")
            a, b = as_number(left, kind), as_number(right, kind)
            combined = {"&": a.bitwiseAND(b), "|": a.bitwiseOR(b), "^": a.bitwiseXOR(b)}[op]
            return Value(combined, kind)
        raise self.error(node, f"Unsupported operator '{op}'.")

    def _arithmetic(self, op: str, left: Value, right: Value) -> Value:
        if op == "+" and "string" in (left.kind, right.kind):
            self._null_operand(left, op)
            self._null_operand(right, op)
            return Value(F.concat(java_string(left), java_string(right)), "string")
        self._null_operand(left, op)
        self._null_operand(right, op)
        kind = wider_number(left.kind, right.kind)
        if left.kind == "null" or right.kind == "null":
            return cast_value(F.lit(None), kind)
        a, b = as_number(left, kind), as_number(right, kind)
        self._check_number(left, a)
        self._check_number(right, b)
        if op in ("/", "%"):
            self.fail_when(b == 0, "division by zero")
        if kind == "int":
            wide_a, wide_b = a.cast("bigint"), b.cast("bigint")
            result = _apply(op, wide_a, wide_b, integral=True)
            self.fail_when((result > 2**31 - 1) | (result < -(2**31)), "integer overflow")
            return cast_value(result, "int")
        result = _apply(op, a, b, integral=kind == "long")
        return cast_value(result, kind) if kind != "decimal" else Value(result, kind)

    def _equals(self, left: Value, right: Value) -> Column:
        """JEXL `==`: null only equals null; booleans by truth; numbers as numbers; otherwise as text."""
        kinds = {left.kind, right.kind}
        if "null" in kinds:
            other = right if left.kind == "null" else left
            return other.col.isNull() if other.kind != "null" else F.lit(True)
        if "bool" in kinds:
            a, b = truthy(left), truthy(right)
        elif left.kind == right.kind:
            # Null exactly where the operands are: Spark's null-safe equality is JEXL's, in one comparison (the
            # general form below reads each operand twice more, and a composed operand is computed again each time).
            return left.col.eqNullSafe(right.col)
        elif kinds & set(NUMERIC):
            kind = "decimal" if "decimal" in kinds else "double"
            a, b = as_number(left, kind), as_number(right, kind)
            self._check_number(left, a)
            self._check_number(right, b)
        else:
            a, b = java_string(left), java_string(right)
        both_null = left.col.isNull() & right.col.isNull()
        either_null = left.col.isNull() | right.col.isNull()
        return F.when(either_null, both_null).otherwise(F.coalesce(a == b, F.lit(False)))

    def _compare(self, op: str, left: Value, right: Value) -> Value:
        """JEXL ordering: numbers numerically (text operands parsed), text lexically; null compares false."""
        kinds = {left.kind, right.kind}
        if "null" in kinds:
            return Value(F.lit(False), "bool")
        if kinds & set(NUMERIC):
            kind = "decimal" if "decimal" in kinds else "double"
            a, b = as_number(left, kind), as_number(right, kind)
            self._check_number(left, a)
            self._check_number(right, b)
        elif kinds <= {"date", "timestamp"} or (left.kind == right.kind and left.kind in ("string", "bool")):
            a, b = left.col, right.col
        else:
            a, b = java_string(left), java_string(right)
        result = {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
        return Value(F.coalesce(result, F.lit(False)), "bool")

    def _matches(self, node: Binary, left: Value, right: Value) -> Column:
        """`x =~ 'regex'` is a full Java-regex match; `x =~ [a, b]` (or an array value) is membership."""
        if right.kind == "array":
            if right.element in NUMERIC and left.kind in ("string", *NUMERIC):
                needle = as_number(left, "double")
                hit = F.array_contains(F.transform(right.col, lambda item: item.cast("double")), needle)
            else:
                hit = F.array_contains(F.transform(right.col, lambda item: item.cast("string")), java_string(left))
            return F.coalesce(hit, F.lit(False))
        if right.kind == "null":
            return left.col.isNull()
        pattern = F.concat(F.lit("^(?:"), java_string(right), F.lit(")$"))
        if right.is_literal:
            pattern = F.lit(f"^(?:{right.literal})$")
        return F.coalesce(F.regexp(java_string(left), pattern), F.lit(False))

    # -- control flow ------------------------------------------------------------------------------------------------
    def _choose(self, cond: Value, then: Expr, otherwise: Expr | None) -> Value:
        test = truthy(cond)
        saved = dict(self.locals)
        a = self.guarded(test, lambda: self.compile(then))
        then_locals = self.locals
        self.locals = dict(saved)
        b = self.guarded(~test, lambda: self.compile(otherwise)) if otherwise is not None else constant(None, "null")
        else_locals = self.locals
        self.locals = self._merge_locals(test, then_locals, else_locals)
        kind, (x, y) = unify([a, b])
        return Value(F.when(test, x).otherwise(y), kind)

    def _if(self, cond: Value, then: Expr, otherwise: Expr | None) -> Value:
        return self._choose(cond, then, otherwise)

    def _merge_locals(self, test: Column, then: dict[str, Value], otherwise: dict[str, Value]) -> dict[str, Value]:
        merged: dict[str, Value] = {}
        for name in {*then, *otherwise}:
            a, b = then.get(name), otherwise.get(name)
            if a is not None and b is not None and a is b:
                merged[name] = a
                continue
            a = a or constant(None, "null")
            b = b or constant(None, "null")
            kind, (x, y) = unify([a, b])
            merged[name] = Value(F.when(test, x).otherwise(y), kind)
        return merged

    def _assign(self, node: Assign) -> Value:
        target = node.target
        if not isinstance(target, Name) or len(target.parts) != 1:
            raise self.error(node, "Only script variables can be assigned (x = …).",
                             "Row values and properties cannot be changed inside an expression; use set-column.")
        name = target.parts[0]
        value = self.compile(node.value)
        if node.op != "=":
            current = self.compile(target)
            op = node.op[:-1]
            if op in ("+", "-", "*", "/", "%"):
                value = self._arithmetic(op, current, value)
            else:
                raise self.error(node, f"Unsupported assignment operator '{node.op}'.")
        self.locals[name] = value
        return value

    # -- calls -------------------------------------------------------------------------------------------------------
    def _call(self, node: Call) -> Value:
        key = (node.namespace, node.name)
        spec = FUNCTIONS.get(key)
        label = f"{node.namespace}:{node.name}" if node.namespace else node.name
        if spec is None:
            raise self.error(node, f"Unknown function '{label}' in expression.", _suggest(node, FUNCTIONS, NAMESPACES))
        if not spec.accepts(len(node.args)):
            raise self.error(node, f"Function '{label}' takes {spec.arity_text()}, got {len(node.args)}.",
                             f"Usage: {label}(…) — {spec.doc}" if spec.doc else None)
        args = [self.compile(arg) for arg in node.args]
        return self._checked(node, label, spec, args)

    def _checked(self, node: Expr, label: str, spec: Function, args: list[Value]) -> Value:
        """``spec`` applied to ``args``, or an ExpressionError naming the function and its usage where the arguments
        are of kinds it cannot take: a conversion that refuses them (`KindError`), or, for arguments of the kinds
        that text and number functions are not written for (booleans, bytes, lists, records), Spark's own type
        check of the result, asked here (one analysis) rather than met when the projection is built (an
        AnalysisException that names neither the function nor the directive)."""
        before = len(self.failures)
        try:
            value = spec.impl(self, node, args)
        except KindError as error:
            raise self._usage_error(node, label, spec, args, str(error)) from None
        if any(arg.kind in _CHECKED_KINDS for arg in args):
            signature = (label, *((arg.kind, arg.element, arg.is_literal) for arg in args))
            if signature in _RESOLVED:
                return value
            columns = [value.col, *(condition for condition, _ in self.failures[before:])]
            mismatch = self.frame.type_mismatch(columns)
            if mismatch is not None:
                raise self._usage_error(node, label, spec, args, f"Spark cannot resolve it ({mismatch})")
            if not _VARIED_KINDS.intersection(kind for arg in args for kind in (arg.kind, arg.element)):
                _RESOLVED.add(signature)
        return value

    def _usage_error(self, node: Expr, label: str, spec: Function, args: list[Value], reason: str) -> ExpressionError:
        kinds = ", ".join(kind_name(arg.kind) for arg in args)
        return self.error(node, f"Function '{label}' cannot take ({kinds}): {reason}.",
                          f"Usage: {label}(…) — {spec.doc}" if spec.doc else None)

    def _method(self, node: MethodCall) -> Value:
        if isinstance(node.target, Name) and node.target.parts == ("this",) and "this" not in self.locals:
            spec = ROW_METHODS.get(node.name)
            if spec is None:
                raise self.error(node, f"Unknown row method 'this.{node.name}()'.",
                                 f"Supported: {', '.join(sorted(ROW_METHODS))}.")
            args = [self.compile(arg) for arg in node.args]
            return spec.impl(self, node, args)
        spec = METHODS.get(node.name)
        if spec is None:
            close = difflib.get_close_matches(node.name, list(METHODS), n=3)
            hint = f"Did you mean {', '.join(close)}?" if close else "See docs/expressions.md for supported methods."
            raise self.error(node, f"Unknown method '{node.name}()' in expression.", hint)
        if not spec.min_args <= len(node.args) <= spec.max_args:
            raise self.error(node, f"Method '{node.name}' takes {spec.arity_text()}, got {len(node.args)}.")
        target = self.compile(node.target)
        args = [self.compile(arg) for arg in node.args]
        return self._checked(node, node.name, spec, [target, *args])

    def _index(self, node: Index, target: Value, index: Value) -> Value:
        if target.kind == "array":
            position = as_number(index, "int")
            return Value(F.try_element_at(target.col, position + 1), target.element)
        if target.kind in ("struct", "map", "variant") and index.is_literal and isinstance(index.literal, str):
            return self._member(node, target, index.literal)
        if target.kind == "map":
            return Value(target.col.getItem(index.col), "any")
        if target.kind == "string":
            position = as_number(index, "int")
            return Value(F.substring(target.col, position + 1, 1), "string")
        if target.kind == "null":
            return target
        raise self.error(node, f"Cannot index a {target.kind} value with [].")

    def array_value(self, items: list[Value]) -> Value:
        if not items:
            return Value(F.array().cast("array<string>"), "array", element="string")
        kind, columns = unify(items)
        if kind == "null":
            kind, columns = "string", [item.col.cast("string") for item in items]
        return Value(F.array(*columns), "array", element=kind)


def _apply(op: str, a: Column, b: Column, *, integral: bool) -> Column:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "%":
        return F.when(b != 0, a % b)
    if integral:  # Java integer division truncates toward zero; Spark's % has Java's sign rules
        return F.when(b != 0, (a - a % b) / b).cast("bigint")
    return F.when(b != 0, a / b)


def _text_of(tree: Expr) -> str:
    try:
        return " ".join(expression_text(tree).split())
    except ValueError:
        return ""


def _suggest(node: Call, functions: dict[tuple[str | None, str], object], namespaces: dict[str, str]) -> str:
    available = sorted({namespace for namespace, _ in functions if namespace})
    if node.namespace is not None and node.namespace not in available:
        known = ", ".join(f"{name}:" for name in available)
        if node.namespace in namespaces:
            return (f"No function of Wrangler's '{node.namespace}:' namespace ({namespaces[node.namespace]}) runs "
                    f"on Spark yet. Namespaces with Spark support: {known}.")
        return f"Namespace '{node.namespace}:' is not available on Spark. Known namespaces: {known}."
    same = [name for namespace, name in functions if namespace == node.namespace]
    close = difflib.get_close_matches(node.name, same, n=3)
    if close:
        prefix = f"{node.namespace}:" if node.namespace else ""
        return "Did you mean " + " or ".join(f"{prefix}{name}" for name in close) + "? See docs/expressions.md."
    return "See docs/expressions.md for the functions supported on Spark."


def compile_expression(tree: Expr, frame: Frame, ctx: RunContext, directive: Directive | None = None,
                       bindings: dict[str, Value] | None = None) -> Compiled:
    """Compile a tree against the frame's columns; raises ExpressionError for what cannot run here."""
    return ExprCompiler(frame, ctx, directive, bindings).compile_tree(tree)


def output_column(value: Value, ctx: RunContext | None = None) -> Column:
    """The Column to store in a row: a time of day is a Spark TIME when the session enables it, else its text."""
    if value.kind == "null":
        return value.col.cast("string")
    if value.kind == "time":
        return time_column(value.col) if time_type_enabled(ctx) else time_text(value.col)
    return value.col


def output_type(value: Value) -> T.DataType | None:
    """The Spark type of `output_column`'s column when it is known without analysis (`known_type`)."""
    if value.kind == "null":
        return T.StringType()
    return None if value.kind == "time" else known_type(value)


def time_type_enabled(ctx: RunContext | None) -> bool:
    session = getattr(ctx, "spark", None)
    try:
        return str(session.conf.get("spark.sql.timeType.enabled", "false")).lower() == "true"  # type: ignore[union-attr]
    except Exception:  # no session (or a session without that setting)
        return False


def add_failures(step: Step, compiled: Compiled) -> Step:
    """Send the rows on which evaluating the expression failed to the error output, with the reason."""
    return step.fail_first(compiled.failures)
