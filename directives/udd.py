"""User-defined directives (UDDs): directives a Wrangler plugin jar adds, declared in a small file.

Wrangler runs a UDD only when its jar is deployed and the pipeline loads it (`#pragma load-directives`,
the plugin's `udd` property); without it the name is not found. Here a team declares its UDDs in a
TOML or JSON file (`wrangler check|parse|lineage --udd FILE`, format in docs/udd.md): the name, the
arguments as Wrangler's `define()` gives them, and what the directive does to columns. Declared UDDs
parse and bind like built-ins, `check` checks them, and lineage follows them exactly where the
declaration names the columns, or over-approximates (the directive may read and change any column)
where it does not. They never run here: their code is Java in the jar.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar

from directives.base import REGISTRY, Arg, ArgKind, Directive, RowEffect
from directives.column_state import ColumnState
from directives.labels import ColumnLabel, EdgeKind, Label, add, drop, modify, read, rename

#: The UDDs declared for the recipe being parsed (name → declaration); the binder looks here on a miss.
ACTIVE: ContextVar[Mapping[str, type[Directive]]] = ContextVar("active_udds", default=MappingProxyType({}))

_KINDS = {
    "column": ArgKind.COLUMN, "column_name": ArgKind.COLUMN,
    "column-list": ArgKind.COLUMN_LIST, "column_name_list": ArgKind.COLUMN_LIST,
    "text": ArgKind.TEXT, "text-list": ArgKind.TEXT_LIST, "text_list": ArgKind.TEXT_LIST,
    "number": ArgKind.NUMBER, "numeric": ArgKind.NUMBER,
    "number-list": ArgKind.NUMBER_LIST, "numeric_list": ArgKind.NUMBER_LIST,
    "bool": ArgKind.BOOL, "boolean": ArgKind.BOOL, "bool-list": ArgKind.BOOL_LIST, "boolean_list": ArgKind.BOOL_LIST,
    "identifier": ArgKind.IDENTIFIER, "expression": ArgKind.EXPRESSION, "properties": ArgKind.PROPERTIES,
    "ranges": ArgKind.RANGES,
}
_ROWS = {"none": RowEffect.NONE, "filter": RowEffect.FILTER, "multiply": RowEffect.MULTIPLY,
         "error": RowEffect.ERROR}
_EFFECTS = ("reads", "modifies", "adds", "drops", "renames")
_FIELDS = {"name", "description", "arguments", "rows", *_EFFECTS}
ALL = "*"


class UddFileError(ValueError):
    """A declaration file that cannot be read or says something impossible; the message names where."""


class UserDefinedDirective(Directive):
    """Base of every declared UDD: labels from the declaration's column effects."""

    user_defined: ClassVar[bool] = True
    declared_in: ClassVar[str] = ""
    #: argument names (or ALL) per effect; a literal column is ("=", name)
    effects: ClassVar[Mapping[str, tuple[object, ...]]] = {}
    #: whether the declaration says what the directive does to columns (else lineage over-approximates)
    exact_effects: ClassVar[bool] = False

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        if not self.exact_effects:
            return [_any_read(EdgeKind.TRANSFORMATION), _any_modified()]
        reads = self._names("reads", columns)
        kind = EdgeKind.FILTER if self.row_effect is RowEffect.FILTER else EdgeKind.TRANSFORMATION
        labels: list[ColumnLabel] = [read(name, kind=kind) for name in reads if name != ALL]
        everything = ALL in reads
        if everything:
            labels.append(_any_read(kind))
        sources = tuple(name for name in reads if name != ALL)
        for name in self._names("modifies", columns):
            labels.append(modify(name, (*sources, name) if name not in sources else sources))
        for name in self._names("adds", columns):
            labels.append(add(name, sources, exact=not everything))
        for old, new in self._pairs():
            labels.append(rename(old, new))
        labels += [drop(name) for name in self._names("drops", columns)]
        return labels

    def update_columns(self, columns: ColumnState, labels: Sequence[ColumnLabel]) -> None:
        if not self.exact_effects:
            columns.known = False  # it may have added or dropped anything
            return
        columns.apply([label for label in labels if not label.pattern], self.index)

    def _names(self, effect: str, columns: ColumnState) -> list[str]:
        names: list[str] = []
        for ref in self.effects.get(effect, ()):
            if ref == ALL:
                names.append(ALL)
            elif isinstance(ref, tuple):
                names.append(str(ref[1]))
            elif self.has(str(ref)):
                value = self.bound(str(ref))
                names.extend(str(item) for item in value) if isinstance(value, tuple) else names.append(str(value))
        return names

    def _pairs(self) -> list[tuple[str, str]]:
        pairs: list[tuple[str, str]] = []
        for ref in self.effects.get("renames", ()):
            old, new = ref  # type: ignore[misc]
            if self.has(str(old)) and self.has(str(new)):
                pairs.append((str(self.bound(str(old))), str(self.bound(str(new)))))
        return pairs

    def describe(self) -> str:
        return f"User-defined directive '{self.name}' ({self.call.text})"


def _any_read(kind: EdgeKind) -> ColumnLabel:
    return ColumnLabel(ALL, Label.READ, pattern=True, exact=False, kind=kind)


def _any_modified() -> ColumnLabel:
    """Any column may have been changed, each from its own earlier value (the over-approximation)."""
    return ColumnLabel(ALL, Label.MODIFY, sources=(ALL,), pattern=True, exact=False)


def load_udds(paths: Sequence[str | Path]) -> dict[str, type[Directive]]:
    """The declarations of every file, by name; raises `UddFileError` naming the file and the problem."""
    declared: dict[str, type[Directive]] = {}
    for path in paths:
        for entry in _entries(Path(path)):
            cls = declaration(entry, str(path))
            if cls.name in declared:
                raise UddFileError(f"{path}: directive '{cls.name}' is declared twice")
            declared[cls.name] = cls
    return declared


def _entries(path: Path) -> list[dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise UddFileError(f"cannot read UDD declarations {path}: {error.strerror or error}") from None
    try:
        data: Any = json.loads(text) if path.suffix.lower() == ".json" else tomllib.loads(text)
    except (ValueError, tomllib.TOMLDecodeError) as error:
        raise UddFileError(f"{path} is not valid {'JSON' if path.suffix.lower() == '.json' else 'TOML'}: "
                           f"{error}") from None
    entries = data.get("directive") if isinstance(data, dict) else data
    if not isinstance(entries, list) or not all(isinstance(entry, dict) for entry in entries):
        raise UddFileError(f"{path}: expected a list of directives ([[directive]] tables in TOML, "
                           "or a JSON list or {\"directive\": [...]})")
    return entries


def declaration(entry: Mapping[str, Any], source: str = "<declaration>") -> type[Directive]:
    """One declared UDD as a directive class (not in the built-in registry)."""
    name = entry.get("name")
    where = f"{source}: directive '{name}'" if name else source
    if not isinstance(name, str) or not name or not all(c.isalnum() or c in "_-" for c in name):
        raise UddFileError(f"{where}: a directive needs a name made of letters, digits, '-' and '_'")
    if name in REGISTRY:
        raise UddFileError(f"{where}: '{name}' is a built-in directive of Wrangler; a UDD cannot replace it")
    unknown = set(entry) - _FIELDS
    if unknown:
        raise UddFileError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}; known: "
                           f"{', '.join(sorted(_FIELDS))}")
    signature = tuple(_argument(item, where) for item in entry.get("arguments", []))
    names = {arg.name for arg in signature}
    effects: dict[str, tuple[object, ...]] = {}
    for effect in _EFFECTS:
        refs = entry.get(effect)
        if refs is None:
            continue
        if not isinstance(refs, list):
            raise UddFileError(f"{where}: '{effect}' must be a list")
        effects[effect] = tuple(_reference(ref, effect, names, where) for ref in refs)
    rows = str(entry.get("rows", "none")).lower()
    if rows not in _ROWS:
        raise UddFileError(f"{where}: rows must be one of {', '.join(_ROWS)}, not '{rows}'")
    description = str(entry.get("description") or f"User-defined directive declared in {source}.")
    cls = type(f"UDD_{name.replace('-', '_')}", (UserDefinedDirective,), {
        "__doc__": description, "signature": signature, "categories": ("user-defined",),
        "row_effect": _ROWS[rows], "declared_in": source, "effects": effects, "exact_effects": bool(effects),
        "wrangler_lineage": False, "names_its_columns": bool(effects) and ALL not in effects.get("drops", ()),
        "needs_existing_columns": True,
    })
    cls.name = name  # after the class exists, so that it does not enter the built-in registry
    return cls


def _argument(item: object, where: str) -> Arg:
    if not isinstance(item, dict) or not isinstance(item.get("name"), str):
        raise UddFileError(f"{where}: each argument is a table with a name and a type")
    kind = _KINDS.get(str(item.get("type", "")).lower())
    if kind is None:
        raise UddFileError(f"{where}: argument '{item['name']}' has type '{item.get('type')}'; use one of "
                           f"{', '.join(sorted(k for k in _KINDS if '_' not in k))}")
    return Arg(item["name"], kind, optional=bool(item.get("optional", False)))


def _reference(ref: object, effect: str, names: set[str], where: str) -> object:
    if effect == "renames":
        if not (isinstance(ref, list) and len(ref) == 2 and all(r in names for r in ref)):
            raise UddFileError(f"{where}: each of 'renames' is [old-argument, new-argument]")
        return tuple(ref)
    if ref == ALL:
        if effect != "reads":
            raise UddFileError(f"{where}: \"*\" (every column) is for 'reads' only; leave out every effect for a "
                               "directive that may change any column")
        return ALL
    if isinstance(ref, dict) and isinstance(ref.get("column"), str):
        return ("=", ref["column"])
    if isinstance(ref, str) and ref in names:
        return ref
    raise UddFileError(f"{where}: '{effect}' names '{ref}', which is not an argument; give an argument name, "
                       "\"*\" for every column, or {column = \"name\"} for a fixed one")


@contextmanager
def declared(udds: Mapping[str, type[Directive]] | None) -> Iterator[None]:
    """Make ``udds`` known to the binder while a recipe is parsed."""
    if not udds:
        yield
        return
    token = ACTIVE.set(udds)
    try:
        yield
    finally:
        ACTIVE.reset(token)
