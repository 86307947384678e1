"""The workflow's contract on a tiny study: an edited prompt, variant or model entry re-plans
exactly the jobs it changes; what changes only speed re-plans no model job; a re-planned job
whose prompts render as before makes no model call; and a run never writes the committed
figures/.

The study runs in a copy of the project (so that its templates can be edited) against a local
stand-in for an OpenAI-compatible server, which answers by what a prompt asks and counts the
calls: two models (two entries naming two served models), RAMP and Zero-Shot, K = 2, 2 tasks.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

pytest.importorskip("openai")

from tests.llm.chat_server import ChatServer, completion

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
TINY = REPO / "tests" / "data" / "tiny.jsonl"
SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
MODELS = ("m1", "m2")
K = 2
TESTS = """### Test 1 (basic)
Input:
```
2
```
Output:
```
4
```
"""
# The model jobs' messages (workflow/rules/agents.smk), which name the job's model and variant.
MODEL_JOB = re.compile(
    r"^(?:Job \d+: )?(?P<what>Feedback Integrator: initial reflections|Test Designer: guiding "
    r"tests|Repair iteration \d+|Method \w+: every task's repair loop) \((?P<model>[^,]+), "
    r"(?P<variant>[^,]+),", re.MULTILINE)


def answer(messages: list[dict]) -> str:
    """A function of the prompt alone: tests for the Test Designer, else a wrong program (every
    task stays open, so every iteration runs) with a word of analysis."""
    if "careful tester" in messages[0]["content"]:
        return TESTS
    return "The output is off by one.\n\n```ruby\nn = gets.to_i\nputs n + 1\n```\n"


def Server() -> ChatServer:
    """The stand-in model: answers every prompt with :func:`answer` (``requests``: its calls)."""
    return ChatServer(lambda body: (200, completion(answer(body["messages"]), body["model"])))


def digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


class Study:
    def __init__(self, root: Path, server: Server) -> None:
        self.root = root
        self.server = server
        self.env = {**os.environ, "LANG": "C.UTF-8", "NO_PROXY": "127.0.0.1,localhost",
                    "PYTHONPATH": str(root / "workflow" / "scripts")}

    def snakemake(self, *options: str, configs: tuple[str, ...] = ()) -> str:
        """Snakemake on target ``all`` with the study's config and ``configs`` layered on it."""
        cmd = [SNAKEMAKE, "--cores", "2", *options, "--configfile", "tiny.yaml", *configs, "--",
               "all"]
        done = subprocess.run(cmd, cwd=self.root, capture_output=True, text=True, env=self.env,
                              timeout=1800)
        assert done.returncode == 0, (done.stdout + done.stderr)[-5000:]
        return done.stdout + done.stderr

    def plan(self, *configs: str) -> str:
        return self.snakemake("-n", configs=configs)

    def layer(self, name: str, overrides: dict) -> str:
        (self.root / name).write_text(yaml.safe_dump(overrides))
        return name


def model_jobs(plan: str) -> set[tuple[str, str, str]]:
    """The model jobs of a plan as (stage, model, variant); iterations as "Repair iteration"."""
    return {(re.sub(r" \d+$", "", m["what"]), m["model"], m["variant"])
            for m in MODEL_JOB.finditer(plan)}


class edited:
    """A file edited for the length of a ``with``, then put back with its old time stamps."""

    def __init__(self, path: Path, edit) -> None:
        self.path, self.edit = path, edit

    def __enter__(self):
        self.text, self.stat = self.path.read_text(), self.path.stat()
        self.path.write_text(self.edit(self.text))

    def __exit__(self, *exc):
        self.path.write_text(self.text)
        os.utime(self.path, ns=(self.stat.st_atime_ns, self.stat.st_mtime_ns))


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    root = tmp_path_factory.mktemp("replan")
    for item in ("Snakefile", "workflow", "config", "prompts", "envs", "figures"):
        src = REPO / item
        if src.is_dir():
            shutil.copytree(src, root / item, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(src, root / item)
    (root / "data").symlink_to(REPO / "data")
    server = Server()
    entries = {m: {"backend": "openai", "weights": m, "base_url": server.url} for m in MODELS}
    (root / "tiny.yaml").write_text(yaml.safe_dump({
        "data": {"jsonl": str(TINY)},
        "subsets": ["2"],
        "executor": {"workers": 1, "memory_mb": 256},
        "study": {"variants": ["ramp", "zero_shot"], "iterations": K, "seed": 0, "shards": 1},
        "models": {"use": list(MODELS), "entries": entries,
                   "cache": {"mode": "read-write", "dir": "results/cache/llm", "committed": []}},
    }))
    committed = digest(root / "figures")
    s = Study(root, server)
    s.snakemake()
    s.committed = committed
    yield s
    server.close()


def test_a_run_writes_its_figures_under_results_and_never_the_committed_ones(study):
    assert digest(study.root / "figures") == study.committed
    summary = (study.root / "results" / "figures" / "summary.md").read_text()
    assert "subset `2`" in summary
    assert (study.root / "results" / "figures" / "2" / "tables" / "table1.csv").is_file()
    assert len(study.server.requests) > 0
    assert "Nothing to be done" in study.plan()


def test_speed_and_placement_settings_re_plan_no_model_job(study):
    entries = {m: {"n_threads": 4, "concurrency": 1, "timeout_s": 30.0, "max_retries": 1}
               for m in MODELS}
    speed = study.layer("speed.yaml", {
        "executor": {"workers": 2}, "study": {"model_threads": 2},
        "models": {"entries": entries, "cache": {"kv_max_mb": 1}}})
    assert model_jobs(study.plan(speed)) == set()


def test_a_figure_style_edit_redraws_the_figures_and_re_plans_no_model_job(study):
    plots = study.root / "workflow" / "scripts" / "ramp" / "figures" / "plots.py"
    with edited(plots, lambda text: text + "\n# a style edit\n"):
        plan = study.plan()
    assert model_jobs(plan) == set() and "Rendering the tables and figures of '2'" in plan


def test_a_programmer_template_edit_re_plans_the_iterations_of_its_variants_only(study):
    with edited(study.root / "prompts" / "programmer" / "cot.j2",
                lambda text: text + "Be brief.\n"):
        jobs = model_jobs(study.plan())
    assert jobs == {("Repair iteration", m, "ramp") for m in MODELS}


def test_a_test_designer_template_edit_re_plans_the_tests_and_what_follows(study):
    with edited(study.root / "prompts" / "test_designer" / "designer.j2",
                lambda text: text + "Be brief.\n"):
        jobs = model_jobs(study.plan())
    assert jobs == {(stage, m, "ramp") for m in MODELS
                    for stage in ("Test Designer: guiding tests", "Repair iteration")}


def test_one_model_entrys_context_re_plans_that_models_jobs_only(study):
    bigger = study.layer("context.yaml", {"models": {"entries": {"m2": {"context_size": 8192}}}})
    plan = study.plan(bigger)
    assert {m for _, m, _ in model_jobs(plan)} == {"m2"}
    assert {v for _, _, v in model_jobs(plan)} == {"ramp", "zero_shot"}
    # Snakemake's reason names the field, with its old and new value
    assert "'model.context_size=4096'" in plan and "'model.context_size=8192'" in plan


def test_a_variant_field_re_plans_that_variants_jobs_only(study):
    cooler = study.layer("cooler.yaml", {"variants": {"ramp": {"code_temperature": 0.5}}})
    plan = study.plan(cooler)
    assert {v for _, _, v in model_jobs(plan)} == {"ramp"}
    assert "'variant.code_temperature=0.8' now: 'variant.code_temperature=0.5'" in plan
    # (`--list-changes params` is no help here: Snakemake 9.27 lists every file that has
    # recorded params, changed or not; the plan's reasons are what to read.)


def test_a_comment_or_tag_spacing_edit_re_plans_and_replays_every_call(study):
    """Last: it reruns the iterations. A comment and the spacing inside a tag render to
    nothing, so the re-planned jobs' prompts are the ones the cache holds: no model call, the
    same attempts."""
    run = study.root / "results" / "runs" / "m1" / "ramp" / "2"
    before = pd.read_parquet(run / "attempts.parquet")
    calls = len(study.server.requests)
    cot = study.root / "prompts" / "programmer" / "cot.j2"
    text = cot.read_text().replace('{% include "_problem.j2" %}', '{%  include "_problem.j2"  %}')
    assert "{%  include" in text
    cot.write_text("{# an edited comment #}\n" + text)
    assert model_jobs(study.plan()) == {("Repair iteration", m, "ramp") for m in MODELS}
    out = study.snakemake()
    assert "Repair iteration 2 (m1, ramp, 2, shard 1-of-1)" in out
    assert len(study.server.requests) == calls
    measured = ["peak_rss_mb", "exec_seconds"]
    pd.testing.assert_frame_equal(
        pd.read_parquet(run / "attempts.parquet").drop(columns=measured),
        before.drop(columns=measured))
    assert digest(study.root / "figures") == study.committed
