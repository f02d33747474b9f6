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
    """Jaro similarity, with simmetrics' window. Each character of ``x`` takes the first free position of the
    same character of ``y`` inside its window; since windows only move right, a pointer per character finds it
    (positions it passes are used or out of reach for good), so this is linear instead of length × window."""
    if not x and not y:
        return 1.0
    if not x or not y:
        return 0.0
    window = max(max(len(x), len(y)) // 2 - 1, 0)
    positions: dict[str, list[int]] = {}
    for j, char in enumerate(y):
        positions.setdefault(char, []).append(j)
    pointer = dict.fromkeys(positions, 0)
    y_flags = [False] * len(y)
    x_matched: list[str] = []
    for i, char in enumerate(x):
        found = positions.get(char)
        if found is None:
            continue
        k = pointer[char]
        while k < len(found) and found[k] < i - window:
            k += 1
        if k < len(found) and found[k] <= i + window:
            y_flags[found[k]] = True
            x_matched.append(char)
            k += 1
        pointer[char] = k
    matches = len(x_matched)
    if matches == 0:
        return 0.0
    y_matched = [c for c, f in zip(y, y_flags, strict=True) if f]
    transpositions = sum(1 for p, q in zip(x_matched, y_matched, strict=True) if p != q) / 2
    return (matches / len(x) + matches / len(y) + (matches - transpositions) / matches) / 3.0


def _char_masks(text: str) -> dict[str, int]:
    """For each character, the bit set of its positions in ``text`` (bit i = position i)."""
    masks: dict[str, int] = {}
    for i, char in enumerate(text):
        masks[char] = masks.get(char, 0) | (1 << i)
    return masks


def _edit_distance(x: str, y: str, transpositions: bool) -> float:
    """Levenshtein distance, or with ``transpositions`` the optimal-string-alignment Damerau-Levenshtein
    distance, by Myers' bit-vector algorithm with Hyyrö's transposition step (2003): one column of the
    dynamic-programming table per character of ``y``, held as bit sets as long as ``x`` (Python's integers have
    no width), so the cost is len(y) big-integer steps instead of len(x) × len(y) Python steps, and memory
    stays linear (the full table of two long values used to exhaust memory)."""
    if not x or not y:
        return float(len(x) + len(y))
    masks = _char_masks(x)
    full = (1 << len(x)) - 1
    last = 1 << (len(x) - 1)
    vp, vn, d0, previous = full, 0, 0, 0
    distance = len(x)
    for char in y:
        pm = masks.get(char, 0)
        swap = ((~d0 & pm) << 1) & previous if transpositions else 0
        d0 = ((((pm & vp) + vp) ^ vp) | pm | vn | swap) & full
        hp = (vn | ~(d0 | vp)) & full
        hn = d0 & vp
        if hp & last:
            distance += 1
        elif hn & last:
            distance -= 1
        hp = ((hp << 1) | 1) & full
        hn = (hn << 1) & full
        vp = (hn | ~(d0 | hp)) & full
        vn = hp & d0
        previous = pm
    return float(distance)


def levenshtein_distance(x: str, y: str) -> float:
    return _edit_distance(x, y, transpositions=False)


def damerau_levenshtein_distance(x: str, y: str) -> float:
    """Edit distance with adjacent transpositions (the optimal-string-alignment form)."""
    return _edit_distance(x, y, transpositions=True)


def _lcs(x: str, y: str) -> int:
    """Length of the longest common subsequence, bit-parallel (Allison-Dix, Hyyrö): a zero bit of ``row``
    marks a position of ``x`` where the subsequence grows; one big-integer step per character of ``y``."""
    if not x or not y:
        return 0
    masks = _char_masks(x)
    full = (1 << len(x)) - 1
    row = full
    for char in y:
        matched = row & masks.get(char, 0)
        row = ((row + matched) | (row - matched)) & full
    return len(x) - row.bit_count()


def _longest_substring(x: str, y: str) -> int:
    """Length of the longest common substring: ``y`` walks the suffix automaton of ``x`` (linear time)."""
    if not x or not y:
        return 0
    link, length, edges = [-1], [0], [dict[str, int]()]
    last = 0
    for char in x:
        state = len(length)
        length.append(length[last] + 1)
        link.append(0)
        edges.append({})
        p = last
        while p != -1 and char not in edges[p]:
            edges[p][char] = state
            p = link[p]
        if p != -1:
            q = edges[p][char]
            if length[p] + 1 == length[q]:
                link[state] = q
            else:
                clone = len(length)
                length.append(length[p] + 1)
                link.append(link[q])
                edges.append(dict(edges[q]))
                while p != -1 and edges[p].get(char) == q:
                    edges[p][char] = clone
                    p = link[p]
                link[q] = link[state] = clone
        last = state
    best = current = state = 0
    for char in y:
        while state and char not in edges[state]:
            state = link[state]
            current = length[state]
        if char in edges[state]:
            state = edges[state][char]
            current += 1
        else:
            current = 0
        best = max(best, current)
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
