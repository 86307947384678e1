from pathlib import Path

import pytest
import yaml

from ramp.llm.base import ChatMessage, SamplingParams, truncate_at_stop
from ramp.llm.registry import BACKENDS, backend_class
from ramp.llm.spec import ConfigError, ModelsConfig, ModelSpec

ROOT = Path(__file__).resolve().parents[2]


def test_sampling_params_validate_and_freeze_stop():
    p = SamplingParams(stop=["\n\n"])  # a YAML list becomes a tuple
    assert p.stop == ("\n\n",)
    assert hash(p) == hash(SamplingParams(stop=("\n\n",)))
    with pytest.raises(ValueError, match="top_p"):
        SamplingParams(top_p=0)
    with pytest.raises(ValueError, match="temperature"):
        SamplingParams(temperature=-0.1)
    with pytest.raises(ValueError, match="max_new_tokens"):
        SamplingParams(max_new_tokens=0)


def test_chat_message_rejects_unknown_role():
    with pytest.raises(ValueError, match="'tool'"):
        ChatMessage("tool", "x")


@pytest.mark.parametrize(
    ("text", "stop", "want"),
    [
        ("abc```x", ["```"], ("abc", True)),
        ("abc", ["z"], ("abc", False)),
        ("a.b;c", [";", "."], ("a", True)),
        ("abc", [""], ("abc", False)),
    ],
)
def test_truncate_at_stop(text, stop, want):
    assert truncate_at_stop(text, stop) == want


def test_spec_rejects_unknown_key_naming_it():
    with pytest.raises(ConfigError, match=r"models\.entries\.m: unknown key 'n_thread'"):
        ModelSpec.from_dict("m", {"backend": "llamacpp", "embedded": "x", "n_thread": 2})


def test_spec_rejects_wrong_type_missing_backend_and_both_weights():
    with pytest.raises(ConfigError, match=r"m\.context_size: expected int"):
        ModelSpec.from_dict("m", {"backend": "llamacpp", "embedded": "x", "context_size": "4k"})
    with pytest.raises(ConfigError, match="missing key 'backend'"):
        ModelSpec.from_dict("m", {"embedded": "x"})
    with pytest.raises(ConfigError, match="exactly one of 'embedded' or 'weights'"):
        ModelSpec.from_dict("m", {"backend": "llamacpp", "embedded": "x", "weights": "y"})
    with pytest.raises(ConfigError, match="quantization: 'int3'"):
        ModelSpec.from_dict(
            "m", {"backend": "transformers", "weights": "y", "quantization": "int3"}
        )
    assert (
        ModelSpec.from_dict("m", {"backend": "openai", "weights": "y", "timeout_s": 5}).timeout_s
        == 5.0
    )


@pytest.mark.parametrize("name", ["config.yaml", "paper.yaml"])
def test_shipped_configs_parse(name):
    raw = yaml.safe_load((ROOT / "config" / name).read_text())
    config = ModelsConfig.from_dict(raw["models"])
    assert config.use and all(config.spec(n).backend in BACKENDS for n in config.use)


def test_models_config_errors_and_yaml_off():
    entries = {"a": {"backend": "fake", "weights": "w"}}
    with pytest.raises(ConfigError, match=r"models\.use: 'b' has no entry"):
        ModelsConfig.from_dict({"use": ["b"], "entries": entries})
    with pytest.raises(ConfigError, match="unknown key 'entrys'"):
        ModelsConfig.from_dict({"use": [], "entrys": entries})
    config = ModelsConfig.from_dict(
        yaml.safe_load("use: [a]\ncache: {mode: off}\nentries: {a: {backend: x, weights: w}}")
    )
    assert config.cache.mode == "off"
    with pytest.raises(ConfigError, match=r"unknown model 'zz' \(configured: a\)"):
        config.spec("zz")


def test_unknown_backend_lists_known():
    with pytest.raises(ConfigError, match="known: llamacpp, openai, transformers"):
        backend_class("vllm-direct")


def test_importing_the_package_loads_no_model_library():
    import subprocess
    import sys

    code = (
        "import sys, ramp.llm, ramp.llm.embedded, ramp.llm.cli_models, ramp.llm.cli_chat;"
        "heavy = ('torch', 'transformers', 'llama_cpp', 'openai');"
        "print(sorted(m for m in heavy if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_prefix_cache_settings_default_to_a_bounded_folder_and_are_checked():
    entries = {"a": {"backend": "llamacpp", "weights": "w"}}
    config = ModelsConfig.from_dict({"use": ["a"], "entries": entries})
    assert (config.cache.kv_dir, config.cache.kv_max_mb) == ("results/cache/kv", 16384)
    off = ModelsConfig.from_dict({"use": ["a"], "entries": entries,
                                  "cache": {"kv_dir": "kv", "kv_max_mb": 0}})
    assert (off.cache.kv_dir, off.cache.kv_max_mb) == ("kv", 0)
    for bad in (-1, "big", True):
        with pytest.raises(ConfigError, match="kv_max_mb"):
            ModelsConfig.from_dict({"use": ["a"], "entries": entries,
                                    "cache": {"kv_max_mb": bad}})
    with pytest.raises(ConfigError, match="known: committed, dir, kv_dir, kv_max_mb, mode"):
        ModelsConfig.from_dict({"use": ["a"], "entries": entries, "cache": {"kv": 1}})
