"""Fetching: the stand-in hub read as a clone and through huggingface_hub's cache, the errors a
user meets, and a rebuild of the measured files from their own content in the hub's layout."""

from __future__ import annotations

import hashlib
import http.server
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from ramp.dataset import load_tasks
from ramp.hub.check import manifest_of, read_manifest
from ramp.hub.fetch import FetchSettings, fetch_task_file
from ramp.hub.layout import LANGUAGES, ROW_FIELDS, SAMPLE_FIELDS, STATEMENT_FIELDS, language
from ramp.hub.source import FetchError, HubRepo, LocalRepo

from . import standin

ROOT = Path(__file__).resolve().parents[2]
MANIFESTS = ROOT / "data" / "manifests"
SHARED = ROOT / "../shared/data"


def _measured(name: str):
    return read_manifest(MANIFESTS / language(name).manifest)


def test_ruby_from_a_clone_loads_and_is_reported_as_not_the_measured_file(tmp_path: Path) -> None:
    repo = LocalRepo(standin.write_folder(tmp_path / "clone"))
    out = tmp_path / "ruby.jsonl"
    fetched = fetch_task_file(out, "ruby", repo, measured=_measured("ruby"))
    assert fetched.rows == 3
    assert fetched.sha256 == hashlib.sha256(out.read_bytes()).hexdigest()
    assert [(d.bug_code_uid, d.reason) for d in fetched.dropped] == [
        ("r4", "no hidden tests for problem untested")
    ]
    assert "3 rows where 343 were measured" in fetched.differences
    loaded = load_tasks(out)
    assert loaded.errors == []
    task = loaded.tasks[0]
    first = task.problem
    assert (first.task_id, first.problem_id, first.lang) == ("r1", "sum", "Ruby")
    assert [t.input for t in task.hidden_tests] == ["1 2\r\n", "40 2\r\n"]
    assert [(s.input, s.outputs) for s in first.samples] == [("1 2", ("3",))]
    assert (first.time_limit_s, first.memory_mb, first.notes) == (1.0, 256, "")
    assert loaded.tasks[1].problem.notes == "NoteTwice 2 is 4."


def test_cpp_keeps_only_the_problems_of_the_ruby_set(tmp_path: Path) -> None:
    repo = LocalRepo(standin.write_folder(tmp_path / "clone"))
    out = tmp_path / "cpp.jsonl"
    fetched = fetch_task_file(out, "cpp", repo, measured=_measured("cpp"))
    assert fetched.rows == 2
    loaded = load_tasks(out)
    assert [(t.task_id, t.problem_id, t.problem.lang) for t in loaded.tasks] == [
        ("c1", "sum", "GNU C++17"),
        ("c2", "double", "MS C++"),
    ]
    assert [t.input for t in loaded.tasks[1].hidden_tests] == ["2\r\n", "50\r\n"]


def test_the_hub_cache_read_offline_gives_the_same_file_as_the_clone(tmp_path: Path) -> None:
    # The download path itself (huggingface_hub's hf_hub_download), on a cache holding the
    # stand-in as it would hold a real download.
    cache = standin.write_cache(tmp_path / "hub")
    from_hub = fetch_task_file(tmp_path / "a.jsonl", "cpp", HubRepo(cache_dir=cache, offline=True))
    clone = LocalRepo(standin.write_folder(tmp_path / "clone"))
    from_clone = fetch_task_file(tmp_path / "b.jsonl", "cpp", clone)
    assert from_hub.sha256 == from_clone.sha256 and from_hub.rows == 2


def _ramp(*args: str, env: dict[str, str], cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ramp", "data", *args],
        cwd=cwd,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_command_reads_the_users_cache_offline_and_warns_of_the_difference(
    tmp_path: Path,
) -> None:
    cache = standin.write_cache(tmp_path / "hub")
    out = tmp_path / "ruby.jsonl"
    env = {"HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(cache)}
    result = _ramp("fetch", str(out), env=env)
    assert result.returncode == 0, result.stderr
    assert "3 rows, sha256" in result.stderr
    assert "warning: not the file the study was measured on: 3 rows where 343" in result.stderr
    assert len(load_tasks(out).tasks) == 3
    again = _ramp("fetch", str(out), env=env)  # there already: checked, not rebuilt
    assert again.returncode == 0 and "rows, sha256" not in again.stderr
    assert "3 rows where 343 were measured" in again.stderr


def test_offline_without_the_files_is_one_line_naming_what_to_do(tmp_path: Path) -> None:
    out = tmp_path / "ruby.jsonl"
    result = _ramp(
        "fetch", str(out), env={"HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(tmp_path / "empty")}
    )
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1, result.stderr
    assert "not in the Hugging Face cache and HF_HUB_OFFLINE is set" in result.stderr
    assert "set data.jsonl in the config to a task file you have" in result.stderr
    assert not out.exists() and list(tmp_path.glob(".ruby.jsonl*")) == []


class _GatedHub(http.server.BaseHTTPRequestHandler):
    """Answers as the hub does for a dataset whose terms the user has not accepted."""

    def do_HEAD(self) -> None:
        self.send_response(401)
        self.send_header("X-Error-Code", "GatedRepo")
        self.send_header("X-Error-Message", "Access to this dataset is restricted.")
        self.end_headers()

    do_GET = do_HEAD

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def gated_hub() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _GatedHub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_terms_to_accept_say_where_to_accept_them(tmp_path: Path, gated_hub: str) -> None:
    repo = HubRepo(cache_dir=tmp_path / "hub", offline=False, endpoint=gated_hub)
    with pytest.raises(FetchError) as e:
        fetch_task_file(tmp_path / "ruby.jsonl", "ruby", repo)
    message = str(e.value)
    assert "\n" not in message
    assert "asks you to accept its terms (CC BY-NC 4.0)" in message
    assert "https://huggingface.co/datasets/NTU-NLP-sg/xCodeEval" in message
    assert "a task file you have" in message


@pytest.mark.slow  # huggingface_hub retries a refused connection for about 20 s
def test_an_unreachable_hub_is_one_line_naming_what_to_do(tmp_path: Path) -> None:
    with __import__("socket").socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{s.getsockname()[1]}"
    repo = HubRepo(cache_dir=tmp_path / "hub", offline=False, endpoint=closed)
    with pytest.raises(FetchError) as e:
        repo.path("apr/validation/Ruby.jsonl")
    assert str(e.value).startswith(
        "apr/validation/Ruby.jsonl of NTU-NLP-sg/xCodeEval is not in the Hugging Face cache "
        "and the hub cannot be reached; set data.jsonl"
    )


def test_a_clone_without_its_lfs_files_says_to_pull_them(tmp_path: Path) -> None:
    folder = standin.write_folder(tmp_path / "clone")
    (folder / "unittest_db.json").write_text("version https://git-lfs.github.com/spec/v1\n")
    with pytest.raises(FetchError, match=r'git lfs pull --include "unittest_db\.json"'):
        fetch_task_file(tmp_path / "ruby.jsonl", "ruby", LocalRepo(folder))


def test_a_file_not_in_the_hubs_layout_is_named(tmp_path: Path) -> None:
    folder = standin.write_folder(tmp_path / "clone")
    (folder / "problem_descriptions.jsonl").write_text('{"description": "no src_uid"}\n')
    with pytest.raises(FetchError, match=r"problem_descriptions\.jsonl is not in the hub's layout"):
        fetch_task_file(tmp_path / "ruby.jsonl", "ruby", LocalRepo(folder))
    assert not (tmp_path / "ruby.jsonl").exists()


def test_the_config_and_its_schema_name_what_the_package_has() -> None:
    config = yaml.safe_load((ROOT / "config/config.yaml").read_text())
    # The rows fetched are the study's language's (data.language) unless fetch says the same.
    fetch = {"language": config["data"]["language"], **config["data"]["fetch"]}
    assert fetch == vars(FetchSettings())
    schema = yaml.safe_load((ROOT / "config/schemas/config.schema.yaml").read_text())
    data = schema["properties"]["data"]["properties"]
    assert data["fetch"]["properties"]["language"]["enum"] == list(LANGUAGES)
    assert data["language"]["enum"] == list(LANGUAGES)
    for lang in LANGUAGES.values():
        assert (MANIFESTS / lang.manifest).is_file()


# The measured files rebuilt from their own content laid out as on the hub: the builder writes
# the bytes the study was measured on when the hub holds what those files hold.


def _as_hub(files: list[Path], folder: Path) -> None:
    content: dict[str, list[dict]] = {}
    problems: dict[str, dict] = {}
    tests: dict[str, list] = {}
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            raw = {name: row[name] for name in ROW_FIELDS}
            raw["difficulty"] = int(raw["difficulty"])  # the hub's rows have integers
            content.setdefault(f"apr/validation/{row['file_name']}", []).append(raw)
            problem = {name: row[f"prob_desc_{name}"] for name in STATEMENT_FIELDS}
            problem.update({n: json.loads(row[f"prob_desc_{n}"]) for n in SAMPLE_FIELDS})
            problem.update(src_uid=row["src_uid"], created_at=int(row["prob_desc_created_at"]))
            problems[row["src_uid"]] = problem
            tests[row["src_uid"]] = json.loads(row["hidden_unit_tests"])
    text = {name: "".join(json.dumps(r) + "\n" for r in rows) for name, rows in content.items()}
    text["problem_descriptions.jsonl"] = "".join(json.dumps(p) + "\n" for p in problems.values())
    text["unittest_db.json"] = json.dumps(tests)
    standin.write_folder(folder, text)


@pytest.mark.skipif(not (SHARED / "xcodeeval-apr-cpp").is_dir(), reason="no measured files here")
@pytest.mark.parametrize("name", ["ruby", "cpp"])
def test_the_measured_files_are_rebuilt_byte_for_byte(tmp_path: Path, name: str) -> None:
    files = [SHARED / "xcodeeval-apr-ruby/validation.jsonl"]
    if name == "cpp":
        files.append(SHARED / "xcodeeval-apr-cpp/validation.jsonl")
    _as_hub(files, tmp_path / "clone")
    measured = _measured(name)
    fetched = fetch_task_file(
        tmp_path / "out.jsonl", name, LocalRepo(tmp_path / "clone"), measured=measured
    )
    assert (fetched.rows, fetched.sha256, fetched.differences) == (
        measured.rows,
        measured.sha256,
        [],
    )


@pytest.mark.skipif(not (SHARED / "xcodeeval-apr-cpp").is_dir(), reason="no measured files here")
@pytest.mark.parametrize("name", ["ruby", "cpp"])
def test_the_manifests_describe_the_measured_files(name: str) -> None:
    path = SHARED / f"xcodeeval-apr-{name}/validation.jsonl"
    assert manifest_of(path) == _measured(name)
    result = _ramp("check", str(path), "--language", name, env={})
    assert result.returncode == 0
    assert "is the file the study was measured on" in result.stderr
    assert "warning" not in result.stderr
