"""Pure parsers of model answers: the program in a Programmer answer, the tests of a Test Designer.

Small models answer in many shapes (no fence, several fences, a fence with the wrong language,
JSON instead of prose): every function here is pure and tested on literal strings, and says
*why* it rejected something, because those reasons end up in the stage's Parquet.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from ramp.languages import LANGUAGES
from ramp.tasks import TestCase

# ``` or ~~~ fences, with an optional info string; the closing fence matches the opening one.
_FENCE = re.compile(
    r"^(?P<indent>[ \t]{0,3})(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\n`]*)\n"
    r"(?P<body>.*?)^[ \t]{0,3}(?P=fence)[ \t]*$",
    re.MULTILINE | re.DOTALL,
)

# The fence tags that count as a language: models tag the same language several ways.
LANG_TAGS = {key: set(lang.tags) for key, lang in LANGUAGES.items()}
RUBY_TAGS = LANG_TAGS["ruby"]
PYTHON_TAGS = LANG_TAGS["python"]
OTHER_LANG_TAGS = {
    "python", "py", "python3", "cpp", "c++", "c", "java", "javascript", "js", "go", "rust",
    "csharp", "c#", "kotlin", "php", "perl", "haskell", "typescript", "ts", "scala", "swift",
}

# Lines that only Python (not Ruby) would write: the wrong-language check for untagged code.
_PYTHON_ONLY = re.compile(
    r"^\s*(?:(?:def|if|elif|else|for|while|class|try|except|with)\b.*:\s*$|import \w+\s*$"
    r"|from [\w.]+ import )",
    re.MULTILINE,
)


@dataclass(frozen=True)
class CodeBlock:
    info: str
    body: str

    @property
    def lang(self) -> str:
        return self.info.split()[0].lower() if self.info.strip() else ""


def code_blocks(text: str) -> list[CodeBlock]:
    """Every fenced block of ``text``, in order. An unclosed last fence runs to the end."""
    text = text.replace("\r\n", "\n")
    blocks = [CodeBlock(m["info"].strip(), m["body"]) for m in _FENCE.finditer(text)]
    closed_end = max((m.end() for m in _FENCE.finditer(text)), default=0)
    tail = re.search(r"^[ \t]{0,3}(`{3,}|~{3,})[ \t]*([^\n`]*)\n(.*)\Z", text[closed_end:],
                     re.MULTILINE | re.DOTALL)
    if tail and tail[3].strip():
        blocks.append(CodeBlock(tail[2].strip(), tail[3]))
    return blocks


@dataclass(frozen=True)
class ExtractedProgram:
    """A program taken from an answer, or why there is none (``status`` != "ok")."""

    code: str
    status: str  # ok | empty | no_code_block | wrong_language
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def looks_like_python(code: str) -> bool:
    """True when the code has Python-only syntax (colon-ended blocks, `import x`, range loops)."""
    if re.search(r"^\s*end\s*$", code, re.MULTILINE):
        return False  # a Ruby `end` line settles it
    return bool(_PYTHON_ONLY.search(code))


def extract_program(answer: str, *, lang: str = "ruby") -> ExtractedProgram:
    """The program of a Programmer answer: the last block tagged with ``lang``, else the last
    untagged block, else (no fences at all) nothing: prose is never run as code."""
    if not answer.strip():
        return ExtractedProgram("", "empty", "the answer is empty")
    tags = LANG_TAGS.get(lang, {lang})
    blocks = code_blocks(answer)
    tagged = [b for b in blocks if b.lang in tags and b.body.strip()]
    if tagged:
        return ExtractedProgram(tagged[-1].body.rstrip() + "\n", "ok")
    untagged = [b for b in blocks if not b.lang and b.body.strip()]
    if untagged:
        body = untagged[-1].body.rstrip() + "\n"
        if lang == "ruby" and looks_like_python(body):
            return ExtractedProgram(body, "wrong_language", "the untagged block looks like Python")
        return ExtractedProgram(body, "ok")
    others = (OTHER_LANG_TAGS | RUBY_TAGS) - tags
    other = [b for b in blocks if b.lang in others and b.body.strip()]
    if other:
        return ExtractedProgram(
            other[-1].body, "wrong_language", f"the code block is tagged {other[-1].lang!r}"
        )
    if blocks:
        return ExtractedProgram("", "empty", "the code blocks are empty")
    return ExtractedProgram("", "no_code_block", "the answer has no fenced code block")


# --------------------------------------------------------------------------- generated tests

TEST_KINDS = ("basic", "edge", "large")


@dataclass(frozen=True)
class GeneratedTest:
    """One test of the Test Designer. ``generator`` is Ruby code whose output is the input;
    such a test's expected output is unknown (``output`` ""): the model never saw the input it
    would have to answer, so the test checks only that a program ends normally within the
    limits (no crash, time or memory limit)."""

    kind: str
    input: str
    output: str
    generator: str = ""

    def to_case(self, input_text: str | None = None) -> TestCase:
        return TestCase(
            input=self.input if input_text is None else input_text,
            outputs=() if self.generator else (self.output,),
            kind=self.kind,
        )


@dataclass(frozen=True)
class ParsedTests:
    tests: tuple[GeneratedTest, ...]
    dropped: tuple[str, ...] = field(default_factory=tuple)  # one reason per dropped test


_TEST_HEADER = re.compile(
    r"^\s*(?:#+\s*|\*\*)?\s*test(?:\s*case)?\s*(?P<num>\d+)?\s*(?:[:.\-–]\s*)?"
    r"(?:\(?\s*(?P<kind>basic|edge|large(?:[- ]scale)?)\b[^\n]*)?$",
    re.IGNORECASE | re.MULTILINE,
)
_LABEL = re.compile(
    r"^\s*(?:[*_#>-]+\s*)?(?P<label>input|output|expected output|generator)\b[^\n]*$",
    re.IGNORECASE | re.MULTILINE,
)


def _norm_kind(kind: str | None, position: int) -> str:
    if kind:
        k = kind.lower()
        return "large" if k.startswith("large") else k
    # The prompt asks for 2 basic, 2 edge, 2 large in this order.
    return TEST_KINDS[min(position // 2, 2)]


def _norm_io(text: str) -> str:
    text = text.replace("\r\n", "\n").strip("\n")
    return text + "\n" if text else ""


def _parse_json_tests(answer: str) -> ParsedTests | None:
    start = answer.find("[")
    end = answer.rfind("]")
    if start < 0 or end <= start:
        return None
    try:
        data = json.loads(answer[start : end + 1])
    except json.JSONDecodeError:
        return None
    if not isinstance(data, list) or not all(isinstance(d, dict) for d in data):
        return None
    tests: list[GeneratedTest] = []
    dropped: list[str] = []
    for i, d in enumerate(data, 1):
        inp, out = d.get("input"), d.get("output", d.get("expected_output"))
        if isinstance(out, list) and out and all(isinstance(o, str) for o in out):
            out = out[0]
        if not isinstance(inp, str) or not isinstance(out, str):
            dropped.append(f"test {i}: input and output must be strings")
            continue
        if not out.strip():
            dropped.append(f"test {i}: empty expected output")
            continue
        tests.append(GeneratedTest(_norm_kind(d.get("kind") or d.get("category"), i - 1),
                                   _norm_io(inp), _norm_io(out)))
    return ParsedTests(tuple(tests), tuple(dropped))


def _inline_value(raw: str) -> str:
    """A value written on the label's line: `x`, "x" (JSON escapes such as \\n decoded), 'x'."""
    value = raw.strip().strip("`").strip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        try:
            decoded = json.loads(value)
        except json.JSONDecodeError:
            return value[1:-1]
        return decoded if isinstance(decoded, str) else value
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1].replace("\\n", "\n")
    return value


def _section_value(section: str, label: str) -> tuple[str | None, str]:
    """The value after ``label`` in one test's section: a fenced block or the rest of the line."""
    for m in _LABEL.finditer(section):
        name = m["label"].lower()
        if (name == "expected output" and label == "output") or name == label:
            rest = section[m.end() :]
            inline = section[m.start() : m.end()].split(":", 1)
            blocks = code_blocks(rest)
            fence_at = rest.find("```") if "```" in rest else rest.find("~~~")
            next_label = _LABEL.search(rest)
            if blocks and (next_label is None or 0 <= fence_at < next_label.start()):
                return blocks[0].body, blocks[0].lang
            if len(inline) == 2 and inline[1].strip().strip("`"):
                return _inline_value(inline[1]) + "\n", ""
            return None, ""
    return None, ""


def parse_generated_tests(answer: str, *, max_tests: int = 6) -> ParsedTests:
    """The tests of a Test Designer answer.

    Accepted shapes: sections headed ``Test N (kind)`` each with ``Input:`` and ``Output:``
    followed by a fenced block (or an inline value); a ``Generator:`` ruby block may replace a
    large input (its expected output is then unknown: any ``Output:`` is ignored); or a JSON
    list of {"input", "output", "kind"} objects. Tests with a missing
    part or an empty expected output are dropped with the reason; at most ``max_tests`` kept.
    """
    answer = answer.replace("\r\n", "\n")
    headers = list(_TEST_HEADER.finditer(answer))
    if not headers:
        parsed = _parse_json_tests(answer)
        if parsed is not None:
            return _cap(parsed, max_tests)
        return ParsedTests((), ("no test sections (\"Test N\") and no JSON list found",))
    tests: list[GeneratedTest] = []
    dropped: list[str] = []
    for i, h in enumerate(headers):
        end = headers[i + 1].start() if i + 1 < len(headers) else len(answer)
        section = answer[h.end() : end]
        label = f"test {h['num'] or i + 1}"
        kind = _norm_kind(h["kind"], i)
        inp, _ = _section_value(section, "input")
        gen, _ = _section_value(section, "generator")
        out, _ = _section_value(section, "output")
        if gen is not None and gen.strip():  # its expected output, if any, is not used
            tests.append(GeneratedTest(kind, "", "", generator=gen.strip() + "\n"))
            continue
        if out is None:
            dropped.append(f"{label}: no expected output")
            continue
        if not out.strip():
            dropped.append(f"{label}: empty expected output")
            continue
        if inp is None:
            dropped.append(f"{label}: no input")
        else:
            tests.append(GeneratedTest(kind, _norm_io(inp), _norm_io(out)))
    return _cap(ParsedTests(tuple(tests), tuple(dropped)), max_tests)


def _cap(parsed: ParsedTests, max_tests: int) -> ParsedTests:
    if len(parsed.tests) <= max_tests:
        return parsed
    extra = len(parsed.tests) - max_tests
    return ParsedTests(
        parsed.tests[:max_tests], (*parsed.dropped, f"{extra} test(s) beyond the first {max_tests}")
    )


# --------------------------------------------------------------------------- reflections


def clean_reflection(answer: str, *, max_chars: int = 4000) -> str:
    """A reflection must be prose: fenced code is removed (the Programmer writes the code)."""
    text = _FENCE.sub("[code omitted]", answer.replace("\r\n", "\n"))
    tail = re.search(r"^[ \t]{0,3}(`{3,}|~{3,})", text, re.MULTILINE)
    if tail:
        text = text[: tail.start()] + "[code omitted]"
    text = re.sub(r"\n{3,}", "\n\n", text).strip()
    return text[:max_chars]
