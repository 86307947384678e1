"""What decides a model stage's answers, as the workflow declares it (STYLE lesson 17).

A model stage (rules reflect, design_tests, repair_iteration, run_method, draw_samples) declares

* as inputs, the prompt templates it renders: those its agents and method name for the variant
  (:func:`stage_templates`, asked of ramp.methods), with every partial they include in the
  study's language (:func:`template_files`). Editing a Programmer template re-plans the
  iterations, not the reflections or the tests;
* as params, the fields that decide its answers, one param each (:func:`stage_params`): the
  resolved variant (:func:`variant_fields`), the model entry without the fields that change
  only speed or bookkeeping (:func:`model_fields`, :data:`SPEED_ONLY_MODEL_FIELDS`) and the
  study's seed and budget, or number of draws (:func:`study_fields`).

Both are derived from the data (the :class:`~ramp.variants.Variant` and
:class:`~ramp.llm.spec.ModelSpec` dataclasses, the templates' own include statements), so a
field or partial added later is declared without an edit here. Snakemake re-plans a job whose
inputs or params changed; a re-planned job whose prompts render as before replays every call
from the model cache (ramp.llm.cache keys a call on its rendered prompt and parameters).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import jinja2
from jinja2 import nodes
from jinja2.visitor import NodeTransformer

from ramp import study_config
from ramp.methods import draws, method_templates
from ramp.methods import ramp as ramp_method
from ramp.prompting import PromptLibrary, default_prompts_dir
from ramp.variants import Variant

Config = Mapping[str, Any]

STAGES = ("reflect", "design_tests", "repair_iteration", "run_method", "draw_samples")
"""The workflow's model stages (workflow/rules/agents.smk, coverage.smk)."""

SPEED_ONLY_MODEL_FIELDS = frozenset(
    {
        "name",  # the {model} wildcard names the run already
        "n_threads",  # each dot product is one thread's: the text is the same
        "base_url",  # where a server is reached ...
        "api_key_env",  # ... with which key
        "timeout_s",  # how long a request is waited for ...
        "max_retries",  # ... how often it is retried ...
        "concurrency",  # ... and how many are in flight
    }
)
"""Model entry fields that change how fast or where an answer is made, never the answer: not
params of a model stage. Every other field is one, a field added later included."""


def stage_templates(stage: str, variant: Variant) -> tuple[str, ...]:
    """The templates (names under prompts/, without ``.j2``) that ``stage`` renders for
    ``variant``, as the agent and method code names them; includes not followed."""
    if stage == "reflect":
        return ramp_method.reflection_templates(variant)
    if stage == "design_tests":
        return ramp_method.test_design_templates(variant)
    if stage == "repair_iteration":
        return ramp_method.iteration_templates(variant)
    if stage == "run_method":
        return method_templates(variant.method, variant)
    if stage == "draw_samples":
        return draws.templates(variant)
    raise ValueError(f"unknown model stage {stage!r} (known: {', '.join(STAGES)})")


class _BindLanguage(NodeTransformer):
    """Replaces the language's key in an include's name (``lang.key``, ``task.language.key``)
    with the study's language, so that the name is known before rendering."""

    def __init__(self, key: str) -> None:
        self.key = key

    def visit_Getattr(self, node: nodes.Getattr) -> nodes.Node:
        inner = node.node
        is_lang = isinstance(inner, nodes.Name) and inner.name == "lang"
        is_task_language = (
            isinstance(inner, nodes.Getattr)
            and inner.attr == "language"
            and isinstance(inner.node, nodes.Name)
            and inner.node.name == "task"
        )
        if node.attr == "key" and (is_lang or is_task_language):
            return nodes.Const(self.key, lineno=node.lineno)
        return self.generic_visit(node)


_REFERENCES = (nodes.Include, nodes.Import, nodes.FromImport, nodes.Extends)


def _referenced(env: jinja2.Environment, name: str, language: str) -> list[str]:
    """The template files ``name`` (a file name under the root) includes, imports or extends."""
    assert env.loader is not None
    source, _, _ = env.loader.get_source(env, name)
    found = []
    for node in env.parse(source, name=name).find_all(_REFERENCES):
        expr = _BindLanguage(language).visit(node.template)
        try:
            value = expr.as_const(nodes.EvalContext(env))
        except nodes.Impossible:
            raise ValueError(
                f"prompts/{name}, line {node.lineno}: an included template's name depends on "
                "more than the task's language, so the workflow cannot declare it as an input"
            ) from None
        found += [value] if isinstance(value, str) else list(value)
    return found


def template_files(names: Iterable[str], language: str, root: Path | None = None) -> list[Path]:
    """The files templates ``names`` render from in a study of ``language`` (a language key):
    their own and every partial they include, transitively; sorted, each once."""
    root = Path(root) if root is not None else default_prompts_dir()
    env = PromptLibrary(root).environment
    todo = [f"{n}.j2" for n in names]
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        if not (root / name).is_file():
            raise FileNotFoundError(f"prompt template {root / name} does not exist")
        seen.add(name)
        todo += _referenced(env, name, language)
    return sorted(root / n for n in seen)


def _as_input(path: Path) -> str:
    """A path as the workflow names an input: relative to the working directory if under it."""
    relative = os.path.relpath(path)
    return path.as_posix() if relative.startswith("..") else Path(relative).as_posix()


def prompt_inputs(config: Config, stage: str, variant_name: str) -> list[str]:
    """The template files model stage ``stage`` renders for a configured variant: its inputs."""
    variant = study_config.variant(config, variant_name)
    names = stage_templates(stage, variant)
    return [_as_input(p) for p in template_files(names, study_config.language(config).key)]


def variant_fields(config: Config, variant_name: str) -> dict[str, Any]:
    """The configured variant with every field resolved (its defaults included), by name."""
    fields = dataclasses.asdict(study_config.variant(config, variant_name))
    fields.pop("name")  # the {variant} wildcard
    return dict(sorted(fields.items()))


def _model_keys() -> list[str]:
    from ramp.llm.spec import ModelSpec

    return sorted(
        [f.name for f in dataclasses.fields(ModelSpec) if f.name not in SPEED_ONLY_MODEL_FIELDS]
        + list(_MODEL_DIGESTS)
    )


_MODEL_DIGESTS = ("weights_sha256", "chat_template_digest")


def model_fields(config: Config, model_name: str) -> dict[str, Any]:
    """The model entry's fields that may change an answer, defaults resolved, by name; with
    the digests of an embedded model's weights and of a custom chat template ("" if none)."""
    from ramp.llm import embedded
    from ramp.llm.spec import ModelsConfig

    spec = ModelsConfig.from_dict(config.get("models") or {}).spec(model_name)
    fields = {k: v for k, v in dataclasses.asdict(spec).items() if k not in SPEED_ONLY_MODEL_FIELDS}
    fields["weights_sha256"] = embedded.lookup(spec.embedded).sha256 if spec.embedded else ""
    fields["chat_template_digest"] = spec.template_digest if spec.chat_template else ""
    return dict(sorted(fields.items()))


def study_fields(config: Config, stage: str, variant_name: str) -> dict[str, Any]:
    """The study's settings a stage's answers depend on: the seed of every call and, for the
    stages that iterate, the variant's budget of iterations (the last one writes no
    reflection)."""
    fields: dict[str, Any] = {"seed": study_config.seed(config)}
    if _iterates(stage):
        fields["budget"] = study_config.budget(config, variant_name)
    if stage == "draw_samples":
        fields["draws"] = draws.DrawsConfig.of(config).draws
    return fields


def _iterates(stage: str) -> bool:
    if stage not in STAGES:
        raise ValueError(f"unknown model stage {stage!r} (known: {', '.join(STAGES)})")
    return stage in ("repair_iteration", "run_method")


def param_names(stage: str) -> list[str]:
    """The names of model stage ``stage``'s params (``variant_top_p``, ``model_context_size``,
    ``study_seed``, ...): one per field of :func:`stage_params`, known before any job is."""
    variant = [f.name for f in dataclasses.fields(Variant) if f.name != "name"]
    study = ["seed", "budget"] if _iterates(stage) else ["seed"]
    study += ["draws"] if stage == "draw_samples" else []
    return (
        [f"variant_{k}" for k in sorted(variant)]
        + [f"model_{k}" for k in _model_keys()]
        + [f"study_{k}" for k in study]
    )


def stage_params(config: Config, stage: str, model_name: str, variant_name: str) -> dict[str, str]:
    """Model stage ``stage``'s params for a job: each field that decides its answers as text
    naming it, ``variant.top_p=0.95``, under the name :func:`param_names` gives it. Snakemake
    keeps a job's params and, when one changed, says why the job reruns with the old and new
    text: the field is named there."""
    groups = {
        "variant": variant_fields(config, variant_name),
        "model": model_fields(config, model_name),
        "study": study_fields(config, stage, variant_name),
    }
    return {
        f"{group}_{key}": f"{group}.{key}={value!r}"
        for group, fields in groups.items()
        for key, value in fields.items()
    }
