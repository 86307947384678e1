"""The runtimes table from Snakemake benchmark files (literal files in Snakemake's format)."""

from __future__ import annotations

import math

import pytest

from ramp.report.runtimes import read_benchmark, runtime_table

HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"


def bench(tmp_path, name: str, *rows: str):
    path = tmp_path / name
    path.write_text(HEADER + "".join(r + "\n" for r in rows))
    return path


def test_one_file_and_its_repetitions(tmp_path):
    one = bench(tmp_path, "a.tsv", "12.5\t0:00:12\t812.3\t900\t800\t805\t1.0\t2.0\t95.0\t11.9")
    assert read_benchmark(one) == {"wall_s": 12.5, "cpu_s": 11.9, "max_rss_mb": 812.3,
                                   "mean_load": 95.0}
    two = bench(tmp_path, "b.tsv", "10\t0:00:10\t100\t1\t1\t1\t0\t0\t50\t9",
                "20\t0:00:20\t300\t1\t1\t1\t0\t0\t70\t19")
    assert read_benchmark(two)["wall_s"] == 15.0 and read_benchmark(two)["max_rss_mb"] == 200


def test_what_could_not_be_measured_is_missing_not_zero(tmp_path):
    path = bench(tmp_path, "na.tsv", "0.4\t0:00:00\tNA\tNA\tNA\tNA\tNA\tNA\t-\t0.3")
    values = read_benchmark(path)
    assert values["wall_s"] == 0.4 and math.isnan(values["max_rss_mb"])
    assert math.isnan(values["mean_load"])


def test_a_file_of_another_kind_is_refused(tmp_path):
    path = tmp_path / "x.tsv"
    path.write_text("a\tb\n1\t2\n")
    with pytest.raises(ValueError, match="not a Snakemake benchmark file"):
        read_benchmark(path)


def test_the_table_orders_jobs_by_rule_and_iteration(tmp_path):
    row = "1\t0:00:01\t10\t1\t1\t1\t0\t0\t50\t1"
    entries = [
        ({"rule": "repair_iteration", "model": "m", "variant": "ramp", "t": "10"},
         bench(tmp_path, "10.tsv", row)),
        ({"rule": "repair_iteration", "model": "m", "variant": "ramp", "t": "2"},
         bench(tmp_path, "2.tsv", row)),
        ({"rule": "oracle"}, bench(tmp_path, "o.tsv", row)),
    ]
    table = runtime_table(entries)
    assert list(table.columns) == ["rule", "model", "variant", "t", "wall_s", "cpu_s",
                                   "max_rss_mb", "mean_load"]
    assert table[["rule", "t"]].values.tolist() == [
        ["oracle", ""], ["repair_iteration", "2"], ["repair_iteration", "10"]]
    assert runtime_table([]).empty
