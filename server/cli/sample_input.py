"""The first rows of an input file, read the way `wrangler run --input` reads it, without Spark.

`wrangler check --sample FILE` uses them as the input schema and to name the columns only the data
can name (a CSV header after `parse-as-csv … true`, JSON keys). Each format is read as Spark's reader
in `directives.spark.runtime.files.read_table` reads it: CSV with its header line (or `_c0, _c1, …` without),
values as text and an empty field as null; JSON one object per line, columns sorted by name as Spark
infers them; Parquet's own schema; text one row per line in `body`. A directory is read file by file,
as Spark reads its data files.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from directives.file_formats import INPUT_FORMATS


class SampleInputError(ValueError):
    """The sample file cannot be read (missing, unknown format, not what its format says)."""


@dataclass(frozen=True)
class Sample:
    columns: list[str]
    rows: list[dict[str, object]]
    #: The format the file was read as (csv, json, parquet, text).
    format: str = ""


#: The column a text input reads each line into (as Wrangler's File source hands a pipeline a file).
LINE_COLUMN = "body"


def read_as_lines_hint(missing: Iterable[str | None], fmt: str, columns: Sequence[str] | None,
                       option: str) -> str | None:
    """What to do when a recipe written for a file's raw lines meets the file read as a table: it parses `:body`
    (`parse-as-csv :body …`, as Wrangler recipes do), but a `.csv` or `.json` file is read by default with its
    header or keys as columns, so `body` is not there and every directive on it passes its rows through. Given the
    columns the findings name as missing; ``option`` is the command's option that reads a file's lines."""
    if fmt not in ("csv", "json") or columns is None or LINE_COLUMN in {c.lower() for c in columns}:
        return None
    if LINE_COLUMN not in {name.lower() for name in missing if name}:
        return None
    shape = "its header line as column names" if fmt == "csv" else "each object's keys as column names"
    return (f"the recipe reads each line from :{LINE_COLUMN}, but the file was read as {fmt.upper()}, with {shape} "
            f"({', '.join(columns)}); {option} text reads every line into :{LINE_COLUMN}, as Wrangler's File source "
            f"does")


def read_sample(path: str, fmt: str | None = None, *, header: bool = True, limit: int = 100) -> Sample:
    from server.cli.run_command import infer_format  # the same extension rules as `wrangler run`

    location = Path(path.removeprefix("file://"))
    if not location.exists():
        raise SampleInputError(f"sample not found: {path}")
    fmt = fmt or infer_format(path, INPUT_FORMATS)
    if fmt is None:
        raise SampleInputError(f"cannot tell the format of {path} from its name; use --sample-format "
                               f"({'|'.join(INPUT_FORMATS)})")
    files = _data_files(location)
    try:
        if fmt == "csv":
            sample = _csv(files, header, limit)
        elif fmt == "json":
            sample = _json(files, limit)
        elif fmt == "parquet":
            sample = _parquet(files, limit)
        else:
            sample = _text(files, limit)
        return replace(sample, format=fmt)
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise SampleInputError(f"cannot read sample {path}: {error}") from None


def _data_files(location: Path) -> list[Path]:
    if location.is_file():
        return [location]
    return sorted(p for p in location.iterdir() if p.is_file() and not p.name.startswith(("_", ".")))


def _csv(files: list[Path], header: bool, limit: int) -> Sample:
    columns: list[str] | None = None
    rows: list[dict[str, object]] = []
    for path in files:
        with path.open(newline="", encoding="utf-8") as handle:
            records = csv.reader(handle)
            if header:  # every file of a directory starts with its header line
                first = next(records, None)
                if first is None:
                    continue
                columns = columns or _csv_names(first)
            for record in records:
                if columns is None:
                    columns = [f"_c{i}" for i in range(len(record))]
                if len(rows) >= limit:
                    return Sample(columns, rows)
                rows.append({name: (record[i] or None) if i < len(record) else None for i, name in enumerate(columns)})
    return Sample(columns or [], rows)


def _csv_names(record: list[str]) -> list[str]:
    """Header names as Spark's CSV reader makes them: an empty name is `_c<i>`, a repeated one gets its index."""
    names = [name or f"_c{i}" for i, name in enumerate(record)]
    lowered = [name.lower() for name in names]
    return [f"{name}{i}" if lowered.count(name.lower()) > 1 else name for i, name in enumerate(names)]


def _json(files: list[Path], limit: int) -> Sample:
    rows: list[dict[str, object]] = []
    for path in files:
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                if len(rows) >= limit:
                    break
                if not line.strip():
                    continue
                try:
                    value = json.loads(line)
                except ValueError:
                    raise SampleInputError(f"{path}: a line is not JSON (Spark reads one JSON object per line): "
                                           f"{line.strip()[:60]}") from None
                if isinstance(value, dict):
                    rows.append(value)
    columns = sorted({key for row in rows for key in row})
    return Sample(columns, [{name: row.get(name) for name in columns} for row in rows])


def _parquet(files: list[Path], limit: int) -> Sample:
    import pyarrow.parquet as pq

    columns: list[str] | None = None
    rows: list[dict[str, object]] = []
    for path in files:
        parquet = pq.ParquetFile(path)
        if columns is None:
            columns = list(parquet.schema_arrow.names)
        for batch in parquet.iter_batches(batch_size=max(limit - len(rows), 1)):
            rows.extend(batch.to_pylist()[: limit - len(rows)])
            break
        if len(rows) >= limit:
            break
    return Sample(columns or [], rows)


def _text(files: list[Path], limit: int) -> Sample:
    rows: list[dict[str, object]] = []
    for path in files:
        # newline="": lines end at \n, \r\n or \r only (as Spark's text reader ends them), endings kept to strip
        with path.open(encoding="utf-8", newline="") as handle:
            for line in handle:
                if len(rows) >= limit:
                    return Sample(["body"], rows)
                rows.append({"body": line[:-2] if line.endswith("\r\n") else line.rstrip("\r\n")})
    return Sample(["body"], rows)
