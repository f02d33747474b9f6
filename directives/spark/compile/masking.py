"""`mask-number` and `mask-shuffle` as Spark expressions (no UDF), with Wrangler's exact output.

* `mask-number` walks the *mask* (a literal) with the read position in the value as state; since the
  mask is known when compiling, the walk becomes substrings at computed positions (or, for masks with
  many literals, one regex replacement): codegen, no lambda.
* `mask-shuffle` walks a string with state, which `aggregate` over its characters expresses directly: it
  walks the *value* with the state of `java.util.Random(0)`, because Wrangler
  draws a replacement for every consonant, vowel and digit from a fresh `Random(0)` per value:
  the k-th such character gets the k-th draw. The 48-bit linear congruential generator is
  computed in 64-bit arithmetic without overflow by splitting the seed into two 24-bit halves.
"""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

#: Above this many literal characters in a mask, the positional form's read position (which every literal
#: makes depend on the value) would grow too large an expression tree, and the regex form is used instead.
MAX_POSITIONAL_LITERALS = 4


def mask_number(value: Column, mask: str) -> Column:
    """`#` copies the next character, `x`/`X` writes `x` and skips one, anything else is written and
    skips the next character only if it is that same character.

    The mask is a literal, so the walk unrolls when compiling. Usually into substrings at read positions
    known up to the literals matched so far (a third of the regex form's cost per row); with many
    literals, into one anchored regex replacement.
    """
    literals = sum(1 for c in mask if c not in "#xX")
    if literals > MAX_POSITIONAL_LITERALS:
        return mask_number_regex(value, mask)
    return mask_number_positional(value, mask)


def mask_number_positional(value: Column, mask: str) -> Column:
    """The walk as substrings: the read position is a constant plus, per literal so far, one if it matched.

    Reading past the end gives nothing, as in the walk, so a run of `#` is one substring and running
    out of characters needs no special case (once past the end, the walk only writes `x` and literals).
    """
    text = value.cast("string")
    pieces: list[Column] = []
    written = ""  # literal output not yet added to the pieces
    offset = 0  # the constant part of the 0-based read position
    matched: Column | None = None  # the value-dependent part: how many literals matched so far

    def position() -> Column:
        return F.lit(offset + 1) if matched is None else matched + F.lit(offset + 1)

    for char, run in _runs(mask):
        if char == "#":
            if written:
                pieces.append(F.lit(written))
                written = ""
            pieces.append(text.substr(position(), F.lit(run)))
            offset += run
        elif char in "xX":
            written += "x" * run
            offset += run
        else:
            for _ in range(run):
                # `locate(c, text, p) = p` rather than `substr(text, p, 1) = c`: it walks to p and compares bytes in
                # place, where `substr` first counts every character of the value and copies the one it cuts out
                # (measured on 2M rows: the mask cost 40 % less, as little as the hand-written `substring`).
                at = position()
                hit = F.when(F.call_function("locate", F.lit(char), text, at) == at, F.lit(1)).otherwise(F.lit(0))
                matched = hit if matched is None else matched + hit
                written += char
    if written:
        pieces.append(F.lit(written))
    if not pieces:
        return F.when(text.isNull(), F.lit(None).cast("string")).otherwise(F.lit(""))
    return F.concat(*pieces) if len(pieces) > 1 else F.concat(pieces[0], F.lit(""))


def _runs(mask: str) -> list[tuple[str, int]]:
    """The mask as (character, repeat count) runs, `x` and `X` counted together."""
    runs: list[tuple[str, int]] = []
    for c in mask:
        key = "x" if c in "xX" else c
        if runs and runs[-1][0] == key:
            runs[-1] = (key, runs[-1][1] + 1)
        else:
            runs.append((key, 1))
    return runs


def mask_number_regex(value: Column, mask: str) -> Column:
    """The walk as one anchored regex of optional pieces and its replacement: `#` is a captured `(.)?`,
    `x` an uncaptured `.?`, a literal `(?:c)?`. Every piece is optional and greedy and nothing after them
    can fail, so the first match is exactly the walk; the rest of the value is consumed and dropped.
    An unmatched group is replaced by nothing.
    """
    pattern = ["(?s)^"]
    replacement = []
    for number, c in enumerate(mask, start=1):
        if c == "#":
            pattern.append(f"(?<g{number}>.)?")
            replacement.append(f"${{g{number}}}")
        elif c in "xX":
            pattern.append(".?")
            replacement.append("x")
        else:
            pattern.append(f"(?:{_regex_literal(c)})?")
            replacement.append("\\" + c if c in "\\$" else c)
    pattern.append(".*")
    return F.regexp_replace(value.cast("string"), "".join(pattern), "".join(replacement))


def _regex_literal(c: str) -> str:
    """One character as a Java regex literal."""
    return c if c.isalnum() else "\\Q" + c + "\\E" if c != "\\" else "\\\\"


# -- mask-shuffle ------------------------------------------------------------------------------------------------------
_MULTIPLIER = 0x5DEECE66D
_MASK48 = (1 << 48) - 1
_LOW24 = (1 << 24) - 1
CONSONANTS = "bcdfghjklmnpqrstvwxz"
VOWELS = "aeiouy"
DIGITS = "0123456789"
#: Characters Java's `Character.toLowerCase` maps onto an ASCII letter of a class (Kelvin sign, dotted capital I).
_EXTRA_UPPER_CONSONANTS = "\u212a"
_EXTRA_UPPER_VOWELS = "\u0130"


def _next_seed(seed: Column) -> Column:
    """One step of java.util.Random: seed * 0x5DEECE66D + 0xB mod 2^48, without 64-bit overflow."""
    low = seed.bitwiseAND(F.lit(_LOW24))
    high = F.shiftright(seed, 24)
    product = low * F.lit(_MULTIPLIER) + F.shiftleft((high * F.lit(_MULTIPLIER)).bitwiseAND(F.lit(_LOW24)), 24)
    return (product + F.lit(0xB)).bitwiseAND(F.lit(_MASK48))


def _draw(seed: Column, bound: int) -> tuple[Column, Column]:
    """`Random.nextInt(bound)` for a bound that is not a power of two: (new seed, value).

    Java rejects a draw when ``bits - bits % bound + bound - 1`` overflows an int; that happens
    with probability below bound / 2^31, and we follow it for one retry (two rejections in a row:
    below 1e-16).
    """
    first = _next_seed(seed)
    bits = F.shiftright(first, 17)
    limit = ((1 << 31) // bound) * bound  # first rejected value
    second = _next_seed(first)
    rejected = bits >= F.lit(limit)
    new_seed = F.when(rejected, second).otherwise(first)
    value = F.when(rejected, F.shiftright(second, 17)).otherwise(bits) % F.lit(bound)
    return new_seed, value.cast("int")


def mask_shuffle(value: Column) -> Column:
    """Replace consonants, vowels and digits by ones drawn from `Random(0)`, keeping upper case."""
    chars = F.split(value, "")
    upper_consonants = CONSONANTS.upper() + _EXTRA_UPPER_CONSONANTS
    upper_vowels = VOWELS.upper() + _EXTRA_UPPER_VOWELS

    def member(c: Column, letters: str) -> Column:
        return (F.length(c) == 1) & (F.instr(F.lit(letters), c) > 0)

    def replace(acc: Column, c: Column) -> Column:
        seed, out = acc["seed"], acc["out"]
        result = F.struct(seed.alias("seed"), F.concat(out, c).alias("out"))
        for letters, upper in ((DIGITS, ""), (VOWELS, upper_vowels), (CONSONANTS, upper_consonants)):
            new_seed, index = _draw(seed, len(letters))
            picked = F.lit(letters).substr(index + 1, F.lit(1))
            is_upper = member(c, upper) if upper else F.lit(False)
            drawn = F.struct(new_seed.alias("seed"),
                             F.concat(out, F.when(is_upper, F.upper(picked)).otherwise(picked)).alias("out"))
            result = F.when(member(c, letters) | is_upper, drawn).otherwise(result)
        return result

    start = F.struct(F.lit(_MULTIPLIER).cast("bigint").alias("seed"), F.lit("").alias("out"))
    return F.when(value.isNull(), F.lit(None).cast("string")).otherwise(
        F.aggregate(chars, start, replace, lambda acc: acc["out"])
    )
