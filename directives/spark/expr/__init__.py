"""The `exp:{…}` compiler: syntax nodes of `grammar.expression` become Spark Columns, never evaluated code.

`values` (typed Spark values and JEXL's coercions) ← `functions` (the function table) ← `compiler` (the
node walker): each module imports only the ones to its left. `byte_codecs` builds base32/base64/hex and
charset decoding from Spark functions (also used by the transform and external compilers).
"""
