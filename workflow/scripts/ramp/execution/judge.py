"""Does a program's output match an accepted answer? ExecEval's rules, as pure functions.

xCodeEval's verdicts come from ExecEval (ntunlp/ExecEval, ``execution_engine.py``,
``validate_outputs``), so we copy its rules rather than inventing a stricter checker:

1. Lines: both texts are stripped, split on ``\\n`` and compared line by line after stripping
   each line (so CRLF, trailing spaces and leading/trailing blank lines never matter, but the
   number of lines does).
2. Otherwise tokens: both texts are split on any whitespace; the token counts must agree and
   each pair must match. Two numbers match when they differ by at most ``1e-12`` (ExecEval
   compares 129-bit floats with an absolute tolerance of 1e-12; we use exact decimals).
   ``yes``/``no``/``true``/``false`` match case-insensitively; any other token must be equal.

A program passes a test when its output matches ANY of the accepted outputs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation, Overflow

TOLERANCE = Decimal("1e-12")
_CASELESS = frozenset({"yes", "no", "true", "false"})
# Plain decimal numbers only: Decimal would also accept "NaN", "Infinity" and "1_000", which
# a checker must treat as words.
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.strip().split("\n")]


def _number(token: str) -> Decimal | None:
    if not _NUMBER.fullmatch(token):
        return None
    try:
        return Decimal(token)
    except InvalidOperation:  # an exponent beyond Decimal's range: compared as a word
        return None


def tokens_match(got: str, want: str) -> bool:
    """One token pair by ExecEval's rule: numbers within 1e-12, yes/no/true/false caseless."""
    a, b = _number(got), _number(want)
    if a is not None and b is not None:
        try:
            return abs(a - b) <= TOLERANCE
        except Overflow:  # a program may print 1e1000000: a difference that large is no match
            return False
    if got.lower() in _CASELESS:
        got = got.lower()
    if want.lower() in _CASELESS:
        want = want.lower()
    return got == want


def matches(output: str, expected: str) -> bool:
    """Whether ``output`` is accepted as ``expected`` (lines first, then tokens)."""
    if _lines(output) == _lines(expected):
        return True
    got, want = output.split(), expected.split()
    return len(got) == len(want) and all(map(tokens_match, got, want))


def judge(output: str, accepted: Sequence[str]) -> bool:
    """Whether ``output`` matches any of the ``accepted`` outputs."""
    return any(matches(output, expected) for expected in accepted)
