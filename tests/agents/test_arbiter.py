"""The Arbiter's parsers on literal answers, and its prompts."""

from __future__ import annotations

from ramp.agents import arbiter


def test_inputs_are_the_plain_blocks():
    answer = """Program A multiplies, program B adds. Try these:

Input 1:
```
5
```
Input 2 (where they differ):
```text
0
```
```ruby
puts 1
```
"""
    assert arbiter.parse_inputs(answer) == ("5\n", "0\n")


def test_blocks_labelled_as_outputs_and_duplicates_are_left_out():
    answer = """Input:
```
3
1 2 3
```
Expected output:
```
6
```
Output of A:
```
7
```
```
3
1 2 3
```
"""
    assert arbiter.parse_inputs(answer) == ("3\n1 2 3\n",)


def test_at_most_max_inputs_and_none_from_prose():
    blocks = "".join(f"```\n{i}\n```\n" for i in range(5))
    assert arbiter.parse_inputs(blocks) == ("0\n", "1\n", "2\n")
    assert arbiter.parse_inputs(blocks, max_inputs=1) == ("0\n",)
    assert arbiter.parse_inputs("Any input with n = 5 works.") == ()
    assert arbiter.parse_inputs("```\n\n```") == ()


def test_choice_reads_the_last_answer_line():
    assert arbiter.parse_choice("2 * 5 = 10, which is output B.\nAnswer: B") == "B"
    assert arbiter.parse_choice("Answer: A\n...on second thought\nAnswer: **B**") == "B"
    assert arbiter.parse_choice("The correct output is A.") == "A"
    assert arbiter.parse_choice("Verdict - Output A") == "A"
    assert arbiter.parse_choice("I checked it.\n\n**A**") == "A"
    assert arbiter.parse_choice("Output B is correct because n is even.") == "B"


def test_choice_is_empty_when_the_answer_names_neither_or_both():
    assert arbiter.parse_choice("The answer is a bit unclear.") == ""
    assert arbiter.parse_choice("Both look plausible.") == ""
    assert arbiter.parse_choice("Output A is correct. No, output B is correct.") == ""
    assert arbiter.parse_choice("") == ""


def test_prompts_show_the_programs_or_the_outputs(task, lib):
    inputs = arbiter.inputs_prompt(lib, task, "puts 1", "puts 2")
    assert [m.role for m in inputs] == ["system", "user"]
    assert "Program A:\n```ruby\nputs 1\n```" in inputs[-1].content
    assert "Read an integer n and print 2n." in inputs[-1].content
    judge = arbiter.judge_prompt(lib, task, "5\n", "11\n", "10\n")
    text = judge[-1].content
    assert "Output A:\n```\n11\n```" in text and "Output B:\n```\n10\n```" in text
    assert "puts" not in text  # the judge sees no program


def test_a_cpp_program_quoted_in_the_answer_is_not_an_input():
    from ramp.agents.arbiter import parse_inputs

    answer = ("Program B prints the sum:\n```cc\nint main() { puts(\"1\"); }\n```\n"
              "```cpp\nint x;\n```\nTry:\n```\n3\n1 2 3\n```\n")
    assert parse_inputs(answer) == ("3\n1 2 3\n",)


def test_a_language_tagged_block_labelled_as_an_input_is_an_input():
    # The embedded 1.5B's answer (heldout33, breadth_wide): every block tagged ```ruby.
    answer = """Here are three small inputs on which A and B print different outputs:

### Input 1:
```ruby
1
```

### Output 1:
```ruby
1
```

### Input 2:
```ruby
2 3
4
```

### Output 2 (Program A):
```
2
```
"""
    assert arbiter.parse_inputs(answer) == ("1\n", "2 3\n4\n")


def test_a_language_tagged_block_with_a_statement_is_code_even_under_an_input_label():
    generator = """```ruby
# Input 1
puts "4 5 7 8"
puts "2 3"
```
Input 2:
```ruby
n = 5
```
Input 3:
```python
print(3)
```
"""
    assert arbiter.parse_inputs(generator) == ()
