"""Regenerate `directives/expression_catalogue.py`: every function Wrangler's JEXL engine can call.

Wrangler builds its JEXL engine with `new JexlBuilder().namespaces(registration.functions())`
(`wrangler-core/.../expression/EL.java`, `EL.DefaultFunctions`): each namespace is a Java class whose
public static methods are the functions (`math:max(a, b)` is `java.lang.Math.max`), and the `null`
namespace (`Global`) gives the bare ones (`concat(a, b)`). This script reads those classes where they
are: Wrangler's own from its source (the mirror), the libraries' from their jars through `javap`
(the versions Wrangler's pom names where the jar is at hand, the JDK's `Math` and `Arrays` from the
JDK that runs `javap`), and CDAP's `Bytes` from the table below (read from cdap-api-common's source).

    python scripts/gen_expression_catalogue.py [--wrangler /work/.mirror/data-integrations+wrangler/repo]
                                               [--jars DIR] [--check]

`--check` exits 1 when the checked-in module differs from what would be generated.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "directives" / "expression_catalogue.py"
DEFAULT_MIRROR = Path("/work/.mirror/data-integrations+wrangler/repo")

#: EL.DefaultFunctions, namespace → Java class (Wrangler-own classes by their source path in the mirror).
WRANGLER_CLASSES = {
    None: "wrangler-core/src/main/java/io/cdap/functions/Global.java",
    "datetime": "wrangler-core/src/main/java/io/cdap/functions/DateAndTime.java",
    "date": "wrangler-core/src/main/java/io/cdap/functions/Dates.java",
    "json": "wrangler-core/src/main/java/io/cdap/functions/JsonFunctions.java",
    "decimal": "wrangler-core/src/main/java/io/cdap/wrangler/utils/DecimalTransform.java",
    "arithmetic": "wrangler-core/src/main/java/io/cdap/wrangler/utils/ArithmeticOperations.java",
    "dq": "wrangler-core/src/main/java/io/cdap/functions/DataQuality.java",
    "ddl": "wrangler-core/src/main/java/io/cdap/functions/DDL.java",
    "geo": "wrangler-core/src/main/java/io/cdap/functions/GeoFences.java",
    "number": "wrangler-core/src/main/java/io/cdap/functions/NumberFunctions.java",
    "logical": "wrangler-core/src/main/java/io/cdap/functions/Logical.java",
}
#: Library classes, namespace → (class, jar file pattern or None for the JDK).
LIBRARY_CLASSES = {
    "math": ("java.lang.Math", None),
    "string": ("org.apache.commons.lang.StringUtils", "commons-lang-2.6.jar"),
    "strings": ("com.google.common.base.Strings", "guava-*.jar"),
    "escape": ("org.apache.commons.lang3.StringEscapeUtils", "commons-lang3-*.jar"),
    "arrays": ("java.util.Arrays", None),
}
#: io.cdap.cdap.api.common.Bytes (cdap-api-common 6.10): its public static methods and their argument counts.
BYTES = {
    "putBytes": (5,), "putByte": (3,), "toBytes": (1,), "toString": (1, 2, 3), "toStringBinary": (1, 3),
    "toHexString": (1,), "fromHexString": (1,), "toBinaryFromHex": (1,), "toBytesBinary": (1,), "toBoolean": (1,),
    "toLong": (1, 2, 3), "putLong": (3,), "toFloat": (1, 2), "putFloat": (3,), "toDouble": (1, 2), "putDouble": (3,),
    "toInt": (1, 2, 3), "putInt": (3,), "toShort": (1, 2, 3), "getBytes": (1,), "putShort": (3,), "toUUID": (1,),
    "toBigDecimal": (1, 3), "putBigDecimal": (3,), "compareTo": (2, 6), "equals": (2, 6), "startsWith": (2,),
    "hashCode": (1, 2, 3), "hashBytes": (2, 3), "mapKey": (1, 2), "add": (2, 3), "head": (2,), "tail": (2,),
    "padHead": (2,), "padTail": (2,), "split": (3, 4), "iterateOnSplits": (3, 4), "toByteArrays": (1,),
    "incrementBytes": (2,), "writeStringFixedSize": (3,), "stopKeyForPrefix": (1,),
}
BYTES_VARARGS = {"concat": 0}  # name → fixed arguments before the varargs

_JAVA_METHOD = re.compile(
    r"public\s+static\s+(?:final\s+)?(?:synchronized\s+)?(?:<[^>]*(?:<[^>]*>[^>]*)*>\s+)?[\w.$<>\[\], ?]+?\s+"
    r"(\w+)\s*\(([^)]*)\)", re.S)
_JAVAP_METHOD = re.compile(r"public\s+static\s+(?:final\s+)?(?:synchronized\s+)?(?:native\s+)?(?:<.*?>\s+)?"
                           r"[\w.$<>\[\], ?]+?\s+(\w+)\((.*)\);")

Arity = tuple[int, int | None]


def _strip_generics(text: str) -> str:
    out, depth = [], 0
    for char in text:
        if char == "<":
            depth += 1
        elif char == ">":
            depth -= 1
        elif depth == 0:
            out.append(char)
    return "".join(out)


def _arity(params: str) -> Arity:
    params = re.sub(r"@\w+(?:\([^)]*\))?", "", _strip_generics(params)).strip()
    if not params:
        return (0, 0)
    count = len(params.split(","))
    if "..." in params:
        return (count - 1, None)
    return (count, count)


def _add(table: dict[str, set[Arity]], name: str, arity: Arity) -> None:
    table.setdefault(name, set()).add(arity)


def from_source(text: str) -> dict[str, set[Arity]]:
    text = re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)
    table: dict[str, set[Arity]] = {}
    for match in _JAVA_METHOD.finditer(text):
        _add(table, match.group(1), _arity(match.group(2)))
    return table


def from_javap(class_name: str, jar: Path | None) -> dict[str, set[Arity]]:
    command = ["javap", "-public", *(["-cp", str(jar)] if jar else []), class_name]
    listing = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    table: dict[str, set[Arity]] = {}
    for line in listing.splitlines():
        match = _JAVAP_METHOD.search(line)
        if match and "(" not in match.group(1):
            _add(table, match.group(1), _arity(match.group(2)))
    return table


def _find_jar(jars: Path, pattern: str) -> Path:
    found = sorted(jars.glob(pattern))
    if not found:
        raise SystemExit(f"no {pattern} under {jars}")
    return found[0]


def catalogue(mirror: Path, jars: Path) -> dict[str | None, dict[str, set[Arity]]]:
    result: dict[str | None, dict[str, set[Arity]]] = {}
    for namespace, path in WRANGLER_CLASSES.items():
        source = subprocess.run(["git", "-C", str(mirror), "show", f"HEAD:{path}"], capture_output=True, text=True,
                                check=True).stdout
        result[namespace] = from_source(source)
    for namespace, (class_name, jar_pattern) in LIBRARY_CLASSES.items():
        result[namespace] = from_javap(class_name, _find_jar(jars, jar_pattern) if jar_pattern else None)
    bytes_table: dict[str, set[Arity]] = {name: {(n, n) for n in counts} for name, counts in BYTES.items()}
    for name, fixed in BYTES_VARARGS.items():
        bytes_table[name] = {(fixed, None)}
    result["bytes"] = bytes_table
    return result


CLASSES = {
    None: "io.cdap.functions.Global", "datetime": "io.cdap.functions.DateAndTime", "date": "io.cdap.functions.Dates",
    "json": "io.cdap.functions.JsonFunctions", "decimal": "io.cdap.wrangler.utils.DecimalTransform",
    "arithmetic": "io.cdap.wrangler.utils.ArithmeticOperations", "dq": "io.cdap.functions.DataQuality",
    "ddl": "io.cdap.functions.DDL", "geo": "io.cdap.functions.GeoFences", "number": "io.cdap.functions.NumberFunctions",
    "logical": "io.cdap.functions.Logical", "math": "java.lang.Math",
    "string": "org.apache.commons.lang.StringUtils (commons-lang 2.6)",
    "strings": "com.google.common.base.Strings (Guava)", "escape": "org.apache.commons.lang3.StringEscapeUtils",
    "bytes": "io.cdap.cdap.api.common.Bytes", "arrays": "java.util.Arrays",
}


def render(table: dict[str | None, dict[str, set[Arity]]]) -> str:
    lines = [
        '"""Every function Wrangler\'s JEXL engine can call in `exp:{…}`: namespaces, names, argument counts.',
        "",
        "Generated by `scripts/gen_expression_catalogue.py` from Wrangler's `EL.DefaultFunctions` and the classes",
        "it registers; regenerate instead of editing. The one source of which functions exist and how many",
        "arguments they take, for `wrangler check` (no Spark) and for the Spark expression compiler.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "Arity = tuple[int, int | None]",
        '"""(least, most) arguments of one Java overload; most is None for varargs."""',
        "",
        "#: Namespace (None: bare functions) → the Java class Wrangler registers under it.",
        "NAMESPACES: dict[str | None, str] = {",
    ]
    order = sorted(table, key=lambda ns: (ns is not None, ns or ""))
    for namespace in order:
        lines.append(f"    {namespace!r}: {CLASSES[namespace]!r},")
    lines += ["}", "", "#: Namespace → function name → the arities of its overloads.",
              "FUNCTIONS: dict[str | None, dict[str, tuple[Arity, ...]]] = {"]
    for namespace in order:
        lines.append(f"    {namespace!r}: {{")
        for name in sorted(table[namespace]):
            arities = tuple(sorted(table[namespace][name], key=lambda a: (a[0], a[1] if a[1] is not None else 1 << 30)))
            lines.append(f"        {name!r}: {arities!r},")
        lines.append("    },")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wrangler", type=Path, default=DEFAULT_MIRROR, help="Wrangler's git directory")
    parser.add_argument("--jars", type=Path, default=None, help="directory with commons-lang, guava, commons-lang3")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    jars = args.jars or next(Path(sys.prefix).glob("lib/python3*/site-packages/pyspark/jars"))
    text = render(catalogue(args.wrangler, jars))
    if args.check:
        return 0 if OUTPUT.read_text() == text else 1
    OUTPUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
