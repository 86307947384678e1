"""elf.load_size on literal headers and on a binary g++ really produced."""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from ramp.execution.elf import PAGE, PT_LOAD, load_size


def elf64(segments: list[tuple[int, int, int]]) -> bytes:
    """A minimal little-endian ELF64 header with program headers (type, vaddr, memsz)."""
    header = bytearray(64)
    header[:6] = b"\x7fELF\x02\x01"
    struct.pack_into("<QHH", header, 0x20, 64, 0, 0)  # e_phoff (then the unused e_flags...)
    struct.pack_into("<HH", header, 0x36, 56, len(segments))
    table = b"".join(
        struct.pack("<IIQQQQQQ", kind, 6, 0, vaddr, vaddr, 0, memsz, PAGE)
        for kind, vaddr, memsz in segments
    )
    return bytes(header) + table


def test_loadable_segments_are_summed_in_whole_pages() -> None:
    image = elf64([(PT_LOAD, 0x400000, 100), (2, 0, 1 << 40), (PT_LOAD, 0x401ff0, 0x20)])
    # 100 bytes: one page; 0x20 bytes straddling a page boundary: two pages; type 2 ignored.
    assert load_size(image) == 3 * PAGE


def test_a_huge_bss_counts_although_the_file_is_small() -> None:
    assert load_size(elf64([(PT_LOAD, 0x600000, 400 << 20)])) == 400 << 20


@pytest.mark.parametrize(
    "image", [b"", b"#!/bin/sh\n", b"\x7fELF\x03\x01" + bytes(64), b"\x7fELF\x02\x01" + bytes(10)]
)
def test_not_an_elf_file(image: bytes) -> None:
    with pytest.raises(ValueError):
        load_size(image)


def test_headers_past_the_end() -> None:
    image = bytearray(elf64([(PT_LOAD, 0, 1)]))
    struct.pack_into("<H", image, 0x38, 500)
    with pytest.raises(ValueError, match="past the end"):
        load_size(bytes(image))


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
def test_a_real_static_array_is_seen(tmp_path: Path) -> None:
    source = tmp_path / "a.cpp"
    source.write_text("int a[50000000];\nint main() { return a[7]; }\n")
    subprocess.run(["g++", "-O2", "-o", tmp_path / "a", source], check=True, timeout=120)
    size = load_size((tmp_path / "a").read_bytes())
    assert 200_000_000 <= size < 200_000_000 + (8 << 20)
