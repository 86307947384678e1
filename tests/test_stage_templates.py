"""The templates a model stage declares as inputs (ramp.provenance) are the ones it renders:
every stage of every configured variant runs with a scripted model while Jinja's loader records
each template file it reads, and what it read must be declared."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import jinja2
import pytest
import yaml

from ramp import provenance, study_config
from ramp.llm.fake import FakeLLM
from ramp.methods import stages
from ramp.prompting import default_prompts_dir
from ramp.runs import RunId
from ramp.task_table import build_task_table
from tests.agents.scripted import TESTS_OK, ruby

REPO = Path(__file__).resolve().parents[1]
TINY = REPO / "tests" / "data" / "tiny.jsonl"
K = 3
BASE = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
CONFIG = {
    **BASE,
    "study": {"iterations": K, "seed": 0},
    "models": {"use": ["fake"], "entries": {"fake": {"backend": "llamacpp", "weights": "x"}}},
}
# RAMP+'s Arbiter, by the first words of its system prompts (prompts/arbiter/).
ARBITER_INPUTS = "You find inputs on which two programs"
ARBITER_JUDGE = "You decide which of two outputs is correct"


# The programs a scripted Programmer writes, in turn: wrong, right, and one that passes the sample
# (3 -> 6) but prints 5 for 0, so that RAMP reflects on a failure before it succeeds, ChatRepair
# has a plausible patch to ask alternatives to, and RAMP+'s candidates fall into close groups
# that its Arbiter is asked to tell apart. Each in Ruby and in Python (LANTERN repairs in it).
PROGRAMS = [
    ("puts n + 1", "print(n + 1)"),
    ("puts n * 2", "print(n * 2)"),
    ("puts(n == 0 ? 5 : n * 2)", "print(5 if n == 0 else n * 2)"),
]


class Model:
    """Answers by what a prompt asks: tests for the Test Designer, an input or a verdict for
    the Arbiter, otherwise the next of :data:`PROGRAMS` (each answer's text distinct)."""

    def __init__(self) -> None:
        self.programs = itertools.count()
        self.llm = FakeLLM(respond=self.answer, model_id="fake")

    def answer(self, prompt) -> str:
        system = prompt[0].content
        if "careful tester" in system:
            return TESTS_OK
        if system.startswith(ARBITER_INPUTS):
            return "Input 1:\n```\n0\n```\n"
        if system.startswith(ARBITER_JUDGE):
            return "The correct output is A."
        n = next(self.programs)
        rb, py = PROGRAMS[n % len(PROGRAMS)]
        return (f"Attempt {n}.\n\n```python\nn = int(input())\n{py}\n```\n\n"
                + ruby(f"n = gets.to_i\n{rb}"))


@pytest.fixture(scope="module")
def tasks(tmp_path_factory) -> Path:
    """The tiny data set's first task (print 2n, sample 3 -> 6)."""
    folder = tmp_path_factory.mktemp("tasks")
    first = TINY.read_text(encoding="utf-8").splitlines()[0]
    json.loads(first)
    (folder / "tasks.jsonl").write_text(first + "\n")
    build_task_table(folder / "tasks.jsonl", folder / "tasks.parquet", folder / "errors.parquet")
    return folder / "tasks.parquet"


class Loads:
    """The template files Jinja's file loader reads, as paths under prompts/."""

    def __init__(self, monkeypatch) -> None:
        self.names: set[str] = set()
        original = jinja2.FileSystemLoader.get_source

        def recording(loader, environment, template):
            self.names.add(template)
            return original(loader, environment, template)

        monkeypatch.setattr(jinja2.FileSystemLoader, "get_source", recording)

    def take(self) -> set[Path]:
        taken, self.names = self.names, set()
        return {default_prompts_dir() / n for n in taken}


def declared(stage: str, variant: str) -> set[Path]:
    v = study_config.variant(CONFIG, variant)
    return set(provenance.template_files(provenance.stage_templates(stage, v), "ruby"))


def run_variant(variant: str, tasks: Path, folder: Path, loads: Loads) -> dict[str, set[Path]]:
    """Every stage the workflow runs for ``variant``, as its rules run them: what each read."""
    run = RunId("default", "fake", variant, "tiny")
    read: dict[str, set[Path]] = {}
    loads.take()
    if not study_config.staged(CONFIG, variant):
        outputs = {n: folder / f"{n}.parquet" for n in ("attempts", "reflections", "tests")}
        stages.run_method(CONFIG, run, tasks, outputs, workers=1)
        return {"run_method": loads.take()}
    stages.reflect(CONFIG, run, tasks, folder / "reflections.parquet")
    read["reflect"] = loads.take()
    stages.design_tests(CONFIG, run, tasks, folder / "tests.parquet", workers=1)
    read["design_tests"] = loads.take()
    read["repair_iteration"] = set()
    previous = folder / "reflections.parquet"
    for t in range(1, study_config.budget(CONFIG, variant) + 1):
        inputs = {"tasks": tasks, "tests": folder / "tests.parquet", "previous": previous}
        previous = folder / f"iteration_{t}.parquet"
        stages.repair_iteration(CONFIG, run, t, inputs, previous, workers=1)
        read["repair_iteration"] |= loads.take()
    return read


def test_every_stage_of_every_variant_reads_only_templates_it_declares(
    tasks, tmp_path, monkeypatch
):
    loads = Loads(monkeypatch)
    rendered: set[Path] = set()
    every_declared: set[Path] = set()
    for variant in CONFIG["variants"]:
        model = Model()
        monkeypatch.setattr(study_config, "build_llm", lambda config, name, m=model: m.llm)
        read = run_variant(variant, tasks, tmp_path / variant, loads)
        for stage, files in read.items():
            wanted = declared(stage, variant)
            assert files <= wanted, (variant, stage, sorted(map(str, files - wanted)))
            rendered |= files
            every_declared |= wanted
    # Not declared for nothing: across the variants, every declared template was rendered.
    assert every_declared == rendered, sorted(map(str, every_declared - rendered))


def test_a_programmer_template_is_no_input_of_the_reflections_or_the_tests():
    cot = default_prompts_dir() / "programmer" / "cot.j2"
    designer = default_prompts_dir() / "test_designer" / "designer.j2"
    assert cot in declared("repair_iteration", "ramp")
    assert cot not in declared("reflect", "ramp") | declared("design_tests", "ramp")
    assert cot not in declared("repair_iteration", "zero_shot")
    assert designer in declared("design_tests", "ramp")
    assert designer not in declared("repair_iteration", "ramp") | declared("reflect", "ramp")
    # a variant without the stage's agent renders nothing there
    assert declared("design_tests", "no_testgen") == set()
    assert declared("reflect", "no_first_reflection") == set()
