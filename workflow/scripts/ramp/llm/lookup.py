"""Draft tokens looked up in what a sequence already holds (prompt lookup decoding's drafts).

An answer that repairs a program copies most of it from the prompt, so the tokens that followed
the last earlier occurrence of the answer's latest few tokens are a good guess at its next ones.
A decoder checks such a guess for free in rows of its step that would otherwise carry padding
(ramp.llm.backends.fixed_shape): the guess changes how many tokens a step gives, never which.
"""

from __future__ import annotations

from collections.abc import Iterable


class Lookup:
    """The tokens of one sequence (prompt, then answer) and an index of their n-grams of
    ``1..max_ngram`` tokens: where each last ended."""

    def __init__(self, tokens: Iterable[int] = (), max_ngram: int = 3) -> None:
        if max_ngram < 1:
            raise ValueError(f"max_ngram must be >= 1, got {max_ngram}")
        self.max_ngram = max_ngram
        self.tokens: list[int] = []
        self._ends: dict[tuple[int, ...], int] = {}  # n-gram -> the index after its last end
        self.extend(tokens)

    def extend(self, tokens: Iterable[int]) -> None:
        """Append ``tokens``; each n-gram ending before the new last token is indexed, so the
        latest n-grams are looked up among earlier ones only."""
        for token in tokens:
            self._index_before_last()
            self.tokens.append(token)

    def _index_before_last(self) -> None:
        end = len(self.tokens)
        for n in range(1, min(self.max_ngram, end) + 1):
            self._ends[tuple(self.tokens[end - n:end])] = end

    def draft(self, n: int) -> list[int]:
        """Up to ``n`` tokens that followed the last earlier occurrence of the longest suffix
        (``max_ngram`` tokens down to one) seen before; empty when there is none."""
        if n <= 0:
            return []
        for size in range(min(self.max_ngram, len(self.tokens)), 0, -1):
            end = self._ends.get(tuple(self.tokens[-size:]))
            if end is not None:
                return self.tokens[end:end + n]
        return []
