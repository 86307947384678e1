"""The judge's rules (ExecEval's) on literal strings."""

from __future__ import annotations

import pytest

from ramp.execution.judge import judge, matches


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("3\n", "3"),
        ("1 2 3  \r\n4 5\r\n\r\n\r\n", "1 2 3\n4 5"),  # CRLF, trailing spaces and blank lines
        ("  1 2\n", "1 2"),  # each line is stripped, leading spaces too
        ("1 2 3", "1\n2\n3"),  # falls back to tokens: line breaks do not matter
        ("YES", "yes"),
        ("No\nyes", "NO\nYES"),
        ("True", "true"),
        ("0.3333333333333", "0.333333333333333"),  # within 1e-12
        ("1e3", "1000"),
        ("-0.0", "0"),
        ("1.0000000000001", "1"),
        ("1e1000000", "1E1000000"),  # beyond the default Decimal context's exponent range
        ("123456789012345678901234567890123", "123456789012345678901234567890123.0"),
    ],
)
def test_accepted(output: str, expected: str) -> None:
    assert matches(output, expected)


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("", "3"),
        ("4", "3"),
        ("1 2", "1 2 3"),
        ("0.333333", "0.333333333333"),  # ExecEval's tolerance is 1e-12, not 1e-6
        ("1.00000000001", "1"),
        ("Yes!", "yes"),
        ("abc", "ABC"),  # only yes/no/true/false are caseless
        ("nan", "nan0"),
        ("NaN", "nan"),  # not a number to the checker, and case matters for other words
        ("1_000", "1000"),
        ("1e1000000", "5"),  # a huge number printed: wrong, not an exception
        ("-1e999999999999999999", "1e999999999999999999"),  # the difference overflows: Infinity
        ("1e99999999999999999999999", "1"),  # beyond Decimal's range: compared as a word
    ],
)
def test_rejected(output: str, expected: str) -> None:
    assert not matches(output, expected)


def test_any_of_several_accepted_outputs() -> None:
    assert judge("2 1\n", ["1 2", "2 1"])
    assert not judge("3 1\n", ["1 2", "2 1"])
    assert not judge("anything", [])


def test_blank_line_inside_output_counts_for_lines_but_not_tokens() -> None:
    assert matches("a\n\nb", "a\nb")  # token fallback
    assert not matches("a b\n\nc", "a\nb c d")
