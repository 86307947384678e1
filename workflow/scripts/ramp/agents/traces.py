"""Execution traces as the Feedback Integrator and the Programmer read them."""

from __future__ import annotations

from collections.abc import Sequence

from ramp.tasks import RunReport, TestCase, Verdict


def _clip(text: str, limit: int) -> str:
    text = text.rstrip("\n")
    return text if len(text) <= limit else text[:limit] + f"... [{len(text) - limit} more chars]"


def format_traces(
    tests: Sequence[TestCase], report: RunReport, *, max_failures: int = 3, clip: int = 300
) -> str:
    """The failing tests of a run: input, expected and actual output, verdict and error."""
    if report.compile_error:
        return f"The program does not compile:\n{_clip(report.compile_error, clip * 2)}"
    lines: list[str] = []
    failures = [r for r in report.results if r.verdict is not Verdict.PASSED]
    for r in failures[:max_failures]:
        t = tests[r.index]
        lines.append(f"Test {r.index + 1} ({t.kind or 'test'}): {r.verdict.value}")
        lines.append(f"Input:\n{_clip(t.input, clip)}")
        if t.outputs:
            lines.append(f"Expected output:\n{_clip(t.outputs[0], clip)}")
        else:
            lines.append("Expected output: unknown (this test checks only that the program "
                         "ends normally within the limits)")
        if r.verdict is Verdict.WRONG_ANSWER:
            lines.append(f"Actual output:\n{_clip(r.stdout_tail, clip) or '(nothing)'}")
        if r.stderr_tail.strip():
            lines.append(f"Error:\n{_clip(r.stderr_tail, clip)}")
        if r.note:
            lines.append(f"Note: {r.note}")
        lines.append("")
    if len(failures) > max_failures:
        lines.append(f"... and {len(failures) - max_failures} more failing test(s).")
    passed = len(report.results) - len(failures)
    lines.append(f"{passed} of {len(report.results)} tests passed.")
    return "\n".join(lines).strip()
