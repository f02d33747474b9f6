"""The external family on real Spark: charset decoding and Porter stemming (lookups and invoke-http have their
own tests: test_lookups.py, test_invoke_http.py)."""

from __future__ import annotations

import pytest
from pyspark.sql import SparkSession

from directives.spark.compile.external import PorterStemmer, java_split_words, porter_stems
from directives.spark.compilers import PYTHON_UDFS
from directives.spark.runtime.runner import run_rows
from grammar.errors import DirectiveArgumentError

pytestmark = pytest.mark.spark


# -- Porter stemming (pure Python) -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("word", "stem"),
    [
        # examples from Porter's 1980 paper, step by step
        ("caresses", "caress"), ("ponies", "poni"), ("ties", "ti"), ("caress", "caress"), ("cats", "cat"),
        ("feed", "feed"), ("agreed", "agre"), ("plastered", "plaster"), ("bled", "bled"), ("motoring", "motor"),
        ("sing", "sing"), ("conflated", "conflat"), ("troubled", "troubl"), ("sized", "size"), ("hopping", "hop"),
        ("tanned", "tan"), ("falling", "fall"), ("hissing", "hiss"), ("fizzed", "fizz"), ("failing", "fail"),
        ("filing", "file"), ("happy", "happi"), ("sky", "sky"), ("relational", "relat"),
        ("conditional", "condit"), ("rational", "ration"), ("digitizer", "digit"), ("vietnamization", "vietnam"),
        ("predication", "predic"), ("operator", "oper"), ("feudalism", "feudal"), ("decisiveness", "decis"),
        ("hopefulness", "hope"), ("callousness", "callous"), ("formaliti", "formal"), ("sensitiviti", "sensit"),
        ("sensibiliti", "sensibl"), ("triplicate", "triplic"), ("formative", "form"), ("formalize", "formal"),
        ("electriciti", "electr"), ("electrical", "electr"), ("hopeful", "hope"), ("goodness", "good"),
        ("revival", "reviv"), ("allowance", "allow"), ("inference", "infer"), ("airliner", "airlin"),
        ("adjustable", "adjust"), ("defensible", "defens"), ("irritant", "irrit"), ("replacement", "replac"),
        ("adjustment", "adjust"), ("dependent", "depend"), ("adoption", "adopt"), ("communism", "commun"),
        ("activate", "activ"), ("homologous", "homolog"), ("effective", "effect"), ("bowdlerize", "bowdler"),
        ("probate", "probat"), ("rate", "rate"), ("cease", "ceas"), ("controll", "control"), ("roll", "roll"),
        ("generalizations", "gener"), ("oscillators", "oscil"),
        # one- and two-letter words are left alone, as in the reference implementation
        ("is", "is"), ("a", "a"), ("", ""),
    ],
)
def test_porter_stems(word: str, stem: str) -> None:
    assert PorterStemmer().stem(word) == stem


def test_words_split_as_javas_backslash_w() -> None:
    assert java_split_words("how are you doing ? do") == ["how", "are", "you", "doing", "do"]
    assert java_split_words("  leading, trailing!! ") == ["", "leading", "trailing"]
    assert java_split_words("é_x1") == ["", "_x1"]  # \W is ASCII-only in Java
    assert porter_stems("Running DOGS") == ["run", "dog"]
    assert porter_stems(["cats", None]) == ["cat", None]
    assert porter_stems(None) == []


# -- stemming on Spark ------------------------------------------------------------------------------------------------
def test_stemming_adds_a_list_column(spark: SparkSession) -> None:
    rows = [{"t": "how are you doing ? do you have apples", "w": ["ponies", "relational"]}, {"t": None, "w": None}]
    result = run_rows("stemming :t\nstemming :W", rows, spark=spark)
    assert result.columns == ["t", "w", "t_porter", "w_porter"]
    assert result.rows[0]["t_porter"] == ["how", "ar", "you", "do", "do", "you", "have", "appl"]
    assert result.rows[0]["w_porter"] == ["poni", "relat"]
    assert (result.rows[1]["t_porter"], result.rows[1]["w_porter"]) == ([], [])
    assert "stemming" in PYTHON_UDFS


def test_stemming_a_missing_column_adds_an_empty_list(spark: SparkSession) -> None:
    result = run_rows("stemming :nope", [{"a": 1}], spark=spark)
    assert result.rows == [{"a": 1, "nope_porter": []}]


def test_stemming_other_types_are_error_rows(spark: SparkSession) -> None:
    result = run_rows("stemming :n", [{"n": 7}, {"n": None}], spark=spark)
    assert result.rows == [{"n": None, "n_porter": []}]
    (error,) = result.errors
    assert error["row"] == {"n": 7} and "int value, not text or a list of words" in error["message"]


# -- set-charset ------------------------------------------------------------------------------------------------------
def test_set_charset_decodes_bytes(spark: SparkSession) -> None:
    rows = [{"u16": "héllo".encode("utf-16-le"), "latin": "café".encode("latin-1"), "text": "as is"}]
    recipe = "set-charset :u16 'UTF-16LE'\nset-charset :latin 'iso-8859-1'\nset-charset :text 'utf-8'"
    result = run_rows(recipe, rows, spark=spark)
    assert result.rows == [{"u16": "héllo", "latin": "café", "text": "as is"}]


def test_set_charset_of_malformed_bytes_replaces_as_java_does_instead_of_failing_the_job(
        spark: SparkSession) -> None:
    """Spark's `decode` throws on bytes that are not valid in the character set ([MALFORMED_CHARACTER_CODING]),
    which failed the whole job for one value; Wrangler's `Charset.decode` puts U+FFFD in their place. The
    expected text is Java's own decoding of the same bytes."""
    import random

    jvm = spark._jvm
    generator = random.Random(21)
    crafted = [b"", b"\xff", b"\x00", b"\xd8\x00", b"\x00\xd8", b"\xd8\x00\x00\x41", b"\xdc\x00\xd8\x00\xdc\x00",
               b"\xfe\xff\x00\x41", b"\xff\xfe\x41\x00\x00", b"\x00\x00\xfe\xff\x00\x01\xf6\x00",
               b"\xff\xfe\x00\x00\x41\x00\x00\x00", b"\x00\x11\x00\x00", b"\x00\x00\xd8\x00\x00",
               "héllo 😀".encode("utf-16-le"), "héllo 😀".encode("utf-32")]
    samples = crafted + [bytes(generator.randrange(256) for _ in range(generator.randint(0, 12))) for _ in range(40)]
    for charset in ("UTF-8", "US-ASCII", "UTF-16", "UTF-16BE", "UTF-16LE", "UTF-32", "ISO-8859-1"):
        result = run_rows(f"set-charset :b '{charset}'", [{"b": sample} for sample in samples], spark=spark)
        java = jvm.java.nio.charset.Charset.forName(charset)
        expected = [java.decode(jvm.java.nio.ByteBuffer.wrap(bytearray(sample))).toString() for sample in samples]
        assert [row["b"] for row in result.rows] == expected, charset


def test_set_charset_errors(spark: SparkSession) -> None:
    result = run_rows("set-charset :n 'utf-8'", [{"n": 1}], spark=spark)
    assert result.rows == [] and "int value, not bytes" in result.errors[0]["message"]
    with pytest.raises(DirectiveArgumentError, match="Spark cannot decode") as caught:
        run_rows("set-charset :b 'cp1252'", [{"b": b"x"}], spark=spark)
    assert caught.value.column == len("set-charset :b ") + 1
