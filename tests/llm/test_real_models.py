"""The embedded 0.5B on each CPU backend, and behind a real llama.cpp server on loopback.

Each model loads once per session; generations stay a few tokens long so this runs in CI.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from ramp.llm import LLMError, SamplingParams, create_llm, embedded, messages
from ramp.llm.spec import ModelSpec

pytestmark = [pytest.mark.slow, pytest.mark.model]

SMALL = "qwen2.5-coder-0.5b"
PROMPT = messages(
    ("system", "Answer with Ruby code only."), ("user", "Print the sum of 2 and 3 in Ruby.")
)
PARAMS = SamplingParams(max_new_tokens=12)


@pytest.fixture(scope="session")
def small_path():
    try:
        return embedded.resolve(SMALL)
    except FileNotFoundError:
        pytest.skip(f"{SMALL} not installed (`python -m ramp models install {SMALL}`)")


def _spec(backend: str) -> ModelSpec:
    return ModelSpec(
        name=f"{SMALL}-{backend}", backend=backend, embedded=SMALL, n_threads=2, context_size=1024
    )


@pytest.fixture(scope="session", params=["llamacpp", "transformers"])
def small_llm(request, small_path):
    module = {"llamacpp": "llama_cpp", "transformers": "transformers"}[request.param]
    pytest.importorskip(module)
    return create_llm(_spec(request.param))


def _sane(c, max_new: int) -> None:
    assert c.text.strip(), c
    assert 10 < c.prompt_tokens < 200
    assert 1 <= c.completion_tokens <= max_new
    assert c.finish_reason in ("stop", "length")
    assert c.seconds > 0


def test_backend_answers_a_batch(small_llm):
    short = messages(("system", "Answer with Ruby code only."), ("user", "Hi."))
    out = small_llm.complete([PROMPT, short], PARAMS)
    assert len(out) == 2
    for c in out:
        _sane(c, PARAMS.max_new_tokens)
    assert out[0].prompt_tokens > out[1].prompt_tokens
    assert small_llm.model_id.startswith(small_llm.model_id.split("/")[0] + f"/{SMALL}@1d961463")


def test_greedy_is_repeatable_and_max_tokens_binds(small_llm):
    params = SamplingParams(max_new_tokens=4)
    (a,) = small_llm.complete([PROMPT], params)
    (b,) = small_llm.complete([PROMPT], params)
    assert a.text == b.text
    assert a.completion_tokens <= 4


def test_one_prompt_with_several_seeds_in_one_call_samples_each_as_alone(small_llm):
    seeds = [SamplingParams(temperature=0.8, top_p=0.95, max_new_tokens=8, seed=s)
             for s in (11, 12)]
    together = small_llm.complete([PROMPT, PROMPT], seeds)
    alone = [small_llm.complete([PROMPT], p)[0] for p in reversed(seeds)][::-1]
    assert [c.text for c in together] == [c.text for c in alone]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def llama_server(small_path, tmp_path_factory):
    pytest.importorskip("llama_cpp.server", reason="llama-cpp-python[server] not installed")
    port = _free_port()
    log = tmp_path_factory.mktemp("server") / "server.log"
    with log.open("wb") as sink:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "llama_cpp.server",
                "--model",
                str(small_path),
                "--model_alias",
                SMALL,
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--n_ctx",
                "1024",
                "--n_threads",
                "2",
            ],
            stdout=sink,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                urllib.request.urlopen(f"{url}/models", timeout=2).read()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"llama_cpp.server did not come up: {log.read_text()[-2000:]}")
                time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_real_openai_compatible_server(llama_server):
    spec = ModelSpec(
        name="srv",
        backend="openai",
        weights=SMALL,
        base_url=llama_server,
        concurrency=2,
        max_retries=0,
        timeout_s=120,
    )
    llm = create_llm(spec)
    out = llm.complete([PROMPT, messages(("user", "Say hi."))], PARAMS)
    for c in out:
        _sane(c, PARAMS.max_new_tokens)


def test_llamacpp_refuses_quantization_flag(small_path):
    pytest.importorskip("llama_cpp")
    spec = ModelSpec(name="x", backend="llamacpp", embedded=SMALL, quantization="nf4")
    with pytest.raises(LLMError, match="takes the quantization the GGUF file has"):
        create_llm(spec)

