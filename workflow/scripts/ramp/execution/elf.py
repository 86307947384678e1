"""How much memory an ELF executable needs before it runs a line: what its loader maps.

A judge that bounds address space (``Runtime.address_space``) refuses a binary whose static
data alone is over the memory limit: the kernel cannot map it, and the exec dies with SIGSEGV
before ``main``. That signal says nothing, so the executor compares this size with the limit
first and gives such a program MEMORY_LIMIT_EXCEEDED without running it, as Codeforces does
for a global array over the limit. A pure function of the file's bytes.
"""

from __future__ import annotations

import struct

PT_LOAD = 1
PAGE = 4096

# (program header offset, its entry size, entry count), then per entry (type, vaddr, memsz):
# struct formats and offsets of the 64-bit and 32-bit layouts.
_LAYOUTS = {
    2: (("Q", 0x20), ("H", 0x36), ("H", 0x38), ("I", 0x00), ("Q", 0x10), ("Q", 0x28)),
    1: (("I", 0x1C), ("H", 0x2A), ("H", 0x2C), ("I", 0x00), ("I", 0x08), ("I", 0x14)),
}


def load_size(image: bytes) -> int:
    """Bytes the loader maps for ``image``: its PT_LOAD segments' memory sizes (code, data
    and the zero-filled .bss), each rounded out to whole pages. ValueError if not ELF."""
    if image[:4] != b"\x7fELF" or len(image) < 0x40:
        raise ValueError("not an ELF file")
    layout = _LAYOUTS.get(image[4])
    if layout is None or image[5] not in (1, 2):
        raise ValueError(f"unknown ELF class {image[4]} or byte order {image[5]}")
    order = "<" if image[5] == 1 else ">"

    def read(fmt_at: tuple[str, int], base: int = 0) -> int:
        fmt, at = fmt_at
        return int(struct.unpack_from(order + fmt, image, base + at)[0])

    phoff, phentsize, phnum = (read(f) for f in layout[:3])
    if phoff + phentsize * phnum > len(image):
        raise ValueError("ELF program headers run past the end of the file")
    total = 0
    for i in range(phnum):
        entry = phoff + i * phentsize
        if read(layout[3], entry) != PT_LOAD:
            continue
        start, size = read(layout[4], entry), read(layout[5], entry)
        end = -(-(start + size) // PAGE) * PAGE
        total += end - (start // PAGE) * PAGE
    return total
