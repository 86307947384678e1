"""The unbiased pass@k estimator (Chen et al., 2021; the paper's equation 1)."""

from __future__ import annotations

import math
from collections.abc import Iterable


def pass_at_k(n: int, c: int, k: int) -> float:
    """Probability that k of n samples, c of them correct, drawn without replacement hold one
    correct: ``1 - C(n-c, k) / C(n, k)``. NaN when fewer than k samples exist (undefined)."""
    if not 0 <= c <= n:
        raise ValueError(f"pass_at_k: need 0 <= c <= n, got n={n}, c={c}")
    if k < 1:
        raise ValueError(f"pass_at_k: k must be >= 1, got {k}")
    if n < k:
        return math.nan
    if n - c < k:
        return 1.0
    # The product form avoids huge binomials (Codex's numerically stable version).
    return 1.0 - math.prod(1.0 - k / i for i in range(n - c + 1, n + 1))


def mean_pass_at_k(samples: Iterable[tuple[int, int]], k: int) -> tuple[float, int]:
    """Mean pass@k over units with at least k samples, and how many units that was."""
    values = [pass_at_k(n, c, k) for n, c in samples if n >= k]
    if not values:
        return math.nan, 0
    return sum(values) / len(values), len(values)
