import os
import stat

import pandas as pd
import pytest

from ramp.io import atomic_open, write_parquet, write_text


def test_write_text_is_atomic_and_readable(tmp_path):
    target = tmp_path / "sub" / "a.txt"
    write_text(target, "hello")
    assert target.read_text() == "hello"
    mode = stat.S_IMODE(target.stat().st_mode)
    assert mode & 0o044 == 0o044  # group/other can read, like any other artifact


def test_failed_write_leaves_nothing(tmp_path):
    target = tmp_path / "b.txt"
    write_text(target, "old")
    with pytest.raises(RuntimeError), atomic_open(target) as f:
        f.write("new and partial")
        raise RuntimeError("interrupted")
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["b.txt"]  # no temporary file left behind


def test_write_parquet_round_trip(tmp_path):
    df = pd.DataFrame({"a": [1, 2], "b": [["x"], []]})
    write_parquet(df, tmp_path / "t.parquet")
    back = pd.read_parquet(tmp_path / "t.parquet")
    assert back.a.tolist() == [1, 2] and [list(v) for v in back.b] == [["x"], []]
