"""CSV records as Wrangler's `parse-as-csv` reads them (Commons-CSV DEFAULT), in plain Python.

Spark-free, so that `wrangler check --sample` can read a header the way a run does; the Spark
compiler uses the same functions for the one header record it looks at on the driver.
"""

from __future__ import annotations

import re


def split_record(text: str, delimiter: str) -> list[str]:
    """One CSV record split as Commons-CSV DEFAULT does (for the header row, on the driver)."""
    fields: list[str] = []
    current: list[str] = []
    i, size = 0, len(text)
    at_start = True
    while i < size:
        char = text[i]
        if at_start and char == '"':
            i += 1
            while i < size:
                if text[i] == '"':
                    if i + 1 < size and text[i + 1] == '"':
                        current.append('"')
                        i += 2
                        continue
                    i += 1
                    break
                current.append(text[i])
                i += 1
            at_start = False
            continue
        if char == delimiter:
            fields.append("".join(current))
            current = []
            at_start = True
            i += 1
            continue
        current.append(char)
        at_start = False
        i += 1
    fields.append("".join(current))
    return fields


_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[dDfFlL]?")


def header_names(values: list[str]) -> list[str] | None:
    """Header names when the record is a header (all non-empty, textual and unique), else None."""
    if any(v == "" or _NUMBER.fullmatch(v.strip()) or v.strip().lower() in ("true", "false") for v in values):
        return None
    names = [re.sub(r"\s+", "_", v.strip()) for v in values]
    if len({n.lower() for n in names}) != len(names) or any(n == "" for n in names):
        return None
    return names
