"""The one hole in the trust boundary: a task's hidden tests as a method's feedback.

A repair method receives a :class:`~ramp.tasks.Problem`, which has no hidden test. Two protocols
of the paper need them all the same, and only variants marked ``hidden_feedback`` run them:

* the Discussion's upper bound ("Practicality of RAMP", 91.17 % in the paper): RAMP without the
  Test Designer, its Programmer and Feedback Integrator fed the hidden tests' outcomes;
* ChatRepair and LANTERN as the authors ran them, inside LANTERN's framework: the failing hidden
  tests fed back each round, a task leaving the loop once they pass.

:class:`HiddenFeedback` carries the hidden tests of a run's tasks. The agent stages build it, from
the task table, for those variants alone (:func:`for_variant`); a method reaches the tests only
through :func:`ramp.methods.base.feedback_tests`, and a structure test checks that no other
module names this one. Scores of these runs are labelled as hidden-test feedback everywhere and
never shown as strict.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ramp.task_table import read_tasks
from ramp.tasks import Problem, Task, TestCase

SOURCE = "hidden"
"""The ``source`` of a run's guiding tests when they are the hidden ones (tests.parquet)."""


@dataclass(frozen=True)
class HiddenFeedback:
    """The hidden tests of some tasks, by task id: those a program can pass (a test whose input
    the data set cut off is left out, as no program can pass it)."""

    tests: Mapping[str, tuple[TestCase, ...]]

    def of(self, problem: Problem) -> tuple[TestCase, ...]:
        if problem.task_id not in self.tests:
            raise KeyError(f"hidden feedback: no hidden tests for task {problem.task_id}")
        return self.tests[problem.task_id]

    @classmethod
    def of_tasks(cls, tasks: Iterable[Task]) -> HiddenFeedback:
        return cls({t.task_id: tuple(h for h in t.hidden_tests if not h.truncated)
                    for t in tasks})


def for_variant(hidden_feedback: bool, tasks: str | os.PathLike[str]) -> HiddenFeedback | None:
    """The hidden tests of the task table ``tasks`` for a variant marked ``hidden_feedback``;
    None for every other variant (its stage never reads them)."""
    if not hidden_feedback:
        return None
    return HiddenFeedback.of_tasks(read_tasks(tasks))
