"""The parsers on answers captured from the real embedded models.

Made with `python benchmarks/capture_answers.py --model NAME` on the first `paper10` task;
the files are the models' raw answers, unedited.
"""

from pathlib import Path

import pytest

from ramp.parsing import clean_reflection, extract_program, parse_generated_tests

CAPTURED = Path(__file__).parent / "data" / "captured"
MODELS = sorted({p.name.rsplit("-", 1)[0] for p in CAPTURED.glob("*.txt")})


def answer(model: str, agent: str) -> str:
    return (CAPTURED / f"{model}-{agent}.txt").read_text(encoding="utf-8")


def test_both_models_captured():
    assert MODELS == ["qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"]


@pytest.mark.parametrize("model", MODELS)
def test_reflection_keeps_prose_drops_code(model):
    raw = answer(model, "reflection")
    text = clean_reflection(raw)
    assert text and "```" not in text
    assert len(text) <= len(raw)


@pytest.mark.parametrize("model", MODELS)
def test_programmer_answer_gives_ruby(model):
    got = extract_program(answer(model, "programmer"))
    assert got.ok, got.detail
    assert "gets" in got.code or "$<" in got.code or "STDIN" in got.code


@pytest.mark.parametrize("model", MODELS)
def test_designer_answer_gives_tests(model):
    parsed = parse_generated_tests(answer(model, "tests"))
    assert 1 <= len(parsed.tests) <= 6
    assert all(t.output.strip() and (t.input.strip() or t.generator) for t in parsed.tests)


def test_small_model_rambles_past_six_tests():
    """The 0.5B labels every test "basic" and keeps going until its token limit."""
    parsed = parse_generated_tests(answer("qwen2.5-coder-0.5b", "tests"))
    assert [t.kind for t in parsed.tests] == ["basic"] * 6
    assert parsed.tests[0].input == "2 3\n4 2\n5 7 6\n" and parsed.tests[0].output == "25\n"
    assert parsed.dropped[-1] == "2 test(s) beyond the first 6"


def test_small_model_reflection_contained_code():
    raw = answer("qwen2.5-coder-0.5b", "reflection")
    assert "```ruby" in raw
    assert "[code omitted]" in clean_reflection(raw)


def test_small_model_inline_quoted_tests_inside_a_ruby_fence():
    """The 0.5B once wrote its tests as `Input: "3\\n1 -2 5"` lines inside a ```ruby block
    (examples/double-it); the quoted values are decoded, the unfinished third test dropped."""
    parsed = parse_generated_tests(answer("qwen2.5-coder-0.5b", "tests_inline"))
    assert [(t.kind, t.input, t.output) for t in parsed.tests[:2]] == [
        ("basic", "3\n1 -2 5\n", "2 -4 10\n"),
        ("edge", "100000\n1 -2 5\n", "200000 -4 100000\n"),
    ]
    assert parsed.dropped == ("test 3: no expected output",)


@pytest.mark.parametrize("model", MODELS)
def test_generation_ended_after_the_program_parses_the_same(model):
    from ramp.llm.answer_end import cut_at_end

    raw = answer(model, "programmer")
    cut, ended = cut_at_end(raw, "program:ruby")
    assert extract_program(cut) == extract_program(raw)
    # The 1.5B's program prints nothing (it returns) and an explanation follows it: cut there.
    assert ended == ("1.5b" in model)
    assert cut.endswith("end\n```\n") if ended else cut == raw
