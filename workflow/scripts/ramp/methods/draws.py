"""Breadth: n independent repairs of each task from one single-call prompt, with no check and
no refinement between them, so that the coverage analysis (ramp.analysis.coverage) can say
what any chooser could reach with a model.

Draw i (1..n) of a task is the configured variant's Programmer call with seed ``seed + i``:
the very call that variant's iteration 1 makes. With the default variant (Zero-Shot) draw 1 is
the committed Zero-Shot answer, replayed from the model cache, and the coverage at k = 1 is
Zero-Shot's own. Draws are written as attempts (iteration = draw), so the hidden scoring of
runs (ramp.analysis.stages.score_hidden) scores them unchanged; nothing checks them here
(``passed_generated`` is False).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ramp import study_config
from ramp.agents import programmer
from ramp.llm.base import LLM
from ramp.methods.records import Attempt, Call
from ramp.prompting import PromptLibrary
from ramp.runs import DEFAULT_STUDY, RunId
from ramp.tasks import Problem
from ramp.variants import Variant

CONFIG_KEY = "coverage"
RUN_VARIANT = "draws"
"""The variant column of the draws' tables."""


@dataclass(frozen=True)
class DrawsConfig:
    """Config ``coverage``: how many draws a task, and whose single-call prompt."""

    draws: int = 0
    """Independent draws a task (the issue's n = 32); 0 = no draws and no coverage stage."""
    variant: str = "zero_shot"
    """The variant whose one Programmer call is drawn: a single-call variant (no reflection,
    no generated tests), its prompt, temperature and answer cap."""

    @classmethod
    def of(cls, config: Mapping[str, Any]) -> DrawsConfig:
        """The study's setting, checked: a bad value stops the workflow with one line."""
        raw = config.get(CONFIG_KEY) or {}
        if not isinstance(raw, Mapping):
            raise ValueError(f"config {CONFIG_KEY}: a mapping (draws, variant), not {raw!r}")
        unknown = sorted(set(raw) - {"draws", "variant"})
        if unknown:
            raise ValueError(f"config {CONFIG_KEY}: unknown field {unknown[0]!r} "
                             "(known: draws, variant)")
        draws = raw.get("draws", 0)
        if isinstance(draws, bool) or not isinstance(draws, int) or draws < 0:
            raise ValueError(f"config {CONFIG_KEY}.draws: a whole number >= 0, not {draws!r}")
        out = cls(draws, str(raw.get("variant", cls.variant)))
        if out.draws:
            single_call(study_config.variant(config, out.variant), f"config {CONFIG_KEY}.variant")
        return out


def single_call(variant: Variant, where: str) -> Variant:
    """``variant``, refused unless its iteration 1 is one Programmer call on the problem alone
    (RAMP's own loop with no initial reflection and no generated tests: Zero-/Few-Shot)."""
    if variant.method != "ramp" or variant.initial_reflection or variant.test_generation:
        raise ValueError(f"{where}: {variant.name!r} is not a single-call variant (method ramp, "
                         "initial_reflection and test_generation false, e.g. zero_shot)")
    return variant


def templates(variant: Variant) -> tuple[str, ...]:
    """The templates a draw renders (ramp.provenance declares them as the stage's inputs)."""
    return (programmer.template(variant),)


def draw(
    problems: Sequence[Problem], *, n: int, llm: LLM, lib: PromptLibrary, variant: Variant,
    seed: int,
) -> list[Attempt]:
    """``n`` draws of every problem, one model call each (all of a task's in one batch: one
    prompt, n seeds), as attempts 1..n in task order."""
    single_call(variant, "draws")
    out: list[Attempt] = []
    for problem in problems:
        messages = programmer.prompt(lib, problem, variant, [])
        lang = problem.language
        answers = llm.complete([messages] * n,
                               [variant.code_params(seed + i, lang.key) for i in range(1, n + 1)])
        for i, answer in enumerate(answers, start=1):
            program = programmer.parse(answer.text, lang)
            out.append(Attempt(
                problem.task_id, i, "", program.code, program.status, program.detail,
                report=None, traces="", passed_generated=False, next_reflection="",
                exec_seconds=0.0, calls=(Call.of(programmer.ROLE, messages, answer),),
            ))
    return out


def draws_run(config: Mapping[str, Any], model: str, subset: str) -> RunId:
    """The identity the draws' tables carry: a run of ``model`` on ``subset`` whose variant is
    ``draws`` (no {variant} wildcard names it)."""
    return RunId(study_config.study_name(config) or DEFAULT_STUDY, model, RUN_VARIANT, subset)
