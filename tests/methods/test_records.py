"""A call's record takes what every backend reports, and the counters of those that count more."""

from __future__ import annotations

import dataclasses

from ramp.llm.base import Completion, messages
from ramp.llm.prefix_cache import COUNTERS
from ramp.methods.frames import attempts_frame
from ramp.methods.records import Call


def test_a_call_ends_with_the_counters_and_takes_0_for_one_not_counted():
    names = [f.name for f in dataclasses.fields(Call)]
    assert names[-len(COUNTERS) :] == list(COUNTERS)
    prompt = messages(("user", "q"))
    counters = {"reused_prompt_tokens": 2}
    counted = Call.of("programmer", prompt, Completion("a", "stop", 3, 1, 0.5, counters))
    assert [getattr(counted, name) for name in COUNTERS] == [2, 0, 0]
    assert Call.of("programmer", prompt, Completion("a", "stop", 3, 1, 0.5)).kv_read_bytes == 0


def test_an_empty_attempts_table_has_a_column_per_counter_and_role():
    columns = set(attempts_frame([]).columns)
    assert {f"programmer_{name}" for name in COUNTERS} <= columns
