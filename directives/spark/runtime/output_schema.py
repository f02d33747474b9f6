"""A recipe's declared output schema: columns in the declared order, values cast to the declared types.

`directives.run(df, recipe, output_schema=…)` and `wrangler run --output-schema FILE` take it as a Spark DDL string
(``id INT, name STRING``), a `StructType`, or an Avro record schema (JSON text or a parsed object) as CDAP and
Data Fusion store a stage's schema. It is applied as the recipe's last step, the way Wrangler's transform builds
each output record from its stage schema:

* each declared column is taken from the recipe's column of that name (case-insensitively); columns the schema
  does not name are left out;
* a value is cast to the declared type (text into a struct, array or map is read as JSON); a value that does not
  convert, and a null in a column declared NOT NULL, send the row to the error output with the reason;
* a declared column the recipe does not make is an `OutputSchemaError` before any data is read (``strict``, the
  default), or null in every row (``strict=False``: what Wrangler's transform does with a stage schema);
* a column whose type cannot be cast to the declared one at all is an `OutputSchemaError` too.

It also fixes the column count of `parse-as-csv` (without a header) and `split-to-columns` from the names it
declares (`declared_widths`), so those directives skip the aggregate pass that would learn it from the data.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T
from pyspark.sql.utils import AnalysisException

from directives.pipeline_export import PipelineError, fields_ddl, is_avro_record, record_fields
from directives.recipe import Recipe
from directives.spark.runtime.frame import Frame
from grammar.errors import RecipeError

OutputSchema = str | T.StructType | Mapping[str, Any]


class OutputSchemaError(RecipeError):
    """The recipe's result cannot be the declared output schema (found before any data is read)."""

    rule = "output-schema"


def to_struct(schema: OutputSchema) -> T.StructType:
    """A `StructType` from a DDL string, a `StructType` or an Avro record schema (text or parsed)."""
    if isinstance(schema, T.StructType):
        return schema
    try:
        if isinstance(schema, Mapping) or (isinstance(schema, str) and is_avro_record(schema)):
            ddl = fields_ddl(record_fields(schema))
        else:
            ddl = str(schema)
        parsed = T.DataType.fromDDL(ddl)
    except PipelineError as error:
        raise OutputSchemaError(f"the output schema is not a usable Avro record: {error}") from None
    except Exception as error:  # Spark's parser: one line of its message
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise OutputSchemaError(f"the output schema is not a Spark DDL schema: {first}") from None
    if not isinstance(parsed, T.StructType):
        raise OutputSchemaError("the output schema must be a list of columns (a struct)")
    return parsed


def _directive(index: int, text: str) -> Any:
    """What a `Step` reads of a directive for its error records: the index, the text and the line."""
    return SimpleNamespace(index=index, call=SimpleNamespace(text=text, span=SimpleNamespace(line=0)))


def _converted(value: Column, source: T.DataType, target: T.DataType) -> Column:
    if isinstance(source, T.StringType) and isinstance(target, (T.StructType, T.ArrayType, T.MapType)):
        return F.from_json(value, target)
    return value.cast(target)


def conform(frame: Frame, schema: OutputSchema, index: int, *, strict: bool = True,
            label: str = "output schema") -> Frame:
    """``frame`` as the declared schema (see the module docstring); ``index`` numbers the step in error records."""
    struct = to_struct(schema)
    missing = [f.name for f in struct.fields if frame.find(f.name) is None]
    if missing and strict:
        raise OutputSchemaError(
            f"the {label} names {len(missing)} column(s) the recipe does not make: {', '.join(missing)}; "
            f"the recipe's columns are: {', '.join(frame.columns) or '(none)'}", line=None, column=None)
    sources = {f.name: frame.find(f.name) for f in struct.fields}
    types = {name: frame.data_type(actual) for name, actual in sources.items() if actual is not None}
    problems = [f"{f.name} ({types[f.name].simpleString()} cannot become {f.dataType.simpleString()})"
                for f in _uncastable(frame.session, [(f, types[f.name]) for f in struct.fields
                                                                 if f.name in types])]
    if problems:
        raise OutputSchemaError(f"the {label} does not fit the recipe's result: {'; '.join(problems)}")
    step = frame.step(_directive(index, label))
    values: list[tuple[str, Column]] = []
    for declared in struct.fields:
        actual = sources[declared.name]
        if actual is None:
            values.append((declared.name, F.lit(None).cast(declared.dataType)))
            continue
        source_type = types[declared.name]
        value = frame.col(actual)
        converted = _converted(value, source_type, declared.dataType)
        if source_type != declared.dataType:
            step.fail_when(value.isNotNull() & converted.isNull(),
                           F.concat(F.lit(f"{label}: the value '"), value.cast("string"),
                                    F.lit(f"' of column {declared.name} is not a valid "
                                          f"{declared.dataType.simpleString()}")))
        if not declared.nullable:
            step.fail_when(converted.isNull(), f"{label}: column {declared.name} is null but the schema "
                                               f"does not allow null")
        values.append((declared.name, converted))
    for name in list(frame.columns):
        step.drop(name)
    for name, value in values:
        step.set(name, value)
    return step.build()


def _uncastable(spark: Any, fields: list[tuple[T.StructField, T.DataType]]) -> list[T.StructField]:
    """The declared fields Spark cannot convert the recipe's type into at all (text into a struct, array or map is
    read as JSON). Asked of Spark itself, on an empty relation of the recipe's types, so no data is read: one
    analysis for all of them, and one per field only when some cannot."""
    changed = [(declared, source) for declared, source in fields
               if declared.dataType != source and not isinstance(source, T.NullType)]
    if not changed:
        return []
    empty = spark.createDataFrame([], T.StructType([T.StructField(f"v{i}", source)
                                                    for i, (_, source) in enumerate(changed)]))

    def fits(pairs: list[tuple[int, T.StructField, T.DataType]]) -> bool:
        try:
            _ = empty.select(*(_converted(F.col(f"v{i}"), source, declared.dataType) for i, declared, source in pairs)
                             ).schema
        except AnalysisException:
            return False
        return True

    numbered = [(i, declared, source) for i, (declared, source) in enumerate(changed)]
    if fits(numbered):
        return []
    return [declared for i, declared, source in numbered if not fits([(i, declared, source)])]


#: Directives whose column count only the data can tell, and how they name their columns (``<column>_<n>``).
_WIDTH_DIRECTIVES = ("parse-as-csv", "split-to-columns")


def declared_widths(recipe: Recipe, schema: OutputSchema) -> dict[int, int]:
    """Column counts the output schema fixes, by directive index, so those directives need no discovery pass.

    A `parse-as-csv` without a header or a `split-to-columns` on ``body`` makes ``body_1 … body_<n>``, n from the
    data; the largest ``n`` among the declared columns and the names the recipe itself uses (a later `rename
    :body_5 …`) is every column the result can need. Columns past it are never made (the schema would leave them
    out anyway); columns the data does not have are null, as with a discovery pass."""
    names = [f.name.lower() for f in to_struct(schema).fields]
    for step in recipe.steps:
        for label in step.labels:
            names.extend(name.lower() for name in (label.column, label.to) if name)
    widths: dict[int, int] = {}
    for directive in recipe.directives:
        if directive.name not in _WIDTH_DIRECTIVES or (directive.name == "parse-as-csv" and directive.header):
            continue
        column = getattr(directive, "col" if directive.name == "parse-as-csv" else "column", None)
        if not isinstance(column, str):
            continue
        prefix = column.lower() + "_"
        found = [int(name[len(prefix):]) for name in names
                 if name.startswith(prefix) and name[len(prefix):].isdigit()]
        if found:
            widths[directive.index] = max(found)
    return widths
