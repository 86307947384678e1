"""Task shards: names, membership (a function of the ids and the count only), the count, order."""

from __future__ import annotations

import pandas as pd
import pytest

from ramp import study_config
from ramp.runs import RUN_FILES, SHARDED_FILES, shard_file
from ramp.shards import WHOLE, Shard, all_shards, in_task_order, shard_count

IDS = ["d", "a", "c", "b", "e"]


def test_a_shard_name_round_trips() -> None:
    assert Shard.parse("2-of-4") == Shard(2, 4)
    assert Shard(3, 7).name == "3-of-7"
    assert Shard.parse("1-of-1") == WHOLE


@pytest.mark.parametrize("name", ["0-of-2", "3-of-2", "2of4", "2-of-", "a-of-b", "1-of-0"])
def test_a_bad_shard_name_is_refused(name: str) -> None:
    with pytest.raises(ValueError):
        Shard.parse(name)


def test_the_shards_partition_the_tasks_round_robin_on_the_sorted_ids() -> None:
    parts = [s.members(IDS) for s in all_shards(2)]
    assert parts == [{"a", "c", "e"}, {"b", "d"}]
    for count in range(1, 8):
        parts = [s.members(IDS) for s in all_shards(count)]
        assert set().union(*parts) == set(IDS)
        assert sum(map(len, parts)) == len(IDS)  # disjoint
        assert max(map(len, parts)) - min(map(len, parts)) <= 1  # balanced


def test_membership_depends_on_the_ids_not_their_order() -> None:
    assert Shard(2, 3).members(IDS) == Shard(2, 3).members(sorted(IDS, reverse=True))
    assert Shard(1, 1).members(IDS) == set(IDS)


def test_more_shards_than_tasks_leaves_some_empty() -> None:
    assert [len(s.members(["x", "y"])) for s in all_shards(3)] == [1, 1, 0]


def test_auto_fills_the_cores_with_model_jobs() -> None:
    assert shard_count("auto", cores=8, threads_per_job=1) == 8
    assert shard_count("auto", cores=8, threads_per_job=2) == 4
    assert shard_count("auto", cores=1, threads_per_job=4) == 1
    assert shard_count("auto", cores=None, threads_per_job=1) == 1  # a cluster: no --cores
    assert shard_count(3, cores=8, threads_per_job=1) == 3
    with pytest.raises(ValueError):
        shard_count(0, cores=8, threads_per_job=1)


def test_the_study_config_answers_the_count() -> None:
    assert study_config.shards({}, 6) == 6
    assert study_config.shards({"study": {"shards": 2}}, 6) == 2
    assert study_config.shards({"study": {"shards": "auto", "model_threads": 2}}, 6) == 3


def test_rows_come_back_in_the_subset_order_keeping_a_tasks_own_order() -> None:
    frame = pd.DataFrame({"task_id": ["b", "a", "b", "c"], "iteration": [1, 1, 2, 1]},
                         index=[7, 3, 9, 1])
    ordered = in_task_order(frame, ["c", "b", "a"])
    assert ordered.to_dict("list") == {"task_id": ["c", "b", "b", "a"],
                                       "iteration": [1, 1, 2, 1]}
    assert list(ordered.index) == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="not in the subset"):
        in_task_order(frame, ["a", "b"])


def test_only_the_model_stages_files_are_sharded() -> None:
    assert shard_file("iteration") == "shards/{shard}/" + RUN_FILES["iteration"]
    assert set(SHARDED_FILES) <= set(RUN_FILES)
    with pytest.raises(ValueError):
        shard_file("scores")
