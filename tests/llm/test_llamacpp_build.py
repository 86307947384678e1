"""The installed llama.cpp has no AMX kernels (they crash the first prompt), and a build that has
them is refused with one line instead of a crash."""

from __future__ import annotations

import pytest

llama_cpp = pytest.importorskip("llama_cpp")

from ramp.llm.backends.llamacpp import check_build  # noqa: E402
from ramp.llm.base import LLMError  # noqa: E402

WITH_AMX = ("CPU : SSE3 = 1 | AVX2 = 1 | AVX512 = 1 | AVX512_VNNI = 1 | AVX512_BF16 = 1 | "
            "AMX_INT8 = 1 | LLAMAFILE = 1 | OPENMP = 1 | REPACK = 1 | ")
WITHOUT = ("CPU : SSE3 = 1 | AVX2 = 1 | AVX512 = 1 | AVX512_VNNI = 1 | AVX512_BF16 = 1 | "
           "LLAMAFILE = 1 | OPENMP = 1 | REPACK = 1 | ")


def test_a_build_with_amx_kernels_is_one_error_saying_how_to_rebuild():
    with pytest.raises(LLMError, match=r"AMX kernels.*\./ramp\.sh setup.*-mno-amx-int8") as e:
        check_build(WITH_AMX)
    assert "\n" not in str(e.value)


def test_a_build_without_them_passes():
    check_build(WITHOUT)
    check_build("CPU : SSE3 = 1 | AVX = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | ")


def test_the_installed_build_has_none():
    """ramp.sh builds llama-cpp-python with -mno-amx-*: on a CPU with AMX a plain native build
    fails here."""
    check_build(llama_cpp.llama_print_system_info().decode("utf-8", "replace"))
