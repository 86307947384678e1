"""What the real-model tests of the llama.cpp backend share: the model and its prompts."""

from __future__ import annotations

from ramp.llm import SamplingParams, messages
from ramp.llm.answer_end import cut_at_end

SMALL = "qwen2.5-coder-0.5b"
SHARED = (
    "Problem:\nGiven n and then n integers, print the sum of the even ones. The first line holds"
    " n (1 <= n <= 100000), the second n integers a_i (|a_i| <= 10^9) separated by spaces.\n\n"
    "Buggy Ruby program:\n```ruby\nn = gets.to_i\na = gets.split.map(&:to_i)\ns = 0\n"
    "(1...n).each { |i| s += a[i] if a[i].odd? }\nputs s\n```\n\n"
)
SYSTEM = ("system", "You are an expert Ruby programmer who repairs buggy programs.")
# A prompt whose answer (seed 1, greedy) is a program and then prose.
PROGRAM_THEN_PROSE = messages(("system", "You are an expert Ruby programmer."), ("user", (
    "Problem:\nRead two integers a and b on one line and print their sum.\n\n"
    "Buggy Ruby program:\n```ruby\na, b = gets.split.map(&:to_i)\nputs a - b\n```\n\n"
    "First give the complete corrected program in one ```ruby block, then explain the fix "
    "in a few sentences."
)))


def check_answer_ends_at_the_program(llm) -> None:
    """With ``stop_when`` the answer is the whole answer cut after its program, and shorter."""
    (whole,) = llm.complete([PROGRAM_THEN_PROSE], SamplingParams(max_new_tokens=60, seed=1))
    (ended,) = llm.complete([PROGRAM_THEN_PROSE], SamplingParams(max_new_tokens=60, seed=1,
                                                                 stop_when="program:ruby"))
    cut, was_cut = cut_at_end(whole.text, "program:ruby")
    assert was_cut, whole.text  # this prompt's answer has a program and then more
    assert ended.text == cut and ended.finish_reason == "stop"
    assert ended.completion_tokens < whole.completion_tokens
