"""The package's shape, checked: no import cycle, methods and agents on the right side of the
trust boundary (no hidden test can reach them), and one list of methods and variant fields."""

from __future__ import annotations

import ast
import dataclasses
import graphlib
import inspect
import typing
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from ramp import methods, task_table
from ramp.tasks import Problem, Task, TestCase
from ramp.variants import (
    FIELDS,
    PROGRAMMER_CONTEXTS,
    PROGRAMMER_STYLES,
    REFLECTION_STRATEGIES,
    STOP_RULES,
)

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "workflow" / "scripts" / "ramp"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _imports(name: str, path: Path) -> set[str]:
    """Every ramp module ``name`` imports, at any depth of its code (a lazy import inside a
    function counts: it would only hide a cycle), with the packages each import executes."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            targets = [base, *(f"{base}.{a.name}" for a in node.names)]
        else:
            continue
        for target in targets:
            parts = target.split(".")
            for i in range(1, len(parts) + 1):  # importing a.b.c runs a, a.b and a.b.c,
                candidate = ".".join(parts[:i])  # but a.b is already running for a.b.x
                inside = candidate != target and name.startswith(f"{candidate}.")
                if candidate in MODULES and candidate != name and not inside:
                    found.add(candidate)
    return found


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def test_the_import_graph_has_no_cycle():
    graphlib.TopologicalSorter(GRAPH).prepare()  # raises CycleError naming the circle


def test_a_cycle_would_be_found():
    with pytest.raises(graphlib.CycleError):
        graphlib.TopologicalSorter({**GRAPH, "ramp.tasks": {"ramp.methods.ramp"}}).prepare()


def _reachable(start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for nxt in GRAPH[todo.pop()] - seen:
            seen.add(nxt)
            todo.append(nxt)
    return seen


REPAIR_SIDE = sorted(n for n in MODULES if n.startswith(("ramp.methods", "ramp.agents")))


@pytest.mark.parametrize("name", REPAIR_SIDE)
def test_methods_and_agents_never_reach_scoring_or_hidden_tests(name):
    reached = _reachable(name)
    assert not {m for m in reached if m.startswith(("ramp.analysis", "ramp.figures"))}
    source = MODULES[name].read_text(encoding="utf-8")
    tree = ast.parse(source)
    names = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    names |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    names |= {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
    assert "hidden_tests" not in names and "read_tasks" not in names
    assert "Task" not in names, f"{name} names Task: methods and agents take a Problem"


def test_a_problem_has_no_hidden_test_and_cannot_be_given_one():
    assert "hidden_tests" not in {f.name for f in dataclasses.fields(Problem)}
    problem = Problem("t", "p", "d", "i", "o", "", (), 1.0, 256, (), None, "puts 1")
    with pytest.raises(TypeError):
        dataclasses.replace(problem, hidden_tests=(TestCase("1\n", ("1\n",)),))
    assert Task(problem, hidden_tests=(TestCase("1\n", ("1\n",)),)).problem is problem


@pytest.mark.parametrize("name", sorted(methods.METHODS))
def test_every_method_takes_a_problem(name):
    repair = methods.method(name)
    hints = typing.get_type_hints(repair)
    first = next(iter(inspect.signature(repair).parameters))
    assert hints[first] is Problem and "MethodContext" in str(hints["ctx"])


def test_the_agent_stages_read_no_hidden_test(tmp_path, monkeypatch):
    problem = Problem("t", "p", "d", "i", "o", "", (TestCase("1\n", ("2\n",), "sample"),), 1.0,
                      256, (), 800, "puts 1")
    path = tmp_path / "tasks.parquet"
    task_table.write_tasks([Task(problem, (TestCase("9\n", ("18\n",), "hidden"),), "OK")], path)
    read: list[list[str]] = []
    real = pq.read_table
    monkeypatch.setattr(task_table.pq, "read_table",
                        lambda p, columns=None: read.append(columns) or real(p, columns=columns))
    assert task_table.read_problems(path) == [problem]
    assert read and "hidden_tests" not in read[0]
    assert task_table.read_tasks(path)[0].hidden_tests[0].input == "9\n"


def _schema_variant():
    schema = yaml.safe_load((REPO / "config/schemas/config.schema.yaml").read_text())
    return schema["properties"]["variants"]["additionalProperties"]["properties"]


def test_the_schema_lists_the_package_s_variant_fields_and_methods():
    props = _schema_variant()
    assert set(props) == (FIELDS - {"name"}) | {"description"}
    assert props["method"]["enum"] == list(methods.METHODS)
    assert props["programmer_style"]["enum"] == list(PROGRAMMER_STYLES)
    assert props["reflection_strategy"]["enum"] == list(REFLECTION_STRATEGIES)
    assert props["programmer_context"]["enum"] == list(PROGRAMMER_CONTEXTS)
    assert props["stop_rule"]["enum"] == list(STOP_RULES)


def test_agent_modules_and_prompt_folders_pair_by_name():
    agents = {p.stem for p in (PACKAGE / "agents").glob("*.py")} - {"__init__", "traces"}
    folders = {p.name for p in (REPO / "prompts").iterdir() if p.is_dir()} - {"baselines"}
    assert agents == folders


# The one hole in the trust boundary (ramp.hidden_feedback): the modules that may name it.
HIDDEN_FEEDBACK_USERS = {"ramp.methods.base", "ramp.methods.ramp", "ramp.methods.stages"}


def test_only_the_stages_and_the_method_context_reach_the_hidden_feedback():
    users = {n for n, imports in GRAPH.items() if "ramp.hidden_feedback" in imports}
    assert users == HIDDEN_FEEDBACK_USERS
    # A method reads it through ramp.methods.base.feedback_tests, never by itself.
    for name in REPAIR_SIDE:
        if name in HIDDEN_FEEDBACK_USERS:
            continue
        source = MODULES[name].read_text(encoding="utf-8")
        assert "ctx.hidden.of" not in source and "HiddenFeedback" not in source, name


#: Test folders that test no one subpackage: the workflow's rules, the Slurm profile, the
#: prompt templates. Tests of a top-level module (ramp/<name>.py) sit in tests/ itself.
NOT_SUBPACKAGES = {"workflow", "slurm", "prompts"}
TEST_FILES = sorted((REPO / "tests").glob("*/test_*.py"))


def test_every_test_folder_is_a_subpackage_s():
    subpackages = {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    folders = {p.parent.name for p in TEST_FILES}
    assert folders - NOT_SUBPACKAGES <= subpackages, "tests/<name>/ tests ramp.<name>"
    assert all((REPO / "tests" / key).is_file() for key in THROUGH_A_PROCESS)


#: Test files that reach their subpackage only through a process they start.
THROUGH_A_PROCESS = {
    "hub/test_workflow.py": "the data rule, run by Snakemake, fetches with ramp.hub",
}


def _key(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


@pytest.mark.parametrize("path", [p for p in TEST_FILES if p.parent.name not in NOT_SUBPACKAGES
                                  and _key(p) not in THROUGH_A_PROCESS], ids=_key)
def test_a_test_file_tests_the_subpackage_of_its_folder(path):
    """So the test of a module is found by its path: a file of tests/<name>/ imports ramp.<name>
    (or its folder's conftest does, for it)."""
    name = f"ramp.{path.parent.name}"
    conftest = path.with_name("conftest.py")
    imported = _imports("tests", path) | (_imports("tests", conftest) if conftest.exists()
                                          else set())
    assert any(m == name or m.startswith(f"{name}.") for m in imported), (
        f"{path.relative_to(REPO)} imports nothing of {name}: move it to the tests of what it "
        f"tests (tests/<subpackage>/, or tests/ for a top-level module)")
