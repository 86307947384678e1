"""What a model stage declares (ramp.provenance): its templates with their partials, in the
study's language, and one param per answer-deciding field, derived from the dataclasses."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml

from ramp import provenance
from ramp.llm.spec import ModelSpec
from ramp.prompting import PromptLibrary, default_prompts_dir
from ramp.variants import Variant

REPO = Path(__file__).resolve().parents[1]
CONFIG = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
PROMPTS = default_prompts_dir()


def names(paths) -> list[str]:
    return [p.relative_to(PROMPTS).as_posix() for p in paths]


def test_a_template_brings_the_partials_it_includes_in_the_studys_language():
    assert names(provenance.template_files(["programmer/cot"], "ruby")) == [
        "_problem.j2", "programmer/_context.j2", "programmer/cot.j2",
        "programmer/examples/ruby/cot.j2"]
    assert "programmer/examples/cpp/cot.j2" in names(
        provenance.template_files(["programmer/cot"], "cpp"))
    # ChatRepair's partials include partials
    assert names(provenance.template_files(["baselines/chatrepair/initial"], "ruby")) == [
        "_problem.j2", "baselines/chatrepair/_bug.j2", "baselines/chatrepair/_system.j2",
        "baselines/chatrepair/initial.j2"]


def test_an_include_named_by_more_than_the_language_cannot_be_declared(tmp_path):
    (tmp_path / "a.j2").write_text('{% include "parts/" ~ task.name ~ ".j2" %}\n')
    with pytest.raises(ValueError, match=r"a\.j2, line 1: an included template's name"):
        provenance.template_files(["a"], "ruby", root=tmp_path)
    with pytest.raises(FileNotFoundError, match=r"missing\.j2"):
        provenance.template_files(["missing"], "ruby", root=tmp_path)


def test_prompt_inputs_are_relative_to_the_working_directory_when_under_it(
    monkeypatch, tmp_path
):
    monkeypatch.chdir(REPO)
    assert provenance.prompt_inputs(CONFIG, "design_tests", "ramp") == [
        "prompts/_problem.j2", "prompts/test_designer/designer.j2"]
    monkeypatch.chdir(tmp_path)
    assert all(Path(p).is_absolute()
               for p in provenance.prompt_inputs(CONFIG, "design_tests", "ramp"))


def test_every_variant_field_is_a_param_by_its_name():
    params = provenance.stage_params(CONFIG, "repair_iteration", "qwen2.5-coder-1.5b", "scot")
    assert list(params) == provenance.param_names("repair_iteration")
    fields = {f.name for f in dataclasses.fields(Variant)} - {"name"}
    assert {f"variant_{f}" for f in fields} <= set(params)
    assert params["variant_programmer_style"] == "variant.programmer_style='scot'"
    assert params["variant_code_temperature"] == "variant.code_temperature=0.8"
    assert params["study_seed"] == "study.seed=0"
    assert params["study_budget"] == "study.budget=11"
    assert "study_budget" not in provenance.param_names("reflect")


def test_the_draws_declare_their_variants_template_and_fields_and_their_number():
    config = {**CONFIG, "coverage": {"draws": 32, "variant": "zero_shot"}}
    params = provenance.stage_params(config, "draw_samples", "qwen2.5-coder-1.5b", "zero_shot")
    assert params["study_draws"] == "study.draws=32"
    assert params["variant_programmer_style"] == "variant.programmer_style='zero_shot'"
    assert "study_budget" not in params
    inputs = provenance.prompt_inputs(config, "draw_samples", "zero_shot")
    assert inputs == ["prompts/_problem.j2", "prompts/programmer/zero_shot.j2"]


@pytest.mark.parametrize("stage", provenance.STAGES)
def test_the_param_names_are_known_before_any_job_for_every_configured_run(stage):
    paper = yaml.safe_load((REPO / "config" / "paper.yaml").read_text())
    for config in (CONFIG, {**CONFIG, "models": {**CONFIG["models"], **paper["models"]}}):
        for model in config["models"]["entries"]:
            for variant in config["variants"]:
                params = provenance.stage_params(config, stage, model, variant)
                assert list(params) == provenance.param_names(stage), (model, variant)


def with_entry(model: str, **fields) -> dict:
    entries = {**CONFIG["models"]["entries"]}
    entries[model] = {**entries[model], **fields}
    return {**CONFIG, "models": {**CONFIG["models"], "entries": entries}}


def changed(config: dict, model: str = "qwen2.5-coder-1.5b") -> dict[str, tuple[str, str]]:
    before = provenance.stage_params(CONFIG, "reflect", model, "ramp")
    after = provenance.stage_params(config, "reflect", model, "ramp")
    return {k: (before[k], after[k]) for k in before if before[k] != after[k]}


def test_a_model_entrys_answer_changing_fields_are_params_and_speed_is_not():
    assert changed(with_entry("qwen2.5-coder-1.5b", context_size=16384)) == {
        "model_context_size": ("model.context_size=8192", "model.context_size=16384")}
    assert set(changed(with_entry("qwen2.5-coder-1.5b", n_batch=64))) == {"model_n_batch"}
    assert set(changed(with_entry("qwen2.5-coder-1.5b", embedded="qwen2.5-coder-0.5b"))) == {
        "model_embedded", "model_weights_sha256"}
    assert changed(with_entry("qwen2.5-coder-1.5b", n_threads=2)) == {}
    served = dict(base_url="http://elsewhere:1/v1", timeout_s=5.0, max_retries=0,
                  concurrency=1, api_key_env="OTHER_KEY")
    assert changed(with_entry("local-server", **served), "local-server") == {}
    # another entry's change is no param of this one's jobs
    assert changed(with_entry("qwen2.5-coder-0.5b", context_size=8192)) == {}


def test_the_speed_only_fields_are_model_entry_fields():
    fields = {f.name for f in dataclasses.fields(ModelSpec)}
    assert fields >= provenance.SPEED_ONLY_MODEL_FIELDS


def test_a_custom_chat_templates_digest_is_a_param(tmp_path):
    template = tmp_path / "chat.j2"
    template.write_text("{{ messages }}")
    config = with_entry("qwen2.5-coder-1.5b", chat_template=str(template))
    before = provenance.model_fields(config, "qwen2.5-coder-1.5b")["chat_template_digest"]
    template.write_text("{{ messages }}\n")
    assert provenance.model_fields(config, "qwen2.5-coder-1.5b")["chat_template_digest"] != before


def test_comments_and_whitespace_inside_tags_render_the_same_text(tmp_path):
    """What makes a template edit free to re-plan: the call cache keys the rendered text, so an
    edit the rendering drops (a comment, spacing inside a tag) replays every call; an edit of
    the text itself, a trailing space included, is a new prompt."""
    original = (PROMPTS / "test_designer" / "designer.j2").read_text()
    edits = {
        "comment": original.replace("{% include", "{# a new comment #}\n{% include", 1),
        "tag spacing": original.replace('{% include "_problem.j2" %}',
                                        '{%  include   "_problem.j2"  %}'),
        "text": original.replace("<|user|>", "<|user|>\nPlease.", 1),
        "trailing space": original.replace("for each.\n", "for each. \n", 1),
    }
    from ramp.tasks import Problem, TestCase
    from ramp.variants import ProblemView

    task = Problem(task_id="t", problem_id="p", description="Print 2n.", input_spec="n",
                   output_spec="2n", notes="", samples=(TestCase("3\n", ("6\n",), "sample"),),
                   time_limit_s=1.0, memory_mb=256, tags=(), difficulty=800,
                   buggy_code="puts 1\n")

    def render(text: str):
        root = tmp_path / str(len(list(tmp_path.iterdir())))
        (root / "test_designer").mkdir(parents=True)
        (root / "_problem.j2").write_text((PROMPTS / "_problem.j2").read_text())
        (root / "test_designer" / "designer.j2").write_text(text)
        return PromptLibrary(root).render("test_designer/designer",
                                          {"task": task, "view": ProblemView()})

    before = render(original)
    assert {name: render(text) == before for name, text in edits.items()} == {
        "comment": True, "tag spacing": True, "text": False, "trailing space": False}
