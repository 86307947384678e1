"""Variants are data: the config's presets build, and the schema knows every field."""

import dataclasses
from pathlib import Path

import pytest
import yaml
from snakemake.utils import update_config

from ramp import study_config
from ramp.variants import Variant, variant_from_config, variants_from_config

REPO = Path(__file__).resolve().parents[1]


def _config(name: str) -> dict:
    return yaml.safe_load((REPO / "config" / name).read_text())


@pytest.mark.parametrize("name", ["config.yaml", "paper.yaml"])
def test_configured_variants_build(name):
    variants = variants_from_config(_config(name))
    if variants:
        assert variants.get("ramp", Variant()) == Variant(name="ramp")


def _layered(*names: str) -> dict:
    """config.yaml with ``names`` layered on it, merged as --configfile merges them."""
    config = _config("config.yaml")
    for name in names:
        update_config(config, _config(name))
    return config


# Every committed study, as its header says to run it.
STUDIES = [(), ("paper.yaml",), ("table1.yaml",), ("cpp.yaml",), ("ramp_plus.yaml",),
           ("ramp_plus.yaml", "ramp_plus_main.yaml"), ("ramp_plus.yaml", "ramp_plus_ablation.yaml"),
           ("coverage.yaml",), ("breadth.yaml",), ("breadth.yaml", "breadth_heldout.yaml"),
           ("breadth_wide.yaml",), ("breadth_wide.yaml", "breadth_wide_heldout.yaml")]


@pytest.mark.parametrize("names", STUDIES, ids=lambda names: "+".join(names) or "config.yaml")
def test_every_committed_study_runs_defined_variants_and_models(names):
    config = _layered(*names)
    assert study_config.study_variants(config) == config["study"]["variants"]
    assert study_config.study_models(config) == config["models"]["use"]


def test_the_list_holds_every_committed_config():
    listed = {"config.yaml"} | {name for names in STUDIES for name in names}
    assert listed == {p.name for p in (REPO / "config").glob("*.yaml")}


def test_a_misspelt_study_variant_is_one_line_naming_it():
    config = {"study": {"variants": ["ramp", "ramp_pluss"]}, "variants": {"ramp": {}}}
    with pytest.raises(ValueError, match=r"^config study\.variants: no variant 'ramp_pluss' "
                                         r"is defined under variants \(known: ramp\)$"):
        study_config.study_variants(config)


def test_a_used_model_without_an_entry_is_one_line_naming_it():
    config = {"models": {"use": ["qwen-typo"], "entries": {}}}
    with pytest.raises(ValueError, match=r"^models\.use: 'qwen-typo' has no entry"):
        study_config.study_models(config)


def test_unknown_key_is_named():
    with pytest.raises(ValueError, match=r"variants\.x: unknown key\(s\) temprature"):
        variant_from_config("x", {"temprature": 0.2})


def test_bad_style_is_named():
    with pytest.raises(ValueError, match="programmer_style"):
        Variant(name="x", programmer_style="tree_of_thought")


def test_budget_of_a_variant():
    assert Variant().budget(11) == 11
    assert Variant(max_iterations=1).budget(11) == 1
    assert Variant(max_iterations=20).budget(11) == 11


def test_zero_shot_is_one_programmer_call():
    from ramp.methods.base import MethodContext, sandbox_executors
    from ramp.methods.ramp import repair
    from ramp.prompting import PromptLibrary
    from tests.agents.scripted import ScriptedAgents, made_up_problem, ruby

    task, lib = made_up_problem(), PromptLibrary.default()
    zero = variants_from_config(_config("config.yaml"))["zero_shot"]
    agents = ScriptedAgents(programmer=[ruby("puts gets.to_i * 3")])
    executors = sandbox_executors()
    try:
        attempts = repair(task, MethodContext(llm=agents.llm, lib=lib, variant=zero,
                                              executors=executors, budget=zero.budget(11)))
    finally:
        executors.close()
    assert agents.calls == ["programmer"] and len(attempts) == 1
    prompt = agents.prompts["programmer"][0]
    assert "Let's think step by step" not in prompt[-1].content  # no few-shot CoT
    assert [m.role for m in prompt] == ["system", "user"]


def test_the_notes_follow_the_samples_in_the_programmer_s_view():
    """Notes often walk through the sample tests: without samples, no notes in the Programmer's
    prompt; with them, both. The other agents see the notes either way."""
    from ramp.agents import feedback_integrator, programmer, test_designer
    from ramp.prompting import PromptLibrary
    from tests.agents.scripted import made_up_problem

    task, lib = made_up_problem(), PromptLibrary.default()

    noted = dataclasses.replace(task, notes="For n = 3 the answer is 6.")
    plain = programmer.prompt(lib, noted, Variant(), ["e0"])[-1].content
    shown = programmer.prompt(lib, noted, Variant(include_samples=True), ["e0"])[-1].content
    assert "For n = 3" not in plain and "Sample input" not in plain
    assert "Notes:\nFor n = 3 the answer is 6." in shown and "Sample input 1" in shown
    assert "For n = 3" in test_designer.prompt(lib, noted)[-1].content
    assert "For n = 3" in feedback_integrator.initial_prompt(lib, noted, Variant())[-1].content


def test_the_test_designer_answers_under_its_own_cap():
    v = Variant()
    assert v.test_params(3).max_new_tokens == 1024 and v.analysis_params(3).max_new_tokens == 512
    assert Variant(test_max_tokens=2048).test_params(0).max_new_tokens == 2048
