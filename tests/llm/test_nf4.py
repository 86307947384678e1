"""The paper's 4-bit NF4 path (transformers + bitsandbytes) on the CPU, with the embedded 0.5B.

Loading quantizes every linear layer of the model as it loads (half a minute or more on two
cores), and NF4 generation on the CPU runs at about a token a second: a few tokens only.
"""

from __future__ import annotations

import pytest

from ramp.llm import SamplingParams, create_llm, embedded, messages
from ramp.llm.spec import ModelSpec

SMALL = "qwen2.5-coder-0.5b"
SPEC = ModelSpec(name=f"{SMALL}-nf4", backend="transformers", embedded=SMALL,
                 quantization="nf4", device="cpu", n_threads=2, batch_size=1)


def test_nf4_on_the_cpu_is_bitsandbytes_4bit_nf4():
    torch = pytest.importorskip("torch")
    pytest.importorskip("bitsandbytes")
    from ramp.llm.backends.hf import _quantization_config

    config = _quantization_config(SPEC, "cpu")
    assert config.load_in_4bit and config.bnb_4bit_quant_type == "nf4"
    assert config.bnb_4bit_compute_dtype == torch.float32  # bfloat16 only on a GPU
    assert _quantization_config(SPEC, "cuda").bnb_4bit_compute_dtype == torch.bfloat16


@pytest.mark.slow
@pytest.mark.model
def test_the_embedded_model_answers_through_nf4_layers_on_the_cpu():
    torch = pytest.importorskip("torch")
    pytest.importorskip("bitsandbytes")
    try:
        embedded.resolve(SMALL)
    except FileNotFoundError:
        pytest.skip(f"{SMALL} not installed (`python -m ramp models install {SMALL}`)")
    from bitsandbytes.nn import Linear4bit

    llm = create_llm(SPEC)
    linears = [m for m in llm.model.modules() if isinstance(m, torch.nn.Linear)]
    quantized = [m for m in linears if isinstance(m, Linear4bit)]
    # Every projection of every block is 4-bit NF4; only the output head stays full precision.
    assert len(quantized) == len(linears) - 1 > 100
    assert {m.weight.quant_type for m in quantized} == {"nf4"}
    assert llm.model.device.type == "cpu"
    assert llm.model_id.endswith("/nf4/builtin/row-seeds")
    prompt = messages(("system", "Answer with Ruby code only."),
                      ("user", "Print the sum of 2 and 3 in Ruby."))
    (c,) = llm.complete([prompt], SamplingParams(max_new_tokens=3))
    assert c.text.strip() and 1 <= c.completion_tokens <= 3 and c.prompt_tokens > 10

