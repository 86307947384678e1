import math

import pytest

from ramp.analysis.uncertainty import paired_p_value, rate_interval


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
