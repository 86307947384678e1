"""What a study config means: its language, the model, the variants, the budget K, the seed and
the workers.

The rules and the stage functions ask here, with Snakemake's ``config`` dict, so that a fact
(K = 11, a variant's method, how many iterations it runs) is answered in one place. Nothing
here runs at import time; the model layer is imported only when a model is built.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from ramp.languages import RUBY, STUDY_LANGUAGES, Language, language_of
from ramp.languages import language as language_named
from ramp.llm.base import LLM
from ramp.methods import STAGED
from ramp.shards import AUTO, shard_count
from ramp.variants import Variant, variant_from_config

DEFAULT_SEED = 0
DEFAULT_BUDGET = 11
"""The paper's budget K of repair iterations."""
DEFAULT_WORKERS = 2
"""Processes the executor runs one program's tests on."""


def language(config: Mapping[str, Any]) -> Language:
    """The study's language (config ``data.language``; Ruby when unset): its tasks' language.

    ``data.fetch.language``, which names the rows to fetch, defaults to it; set as well, it must
    say the same."""
    data = config.get("data") or {}
    name = str(data.get("language") or RUBY.key)
    if name not in STUDY_LANGUAGES:
        raise ValueError(f"config data.language: {name!r} is not one of "
                         f"{', '.join(STUDY_LANGUAGES)}")
    fetched = (data.get("fetch") or {}).get("language")
    if fetched not in (None, name):
        raise ValueError(f"config data.fetch.language is {fetched!r} but data.language is "
                         f"{name!r}: one study, one language (leave fetch.language out)")
    return language_named(name)


def data_root(config: Mapping[str, Any], root: str = "results") -> str:
    """Where the task tables and the bug validation of the study's language live under ``root``
    (``results`` or ``logs``): ``root`` itself for Ruby, where they always were (so that the
    Ruby studies' files stay up to date), ``root/<language>`` for another language, so that two
    languages' tables, subsets ``all`` and N included, never overwrite each other."""
    key = language(config).key
    return root if key == RUBY.key else f"{root}/{key}"


def check_language(config: Mapping[str, Any], langs: Iterable[str]) -> None:
    """ValueError unless every task ``lang`` (xCodeEval's dialect names) is of the study's
    language: the prompts, parser and executor of a task follow its own language, so a task file
    of another language would be studied under the wrong study's name."""
    study = language(config)
    other = sorted({lang for lang in langs if language_of(lang) != study})
    if other:
        raise ValueError(
            f"the study's language is {study.name} (config data.language) but its tasks include "
            f"{', '.join(other)} programs: point data.jsonl at a {study.name} task file, or set "
            "data.language to theirs")


def build_llm(config: Mapping[str, Any], name: str) -> LLM:
    """The configured model ``name``, behind the record/replay cache unless it is off."""
    from ramp.llm.registry import open_model
    from ramp.llm.spec import ModelsConfig

    return open_model(ModelsConfig.from_dict(config.get("models") or {}), name)


def batch_size(config: Mapping[str, Any], name: str) -> int:
    """How many prompts model ``name``'s backend takes at once (1 for llama.cpp on a CPU)."""
    from ramp.llm.registry import batch_size as of_spec
    from ramp.llm.spec import ModelsConfig

    return of_spec(ModelsConfig.from_dict(config.get("models") or {}).spec(name))


def variant(config: Mapping[str, Any], name: str) -> Variant:
    variants = config.get("variants") or {}
    if name not in variants:
        raise ValueError(f"config variants: no variant {name!r} (known: {', '.join(variants)})")
    return variant_from_config(name, variants[name])


def study_models(config: Mapping[str, Any]) -> list[str]:
    """The backbones the study fans out over (``models.use``), with the ``models`` section
    checked (each used name has an entry, every entry and the cache are valid), so that a
    mistake there stops the workflow at once, not when the first model job starts."""
    from ramp.llm.spec import ModelsConfig

    return list(ModelsConfig.from_dict(config.get("models") or {}).use)


def study_variants(config: Mapping[str, Any]) -> list[str]:
    """The variants the study runs (``study.variants``), each checked against ``variants``
    (its name known, its fields valid), so that a misspelt name stops the workflow at once
    with one line naming it."""
    names = list((config.get("study") or {}).get("variants", []))
    for name in names:
        if name not in (config.get("variants") or {}):
            raise ValueError(f"config study.variants: no variant {name!r} is defined under "
                             f"variants (known: {', '.join(config.get('variants') or {})})")
        variant(config, name)
    return names


def budget(config: Mapping[str, Any], variant_name: str | None = None) -> int:
    """The study's budget K, or the iterations a variant runs under it."""
    k = int((config.get("study") or {}).get("iterations", DEFAULT_BUDGET))
    return variant(config, variant_name).budget(k) if variant_name else k


def staged(config: Mapping[str, Any], variant_name: str) -> bool:
    """Whether a variant runs as the workflow's per-iteration agent stages (RAMP) rather than
    as one run_method job (a baseline)."""
    return variant(config, variant_name).method in STAGED


def variant_names(config: Mapping[str, Any], *, staged_only: bool) -> list[str]:
    """The configured variants that run as agent stages (True) or as one job (False)."""
    return [n for n in (config.get("variants") or {}) if staged(config, n) == staged_only]


def seed(config: Mapping[str, Any]) -> int:
    return int((config.get("study") or {}).get("seed", DEFAULT_SEED))


def workers(config: Mapping[str, Any]) -> int:
    return int((config.get("executor") or {}).get("workers", DEFAULT_WORKERS))


def model_threads(config: Mapping[str, Any]) -> int:
    """Cores a model job claims; equal to the model entry's n_threads (config.yaml says why)."""
    return int((config.get("study") or {}).get("model_threads", 1))


def shards(config: Mapping[str, Any], cores: int | None) -> int:
    """How many shards a run's tasks are split into (config study.shards: a number, or ``auto``:
    as many as the ``cores`` Snakemake was given can run model jobs at once)."""
    setting = (config.get("study") or {}).get("shards", AUTO)
    return shard_count(setting, cores=cores, threads_per_job=model_threads(config))


def study_name(config: Mapping[str, Any]) -> str:
    """A named study's name; "" for the default study (config study.name)."""
    return str((config.get("study") or {}).get("name") or "")


def study_root(config: Mapping[str, Any], root: str = "results") -> str:
    """The study's folder under ``root`` (``results`` or ``logs``): ``root/studies/NAME`` for a
    named study, ``root`` itself for the default one."""
    name = study_name(config)
    return f"{root}/studies/{name}" if name else root


def publish(config: Mapping[str, Any]) -> bool:
    """Whether the study draws its figures into the committed tree (config study.publish)."""
    return bool((config.get("study") or {}).get("publish", False))


def layered_publish(configs: Iterable[Mapping[str, Any]]) -> bool:
    """Whether config files (their contents), layered in order, set study.publish: the last
    one setting it wins, as Snakemake merges them."""
    value = False
    for config in configs:
        value = bool((config.get("study") or {}).get("publish", value))
    return value


def declared_publish(layers: Sequence[str | os.PathLike[str]]) -> bool:
    """:func:`layered_publish` of the config files at ``layers``."""
    return layered_publish(yaml.safe_load(Path(layer).read_text(encoding="utf-8")) or {}
                           for layer in layers)


def run_command(layers: Sequence[str], publish_flag: bool) -> str:
    """The command that runs the study config/config.yaml and the config files ``layers`` on it
    (``--configfile``, in order) configure, with ``--config 'study={publish: true}'`` when
    ``publish_flag`` (the files do not publish it themselves)."""
    args = f" --configfile {' '.join(layers)}" if layers else ""
    flag = " --config 'study={publish: true}'" if publish_flag else ""
    return f"./ramp.sh workflow{args}{flag}"


def publish_commands(config_dir: str | os.PathLike[str] = "config") -> dict[str, dict[str, str]]:
    """The command publishing each study's subsets: study name ("" for the default, which
    config.yaml configures) -> subset -> command. A file naming a study is its command, unless
    another file naming it sets study.publish and this one does not: then it is a layer on that
    one (``--configfile BASE LAYER``), making the subsets it lists. Files naming no study are
    left out. A subset is made by the first command (in file-name order) that lists it."""
    configs = {f"config/{path.name}": yaml.safe_load(path.read_text(encoding="utf-8")) or {}
               for path in sorted(Path(config_dir).glob("*.yaml"))}
    default_subsets = (configs.get("config/config.yaml") or {}).get("subsets") or []
    named: dict[str, list[str]] = {}
    for file, config in configs.items():
        name = study_name(config)
        if name or file == "config/config.yaml":
            named.setdefault(name, []).append(file)
    commands: dict[str, dict[str, str]] = {}
    for name, files in named.items():
        bases = [f for f in files if "publish" in (configs[f].get("study") or {})] or files
        base = bases[0]
        for file in files:
            layers = [f for f in ([file] if file in bases else [base, file])
                      if f != "config/config.yaml"]
            subsets = next((s for s in (configs[f].get("subsets") for f in reversed(layers)) if s),
                           default_subsets)
            command = run_command(layers, not layered_publish(configs[f] for f in layers))
            for subset in subsets:
                commands.setdefault(name, {}).setdefault(subset, command)
    return commands


def figures_root(config: Mapping[str, Any]) -> str:
    """Where the study's figures, tables and summary are drawn: under its results
    (``results/figures``, ``results/studies/NAME/figures``) unless it publishes, then into the
    committed ``figures/NAME`` (``figures`` for the default study)."""
    if publish(config):
        name = study_name(config)
        return f"figures/{name}" if name else "figures"
    return f"{study_root(config, 'results')}/figures"
