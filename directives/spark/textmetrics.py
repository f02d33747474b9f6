"""The simmetrics measures behind `text-distance` and `text-metric`, as plain Python for a Spark UDF.

Spark has only Levenshtein built in; the token measures (cosine, dice, jaccard …), Jaro, the
longest common subsequence/substring and Damerau-Levenshtein it has not, so these run in a
Python UDF. Definitions follow simmetrics 4 as Wrangler configures it (`StringMetrics` /
`StringDistances`): token measures compare whitespace tokens (sets or multisets), Simon-White
compares the character bigrams of those tokens, and a distance is `1 - similarity` except for
the measures with a natural distance (block, euclidean, levenshtein, damerau-levenshtein,
longest common subsequence/substring), which give that distance.

This module is pickled by value for the executors (it must not need the package installed there).
"""

from __future__ import annotations

import math
import re
import sys
from collections import Counter
from collections.abc import Callable

_WHITESPACE = re.compile(r"\s+")


def _tokens(text: str) -> list[str]:
    return [token for token in _WHITESPACE.split(text) if token]


def _bigrams(text: str) -> list[str]:
    grams: list[str] = []
    for token in _tokens(text):
        grams += [token[i : i + 2] for i in range(len(token) - 1)] if len(token) > 1 else [token]
    return grams


def _empty_rule(a: list[str] | set[str] | Counter[str], b: list[str] | set[str] | Counter[str]) -> float | None:
    if not a and not b:
        return 1.0
    if not a or not b:
        return 0.0
    return None


def cosine(x: str, y: str) -> float:
    a, b = Counter(_tokens(x)), Counter(_tokens(y))
    early = _empty_rule(a, b)
    if early is not None:
        return early
    dot = sum(a[t] * b[t] for t in a)
    return dot / (math.sqrt(sum(v * v for v in a.values())) * math.sqrt(sum(v * v for v in b.values())))


def block_distance(x: str, y: str) -> float:
    a, b = Counter(_tokens(x)), Counter(_tokens(y))
    return float(sum(abs(a[t] - b[t]) for t in set(a) | set(b)))


def block(x: str, y: str) -> float:
    a, b = Counter(_tokens(x)), Counter(_tokens(y))
    early = _empty_rule(a, b)
    if early is not None:
        return early
    return 1.0 - block_distance(x, y) / (sum(a.values()) + sum(b.values()))


def euclidean_distance(x: str, y: str) -> float:
    a, b = Counter(_tokens(x)), Counter(_tokens(y))
    return math.sqrt(sum((a[t] - b[t]) ** 2 for t in set(a) | set(b)))


def euclidean(x: str, y: str) -> float:
    a, b = _tokens(x), _tokens(y)
    early = _empty_rule(a, b)
    if early is not None:
        return early
    possible = math.sqrt(len(a) ** 2 + len(b) ** 2)
    return (possible - euclidean_distance(x, y)) / possible


def identity(x: str, y: str) -> float:
    return 1.0 if x == y else 0.0


def dice(x: str, y: str) -> float:
    a, b = set(_tokens(x)), set(_tokens(y))
    early = _empty_rule(a, b)
    return early if early is not None else 2.0 * len(a & b) / (len(a) + len(b))


def jaccard(x: str, y: str) -> float:
    a, b = set(_tokens(x)), set(_tokens(y))
    early = _empty_rule(a, b)
    return early if early is not None else len(a & b) / len(a | b)


def generalized_jaccard(x: str, y: str) -> float:
    a, b = Counter(_tokens(x)), Counter(_tokens(y))
    early = _empty_rule(a, b)
    if early is not None:
        return early
    keys = set(a) | set(b)
    return sum(min(a[t], b[t]) for t in keys) / sum(max(a[t], b[t]) for t in keys)


def overlap(x: str, y: str) -> float:
    a, b = set(_tokens(x)), set(_tokens(y))
    early = _empty_rule(a, b)
    return early if early is not None else len(a & b) / min(len(a), len(b))


def simon_white(x: str, y: str) -> float:
    a, b = Counter(_bigrams(x)), Counter(_bigrams(y))
    early = _empty_rule(a, b)
    if early is not None:
        return early
    common = sum((a & b).values())
    return 2.0 * common / (sum(a.values()) + sum(b.values()))


def jaro(x: str, y: str) -> float:
    if not x and not y:
        return 1.0
    if not x or not y:
        return 0.0
    window = max(max(len(x), len(y)) // 2 - 1, 0)
    x_flags, y_flags = [False] * len(x), [False] * len(y)
    matches = 0
    for i, char in enumerate(x):
        for j in range(max(0, i - window), min(len(y), i + window + 1)):
            if not y_flags[j] and y[j] == char:
                x_flags[i] = y_flags[j] = True
                matches += 1
                break
    if matches == 0:
        return 0.0
    x_matched = [c for c, f in zip(x, x_flags, strict=True) if f]
    y_matched = [c for c, f in zip(y, y_flags, strict=True) if f]
    transpositions = sum(1 for p, q in zip(x_matched, y_matched, strict=True) if p != q) / 2
    return (matches / len(x) + matches / len(y) + (matches - transpositions) / matches) / 3.0


def levenshtein_distance(x: str, y: str) -> float:
    previous = list(range(len(y) + 1))
    for i, a in enumerate(x, start=1):
        current = [i]
        for j, b in enumerate(y, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a != b)))
        previous = current
    return float(previous[-1])


def damerau_levenshtein_distance(x: str, y: str) -> float:
    """Edit distance with adjacent transpositions (the optimal-string-alignment form)."""
    rows = [[0] * (len(y) + 1) for _ in range(len(x) + 1)]
    for i in range(len(x) + 1):
        rows[i][0] = i
    for j in range(len(y) + 1):
        rows[0][j] = j
    for i in range(1, len(x) + 1):
        for j in range(1, len(y) + 1):
            cost = 0 if x[i - 1] == y[j - 1] else 1
            best = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and x[i - 1] == y[j - 2] and x[i - 2] == y[j - 1]:
                best = min(best, rows[i - 2][j - 2] + 1)
            rows[i][j] = best
    return float(rows[len(x)][len(y)])


def _lcs(x: str, y: str) -> int:
    previous = [0] * (len(y) + 1)
    for a in x:
        current = [0]
        for j, b in enumerate(y, start=1):
            current.append(previous[j - 1] + 1 if a == b else max(current[j - 1], previous[j]))
        previous = current
    return previous[-1]


def _longest_substring(x: str, y: str) -> int:
    best = 0
    previous = [0] * (len(y) + 1)
    for a in x:
        current = [0]
        for j, b in enumerate(y, start=1):
            current.append(previous[j - 1] + 1 if a == b else 0)
        best = max(best, max(current))
        previous = current
    return best


def _by_length(distance: Callable[[str, str], float]) -> Callable[[str, str], float]:
    def similarity(x: str, y: str) -> float:
        if not x and not y:
            return 1.0
        if not x or not y:
            return 0.0
        return 1.0 - distance(x, y) / max(len(x), len(y))

    return similarity


def lcs_similarity(x: str, y: str) -> float:
    if not x or not y:
        return 1.0 if x == y else 0.0
    return _lcs(x, y) / max(len(x), len(y))


def lcs_distance(x: str, y: str) -> float:
    return float(len(x) + len(y) - 2 * _lcs(x, y))


def substring_similarity(x: str, y: str) -> float:
    if not x or not y:
        return 1.0 if x == y else 0.0
    return _longest_substring(x, y) / max(len(x), len(y))


def substring_distance(x: str, y: str) -> float:
    return float(len(x) + len(y) - 2 * _longest_substring(x, y))


SIMILARITIES: dict[str, Callable[[str, str], float]] = {
    "cosine": cosine, "euclidean": euclidean, "block-distance": block, "block-metric": block,
    "identity": identity, "dice": dice, "jaccard": jaccard, "generalized-jaccard": generalized_jaccard,
    "overlap-cofficient": overlap, "simon-white": simon_white, "jaro": jaro,
    "levenshtein": _by_length(levenshtein_distance),
    "damerau-levenshtein": _by_length(damerau_levenshtein_distance),
    "longest-common-subsequence": lcs_similarity, "longest-common-substring": substring_similarity,
}

#: Measures whose distance is not `1 - similarity`.
NATURAL_DISTANCES: dict[str, Callable[[str, str], float]] = {
    "block-distance": block_distance, "block-metric": block_distance, "euclidean": euclidean_distance,
    "levenshtein": levenshtein_distance, "damerau-levenshtein": damerau_levenshtein_distance,
    "longest-common-subsequence": lcs_distance, "longest-common-substring": substring_distance,
}


def measure(method: str, distance: bool) -> Callable[[str, str], float]:
    """The function `(a, b) -> float` of a measure; `distance` selects `text-distance` over `text-metric`."""
    if distance and method in NATURAL_DISTANCES:
        return NATURAL_DISTANCES[method]
    similarity = SIMILARITIES[method]
    if distance:
        return lambda x, y: 1.0 - similarity(x, y)
    return similarity


def _register_by_value() -> None:
    try:
        from pyspark import cloudpickle
    except ImportError:  # pragma: no cover - pyspark is a dependency of the Spark side only
        return
    cloudpickle.register_pickle_by_value(sys.modules[__name__])


_register_by_value()
