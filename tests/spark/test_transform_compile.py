"""Transform-family directives on real Spark: values, nulls, missing columns and error rows.

Where Wrangler's answer comes from a Java library (Commons Codec, `java.util.Random`, `java.net.URL`,
`URLEncoder`, `MessageDigest`, `java.util.regex`, `WordUtils`), the expected value is computed by that
very class in Spark's JVM (through py4j), so the tests compare against Wrangler's own building blocks
rather than against numbers we typed in.
"""

from __future__ import annotations

import hashlib
import uuid
from typing import Any

import pytest

from directives.spark.compile import textmetrics
from directives.spark.compile.regex_groups import mark_groups
from directives.spark.compile.transform import cut_ranges
from directives.spark.compilers import UnsupportedDirectiveError
from directives.spark.runtime.runner import run_rows

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def jvm(spark) -> Any:
    return spark._jvm


def _one(spark, recipe: str, row: dict[str, Any]) -> dict[str, Any]:
    result = run_rows(recipe, [row], spark=spark)
    assert not result.errors, result.errors
    return result.rows[0]


def _error_messages(result) -> list[str]:
    return [error["message"] for error in result.errors]


# -- cut-character ---------------------------------------------------------------------------------------------------
def test_cut_ranges_merge_and_sort() -> None:
    assert cut_ranges("1-3") == [(1, 3)]
    assert cut_ranges("5-,1,2") == [(1, 2), (5, None)]
    assert cut_ranges("-3,2-6") == [(1, 6)]
    assert cut_ranges("7,1,3-4") == [(1, 1), (3, 4), (7, 7)]


def test_cut_character_values_nulls_and_missing(spark) -> None:
    rows = [{"body": "one two three"}, {"body": None}]
    result = run_rows("cut-character :body :first '1-3'\ncut-character :body :tail '9-'", rows, spark=spark)
    assert result.rows == [{"body": "one two three", "first": "one", "tail": "three"}]
    assert _error_messages(result) == ["Column 'body' has null value. It should be a non-null 'String'."]
    assert result.errors[0]["row"] == {"body": None}
    missing = run_rows("cut-character :nope :x '1-2'", [{"body": "abc"}], spark=spark)
    assert missing.rows == [] and _error_messages(missing) == ["Scope column 'nope' does not exist."]
    typed = run_rows("cut-character :n :x '1'", [{"n": 12}], spark=spark)
    assert "invalid type 'Integer'" in _error_messages(typed)[0]


def test_cut_character_works_line_by_line(spark) -> None:
    assert _one(spark, "cut-character :a :b '2-3'", {"a": "abcd\nwxyz"})["b"] == "bc\nxy"


# -- encode / decode -------------------------------------------------------------------------------------------------
TEXTS = ["", "f", "fo", "foo", "foob", "fooba", "foobar", "Hex Encoding", "ünïcødé ✓", "a" * 200]


def test_encode_matches_commons_codec(spark, jvm) -> None:
    codec = jvm.org.apache.commons.codec.binary
    rows = [{"t": text} for text in TEXTS]
    result = run_rows("encode 'base64' :t\nencode 'BASE32' :t\nencode 'hex' :t", rows, spark=spark)
    assert result.columns == ["t", "t_encode_base64", "t_encode_base32", "t_encode_hex"]
    for row in result.rows:
        data = row["t"].encode()
        assert row["t_encode_base64"] == bytes(codec.Base64().encode(data)).decode()
        assert row["t_encode_base32"] == bytes(codec.Base32().encode(data)).decode()
        assert row["t_encode_hex"] == bytes(codec.Hex().encode(data)).decode()


def test_decode_round_trips_and_matches_commons_codec(spark, jvm) -> None:
    codec = jvm.org.apache.commons.codec.binary
    rows = [{"b64": bytes(codec.Base64().encode(t.encode())).decode(),
             "b32": bytes(codec.Base32().encode(t.encode())).decode(),
             "hex": t.encode().hex()} for t in TEXTS]
    result = run_rows("decode 'base64' :b64\ndecode 'base32' :b32\ndecode 'hex' :hex", rows, spark=spark)
    decoded = [(r["b64_decode_base64"], r["b32_decode_base32"], r["hex_decode_hex"]) for r in result.rows]
    assert decoded == [(t, t, t) for t in TEXTS]


def test_decode_lenient_base32_like_commons_codec(spark, jvm) -> None:
    codec = jvm.org.apache.commons.codec.binary
    for text in ["mzxw6===", "MZXW6YQ", "MZ XW 6Y TB"]:
        expected = bytes(codec.Base32().decode(text)).decode(errors="replace")
        assert _one(spark, "decode 'base32' :a", {"a": text})["a_decode_base32"] == expected


#: Text that is not what an encoder writes: stray and non-ASCII characters, padding in the middle, endings of
#: every length (a lone base64 character made Spark's `unbase64` throw and abort the whole job).
NOT_ENCODED = ["x", "A", "AB", "ABC", "Zm9vYg=", "====", "Z===", "Zg==Zm9v", "Zm9v-_8", "ß", "Zm9v YmFy", "Zh",
               "Zm9vYh==", "MZXW6===MZXW6===", "mzxw6", "MZXW6ıYQ", "ABCDEFGHIJ", "8", "M=ZXW6", "%%%", "",
               "\U0001F600", "null", "-Infinity", "0x1F", "a" * 1001]


def test_decode_of_text_that_is_not_encoded_matches_commons_codec_and_never_aborts(spark, jvm) -> None:
    codec = jvm.org.apache.commons.codec.binary
    result = run_rows("decode 'base64' :t\ndecode 'base32' :t", [{"t": text} for text in NOT_ENCODED], spark=spark)
    assert not result.errors
    for row in result.rows:
        data = row["t"].encode()
        assert row["t_decode_base64"] == bytes(codec.Base64().decode(data)).decode(errors="replace"), row["t"]
        assert row["t_decode_base32"] == bytes(codec.Base32().decode(data)).decode(errors="replace"), row["t"]


def test_decode_null_keeps_target_and_bad_hex_is_an_error(spark) -> None:
    rows = [{"h": None, "h_decode_hex": "kept"}, {"h": "abc", "h_decode_hex": None}, {"h": "zz", "h_decode_hex": None}]
    result = run_rows("decode 'hex' :h", rows, spark=spark)
    assert result.rows == [{"h": None, "h_decode_hex": "kept"}]
    assert _error_messages(result) == ["Failed to decode hex value. Odd number of characters.",
                                       "Failed to decode hex value. Illegal hexadecimal character."]


def test_encode_missing_column_is_a_no_op_and_bytes_are_encoded(spark) -> None:
    assert run_rows("encode 'hex' :nope", [{"a": "x"}], spark=spark).rows == [{"a": "x"}]
    assert _one(spark, "encode 'hex' :b", {"b": b"\x00\xff"})["b_encode_hex"] == "00ff"
    typed = run_rows("encode 'base64' :n", [{"n": 3}], spark=spark)
    assert "invalid type 'Integer'" in _error_messages(typed)[0]


# -- extract-regex-groups --------------------------------------------------------------------------------------------
def _java_groups(jvm, regex: str, text: str) -> list[str | None]:
    matcher = jvm.java.util.regex.Pattern.compile(regex).matcher(text)
    found: list[str | None] = []
    while matcher.find():
        found += [matcher.group(i) for i in range(1, matcher.groupCount() + 1)]
    return found


REGEX_CASES = [
    ("(a)|(b)", ["a", "b", "ab", "c", ""]),
    ("(x?)(y)", ["y", "xy", "yy", ""]),
    ("<([a-z]+)>(.*)</\\1>", ["<b>bold</b>", "<i></i>", "<b>no</i>"]),
    ("(?<word>\\w+)(\\s*)", ["one two", "x"]),
    ("([0-9]{2})(?:-([0-9]{2}))?", ["12-34 56", "ab"]),
    ("(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)\\10", ["abcdefghijj", "abcdefghij"]),
    ("([ab])+", ["abab", "b"]),
]


@pytest.mark.parametrize(("regex", "texts"), REGEX_CASES, ids=[case[0] for case in REGEX_CASES])
def test_extract_regex_groups_matches_java_matcher(spark, jvm, regex: str, texts: list[str]) -> None:
    result = run_rows(f"extract-regex-groups :t '{regex}'", [{"t": text} for text in texts], spark=spark)
    assert result.columns[0] == "t"
    for row in result.rows:
        got = [row[name] for name in result.columns[1:]]
        expected = _java_groups(jvm, regex, row["t"])
        assert got[: len(expected)] == expected
        assert all(value is None for value in got[len(expected):])
    groups = jvm.java.util.regex.Pattern.compile(regex).matcher("").groupCount()
    assert len(result.columns) - 1 == groups * max(len(_java_groups(jvm, regex, t)) // groups for t in texts)


def test_extract_regex_groups_names_columns_by_match_and_group(spark) -> None:
    result = run_rows("extract-regex-groups :t '([a-z])([0-9])'", [{"t": "a1 b2"}, {"t": "c3"}], spark=spark)
    assert result.columns == ["t", "t_1_1", "t_1_2", "t_2_1", "t_2_2"]
    assert result.rows[1] == {"t": "c3", "t_1_1": "c", "t_1_2": "3", "t_2_1": None, "t_2_2": None}


def test_extract_regex_groups_skips_non_strings_missing_columns_and_bad_regexes(spark) -> None:
    from grammar.errors import RecipeError

    assert run_rows("extract-regex-groups :n '(1)'", [{"n": 1}], spark=spark).columns == ["n"]
    assert run_rows("extract-regex-groups :zz '(1)'", [{"n": 1}], spark=spark).columns == ["n"]
    with pytest.raises(RecipeError, match="Invalid regex"):
        run_rows("extract-regex-groups :n '(unclosed'", [{"n": "x"}], spark=spark)


def test_extract_regex_groups_declared_width_avoids_the_counting_pass(spark) -> None:
    result = run_rows("extract-regex-groups :t '([0-9])'", [{"t": "1 2 3"}], spark=spark, declared_widths={1: 2})
    assert result.columns == ["t", "t_1_1", "t_2_1"]


def test_mark_groups_appends_probes_without_renumbering() -> None:
    marked = mark_groups("(a)|(b)\\1", 2)
    assert marked is not None
    assert marked.regex.startswith("(?:(a)|(b)\\1)(?:(?=\\1)")
    assert marked.markers == ((3, 4), (5, 6))
    assert mark_groups("(?x)(a) # comment", 1) is None
    assert mark_groups("(a)\\Q)", 1) is None
    assert mark_groups("abc", 0) is None


# -- fill-null-or-empty ----------------------------------------------------------------------------------------------
def test_fill_null_or_empty_strings_missing_and_typed_columns(spark) -> None:
    rows = [{"s": "", "n": None, "m": None}, {"s": None, "n": 7, "m": 2}, {"s": "ok", "n": 1, "m": None}]
    result = run_rows("fill-null-or-empty :s 'N/A'\nfill-null-or-empty :n '0'\nfill-null-or-empty :m 'none'\n"
                      "fill-null-or-empty :added 'x'", rows, spark=spark)
    assert result.columns == ["s", "n", "m", "added"]
    assert [r["s"] for r in result.rows] == ["N/A", "N/A", "ok"]
    assert [r["n"] for r in result.rows] == [0, 7, 1]  # an int column filled with an int stays int
    assert [r["m"] for r in result.rows] == ["none", "2", "none"]  # otherwise the column becomes text
    assert {r["added"] for r in result.rows} == {"x"}


# -- find-and-replace ------------------------------------------------------------------------------------------------
def test_find_and_replace_global_first_case_and_groups(spark) -> None:
    row = {"a": "foo boo", "b": "foo boo", "c": "Foo", "d": "2024-01-02", "n": 5}
    recipe = "\n".join([
        "find-and-replace :a 's/o/0/g'",
        "find-and-replace :b 's/o/0/'",
        "find-and-replace :c 's/f/g/I'",
        "find-and-replace :d 's/([0-9]+)-([0-9]+)-([0-9]+)/\\3.\\2.\\1 (&)/'",
        "find-and-replace :n 's/5/6/g'",
    ])
    assert _one(spark, recipe, row) == {"a": "f00 b00", "b": "f0o boo", "c": "goo",
                                        "d": "02.01.2024 (2024-01-02)", "n": 5}


def test_find_and_replace_lists_columns_once_and_keeps_row_count(spark) -> None:
    result = run_rows("find-and-replace :a,:A,:b 's/x/y/g'", [{"a": "x", "b": "xx"}, {"a": None, "b": "z"}],
                      spark=spark)
    assert result.rows == [{"a": "y", "b": "yy"}, {"a": None, "b": "z"}]
    assert result.counts.rows_out == 2


def test_find_and_replace_first_match_is_leftmost_even_with_dollars(spark) -> None:
    assert _one(spark, "find-and-replace :a 's/b+/$/'", {"a": "abbcbb"})["a"] == "a$cbb"


# -- generate-uuid ---------------------------------------------------------------------------------------------------
def test_generate_uuid_appends_random_uuids_or_replaces(spark) -> None:
    result = run_rows("generate-uuid :id", [{"v": "a"}, {"v": "b"}, {"v": "c"}], spark=spark)
    assert result.columns == ["v", "id"]
    ids = [uuid.UUID(row["id"]) for row in result.rows]
    assert len(set(ids)) == 3 and all(i.version == 4 for i in ids)
    replaced = run_rows("generate-uuid :ID", [{"id": "old"}], spark=spark)
    assert replaced.columns == ["id"] and replaced.rows[0]["id"] != "old"


# -- hash ------------------------------------------------------------------------------------------------------------
NATIVE = ["MD5", "SHA", "SHA-1", "SHA-224", "SHA-256", "SHA-384", "SHA-512"]
VIA_PYTHON = ["SHA3-224", "SHA3-256", "SHA3-384", "SHA3-512", "SHA-512/224", "SHA-512/256", "BLAKE2B-256"]


def _java_padded_hex(digest: bytes) -> str:
    return format(int.from_bytes(digest, "big"), "064x")  # String.format("%064x", new BigInteger(1, digest))


@pytest.mark.parametrize("algorithm", NATIVE + [a for a in VIA_PYTHON if not a.startswith("BLAKE")])
def test_hash_matches_java_message_digest(spark, jvm, algorithm: str) -> None:
    texts = ["", "secret message.", "ünï", "x" * 1000, "abc"]
    rows = [{"h": t, "raw": t} for t in texts]
    result = run_rows(f"hash :h '{algorithm}' true\nhash :raw '{algorithm}'", rows, spark=spark)
    for row, text in zip(result.rows, texts, strict=True):
        digest = bytes(jvm.java.security.MessageDigest.getInstance(algorithm).digest(text.encode()))
        assert row["raw"] == digest
        assert row["h"] == _java_padded_hex(digest)


def test_hash_padding_keeps_at_least_64_hex_digits(spark) -> None:
    texts = [str(i) for i in range(40)]
    result = run_rows("hash :h 'SHA-512' true\nhash :m 'MD5' true", [{"h": t, "m": t} for t in texts], spark=spark)
    for row, text in zip(result.rows, texts, strict=True):
        assert row["h"] == _java_padded_hex(hashlib.sha512(text.encode()).digest())
        assert row["m"] == _java_padded_hex(hashlib.md5(text.encode()).digest())
        assert len(row["m"]) == 64
    assert any(len(row["h"]) < 128 for row in result.rows)  # a leading zero nibble is dropped, as in Java


def test_hash_blake2b_and_errors(spark) -> None:
    result = run_rows("hash :h 'BLAKE2B-160' true", [{"h": "abc"}, {"h": None}], spark=spark)
    assert result.rows == [{"h": _java_padded_hex(hashlib.blake2b(b"abc", digest_size=20).digest())}]
    assert _error_messages(result) == ["Column 'h' has null value. It should be a non-null 'String' or 'byte array'."]
    missing = run_rows("hash :zz 'MD5'", [{"h": "a"}], spark=spark)
    assert _error_messages(missing) == ["Column 'zz' does not exist."]
    with pytest.raises(UnsupportedDirectiveError, match="Tiger"):
        run_rows("hash :h 'Tiger'", [{"h": "a"}], spark=spark)


# -- indexsplit ------------------------------------------------------------------------------------------------------
def test_indexsplit_positions_clamping_and_errors(spark) -> None:
    rows = [{"a": "Hello"}, {"a": "Hi"}, {"a": ""}, {"a": None}]
    result = run_rows("indexsplit :a 2 4 :b", rows, spark=spark)
    assert [r["b"] for r in result.rows] == ["el", "i", ""]
    assert _error_messages(result) == ["Column 'a' has null value. It should be a non-null 'String'."]
    assert _error_messages(run_rows("indexsplit :zz 1 2 :b", [{"a": "x"}], spark=spark))[0].startswith("zz is not")


# -- trims and case --------------------------------------------------------------------------------------------------
def test_trims_strip_wranglers_unicode_whitespace_only(spark) -> None:
    spaces = "\t\n\u000b\f\r \u0085\u00a0\u1680\u180e\u2000\u2005\u200a\u2028\u2029\u202f\u205f\u3000"
    value = f"{spaces}a b\u200b{spaces}"  # U+200B (zero width space) is not in the list
    row = _one(spark, "trim :t\nltrim :l\nrtrim :r\ntrim :n", {"t": value, "l": value, "r": value, "n": 4})
    assert row["t"] == "a b\u200b"
    assert row["l"] == f"a b\u200b{spaces}"
    assert row["r"] == f"{spaces}a b\u200b"
    assert row["n"] == 4


def test_trims_agree_with_the_character_set_on_every_kind_of_end(spark) -> None:
    """Values whose ends are printable ASCII once plain spaces are stripped skip the full trim; every other kind
    of end takes it. Both must strip exactly Wrangler's characters: ends that are non-ASCII, control characters
    outside the set, whitespace on one side only, spaces in front of other whitespace, a single character, all
    whitespace, empty."""
    from directives.spark.compile.transform import _SPACE_CHARS

    values = ["abc", " abc", "abc ", "\tabc\n", "\u00e9t\u00e9", "\u00a0x\u3000", "\u0001x\u0001", "x", " ", "",
              "\u2003 \u2003", "~a~", "\u007fa\u007f", "\u0085a", "a\u200b", "  a  ", " \tabc", "abc\t ",
              " \u00a0x ", "  ", " a", "a ", "\u3000 a \u3000", " !x~ ", " \u007f ", " \u00e9 ", " \u200b "]
    rows = [{"t": v, "l": v, "r": v} for v in values]
    result = run_rows("trim :t\nltrim :l\nrtrim :r", rows, spark=spark)
    for value, row in zip(values, result.rows, strict=True):
        assert (row["t"], row["l"], row["r"]) == (
            value.strip(_SPACE_CHARS), value.lstrip(_SPACE_CHARS), value.rstrip(_SPACE_CHARS)), repr(value)


def test_case_directives_match_java(spark, jvm) -> None:
    texts = ["hELLO wORLD", "tab\tsep\nline", "  lead", "o'neil mc-donald", "ǆemal", "straße", "", "x"]
    rows = [{"l": t, "u": t, "t": t} for t in texts]
    result = run_rows("lowercase :l\nuppercase :u\ntitlecase :t", [*rows, {"l": None, "u": None, "t": None}],
                      spark=spark)
    words = jvm.org.apache.commons.lang3.text.WordUtils
    for row, text in zip(result.rows, texts, strict=False):
        assert row["l"] == jvm.org.apache.commons.lang3.StringUtils.lowerCase(text)
        assert row["u"] == jvm.org.apache.commons.lang3.StringUtils.upperCase(text)
        assert row["t"] == words.capitalizeFully(text)
    assert result.rows[-1] == {"l": None, "u": None, "t": None}


# -- url-encode / url-decode -------------------------------------------------------------------------------------------
def test_url_encode_decode_match_java(spark, jvm) -> None:
    texts = ["a b&c=d", "ünï/?#", "~*-._", "100%"]
    result = run_rows("url-encode :e\ncopy :e :d\nurl-decode :d", [{"e": t} for t in texts], spark=spark)
    for row, text in zip(result.rows, texts, strict=True):
        assert row["e"] == jvm.java.net.URLEncoder.encode(text, "UTF-8")
        assert row["d"] == text


def test_url_decode_errors(spark) -> None:
    result = run_rows("url-decode :u", [{"u": "%zz"}, {"u": None}, {"u": "a+b"}], spark=spark)
    assert result.rows == [{"u": "a b"}]
    assert _error_messages(result) == ["Column 'u' value '%zz' is not valid URL-encoded text.",
                                       "Column 'u' has null value. It should be a non-null 'String'."]
    assert _error_messages(run_rows("url-encode :zz", [{"u": "a"}], spark=spark)) == ["Column 'zz' does not exist."]


# -- mask-number / mask-shuffle --------------------------------------------------------------------------------------
def _mask_number_reference(value: str, mask: str) -> str:
    """The algorithm as the spec states it (independent of the Spark expression under test)."""
    out, index = [], 0
    for char in mask:
        if char == "#":
            if index < len(value):
                out.append(value[index])
                index += 1
        elif char in "xX":
            out.append("x")
            index += 1
        else:
            if index < len(value) and value[index] == char:
                index += 1
            out.append(char)
    return "".join(out)


@pytest.mark.parametrize(("value", "mask"), [("000-00-1234", "XXX-XX-####"), ("4929790943424701", "xxxxxxxxxxxx####"),
                                             ("12", "####-##"), ("abc", ""), ("", "x#"), ("1-2", "#-#-#")])
def test_mask_number_follows_the_mask(spark, value: str, mask: str) -> None:
    assert _one(spark, f"mask-number :v '{mask}'", {"v": value})["v"] == _mask_number_reference(value, mask)


_MASK_VALUES = ["000-00-1234", "000001234", "12-3", "-", "", "--", "4929-7909-4342-4701", "(555) 123-4567",
                "5551234567", "x-#", "ab\u00e9\u00e7-12", "1 2 3 4 5 6 7 8 9"]
_MASKS = ["xxx-xx-####", "XXX-XX-####", "####", "x#x#", "#-#-#", "--##", "(###) ###-####",
          "xxxx-xxxx-xxxx-####", "#.#.#.#.#.#", "-", "", "xx", "a#b#c#d#e#f"]


def test_mask_number_positional_and_regex_forms_both_follow_the_walk(spark) -> None:
    """Both compiled forms (substrings at computed positions; one regex) against the walk itself, on every
    pair of a value and a mask, including masks past the positional form's literal limit."""
    from pyspark.sql import functions as F

    from directives.spark.compile import masking

    df = spark.createDataFrame([(v,) for v in _MASK_VALUES], "v string")
    for mask in _MASKS:
        rows = df.select("v", masking.mask_number_positional(F.col("v"), mask).alias("p"),
                         masking.mask_number_regex(F.col("v"), mask).alias("r"),
                         masking.mask_number(F.col("v"), mask).alias("m")).collect()
        for row in rows:
            expected = _mask_number_reference(row["v"], mask)
            assert (row["p"], row["r"], row["m"]) == (expected, expected, expected), (row["v"], mask)
    assert sum(1 for c in "#.#.#.#.#.#" if c not in "#xX") > masking.MAX_POSITIONAL_LITERALS


def test_mask_number_nulls_missing_and_numbers(spark) -> None:
    result = run_rows("mask-number :v 'x#'\nmask-number :added '##'", [{"v": None}, {"v": 12}], spark=spark)
    assert result.rows == [{"v": None, "added": ""}, {"v": "x2", "added": ""}]


def _java_mask_shuffle(jvm, text: str) -> str:
    random = jvm.java.util.Random(0)
    out = []
    for char in text:
        lower = chr(jvm.java.lang.Character.toLowerCase(ord(char)))
        for letters in ("bcdfghjklmnpqrstvwxz", "aeiouy", "0123456789"):
            if lower in letters:
                picked = letters[random.nextInt(len(letters))]
                char = picked.upper() if lower != char else picked
                break
        out.append(char)
    return "".join(out)


def test_mask_shuffle_equals_java_random_zero(spark, jvm) -> None:
    texts = ["150 Mars Avenue, Marcity, Mares", "Ada Lovelace", "", "ÄÖü 42 YyZz", "x" * 300 + "0123456789" * 30,
             "\u212aelvin \u0130stanbul"]
    result = run_rows("mask-shuffle :m", [{"m": t} for t in texts] + [{"m": None}], spark=spark)
    assert [row["m"] for row in result.rows] == [_java_mask_shuffle(jvm, t) for t in texts] + [None]


def test_mask_shuffle_missing_column_and_wrong_type_fail(spark) -> None:
    assert _error_messages(run_rows("mask-shuffle :zz", [{"m": "a"}], spark=spark)) == ["Column 'zz' does not exist."]
    assert "invalid type 'Integer'" in _error_messages(run_rows("mask-shuffle :m", [{"m": 1}], spark=spark))[0]


# -- quantize --------------------------------------------------------------------------------------------------------
def test_quantize_closed_ranges_later_wins_and_errors(spark) -> None:
    recipe = "quantize :v :label 0:10='low',10:20='mid',15:30='high'"
    rows = [{"v": "0"}, {"v": "10"}, {"v": " 12.5 "}, {"v": "15"}, {"v": "31"}, {"v": "ten"}, {"v": None}]
    result = run_rows(recipe, rows, spark=spark)
    assert [r["label"] for r in result.rows] == ["low", "mid", "mid", "high", None]
    assert len(result.errors) == 2
    numbers = run_rows(recipe, [{"v": 5}, {"v": 16.0}], spark=spark)
    assert [r["label"] for r in numbers.rows] == ["low", "high"]
    missing = run_rows(recipe, [{"w": 1}], spark=spark)
    assert _error_messages(missing) == ["Column 'v' does not exist."]


def test_quantize_into_existing_destination_and_in_place(spark) -> None:
    row = _one(spark, "quantize :v :V 1:2='a'", {"v": "1.5"})
    assert row == {"v": "a"}


# -- split / split-email / split-url ---------------------------------------------------------------------------------
def test_split_first_match_of_a_regex(spark) -> None:
    rows = [{"a": "a b  c"}, {"a": " lead"}, {"a": "none"}, {"a": None}, {"a": "x1y22z"}]
    result = run_rows("split :a '\\s+' :first :rest", rows[:4], spark=spark)
    assert [(r["first"], r["rest"]) for r in result.rows] == [("a", "b  c"), ("lead", None), ("none", None),
                                                              (None, None)]
    digits = run_rows("split :a '[0-9]+' :first :rest", rows[4:], spark=spark)
    assert (digits.rows[0]["first"], digits.rows[0]["rest"]) == ("x", "y22z")
    assert _error_messages(run_rows("split :zz ',' :a :b", [{"a": "x"}], spark=spark))[0].startswith("zz is not")


def test_split_email_forms(spark) -> None:
    texts = ["root@hotmail@com", "root.hotmail.com", "", None, "Joltie, Root <joltie.root@yahoo.com>",
             "Name <no-close@x.com", "a>b<c@d"]
    result = run_rows("split-email :e", [{"e": t} for t in texts], spark=spark)
    pairs = [(r["e_account"], r["e_domain"]) for r in result.rows]
    assert pairs == [("root@hotmail", "com"), (None, None), (None, None), (None, None), ("joltie.root", "yahoo.com"),
                     (None, None), (None, None)]
    assert _error_messages(run_rows("split-email :zz", [{"e": "a@b"}], spark=spark)) == ["Column 'zz' does not exist."]


URLS = ["http://user@example.com:8080/a/b.html?x=1&y=2#frag", "https://cask.co", "https://cask.co/",
        "ftp://ftp.example.org/pub/file.txt", "http://[::1]:9000/p?q", "file:/tmp/x.txt", "http://h/p?"]


def test_split_url_parts_match_java_url(spark, jvm) -> None:
    result = run_rows("split-url :u", [{"u": u} for u in URLS], spark=spark)
    assert result.columns == ["u", "u_protocol", "u_authority", "u_host", "u_port", "u_path", "u_filename", "u_query"]
    for row, text in zip(result.rows, URLS, strict=True):
        url = jvm.java.net.URL(text)
        assert (row["u_protocol"], row["u_authority"], row["u_host"], row["u_port"], row["u_path"],
                row["u_filename"], row["u_query"]) == (url.getProtocol(), url.getAuthority(), url.getHost(),
                                                       url.getPort(), url.getPath(), url.getFile(), url.getQuery())


def test_split_url_malformed_and_null(spark) -> None:
    result = run_rows("split-url :u", [{"u": "not a url"}, {"u": "foo://x"}, {"u": None}], spark=spark)
    assert len(result.rows) == 1 and all(v is None for v in result.rows[0].values())
    assert _error_messages(result)[0] == "Malformed url 'not a url' found in column 'u'."
    assert len(result.errors) == 2


# -- text-distance / text-metric -------------------------------------------------------------------------------------
def test_textmetrics_reference_values() -> None:
    assert textmetrics.jaro("MARTHA", "MARHTA") == pytest.approx(0.9444444)
    assert textmetrics.jaro("DIXON", "DICKSONX") == pytest.approx(0.7666667)
    assert textmetrics.cosine("a b", "a c") == pytest.approx(0.5)
    assert textmetrics.jaccard("a b c", "b c d") == pytest.approx(0.5)
    assert textmetrics.dice("a b c", "b c d") == pytest.approx(2 / 3)
    assert textmetrics.overlap("a b", "a b c d") == pytest.approx(1.0)
    assert textmetrics.block_distance("a a b", "a c") == 3.0
    assert textmetrics.euclidean_distance("a a b", "a c") == pytest.approx(3 ** 0.5)
    assert textmetrics.levenshtein_distance("kitten", "sitting") == 3.0
    assert textmetrics.damerau_levenshtein_distance("ca", "ac") == 1.0
    assert textmetrics.lcs_distance("abcde", "ace") == 2.0
    assert textmetrics.substring_similarity("abcxyz", "xyzabc") == pytest.approx(0.5)
    assert textmetrics.simon_white("healed", "sealed") == pytest.approx(0.8)
    assert textmetrics.generalized_jaccard("a a b", "a b b") == pytest.approx(0.5)


METHODS = ["cosine", "euclidean", "block", "block-distance", "identity", "dice", "jaccard", "generalized-jaccard",
           "overlap-cofficient", "damerau-levenshtein", "jaro", "simon-white", "levenshtein",
           "longest-common-subsequence", "longest-common-substring"]


# Textbook dynamic programmes, the oracles for the linear and bit-parallel measures.
def _dp_edit(x: str, y: str, transpositions: bool) -> float:
    rows = [[i + j if i == 0 or j == 0 else 0 for j in range(len(y) + 1)] for i in range(len(x) + 1)]
    for i in range(1, len(x) + 1):
        for j in range(1, len(y) + 1):
            best = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + (x[i - 1] != y[j - 1]))
            if transpositions and i > 1 and j > 1 and x[i - 1] == y[j - 2] and x[i - 2] == y[j - 1]:
                best = min(best, rows[i - 2][j - 2] + 1)
            rows[i][j] = best
    return float(rows[len(x)][len(y)])


def _dp_lcs(x: str, y: str) -> int:
    rows = [[0] * (len(y) + 1) for _ in range(len(x) + 1)]
    for i in range(1, len(x) + 1):
        for j in range(1, len(y) + 1):
            rows[i][j] = rows[i - 1][j - 1] + 1 if x[i - 1] == y[j - 1] else max(rows[i - 1][j], rows[i][j - 1])
    return rows[len(x)][len(y)]


def _dp_substring(x: str, y: str) -> int:
    return max((k for i in range(len(x)) for j in range(len(y))
                for k in [next((n for n in range(min(len(x) - i, len(y) - j), 0, -1) if x[i:i + n] == y[j:j + n]),
                               0)]), default=0)


def _scan_jaro(x: str, y: str) -> float:
    """simmetrics' Jaro as written there: scan each window for the first free matching character."""
    if not x or not y:
        return 1.0 if x == y else 0.0
    window = max(max(len(x), len(y)) // 2 - 1, 0)
    x_flags, y_flags = [False] * len(x), [False] * len(y)
    for i, char in enumerate(x):
        for j in range(max(0, i - window), min(len(y), i + window + 1)):
            if not y_flags[j] and y[j] == char:
                x_flags[i] = y_flags[j] = True
                break
    matches = sum(x_flags)
    if not matches:
        return 0.0
    xs = [c for c, f in zip(x, x_flags, strict=True) if f]
    ys = [c for c, f in zip(y, y_flags, strict=True) if f]
    half = sum(1 for p, q in zip(xs, ys, strict=True) if p != q) / 2
    return (matches / len(x) + matches / len(y) + (matches - half) / matches) / 3.0


def test_fast_text_measures_equal_the_textbook_ones_on_random_text() -> None:
    import random

    generator = random.Random(21)
    for _ in range(600):
        alphabet = generator.choice(["ab", "abc", "abcdefgh", "aé😀 "])
        x = "".join(generator.choice(alphabet) for _ in range(generator.randint(0, 30)))
        y = "".join(generator.choice(alphabet) for _ in range(generator.randint(0, 30)))
        assert textmetrics.levenshtein_distance(x, y) == _dp_edit(x, y, False), (x, y)
        assert textmetrics.damerau_levenshtein_distance(x, y) == _dp_edit(x, y, True), (x, y)
        assert textmetrics.lcs_distance(x, y) == len(x) + len(y) - 2 * _dp_lcs(x, y), (x, y)
        assert textmetrics.substring_distance(x, y) == len(x) + len(y) - 2 * _dp_substring(x, y), (x, y)
        assert textmetrics.jaro(x, y) == pytest.approx(_scan_jaro(x, y)), (x, y)


def test_text_measures_of_long_values_finish_with_the_known_answer() -> None:
    """Values of 20,000 characters: the quadratic tables took minutes a pair and Damerau-Levenshtein's full
    table ran out of memory, which failed the whole job."""
    a, b = "a" * 20_000, "ab" * 10_000
    assert textmetrics.damerau_levenshtein_distance(a, a) == 0.0
    assert textmetrics.damerau_levenshtein_distance("ab" * 10_000, "ba" * 10_000) == 2.0  # drop one, add one
    assert textmetrics.levenshtein_distance(a, b) == 10_000.0
    assert textmetrics.lcs_distance(a, b) == 20_000.0  # 20,000 + 20,000 - 2 × the 10,000 a of b
    assert textmetrics.substring_similarity(a, b) == pytest.approx(1 / 20_000)
    assert textmetrics.jaro(a, a) == 1.0


@pytest.mark.parametrize("directive", ["text-distance", "text-metric"])
def test_text_measures_agree_with_the_reference(spark, directive: str) -> None:
    pairs = [("This is an example", "This is a test"), ("kitten", "sitting"), ("same", "same")]
    recipe = "\n".join(f"{directive} '{m}' :a :b :{m.replace('-', '_')}" for m in METHODS)
    result = run_rows(recipe, [{"a": a, "b": b} for a, b in pairs], spark=spark)
    for row, (a, b) in zip(result.rows, pairs, strict=True):
        for method in METHODS:
            block = "block-distance" if directive == "text-distance" else "block-metric"
            canonical = block if method == "block" else method
            expected = textmetrics.measure(canonical, directive == "text-distance")(a, b)
            assert row[method.replace("-", "_")] == pytest.approx(expected, abs=1e-6), method


def test_text_measures_zero_for_missing_null_empty_and_unknown_means_cosine(spark) -> None:
    rows = [{"a": "x y", "b": None}, {"a": "", "b": "x"}, {"a": "x y", "b": "y z"}]
    result = run_rows("text-metric 'nonsense' :a :b :s\ntext-distance 'levenshtein' :a :zz :d", rows, spark=spark)
    assert [r["s"] for r in result.rows] == [0.0, 0.0, pytest.approx(0.5)]
    assert [r["d"] for r in result.rows] == [0.0, 0.0, 0.0]


def test_text_levenshtein_runs_natively(spark) -> None:
    row = _one(spark, "text-distance 'levenshtein' :a :b :d\ntext-metric 'levenshtein' :a :b :m",
               {"a": "kitten", "b": "sitting"})
    assert row["d"] == 3.0 and row["m"] == pytest.approx(1 - 3 / 7)


def test_only_measures_and_digests_without_a_builtin_use_a_python_udf(spark) -> None:
    from directives.spark.runtime.runner import rows_to_dataframe, run

    df = rows_to_dataframe(spark, [{"a": "x", "b": "y"}])
    native = run(df, "text-metric 'levenshtein' :a :b :m\ntext-distance 'identity' :a :b :i\nhash :a 'SHA-256'")
    assert native.context.udf_directives == []
    python = run(df, "text-metric 'jaro' :a :b :m\nhash :b 'SHA3-256'")
    assert python.context.udf_directives == ["text-metric", "hash"]
