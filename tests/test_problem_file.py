from pathlib import Path

import pytest

from ramp.problem_file import ProblemFileError, load_problem, parse_problem

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_parse_full_problem():
    task = parse_problem(
        "---\ntime_limit_s: 0.5\nmemory_mb: 64\ntags: [math]\n---\n# T\nDo it.\n\n"
        "## Input\nn\n\n## Output\n2n\n\n## Examples\n```\n1\n```\n```\n2\n```\n\n## Note\nok\n",
        name="x/problem.md", buggy_code="puts 1\n",
    )
    assert task.description == "Do it." and task.input_spec == "n" and task.output_spec == "2n"
    assert task.notes == "ok" and task.time_limit_s == 0.5 and task.memory_mb == 64
    assert task.samples[0].input == "1\n" and task.samples[0].outputs == ("2\n",)
    assert task.task_id == "x" and task.tags == ("math",)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("---\ntime_limit_s: 1\n# no close", "never closed"),
        ("---\nlimit: 1\n---\nx", "unknown front-matter key(s) limit"),
        ("Statement\n\n## Inputs\nx", "p.md:3: unknown section '## Inputs'"),
        ("Statement\n## Examples\n```\n1\n```\n", "input/output block pairs"),
        ("## Input\nx", "statement is empty"),
    ],
)
def test_errors_name_the_file(text, message):
    with pytest.raises(ProblemFileError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_problem(text, name="p.md")


@pytest.mark.parametrize("name", ["double-it", "max-gap", "count-vowels"])
def test_examples_load(name):
    task = load_problem(EXAMPLES / name / "problem.md", EXAMPLES / name / "buggy.rb")
    assert task.samples and task.buggy_code and task.input_spec and task.output_spec
