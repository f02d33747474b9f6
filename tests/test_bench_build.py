"""The bench_build statistics: equal work per size in a round, and the interval its ratio is printed with."""

from __future__ import annotations

import random
from collections import Counter

from bench.bench_build import equal_work_round, ratio_interval, spread


def test_a_round_gives_every_size_as_many_directives_as_one_build_of_the_largest() -> None:
    order = equal_work_round([50, 100, 200, 400], random.Random(1))
    builds = Counter(order)
    assert builds == {50: 8, 100: 4, 200: 2, 400: 1}
    assert {size * count for size, count in builds.items()} == {400}


def test_rounds_are_shuffled_and_a_size_that_does_not_divide_still_builds() -> None:
    shuffler = random.Random(3)
    orders = {tuple(equal_work_round([50, 100, 200, 400], shuffler)) for _ in range(20)}
    assert len(orders) > 1  # the order changes from round to round
    assert Counter(equal_work_round([300, 400], random.Random(0))) == {300: 1, 400: 1}


def test_the_interval_holds_the_ratio_of_the_medians_and_is_a_point_when_builds_do_not_vary() -> None:
    steady = {50: [0.100] * 8, 400: [0.400] * 2}  # 2 ms against 1 ms a directive
    assert ratio_interval(steady, 200, random.Random(0)) == (2.0, 2.0)
    noisy_rng = random.Random(5)
    noisy = {50: [0.100 * noisy_rng.uniform(0.7, 1.5) for _ in range(40)],
             400: [0.400 * noisy_rng.uniform(0.9, 1.1) for _ in range(5)]}
    medians = sorted(noisy[50])[19:21], sorted(noisy[400])[2]
    printed = (sum(medians[0]) / 2 / 50) / (medians[1] / 400)  # the ratio the bench prints for these builds
    lower, upper = ratio_interval(noisy, 500, random.Random(0))
    assert lower < printed < upper
    assert upper - lower > 0.1  # builds that vary give an interval, not a point


def test_the_spread_names_the_count_quartiles_and_range() -> None:
    assert spread([0.3, 0.1, 0.2, 0.4, 0.5]).startswith("5: ")
    assert "(0.100–0.500)" in spread([0.3, 0.1, 0.2, 0.4, 0.5])
    assert spread([0.25]) == "1: 0.250"
