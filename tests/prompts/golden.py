"""Every prompt a Ruby study sends, recorded through the methods themselves, as digests.

The model cache is keyed by the prompt's messages and the sampling parameters
(ramp.llm.cache.cache_key). A template or a method that changed one byte of a Ruby prompt, or a
stop rule, would orphan every cached and committed answer of the Ruby studies. So this runs
every method of every variant the study configs define (config/*.yaml) on a few real Ruby
tasks, with a scripted model (its answers take each method down its failure, unusable-answer,
plausible-patch and review paths) and a scripted executor (programs marked RIGHT pass, others
answer wrongly), and records each call's messages and parameters. What is committed
(ruby_prompts.json) is only sha256 digests per variant and task: no data-set text.

Regenerate (only when a Ruby prompt is meant to change, which orphans the Ruby answers):
``PYTHONPATH=workflow/scripts python tests/prompts/golden.py --write``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import yaml

from ramp.dataset import load_tasks
from ramp.llm.base import Prompt, SamplingParams
from ramp.llm.cache import cache_key
from ramp.llm.fake import FakeLLM
from ramp.methods import method
from ramp.methods.base import Executors, MethodContext
from ramp.prompting import PromptLibrary
from ramp.tasks import Limits, Problem, RunReport, TestCase, TestResult, Verdict
from ramp.variants import Variant, variant_from_config

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "../shared/data/xcodeeval-apr-ruby/validation.jsonl"
DIGESTS = Path(__file__).with_name("ruby_prompts.json")
# Three paper10 tasks: with notes and two samples; without notes; a runtime error with one
# sample and a 2 s limit.
TASK_IDS = ("c4155dc0e70535b4f91a2c9517cec939", "01e40f6af232215384754dc2ba978f23",
            "31ef7a05fc1c7ffb7d61047ab15fc828")
BUDGET = 4
MODEL_ID = "golden"

# The agent a prompt is for, by its system message (in any language's wording).
ROLE_MARKERS = {
    "explains bugs": "reflection",
    "explains why a program fails": "feedback",
    "careful tester": "test_design",
    "repairs buggy programs": "programmer",
    "Repair the buggy program": "programmer",
    "fails some of the problem's": "programmer",
    "automated program repair tool": "programmer",
    "analyst of a small software team": "analyst",
    "coder of a small software team": "programmer",
    "tester of a small software team": "tester",
    "programs into Python, keeping": "translator",
    "programmer who fixes programs so that they solve": "repairer",
    "You translate Python programs into": "programmer",
    "plans repairs": "planner",
    "implements a repair plan": "programmer",
    "You find inputs on which two programs": "distinguish",
    "You decide which of two outputs": "judge",
}

TESTS = """### Test 1 (basic)
Input:
```
3
```
Output:
```
6
```
### Test 2 (edge)
Input:
```
0
```
Output:
```
0
```
### Test 3 (large)
Generator:
```ruby
puts 10**9
```
Output:
```
2000000000
```
"""

# Each role's answers, in turn: a role's calls cycle through them, from the task's index on, so
# that the tasks take different paths (an unusable answer first, a plausible patch first...).
# The programs are marked for the scripted executor: RIGHT, HALF (right on some inputs) or not.
ANSWERS: dict[str, tuple[str, ...]] = {
    "reflection": ("The loop is off by one.\n```ruby\nputs 1\n```\nIt must start at 0.",),
    "feedback": ("It still prints the wrong value: the sum must skip the odd ones.",),
    "test_design": (TESTS, "No tests today."),
    "programmer": (
        "Let's think step by step.\n\n```ruby\nputs gets.to_i * 3 # first try\n```\n",
        "I cannot fix this.",
        "```ruby\nputs gets.to_i * 2 # RIGHT\n```",
        "```ruby\nputs gets.to_i * 0 # HALF right\n```",
        "```ruby\nn = gets.to_i\nputs n * 4 # second try\n```",
        "```ruby\nputs gets.to_i + gets.to_i # RIGHT too\n```",
    ),
    "translator": ("```python\nprint(int(input()) * 3)\n```", "No translation."),
    "repairer": ("```python\nprint(int(input()) * 2)  # RIGHT\n```", "Nothing to repair.",
                 "```python\nprint(int(input()) * 5)\n```"),
    "planner": ("1. Read n.\n2. Print twice n.",),
    "analyst": ("Subproblems: read n; double it. The bug: it triples n.",),
    "tester": ("The parsing is wrong.\nVERDICT: FAIL", "It looks fine to me.", "VERDICT: PASS"),
    "distinguish": ("```\n1\n```\n\n```\n2\n```\n",),
    "judge": ("The statement asks for twice n.\nAnswer: A",),
}


def role_of(prompt: Prompt) -> str:
    system = prompt[0].content
    for marker, role in ROLE_MARKERS.items():
        if marker in system:
            return role
    raise AssertionError(f"unknown agent prompt: {system[:80]!r}")


class ScriptedModel:
    """Answers each role from its cycle of ``answers`` (:data:`ANSWERS`), on a FakeLLM (which
    keeps every prompt and its parameters in ``seen``)."""

    def __init__(self, offset: int = 0, answers: dict[str, tuple[str, ...]] = ANSWERS) -> None:
        self.offset = offset
        self.answers = answers
        self.turns: Counter[str] = Counter()
        self.llm = FakeLLM(respond=self._respond, model_id=MODEL_ID)

    def _respond(self, prompt: Prompt) -> str:
        role = role_of(prompt)
        answers = self.answers[role]
        answer = answers[(self.offset + self.turns[role]) % len(answers)]
        self.turns[role] += 1
        return answer


class ScriptedExecutor:
    """A program marked RIGHT passes every test, one marked HALF the sample tests and an input
    of 0 (so that RAMP+ has close groups to tell apart); any other prints a number of its own."""

    def run(self, program: str, tests: Sequence[TestCase], limits: Limits, *,
            stop_at_first_failure: bool = False) -> RunReport:
        results = []
        for i, t in enumerate(tests):
            half = "HALF" in program and (t.kind == "sample" or t.input.strip() == "0")
            if "RIGHT" in program or half:
                results.append(TestResult(i, Verdict.PASSED, 0,
                                          stdout_tail=t.outputs[0] if t.outputs else ""))
            else:
                out = f"{(len(program) + len(t.input)) % 10}\n"
                results.append(TestResult(i, Verdict.WRONG_ANSWER, 0, stdout_tail=out))
        return RunReport(tuple(results))

    def output_of(self, program: str, stdin: str, limits: Limits) -> tuple[str, str]:
        if "RIGHT" in program:
            return f"{len(stdin)}\n", ""
        return f"{(len(program) + len(stdin)) % 10}\n", ""


def study_variants() -> dict[str, Variant]:
    """Every variant defined by a study config (config/*.yaml), by name."""
    found: dict[str, Variant] = {}
    for path in sorted((ROOT / "config").glob("*.yaml")):
        for name, overrides in (yaml.safe_load(path.read_text()).get("variants") or {}).items():
            found.setdefault(name, variant_from_config(name, overrides))
    return found


def problems() -> list[Problem]:
    tasks = {t.task_id: t for t in load_tasks(DATA).tasks}
    return [tasks[i].problem for i in TASK_IDS]


def record(variant: Variant, problem: Problem, lib: PromptLibrary, offset: int = 0,
           answers: dict[str, tuple[str, ...]] = ANSWERS) -> list[tuple[Prompt, SamplingParams]]:
    """Every call ``variant``'s method makes on ``problem`` with the scripted model."""
    model = ScriptedModel(offset, answers)
    executors = Executors(lambda _language, _workers: ScriptedExecutor())
    ctx = MethodContext(llm=model.llm, lib=lib, variant=variant, executors=executors,
                        budget=variant.budget(BUDGET))
    method(variant.method)(problem, ctx)
    return model.llm.seen


def digest(calls: Sequence[tuple[Prompt, SamplingParams]]) -> dict[str, object]:
    """The calls' roles, a sha256 of their messages, and one of their cache keys."""
    messages = json.dumps([[[m.role, m.content] for m in p] for p, _ in calls],
                          ensure_ascii=False)
    keys = "\n".join(cache_key(MODEL_ID, p, params) for p, params in calls)
    return {
        "roles": " ".join(role_of(p) for p, _ in calls),
        "stop_when": sorted({params.stop_when for _, params in calls} - {""}),
        "messages": hashlib.sha256(messages.encode("utf-8")).hexdigest(),
        "keys": hashlib.sha256(keys.encode("utf-8")).hexdigest(),
    }


def digests(lib: PromptLibrary | None = None) -> dict[str, dict[str, object]]:
    """``variant/task_id`` -> :func:`digest` of its calls, for every variant and task."""
    lib = lib or PromptLibrary.default()
    tasks = problems()
    return {f"{name}/{p.task_id}": digest(record(v, p, lib, offset))
            for name, v in study_variants().items() for offset, p in enumerate(tasks)}


def main(argv: Sequence[str]) -> int:
    if "--write" not in argv:
        print(__doc__)
        return 2
    DIGESTS.write_text(json.dumps(digests(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {DIGESTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
