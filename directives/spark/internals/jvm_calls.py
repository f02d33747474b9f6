"""Fewer Python→JVM round trips while a recipe compiles.

Compiling a recipe builds thousands of Spark `Column`s, and every round trip through py4j costs
a few hundred microseconds on a small machine, so planning time is mostly round trips. PySpark
looks a function up afresh on every call of `pyspark.sql.functions` (two reflection round trips to
find `org.apache.spark.sql.functions.<name>`, then the call itself). `compiling()` memoizes that
lookup while a recipe compiles, which makes each function call one round trip, and memoizes plain
column references (`col`), which are the same expression wherever they appear.

PySpark also reaches its JVM helpers through the gateway's view on every call (`sc._jvm.PythonUtils.toSeq`
for each list of columns, `sc._jvm.functions.lit` for each literal operand). Each such lookup is two round
trips, and the first of them makes the JVM try the bare name and every wildcard import as a class, scanning
every jar on the class path for each miss: about a sixth of the JVM's time while compiling went there.
`compiling()` swaps in a view that remembers those classes and their static members (`_CachedView`), and
that hands `PythonUtils.toSeq` its lists built with `java.util.List.of` (py4j would add element by element).

Literals repeat too: a long recipe's compilers ask for `lit(False)`, `lit('')` or `lit(1)` hundreds of times, about
four in five of its `lit` calls, and each is a round trip to make the JVM column and one more when Python lets go
of it. While compiling, `lit` of a plain constant (None, bool, int, str, float) gives the JVM column made for the
first call with that constant (`_literal`).

The memos only hold py4j handles to classes and static methods of one gateway, so results are identical;
they are installed for the duration of `compiling()` (re-entrant) and removed afterwards, leaving PySpark as
it was. If PySpark's internals ever change shape, `compiling()` does nothing. What they remember is kept from one
`compiling()` block to the next (for the same gateway; `_MAX_KEPT` entries at most): looking the functions, classes
and literals up again cost every run, however short, ~60 round trips before its first directive's own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

from py4j.java_gateway import JavaClass
from pyspark import SparkContext
from pyspark.sql import Column
from pyspark.sql import functions as F

try:
    from pyspark.sql.functions import builtin as _builtin
except ImportError:  # an older PySpark layout: no memo, same results
    _builtin = None  # type: ignore[assignment]

_lock = threading.Lock()
_depth = 0
_original: Callable[..., Any] | None = None
_members: dict[str, Any] = {}
_members_jvm: Any = None
_columns: dict[str, Column] = {}
#: The quoted name of each column `column()` made, by the Column's identity (`reference_text`).
_names: dict[int, str] = {}
#: JVM literal columns made while compiling, by (type, constant): a `Column` is immutable, so they are shared.
_literals: dict[tuple[type, object], Any] = {}
#: Constants whose literal column depends on nothing but their type and value.
_PLAIN_CONSTANTS = (type(None), bool, int, str, float)
_original_view: Any = None
#: The gateway view `compiling()` swaps in, kept for the next block while the gateway's view is the same.
_kept_view: Any = None
#: Column references and literals kept between blocks at most (a long-lived process compiles many recipes).
_MAX_KEPT = 4096


#: `java.util.List.of` has overloads of fixed arity up to this many elements (one round trip each).
_LIST_OF_ARITY = 10
_PYTHON_UTILS = "org.apache.spark.api.python.PythonUtils"


class _CachedClass:
    """A py4j `JavaClass` whose static members are looked up once (a member handle is reusable)."""

    def __init__(self, java_class: Any, view: _CachedView) -> None:
        self._class = java_class
        self._view = view
        self._members: dict[str, Any] = {}

    def __getattr__(self, name: str) -> Any:
        member = self._members.get(name)
        if member is None:
            member = getattr(self._class, name)
            if name in ("toSeq", "toList") and getattr(self._class, "_fqn", None) == _PYTHON_UTILS:
                member = _taking_java_lists(member, self._view)
            self._members[name] = member
        return member

    def __call__(self, *args: Any) -> Any:
        return self._class(*args)


def _taking_java_lists(member: Any, view: _CachedView) -> Callable[..., Any]:
    """``PythonUtils.toSeq``/``toList`` given a Python list built on the JVM side by `_CachedView.java_list`.

    py4j converts a Python list argument with one round trip per element (`ArrayList.add`), and every
    `select`, `struct`, `concat` or `coalesce` passes one: a third of a recipe's round trips went there.
    """

    def call(items: Any) -> Any:
        if isinstance(items, list) and not any(item is None for item in items):
            return member(view.java_list(items))
        return member(items)

    return call


class _CachedView:
    """The gateway's `JVMView` with the classes it resolves remembered (packages are passed through as they are)."""

    def __init__(self, view: Any) -> None:
        self._view = view
        self._names: dict[str, Any] = {}
        self._list_of: Any = None
        self._array_list: Any = None

    def __getattr__(self, name: str) -> Any:
        found = self._names.get(name)
        if found is None:
            found = getattr(self._view, name)
            if isinstance(found, JavaClass):
                found = self._names[name] = _CachedClass(found, self)
        return found

    def java_list(self, items: list[Any]) -> Any:
        """A `java.util.List` of non-null ``items``: one round trip per ten elements, not one per element."""
        if self._list_of is None:
            self._list_of = self._view.java.util.List.of
            self._array_list = self._view.java.util.ArrayList
        if len(items) <= _LIST_OF_ARITY:
            return self._list_of(*items)
        whole = self._array_list(self._list_of(*items[:_LIST_OF_ARITY]))
        for start in range(_LIST_OF_ARITY, len(items), _LIST_OF_ARITY):
            whole.addAll(self._list_of(*items[start:start + _LIST_OF_ARITY]))
        return whole


def _memoized_function(name: str, sc: Any) -> Any:
    """`_get_jvm_function` with the JVM method handle kept per name (for the current gateway)."""
    global _members_jvm
    jvm = sc._jvm
    if jvm is not _members_jvm:
        _forget()
        _members_jvm = jvm
    member = _members.get(name)
    if member is None:
        assert _original is not None
        member = _original(name, sc)
        if name == "lit":
            member = partial(_literal, member)
        _members[name] = member
    return member


def _literal(make: Callable[..., Any], *args: Any) -> Any:
    """The JVM `lit` column of a plain constant, made once while compiling (others are made each time)."""
    if len(args) != 1 or type(args[0]) not in _PLAIN_CONSTANTS:
        return make(*args)
    value = args[0]
    key = (type(value), repr(value) if isinstance(value, float) else value)  # repr: -0.0 is not 0.0, nan is nan
    found = _literals.get(key)
    if found is None:
        found = _literals[key] = make(value)
    return found


@contextmanager
def compiling() -> Iterator[None]:
    """Memoize PySpark's function lookups and column references while the body runs."""
    global _depth, _original
    patchable = _builtin is not None and callable(getattr(_builtin, "_get_jvm_function", None))
    if not patchable:
        yield
        return
    with _lock:
        if _depth == 0:
            _original = _builtin._get_jvm_function
            _builtin._get_jvm_function = _memoized_function
            _swap_view()
            if len(_columns) > _MAX_KEPT or len(_literals) > _MAX_KEPT:
                _columns.clear()
                _names.clear()
                _literals.clear()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                _builtin._get_jvm_function = _original
                _original = None
                _restore_view()


def _forget() -> None:
    """Drop what the memos remember (another gateway's handles are of no use)."""
    _members.clear()
    _columns.clear()
    _names.clear()
    _literals.clear()


def _swap_view() -> None:
    global _original_view, _kept_view
    view = SparkContext._jvm
    if view is not None and not isinstance(view, _CachedView):
        _original_view = view
        if _kept_view is None or _kept_view._view is not view:
            _forget()  # another gateway: nothing remembered is of use
            _kept_view = _CachedView(view)
        SparkContext._jvm = _kept_view  # type: ignore[assignment]


def _restore_view() -> None:
    global _original_view
    if _original_view is not None and isinstance(SparkContext._jvm, _CachedView):
        SparkContext._jvm = _original_view
    _original_view = None


def column(quoted_name: str) -> Column:
    """`F.col` of an already quoted name, shared while compiling (a Column is immutable)."""
    if _depth == 0:
        return F.col(quoted_name)
    found = _columns.get(quoted_name)
    if found is None:
        found = _columns[quoted_name] = F.col(quoted_name)
        _names[id(found)] = quoted_name
    return found


def reference_text(value: Column) -> str | None:
    """The SQL text of ``value`` when it is a column reference `column()` made while compiling (its quoted
    name), else None: a compiler may then write an expression over it as one SQL text, one round trip where building
    it with Column operations takes one per operation. Known without asking the JVM (by the Column's identity)."""
    if _depth == 0:
        return None
    quoted = _names.get(id(value))
    return quoted if quoted is not None and _columns.get(quoted) is value else None
