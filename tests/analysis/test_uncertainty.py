import math

import pytest

from ramp.analysis.uncertainty import (
    paired_p_value,
    paired_problem_comparison,
    problem_bootstrap_interval,
    rate_interval,
)


def test_wilson_interval_of_known_rates():
    low, high = rate_interval(3, 34)
    # Wilson 95% for 3/34, computed by hand: centre (3 + 1.92) / (34 + 3.84), half-width ...
    z = 1.959964
    p = 3 / 34
    centre = (p + z * z / 68) / (1 + z * z / 34)
    half = z * math.sqrt(p * (1 - p) / 34 + z * z / (4 * 34 * 34)) / (1 + z * z / 34)
    assert (low, high) == pytest.approx((centre - half, centre + half), abs=1e-6)
    assert rate_interval(0, 34)[0] == 0.0 and rate_interval(34, 34)[1] == 1.0
    assert all(math.isnan(x) for x in rate_interval(0, 0))


def test_exact_mcnemar_p_values():
    assert paired_p_value(0, 0) == 1.0
    assert paired_p_value(3, 3) == 1.0
    # 6 tasks only one method solved, all by the same method: 2 * 0.5**6.
    assert paired_p_value(6, 0) == pytest.approx(2 * 0.5**6)
    assert paired_p_value(1, 4) == paired_p_value(4, 1) == pytest.approx(0.375)


def _independent(n: int) -> list[str]:
    return [f"p{i}" for i in range(n)]


def test_with_one_task_per_problem_the_permutation_test_is_mcnemar():
    problems = _independent(28)
    for only_a, only_b, both in ((3, 1, 2), (6, 1, 0), (1, 4, 5), (0, 2, 1)):
        a = [True] * (only_a + both) + [False] * only_b
        b = [False] * only_a + [True] * (both + only_b)
        pad = 28 - len(a)
        result = paired_problem_comparison(a + [False] * pad, b + [False] * pad, problems)
        assert result.p_value == pytest.approx(paired_p_value(only_a, only_b))
        assert result.problems == only_a + only_b
        assert result.difference == pytest.approx((only_a - only_b) / 28)
        assert result.low <= result.difference <= result.high


def test_tasks_of_one_problem_count_as_one_unit():
    # Six tasks only A solved: as six problems the evidence is strong, as one problem it is
    # one observation (and the interval of the difference reaches 0).
    a = [True] * 6 + [False] * 22
    b = [False] * 28
    apart = paired_problem_comparison(a, b, _independent(28))
    together = paired_problem_comparison(a, b, ["w"] * 6 + _independent(22))
    assert apart.p_value == pytest.approx(2 * 0.5**6) and apart.low > 0
    assert together.p_value == 1.0 and together.problems == 1
    assert together.difference == apart.difference and together.low == 0.0


def test_a_permutation_test_swaps_whole_problems():
    # Two problems of three tasks: A solved all of one, B one task of the other. The swaps
    # give differences 3-1, 3+1, -3-1, -3+1 over 6 tasks, all as likely: |2| and |4| observed
    # at least as large as 2 in every case, so p = 1; 4 only in half: the p of 4 is 0.5.
    problems = ["x"] * 3 + ["y"] * 3
    r = paired_problem_comparison([1, 1, 1, 0, 0, 0], [0, 0, 0, 1, 0, 0], problems)
    assert r.difference == pytest.approx(2 / 6) and r.p_value == 1.0
    r = paired_problem_comparison([1, 1, 1, 0, 0, 0], [0, 0, 0, 0, 0, 0], problems)
    assert r.problems == 1 and r.p_value == 1.0


def test_bootstrap_over_problems_is_wider_when_tasks_cluster():
    solved = [True] * 4 + [False] * 30
    apart = problem_bootstrap_interval(solved, _independent(34))
    together = problem_bootstrap_interval(solved, ["w"] * 4 + _independent(30))
    assert apart[0] < 4 / 34 < apart[1]
    assert together[0] == 0.0 and together[1] - together[0] > apart[1] - apart[0]
    # Close to Wilson's when the tasks are independent (both are 95% intervals of 4/34).
    wilson = rate_interval(4, 34)
    assert apart == pytest.approx(wilson, abs=0.05)


def test_bootstrap_is_seeded_and_degenerate_at_the_ends():
    solved = [True, False, False, True, False, False, False, True]
    problems = ["a", "a", "b", "c", "c", "d", "e", "f"]
    assert problem_bootstrap_interval(solved, problems) == problem_bootstrap_interval(
        solved, problems)
    # The seed is what makes it repeatable: other seeds draw other resamples.
    few = {seed: problem_bootstrap_interval(solved, problems, resamples=99, seed=seed)
           for seed in range(5)}
    assert len(set(few.values())) > 1
    assert problem_bootstrap_interval([False] * 5, _independent(5)) == (0.0, 0.0)
    assert problem_bootstrap_interval([True] * 3, ["a"] * 3) == (1.0, 1.0)
    assert all(math.isnan(x) for x in problem_bootstrap_interval([], []))
    with pytest.raises(ValueError):
        problem_bootstrap_interval([True], ["a", "b"])


def test_paired_comparison_of_identical_results():
    r = paired_problem_comparison([True, False], [True, False], ["a", "b"])
    assert (r.difference, r.low, r.high, r.p_value, r.problems) == (0.0, 0.0, 0.0, 1.0, 0)
