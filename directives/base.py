"""What a directive declaration is: name, usage, typed arguments, labels, docs.

One class per directive; defining the class registers it (`REGISTRY`). The argument
signature is data (Wrangler's UsageDefinition), so one generic binder checks arity and
types for all of them and no directive parses its own arguments.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar

from directives.column_state import ColumnState
from directives.labels import ColumnLabel, EdgeKind
from grammar.errors import DirectiveArgumentError
from grammar.migrate import v1_forms_of
from grammar.nodes import DirectiveCall, Expression, Token, TokenKind

if TYPE_CHECKING:
    from directives.sample import SampleValues
    from grammar.expression import Expr

ArgKind = TokenKind

REGISTRY: dict[str, type[Directive]] = {}


def whole_number(value: float) -> int | None:
    """``value`` as Java's ``intValue()`` would start from, or None for a number no int holds: a literal of more than
    4,300 digits reads as infinity, and a float cannot hold an int of more than ~308 digits (``math.isfinite``
    of such an int raises), so both are checked without converting."""
    if isinstance(value, int):
        return value
    return int(value) if math.isfinite(value) else None


class RowEffect(StrEnum):
    """How a directive changes the number of rows, for run accounting and INDIRECT lineage."""

    NONE = "none"
    FILTER = "filter"  # drops rows by a condition on some columns
    ERROR = "error"  # sends rows to the error output
    MULTIPLY = "multiply"  # one input row may give several output rows
    ABORT = "abort"  # stops the whole run


_KIND_USAGE = {
    ArgKind.COLUMN: ":{}",
    ArgKind.COLUMN_LIST: ":{0} [,:{0}  ]*",
    ArgKind.BOOL: "{} (true/false)",
    ArgKind.TEXT: "'{}'",
    ArgKind.IDENTIFIER: "{}",
    ArgKind.NUMBER: "{}",
    ArgKind.TEXT_LIST: "{0}[,{0} ...]*",
    ArgKind.NUMBER_LIST: "{0}[,{0} ...]*",
    ArgKind.BOOL_LIST: "{0}[,{0} ...]*",
    ArgKind.EXPRESSION: "exp:{{<{}>}}",
    ArgKind.PROPERTIES: "prop:{{key:value,[key:value]*",
    ArgKind.RANGES: "start:end=[bool|text|numeric][,start:end=[bool|text|numeric]*",
}

_LIST_OF = {
    ArgKind.COLUMN_LIST: ArgKind.COLUMN,
    ArgKind.NUMBER_LIST: ArgKind.NUMBER,
    ArgKind.BOOL_LIST: ArgKind.BOOL,
    ArgKind.TEXT_LIST: ArgKind.TEXT,
}
_LIST_KINDS = frozenset({*_LIST_OF, ArgKind.RANGES})


@dataclass(frozen=True)
class Arg:
    """One declared argument: name, token kind, optional or not, and Wrangler's usage label.

    A bound directive has each argument as an attribute (`attribute`: the name with `_` for `-`): its value,
    or ``default`` when an optional argument is absent (an empty tuple for list kinds when no default is given).
    """

    name: str
    kind: ArgKind
    optional: bool = False
    label: str | None = None
    default: object = None

    @property
    def attribute(self) -> str:
        return self.name.replace("-", "_")

    @property
    def empty(self) -> object:
        """The attribute's value when the argument is absent."""
        return () if self.default is None and self.kind in _LIST_KINDS else self.default

    def usage(self) -> str:
        return self.label if self.label is not None else _KIND_USAGE[self.kind].format(self.name)

    def accepts(self, token_kind: ArgKind) -> bool:
        """Exact kind, or a scalar where a list is required (Wrangler coerces those, not for optionals)."""
        if token_kind is self.kind:
            return True
        return not self.optional and _LIST_OF.get(self.kind) is token_kind


class _Bound:
    """An argument as an attribute of a bound directive: its value, or its declared default when absent.

    Installed on the declaration class for each argument of its signature (see `Directive.__init_subclass__`);
    the class body declares the attribute's type (`source: str`) for readers and type checkers.
    """

    __slots__ = ("empty", "key")

    def __init__(self, key: str, empty: object) -> None:
        self.key = key
        self.empty = empty

    def __get__(self, instance: Directive | None, owner: type[Directive]) -> Any:
        if instance is None:
            return self
        return instance._values.get(self.key, self.empty)


class _V1Forms:
    """A directive's v1 forms, looked up by its name in the rewrite table when asked (a class attribute)."""

    def __get__(self, instance: object, owner: type[Directive]) -> tuple[str, ...]:
        return v1_forms_of(owner.name)


class Directive:
    """Base of every directive declaration.

    Subclasses declare ``name``, ``signature``, ``categories`` and a docstring whose first line is
    the description, and implement `labels`; their ``v1_forms`` come from the v1 rewrite's table.
    Instances are bound directives: one use in one recipe, with typed argument values.
    """

    name: ClassVar[str]
    signature: ClassVar[tuple[Arg, ...]] = ()
    categories: ClassVar[tuple[str, ...]] = ("default",)
    #: The v1 forms Wrangler's rewrite turns into this directive, read from the rewrite's own table
    #: (`grammar.migrate`), their one source: `rename <old> <new>`, `set column <column-name> <jexl-expression>` …
    v1_forms: ClassVar[tuple[str, ...]] = _V1Forms()  # type: ignore[assignment]
    deprecated: ClassVar[bool] = False
    row_effect: ClassVar[RowEffect] = RowEffect.NONE
    #: Whether the columns the directive names must exist (`wrangler check` with a schema flags them).
    needs_existing_columns: ClassVar[bool] = True
    #: Whether it names the columns it renames or drops (seed 001's stricter rule).
    names_its_columns: ClassVar[bool] = True
    #: Whether Wrangler's lineage API covers it at all (spec §3.3, "no Lineage").
    wrangler_lineage: ClassVar[bool] = True
    #: How a transient variable this directive sets derives from what it read (`increment-variable`
    #: accumulates over rows: AGGREGATION); see `variables_set` and `directives.transient_names`.
    variable_kind: ClassVar[EdgeKind] = EdgeKind.TRANSFORMATION
    #: Warnings about this use's argument values (see `warn`); a class-level empty default, so that the
    #: directives without any cost nothing.
    warnings: tuple[DirectiveArgumentError, ...] = ()
    #: Why this use cannot run although Wrangler accepts it (see `warn`), or None.
    unrunnable: DirectiveArgumentError | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "signature" in cls.__dict__:
            cls._bind_attributes()
        name = cls.__dict__.get("name")
        if name is None:
            return
        if name in REGISTRY and REGISTRY[name] is not cls:
            raise TypeError(
                f"directive {name!r} is declared twice: {REGISTRY[name].__qualname__} and {cls.__qualname__}"
            )
        REGISTRY[name] = cls

    def __init__(self, call: DirectiveCall, values: dict[str, Any], index: int, positions: Mapping[str, int]) -> None:
        """``values``: argument name → bound value; ``positions``: argument name → its token in ``call.args``.

        The binder builds ``values`` for this call only; ``positions`` is shared by every call whose
        tokens have the same kinds, so a bound directive holds no per-argument objects of its own.
        """
        self.call = call
        self.index = index
        self._values = values
        self._positions = positions
        self.validate()

    @classmethod
    def _bind_attributes(cls) -> None:
        """One attribute per argument of the signature. A property of the same name (a declaration that normalises
        the raw value, e.g. `method` lower-cased) stands instead; anything else of that name is a declaration error
        (user-defined declarations, named by their authors, simply keep such arguments out of attributes)."""
        reserved = set(Directive.__annotations__) | set(vars(Directive))
        for arg in cls.signature:
            attribute = arg.attribute
            existing = next((k.__dict__[attribute] for k in cls.__mro__ if attribute in k.__dict__), None)
            if attribute not in reserved and (existing is None or isinstance(existing, _Bound)):
                setattr(cls, attribute, _Bound(arg.name, arg.empty))
            elif not isinstance(existing, property) and cls.__module__.startswith("directives.catalog"):
                raise TypeError(f"{cls.__qualname__}: argument {arg.name!r} would hide {attribute!r}")

    # -- declaration -------------------------------------------------------------------------------------------------
    @classmethod
    def usage(cls) -> str:
        """Wrangler's usage string, to the character (double spaces before optionals included)."""
        parts = [cls.name + " "]
        for position, arg in enumerate(cls.signature):
            if arg.optional:
                parts.append(" [")
            parts.append(arg.usage())
            if arg.optional:
                parts.append("]")
            elif position < len(cls.signature) - 1:
                parts.append(" ")
        return "".join(parts)

    @classmethod
    def description(cls) -> str:
        doc = (cls.__doc__ or "").strip()
        return doc.splitlines()[0] if doc else ""

    # -- bound arguments: each is an attribute (see `Arg`); these are for code that names one at run time -----------
    def has(self, name: str) -> bool:
        """Whether the argument called ``name`` was given."""
        return name in self._values

    def bound(self, name: str, default: Any = None) -> Any:
        """The raw value of the argument called ``name`` (as written in the signature), or ``default``."""
        return self._values.get(name, default)

    def token(self, name: str) -> Token | None:
        position = self._positions.get(name)
        return None if position is None else self.call.args[position]

    def variables_set(self) -> tuple[str, ...]:
        """The transient variables this directive sets, which later expressions read before any column
        of that name (Wrangler's expression context puts the transient store over the row's values)."""
        return ()

    def args_json(self) -> dict[str, object]:
        args = self.call.args
        return {name: args[self._positions[name]].to_json() if value is None else _json_value(value)
                for name, value in self._values.items()}

    def fail(self, arg_name: str, message: str, hint: str | None = None) -> DirectiveArgumentError:
        """An argument error pointing at that argument's token."""
        token = self.token(arg_name)
        span = token.span if token is not None else self.call.span
        return DirectiveArgumentError(message, line=span.line, column=span.column, hint=hint, directive=self.name)

    def warn(self, arg_name: str, message: str, hint: str | None = None, *, runnable: bool = True) -> None:
        """Record a warning about an argument value that Wrangler accepts when it compiles the recipe.

        For values Wrangler does not check until it runs (or never): the recipe stays valid, as it is in
        Wrangler, and the message says what Wrangler makes of the value. ``runnable=False`` for a value no
        run can give a result for: `wrangler run` then refuses the recipe with this message as an error.
        """
        warning = self.fail(arg_name, message, hint)
        warning.severity = "warning"
        warning.args = (warning._render(),)
        self.warnings = (*self.warnings, warning)
        if not runnable:
            self.unrunnable = self.fail(arg_name, message, hint)

    # -- behaviour ---------------------------------------------------------------------------------------------------
    def validate(self) -> None:
        """Argument checks beyond kinds (allowed values, non-empty text …); raise `self.fail(...)`."""

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        """Every column this directive touches, labelled, given the columns at this point."""
        raise NotImplementedError(f"{type(self).__name__} declares no labels")

    def sample_labels(
        self, columns: ColumnState, sample: SampleValues
    ) -> tuple[Sequence[ColumnLabel], Mapping[str, list[object]]] | None:
        """Labels by name where the first input rows fix what the recipe alone cannot (a CSV header, JSON keys),
        with the values of the columns made; None when the usual `labels` stand (`wrangler check --sample`)."""
        return None

    def update_columns(self, columns: ColumnState, labels: Sequence[ColumnLabel]) -> None:
        """Move the column list past this directive (in place); by default derived from its labels."""
        columns.apply(labels, self.index)

    def describe(self) -> str:
        """Human-readable account of what this use of the directive does (Wrangler's `readable`)."""
        return self.call.text

    def __repr__(self) -> str:
        return f"<{type(self).__name__} #{self.index} {self.call.text!r}>"


class OneColumn(Directive):
    """Base of the declarations whose one argument is the column they work on (`trim :name`, `split-url :url`)."""

    signature = (Arg("column", ArgKind.COLUMN),)
    column: str


def _json_value(value: object) -> object:
    if isinstance(value, Expression):
        return value.text.strip()
    if isinstance(value, tuple):
        return [_json_value(item) for item in value]
    if hasattr(value, "value") and hasattr(value, "text"):
        return value.value  # grammar Number
    if hasattr(value, "low") and hasattr(value, "high"):
        return {"low": value.low, "high": value.high, "value": value.value}  # type: ignore[attr-defined]
    return value


def expression_tree(value: Expression) -> Expr:
    """The parsed tree of an `exp:{…}` argument (for the Spark compiler), errors pointing into the recipe."""
    from grammar.expression import parse_expression

    return parse_expression(value.text, line=value.line, column=value.column)


def expression_text(value: Expression | None) -> str:
    return value.text.strip() if isinstance(value, Expression) else ""


def expression_columns(value: Expression) -> tuple[str, ...]:
    """Columns an expression reads (JEXL's free variables, function namespaces excluded)."""
    from grammar.expression import expression_names

    return expression_names(value.text, line=value.line, column=value.column)
