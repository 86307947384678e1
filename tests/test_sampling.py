"""Subsets: stratification, determinism, first-N, and the committed paper10 list."""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

import pytest

from ramp import sampling
from ramp.dataset import load_tasks
from ramp.sampling import (
    BANDS,
    SubsetError,
    band_counts,
    difficulty_band,
    paper10_ids,
    read_id_list,
    select_subset,
    stratified_order,
)
from ramp.tasks import Problem, Task

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT / "../shared/data/xcodeeval-apr-ruby/validation.jsonl"
PAPER10 = ROOT / "data/subsets/paper10.txt"
needs_real = pytest.mark.skipif(not REAL.exists(), reason="the xCodeEval data set is not here")


def make_task(task_id: str, difficulty: int | None, problem_id: str = "p") -> Task:
    return Task(Problem(
        task_id=task_id,
        problem_id=problem_id,
        description="",
        input_spec="",
        output_spec="",
        notes="",
        samples=(),
        time_limit_s=1.0,
        memory_mb=256,
        tags=(),
        difficulty=difficulty,
        buggy_code="",
    ), recorded_outcome="WRONG_ANSWER")


def population() -> list[Task]:
    # 60/25/10/5 over the four bands plus 3 unknown, like the data set's skew.
    spec = [(800, 60), (1300, 25), (1500, 10), (2000, 5), (None, 3)]
    return [make_task(f"t{d}-{i:03d}", d) for d, n in spec for i in range(n)]


def assert_within_one(chosen: list[Task], tasks: list[Task]) -> None:
    pop = band_counts(tasks)
    got = band_counts(chosen)
    for band, n in pop.items():
        expected = len(chosen) * n / len(tasks)
        assert abs(got.get(band, 0) - expected) < 1, (band, got, expected)


@pytest.mark.parametrize(
    ("difficulty", "band"),
    [(None, "unknown"), (800, "<1200"), (1199, "<1200"), (1200, "1200-1400"),
     (1400, "1400-1600"), (1600, ">=1600"), (3500, ">=1600")],
)
def test_difficulty_band(difficulty: int | None, band: str) -> None:
    assert difficulty_band(difficulty) == band
    assert band in BANDS


def test_every_prefix_is_stratified() -> None:
    tasks = population()
    order = stratified_order(tasks, seed=1)
    assert sorted(t.task_id for t in order) == sorted(t.task_id for t in tasks)
    for n in range(1, len(tasks) + 1):
        assert_within_one(order[:n], tasks)


def test_order_is_deterministic_and_seeded() -> None:
    tasks = population()
    ids = [t.task_id for t in stratified_order(tasks, seed=7)]
    assert ids == [t.task_id for t in stratified_order(list(reversed(tasks)), seed=7)]
    assert ids != [t.task_id for t in stratified_order(tasks, seed=8)]


def test_first_n_and_all() -> None:
    tasks = population()
    ten = select_subset(tasks, "10", seed=3)
    assert len(ten) == 10
    assert select_subset(tasks, "20", seed=3)[:10] == ten
    assert select_subset(tasks, "all") == tasks
    with pytest.raises(SubsetError, match=r"need 1\.\.103"):
        select_subset(tasks, "104")


def test_named_subset_reads_its_id_list(tmp_path: Path) -> None:
    tasks = population()
    ids = tmp_path / "ids.txt"
    ids.write_text("# header\nt800-003\n\nt2000-001  # a hard one\n")
    assert [t.task_id for t in select_subset(tasks, "mine", id_file=ids)] == [
        "t800-003",
        "t2000-001",
    ]
    with pytest.raises(SubsetError, match="no id list"):
        select_subset(tasks, "mine")


def test_unknown_and_duplicate_ids_are_errors(tmp_path: Path) -> None:
    tasks = population()
    ids = tmp_path / "ids.txt"
    ids.write_text("t800-003\nnope\n")
    with pytest.raises(SubsetError, match=r"ids\.txt: 1 unknown task id.*nope"):
        select_subset(tasks, "paper10", id_file=ids)
    ids.write_text("t800-003\nt800-004\nt800-003\n")
    with pytest.raises(SubsetError, match=r"ids\.txt:3: id 't800-003' already on line 1"):
        read_id_list(ids)


@needs_real
def test_committed_paper10_is_the_regenerated_one() -> None:
    tasks = load_tasks(REAL).tasks
    committed = read_id_list(PAPER10)
    assert committed == paper10_ids(tasks, seed=2024)
    chosen = select_subset(tasks, "paper10", id_file=PAPER10)
    assert len(chosen) == 34
    assert_within_one(chosen, tasks)
    assert band_counts(chosen) == {"<1200": 20, "1200-1400": 8, "1400-1600": 4, ">=1600": 2}
    assert Counter(t.task_id for t in chosen).most_common(1)[0][1] == 1


@needs_real
def test_regenerating_paper10_reproduces_the_committed_file(tmp_path: Path) -> None:
    out = tmp_path / "paper10.txt"
    args = argparse.Namespace(jsonl=REAL, seed=2024, out=out)
    assert sampling.main(args) == 0
    assert out.read_text() == PAPER10.read_text()


CPP = ROOT / "../shared/data/xcodeeval-apr-cpp/validation.jsonl"
CPP65 = ROOT / "data/subsets/cpp65.txt"
needs_cpp = pytest.mark.skipif(not CPP.exists(), reason="the C++ data set is not here")


def assert_strata_within_one(chosen: list[Task], tasks: list[Task]) -> None:
    """Every (band, recorded outcome) stratum within one task of its share."""
    def stratum(t: Task) -> tuple[str, str]:
        return difficulty_band(t.difficulty), t.recorded_outcome

    population, got = Counter(map(stratum, tasks)), Counter(map(stratum, chosen))
    for key, n in population.items():
        assert abs(got[key] - len(chosen) * n / len(tasks)) < 1, (key, got[key])


def test_an_order_by_band_and_outcome_keeps_each_stratum_in_proportion() -> None:
    outcomes = ["WRONG_ANSWER", "RUNTIME_ERROR", "TIME_LIMIT_EXCEEDED"]
    tasks = [Task(t.problem, recorded_outcome=outcomes[i % 3])
             for i, t in enumerate(population())]
    order = stratified_order(tasks, by=("band", "outcome"))
    assert sorted(t.task_id for t in order) == sorted(t.task_id for t in tasks)
    for n in (10, 35, 65):
        assert_strata_within_one(order[:n], tasks)
    assert stratified_order(tasks, by=("band", "outcome")) == order
    assert stratified_order(tasks) == stratified_order(tasks, by=("band",))


@needs_cpp
def test_regenerating_cpp65_reproduces_the_committed_file(tmp_path: Path) -> None:
    out = tmp_path / "cpp65.txt"
    args = argparse.Namespace(draw="cpp65", jsonl=CPP, seed=2024, out=out)
    assert sampling.main(args) == 0
    assert out.read_text() == CPP65.read_text()
    tasks = load_tasks(CPP).tasks
    chosen = select_subset(tasks, "cpp65", id_file=CPP65)
    assert len(chosen) == 65 and {t.problem.language.key for t in chosen} == {"cpp"}
    assert_strata_within_one(chosen, tasks)


def test_a_draw_outside_a_list_takes_the_first_task_of_each_other_problem(tmp_path: Path) -> None:
    tasks = [make_task(f"t{i:02d}", 800 + 100 * (i % 7), problem_id=f"p{i % 5}") for i in range(20)]
    (tmp_path / "mine.txt").write_text("t00\nt05\n")  # both of problem p0
    draw = sampling.Draw("other", "x.jsonl", "about", outside="mine")
    ids = draw.ids(tasks, seed=7, subsets=tmp_path)
    by_id = {t.task_id: t for t in tasks}
    assert sorted(by_id[i].problem.problem_id for i in ids) == ["p1", "p2", "p3", "p4"]
    order = [t.task_id for t in stratified_order(tasks, 7)]
    for i in ids:  # each problem's first task in the seeded order
        problem = by_id[i].problem.problem_id
        assert i == next(o for o in order if by_id[o].problem.problem_id == problem)
    assert draw.ids(tasks, seed=7, subsets=tmp_path) == ids
    (tmp_path / "mine.txt").write_text("t99\n")
    with pytest.raises(SubsetError, match="mine: 1 unknown task id"):
        draw.ids(tasks, seed=7, subsets=tmp_path)


HELDOUT33 = ROOT / "data/subsets/heldout33.txt"


@needs_real
def test_regenerating_heldout33_reproduces_the_committed_file(tmp_path: Path) -> None:
    out = tmp_path / "heldout33.txt"
    (tmp_path / "paper34.txt").write_text((ROOT / "data/subsets/paper34.txt").read_text())
    args = argparse.Namespace(draw="heldout33", jsonl=REAL, seed=2024, out=out)
    assert sampling.main(args) == 0
    assert out.read_text() == HELDOUT33.read_text()
    tasks = load_tasks(REAL).tasks
    chosen = select_subset(tasks, "heldout33", id_file=HELDOUT33)
    paper34 = {t.problem.problem_id for t in select_subset(
        tasks, "paper34", id_file=ROOT / "data/subsets/paper34.txt")}
    problems = [t.problem.problem_id for t in chosen]
    assert len(chosen) == 33 and len(set(problems)) == 33 and not set(problems) & paper34
    assert len(paper34 | set(problems)) == len({t.problem.problem_id for t in tasks})
