"""The one seam every agent calls: a batch of chat prompts in, one completion per prompt out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Protocol, runtime_checkable

from ramp.llm.answer_end import cut_at_end, end_rule

ROLES = ("system", "user", "assistant")


class LLMError(RuntimeError):
    """A model could not answer (unreachable server, missing weights, replay-only miss...)."""


class ContextOverflow(LLMError):
    """A prompt does not fit the model's context (a server may count the answer's cap too):
    no call with this prompt can succeed until the model's ``context_size`` grows."""


@dataclass(frozen=True)
class ChatMessage:
    role: str
    content: str

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"chat message role {self.role!r} is not one of {', '.join(ROLES)}")


@dataclass(frozen=True)
class SamplingParams:
    """How to sample. ``temperature == 0`` means greedy decoding (``top_p`` then ignored).

    A completion depends only on its own prompt and these parameters, seed included (which is
    what makes the cache sound), whatever else is in its batch (on transformers, up to the
    floating-point effect of left padding to a longer partner); draw distinct samples of one
    prompt by varying the seed (the same prompt with several seeds can go as one call).

    ``stop_when`` names a rule of :mod:`ramp.llm.answer_end` (``program:ruby``): generation
    stops once the answer holds what the rule calls complete, and the text is cut there.
    """

    temperature: float = 0.0
    top_p: float = 1.0
    max_new_tokens: int = 512
    seed: int = 0
    stop: tuple[str, ...] = field(default_factory=tuple)
    stop_when: str = ""

    def __post_init__(self) -> None:
        if self.temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {self.temperature}")
        if not 0 < self.top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1], got {self.top_p}")
        if self.max_new_tokens < 1:
            raise ValueError(f"max_new_tokens must be >= 1, got {self.max_new_tokens}")
        # Lists from YAML or callers become a tuple so the params stay hashable.
        object.__setattr__(self, "stop", tuple(self.stop))
        if self.stop_when:
            end_rule(self.stop_when)  # an unknown rule fails here, not after a long generation


STOP = "stop"
"""The answer ended: end of turn, a stop string, or the end its ``stop_when`` rule saw."""
LENGTH = "length"
"""The answer was cut by its cap, ``max_new_tokens``."""
OVER_CONTEXT = "over_context"
"""The call was not sent: its prompt leaves less room in the model's context than its answer
cap (``prompt_tokens + max_new_tokens > context_size``), so an answer would be cut by the
context, silently. The answer is empty; the call is recorded all the same and counted."""
FINISH_REASONS = (STOP, LENGTH, OVER_CONTEXT)


@dataclass(frozen=True)
class Completion:
    """One answer. ``finish_reason`` is one of :data:`FINISH_REASONS`: ``stop`` (it ended),
    ``length`` (cut by its cap) or ``over_context`` (not sent: it would not fit the context).

    ``seconds`` is the wall time spent on this prompt; for a batch generated at once it is the
    batch's time divided evenly, so that per-role sums stay true. ``counters`` holds what only
    some backends count, by name (llamacpp: its prompt's reuse, ramp.llm.prefix_cache.COUNTERS);
    a backend leaves out what it does not count.
    """

    text: str
    finish_reason: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    counters: Mapping[str, int] = field(default_factory=dict, hash=False)

    def to_json(self) -> dict[str, Any]:
        """The completion as the call cache and the committed answers store it: the counters
        beside the other fields, as every entry has held them."""
        own = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "counters"}
        return {**own, **self.counters}

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Completion:
        """A stored completion (:meth:`to_json`): a field not of every backend is a counter, so
        entries written when the llamacpp counters were fields of their own read the same;
        TypeError naming a missing field or a counter that is not a whole number."""
        own = {f.name for f in fields(cls)} - {"counters"}
        missing = sorted(own - set(raw))
        if missing:
            raise TypeError(f"a completion without {', '.join(missing)}")
        counters = {k: v for k, v in raw.items() if k not in own}
        for key, value in counters.items():
            if type(value) is not int:
                raise TypeError(f"counter {key!r} is {value!r}, not a whole number")
        return cls(**{k: raw[k] for k in own}, counters=counters)

    @classmethod
    def over_context(cls, prompt_tokens: int) -> Completion:
        """The outcome of a call whose prompt and answer cap do not fit the context."""
        return cls(text="", finish_reason=OVER_CONTEXT, prompt_tokens=prompt_tokens,
                   completion_tokens=0, seconds=0.0)


def fits(prompt_tokens: int, params: SamplingParams, context_size: int) -> bool:
    """Whether a prompt of ``prompt_tokens`` leaves room for the answer's whole cap."""
    return prompt_tokens + params.max_new_tokens <= context_size


Prompt = Sequence[ChatMessage]

Params = SamplingParams | Sequence[SamplingParams]
"""One ``SamplingParams`` for every prompt of a call, or one per prompt."""


@runtime_checkable
class LLM(Protocol):
    """A chat model. ``model_id`` names weights + backend + template: the cache keys on it.

    ``complete(prompts, params)`` answers ``prompts[i]`` with ``params`` or ``params[i]``, in
    order: one call may mix parameters (say, one task's candidates: its prompt with n seeds,
    or the prompts of tasks in two languages) and the backend batches what it can.
    """

    @property
    def model_id(self) -> str: ...

    def complete(self, prompts: Sequence[Prompt], params: Params) -> list[Completion]: ...


def per_prompt(prompts: Sequence[Prompt], params: Params) -> list[SamplingParams]:
    """The parameters of each prompt of a call: ``params`` for all, or one each."""
    if isinstance(params, SamplingParams):
        return [params] * len(prompts)
    each = list(params)
    if len(each) != len(prompts):
        raise ValueError(f"{len(prompts)} prompts but {len(each)} sampling parameters")
    return each


def messages(*pairs: tuple[str, str]) -> tuple[ChatMessage, ...]:
    """``messages(("system", s), ("user", u))``: a prompt from (role, content) pairs."""
    return tuple(ChatMessage(role, content) for role, content in pairs)


def truncate_at_stop(text: str, stop: Sequence[str]) -> tuple[str, bool]:
    """Cut ``text`` before the first stop string; say whether one was found."""
    cut = min((i for s in stop if s and (i := text.find(s)) >= 0), default=-1)
    return (text[:cut], True) if cut >= 0 else (text, False)


def finish_text(text: str, params: SamplingParams) -> tuple[str, bool]:
    """A whole generated text as a streaming backend would have returned it: cut at the first
    stop string, then where ``params.stop_when`` says the answer ended; whether either cut."""
    text, stopped = truncate_at_stop(text, params.stop)
    text, ended = cut_at_end(text, params.stop_when)
    return text, stopped or ended
