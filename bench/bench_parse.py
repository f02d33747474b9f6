"""Parse and label a generated 10,000-directive recipe; print directives per second (target ≥ 50,000/s).

Baseline in the same process: the Lark grammar alone building its tree for the same text, so the
ratio says what the fast line reader, binding and labelling cost or save against plain Lark.

    python -m bench.bench_parse [--directives 10000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import random
import statistics
from collections.abc import Callable

import directives
from bench.timing import time_runs
from grammar.parser import get_parser, parse_recipe

#: A realistic mix: what data engineers' recipes are made of (columns family, transforms, parsers, filters).
TEMPLATES = (
    "rename :{a} :{new}",
    "drop :{a}",
    "set-type :{a} int",
    "copy :{a} :{new}",
    "merge :{a} :{b} :{new} ','",
    "swap :{a} :{b}",
    "trim :{a}",
    "uppercase :{a}",
    "fill-null-or-empty :{a} 'n/a'",
    "set-column :{new} exp:{{ {a} * 2 + {b} }}",
    "filter-row exp:{{ {a} == 'x' }} true",
    "mask-number :{a} 'xxx-##'",
    "hash :{a} 'SHA-256' true",
    "split-to-columns :{a} ','",
    "parse-as-csv :{a} ',' false",
    "send-to-error exp:{{ {a} == null }}",
    "keep :{a},:{b},:{new}",
    "cut-character :{a} :{new} '1-3'",
)


def generate(count: int, columns: int, seed: int = 7) -> tuple[str, list[str]]:
    """A recipe that stays valid against its schema: every directive reads columns that exist then."""
    rnd = random.Random(seed)
    schema = [f"col_{i}" for i in range(columns)]
    live = list(schema)
    lines: list[str] = []
    fresh = 0
    available = {t.split(" ")[0] for t in TEMPLATES} & set(directives.REGISTRY)
    templates = [t for t in TEMPLATES if t.split(" ")[0] in available and not t.startswith("keep")]
    while len(lines) < count:
        template = rnd.choice(templates)
        a, b = rnd.sample(live, 2)
        new = f"new_{fresh}"
        fresh += 1
        lines.append(template.format(a=a, b=b, new=new))
        name = template.split(" ")[0]
        if name == "rename":
            live[live.index(a)] = new
        elif name == "drop" and len(live) > 10:
            live.remove(a)
        elif name in ("copy", "merge", "set-column", "cut-character"):
            live.append(new)
    return "\n".join(lines), schema


def best_rate(count: int, repeat: int, work: Callable[[], object]) -> tuple[float, float, float]:
    """Best wall-clock rate, median wall seconds, and best CPU-time rate (the machine may be shared)."""
    timings, cpu = time_runs(repeat, work)
    return count / min(timings), statistics.median(timings), count / max(min(cpu), 1e-9)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--directives", type=int, default=10_000)
    parser.add_argument("--columns", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    text, schema = generate(args.directives, args.columns)
    count = args.directives
    lark = get_parser()
    lark.parse(text)  # build and warm
    rows = [
        ("baseline: Lark tree only", *best_rate(count, args.repeat, lambda: lark.parse(text))),
        ("syntax (fast reader + Lark)", *best_rate(count, args.repeat, lambda: parse_recipe(text))),
        ("parse + bind + label", *best_rate(count, args.repeat, lambda: directives.parse(text))),
        (f"… with a {len(schema)}-column schema",
         *best_rate(count, args.repeat, lambda: directives.parse(text, schema))),
    ]
    baseline = rows[0][1]
    print(f"{count:,} directives, {len(set(line.split(' ')[0] for line in text.splitlines()))} kinds; "
          f"best of {args.repeat}")
    print(f"{'stage':<36} {'directives/s':>14} {'median s':>10} {'vs baseline':>12} {'CPU-time /s':>14}")
    for name, rate, median, cpu_rate in rows:
        print(f"{name:<36} {rate:>14,.0f} {median:>10.3f} {rate / baseline:>11.2f}x {cpu_rate:>14,.0f}")
    target = rows[2][1]
    print(f"target ≥ 50,000/s for parse + bind + label: {'met' if target >= 50_000 else 'NOT met'}")


if __name__ == "__main__":
    main()
