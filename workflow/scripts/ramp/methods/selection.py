"""RAMP+'s choice among candidates, as pure functions of what each candidate did.

Trust decides the roles of the checks (docs/ramp_plus.md):

* the statement's **sample tests** are right by construction: a candidate failing one is
  *gated out* and never ranks above one that passes them;
* the Test Designer's **generated tests** supply inputs; their expected outputs are evidence,
  not verdicts: candidates with the same outputs on them form a group (CodeT, AlphaCode), and a
  group scores its size and its agreement with those expected outputs;
* **large** generated tests count only when a candidate crashes, runs out of time or memory.

A group's score is ``agreed + votes - large_failures`` (``votes``: its distinct programs,
left out when agreement selection is off); ties go to the smaller edit of the buggy program,
then to the earlier candidate. Nothing here runs a program: :mod:`ramp.methods.ramp_plus`
runs them and hands over :class:`Entry` records.
"""

from __future__ import annotations

import contextlib
import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

CLOSE_MARGIN = 1
"""Two groups whose scores differ by at most this much are close: the evidence does not settle
which is right (a distinguishing input may)."""

_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_CASELESS = frozenset({"yes", "no", "true", "false"})


def canonical_output(output: str) -> str:
    """An output as grouping compares it: whitespace-separated tokens, yes/no/true/false
    without case and numbers by value (1.50 = 1.5), as the judge accepts them."""
    tokens = []
    for token in output.split():
        if token.lower() in _CASELESS:
            token = token.lower()
        elif _NUMBER.fullmatch(token):
            with contextlib.suppress(ArithmeticError):  # an exponent past the context's
                token = str(Decimal(token).normalize())
        tokens.append(token)
    return " ".join(tokens)


def edit_size(buggy: str, code: str) -> int:
    """Lines changed from the buggy program (inserted, deleted or replaced; blank lines and
    trailing spaces ignored): the smaller edit wins a tie."""

    def lines(text: str) -> list[str]:
        return [line.rstrip() for line in text.splitlines() if line.strip()]

    ops = difflib.SequenceMatcher(None, lines(buggy), lines(code), autojunk=False).get_opcodes()
    return sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in ops if tag != "equal")


def program_key(code: str) -> str:
    """Two programs are the same vote when they differ only in blank lines and line ends."""
    return "\n".join(line.rstrip() for line in code.splitlines() if line.strip())


@dataclass(frozen=True)
class Entry:
    """One usable candidate, as the checks saw it.

    ``outputs``: its canonical output on each evidence test ("!VERDICT" where it crashed or ran
    out of time); ``agreed``: evidence expected outputs it matched; ``large``: "ok" or the
    verdict on each large test; ``gated``: it passed every sample test (True when samples do not
    veto) and is not known wrong (the buggy program unchanged, where the variant says so)."""

    id: str
    code: str
    edit: int
    gated: bool
    outputs: tuple[str, ...]
    agreed: int
    large: tuple[str, ...]

    @property
    def large_failures(self) -> int:
        return sum(v != "ok" for v in self.large)


@dataclass(frozen=True)
class Group:
    """Candidates that behaved alike on every generated input, best representative first."""

    members: tuple[Entry, ...]
    votes: int
    use_votes: bool

    @property
    def representative(self) -> Entry:
        return self.members[0]

    @property
    def gated(self) -> bool:
        return self.representative.gated

    @property
    def agreed(self) -> int:
        return self.representative.agreed

    @property
    def large_failures(self) -> int:
        return self.representative.large_failures

    @property
    def score(self) -> int:
        return self.agreed + (self.votes if self.use_votes else 0) - self.large_failures

    def summary(self) -> dict[str, object]:
        return {"members": [m.id for m in self.members], "votes": self.votes,
                "agreed": self.agreed, "large_failures": self.large_failures,
                "gated": self.gated, "score": self.score, "edit": self.representative.edit}


def _order(entries: Sequence[Entry]) -> dict[str, int]:
    return {e.id: i for i, e in enumerate(entries)}


@dataclass(frozen=True)
class Selection:
    """The groups of a pool of candidates, ranked best first, and what that says."""

    groups: tuple[Group, ...]
    evidence: int
    """How many evidence tests (expected outputs) the candidates were compared with."""
    agreement_first: bool = False
    """Expected outputs matched rank before the score (:func:`select`)."""

    @property
    def best(self) -> Group | None:
        return self.groups[0] if self.groups else None

    @property
    def runner_up(self) -> Group | None:
        """The second group, when it competes: gated like the best."""
        if len(self.groups) < 2 or self.groups[1].gated != self.groups[0].gated:
            return None
        return self.groups[1]

    @property
    def close(self) -> bool:
        """The best and the runner-up are within CLOSE_MARGIN: the evidence does not settle it
        (where agreement ranks first, a judged output that tells them apart settles it)."""
        best, second = self.best, self.runner_up
        if best is None or second is None:
            return False
        if self.agreement_first and best.agreed != second.agreed:
            return False
        return best.score - second.score <= CLOSE_MARGIN

    def confident(self, votes: int) -> bool:
        """The stop rule ``confident``: the chosen group passes the sample tests, at least
        ``votes`` distinct programs agree on every generated input (there is at least one: with
        none, agreement says nothing), it matches at least half of the expected outputs, and no
        competing group is close to it."""
        best = self.best
        return (best is not None and best.gated and best.votes >= votes and self.evidence > 0
                and 2 * best.agreed >= self.evidence and not self.close)

    def settled(self, votes: int) -> bool:
        """The stop rule ``settled`` (the breadth method's): the chosen group passes the sample
        tests, at least ``votes`` distinct programs in it behave alike on every input, and no
        competing group is close to it. Expected outputs count only as the score does."""
        best = self.best
        return best is not None and best.gated and best.votes >= votes and not self.close

    def passes_every_check(self) -> bool:
        """The stop rule ``generated`` (RAMP's): the chosen candidate passes the sample gate,
        matches every expected output and survives every large test."""
        best = self.best
        return (best is not None and best.gated and best.agreed == self.evidence
                and best.large_failures == 0)

    def summary(self) -> list[dict[str, object]]:
        return [g.summary() for g in self.groups]


def select(entries: Sequence[Entry], *, evidence: int, use_votes: bool = True,
           agreement_first: bool = False) -> Selection:
    """Group ``entries`` by behaviour (outputs on the evidence inputs, status on the large ones)
    and rank the groups: gated first, then score, then the smaller edit, then the earlier
    candidate (``entries`` are in the order they were made). ``agreement_first``: expected
    outputs matched rank before the score (the breadth method, where only judged outputs are
    expected outputs: a judge's verdict outweighs any number of votes)."""
    order = _order(entries)
    by_behaviour: dict[tuple[bool, tuple[str, ...], tuple[str, ...]], list[Entry]] = {}
    for e in entries:
        by_behaviour.setdefault((e.gated, e.outputs, e.large), []).append(e)
    groups = []
    for members in by_behaviour.values():
        ranked = sorted(members, key=lambda e: (e.edit, order[e.id]))
        groups.append(Group(tuple(ranked), len({program_key(e.code) for e in members}),
                            use_votes))
    groups.sort(key=lambda g: (not g.gated, -g.agreed if agreement_first else 0, -g.score,
                               g.representative.edit, order[g.representative.id]))
    return Selection(tuple(groups), evidence, agreement_first)
