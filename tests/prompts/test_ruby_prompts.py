"""A Ruby study's prompts and sampling parameters are unchanged, byte for byte.

The committed digests (ruby_prompts.json, made by tests/prompts/golden.py) are those of every
call of every configured variant on three real Ruby tasks; the model cache and the committed
answers of the Ruby studies are keyed by exactly these prompts and parameters.
"""

from __future__ import annotations

import json

import pytest

from ramp.prompting import PromptLibrary

from . import golden

needs_data = pytest.mark.skipif(not golden.DATA.exists(), reason="the Ruby data set is not here")


class RecordingLibrary(PromptLibrary):
    """A prompt library that notes the templates it renders."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.rendered: set[str] = set()

    def render(self, name, variables):
        self.rendered.add(name)
        return super().render(name, variables)


@pytest.fixture(scope="module")
def recorded():
    lib = RecordingLibrary(PromptLibrary.default().root)
    return golden.digests(lib), lib.rendered


@needs_data
def test_every_ruby_prompt_and_its_parameters_are_unchanged(recorded):
    committed = json.loads(golden.DIGESTS.read_text(encoding="utf-8"))
    now, _ = recorded
    assert sorted(now) == sorted(committed)
    changed = {case: (committed[case], now[case]) for case in now if now[case] != committed[case]}
    assert not changed, f"{len(changed)} variant/task cases changed, e.g. {next(iter(changed))}"


@needs_data
def test_the_recording_renders_every_template(recorded):
    _, rendered = recorded
    root = PromptLibrary.default().root
    templates = {str(p.relative_to(root).with_suffix("")) for p in root.rglob("*.j2")
                 if not p.name.startswith("_") and "examples" not in p.parts}
    assert templates - rendered == set()


@needs_data
def test_ruby_code_calls_stop_at_a_ruby_program(recorded):
    now, _ = recorded
    assert {s for case in now.values() for s in case["stop_when"]} == {"program:ruby",
                                                                       "program:python"}
