"""Spark compilers, one module per directive family (the same names as `directives.catalog`'s families).

Each family module registers a compiler per declaration class with `compilers.compiles(DeclarationClass)`.
Helpers live beside the compilers that use them: `common` (Wrangler's string form, Java unescapes, split
widths: column_ops and transform), `typeconv` (column_ops' set-type), `datepatterns` and `datecurrency`
(dates), `csvsplit`, `variant_schema` and `xmlshape` (parsers), `masking`, `regex_groups` and `textmetrics`
(transform).
"""
