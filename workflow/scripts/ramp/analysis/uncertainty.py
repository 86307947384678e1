"""How sure a pass@1 over a few dozen tasks is: a confidence interval for one method's rate
and a paired test between two methods on the same tasks, each counting tasks as independent
(Wilson, exact McNemar) and counting problems as the units (a bootstrap over problems, a
permutation test swapping whole problems). scipy does the arithmetic."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


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


# Tasks of one problem (one statement, several buggy programs) succeed or fail together, so a
# study's tasks are not independent draws: paper34 holds 8 programs of one problem. The
# functions below resample or permute whole problems instead of tasks. All are seeded: the same
# inputs give the same interval and p-value on every run.
RESAMPLES = 10_000


def _by_problem(problems: Sequence[str], *columns: Sequence[bool]) -> list[np.ndarray]:
    """Per problem (sorted by name): each column's count of true tasks, then the tasks."""
    keys, index = np.unique(np.asarray(problems, dtype=object).astype(str), return_inverse=True)
    sums = [np.bincount(index, weights=np.asarray(c, dtype=float), minlength=len(keys))
            for c in columns]
    return [*sums, np.bincount(index, minlength=len(keys)).astype(float)]


def problem_bootstrap_interval(
    solved: Sequence[bool],
    problems: Sequence[str],
    level: float = 0.95,
    *,
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> tuple[float, float]:
    """Bootstrap interval (BCa) of the per-task rate, resampling problems, each with all its
    tasks.

    Both ends are 0 (or 1) when no task (or every task) was solved: a bootstrap cannot see past
    what happened, so such a rate's interval is Wilson's. NaNs for no task."""
    if len(solved) != len(problems):
        raise ValueError("one problem per task")
    if not len(solved):
        return float("nan"), float("nan")
    hits, tasks = _by_problem(problems, solved)
    if len(hits) == 1:
        rate = float(hits[0] / tasks[0])
        return rate, rate
    return _bootstrap((hits, tasks), _rate, level, resamples, np.random.default_rng(seed))


def _bootstrap(data: tuple[np.ndarray, ...], statistic, level: float, resamples: int,
               rng: np.random.Generator) -> tuple[float, float]:
    """The BCa interval of ``statistic`` over problems (the rows of ``data``, resampled
    together); the percentile interval where BCa is undefined (every resample alike)."""
    import warnings

    from scipy.stats import DegenerateDataWarning, bootstrap

    def interval(method: str) -> tuple[float, float]:
        ci = bootstrap(data, statistic, paired=True, vectorized=True, n_resamples=resamples,
                       confidence_level=level, method=method, rng=rng).confidence_interval
        return float(ci.low), float(ci.high)

    with warnings.catch_warnings():
        # When every problem has the same rate, BCa's acceleration is 0/0 (NaN, with these
        # warnings): the fallback below then gives the point.
        warnings.simplefilter("ignore", DegenerateDataWarning)
        warnings.filterwarnings("ignore", "invalid value", RuntimeWarning)
        low, high = interval("BCa")
        if np.isnan(low) or np.isnan(high):
            low, high = interval("percentile")
    return low, high


def _rate(hits: np.ndarray, tasks: np.ndarray, axis: int = -1) -> np.ndarray:
    return hits.sum(axis=axis) / tasks.sum(axis=axis)


@dataclass(frozen=True)
class PairedComparison:
    """Method A against method B on the same tasks, problems as the units.

    ``difference``: A's per-task rate minus B's; ``low``/``high``: its interval from a paired
    bootstrap over problems (BCa); ``p_value``: a two-sided permutation test that swaps the
    two methods' results of a whole problem at once (exact when at most 2**14 swaps exist);
    ``problems``: how many problems the two methods scored differently."""

    difference: float
    low: float
    high: float
    p_value: float
    problems: int


def paired_problem_comparison(
    a: Sequence[bool],
    b: Sequence[bool],
    problems: Sequence[str],
    level: float = 0.95,
    *,
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> PairedComparison:
    """Compare two methods' per-task results (same tasks, same order) respecting problems.

    With one task per problem the permutation test is the exact McNemar test."""
    if not len(a) == len(b) == len(problems):
        raise ValueError("a, b and problems must list the same tasks")
    if not len(a):
        return PairedComparison(float("nan"), float("nan"), float("nan"), 1.0, 0)
    hits_a, hits_b, tasks = _by_problem(problems, a, b)
    total = tasks.sum()
    difference = float((hits_a.sum() - hits_b.sum()) / total)
    differ = hits_a != hits_b
    if not differ.any():
        return PairedComparison(difference, 0.0, 0.0, 1.0, 0)
    rng = np.random.default_rng(seed)
    if len(tasks) == 1:
        low = high = difference
    else:
        low, high = _bootstrap((hits_a, hits_b, tasks), _difference, level, resamples, rng)
    p_value = _swap_p_value(hits_a[differ], hits_b[differ], resamples, rng)
    return PairedComparison(difference, low, high, p_value, int(differ.sum()))


def _swap_p_value(hits_a: np.ndarray, hits_b: np.ndarray, resamples: int,
                  rng: np.random.Generator) -> float:
    """Two-sided p-value of the summed difference when each problem's two results may swap.

    Only problems the methods scored differently are passed (the others add the same under
    every swap), so the few that differ can be enumerated exactly."""
    from scipy.stats import permutation_test

    if len(hits_a) == 1:  # the observed difference and its mirror image: no evidence
        return 1.0
    test = permutation_test((hits_a, hits_b), _sum_difference, permutation_type="samples",
                            vectorized=True, n_resamples=max(resamples, 2**14), rng=rng)
    return min(1.0, float(test.pvalue))


def _difference(hits_a: np.ndarray, hits_b: np.ndarray, tasks: np.ndarray,
                axis: int = -1) -> np.ndarray:
    return (hits_a.sum(axis=axis) - hits_b.sum(axis=axis)) / tasks.sum(axis=axis)


def _sum_difference(hits_a: np.ndarray, hits_b: np.ndarray, axis: int = -1) -> np.ndarray:
    return (hits_a - hits_b).sum(axis=axis)
