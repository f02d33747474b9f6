"""`string:` (commons-lang 2.6 StringUtils), `strings:` (Guava) and `escape:` (commons-lang3 StringEscapeUtils) on
real Spark; the expected values follow each method's code and Javadoc examples (named in each case).
"""

from __future__ import annotations

from typing import Any

import pytest
from pyspark.sql import SparkSession

from directives.spark.runtime.runner import run_rows

pytestmark = pytest.mark.spark


def check(spark: SparkSession, cases: dict[str, Any], row: dict[str, Any] | None = None) -> None:
    names = {f"c{i}": expression for i, expression in enumerate(cases)}
    recipe = "\n".join(f"set-column :{name} exp:{{{expression}}}" for name, expression in names.items())
    result = run_rows(recipe, [row or {"x": 1}], spark=spark)
    assert not result.errors, result.errors
    got = {names[name]: result.rows[0][name] for name in names}
    assert got == cases


def test_string_utils_cutting_and_padding(spark: SparkSession) -> None:
    check(spark, {
        "string:abbreviate('abcdefg', 6)": "abc...",  # substring(0, maxWidth - 3) + "..."
        "string:abbreviate('abcdefg', 7)": "abcdefg",
        "string:abbreviate('abcdefghijklmno', 5, 10)": "...fghi...",  # Javadoc example
        "string:abbreviate('abcdefghijklmno', 12, 10)": "...ijklmno",
        "string:abbreviateMiddle('abcdef', '.', 4)": "ab.f",
        "string:center('ab', 6, 'x')": "xxabxx",
        "string:center('abc', 6)": " abc  ",  # left gets pads / 2
        "string:overlay('abcdef', 'zzzz', 4, 2)": "abzzzzef",  # start and end swapped
        "string:overlayString('abcdef', 'zz', 2, 4)": "abzzef",
        "string:repeat('a', ',', 3)": "a,a,a",
        "string:difference('abcde', 'abxyz')": "xyz",
        "string:indexOfDifference('abcde', 'abxyz')": 2,
        "string:getCommonPrefix(['abcde', 'abxyz'])": "ab",
        "string:getLevenshteinDistance('kitten', 'sitting')": 3,
        "string:substringBetween('yabczyabcz', 'y', 'z')": "abc",
        "string:substringBetween('tagabctag', 'tag')": "abc",
        "string:getNestedString('<a>', '<', '>')": "a",
        "string:join(string:substringsBetween('[a][b][c]', '[', ']'), '-')": "a-b-c",
    })


def test_string_utils_searching(spark: SparkSession) -> None:
    check(spark, {
        "string:containsAny('zzabyycdxx', 'za')": True,
        "string:containsNone('abab', 'xyz')": True,
        "string:containsOnly('abab', 'abc')": True,
        "string:containsOnly('ab1', 'abc')": False,
        "string:indexOfAny('zzabyycdxx', 'by')": 3,
        "string:indexOfAny('zzabyycdxx', ['cd', 'yy'])": 4,
        "string:lastIndexOfAny('zzabyycdxx', ['ab', 'cd'])": 6,
        "string:indexOfAnyBut('zzabyycdxx', 'za')": 3,
        "string:indexOfIgnoreCase('aabaabaa', 'B')": 2,
        "string:indexOfIgnoreCase('aabaabaa', 'B', 3)": 5,
        "string:lastIndexOfIgnoreCase('aabaabaa', 'B')": 5,
        "string:ordinalIndexOf('aabaabaa', 'b', 2)": 5,
        "string:ordinalIndexOf('aabaabaa', 'b', 3)": -1,
        "string:lastOrdinalIndexOf('aabaabaa', 'a', 2)": 6,
        "string:indexOf('aabaabaa', 'b', 3)": 5,
        "string:lastIndexOf('aabaabaa', 'b', 4)": 2,
        "string:startsWithAny('abcxyz', ['xyz', 'abc'])": True,
        "string:endsWithAny('abcxyz', ['xyz', 'abc'])": True,
        "string:isAlphaSpace('ab c')": True,
        "string:isNumericSpace('12 3')": True,
        "string:isAlphanumericSpace('ab 2')": True,
        "string:isWhitespace('  ')": True,
        "string:isAsciiPrintable('ab\u00e9')": False,
    })


def test_string_utils_splitting_joining_and_replacing(spark: SparkSession) -> None:
    check(spark, {
        "string:join(string:split('a  b c'), '|')": "a|b|c",  # whitespace, adjacent separators merged
        "string:join(string:split('a.b..c', '.'), '|')": "a|b|c",
        "string:join(string:split('ab:cd:ef', ':', 2), '|')": "ab|cd:ef",  # max: the rest in the last token
        "string:join(string:splitPreserveAllTokens('a..b', '.'), '|')": "a||b",
        "string:join(string:splitByWholeSeparator('ab-!-cd-!--!-ef', '-!-'), '|')": "ab|cd|ef",
        "string:join(string:splitByWholeSeparatorPreserveAllTokens('ab-!-cd-!--!-ef', '-!-'), '|')": "ab|cd||ef",
        "string:join(string:splitByCharacterType('ab de fg'), '|')": "ab| |de| |fg",
        "string:join(string:splitByCharacterType('number5'), '|')": "number|5",
        "string:join(string:splitByCharacterTypeCamelCase('ASFRules'), '|')": "ASF|Rules",
        "string:join(string:splitByCharacterTypeCamelCase('fooBar'), '|')": "foo|Bar",
        "string:join(['a', 'b', 'c'], ';', 1, 3)": "b;c",
        "string:concatenate(['a', 'b'])": "ab",
        "string:replace('aba', 'a', 'z', 1)": "zba",
        "string:replace('aba', 'a', 'z', -1)": "zbz",
        "string:replaceOnce('aba', 'a', '')": "ba",
        "string:replaceChars('abcba', 'bc', 'y')": "ayya",  # c has no replacement: deleted
        "string:replaceEach('abcde', ['ab', 'd'], ['w', 't'])": "wcte",
        "string:replaceEach('abcde', ['ab', 'd'], ['d', 't'])": "dcte",  # one pass: 'd' from ab is not re-read
        "string:replaceEachRepeatedly('abcde', ['ab', 'd'], ['d', 't'])": "tcte",
        "string:reverseDelimited('a.b.c', '.')": "c.b.a",
        "string:removeStart('www.domain.com', 'www.')": "domain.com",
        "string:removeEndIgnoreCase('www.domain.COM', '.com')": "www.domain",
        "string:chomp('foobar', 'bar')": "foo",
        "string:chompLast(nl)": "foo",
        "string:getChomp('foo.bar', '.')": ".bar",
        "string:getPrechomp('foo.bar', '.')": "foo.",
        "string:prechomp('foo.bar', '.')": "bar",
        "string:strip('xxabcyx', 'xy')": "abc",
        "string:stripStart('yxabc  ', 'xyz')": "abc  ",
        "string:stripEnd('  abcyx', 'xyz')": "  abc",
        "string:join(string:stripAll(['  a ', 'b ']), '|')": "a|b",
        "string:deleteSpaces('a b c')": "abc",
        "string:capitaliseAllWords('i am fine')": "I Am Fine",
        "string:capitalise('cat')": "Cat",
        "string:deleteSpaces(tabbed)": "abc",
        "string:upperCase('abc', 'en')": "ABC",
    }, {"nl": "foo\n", "tabbed": "a\tb\nc"})


def test_string_utils_null_rules(spark: SparkSession) -> None:
    row = {"n": None}
    recipe = ("set-column :a exp:{string:clean(n)}\nset-column :b exp:{string:stripToNull('  ')}\n"
              "set-column :c exp:{string:containsNone(n, 'a')}\nset-column :d exp:{string:indexOfAny(n, 'a')}")
    result = run_rows(recipe, [row], spark=spark)
    assert [result.rows[0][k] for k in "abcd"] == ["", None, True, -1]
    failed = run_rows("set-column :a exp:{string:getLevenshteinDistance(n, 'a')}", [row], spark=spark)
    assert failed.rows == [] and "must not be null" in failed.errors[0]["message"]


def test_guava_strings(spark: SparkSession) -> None:
    check(spark, {
        "strings:commonPrefix('abcdef', 'abxyz')": "ab",
        "strings:commonSuffix('xyzabc', 'defabc')": "abc",
        "strings:lenientFormat('%s is %s', 'a')": "a is %s",
        "strings:lenientFormat('%s', 'a', 'b', 1)": "a [b, 1]",
    })


def test_string_escape_utils(spark: SparkSession) -> None:
    check(spark, {
        "escape:escapeJava(quoted)": 'He said \\"hi\\"\\n\\u00E9',
        "escape:unescapeJava('a\\\\nb\\\\u00e9')": "a\nb\u00e9",
        "escape:escapeJson('a/b\"')": 'a\\/b\\"',
        "escape:escapeEcmaScript('it''s')".replace("''", "\\'"): "it\\'s",
        "escape:escapeHtml4('<b>\u00e9 & \u03b1</b>')": "&lt;b&gt;&eacute; &amp; &alpha;&lt;/b&gt;",
        "escape:escapeHtml3('\u00e9\u03b1')": "&eacute;\u03b1",  # alpha is not an HTML 3 entity
        "escape:unescapeHtml4('&lt;&eacute;&#65;&#x42;&alpha;&bogus;')": "<\u00e9AB\u03b1&bogus;",
        "escape:escapeXml('<a href=\"x\">''</a>')".replace("''", "\\'"): "&lt;a href=&quot;x&quot;&gt;&apos;&lt;/a&gt;",
        "escape:unescapeXml('&lt;&apos;&#33;')": "<'!",
        "escape:escapeCsv('a,b\"c')": '"a,b""c"',
        "escape:escapeCsv('abc')": "abc",
        "escape:unescapeCsv('\"a,b\"\"c\"')": 'a,b"c',
        "string:escape(tab)": "\\t",
    }, {"quoted": 'He said "hi"\n\u00e9', "tab": "\t"})


def test_one_pass_rewrites_keep_the_values_on_long_and_odd_texts(spark: SparkSession) -> None:
    """The common prefix (commonPrefix, commonSuffix, indexOfDifference, difference), indexOfAnyBut and
    capitaliseAllWords now read each text once (they took seconds on ten thousand characters); the values are
    StringUtils' and Guava's, also at the edges: empty texts, one text a prefix of the other, tabs, a code point
    outside the BMP."""
    long = "x" * 10_000
    check(spark, {
        "strings:commonPrefix(long, long)": long,
        "strings:commonPrefix(long, 'xxy')": "xx",
        "strings:commonPrefix('', 'abc')": "",
        "strings:commonPrefix('ab', 'abc')": "ab",
        "strings:commonSuffix(long, 'yxx')": "xx",
        "strings:commonSuffix('a😀', 'b😀')": "😀",
        "string:indexOfDifference(long, long)": -1,
        "string:indexOfDifference('abc', 'abcd')": 3,  # Javadoc: indexOfDifference("abc", "abcd") = 3
        "string:indexOfDifference('', 'abc')": 0,
        "string:difference('abc', 'abxyz')": "xyz",
        "string:getLevenshteinDistance(long, long)": 0,
        "string:getLevenshteinDistance('', 'abc')": 3,
        "string:indexOfAnyBut(long, 'x')": -1,
        "string:indexOfAnyBut('', 'x')": -1,
        "string:indexOfAnyBut('aba', 'a')": 1,
        "string:capitaliseAllWords('  a\tb c')": "  A\tB C",
        "string:capitaliseAllWords('')": "",
        "string:capitaliseAllWords(long)": "X" + long[1:],
    }, {"long": long})
