"""The worked examples of the prompts are real programs: in every language, each example's buggy
program answers wrongly and its repair rightly, run in the sandbox."""

from __future__ import annotations

import shutil

import pytest

from ramp.execution.executor import SandboxExecutor
from ramp.execution.runtime import runtime_named
from ramp.languages import LANGUAGES
from ramp.parsing import code_blocks
from ramp.prompting import default_prompts_dir
from ramp.tasks import Limits, TestCase

EXAMPLES = sorted(default_prompts_dir().rglob("examples/*/*.j2"))
# "Given n and then n integers, print the sum of the even ones."
SUM_OF_EVENS = (TestCase("5\n1 2 3 4 6\n", ("12\n",)), TestCase("3\n-4 7 -2\n", ("-6\n",)),
                TestCase("1\n8\n", ("8\n",)))


def test_every_example_has_a_counterpart_in_every_study_language():
    by_language: dict[str, set[str]] = {}
    for path in EXAMPLES:
        by_language.setdefault(path.parent.name, set()).add(
            str(path.relative_to(default_prompts_dir()).parents[1] / path.name))
    assert set(by_language) == {"ruby", "cpp"}
    assert by_language["ruby"] == by_language["cpp"] and len(by_language["ruby"]) == 4


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_buggy_program_fails_and_the_repair_passes(path):
    language = LANGUAGES[path.parent.name]
    if shutil.which({"ruby": "ruby", "cpp": "g++"}[language.key]) is None:
        pytest.skip(f"no {language.name} toolchain here")
    programs = [b.body for b in code_blocks(path.read_text()) if b.lang == language.fence]
    buggy, *fixed = programs
    with SandboxExecutor(workers=1, runtime=runtime_named(language.key)) as executor:
        assert not executor.run(buggy, SUM_OF_EVENS, Limits()).passed
        for program in fixed:  # the self-planning example shows no repaired program
            report = executor.run(program, SUM_OF_EVENS, Limits())
            assert report.passed, report
