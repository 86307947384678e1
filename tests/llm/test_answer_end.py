"""stop_when rules on literal answers: where an answer ends, and that its parse is unchanged."""

from __future__ import annotations

import dataclasses
import hashlib
import json

import pytest

from ramp.llm import FakeLLM, SamplingParams, messages
from ramp.llm.answer_end import EndWatch, cut_at_end
from ramp.llm.cache import cache_key
from ramp.parsing import extract_program

PROGRAM = "n = gets.to_i\na = gets.split.map(&:to_i)\nputs a.select(&:even?).sum\n"

COT = f"""Let's think step by step.
1. The loop must start at index 0.
2. Only even numbers count.

```ruby
{PROGRAM}```

### Explanation
The program now starts at index 0 and keeps the even numbers.
Here is how it behaves on the sample: it prints 6.
"""

# A small model quotes fixes while it reasons, then gives the whole program.
SNIPPET_FIRST = f"""The bug is in the loop:
```ruby
(0...n).each {{ |i| s += a[i] if a[i].even? }}
```
Reading the input is fine too: `n = gets.to_i`.

```ruby
{PROGRAM}```
This version is correct.
"""

SCOT = f"""Input-output structure: n, then n integers; one integer out.
Plan:
- sequence: read n and the list
- loop: keep the even values

~~~ rb
{PROGRAM}~~~
Done.
```ruby
puts 'an afterthought'
```
"""


def _cut(text: str) -> str:
    return cut_at_end(text, "program:ruby")[0]


@pytest.mark.parametrize("answer", [COT, SNIPPET_FIRST])
def test_cut_after_the_program_and_the_parse_is_unchanged(answer):
    cut, ended = cut_at_end(answer, "program:ruby")
    assert ended and cut.endswith(f"{PROGRAM}```\n")
    assert extract_program(cut) == extract_program(answer)
    assert extract_program(cut).code == PROGRAM


def test_snippets_without_input_and_output_do_not_end_the_answer():
    assert "This version is correct" not in _cut(SNIPPET_FIRST)
    assert _cut(SNIPPET_FIRST).count("```ruby") == 2


def test_tilde_fence_and_rb_tag_end_it_later_blocks_are_dropped():
    cut = _cut(SCOT)
    assert cut.endswith(f"{PROGRAM}~~~\n") and "afterthought" not in cut
    # The one answer shape whose parse changes: a second tagged block after a whole program.
    # The first whole program is the one asked for ("in one ```ruby block").
    assert extract_program(cut).code == PROGRAM
    assert extract_program(SCOT).code == "puts 'an afterthought'\n"


@pytest.mark.parametrize(
    "answer",
    [
        f"```\n{PROGRAM}```\nthen\n```ruby\nputs 1\n```\n",  # untagged: a later tag wins
        "```python\nn = int(input())\nprint(n)\n```\n",  # another language
        f"```ruby\n{PROGRAM}```",  # closing line not finished: "```" may grow into "```ruby"
        f"```ruby\n{PROGRAM}",  # not closed
        "Just prose, `puts gets` inline.\n",
        "",
    ],
)
def test_answers_that_have_not_ended(answer):
    assert cut_at_end(answer, "program:ruby") == (answer, False)


def test_no_rule_cuts_nothing():
    assert cut_at_end(COT, "") == (COT, False)


def test_python_rule():
    answer = "Plan.\n```python\nimport sys\nn = int(input())\nprint(n * 2)\n```\nBye.\n"
    cut, ended = cut_at_end(answer, "program:python")
    assert ended and cut.endswith("print(n * 2)\n```\n")
    assert extract_program(cut, lang="python") == extract_program(answer, lang="python")

CPP_PROGRAM = """#include <cstdio>
int main() {
    long long n;
    scanf("%lld", &n);
    printf("%lld\\n", 2 * n);
}
"""


@pytest.mark.parametrize("tag", ["cpp", "c++", "cc"])
def test_cpp_rule_ends_after_the_whole_program(tag):
    answer = (f"The loop bound is wrong:\n```{tag}\nfor (int i = 0; i < n; i++)\n```\n"
              f"Corrected:\n```{tag}\n{CPP_PROGRAM}```\nIt now doubles n.\n```{tag}\nint x;\n```\n")
    cut, ended = cut_at_end(answer, "program:cpp")
    assert ended and cut.endswith(f"{CPP_PROGRAM}```\n") and "doubles" not in cut
    assert extract_program(cut, lang="cpp") == extract_program(cut.rstrip() + "\n", lang="cpp")
    assert extract_program(cut, lang="cpp").code == CPP_PROGRAM


@pytest.mark.parametrize("body", [
    "#include <iostream>\nint main() { int n; std::cin >> n; std::cout << n; }\n",
    "int main() { int c = getchar(); putchar(c); }\n",
    "int main() {\n  char s[9];\n  fgets(s, 9, stdin);\n  puts(s);\n}\n",
])
def test_cpp_programs_read_and_write_their_own_ways(body):
    assert cut_at_end(f"```cpp\n{body}```\nMore text.\n", "program:cpp")[1]


def test_a_cpp_snippet_or_a_ruby_block_does_not_end_a_cpp_answer():
    for answer in ("```cpp\nif (a[i] % 2 == 0) s += a[i];\n```\n",
                   "```ruby\nn = gets.to_i\nputs n * 2\n```\n"):
        assert cut_at_end(answer, "program:cpp") == (answer, False)



@pytest.mark.parametrize("answer", [COT, SNIPPET_FIRST, SCOT])
@pytest.mark.parametrize("step", [1, 2, 3, 7, 40])
def test_streaming_ends_where_the_whole_text_is_cut(answer, step):
    watch = EndWatch("program:ruby")
    end = None
    for n in range(step, len(answer) + step, step):
        end = watch.feed(answer[:n])
        if end is not None:
            break
    assert answer[:end] == _cut(answer)


def test_unknown_rule_is_refused_up_front():
    with pytest.raises(ValueError, match="unknown stop_when rule 'program:cobol'"):
        SamplingParams(stop_when="program:cobol")


def test_fake_llm_cuts_at_the_end_of_the_answer():
    fake = FakeLLM([COT, COT])
    (plain,) = fake.complete([messages(("user", "fix"))], SamplingParams())
    (ended,) = fake.complete([messages(("user", "fix"))], SamplingParams(stop_when="program:ruby"))
    assert plain.text == COT
    assert ended.text == _cut(COT) and ended.finish_reason == "stop"
    assert ended.completion_tokens < plain.completion_tokens


def test_cache_key_keeps_its_recipe_unless_stop_when_is_set():
    prompt = messages(("user", "fix"))
    params = SamplingParams(temperature=0.8, seed=3)
    # The recipe of entries recorded before stop_when existed.
    old = dict(dataclasses.asdict(params))
    del old["stop_when"]
    blob = json.dumps(
        {"v": 1, "model": "m", "messages": [["user", "fix"]], "params": old},
        sort_keys=True, ensure_ascii=False, separators=(",", ":"),
    )
    assert cache_key("m", prompt, params) == hashlib.sha256(blob.encode()).hexdigest()
    ended = dataclasses.replace(params, stop_when="program:ruby")
    assert cache_key("m", prompt, ended) != cache_key("m", prompt, params)
