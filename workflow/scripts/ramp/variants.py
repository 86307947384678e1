"""Method variants as data: RAMP's paper preset and its ablations are field overrides.

``config["variants"]`` maps a name to the fields it changes from :class:`Variant`'s defaults
(the paper's RAMP); the workflow fans out over the names in ``config["study"]["variants"]``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ramp.llm.answer_end import RULES
from ramp.llm.base import SamplingParams
from ramp.methods import METHODS

PROGRAMMER_STYLES = ("cot", "scot", "zero_shot", "few_shot")
REFLECTION_STRATEGIES = ("direct", "spec")
PROGRAMMER_CONTEXTS = ("history", "latest")
STOP_RULES = ("confident", "generated", "settled", "budget")
HIDDEN_FEEDBACK_METHODS = ("ramp", "chatrepair", "lantern")
"""The methods that can take the hidden tests' outcomes as feedback (``hidden_feedback``)."""


@dataclass(frozen=True)
class ProblemView:
    """Which parts of the problem a prompt shows (the template prompts/_problem.j2 reads it).

    Table 4's switches change the Programmer's view only; every other agent sees the default.
    The statement's notes often walk through the sample tests, so in the Programmer's view they
    follow the samples switch (:attr:`Variant.programmer_view`)."""

    include_io_spec: bool = True
    include_limits: bool = True
    include_samples: bool = False
    include_notes: bool = True


@dataclass(frozen=True)
class Variant:
    """One way to run a repair method. Defaults are the paper's RAMP (section 3.3)."""

    name: str = "ramp"
    method: str = "ramp"
    """Which method runs: a name of ramp.methods.METHODS (RAMP or a baseline of Table 1)."""
    test_generation: bool = True
    """Test Designer writes guiding tests; off: no execution feedback at all (Table 2)."""
    initial_reflection: bool = True
    """Feedback Integrator writes e0 before the first repair (Table 2: w/o first reflection)."""
    feedback_reflection: bool = True
    """Reflect on failing traces; off: the raw traces go to the Programmer (w/o self-reflection)."""
    reflection_strategy: str = "direct"
    """``direct`` error reasoning or ``spec`` (specification inference)."""
    feedback_history: bool = False
    """The Feedback Integrator's reflection on a failure also sees every earlier reflection
    (off: the paper's Step 4, e_t+1 = R_f(C, d, tau_t): the problem, the buggy program, the
    current candidate and its test results, as the authors' code passes them)."""
    hidden_feedback: bool = False
    """The Discussion's upper bound ("Practicality of RAMP") and the authors' protocol for
    ChatRepair and LANTERN: the method's checks run the task's hidden tests instead of generated
    (RAMP: no Test Designer) or sample tests, and stop once they all pass. The one hole in the
    trust boundary (ramp.hidden_feedback); its scores are labelled everywhere, never strict."""
    programmer_context: str = "history"
    """What the Programmer sees besides the problem and the buggy program: ``history`` (the
    paper's 3.1.3 and the authors' runner: every earlier reflection in order, and the previous
    candidate with its failing traces) or ``latest`` (the formula r_t = P(C, d, e_t) read
    literally: the latest reflection only)."""
    programmer_style: str = "cot"
    """Programmer prompt, ``prompts/programmer/<style>.j2``: ``cot`` few-shot chain of thought,
    ``scot`` structured chain of thought (Table 4), ``zero_shot`` / ``few_shot`` (the
    Zero-Shot and Few-Shot baselines: one call, without / with one worked example)."""
    max_iterations: int = 0
    """Iterations this variant may use; 0 = the study's budget K (Zero-Shot: 1)."""
    target_language: str = "python"
    """LANTERN-style: the language the program is translated to and repaired in."""
    alternatives: bool = True
    """ChatRepair: once a patch passes the sample tests, spend the remaining turns asking for
    alternative patches, as the original does (off: stop at the first plausible patch)."""
    include_io_spec: bool = True
    """The Programmer's prompt has the input/output specification (Table 4: w/o I/O spec)."""
    include_limits: bool = True
    """The Programmer's prompt has the time and memory limits (Table 4: w/o limits)."""
    include_samples: bool = False
    """The Programmer's prompt has the statement's sample tests (Table 4: with samples), and
    then its notes, which often walk through the samples (without samples, neither)."""
    candidates: int = 1
    """RAMP+: Programmer candidates per iteration, one call each with its own seed (the paper's
    RAMP writes one)."""
    sample_gate: bool = True
    """RAMP+: the statement's sample tests veto: a candidate failing one is never chosen while
    one that passes them exists (off: they count as evidence like the generated tests)."""
    agreement_selection: bool = True
    """RAMP+: candidates with identical outputs on the generated inputs form a group, and a
    group's size (distinct programs) counts in its score beside its agreement with the Test
    Designer's expected outputs (off: the score is the expected outputs matched alone)."""
    distinguishing_inputs: bool = True
    """RAMP+: when the two best groups are close, ask the model for inputs on which they differ
    and for which output the statement implies; the judged input becomes evidence."""
    split_groups: bool = False
    """RAMP+ and breadth: when no two groups are close, the chosen group's representative and
    the member least like it (most lines changed between them) are put to the Arbiter as close
    groups are: a judged input on which they differ splits the group, its judged-right part
    first. Programs that agree on every generated input may still differ (the inputs miss the
    bug); once a pair, as every Arbiter pair."""
    reject_unchanged: bool = False
    """RAMP+ and breadth: a candidate that is the buggy program unchanged (no line edited, blank
    lines and trailing spaces aside) is known wrong, since every task's program fails a hidden
    test by the data set's definition: it is gated out as one failing a sample is, so it is
    never chosen while a changed one passes the samples, and casts no vote for its group."""
    refine_from_best: bool = True
    """RAMP+: the Programmer refines the best candidate seen and the best one is returned (off:
    it refines, and the method returns, the latest iteration's choice, as RAMP does)."""
    stop_rule: str = "confident"
    """RAMP+ and breadth: ``confident`` (the chosen group is confident: docs/ramp_plus.md),
    ``generated`` (RAMP's rule: the chosen candidate passes every check), ``settled`` (the
    chosen group passes the samples, has ``confident_votes`` programs and no close rival:
    docs/breadth.md) or ``budget`` (never stop early)."""
    confident_votes: int = 2
    """RAMP+ and breadth: distinct programs the chosen group needs for the confident or settled
    stop rule."""
    draw_styles: tuple[str, ...] = ("zero_shot",)
    """Breadth: the Programmer prompts (styles of ``programmer_style``) its independent draws
    cycle through, draw i taking style i mod their number."""
    debug_rounds: int = 0
    """Breadth: times a draw that fails a sample test is shown those failures and rewritten
    (samples only; 0: no debugging)."""
    code_temperature: float = 0.8
    """Sampling temperature of the calls that write code (the Programmer's, a baseline's coder)."""
    analysis_temperature: float = 0.1
    """Sampling temperature of the calls that analyse rather than code: the Feedback
    Integrator's reflections, the Test Designer's tests, a baseline's plans and reviews."""
    top_p: float = 0.95
    code_max_tokens: int = 1024
    """Answer cap of the calls that write code."""
    analysis_max_tokens: int = 512
    """Answer cap of reflections, plans and reviews."""
    test_max_tokens: int = 1024
    """Answer cap of the Test Designer (the authors' 1,024: six tests with large inputs)."""

    def __post_init__(self) -> None:
        if self.reflection_strategy not in REFLECTION_STRATEGIES:
            raise ValueError(
                f"variant {self.name!r}: reflection_strategy must be 'direct' or 'spec', "
                f"not {self.reflection_strategy!r}"
            )
        if self.programmer_context not in PROGRAMMER_CONTEXTS:
            raise ValueError(
                f"variant {self.name!r}: programmer_context must be one of "
                f"{', '.join(PROGRAMMER_CONTEXTS)}, not {self.programmer_context!r}"
            )
        if self.programmer_style not in PROGRAMMER_STYLES:
            raise ValueError(
                f"variant {self.name!r}: programmer_style must be one of "
                f"{', '.join(PROGRAMMER_STYLES)}, not {self.programmer_style!r}"
            )
        if self.method not in METHODS:
            raise ValueError(
                f"variant {self.name!r}: method must be one of {', '.join(METHODS)}, "
                f"not {self.method!r}"
            )
        if self.max_iterations < 0:
            raise ValueError(f"variant {self.name!r}: max_iterations must be >= 0")
        if self.stop_rule not in STOP_RULES:
            raise ValueError(
                f"variant {self.name!r}: stop_rule must be one of {', '.join(STOP_RULES)}, "
                f"not {self.stop_rule!r}"
            )
        if self.hidden_feedback and self.method not in HIDDEN_FEEDBACK_METHODS:
            raise ValueError(
                f"variant {self.name!r}: hidden_feedback is for the methods "
                f"{', '.join(HIDDEN_FEEDBACK_METHODS)}, not {self.method!r}"
            )
        object.__setattr__(self, "draw_styles", tuple(self.draw_styles))  # YAML gives lists
        bad = [s for s in self.draw_styles if s not in PROGRAMMER_STYLES]
        if bad or not self.draw_styles:
            raise ValueError(
                f"variant {self.name!r}: draw_styles must name styles of "
                f"{', '.join(PROGRAMMER_STYLES)}, not {list(self.draw_styles)!r}"
            )
        if self.debug_rounds < 0:
            raise ValueError(f"variant {self.name!r}: debug_rounds must be >= 0")
        if self.candidates < 1 or self.confident_votes < 1:
            raise ValueError(f"variant {self.name!r}: candidates and confident_votes must be >= 1")

    def budget(self, study_budget: int) -> int:
        """The iterations this variant runs under a study budget K."""
        return min(study_budget, self.max_iterations) if self.max_iterations else study_budget

    @property
    def programmer_view(self) -> ProblemView:
        """The Programmer's view of the problem (Table 4's switches; the notes follow the
        samples)."""
        return ProblemView(self.include_io_spec, self.include_limits, self.include_samples,
                           include_notes=self.include_samples)

    def code_params(self, seed: int, lang: str = "ruby") -> SamplingParams:
        """A call answered by a ``lang`` program: generation ends once the program is written."""
        end = f"program:{lang}"
        return SamplingParams(self.code_temperature, self.top_p, self.code_max_tokens, seed,
                              stop_when=end if end in RULES else "")

    def analysis_params(self, seed: int) -> SamplingParams:
        return SamplingParams(self.analysis_temperature, self.top_p, self.analysis_max_tokens, seed)

    def test_params(self, seed: int) -> SamplingParams:
        """The Test Designer's call: an analysis call with its own, larger answer cap."""
        return SamplingParams(self.analysis_temperature, self.top_p, self.test_max_tokens, seed)


FIELDS = {f.name for f in dataclasses.fields(Variant)}
"""The keys a variant may set (``name`` is the key it is listed under); the config schema's
variant properties are checked against it by a test."""


def variant_from_config(name: str, overrides: Mapping[str, Any] | None) -> Variant:
    """Build a variant; an unknown key is an error that names it and the variant."""
    overrides = dict(overrides or {})
    unknown = sorted(set(overrides) - FIELDS - {"description"})
    if unknown:
        raise ValueError(
            f"config variants.{name}: unknown key(s) {', '.join(unknown)}; "
            f"known: {', '.join(sorted(FIELDS - {'name'}))}"
        )
    overrides.pop("description", None)
    return Variant(name=name, **overrides)


def variants_from_config(config: Mapping[str, Any]) -> dict[str, Variant]:
    return {n: variant_from_config(n, o) for n, o in (config.get("variants") or {}).items()}
