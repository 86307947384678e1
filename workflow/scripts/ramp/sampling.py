"""Subsets of the tasks: `all`, a committed id list (`paper34`, the authors' 34 tasks; `paper10`,
our own stratified 10% draw; `cpp65`, our C++ draw; `heldout33`, one task of every problem
`paper34` lacks), or the first N of a stratified order.

The paper's 10% subset (34 of 343) "preserves the difficulty distribution". We build one seeded
order of all tasks in which every prefix keeps the difficulty bands in proportion, so `paper10`
is its first 10% and a subset of N tasks is its first N: small runs stay representative and
nest inside larger ones. A committed draw (:data:`DRAWS`) may stratify by the recorded outcome
of the buggy program too (`cpp65`: the size of the paper's C++ subset, 65).
"""

from __future__ import annotations

import argparse
import hashlib
import random
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ramp.dataset import load_tasks
from ramp.io import write_text
from ramp.task_table import read_tasks, write_tasks
from ramp.tasks import Task

# The difficulty ranges of the paper's figures 2 and 4 (Codeforces ratings).
BAND_EDGES: tuple[int, ...] = (1200, 1400, 1600)
BANDS: tuple[str, ...] = ("<1200", "1200-1400", "1400-1600", ">=1600", "unknown")
PAPER_FRACTION = 0.10
DEFAULT_SEED = 2024


class SubsetError(ValueError):
    """A subset name, id list or size that cannot be served."""


def difficulty_band(difficulty: int | None) -> str:
    if difficulty is None:
        return "unknown"
    for edge, band in zip(BAND_EDGES, BANDS, strict=False):
        if difficulty < edge:
            return band
    return BANDS[len(BAND_EDGES)]


STRATA: dict[str, Callable[[Task], Hashable]] = {
    "band": lambda t: BANDS.index(difficulty_band(t.difficulty)),
    "outcome": lambda t: t.recorded_outcome,
}
"""What a stratified order may keep in proportion: the difficulty band, the buggy program's
recorded outcome (a stratum is a combination of the values of the ``by`` it is given)."""


def stratified_order(
    tasks: Sequence[Task], seed: int = DEFAULT_SEED, *, by: Sequence[str] = ("band",)
) -> list[Task]:
    """All tasks, ordered so that each prefix holds every stratum (by default: every difficulty
    band) in proportion (within one task).

    Within a stratum the order is a seeded shuffle of the tasks sorted by id, so it does not
    depend on the input order. Position k goes to the stratum furthest below its share
    k * p_stratum; strata are taken in order (bands from the easiest).
    """
    rng = random.Random(seed)
    strata: dict[tuple[Hashable, ...], list[Task]] = {}
    for task in sorted(tasks, key=lambda t: t.task_id):
        strata.setdefault(tuple(STRATA[s](task) for s in by), []).append(task)
    queues = {key: strata[key] for key in sorted(strata)}
    for ts in queues.values():
        rng.shuffle(ts)
    total = len(tasks)
    share = {b: len(ts) / total for b, ts in queues.items()}
    taken = dict.fromkeys(queues, 0)
    order: list[Task] = []
    for k in range(1, total + 1):
        open_strata = [key for key in queues if taken[key] < len(queues[key])]
        stratum = max(open_strata, key=lambda key: k * share[key] - taken[key])
        order.append(queues[stratum][taken[stratum]])
        taken[stratum] += 1
    return order


def paper_size(n_tasks: int, fraction: float = PAPER_FRACTION) -> int:
    return max(1, round(n_tasks * fraction))


def paper10_ids(tasks: Sequence[Task], seed: int = DEFAULT_SEED) -> list[str]:
    return [t.task_id for t in stratified_order(tasks, seed)[: paper_size(len(tasks))]]


def read_id_list(path: str | Path) -> list[str]:
    """One id a line; '#' starts a comment; blank lines are ignored; duplicates are errors."""
    path = Path(path)
    ids: list[str] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        if text in seen:
            raise SubsetError(f"{path.name}:{number}: id {text!r} already on line {seen[text]}")
        seen[text] = number
        ids.append(text)
    return ids


def select_ids(tasks: Sequence[Task], ids: Sequence[str], source: str = "id list") -> list[Task]:
    """The tasks named by ``ids``, in that order; every id must exist."""
    by_id = {t.task_id: t for t in tasks}
    unknown = [i for i in ids if i not in by_id]
    if unknown:
        shown = ", ".join(unknown[:5]) + (" ..." if len(unknown) > 5 else "")
        raise SubsetError(f"{source}: {len(unknown)} unknown task id(s): {shown}")
    return [by_id[i] for i in ids]


def select_subset(
    tasks: Sequence[Task],
    subset: str,
    *,
    seed: int = DEFAULT_SEED,
    id_file: str | Path | None = None,
) -> list[Task]:
    """`all` (input order), a committed id list (``id_file``), or N: the first N stratified."""
    if subset == "all":
        return list(tasks)
    if subset.isdigit():
        n = int(subset)
        if not 1 <= n <= len(tasks):
            raise SubsetError(f"subset {subset}: need 1..{len(tasks)} tasks")
        return stratified_order(tasks, seed)[:n]
    if id_file is None:
        raise SubsetError(f"subset {subset!r}: no id list given (known: all, N, or a list of "
                          "data/subsets/)")
    return select_ids(tasks, read_id_list(id_file), source=Path(id_file).name)


def band_counts(tasks: Sequence[Task]) -> dict[str, int]:
    counts = dict.fromkeys(BANDS, 0)
    for t in tasks:
        counts[difficulty_band(t.difficulty)] += 1
    return {b: n for b, n in counts.items() if n}


def outcome_counts(tasks: Sequence[Task]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for t in sorted(tasks, key=lambda t: t.recorded_outcome):
        counts[t.recorded_outcome] = counts.get(t.recorded_outcome, 0) + 1
    return counts


@dataclass(frozen=True)
class Draw:
    """A committed id list drawn from a data set (data/subsets/NAME.txt): the first ``size``
    tasks (None: the paper's 10%) of the stratified order ``by`` the strata named."""

    name: str
    jsonl: str
    """The data set drawn from, as the config names it."""
    about: str
    """What the list is, after "N of M tasks of FILE, " in its header (may span lines)."""
    size: int | None = None
    by: tuple[str, ...] = ("band",)
    outside: str | None = None
    """A committed list: the draw is then the first task, in the order, of every problem that
    list does not contain (its size is how many such problems there are)."""

    def ids(self, tasks: Sequence[Task], seed: int = DEFAULT_SEED,
            subsets: Path = Path("data/subsets")) -> list[str]:
        """The list's ids; ``subsets``: where the committed list named by ``outside`` is."""
        order = stratified_order(tasks, seed, by=self.by)
        if self.outside is not None:
            inside = {t.problem.problem_id for t in select_ids(
                tasks, read_id_list(subsets / f"{self.outside}.txt"), self.outside)}
            first: dict[str, str] = {}
            for t in order:
                if t.problem.problem_id not in inside:
                    first.setdefault(t.problem.problem_id, t.task_id)
            return list(first.values())
        n = self.size or paper_size(len(tasks))
        if not 1 <= n <= len(tasks):
            raise SubsetError(f"{self.name}: {n} tasks asked of {len(tasks)}")
        return [t.task_id for t in order[:n]]

    def command(self, seed: int) -> str:
        """The command that regenerates the list."""
        draw = "" if self.name == DEFAULT_DRAW else f" --draw {self.name}"
        return (f"python -m ramp subset-ids{draw} --jsonl {self.jsonl} --seed {seed} "
                f"--out data/subsets/{self.name}.txt")


DEFAULT_DRAW = "paper10"
DRAWS: dict[str, Draw] = {d.name: d for d in (
    Draw("paper10", "../shared/data/xcodeeval-apr-ruby/validation.jsonl",
         "our own stratified 10% draw (not the authors'\n# subset: that is paper34)."),
    Draw("cpp65", "../shared/data/xcodeeval-apr-cpp/validation.jsonl",
         "our own stratified draw of as many\n# tasks as the paper's C++ subset (65; its 10% of "
         "641 C++ programs, ours of the 312 over\n# the Ruby set's problems).",
         size=65, by=("band", "outcome")),
    Draw("heldout33", "../shared/data/xcodeeval-apr-ruby/validation.jsonl",
         "one task of every problem that\n# paper34 does not contain: a set no method was tuned "
         "on (docs/coverage.md).", outside="paper34"),
)}
"""The committed draws, by name."""


def render_id_list(
    tasks: Sequence[Task], ids: Sequence[str], seed: int, source: str, digest: str = "",
    draw: Draw = DRAWS[DEFAULT_DRAW],
) -> str:
    chosen = [t for t in tasks if t.task_id in set(ids)]
    population = band_counts(tasks)
    picked = band_counts(chosen)
    bands = ", ".join(f"{b}: {picked.get(b, 0)}/{n}" for b, n in population.items())
    first = "10%" if draw.size is None else str(draw.size)
    made = ("the first task of each such problem in a seeded order" if draw.outside
            else f"the first {first} of a seeded order")
    strata = f"bands {BAND_EDGES}" + (" and recorded outcomes" if "outcome" in draw.by else "")
    header = [
        f"# {draw.name}: {len(ids)} of {len(tasks)} tasks of {source}, {draw.about}",
        f"# Made by {made} in which every prefix keeps the difficulty",
        f"# {strata} in proportion (ramp.sampling.stratified_order, seed {seed}).",
        f"# Per band, chosen/population: {bands}.",
    ]
    if "outcome" in draw.by:
        got = outcome_counts(chosen)
        outcomes = ", ".join(f"{o}: {got.get(o, 0)}/{n}" for o, n in outcome_counts(tasks).items())
        header.append(f"# Per recorded outcome, chosen/population: {outcomes}.")
    header += [
        f"# Regenerate: {draw.command(seed)}",
        f"# Data set sha256: {digest or 'unknown'}.",
        "# One task id (the data set's bug_code_uid) a line.",
    ]
    return "\n".join([*header, *ids]) + "\n"


HELP = "write a committed, stratified id list (data/subsets/paper10.txt, cpp65.txt, heldout33.txt)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--draw", choices=sorted(DRAWS), default=DEFAULT_DRAW,
                        help="which list: its size and strata (ramp.sampling.DRAWS)")
    parser.add_argument("--jsonl", type=Path, required=True, help="the xCodeEval APR JSONL")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--out", type=Path, default=None,
                        help="default: data/subsets/<draw>.txt")


def main(args: argparse.Namespace) -> int:
    draw = DRAWS[getattr(args, "draw", DEFAULT_DRAW)]
    out = args.out or Path(f"data/subsets/{draw.name}.txt")
    result = load_tasks(args.jsonl)
    if not result.tasks:
        print(f"error: {args.jsonl}: no task loaded", flush=True)
        return 1
    ids = draw.ids(result.tasks, args.seed, out.parent)
    digest = hashlib.sha256(args.jsonl.read_bytes()).hexdigest()
    text = render_id_list(result.tasks, ids, args.seed, args.jsonl.name, digest, draw)
    write_text(out, text)
    print(f"wrote {len(ids)} ids to {out}")
    return 0


def write_subset(
    tasks_in: str | Path,
    out: str | Path,
    subset: str,
    *,
    seed: int = DEFAULT_SEED,
    id_file: str | Path | None = None,
) -> list[Task]:
    """The sampling stage: the task table in, the subset's task table out."""
    chosen = select_subset(read_tasks(tasks_in), subset, seed=seed, id_file=id_file)
    write_tasks(chosen, out)
    return chosen
