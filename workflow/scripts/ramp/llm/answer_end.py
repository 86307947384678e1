"""Where an answer is complete: generation stops there instead of running on to max tokens.

A rule is named in ``SamplingParams.stop_when`` (so the cache keys on it) and maps the text
generated so far to the offset where the answer ends, or None while it is not complete. The
backends check it as text streams in and cut the answer at that offset; a backend that cannot
stream cuts its finished text the same way, so every backend returns the same text.

``program:<lang>`` ends after the closing fence line of the first closed fenced block tagged
``lang`` whose body reads standard input and writes standard output or runs several lines: the
whole program the Programmer is asked for ("think step by step, then give the complete
corrected program in one ```ruby block"). Snippets quoted while reasoning (a fixed line, an
input-reading idiom) do not end it, and an untagged block never does
(``ramp.parsing.extract_program`` prefers a later tagged block to it). The closing fence counts
once its line is finished, so the block is parsed exactly as it would be in the whole answer;
the parse changes only where a second tagged block would have followed a whole program (the
first is then the answer).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ramp.languages import LANGUAGES

# The fences of ramp.parsing: ``` or ~~~, info string, body, the same fence closing the block
# on a line of its own. Here the closing line must be finished (a newline follows it) so that
# a fence still growing ("```" then "ruby") is not taken for a closing one.
_BLOCK = re.compile(
    r"^[ \t]{0,3}(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\n`]*)\n"
    r"(?P<body>.*?)^[ \t]{0,3}(?P=fence)[ \t]*(?=\n)",
    re.MULTILINE | re.DOTALL,
)

_READS = {
    "ruby": re.compile(r"\bgets\b|\bSTDIN\b|\$stdin\b|\bARGF\b|\$<|\breadlines?\b"),
    "python": re.compile(r"\binput\s*\(|\bsys\.stdin\b|\bopen\(\s*0\b|\bstdin\b"),
    # C++ reads through iostreams or C stdio (getchar_unlocked and the like included).
    "cpp": re.compile(r"\bcin\b|\bf?scanf\b|\bgetchar|\bgetline\b|\bf?gets\b|\bfread\b"
                      r"|\bstdin\b"),
}
_WRITES = {
    "ruby": re.compile(r"\bputs\b|\bprintf?\b|\bp\b|\bpp\b|\$stdout\b|\bSTDOUT\b|\$>"),
    "python": re.compile(r"\bprint\s*\(|\bsys\.stdout\b|\bstdout\b"),
    "cpp": re.compile(r"\bcout\b|\bprintf\b|\bputs\b|\bputchar|\bfwrite\b|\bstdout\b"),
}
# The fence tags of each language that has a rule (ramp.languages lists them).
_TAGS = {key: LANGUAGES[key].tags for key in _READS}

# A block that reads input and runs this long is a program even if it prints nothing (a
# wrong one is still the answer); a quoted snippet rarely is.
_PROGRAM_LINES = 4

EndRule = Callable[[str], int | None]


def program_end(text: str, lang: str) -> int | None:
    """Offset just past the closing fence line of the first complete ``lang`` program, or None."""
    tags = _TAGS[lang]
    for m in _BLOCK.finditer(text):
        info = m["info"].strip()
        tag = info.split()[0].lower() if info else ""
        body = m["body"]
        if tag in tags and _READS[lang].search(body) and (
            _WRITES[lang].search(body) or len(body.strip().splitlines()) >= _PROGRAM_LINES
        ):
            return m.end() + 1  # the closing line, its newline included
    return None


RULES: dict[str, EndRule] = {
    f"program:{lang}": (lambda text, lang=lang: program_end(text, lang)) for lang in _TAGS
}

# A line that can close a block: only when one is finished may the answer have ended.
_CLOSING_LINE = re.compile(r"[ \t]{0,3}(?:`{3,}|~{3,})[ \t]*\n")


def end_rule(name: str) -> EndRule:
    try:
        return RULES[name]
    except KeyError:
        raise ValueError(
            f"unknown stop_when rule {name!r} (known: {', '.join(sorted(RULES))})"
        ) from None


class EndWatch:
    """Follows a growing answer line by line; ``feed`` returns where it ended, once it has.

    The rule is asked only when a fence line has just been finished, on the text up to it, so
    streaming token by token and cutting a finished answer (:func:`cut_at_end`) agree exactly.
    """

    def __init__(self, name: str) -> None:
        self.rule = end_rule(name)
        self._seen = 0  # offset of the first line not yet looked at

    def feed(self, text: str) -> int | None:
        while (newline := text.find("\n", self._seen)) >= 0:
            line_start, self._seen = self._seen, newline + 1
            if _CLOSING_LINE.fullmatch(text, line_start, self._seen):
                end = self.rule(text[: self._seen])
                if end is not None:
                    return end
        return None


def cut_at_end(text: str, name: str) -> tuple[str, bool]:
    """``text`` cut where rule ``name`` says the answer ends; whether it ended (pure)."""
    if not name:
        return text, False
    end = EndWatch(name).feed(text)
    return (text[:end], True) if end is not None else (text, False)
