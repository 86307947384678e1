import math

import pytest

from ramp.analysis.passk import mean_pass_at_k, pass_at_k


def test_pass_at_1_is_the_share_correct():
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)


def test_known_values():
    # 1 - C(3,2)/C(5,2) = 1 - 3/10
    assert pass_at_k(5, 2, 2) == pytest.approx(0.7)
    assert pass_at_k(4, 0, 2) == 0.0
    assert pass_at_k(4, 3, 2) == 1.0  # only one wrong sample: any pair holds a right one


def test_too_few_samples_is_undefined_not_one():
    assert math.isnan(pass_at_k(1, 0, 5))


def test_bad_counts_are_rejected():
    with pytest.raises(ValueError, match="c <= n"):
        pass_at_k(2, 3, 1)


def test_mean_skips_units_with_fewer_than_k_samples():
    value, n = mean_pass_at_k([(5, 2), (1, 1), (2, 0)], 2)
    assert n == 2
    assert value == pytest.approx((0.7 + 0.0) / 2)
