"""A C++ task's prompts speak C++: every method of every configured variant, with a scripted
model, on a made-up C++ task (no data set needed)."""

from __future__ import annotations

import re

import pytest

from ramp.agents import programmer
from ramp.prompting import PromptLibrary
from ramp.tasks import Problem, TestCase
from ramp.variants import Variant

from . import golden

BUGGY = """#include <iostream>
using namespace std;
int main() {
    long long n;
    cin >> n;
    cout << n * 3 << endl;
}
"""
TASK = Problem(
    task_id="cpp1", problem_id="p1", description="Read an integer n and print 2n.",
    input_spec="One integer n (0 <= n <= 10^9).", output_spec="Print 2n.", notes="",
    samples=(TestCase("3\n", ("6\n",), kind="sample"),), time_limit_s=1.0, memory_mb=256,
    tags=("math",), difficulty=800, buggy_code=BUGGY, lang="GNU C++11",
)


def _cpp(code: str) -> str:
    return f"```cpp\n{code}\n```"


# The scripted answers of golden.py, with C++ programs where they are Ruby ones.
CPP_ANSWERS = {
    **golden.ANSWERS,
    "programmer": (
        "Let's think step by step.\n\n" + _cpp("int main() { puts(\"9\"); } // first try"),
        "I cannot fix this.",
        _cpp("#include <iostream>\nint main() { long long n; std::cin >> n; "
             "std::cout << 2 * n; } // RIGHT"),
        _cpp("int main() { puts(\"0\"); } // HALF right, on 0"),
        "```c++\nint main() { puts(\"4\"); } // second try\n```",
        _cpp("#include <cstdio>\nint main() { long long n; scanf(\"%lld\", &n); "
             "printf(\"%lld\", n + n); } // RIGHT too"),
    ),
}


@pytest.fixture(scope="module")
def calls():
    """Every call of every configured variant on the C++ task, from four starting points."""
    lib = PromptLibrary.default()
    return {(name, offset): golden.record(v, TASK, lib, offset, CPP_ANSWERS)
            for name, v in golden.study_variants().items() for offset in range(4)}


def _text(prompt) -> str:
    return "\n".join(m.content for m in prompt)


def test_no_prompt_names_ruby_but_the_test_designer_s_generators(calls):
    for (name, _), seen in calls.items():
        for prompt, _ in seen:
            role = golden.role_of(prompt)
            text = _text(prompt)
            if role == "test_design":
                # Large inputs are still written by a Ruby generator (run by the Ruby runtime).
                assert "a Ruby program\nthat prints the input, and write no Output block" in text
                assert "Generator:\n```ruby" in text
                continue
            assert "Ruby" not in text and "```ruby" not in text, (name, role)


def test_the_code_calls_speak_cpp_and_stop_at_a_cpp_program(calls):
    languages = {"translator": "Python", "repairer": "Python"}
    for (name, _), seen in calls.items():
        for prompt, params in seen:
            role = golden.role_of(prompt)
            if role in ("programmer", "translator", "repairer"):
                expected = languages.get(role, "C++")
                assert expected in prompt[0].content, (name, role)
                end = "program:python" if expected == "Python" else "program:cpp"
                assert params.stop_when == end, (name, role)
            if role in ("programmer", "reflection", "feedback", "planner", "analyst", "tester",
                        "distinguish"):
                assert "```cpp" in _text(prompt), (name, role)


def test_every_variant_renders_for_cpp(calls):
    roles = {golden.role_of(p) for seen in calls.values() for p, _ in seen}
    assert roles == set(golden.ROLE_MARKERS.values())


@pytest.mark.parametrize("style", ["cot", "scot", "few_shot"])
def test_the_worked_examples_are_cpp(style):
    prompt = programmer.prompt(PromptLibrary.default(), TASK, Variant(programmer_style=style), [])
    assert [m.role for m in prompt] == ["system", "user", "assistant", "user"]
    example, answer = prompt[1].content, prompt[2].content
    assert "Buggy C++ program:\n```cpp\n#include <iostream>" in example
    assert "for (int i = 1; i < n; i++)" in example
    assert "for (int i = 0; i < n; i++)\n        if (a[i] % 2 == 0)" in answer
    assert "Buggy C++ program:\n```cpp\n" + BUGGY in prompt[-1].content


def test_the_self_planning_example_is_cpp():
    lib = PromptLibrary.default()
    prompt = lib.render("baselines/self_planning/plan",
                        {"task": TASK, "view": Variant().programmer_view, "feedback": "",
                         "previous_code": ""})
    assert "expert C++ programmer" in prompt[0].content
    assert "a[i] % 2 != 0" in prompt[1].content and "a[i] % 2 == 0" in prompt[2].content


def test_the_chatrepair_conversation_keeps_cpp_programs(calls):
    kept = [m.content for p, _ in calls[("chatrepair", 0)] for m in p if m.role == "assistant"]
    assert any(re.match(r"```cpp\n.*first try\n```$", m, re.DOTALL) for m in kept)
    assert not any("```ruby" in m for m in kept)
