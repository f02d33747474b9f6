"""The program-facing field-lineage model: datasets, input/output fields, operations, runs.

It follows the shape of CDAP's program lineage API (a list of named field operations recorded
against one destination) so that producers written against that API map one-to-one:

* an operation reads from a dataset when its inputs are *dataset inputs* (``READ``);
* it transforms when its inputs are *field inputs* that name the operation that produced them
  (``origin``) — or leave it out, in which case the origin is the most recent earlier operation
  in the list that output a field of that name (CDAP's resolution rule);
* the ``WRITE`` to the destination is not written by hand: the recorder synthesises it from
  ``Destination.fields`` (see ``lineage.recorder``), so a destination field can never be
  "written" without a producer.

Everything here is an immutable pydantic model (``extra="forbid"``) because these objects are
hashed into checksums and stored as JSON: accepting unknown keys or mutating after the fact
would silently change what a checksum means.

Times are **epoch seconds** everywhere in the lineage package (``RunInfo.start``/``end`` and all
store queries), the unit of CDAP's REST API.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Annotated, Any, NamedTuple, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    computed_field,
    field_validator,
    model_validator,
)

NonEmptyStr = Annotated[str, StringConstraints(min_length=1)]

WRITE_PREFIX = "write:"
"""Name prefix of the WRITE operation the recorder synthesises (``write:<destination name>``)."""


class OperationType(StrEnum):
    """Derived from an operation's shape; never supplied by the producer."""

    READ = "READ"
    TRANSFORM = "TRANSFORM"
    WRITE = "WRITE"


class Direction(StrEnum):
    """Which way a lineage query walks: towards sources (backward) or towards consumers (forward)."""

    BACKWARD = "backward"
    FORWARD = "forward"

    @classmethod
    def parse(cls, value: str | Direction) -> Direction:
        """Accept our names and CDAP's (``incoming`` = backward, ``outgoing`` = forward), any case."""
        if isinstance(value, Direction):
            return value
        text = value.strip().lower()
        aliases = {"incoming": cls.BACKWARD, "outgoing": cls.FORWARD}
        if text in aliases:
            return aliases[text]
        try:
            return cls(text)
        except ValueError:
            raise ValueError(
                f"direction must be 'backward' or 'forward' (or 'incoming'/'outgoing'), not {value!r}"
            ) from None


class DatasetKey(NamedTuple):
    """Identity of a dataset (CDAP's EndPoint without properties)."""

    namespace: str
    name: str


class FieldKey(NamedTuple):
    """Identity of one field of one dataset (CDAP's EndPointField)."""

    namespace: str
    dataset: str
    field: str

    @property
    def dataset_key(self) -> DatasetKey:
        return DatasetKey(self.namespace, self.dataset)


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DatasetRef(_Frozen):
    """A dataset an operation reads from or a run writes to.

    ``namespace=None`` means "the namespace of the run that records it"; the recorder fills it in
    before anything is stored. ``properties`` (file path, topic, …) are context, not identity: the
    recorder moves them out of the operations into the per-run dataset properties, so a path that
    changes every run does not defeat operation de-duplication.
    """

    namespace: NonEmptyStr | None = None
    name: NonEmptyStr
    properties: dict[str, str] = Field(default_factory=dict)

    def key(self, default_namespace: str) -> DatasetKey:
        return DatasetKey(self.namespace or default_namespace, self.name)


class InputField(_Frozen):
    """One input of an operation: a field of a dataset, or a field produced by another operation.

    Exactly one of ``dataset`` / ``origin`` may be set; a field input without ``origin`` resolves to
    the most recent *earlier* operation in the recorded list that output ``field``.
    """

    field: NonEmptyStr
    dataset: DatasetRef | None = None
    origin: NonEmptyStr | None = None

    @model_validator(mode="after")
    def _dataset_or_origin(self) -> Self:
        if self.dataset is not None and self.origin is not None:
            raise ValueError(
                f"input field {self.field!r} names both a dataset ({self.dataset.name!r}) and an origin "
                f"({self.origin!r}); a dataset input has no origin"
            )
        return self

    @property
    def is_dataset(self) -> bool:
        return self.dataset is not None

    @classmethod
    def of_dataset(cls, dataset: DatasetRef | str, field: str, *, namespace: str | None = None) -> InputField:
        ref = dataset if isinstance(dataset, DatasetRef) else DatasetRef(namespace=namespace, name=dataset)
        return cls(field=field, dataset=ref)

    @classmethod
    def of_field(cls, field: str, origin: str | None = None) -> InputField:
        return cls(field=field, origin=origin)


class OutputField(_Frozen):
    """One field an operation produces (operations also accept plain strings)."""

    field: NonEmptyStr


def _coerce_fields(values: Any) -> Any:
    """Let callers write ``"name"`` instead of ``{"field": "name"}`` in inputs and outputs."""
    if isinstance(values, str):
        raise ValueError("expected a list of fields, not a single string")
    if isinstance(values, Iterable) and not isinstance(values, dict):
        return [{"field": v} if isinstance(v, str) else v for v in values]
    return values


class FieldOperation(_Frozen):
    """A named step that turns input fields into output fields.

    Lineage is exact at *operation* granularity: every output of an operation depends on every
    input of it. A producer that wants per-field exactness (``ID`` from three fields, ``Salary``
    from one) emits one operation per output, or per group of outputs with the same inputs.
    The synthesised WRITE is the exception: each destination field depends only on the WRITE
    input of the same name.
    """

    name: NonEmptyStr
    description: str = ""
    inputs: tuple[InputField, ...] = ()
    outputs: tuple[OutputField, ...] = ()
    properties: dict[str, str] = Field(default_factory=dict)
    destination: DatasetRef | None = None
    """Set only on the WRITE operation the recorder synthesises."""

    @field_validator("inputs", "outputs", mode="before")
    @classmethod
    def _accept_strings(cls, value: Any) -> Any:
        return _coerce_fields(value)

    @model_validator(mode="wrap")
    @classmethod
    def _accept_derived_type(cls, data: Any, handler: Any) -> FieldOperation:
        """Round-trip ``model_dump()`` output: a ``type`` key is checked against the derived type."""
        declared = None
        if isinstance(data, dict) and "type" in data:
            data = dict(data)
            declared = data.pop("type")
        operation: FieldOperation = handler(data)
        if declared is not None and str(declared) != operation.type.value:
            raise ValueError(
                f"operation {operation.name!r} declares type {declared!r} but its shape makes it {operation.type.value}"
            )
        return operation

    @model_validator(mode="after")
    def _check_shape(self) -> Self:
        has_dataset = any(i.is_dataset for i in self.inputs)
        has_field = any(not i.is_dataset for i in self.inputs)
        if has_dataset and has_field:
            raise ValueError(
                f"operation {self.name!r} mixes dataset inputs and field inputs; "
                "read the dataset in a separate operation"
            )
        if self.destination is not None:
            if not self.inputs or has_dataset or self.outputs:
                raise ValueError(
                    f"WRITE operation {self.name!r} must have field inputs only and no outputs "
                    "(its inputs are the destination fields)"
                )
        elif not self.inputs and not self.outputs:
            raise ValueError(f"operation {self.name!r} has neither inputs nor outputs")
        names = [o.field for o in self.outputs]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"operation {self.name!r} lists output field(s) {duplicates} more than once")
        return self

    @computed_field  # type: ignore[prop-decorator]
    @property
    def type(self) -> OperationType:
        if self.destination is not None:
            return OperationType.WRITE
        if self.inputs and all(i.is_dataset for i in self.inputs):
            return OperationType.READ
        return OperationType.TRANSFORM

    @property
    def output_names(self) -> tuple[str, ...]:
        return tuple(o.field for o in self.outputs)

    def stored_form(self) -> dict[str, Any]:
        """The JSON object stored and hashed: derived ``type`` and default values left out."""
        return self.model_dump(mode="json", exclude={"type"}, exclude_defaults=True)

    @classmethod
    def builder(cls, name: str) -> FieldOperationBuilder:
        return FieldOperationBuilder(name)


class FieldOperationBuilder:
    """Fluent construction, mirroring the builder of the plugin/program APIs.

    ``FieldOperation.builder("concat").description("...").input("first").input("last").output("name").build()``
    """

    def __init__(self, name: str) -> None:
        self._name = name
        self._description = ""
        self._inputs: list[InputField] = []
        self._outputs: list[OutputField] = []
        self._properties: dict[str, str] = {}

    def description(self, text: str) -> Self:
        self._description = text
        return self

    def input(self, field: InputField | str, *, origin: str | None = None) -> Self:
        self._inputs.append(field if isinstance(field, InputField) else InputField.of_field(field, origin))
        return self

    def inputs(self, *fields: InputField | str) -> Self:
        for f in fields:
            self.input(f)
        return self

    def dataset_input(self, dataset: DatasetRef | str, field: str) -> Self:
        self._inputs.append(InputField.of_dataset(dataset, field))
        return self

    def output(self, field: OutputField | str) -> Self:
        self._outputs.append(field if isinstance(field, OutputField) else OutputField(field=field))
        return self

    def outputs(self, *fields: OutputField | str) -> Self:
        for f in fields:
            self.output(f)
        return self

    def with_property(self, key: str, value: str) -> Self:
        self._properties[key] = value
        return self

    def build(self) -> FieldOperation:
        return FieldOperation(
            name=self._name,
            description=self._description,
            inputs=tuple(self._inputs),
            outputs=tuple(self._outputs),
            properties=dict(self._properties),
        )


def read_fields(dataset: DatasetRef, fields: Iterable[str], *, description: str = "") -> list[FieldOperation]:
    """One READ per field (named ``read:<dataset>.<field>``), so each field's lineage stays exact.

    A single READ with many dataset inputs would make every output depend on every input field,
    which is true of a record-level read (``body`` from ``PersonRecord``) but not of a columnar one.
    """
    return [
        FieldOperation(
            name=f"read:{dataset.name}.{f}",
            description=description or f"Read field {f!r} from {dataset.name!r}",
            inputs=(InputField(field=f, dataset=dataset),),
            outputs=(OutputField(field=f),),
        )
        for f in fields
    ]


class Destination(_Frozen):
    """The dataset a run writes, and the fields it writes (the run's final columns)."""

    namespace: NonEmptyStr | None = None
    name: NonEmptyStr
    description: str = ""
    properties: dict[str, str] = Field(default_factory=dict)
    fields: tuple[NonEmptyStr, ...]

    @field_validator("fields")
    @classmethod
    def _unique_fields(cls, fields: tuple[str, ...]) -> tuple[str, ...]:
        if not fields:
            raise ValueError("destination must list at least one field")
        duplicates = sorted({f for f in fields if fields.count(f) > 1})
        if duplicates:
            raise ValueError(f"destination lists field(s) {duplicates} more than once")
        return fields

    def ref(self) -> DatasetRef:
        return DatasetRef(namespace=self.namespace, name=self.name, properties=dict(self.properties))

    def key(self, default_namespace: str) -> DatasetKey:
        return DatasetKey(self.namespace or default_namespace, self.name)


class RunInfo(_Frozen):
    """One program run. ``start``/``end`` are epoch seconds; ``end`` is None while running."""

    namespace: NonEmptyStr
    program: NonEmptyStr
    run_id: NonEmptyStr
    start: int = Field(ge=0)
    end: int | None = Field(default=None, ge=0)
    status: NonEmptyStr = "COMPLETED"

    @model_validator(mode="after")
    def _end_after_start(self) -> Self:
        if self.end is not None and self.end < self.start:
            raise ValueError(f"run {self.run_id!r} ends ({self.end}) before it starts ({self.start})")
        return self
