"""Accounting: every call's tokens and seconds, tagged by the agent role that made it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

import pandas as pd

from ramp.llm.base import LLM, Completion, Params, Prompt
from ramp.llm.prefix_cache import COUNTERS

BY_ROLE_COLUMNS = ["role", "calls", "prompt_tokens", "completion_tokens", "seconds", *COUNTERS]


@dataclass(frozen=True)
class CallRecord:
    role: str
    model_id: str
    finish_reason: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    # COUNTERS, 0 where the backend does not count them (tests/llm/test_fake_usage_cache.py)
    reused_prompt_tokens: int = 0
    kv_read_bytes: int = 0
    kv_written_bytes: int = 0


@dataclass
class UsageLog:
    """Collects CallRecords; one per stage, passed to whoever makes calls (no global)."""

    records: list[CallRecord] = field(default_factory=list)

    def record(self, role: str, model_id: str, completions: Sequence[Completion]) -> None:
        self.records.extend(
            CallRecord(
                role, model_id, c.finish_reason, c.prompt_tokens, c.completion_tokens, c.seconds,
                *(c.counters.get(name, 0) for name in COUNTERS),
            )
            for c in completions
        )

    def tagged(self, llm: LLM, role: str) -> MeteredLLM:
        """``llm`` as seen by one agent: every call it makes is logged under ``role``."""
        return MeteredLLM(llm, self, role)

    def calls_frame(self) -> pd.DataFrame:
        columns = [f for f in CallRecord.__dataclass_fields__]
        return pd.DataFrame([asdict(r) for r in self.records], columns=columns)

    def by_role(self) -> pd.DataFrame:
        """One row per role: calls, token sums, seconds, prompt tokens taken from a KV cache,
        bytes of the disk cache of prefixes read and written (sorted by role, for stable
        Parquet)."""
        calls = self.calls_frame()
        if calls.empty:
            return pd.DataFrame(columns=BY_ROLE_COLUMNS)
        out = calls.groupby("role", sort=True).agg(
            calls=("role", "size"),
            prompt_tokens=("prompt_tokens", "sum"),
            completion_tokens=("completion_tokens", "sum"),
            seconds=("seconds", "sum"),
            **{name: (name, "sum") for name in COUNTERS},
        )
        return out.reset_index()[BY_ROLE_COLUMNS]


class MeteredLLM:
    def __init__(self, inner: LLM, log: UsageLog, role: str) -> None:
        self.inner, self.log, self.role = inner, log, role

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    def complete(self, prompts: Sequence[Prompt], params: Params) -> list[Completion]:
        completions = self.inner.complete(prompts, params)
        self.log.record(self.role, self.model_id, completions)
        return completions
