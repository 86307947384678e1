"""The disk cache of prefix KV state (ramp.llm.prefix_cache), on made-up states: no model."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import textwrap

import pytest

from ramp.llm.prefix_cache import Grain, PrefixCache, pack, reusable_prefix, unpack

BLOCK = 4


def _state(tokens, size=64):
    """A stand-in for a backend's state bytes, a function of the tokens it holds."""
    seed = hashlib.sha256(repr(list(tokens)).encode()).digest()
    return (seed * (size // len(seed) + 1))[:size]


@pytest.fixture
def cache(tmp_path):
    c = PrefixCache(tmp_path / "kv", "model-a", BLOCK, 2**20)
    yield c
    c.close()


def test_reuse_comes_in_whole_grains_and_leaves_no_small_batch_inside_a_batch():
    grain = Grain(4, 512, 16)
    held = list(range(900))
    # Whole grains of the shared prefix, the last token always evaluated again.
    assert reusable_prefix(held, 900, held[:603] + [-1] * 297, grain) == 600
    assert reusable_prefix(held, 600, held, grain) == 600  # only what was evaluated whole
    # The rest of a prompt starting inside a batch must hold 16 tokens (to the batch's end or
    # the prompt's); else it starts earlier, at the batch's start at the earliest.
    assert grain.fit(888, 900) == 884
    assert reusable_prefix(held, 900, held, grain) == 884  # 896 would leave a batch of 4
    assert grain.fit(1020, 1100) == 1008
    assert grain.fit(520, 530) == 512
    assert grain.fit(1024, 1030) == 1024  # a batch's start: a fresh evaluation's own batch
    # Whole batches are a grain too: the rule that always holds.
    assert reusable_prefix(held, 900, held[:603] + [-1] * 297, Grain(512, 512)) == 512


def test_a_prompt_s_last_batch_under_the_tail_is_not_kept_for_reuse():
    grain = Grain(4, 512, 16)
    assert grain.whole(0, 900) == 900
    assert grain.whole(0, 903) == 900
    assert grain.whole(0, 520) == 512  # its last batch, 8 tokens, took other kernels
    assert grain.whole(884, 900) == 900  # evaluated from a reused 884: a batch of 16
    assert grain.whole(0, 512) == 512
    assert Grain(512, 512).whole(0, 900) == 512


def test_an_entry_packs_its_tokens_before_the_state_and_garbage_is_refused():
    tokens, state = (5, -1, 2**31 - 1, 0), b"\x00state\xff"
    assert unpack(pack(tokens, state)) == (tokens, state)
    for bad in (b"", b"something else", pack(tokens, state)[:14]):
        with pytest.raises(ValueError):
            unpack(bad)


def test_a_prompt_finds_the_longest_whole_block_prefix_another_stored(cache):
    stored = list(range(100, 112))  # three blocks
    assert cache.put(stored, _state(stored)) > 0
    # A prompt sharing two blocks and a bit more finds the state with its first 8 tokens.
    prompt = [*stored[:9], 7, 7, 7, 7, 7]
    hit = cache.find(prompt, longer_than=0, limit=12)
    assert hit is not None and hit.tokens == 8 and hit.state == _state(stored)
    assert hit.bytes_read == len(pack(stored, _state(stored)))
    # Never beyond the limit the caller sets, nor when its own KV cache holds as much.
    assert cache.find([*stored, 1], longer_than=0, limit=8).tokens == 8
    assert cache.find([*stored, 1], longer_than=0, limit=12).tokens == 12
    assert cache.find(prompt, longer_than=8, limit=12) is None
    # Nothing shared in the first block: nothing found.
    assert cache.find([1, *stored[1:]], longer_than=0, limit=12) is None


def test_the_identity_and_the_block_size_are_part_of_the_key(tmp_path, cache):
    stored = list(range(12))
    cache.put(stored, _state(stored))
    other = PrefixCache(tmp_path / "kv", "model-b", BLOCK, 2**20)
    assert other.find([*stored, 0], longer_than=0, limit=12) is None
    wider = PrefixCache(tmp_path / "kv", "model-a", 2 * BLOCK, 2**20)
    assert wider.find([*stored, 0], longer_than=0, limit=8) is None
    assert cache.find([*stored, 0], longer_than=0, limit=12).tokens == 12


def test_a_state_is_stored_once_and_only_for_whole_blocks(cache):
    tokens = list(range(8))
    assert cache.put(tokens, _state(tokens)) > 0
    assert cache.put(tokens, _state(tokens)) == 0  # another job stored it already
    with pytest.raises(ValueError, match="whole number"):
        cache.put(tokens[:6], _state(tokens[:6]))


def test_the_cache_stays_under_its_bound_evicting_the_least_recently_used(tmp_path):
    size, bound = 100_000, 700_000
    cache = PrefixCache(tmp_path / "kv", "model-a", BLOCK, bound)
    prompts = [[n, n, n, n, 9, 9, 9, 9] for n in range(12)]
    assert cache.put(prompts[0], _state(prompts[0], size)) > 0
    for p in prompts[1:]:
        assert cache.find(prompts[0], longer_than=0, limit=8) is not None  # keeps it in use
        cache.put(p, _state(p, size))
        assert cache.volume() <= bound
    assert cache.find(prompts[0], longer_than=0, limit=8).state == _state(prompts[0], size)
    assert cache.find(prompts[-1], longer_than=0, limit=8).state == _state(prompts[-1], size)
    assert cache.find(prompts[1], longer_than=0, limit=8) is None  # the oldest unused: evicted
    # A state that could never fit is not stored (it would evict everything else).
    big = [1, 2, 3, 4]
    assert cache.put(big, _state(big, bound + 1)) == 0
    assert cache.find([*big, 0], longer_than=0, limit=4) is None
    cache.close()


_WRITER = textwrap.dedent("""
    import hashlib, sys
    from ramp.llm.prefix_cache import PrefixCache
    def state(tokens):
        seed = hashlib.sha256(repr(list(tokens)).encode()).digest()
        return (seed * 2000)[:60000]
    directory, job = sys.argv[1], int(sys.argv[2])
    cache = PrefixCache(directory, "model-a", 4, 1_000_000)
    found = 0
    for i in range(40):
        shared = [i % 5] * 4  # both jobs store and read the same prefixes
        mine = [*shared, job, i, 0, 0]
        hit = cache.find([*mine, 1], longer_than=0, limit=8)
        if hit is not None:  # the shared block, in a state either job stored whole
            found += 1
            stored = [state([*shared, j, k, 0, 0]) for j in (1, 2) for k in range(i % 5, 40, 5)]
            assert hit.tokens == 4 and hit.state in stored
        cache.put(mine, state(mine))
        assert cache.volume() <= 1_000_000 + 200_000, cache.volume()
    print(found)
""")


def test_two_jobs_at_once_store_and_read_the_same_folder(tmp_path):
    """Two processes storing, finding and evicting in one folder under a tight bound: no error,
    no torn entry (a state found is the one stored for its tokens), shared prefixes found."""
    jobs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(tmp_path / "kv"), str(j)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for j in (1, 2)]
    results = [job.communicate(timeout=300) for job in jobs]
    for job, (out, err) in zip(jobs, results, strict=True):
        assert job.returncode == 0, err
        assert int(out.strip()) > 0  # the prefixes the other job (or an earlier call) stored
    cache = PrefixCache(tmp_path / "kv", "model-a", BLOCK, 1_000_000)
    assert cache.volume() <= 1_000_000
