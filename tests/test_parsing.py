"""The parsers on literal answers, including shapes small models really produce."""

from ramp.parsing import code_blocks, extract_program, parse_generated_tests

COT_ANSWER = """Let's think step by step.
The loop stops one element early, so the last number is never added.

```ruby
n = gets.to_i
a = gets.split.map(&:to_i)
puts a.sum
```
"""


def test_extract_last_ruby_block():
    answer = "First try:\n```ruby\nputs 1\n```\nBetter:\n```ruby\nputs 2\n```\n"
    got = extract_program(answer)
    assert got.ok and got.code == "puts 2\n"


def test_extract_cot_answer():
    got = extract_program(COT_ANSWER)
    assert got.ok
    assert got.code.startswith("n = gets.to_i\n") and got.code.endswith("puts a.sum\n")


def test_untagged_block_is_used_when_ruby_like():
    got = extract_program("Fixed:\n```\nx = gets.to_i\nif x > 0\n  puts x\nend\n```")
    assert got.ok and "puts x" in got.code


def test_no_code_block_is_rejected_not_run():
    got = extract_program("The bug is an off-by-one error in the loop bound.")
    assert got.status == "no_code_block" and got.code == ""


def test_empty_answer():
    assert extract_program("  \n").status == "empty"
    assert extract_program("```ruby\n\n```").status == "empty"


def test_wrong_language_tagged():
    got = extract_program("```python\nn = int(input())\nprint(n)\n```")
    assert got.status == "wrong_language" and "python" in got.detail


def test_wrong_language_untagged_python():
    got = extract_program("```\nfor i in range(3):\n    print(i)\n```")
    assert got.status == "wrong_language"


def test_unclosed_fence_runs_to_end():
    got = extract_program("Here:\n```ruby\nputs gets.to_i * 2\n")
    assert got.ok and got.code == "puts gets.to_i * 2\n"


def test_crlf_and_tilde_fences():
    blocks = code_blocks("~~~rb\r\nputs 1\r\n~~~\r\n")
    assert [(b.lang, b.body) for b in blocks] == [("rb", "puts 1\n")]


SIX_TESTS = """### Test 1 (basic)
Input:
```
3
1 2 3
```
Output:
```
6
```
### Test 2 (basic)
Input:
```
1
5
```
Expected output:
```
5
```
### Test 3 (edge)
Input: `1\\n0`
Output: `0`
### Test 4 (edge)
Input:
```
2
-1 1
```
Output:
```
```
### Test 5 (large)
Generator:
```ruby
puts 100000
puts ([1] * 100000).join(" ")
```
Output:
```
100000
```
### Test 6 (large)
Input:
```
2
1000000000 1000000000
```
"""


def test_parse_six_tests_with_drops():
    parsed = parse_generated_tests(SIX_TESTS)
    kinds = [t.kind for t in parsed.tests]
    assert kinds == ["basic", "basic", "edge", "large"]
    assert parsed.tests[0].input == "3\n1 2 3\n" and parsed.tests[0].output == "6\n"
    assert parsed.tests[1].output == "5\n"
    assert parsed.tests[3].generator.startswith("puts 100000")
    assert parsed.tests[3].input == ""
    # The model never saw the generated input: its "expected output" is not taken.
    assert parsed.tests[3].output == "" and parsed.tests[3].to_case("1\n").outputs == ()
    assert parsed.dropped == ("test 4: empty expected output", "test 6: no expected output")


def test_a_generator_needs_no_output_block():
    answer = "### Test 1 (large)\nGenerator:\n```ruby\nputs 10**5\n```\n"
    (test,) = parse_generated_tests(answer).tests
    assert test.generator == "puts 10**5\n" and test.to_case("100000\n").outputs == ()


def test_parse_json_list():
    answer = 'Here are the tests:\n[{"input": "2\\n", "output": "4\\n", "kind": "basic"},' \
             ' {"input": "0", "output": ""}, {"input": 3, "output": "9"}]'
    parsed = parse_generated_tests(answer)
    assert [(t.input, t.output, t.kind) for t in parsed.tests] == [("2\n", "4\n", "basic")]
    assert len(parsed.dropped) == 2


def test_parse_garbage():
    parsed = parse_generated_tests("I cannot help with that.")
    assert parsed.tests == () and "no test sections" in parsed.dropped[0]


def test_kind_defaults_by_position_and_cap():
    one = "Test {0}:\nInput:\n```\n{0}\n```\nOutput:\n```\n{0}\n```\n"
    body = "".join(one.format(i) for i in range(1, 9))
    parsed = parse_generated_tests(body)
    assert [t.kind for t in parsed.tests] == ["basic", "basic", "edge", "edge", "large", "large"]
    assert parsed.dropped == ("2 test(s) beyond the first 6",)


def test_inline_values_quoted_or_backticked():
    answer = (
        "Test 1 (basic)\nInput: \"2\\n1 2\"\nOutput: '3'\n"
        "Test 2 (edge)\nInput: `0`\nOutput: \"0\"\n"
    )
    parsed = parse_generated_tests(answer)
    assert [(t.input, t.output) for t in parsed.tests] == [("2\n1 2\n", "3\n"), ("0\n", "0\n")]


def test_extract_python_accepts_its_usual_fence_tags():
    for tag in ("python", "py", "python3", "Python"):
        got = extract_program(f"Fixed:\n```{tag}\nprint(int(input()) * 2)\n```", lang="python")
        assert got.ok and got.code == "print(int(input()) * 2)\n", tag


def test_extract_python_rejects_a_ruby_block_as_wrong_language():
    got = extract_program("```ruby\nputs gets.to_i * 2\n```", lang="python")
    assert got.status == "wrong_language" and "ruby" in got.detail


CPP_PROGRAM = """#include <bits/stdc++.h>
using namespace std;
int main() {
    long long n;
    cin >> n;
    cout << 2 * n << endl;
}
"""


def test_extract_cpp_accepts_its_usual_fence_tags():
    for tag in ("cpp", "c++", "cc", "C++", "CPP"):
        got = extract_program(f"The fix:\n```{tag}\n{CPP_PROGRAM}```\nDone.", lang="cpp")
        assert got.ok and got.code == CPP_PROGRAM, tag


def test_extract_cpp_takes_the_last_cpp_block_after_a_quoted_snippet():
    answer = ("The loop must start at 0:\n```cpp\nfor (int i = 0; i < n; i++)\n```\n"
              f"Whole program:\n```cpp\n{CPP_PROGRAM}```\n")
    assert extract_program(answer, lang="cpp").code == CPP_PROGRAM


def test_extract_cpp_runs_an_untagged_block_and_rejects_other_languages():
    assert extract_program(f"```\n{CPP_PROGRAM}```", lang="cpp").code == CPP_PROGRAM
    got = extract_program("```ruby\nputs gets.to_i * 2\n```", lang="cpp")
    assert got.status == "wrong_language" and "ruby" in got.detail
    got = extract_program("```python\nprint(2 * int(input()))\n```", lang="cpp")
    assert got.status == "wrong_language" and "python" in got.detail
    assert extract_program("Use cin >> n; then cout << 2 * n.", lang="cpp").status == \
        "no_code_block"


def test_a_ruby_study_does_not_take_a_cpp_block():
    got = extract_program(f"```cpp\n{CPP_PROGRAM}```", lang="ruby")
    assert got.status == "wrong_language" and "cpp" in got.detail
