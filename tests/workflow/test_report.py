"""`snakemake --report` of a real tiny study (our own tiny tasks, the real 0.5B model, K = 2),
opened in a real headless Chromium (Debian's chromium and chromium-driver, which
`./ramp.sh test` installs): the report loads, shows a figure, and a trajectory page with its
diff. The screenshots stay in pytest's temporary folder as the test's artifacts."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
import yaml

from .conftest import REPO, require_model, snakemake, study_folder

pytestmark = [pytest.mark.slow, pytest.mark.model]

MODEL = "qwen2.5-coder-0.5b"
VARIANTS = ["ramp", "zero_shot"]
K = 2
TIMEOUT_S = 20  # for the report's scripts to draw a view; far more than they take


@pytest.fixture(scope="module")
def study(tmp_path_factory) -> Path:
    """The tiny study run by `snakemake all`, and its report.html."""
    require_model(MODEL)
    work = study_folder(tmp_path_factory.mktemp("report-study"))
    (work / "tiny.yaml").write_text(yaml.safe_dump({
        "data": {"jsonl": str(REPO / "tests" / "data" / "tiny.jsonl")},
        "subsets": ["2"],
        "executor": {"workers": 1, "memory_mb": 256},
        "authors": {"outcomes": None},
        "study": {"variants": VARIANTS, "iterations": K, "seed": 0},
        "models": {"use": [MODEL]},
    }))
    snakemake(work, "--configfile", "tiny.yaml", "--cores", "2", "--", "all", timeout=2400)
    snakemake(work, "--configfile", "tiny.yaml", "--report", "report.html", timeout=600)
    return work


@pytest.fixture(scope="module")
def browser() -> Iterator:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    assert chromium and driver, (
        "Debian's chromium and chromium-driver are needed (`./ramp.sh test` installs them)")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,1000"):
        options.add_argument(arg)
    chrome = webdriver.Chrome(service=Service(driver), options=options)
    chrome.implicitly_wait(TIMEOUT_S)
    yield chrome
    chrome.quit()


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("report-screenshots")


def _open(browser, study: Path, *path: str) -> None:
    """The report from its start, then the menu entries of ``path`` (category, subcategory)."""
    from selenium.webdriver.common.by import By

    browser.get((study / "report.html").as_uri())
    browser.find_element(By.XPATH, "//a[normalize-space()='Results']").click()
    for name in path:
        browser.find_element(By.XPATH, f"//a[normalize-space()={name!r}]").click()


def _show(browser, row_text: str) -> None:
    """Click the eye button of the result row with ``row_text`` in its first cell."""
    from selenium.webdriver.common.by import By

    row = browser.find_element(By.XPATH, f"//tr[td[1][normalize-space()={row_text!r}]]")
    row.find_element(By.CSS_SELECTOR, "a[iconname=eye]").click()


def _displayed_png(browser):
    from selenium.webdriver.common.by import By

    deadline = time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline:
        for img in browser.find_elements(By.CSS_SELECTOR, "img[src^='data:image/png']"):
            if img.is_displayed() and browser.execute_script(
                    "return arguments[0].complete && arguments[0].naturalWidth", img):
                return img
        time.sleep(0.2)
    return None


CATEGORY = "Study default, subset 2"


def test_the_report_files_every_result_with_a_caption(study, browser):
    browser.get((study / "report.html").as_uri())
    results = browser.execute_script("return results")
    categories = browser.execute_script("return categories")
    assert set(categories[CATEGORY]) == {
        "Figures", "Tables", *(f"Trajectories: {v} ({MODEL})" for v in VARIANTS)}
    by_name = {Path(path).name: entry for path, entry in results.items()}
    for figure in ("figure2", "figure3", "figure4", "figure5", "figure6"):
        assert by_name[f"{figure}.png"]["mime_type"] == "image/png"
    for table in ("table1", "acceptance", "cost_summary", "runtimes"):
        assert by_name[f"{table}.html"]["mime_type"] == "text/html"
    assert all(entry["caption"].strip() for entry in results.values())
    pages = [e for p, e in results.items() if "/trajectories/" in p]
    assert len(pages) == 2 * len(VARIANTS)
    assert {e["labels"]["task"] for e in pages} == {"t-crash", "t-dots"}


def test_the_report_loads_and_shows_a_figure(study, browser, artifacts):
    _open(browser, study, CATEGORY, "Figures")
    _show(browser, "figure2")
    img = _displayed_png(browser)
    browser.save_screenshot(str(artifacts / "report-figure2.png"))
    assert img is not None, "Figure 2 was not drawn"
    assert img.size["width"] > 200


def _task_with_a_diff(study: Path) -> str:
    """A task whose first RAMP candidate differs from its buggy program."""
    run = study / "results" / "runs" / MODEL / "ramp" / "2"
    attempts = pd.read_parquet(run / "attempts.parquet")
    tasks = pd.read_parquet(study / "results" / "tasks" / "2.parquet")
    buggy = dict(zip(tasks.task_id, tasks.buggy_code, strict=True))
    changed = [row.task_id for row in attempts.itertuples()
               if row.code and row.code.strip() != buggy[row.task_id].strip()]
    assert changed, "no candidate of the run differs from its buggy program"
    return sorted(changed)[0]


def test_a_trajectory_page_shows_its_diff_and_marks_the_hidden_result(study, browser,
                                                                      artifacts):
    from selenium.webdriver.common.by import By

    task = _task_with_a_diff(study)
    _open(browser, study, CATEGORY, f"Trajectories: ramp ({MODEL})")
    _show(browser, task)
    browser.switch_to.frame(browser.find_element(By.TAG_NAME, "iframe"))
    try:
        assert task in browser.find_element(By.TAG_NAME, "h1").text
        changed = browser.find_elements(By.CSS_SELECTOR, "pre.diff .add, pre.diff .del")
        assert changed and changed[0].is_displayed()
        assert browser.find_element(By.ID, "buggy").text.strip()
        boxes = browser.find_elements(By.CSS_SELECTOR, "[data-evaluation-only]")
        assert boxes and all(b.text.upper().startswith("EVALUATION ONLY") for b in boxes)
    finally:
        browser.switch_to.default_content()
    browser.save_screenshot(str(artifacts / "report-trajectory.png"))


def test_a_trajectory_page_reads_on_its_own(study, browser, artifacts):
    """The page opened from results/ (no report around it), whole: docs/report-trajectory.png
    is this screenshot of the tiny study's first repaired task."""
    from selenium.webdriver.common.by import By

    folder = study / "results" / "report" / "2" / "trajectories" / MODEL / "ramp"
    index = pd.read_csv(folder / "index.csv")
    repaired = sorted(index.loc[index["outcome"] == "repaired", "task_id"])
    task = repaired[0] if repaired else _task_with_a_diff(study)
    browser.get((folder / f"{task}.html").as_uri())
    assert browser.find_elements(By.CSS_SELECTOR, "pre.diff .add, pre.diff .del")
    height = browser.execute_script("return document.body.scrollHeight")
    browser.set_window_size(1100, min(height + 100, 6000))
    try:
        browser.save_screenshot(str(artifacts / "trajectory-page.png"))
    finally:
        browser.set_window_size(1400, 1000)


def test_the_runtimes_table_has_the_measured_jobs(study):
    table = pd.read_csv(study / "results" / "report" / "2" / "runtimes.csv")
    assert {"validate_bugs", "score_hidden", "oracle", "reflect", "design_tests"} <= set(
        table["rule"])
    iterations = table.query("rule == 'repair_iteration' and variant == 'ramp'")
    assert sorted({int(t) for t in iterations["t"]}) == list(range(1, K + 1))  # one per shard
    assert (table["wall_s"] > 0).all()
