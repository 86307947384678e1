"""Prompt templates: Jinja files under prompts/, rendered into chat messages.

A template is plain text with role markers on lines of their own::

    <|system|>
    You are ...
    <|user|>
    {{ task.description }}

so that few-shot examples can be real user/assistant turns. Undefined variables fail loudly
(StrictUndefined): a prompt never silently loses a section.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2

from ramp.llm.base import ChatMessage

_ROLE_LINE = re.compile(r"^<\|(system|user|assistant)\|>[ \t]*$", re.MULTILINE)


def default_prompts_dir() -> Path:
    """The project's prompts/ (the package lives in workflow/scripts/ramp/)."""
    return Path(__file__).resolve().parents[3] / "prompts"


def split_messages(text: str, *, name: str = "<template>") -> tuple[ChatMessage, ...]:
    """Split rendered text on role markers into messages (pure)."""
    marks = list(_ROLE_LINE.finditer(text))
    if not marks:
        raise ValueError(f"{name}: no role marker (<|system|>, <|user|>, <|assistant|>) found")
    if text[: marks[0].start()].strip():
        raise ValueError(f"{name}: text before the first role marker")
    out = []
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        out.append(ChatMessage(m[1], text[m.end() : end].strip("\n")))
    if out[-1].role != "user":
        raise ValueError(f"{name}: the last message must be the user's, not {out[-1].role}")
    return tuple(out)


@dataclass
class PromptLibrary:
    """Renders ``prompts/<name>.j2`` templates; one Jinja environment per library."""

    root: Path

    def __post_init__(self) -> None:
        self.root = Path(self.root)
        self._env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(self.root),
            undefined=jinja2.StrictUndefined,
            keep_trailing_newline=True,
            trim_blocks=True,
            lstrip_blocks=True,
            autoescape=False,
        )

    @property
    def environment(self) -> jinja2.Environment:
        """The Jinja environment the templates are loaded and rendered with."""
        return self._env

    @classmethod
    def default(cls) -> PromptLibrary:
        return cls(default_prompts_dir())

    def render(self, name: str, variables: Mapping[str, Any]) -> tuple[ChatMessage, ...]:
        path = f"{name}.j2"
        try:
            template = self._env.get_template(path)
        except jinja2.TemplateNotFound:
            raise FileNotFoundError(f"prompt template {self.root / path} does not exist") from None
        try:
            text = template.render(**variables)
        except jinja2.UndefinedError as e:
            raise ValueError(f"{self.root / path}: {e.message}") from None
        return split_messages(text, name=str(self.root / path))
