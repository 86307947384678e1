"""The problem file of `ramp repair`: a Markdown statement with optional YAML front matter.

    ---
    time_limit_s: 1        # CPU seconds per test (default 2)
    memory_mb: 256         # default 256
    tags: [math]           # optional
    ---
    # Title (optional)
    The statement ...

    ## Input
    The input format ...

    ## Output
    The output format ...

    ## Examples
    ```
    3
    ```
    ```
    6
    ```

    ## Notes
    Anything else (optional).

Fenced blocks under "Examples" alternate input, output. Heading names are case-insensitive;
"Example", "Sample(s)" and "Note" work too. Parsing is pure; errors name the file and line.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from ramp.languages import language_of_file
from ramp.parsing import code_blocks
from ramp.tasks import Problem, TestCase

_SECTION = re.compile(r"^##\s+(?P<name>[^\n#]+?)\s*#*\s*$", re.MULTILINE)
_ALIASES = {
    "input": "input", "output": "output", "examples": "examples", "example": "examples",
    "samples": "examples", "sample": "examples", "notes": "notes", "note": "notes",
}
_FRONT_KEYS = {"time_limit_s", "memory_mb", "tags", "difficulty", "id"}


class ProblemFileError(ValueError):
    pass


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def parse_problem(
    text: str, *, name: str = "problem.md", buggy_code: str = "", lang: str = "Ruby"
) -> Problem:
    text = text.replace("\r\n", "\n")
    front: dict = {}
    body_start = 0
    if text.startswith("---\n"):
        end = text.find("\n---", 4)
        if end < 0:
            raise ProblemFileError(f"{name}:1: front matter opened with '---' is never closed")
        try:
            front = yaml.safe_load(text[4:end]) or {}
        except yaml.YAMLError as e:
            raise ProblemFileError(f"{name}: front matter is not valid YAML: {e}") from None
        if not isinstance(front, dict):
            raise ProblemFileError(f"{name}:2: front matter must be a mapping of keys")
        unknown = sorted(set(front) - _FRONT_KEYS)
        if unknown:
            raise ProblemFileError(f"{name}: unknown front-matter key(s) {', '.join(unknown)}; "
                                   f"known: {', '.join(sorted(_FRONT_KEYS))}")
        body_start = text.find("\n", end + 4) + 1 if text.find("\n", end + 4) >= 0 else len(text)
    sections: dict[str, str] = {}
    heads = list(_SECTION.finditer(text, body_start))
    statement = text[body_start : heads[0].start() if heads else len(text)]
    statement = re.sub(r"^#\s+[^\n]*\n", "", statement.lstrip("\n"), count=1).strip()
    for i, h in enumerate(heads):
        key = _ALIASES.get(h["name"].strip().lower())
        if key is None:
            raise ProblemFileError(
                f"{name}:{_line_of(text, h.start())}: unknown section '## {h['name']}' "
                "(expected Input, Output, Examples, Notes)"
            )
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        sections[key] = text[h.end() : end].strip()
    if not statement:
        raise ProblemFileError(f"{name}: the problem statement is empty")
    blocks = code_blocks(sections.get("examples", ""))
    if len(blocks) % 2:
        raise ProblemFileError(f"{name}: the Examples section needs input/output block pairs, "
                               f"found {len(blocks)} blocks")
    samples = tuple(
        TestCase(blocks[i].body, (blocks[i + 1].body,), kind="sample")
        for i in range(0, len(blocks), 2)
    )
    try:
        time_limit = float(front.get("time_limit_s", 2.0))
        memory = int(front.get("memory_mb", 256))
    except (TypeError, ValueError) as e:
        raise ProblemFileError(f"{name}: front matter: {e}") from None
    stem = Path(name).parent.name or Path(name).stem
    return Problem(
        task_id=str(front.get("id", stem)), problem_id=str(front.get("id", stem)),
        description=statement, input_spec=sections.get("input", ""),
        output_spec=sections.get("output", ""), notes=sections.get("notes", ""),
        samples=samples, time_limit_s=time_limit, memory_mb=memory,
        tags=tuple(front.get("tags") or ()), difficulty=front.get("difficulty"),
        buggy_code=buggy_code, lang=lang,
    )


def load_problem(problem: Path, program: Path, lang: str | None = None) -> Problem:
    """The problem of ``problem`` with the buggy program ``program``, in the language ``lang``
    (a key of ramp.languages) or else the one its file name says (``.rb`` Ruby, ``.cpp`` C++)."""
    for p in (problem, program):
        if not p.is_file():
            raise ProblemFileError(f"{p}: no such file")
    try:
        language = language_of_file(program.name, lang)
    except ValueError as e:
        raise ProblemFileError(str(e)) from None
    return parse_problem(problem.read_text(encoding="utf-8"), name=str(problem),
                         buggy_code=program.read_text(encoding="utf-8"), lang=language.file_lang)
