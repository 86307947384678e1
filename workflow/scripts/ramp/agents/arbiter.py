"""Arbiter (RAMP+): inputs on which two candidate programs differ, and which of their outputs
the problem statement implies for such an input (S*'s distinguishing inputs)."""

from __future__ import annotations

import re

from ramp.llm.base import ChatMessage
from ramp.parsing import LANG_TAGS, OTHER_LANG_TAGS
from ramp.prompting import PromptLibrary
from ramp.tasks import Problem
from ramp.variants import ProblemView

ROLE_INPUTS = "distinguish"
ROLE_JUDGE = "judge"
MAX_INPUTS = 3
INPUTS_TEMPLATE = "arbiter/inputs"
JUDGE_TEMPLATE = "arbiter/judge"

_BLOCK = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})[ \t]*([^\n`]*)\n(.*?)^[ \t]{0,3}\1[ \t]*$",
                    re.MULTILINE | re.DOTALL)
# A block tagged as a program (of any language a study has, or another) is not an input,
# unless the line before it names it an input and its body has no program statement: small
# models tag every block with the language they read ("### Input 1:" then ```ruby 5 ```).
_CODE_TAGS = OTHER_LANG_TAGS.union(*LANG_TAGS.values(), {"bash", "sh", "shell"})
_STATEMENT = re.compile(
    r"""[=;{}"'`]|\b(?:puts|print|printf|gets|def|require|include|return|STDIN|cin|cout|scanf"""
    r"""|import)\b""")
_ANSWER = re.compile(
    r"(?:answer|verdict|correct output|correct one|correct)\s*(?:is|:|-)?\s*[*_`\"'(]*"
    r"(?:output\s+)?((?-i:[AB]))\b", re.IGNORECASE)
_BARE = re.compile(r"^[\s*_`\"'(]*(?:output\s+)?((?-i:[AB]))[\s*_`\"'.)]*$", re.IGNORECASE)
_IS_CORRECT = re.compile(r"\boutput\s+((?-i:[AB]))\s+is\s+(?:the\s+)?correct\b", re.IGNORECASE)


def inputs_prompt(
    lib: PromptLibrary, task: Problem, program_a: str, program_b: str
) -> tuple[ChatMessage, ...]:
    return lib.render(INPUTS_TEMPLATE, {"task": task, "view": ProblemView(),
                                         "program_a": program_a, "program_b": program_b,
                                         "max_inputs": MAX_INPUTS})


def judge_prompt(
    lib: PromptLibrary, task: Problem, stdin: str, output_a: str, output_b: str
) -> tuple[ChatMessage, ...]:
    return lib.render(JUDGE_TEMPLATE, {"task": task, "view": ProblemView(), "input": stdin,
                                        "output_a": output_a, "output_b": output_b})


def _labels_an_output(line: str) -> bool:
    line = line.lower()
    return "input" not in line and any(w in line for w in ("output", "expected", "result"))


def _labels_an_input(line: str) -> bool:
    return "input" in line.lower()  # never an output label: _labels_an_output excludes these


def parse_inputs(answer: str, *, max_inputs: int = MAX_INPUTS) -> tuple[str, ...]:
    """The inputs of an answer: fenced blocks that are not labelled as an output on the line
    before them and are not code (a block tagged with a language counts when that line labels
    it an input and it holds no program statement), each ending with one newline; duplicates
    once."""
    text = answer.replace("\r\n", "\n")
    found: list[str] = []
    for m in _BLOCK.finditer(text):
        tag = m[2].strip().split()[0].lower() if m[2].strip() else ""
        before = text[: m.start()].rstrip("\n").rpartition("\n")[2]
        body = m[3].strip("\n")
        if not body.strip() or _labels_an_output(before):
            continue
        if tag in _CODE_TAGS and not (_labels_an_input(before) and not _STATEMENT.search(body)):
            continue
        stdin = body.rstrip() + "\n"
        if stdin not in found:
            found.append(stdin)
    return tuple(found[:max_inputs])


def parse_choice(answer: str) -> str:
    """"A" or "B" as the answer names it (its last ``Answer: X``, else a last line that is
    only the letter, else one "output X is correct"), or "" when it names neither."""
    answers = _ANSWER.findall(answer)
    if answers:
        return answers[-1]
    lines = [line for line in answer.strip().splitlines() if line.strip()]
    if lines and (bare := _BARE.match(lines[-1])):
        return bare[1]
    said = set(_IS_CORRECT.findall(answer))
    return said.pop() if len(said) == 1 else ""
