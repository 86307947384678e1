"""Draft tokens looked up in a sequence's own tokens (ramp.llm.lookup), on literal lists."""

from __future__ import annotations

import pytest

from ramp.llm.lookup import Lookup


def test_the_tokens_after_the_last_earlier_occurrence_of_the_longest_suffix():
    lookup = Lookup([1, 2, 3, 4, 9, 2, 3, 5, 7, 2, 3])
    assert lookup.draft(2) == [5, 7]  # (2, 3) last occurred before 5 7, not before 4 9
    lookup = Lookup([7, 1, 2, 3, 4, 8, 2, 3, 5, 1, 2, 3])
    assert lookup.draft(3) == [4, 8, 2]  # (1, 2, 3) is longer than (2, 3)


def test_a_draft_is_cut_at_the_end_and_may_run_into_the_suffix_itself():
    assert Lookup([5, 6, 5, 6]).draft(4) == [5, 6]
    assert Lookup([3, 3, 3]).draft(2) == [3]


def test_shorter_suffixes_are_tried_and_nothing_found_is_an_empty_draft():
    assert Lookup([4, 1, 9, 8, 1]).draft(2) == [9, 8]  # only (1,) was seen before
    assert Lookup([1, 2, 3]).draft(2) == []
    assert Lookup([]).draft(2) == []
    assert Lookup([1, 1]).draft(0) == []


def test_extending_indexes_what_came_before_the_new_last_token():
    lookup = Lookup([10, 11, 12], max_ngram=2)
    lookup.extend([13, 10, 11])
    assert lookup.tokens == [10, 11, 12, 13, 10, 11]
    assert lookup.draft(3) == [12, 13, 10]
    lookup.extend([14])
    assert lookup.draft(3) == []


def test_the_n_gram_size_is_checked():
    with pytest.raises(ValueError, match="max_ngram must be >= 1"):
        Lookup([], max_ngram=0)
