"""The column list as it evolves through a recipe, known exactly, partly, or not at all.

Labels are computed against this state so that whole-schema directives (`set-headers`,
`keep`, `change-column-case` …) label exact columns when the input schema is given, and
data-dependent outputs (`parse-as-csv` → `body_1…n`) stay as patterns until a later
directive names one of their members. Lookups are case-insensitive, as Wrangler's are.
Every operation is O(1) (a name index beside an ordered slot list), because recipes of
thousands of directives over hundreds of columns are labelled on every `wrangler check`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from directives.labels import ColumnLabel, Label

_ADD, _MODIFY, _DROP, _RENAME, _SWAP = Label.ADD, Label.MODIFY, Label.DROP, Label.RENAME, Label.SWAP


@dataclass(eq=False, slots=True)
class Slot:
    """One column, or one data-dependent family of columns (``pattern`` is then a regex)."""

    name: str
    pattern: re.Pattern[str] | None = None
    created_by: int | None = None
    alive: bool = True

    def matches(self, name: str) -> bool:
        if self.pattern is not None:
            return self.pattern.fullmatch(name) is not None
        return self.name.lower() == name.lower()


@functools.lru_cache(maxsize=4096)
def pattern_regex(pattern: str) -> re.Pattern[str]:
    """`body_<n>` / `body_<key>` → a regex; `<n>` matches digits, any other `<…>` matches a name part."""
    parts = re.split(r"(<[^<>]+>)", pattern)
    regex = "".join(
        (r"\d+" if part == "<n>" else r"\S+") if part.startswith("<") and part.endswith(">") else re.escape(part)
        for part in parts
    )
    return re.compile(regex, re.IGNORECASE)


@dataclass
class ColumnState:
    """Ordered columns at one point of the recipe.

    ``known`` says whether the list is complete (input schema given, or fixed by a directive
    such as `keep`); when it is False, unseen names are assumed to come from the source, except
    the ones ``gone`` records as dropped or renamed away.
    """

    _slots: list[Slot] = field(default_factory=list)
    known: bool = False
    gone: set[str] = field(default_factory=set)
    #: lower-cased name → the live slots of that name (more than one only after a duplicate `add`).
    _index: dict[str, list[Slot]] = field(default_factory=dict)
    #: literal prefix of a pattern (`body_` of `body_<n>`) → its slots, so lookups never scan every pattern.
    _patterns: dict[str, list[Slot]] = field(default_factory=dict)
    #: length → how many `_patterns` prefixes have it, and those lengths longest first: `find` looks up
    #: only the prefixes of a name that can be keys, not every prefix of it.
    _prefix_counts: dict[int, int] = field(default_factory=dict, compare=False, repr=False)
    _prefix_lengths: tuple[int, ...] = field(default=(), compare=False, repr=False)

    @classmethod
    def from_schema(cls, schema: Sequence[str] | None) -> ColumnState:
        state = cls(known=schema is not None)
        for name in schema or ():
            state._append(Slot(name))
        return state

    def copy(self) -> ColumnState:
        state = ColumnState(known=self.known, gone=set(self.gone))
        for slot in self.slots:
            state._append(Slot(slot.name, slot.pattern, slot.created_by))
        return state

    # -- queries ---------------------------------------------------------------------------------------------------
    @property
    def slots(self) -> list[Slot]:
        live = [slot for slot in self._slots if slot.alive]
        if len(self._slots) > 2 * len(live) + 8:
            self._slots = live
        return list(live)

    def find(self, name: str) -> Slot | None:
        key = name.lower()
        slots = self._index.get(key)
        if slots:
            return slots[0]
        if self._patterns:
            size = len(key)
            for end in self._prefix_lengths:
                if end <= size:
                    for candidate in self._patterns.get(key[:end], ()):
                        if candidate.matches(name):
                            return candidate
        return None

    def exists(self, name: str) -> bool | None:
        """True / False when it can be told from the recipe, None when only the data can tell."""
        if self.find(name) is not None:
            return True
        if self.known:
            return False
        return None if name.lower() not in self.gone else False

    def names(self) -> list[str]:
        """The concrete column names (patterns excluded)."""
        return [slot.name for slot in self.slots if slot.pattern is None]

    def display(self) -> list[str]:
        return [slot.name for slot in self.slots]

    @property
    def exact(self) -> bool:
        """Whether every column is known by name: a known list with no data-dependent patterns."""
        return self.known and not any(self._patterns.values())

    # -- evolution ---------------------------------------------------------------------------------------------------
    def apply(self, labels: Iterable[ColumnLabel], index: int) -> None:
        for label in labels:
            kind = label.label
            if kind is _ADD or kind is _MODIFY:
                self._add(label, index)
            elif kind is _DROP:
                self._drop(label)
            elif kind is _RENAME and label.to is not None:
                self._rename(label, index)
            elif kind is _SWAP and label.to is not None:
                self._swap(label.column, label.to)

    def replace(self, names: Sequence[str], index: int | None = None) -> None:
        """Fix the column list outright (for directives whose output list is known: `keep`, …)."""
        old = {slot.name.lower(): slot for slot in self.slots if slot.pattern is None}
        self._clear()
        for name in names:
            previous = old.get(name.lower())
            self._append(Slot(name, None, previous.created_by if previous else index))
        self.known = True

    def insert(self, name: str, *, before: Slot | None = None, index: int | None = None) -> None:
        """Add a concrete column before ``before`` (at the end when None), e.g. a header over a pattern's member."""
        self._append(Slot(name, None, index), before=before)
        self.gone.discard(name.lower())

    def rename_all(self, new_name: Callable[[str], str]) -> None:
        """Rename every concrete column by a rule (case changes, cleansing, sed)."""
        self._index = {}
        for slot in self._slots:
            if slot.alive and slot.pattern is None:
                slot.name = new_name(slot.name)
                self._index.setdefault(slot.name.lower(), []).append(slot)
        self.gone = {new_name(name) for name in self.gone}

    def _append(self, slot: Slot, before: Slot | None = None) -> None:
        if before is not None:
            self._slots.insert(self._slots.index(before), slot)
        else:
            self._slots.append(slot)
        if slot.pattern is not None:
            prefix = _literal_prefix(slot.name)
            slots = self._patterns.get(prefix)
            if slots is None:
                slots = self._patterns[prefix] = []
                self._count_prefix(len(prefix), 1)
            slots.append(slot)
        else:
            self._index.setdefault(slot.name.lower(), []).append(slot)

    def _clear(self) -> None:
        self._slots, self._index, self._patterns = [], {}, {}
        self._prefix_counts, self._prefix_lengths = {}, ()

    def _count_prefix(self, length: int, change: int) -> None:
        count = self._prefix_counts.get(length, 0) + change
        if count:
            self._prefix_counts[length] = count
        else:
            del self._prefix_counts[length]
        if count in (0, 1):  # a length appeared or disappeared
            self._prefix_lengths = tuple(sorted(self._prefix_counts, reverse=True))

    def _kill(self, slot: Slot) -> None:
        slot.alive = False
        if slot.pattern is not None:
            prefix = _literal_prefix(slot.name)
            self._patterns[prefix].remove(slot)
            if not self._patterns[prefix]:
                del self._patterns[prefix]
                self._count_prefix(len(prefix), -1)
            return
        self._unindex(slot)

    def _unindex(self, slot: Slot) -> None:
        key = slot.name.lower()
        slots = self._index.get(key, [])
        if slot in slots:
            slots.remove(slot)
            if not slots:
                del self._index[key]

    def _rename(self, label: ColumnLabel, index: int) -> None:
        assert label.to is not None
        if label.pattern:
            return
        slot = self.find(label.column)
        if slot is None:
            if not self.known:
                self.gone.add(label.column.lower())
                self.gone.discard(label.to.lower())
                self._append(Slot(label.to, None, index))
            return
        if slot.pattern is not None:
            self._append(Slot(label.to, None, index), before=slot)
        else:
            self._unindex(slot)
            slot.name = label.to
            self._index.setdefault(label.to.lower(), []).append(slot)
        self.gone.add(label.column.lower())
        self.gone.discard(label.to.lower())

    def _swap(self, left: str, right: str) -> None:
        a, b = self.find(left), self.find(right)
        if a is not None and b is not None and a.pattern is None and b.pattern is None:
            self._unindex(a)
            self._unindex(b)
            a.name, b.name = b.name, a.name
            self._index.setdefault(a.name.lower(), []).append(a)
            self._index.setdefault(b.name.lower(), []).append(b)
        elif not self.known:
            for name in (left, right):
                if self.find(name) is None:
                    self._append(Slot(name))

    def _drop(self, label: ColumnLabel) -> None:
        if label.pattern:
            if label.column == "*":
                self._clear()
                self.known = True
            return
        key = label.column.lower()
        slots = self._index.get(key)  # only a concrete column is dropped, so patterns need no search
        if slots:
            self._kill(slots[0])
        self.gone.add(key)

    def _add(self, label: ColumnLabel, index: int) -> None:
        if label.pattern:
            self._append(Slot(label.column, pattern_regex(label.column), index))
            return
        key = label.column.lower()
        # Only a live concrete column of that name means nothing to add; `find` would otherwise give None
        # or a pattern the name belongs to, and both add the concrete column, so it is not needed here.
        if key not in self._index:
            self._append(Slot(label.column, None, index))
        self.gone.discard(key)


def _literal_prefix(pattern: str) -> str:
    return pattern.split("<", 1)[0].lower()
