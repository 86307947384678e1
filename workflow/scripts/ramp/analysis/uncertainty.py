"""How sure a pass@1 over a few dozen tasks is: a confidence interval for one method's rate
and an exact paired test between two methods on the same tasks (scipy does the arithmetic)."""

from __future__ import annotations


def rate_interval(solved: int, tasks: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of ``solved / tasks`` (both ends in [0, 1]); NaNs for no task."""
    from scipy.stats import binomtest

    if tasks == 0:
        return float("nan"), float("nan")
    ci = binomtest(solved, tasks).proportion_ci(confidence_level=level, method="wilson")
    return float(ci.low), float(ci.high)


def paired_p_value(only_a: int, only_b: int) -> float:
    """Exact McNemar test: two-sided p-value that two methods solving the same tasks differ,
    from the tasks only one of them solved (the others tell nothing). 1.0 when none differ."""
    from scipy.stats import binomtest

    if only_a + only_b == 0:
        return 1.0
    return float(binomtest(only_a, only_a + only_b, 0.5).pvalue)
