"""A DataFrame as a recipe sees it: user columns in order, plus hidden bookkeeping.

Wrangler runs each row through every directive and moves a failing row to the error
collector. On Spark we keep every row in one lazy plan and mark it instead:

* ``__wr_row``   — the input row as a struct, so an error record can show the original row;
* ``__wr_error`` — null, or the first failure: directive index, directive text, message;
* ``__wr_drop``  — null, or the index of the directive that filtered the row out.

A reader of line-based files (`files.read_table`) adds ``__wr_input_error``: null, or why a line could not be
made a row (and the line). Such rows start out errored, as if a directive 0 had failed them, so they are
counted as rows in and come out in the error output with the line.

A directive only acts on *active* rows (neither errored nor dropped); at the end the output
is the active rows and the error output is the errored ones, so nothing is silently lost
and the counts reconcile. Each directive compiles to at most one projection (`Step.build`), and directives
that only map columns to none of their own (a pending `Frame`).
"""

from __future__ import annotations

import copy
import functools
import operator
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

from pyspark.errors import AnalysisException
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from directives.spark.internals import column, empty_like, fence
from grammar.errors import ColumnNotFoundError

if TYPE_CHECKING:
    from directives.base import Directive

ROW = "__wr_row"
ERROR = "__wr_error"
DROP = "__wr_drop"
HIDDEN = (ROW, ERROR, DROP)
#: Copy number (0, 1 …) of a row that `Frame.repeat` multiplied; only the next step sees it (`build` drops it).
COPY = "__wr_copy"
#: Prefix of hidden per-row columns that hold transient variables (`set-variable`); every step carries them along.
VARIABLE_PREFIX = "__wr_var_"
#: `input_line` is set only for rows a reader could not parse: the line as read.
ERROR_TYPE = ("struct<directive_index:int,directive:string,line:int,message:string,abort:boolean,"
              "input_line:string>")
#: Hidden column of a built pending frame's first projection: the number (1 …) of the first of its events that holds
#: for the row, null when none does or the row was inactive before them (`Frame._build`).
STATUS = "__wr_status"
#: Hidden column of a DataFrame read from a line-based file: null, or what was wrong with the line.
INPUT_ERROR = "__wr_input_error"
#: `source` says what read the line (format and file), `reason` what is wrong with it, `line` is the line.
INPUT_ERROR_TYPE = "struct<source:string,reason:string,line:string>"


def quote(name: str) -> str:
    """Backtick-quote a column name: Wrangler names may hold '-', ':' or '.' (which Spark reads as a struct path)."""
    return "`" + name.replace("`", "``") + "`"


@dataclass
class RunContext:
    """What a compiler may need beyond the frame: the session, variables, declared output schemas."""

    spark: object
    #: Expressions of transient variables set so far (`set-variable`), by lower-cased name.
    variables: dict[str, Column] = field(default_factory=dict)
    #: Lower-cased names a `set-variable` assigns: Wrangler runs each row through the whole recipe, so the store
    #: is set afresh on every row and a later `increment-variable` adds only that row's own increment.
    set_each_row: set[str] = field(default_factory=set)
    #: Column counts declared by the caller for data-dependent directives, by directive index.
    declared_widths: dict[int, int] = field(default_factory=dict)
    #: Directives that used a Python UDF, for the run report.
    udf_directives: list[str] = field(default_factory=list)
    #: Directives that multiply rows, for the run report.
    multiplying: list[int] = field(default_factory=list)
    #: Directives whose `parse-as-csv … true` took a header line out of the rows (one line each), for the counts.
    header_rows: list[int] = field(default_factory=list)
    #: The user columns after each directive, by directive index: a finished run's lineage names the members of
    #: data-dependent families (`body_<n>`) from them (`directives.parse(observed=…)`).
    columns_after: dict[int, list[str]] = field(default_factory=dict)
    #: The recipe's directives in order, for a compiler that learns in one pass what later directives need.
    recipe: Sequence[Directive] = ()
    #: Shapes a `parse-as-json` learned for later ones of a chain, by directive index: the column name the later
    #: one must find and the shape of its JSON objects (`compile/parsers.py`, `_learn_chain`).
    json_shapes: dict[int, tuple[str, Any]] = field(default_factory=dict)
    #: The widths compiled with while the jobs that learn them run (`runner.run` checks them when the compile is done).
    width_checks: list[WidthCheck] = field(default_factory=list)
    #: Check a guessed width inside the pass that writes the output instead of in a job of its own (`runner.run`'s
    #: ``widths_in_write``): a record wider than the guess stops that pass (`WIDTH_GUESS_FAILED`).
    widths_in_write: bool = False

    def snapshot(self) -> dict[str, Any]:
        """What a compiler may change here, copied, so a compile that is started again (`Rebuild`) starts afresh."""
        return {f.name: copy.copy(getattr(self, f.name)) for f in fields(self) if f.name not in ("spark", "recipe")}

    def restore(self, saved: Mapping[str, Any]) -> None:
        for name, value in saved.items():
            setattr(self, name, copy.copy(value))


#: In the error of a pass stopped by a record wider than the width `parse-as-csv` guessed (`widths_in_write`).
WIDTH_GUESS_FAILED = "WRANGLER_WIDTH_GUESS_FAILED"


@dataclass(frozen=True)
class WidthCheck:
    """A width a directive was compiled with before it was learned from the data, and the job learning it. With
    ``learn``, the pass that writes the output checks the guess against every record (`RunContext.widths_in_write`)
    and the job only against the first ones; ``learn`` learns the width exactly, when that pass found a wider
    record."""

    index: int
    guessed: int
    learned: Future[int]
    learn: Callable[[], int] | None = None


class Rebuild(Exception):
    """A compiler took composed columns (`col` on a pending frame) and then needed the frame built: the runner
    compiles that directive again on the built frame, where nothing is substituted."""


@dataclass
class _Scope:
    """The frame one directive is compiled against, while `compiling_directive` runs its compiler."""

    frame: Frame
    #: The compiler's values may stay pending (its expressions are deterministic and read columns through `col`).
    composable: bool
    #: Composed (substituted) column values `col` handed to the compiler so far.
    handed_out: int = 0
    #: A step was built in this compile: a second one would mix columns of two frames.
    built: bool = False


_local = threading.local()

#: A pending value is built into a projection once its expression's text grows past this many characters (one
#: column substituted into many places would otherwise be computed many times per row).
MAX_PENDING_TEXT = 2000


#: Tests turn this on: each projection a frame makes then checks the types declared on our side for its user columns
#: against Spark's analysis (a wrong declaration would mislead every later directive that reads a type without one).
VERIFY_DECLARED_TYPES = False


def _verified(df: DataFrame, types: Mapping[str, T.DataType]) -> DataFrame:
    """``df``, after checking ``types`` against its schema when `VERIFY_DECLARED_TYPES` is on."""
    if VERIFY_DECLARED_TYPES and types:
        actual = {spark_field.name: spark_field.dataType for spark_field in df.schema.fields}
        wrong = {name: f"declared {declared.simpleString()}, Spark has {actual[name].simpleString()}"
                 for name, declared in types.items()
                 if name in actual and declared.simpleString() != actual[name].simpleString()}
        if wrong:
            raise AssertionError(f"declared column types differ from Spark's: {wrong}")
    return df


def _scope() -> _Scope | None:
    return getattr(_local, "scope", None)


@contextmanager
def compiling_directive(frame: Frame, composable: bool) -> Iterator[_Scope]:
    """Compile one directive against ``frame``: while the body runs, `col` gives a pending frame's composed value of a
    column (an expression over the frame's base) instead of a reference, and steps may stay pending."""
    previous = _scope()
    scope = _local.scope = _Scope(frame, composable)
    try:
        yield scope
    finally:
        _local.scope = previous


def col(name: str) -> Column:
    """A user column of the frame being compiled: its value when the frame is pending (composed), else a reference."""
    scope = _scope()
    if scope is not None and scope.frame._pending:
        value = scope.frame._values.get(name)
        if value is not None:
            scope.handed_out += 1
            return value
    return column(quote(name))


#: How PySpark shows a Column that only names a column (`Column<'name'>`, backquoted when it needs to be).
_REFERENCE = re.compile(r"Column<'(?:[\w.]+|`(?:[^`]|``)+`)'>")


def _ref(name: str) -> Column:
    return column(quote(name))


def compile_on(frame: Frame, compile_one: Callable[[Frame], Frame], ctx: RunContext, composable: bool,
               pending_result: bool = False) -> Frame:
    """Run one directive's compiler. A composable one compiles against the frame as it is (pending frames stay
    pending, its values are composed into them); any other, or a composable one that turns out to need the frame
    built (`Rebuild`), compiles against the built frame, where `col` names plain columns (and its step may stay
    pending when it is composable or ``pending_result``)."""
    if composable and frame._pending:
        saved = ctx.snapshot()
        try:
            with compiling_directive(frame, True):
                return compile_one(frame)
        except Rebuild:
            ctx.restore(saved)
    _ = frame.df  # build it
    with compiling_directive(frame, composable or pending_result):
        return compile_one(frame)


#: One event of a pending frame (`Frame._events`): its condition over the base, and what it does to a row it decides:
#: an error record (`ERROR_TYPE`; SQL text when it is constant, else an expression) or the filtering directive's index.
Event = tuple[Column, "Column | str | None", "int | None"]


@dataclass(eq=False, slots=True)
class _Hidden:
    """A hidden column a pending frame defers (`Frame.with_hidden`), linked to the ones deferred before it.

    Its value reads the base's columns and possibly hidden columns deferred before it: ``layer`` is 0 when it
    reads none of them, else one more than the deepest it reads, and each layer becomes one `select` over the one
    before when the frame's rows are needed (`Frame._hidden_rows`). Frames made from one another over the same base
    share the nodes, so the rows and the stand-in they are probed over (`probe`) are made once."""

    parent: _Hidden | None
    name: str
    value: Column
    layer: int
    #: The value's type when the caller declared it (the value may be null): its stand-in needs no analysis.
    data_type: T.DataType | None = None
    #: The base with every column of the chain, once made (`Frame._hidden_rows`).
    rows: DataFrame | None = None
    _probe: DataFrame | None = None

    def chain(self) -> list[_Hidden]:
        """This node and those before it, oldest first."""
        nodes: list[_Hidden] = []
        node: _Hidden | None = self
        while node is not None:
            nodes.append(node)
            node = node.parent
        return nodes[::-1]

    def probe(self, base: DataFrame) -> DataFrame:
        """The stand-in of the base (`stand_in`) with the chain's columns: where a pending frame's values are typed.
        Each node's is a stand-in of its own: its parent's columns and its value's, typed over its parent's (a
        `select` per node over the one before would make each later probe analyse a deeper plan)."""
        if self._probe is None:
            rows = stand_in(base)
            for node in self.chain():
                if node._probe is None and node.data_type is not None:
                    node._probe = empty_like(rows, fields=[(node.name, node.data_type)])
                elif node._probe is None:
                    node._probe = empty_like(rows, rows.select(node.value.alias(node.name)))
                rows = node._probe
        assert self._probe is not None
        return self._probe


def _signed(number: int, index: int | None) -> int:
    """An event's number in `STATUS`: negative for an event that filters rows (it has the filtering directive's
    index), so the output's filters can tell a filtered row from a failed one by the sign alone (`Frame.output`)."""
    return -number if index is not None else number


class Frame:
    """Immutable view of the recipe's data at one point: a DataFrame and the user column order.

    A frame is *pending* when directives that only map columns (renames, drops, reorders, and the values of
    composable compilers: trims, fills, `set-column` …) have not been given a projection of their own: it keeps
    the DataFrame they started from (its base) and each user column's value as an expression over that base, and
    builds its `select` only when something needs `df`. A run of such directives then costs one analysed
    projection, or none when the output reads them directly (the output's own projection computes them, after
    the rows already errored or filtered are gone). Types of pending values are known on our side (carried through
    renames, declared by the compiler with `Step.set(..., data_type=)`); asking for one that is not builds the
    frame. Spark analyses each `select` when it is made, which costs milliseconds, so fewer of them is most of
    what makes a long recipe build fast.

    Spark's analysis of a `select` grows with the size of its expressions, and a pending frame's events hold
    composed values (a condition over the base can be a kilobyte of text). So a built pending frame decides each
    row once: a first projection over the base numbers the first event that holds (`STATUS`, each condition
    written once), and the projection that computes the values reads the row's error record and filter mark off
    that number (`_build`). Hidden columns a compiler adds to a pending frame (`with_hidden`) are deferred too:
    they stay expressions until the rows are needed, then become one `select` (more only when one reads another).
    """

    def __init__(self, df: DataFrame, columns: Sequence[str], variables: Sequence[str] | None = None) -> None:
        self._df: DataFrame | None = df
        self.columns = list(columns)
        #: For a pending frame: the DataFrame its steps started from, and each computed or renamed user column's value
        #: over it (a user column not in `_values` is the base's column of that name).
        self._base: DataFrame | None = None
        self._values: dict[str, Column] = {}
        #: For a pending frame: the user columns in `_values` that are a base column under another name, and its name.
        self._sources: dict[str, str] = {}
        #: For a pending frame: rows its composed steps sent to errors or filtered, in order, as (condition over the
        #: base, error record or None, filtering directive's index or None); the first that holds decides a row.
        #: A `fail_first` step gives one event per failure (the first that holds picks its message).
        self._events: list[Event] = []
        #: For a pending frame: the hidden columns `with_hidden` deferred (the newest; it links to the others).
        self._hidden: _Hidden | None = None
        #: Known types of user columns (declared, carried, or read once from the built DataFrame's schema).
        self._types: dict[str, T.DataType] = {}
        self._schema_read = False
        #: The hidden variable columns every projection carries (None: read from the DataFrame when needed).
        self._variables: list[str] | None = None if variables is None else list(variables)
        #: The settings a pending frame's projection is analysed under (Spark fixes an expression's ANSI mode when
        #: it is analysed, and a pending frame may be built after the run's compile is over).
        self._analysing: Callable[[], AbstractContextManager[object]] | None = None

    def _derived(self, frame: Frame) -> Frame:
        """``frame``, made from this one, analysed under the same settings."""
        frame._analysing = self._analysing
        return frame

    @classmethod
    def pending(cls, base: DataFrame, columns: Sequence[str], values: Mapping[str, Column],
                types: Mapping[str, T.DataType], variables: Sequence[str] | None,
                sources: Mapping[str, str], events: Sequence[Event] = (), hidden: _Hidden | None = None) -> Frame:
        frame = cls(base, columns, variables)
        frame._events = list(events)
        frame._hidden = hidden
        frame._df, frame._base = None, base
        frame._values = dict(values)
        frame._types = dict(types)
        frame._sources = dict(sources)
        return frame

    @property
    def _pending(self) -> bool:
        """Not built yet: `_base` holds the rows and `_values` each composed user column over it."""
        return self._base is not None and self._df is None

    @property
    def _rows(self) -> DataFrame:
        """The rows with their hidden columns as they are: a pending frame's base (with its deferred hidden columns)
        when none of its steps sent rows to errors or filtered them (its values are then computed where they are
        read), else `df`."""
        if self._pending and not self._events:
            return self._hidden_rows()
        return self.df

    def _hidden_rows(self) -> DataFrame:
        """A pending frame's base with the hidden columns it deferred: one `select` per layer (`_Hidden`), made once
        for every frame that shares them."""
        base = self._base
        assert base is not None
        node = self._hidden
        if node is None:
            return base
        if node.rows is None:
            layers: dict[int, list[Column]] = {}
            for deferred in node.chain():
                layers.setdefault(deferred.layer, []).append(deferred.value.alias(deferred.name))
            rows = base
            for layer in sorted(layers):
                rows = rows.select("*", *layers[layer])
            node.rows = rows
        return node.rows

    def _probe_rows(self) -> DataFrame:
        """What a pending frame's values are analysed over to learn their types: the stand-in of its base (`stand_in`)
        with its deferred hidden columns."""
        assert self._base is not None
        return stand_in(self._base) if self._hidden is None else self._hidden.probe(self._base)

    @property
    def df(self) -> DataFrame:
        if self._df is None:
            assert self._base is not None
            scope = _scope()
            if scope is not None and scope.handed_out:
                raise Rebuild()
            self._build()
        assert self._df is not None
        return self._df

    def _build(self) -> None:
        """Give a pending frame its projection: its values, and its rows' errors and filter marks.

        With events, two projections: the first adds `STATUS`, the number of the first event that holds for an
        active row (each condition appears once, and Spark's analysis grows with the text of what it analyses);
        the second reads the error record and filter mark off it. Rows inactive before the events keep theirs (their
        status is null), and a row an event filtered is not failed by a later one (the first event decides)."""
        assert self._base is not None
        with self._analysing() if self._analysing is not None else nullcontext():
            rows = self._with_status() if self._events else self._hidden_rows()
            error, drop = self._marks() if self._events else (column(ERROR), column(DROP))
            self._df = _verified(rows.select(*self._user_projection(), column(ROW), error.alias(ERROR),
                                             drop.alias(DROP), *(_ref(name) for name in self.variables(self._base))),
                                 self._types)

    def _with_status(self, *extra: Column) -> DataFrame:
        """A pending frame's rows (its deferred hidden columns included) with `STATUS` and ``extra`` columns, in one
        `select`: what its built projection, its output and its output's observed variant all start from."""
        return self._hidden_rows().select("*", self._first_event().alias(STATUS), *extra)

    def _first_event(self) -> Column:
        """`STATUS`: null for a row inactive before the events, else the number of the first event that holds
        (negative when the event filters the row, `_signed`)."""
        status = F.when(column(ERROR).isNotNull() | column(DROP).isNotNull(), F.lit(None).cast("int"))
        for number, (condition, _, index) in enumerate(self._events, 1):
            status = status.when(condition, F.lit(_signed(number, index)))
        return status

    def _marks(self) -> tuple[Column, Column]:
        """The error and filter mark of each row from its `STATUS`: the record or index of the event that decided it,
        else the mark it had. Constant records and the indexes are one SQL `CASE` each (no round trip per event);
        a record with a computed message is a `when` of its own, coalesced with them."""
        status = quote(STATUS)
        constant: list[str] = []
        computed: list[Column] = []
        drops: list[str] = []
        for number, (_, record, index) in enumerate(self._events, 1):
            if index is not None:
                drops.append(f"WHEN {_signed(number, index)} THEN {int(index)}")
            elif isinstance(record, str):
                constant.append(f"WHEN {number} THEN {record}")
            elif record is not None:
                computed.append(F.when(column(STATUS) == number, record))
        error = column(ERROR)
        if computed:
            cases = [F.expr(f"CASE {status} {' '.join(constant)} END")] if constant else []
            error = F.coalesce(*cases, *computed, error)
        elif constant:
            error = F.expr(f"CASE {status} {' '.join(constant)} ELSE {quote(ERROR)} END")
        drop = F.expr(f"CASE {status} {' '.join(drops)} ELSE {quote(DROP)} END") if drops else column(DROP)
        return error, drop

    def _user_projection(self) -> list[Column]:
        if not self._pending:
            return [_ref(c) for c in self.columns]
        return [self._values[c].alias(c) if c in self._values else _ref(c) for c in self.columns]

    def variables(self, df: DataFrame | None = None) -> list[str]:
        """The hidden variable columns of the rows (`VARIABLE_PREFIX`), read once from the schema when not known."""
        if self._variables is None:
            rows = df if df is not None else (self._base if self._pending else self.df)
            self._variables = [name for name in rows.columns if name.startswith(VARIABLE_PREFIX)]
        return self._variables

    @classmethod
    def start(cls, df: DataFrame, analysing: Callable[[], AbstractContextManager[object]] | None = None) -> Frame:
        user = user_column_names(df)
        row = F.struct(*(_ref(c) for c in user)) if user else F.struct(F.lit(None).alias("__empty"))
        carried = [c for c in df.columns if c.startswith(VARIABLE_PREFIX)]  # hidden columns a caller tagged
        marked = df.select(
            *(_ref(c) for c in user),
            row.alias(ROW),
            _input_error(df).alias(ERROR),
            F.lit(None).cast("int").alias(DROP),
            *(_ref(c) for c in carried),
        )
        frame = cls(marked, user, carried)
        frame._analysing = analysing
        return frame

    # -- columns -----------------------------------------------------------------------------------------------------
    def find(self, name: str) -> str | None:
        """The actual name of a column, looked up case-insensitively (first match), as Wrangler does."""
        if name in self.columns:
            return name
        lowered = name.lower()
        for existing in self.columns:
            if existing.lower() == lowered:
                return existing
        return None

    def has(self, name: str) -> bool:
        return self.find(name) is not None

    def composes(self, name: str) -> bool:
        """Whether `col` gives an expression for this user column (exact name) rather than a column of the rows: the
        frame is pending and computed it, and the value is more than a reference to one of its hidden columns."""
        if not self._pending or name not in self._values or name in self._sources:
            return False
        return _REFERENCE.fullmatch(str(self._values[name])) is None

    def col(self, name: str) -> Column:
        actual = self.find(name)
        if actual is None:
            raise ColumnNotFoundError(
                f"Column '{name}' does not exist.", hint=f"Columns at this point: {', '.join(self.columns)}.",
                missing=name,
            )
        return col(actual)

    def col_or_null(self, name: str) -> Column:
        """The column, or a null literal when it is missing (Wrangler reads a missing column as null)."""
        actual = self.find(name)
        return col(actual) if actual is not None else F.lit(None)

    def data_type(self, name: str) -> T.DataType:
        """The Spark type of a user column (exact name), without analysing anything when it is known on our side."""
        known = self._types.get(name)
        if known is not None:
            return known
        if self._pending and (name not in self._values or name in self._sources):
            assert self._base is not None
            found = self._base.schema[self._sources.get(name, name)].dataType  # PySpark keeps the base's schema
            self._types[name] = found
            return found
        if self._pending:
            assert self._base is not None
            with self._analysing() if self._analysing is not None else nullcontext():
                found = self._probe_rows().select(self._values[name].alias("v")).schema.fields[0].dataType
            self._types[name] = found
            return found
        if not self._schema_read:
            for spark_field in self.df.schema.fields:
                if spark_field.name in self.columns:
                    self._types.setdefault(spark_field.name, spark_field.dataType)
            self._schema_read = True
        return self._types[name]

    def type_mismatch(self, columns: Sequence[Column]) -> str | None:
        """Why Spark cannot resolve ``columns`` over this frame because of the types of what they read (the first
        line of its DATATYPE_MISMATCH error), or None. Analysed over the rows the compiler's columns read (a pending
        frame's base, whose composed values are expressions over it, as its stand-in with the hidden columns it
        deferred, `_probe_rows`; else the built DataFrame) under the run's settings: one analysis, nothing computed.
        Other analysis errors are left to the projection that meets them."""
        try:
            with self._analysing() if self._analysing is not None else nullcontext():
                rows = self._probe_rows() if self._pending else self.df
                _ = rows.select(*columns).schema
        except AnalysisException as error:
            condition = getattr(error, "getCondition", error.getErrorClass)() or ""
            if condition.startswith("DATATYPE_MISMATCH"):
                return str(error).splitlines()[0].split(" SQLSTATE")[0]
        return None

    def type_of(self, name: str) -> str:
        actual = self.find(name)
        if actual is None:
            return "null"
        return self.data_type(actual).simpleString()

    @property
    def active(self) -> Column:
        """Rows neither errored nor filtered so far (for a pending frame: nor by its pending steps)."""
        active = column(ERROR).isNull() & column(DROP).isNull()
        if self._pending and self._events:
            fired = functools.reduce(operator.or_, (condition for condition, _, _ in self._events))
            active = active & ~F.coalesce(fired, F.lit(False))
        return active

    def step(self, directive: Directive) -> Step:
        scope = _scope()
        if scope is not None and scope.handed_out and scope.built:
            raise Rebuild()  # a second step of one compile: its columns may name the first step's base
        if self._pending and (scope is None or scope.frame is not self):
            _ = self.df  # only the frame being compiled has its columns composed by `col`
        return Step(self, directive)

    def with_hidden(self, name: str, value: Column, nullable_type: T.DataType | None = None) -> Frame:
        """This frame with one more hidden column ``name`` holding ``value`` (over its columns: composed when it is
        pending), for the next step to read more than once: a value computed once per row where the step reads it
        twice. Its next projection leaves the column out, as any hidden column that is not bookkeeping.

        A pending frame stays pending and its base stays as it is: the column is deferred (`_Hidden`) and added,
        with every other hidden column the frame deferred, by one `select` when its rows are needed. A `select` per
        column over a deep plan would cost an analysis of that plan each, and a new base would need a new stand-in
        for the next type probe. A value that reads a column deferred before it goes one layer (`select`) later,
        as its text shows. ``nullable_type``, when the caller knows it (and the value can be null), is the value's
        Spark type: the stand-in later values are typed over then needs no analysis of this one."""
        if self._pending:
            assert self._base is not None
            layer = 0
            if self._hidden is not None:
                text = str(value)
                for deferred in self._hidden.chain():
                    if deferred.name in text and re.search(rf"(?<!\w){re.escape(deferred.name)}(?!\w)", text):
                        layer = max(layer, deferred.layer + 1)
            hidden = _Hidden(self._hidden, name, value, layer, nullable_type)
            frame = Frame.pending(self._base, self.columns, self._values, self._types, self._variables,
                                  self._sources, self._events, hidden)
        else:
            frame = Frame(self.df.select("*", value.alias(name)), self.columns, self._variables)
            frame._types = dict(self._types)
        frame = self._derived(frame)
        scope = _scope()
        if scope is not None and scope.frame is self:
            scope.frame = frame
        return frame

    @property
    def defers_hidden(self) -> bool:
        """Whether `with_hidden` defers its column (a pending frame): one more hidden column then costs no `select`
        until the rows are needed."""
        return self._pending

    # -- whole-frame changes (for directives that change row counts) ---------------------------------------------------
    def with_df(self, df: DataFrame, columns: Sequence[str] | None = None) -> Frame:
        return self._derived(Frame(df, self.columns if columns is None else columns))

    def repeat(self, count: Column) -> Frame:
        """Turn each active row into ``count`` copies numbered 0… in the hidden column `COPY` (for explode-like
        directives); inactive rows and counts below one stay a single row. Values are then set per copy by one step.
        """
        copies = F.when(self.active, F.greatest(F.coalesce(count, F.lit(1)), F.lit(1))).otherwise(F.lit(1))
        return self._derived(Frame(self.df.select("*", F.explode(F.sequence(F.lit(0), copies - 1)).alias(COPY)),
                                   self.columns))

    @property
    def session(self) -> SparkSession:
        """The frame's Spark session, without building a pending frame (its base has the same)."""
        rows = self._base if self._pending else self._df
        assert rows is not None
        return rows.sparkSession

    @property
    def rows(self) -> DataFrame:
        """Every row with the hidden columns: what both outputs read (cache this to write both in one pass)."""
        return self._rows

    def output(self, fence_name: str, observe: Callable[[DataFrame], DataFrame] | None = None) -> DataFrame:
        """The active rows, through three fenced filters whose row counters give the run's counts
        (`filter_counts`): every row, then rows not dropped, then rows without an error. ``observe`` wraps the
        fenced rows before the filters (Spark Connect counts with an observation there). A pending frame's
        values are computed here, after the filters, so rows that failed or were filtered do not compute them (when
        its steps failed or filtered rows, the filters read the sign of `STATUS`, `_decided_output`; an observation
        counts the marks, so then they get a projection of their own, `_marked`)."""
        if self._pending and self._events and observe is None:
            return self._decided_output(fence_name)
        fenced, holds = fence(self._marked() if self._pending and self._events else self._rows, fence_name)
        if observe is not None:
            fenced = observe(fenced)
        return _verified(fenced.filter(holds)
                         .filter(column(DROP).isNull() & holds)
                         .filter(column(ERROR).isNull() & holds)
                         .select(*self._user_projection()), self._types)

    def _decided_output(self, fence_name: str) -> DataFrame:
        """`output` of a pending frame with events, in the fewest projections: its rows with `STATUS` and the fence
        (one `select`), the three filters reading the sign of `STATUS` beside the marks rows had before, then the
        values. The marks themselves are never made (only the error output needs the records), and each select
        Spark analyses costs milliseconds at every run."""
        with self._analysing() if self._analysing is not None else nullcontext():
            fenced = quote(fence_name)
            rows = self._with_status(F.expr(f"spark_partition_id() AS {fenced}"))
            # SQL texts, one round trip each (as Column operations: five or six), of the same expressions
            holds = f"{fenced} = spark_partition_id()"
            kept = f"{quote(DROP)} IS NULL AND NOT coalesce({quote(STATUS)} < 0, false) AND ({holds})"
            out = f"{quote(ERROR)} IS NULL AND NOT coalesce({quote(STATUS)} > 0, false) AND ({holds})"
            return _verified(rows.filter(F.expr(holds))
                             .filter(F.expr(kept))
                             .filter(F.expr(out))
                             .select(*self._user_projection()), self._types)

    def _marked(self) -> DataFrame:
        """A pending frame's base with each row's marks after its steps, and none of its values computed yet: the
        output's filters come between the two, so a row that failed or was filtered costs only the conditions that
        decided it (in a built frame the projection computes every value of every row, 16 % of them for nothing in
        `bench_run`)."""
        with self._analysing() if self._analysing is not None else nullcontext():
            rows = self._with_status()
            error, drop = self._marks()
            kept = [_ref(name) for name in rows.columns if name not in (ERROR, DROP, STATUS)]
            return rows.select(*kept, error.alias(ERROR), drop.alias(DROP))

    def errors(self, fence_name: str) -> DataFrame:
        """The errored rows; fenced like the output, so Spark does not inline every error expression into the
        filter."""
        fenced, holds = fence(self._rows, fence_name)
        return fenced.filter(column(ERROR).isNotNull() & holds).select(
            column(ROW).alias("row"),
            F.col(f"{ERROR}.directive_index").alias("directive_index"),
            F.col(f"{ERROR}.directive").alias("directive"),
            F.col(f"{ERROR}.line").alias("line"),
            F.col(f"{ERROR}.message").alias("message"),
            F.col(f"{ERROR}.input_line").alias("input_line"),
        )


#: Attribute of a DataFrame holding its stand-in (`stand_in`), once made.
_STAND_IN = "_wr_stand_in"


def stand_in(df: DataFrame) -> DataFrame:
    """An empty DataFrame with ``df``'s schema and no plan under it, made once per DataFrame.

    Spark analyses a `select` by walking the whole plan below it (deduplicating relations, the read checks), so
    asking for an expression's type over a recipe's deep plan costs as much as a projection of it; over the
    stand-in it costs the analysis of one small projection, the same at any depth. Columns are referenced by name,
    so an expression resolves over the stand-in exactly as over ``df``."""
    found = df.__dict__.get(_STAND_IN)
    if found is None:
        found = empty_like(df)
        df.__dict__[_STAND_IN] = found
    return found


def user_column_names(df: DataFrame) -> list[str]:
    """The columns a recipe sees: all but the hidden bookkeeping ones (a reader's `INPUT_ERROR` among them)."""
    return [c for c in df.columns if c not in HIDDEN and c != INPUT_ERROR and not c.startswith(VARIABLE_PREFIX)]


def _input_error(df: DataFrame) -> Column:
    """The starting error of each row: null, or the reader's verdict on its line as directive 0's failure."""
    nothing = F.lit(None).cast(ERROR_TYPE)
    if INPUT_ERROR not in df.columns:
        return nothing
    verdict = column(INPUT_ERROR)
    record = F.struct(
        F.lit(0).alias("directive_index"),
        verdict.getField("source").alias("directive"),
        F.lit(0).alias("line"),
        verdict.getField("reason").alias("message"),
        F.lit(False).alias("abort"),
        verdict.getField("line").alias("input_line"),
    ).cast(ERROR_TYPE)
    return F.when(verdict.isNotNull(), record).otherwise(nothing)


def sql_string(text: str) -> str:
    """A Spark SQL expression for a constant string, whatever the session's string-literal escaping setting is."""
    return f"decode(X'{text.encode('utf-8').hex()}', 'UTF-8')" if text else "''"


class Step:
    """Everything one directive does, gathered so it becomes a single `select` (or a pending frame, see `Frame`).

    Value expressions refer to the columns *before* the directive (one projection); errors and
    filters are recorded only for rows still active.
    """

    def __init__(self, frame: Frame, directive: Directive) -> None:
        self.frame = frame
        self.directive = directive
        self._values: dict[str, Column] = {}
        #: Types the compiler declared for the values it set (`set(..., data_type=)`).
        self._types: dict[str, T.DataType] = {}
        self._order = list(frame.columns)
        #: (condition, message — constant text or an expression — or an expression's failures for `fail_first`,
        #: abort) of each failure, in order.
        self._errors: list[tuple[Column, str | Column | list[tuple[Column, str]], bool]] = []
        self._drops: list[Column] = []
        #: Output columns that are an input column under a new name (a rename), by output name.
        self._renamed: dict[str, str] = {}

    def set(self, name: str, value: Column, data_type: T.DataType | None = None) -> Step:
        """Set a column (replacing it in place when it exists, case-insensitively; appended otherwise).

        Values of inactive rows do not matter (they never reach the output, and an error record
        shows the original row), so no guard is needed and a column may change type freely.
        ``data_type``, when the compiler knows it, is the value's Spark type: a later directive that asks for it
        then does not need the frame built.
        """
        actual = self.frame.find(name) if name not in self._order else name
        if actual is not None and actual in self._order:
            target = actual
        else:
            target = name
            self._order.append(target)
        self._values[target] = value
        self._types.pop(target, None)
        if data_type is not None:
            self._types[target] = data_type
        self._renamed.pop(target, None)
        return self

    def add(self, name: str, value: Column, data_type: T.DataType | None = None) -> Step:
        """Append a column even when one of that name exists (Wrangler's `add`); we replace instead of duplicating."""
        return self.set(name, value, data_type)

    def rename(self, old: str, new: str) -> Step:
        actual = self.frame.find(old)
        if actual is None or actual not in self._order:
            return self
        position = self._order.index(actual)
        self._order[position] = new
        computed = actual in self._values and actual not in self._renamed
        self._values[new] = self._values.pop(actual, None) if computed else _ref(actual)
        declared = self._types.pop(actual, None)
        self._types.pop(new, None)
        if computed and declared is not None:
            self._types[new] = declared
        self._renamed.pop(new, None)
        if not computed:
            self._renamed[new] = self._renamed.pop(actual, actual)
        return self

    def drop(self, name: str) -> Step:
        actual = self.frame.find(name)
        if actual is not None and actual in self._order:
            self._order.remove(actual)
            self._values.pop(actual, None)
            self._types.pop(actual, None)
            self._renamed.pop(actual, None)
        return self

    def reorder(self, names: Iterable[str]) -> Step:
        self._order = list(names)
        return self

    def place(self, values: Mapping[str, Column]) -> Step:
        """Give output columns (already in the order, after `reorder`) these values, read before the directive:
        `swap` and `set-headers` move input columns to other names all at once, which a chain of renames cannot."""
        moved = self._moved_from()
        for name, value in values.items():
            self._values[name] = value
            self._types.pop(name, None)
            self._renamed.pop(name, None)
            source = moved.get(id(value))
            if source is not None:  # an input column under another name: a rename, which keeps the frame pending
                self._renamed[name] = source
        return self

    def _moved_from(self) -> dict[int, str]:
        """The frame's columns by the identity of the Column `col` gives for each (memoized while compiling), so a
        value that is one of them is known to be that column moved."""
        frame = self.frame
        pending = frame._pending
        return {id(frame._values.get(name) if pending and name in frame._values else _ref(name)): name
                for name in frame.columns}

    def fail_when(self, condition: Column, message: Column | str) -> Step:
        """Send active rows where ``condition`` is true to the error output with ``message``."""
        self._errors.append((condition, message, False))
        return self

    def fail_first(self, failures: Sequence[tuple[Column, str]]) -> Step:
        """Send active rows where any of ``failures``' conditions is true to the error output, with the message of
        the first that is (an expression's failures, `Compiled`). Its error record names each condition once."""
        if failures:
            condition = F.coalesce(functools.reduce(operator.or_, (c for c, _ in failures)), F.lit(False))
            self._errors.append((condition, list(failures), False))
        return self

    def abort_when(self, condition: Column, message: Column | str) -> Step:
        """Mark rows where ``condition`` is true as aborting the whole run (the `fail` directive)."""
        self._errors.append((condition, message, True))
        return self

    def filter_when(self, condition: Column) -> Step:
        """Filter out active rows where ``condition`` is true (they are counted, not errors)."""
        self._drops.append(condition)
        return self

    def _is_pure(self) -> bool:
        """Only renames, drops and reorders: no value computed, no row sent to errors or filtered."""
        if self._errors or self._drops:
            return False
        return all(name not in self._values or name in self._renamed for name in self._order)

    def _event_records(self, condition: Column, message: str | Column | list[tuple[Column, str]], abort: bool
                       ) -> list[Event]:
        """A failure as events of a pending frame: one, or for `fail_first` one per failure in order (a row is decided
        by the first that holds, so the first failing one gives the message, and each condition is written once)."""
        if isinstance(message, list):
            return [(failing, self._record_sql(text, abort), None) for failing, text in message]
        if isinstance(message, str):
            return [(condition, self._record_sql(message, abort), None)]
        return [(condition, self._error_record(message, abort), None)]

    def _error_record(self, message: str | Column | list[tuple[Column, str]], abort: bool) -> Column:
        """The error record of a row this step fails: `ERROR_TYPE`, its constant fields parsed from one SQL expression
        (a struct of six literals would be a dozen py4j round trips per error)."""
        if isinstance(message, str):
            return F.expr(self._record_sql(message, abort))
        if isinstance(message, list):  # `fail_first`: each failure's record, message and all, one SQL expression
            (condition, text), *rest = message
            cases = F.when(condition, self._constant_record(text, abort))
            for condition, text in rest:
                cases = cases.when(condition, self._constant_record(text, abort))
            return cases
        return F.expr(self._record_sql(None, abort)).withField("message", message.cast("string"))

    def _constant_record(self, text: str, abort: bool) -> Column:
        return F.expr(self._record_sql(text, abort))

    def _record_sql(self, text: str | None, abort: bool) -> str:
        """The SQL text of this step's error record with the message ``text`` (None: a null message, set later)."""
        call = self.directive.call
        message = "CAST(NULL AS STRING)" if text is None else sql_string(text)
        return (f"named_struct('directive_index', {int(self.directive.index)}, 'directive', {sql_string(call.text)}, "
                f"'line', {int(call.span.line)}, 'message', {message}, 'abort', {str(bool(abort)).lower()}, "
                "'input_line', CAST(NULL AS STRING))")

    def _computed(self, name: str) -> bool:
        return name in self._values and name not in self._renamed

    def _carried(self, name: str) -> tuple[Column | None, T.DataType | None, str | None]:
        """An output column the step did not compute: its value over the frame's rows (None: the rows' column of that
        name), its type when known, and the rows' column it is when it is one (under this or another name)."""
        frame = self.frame
        source = self._renamed.get(name, name)
        if frame._pending and source in frame._values and source not in frame._sources:
            return frame._values[source], frame._types.get(source), None
        original = frame._sources.get(source, source) if frame._pending else source
        return (None if original == name else _ref(original)), frame._types.get(source), original

    def _pending_frame(self, substituted: bool) -> Frame | None:
        """The step as a pending frame over the rows of its input, or None when a value grew too large to compose.
        Its failures and filters become events after the frame's own, so a row failed or filtered earlier is not
        failed or filtered again."""
        frame = self.frame
        events = list(frame._events) if frame._pending else []
        for condition, message, abort in self._errors:
            if substituted and len(str(condition)) > MAX_PENDING_TEXT:
                return None
            events += self._event_records(condition, message, abort)
        if self._drops:
            condition = functools.reduce(operator.or_, self._drops)
            if substituted and len(str(condition)) > MAX_PENDING_TEXT:
                return None
            events.append((condition, None, self.directive.index))
        values: dict[str, Column] = {}
        types: dict[str, T.DataType] = {}
        sources: dict[str, str] = {}
        for name in self._order:
            if self._computed(name):
                value = self._values[name]
                if substituted and len(str(value)) > MAX_PENDING_TEXT:
                    return None
                values[name] = value
                declared = self._types.get(name)
            else:
                carried, declared, original = self._carried(name)
                if carried is not None:
                    values[name] = carried
                if original is not None and original != name:
                    sources[name] = original
            if declared is not None:
                types[name] = declared
        base = frame._base if frame._pending else frame.df
        assert base is not None
        return frame._derived(Frame.pending(base, self._order, values, types, frame._variables, sources, events,
                                            frame._hidden if frame._pending else None))

    def build(self) -> Frame:
        scope = _scope()
        if scope is not None:
            scope.built = True
        if self._is_pure():
            result = self._pending_frame(substituted=False)
        elif scope is not None and scope.composable and not (self._errors and self._drops):
            # (a step that both fails and filters rows marks a row both ways, which one event cannot)
            result = self._pending_frame(substituted=scope.handed_out > 0) or self._built()
        else:
            result = self._built()
        assert result is not None
        if scope is not None and scope.frame is self.frame:
            scope.frame = result
        return result

    def _built(self) -> Frame:
        frame = self.frame
        if frame._pending and frame._events:
            raise Rebuild()  # its rows' marks are not columns yet: compile the directive on the built frame
        error = column(ERROR)
        active = frame.active
        # `when` takes a null condition as false, so a condition needs no `coalesce(…, false)`; the first error of
        # the step that applies wins, as in Wrangler, where the first failure stops the row.
        if self._errors:
            first, *rest = self._errors
            failing = F.when(active & first[0], self._error_record(first[1], first[2]))
            for condition, message, abort in rest:
                failing = failing.when(active & condition, self._error_record(message, abort))
            error = failing.otherwise(error)
        drop = column(DROP)
        if self._drops:
            any_drop = functools.reduce(operator.or_, self._drops)
            drop = F.when(active & any_drop, F.lit(self.directive.index)).otherwise(drop)
        projection = []
        types: dict[str, T.DataType] = {}
        for name in self._order:
            if self._computed(name):
                projection.append(self._values[name].alias(name))
                declared = self._types.get(name)
            else:
                carried, declared, _ = self._carried(name)
                projection.append(_ref(name) if carried is None else carried.alias(name))
            if declared is not None:
                types[name] = declared
        rows = frame._rows
        variables = frame.variables(rows)
        projection += [column(ROW), error.alias(ERROR), drop.alias(DROP), *(_ref(name) for name in variables)]
        result = frame._derived(Frame(_verified(rows.select(*projection), types), self._order, variables))
        result._types = types
        return result


Compiler = Callable[["Directive", Frame, RunContext], Frame]
