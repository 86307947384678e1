"""The HTTP backend against local stdlib servers: retries, unreachable, batch order."""

import socket

import pytest

pytest.importorskip("openai")

from ramp.llm import ContextOverflow, LLMError, SamplingParams, messages
from ramp.llm.backends.openai_compat import OpenAICompatLLM
from ramp.llm.base import OVER_CONTEXT as OVER_CONTEXT_REASON
from ramp.llm.spec import ModelSpec
from tests.llm.chat_server import ChatServer, completion


def FlakyServer(failures: int, status: int = 503, error: dict | None = None) -> ChatServer:
    """Fails the first ``failures`` requests with ``status`` and ``error`` (the body's error
    object), then echoes the last message."""
    refusal = {"error": error or {"message": "busy"}}
    server: ChatServer

    def respond(body: dict) -> tuple[int, dict]:
        if len(server.requests) <= failures:
            return status, refusal
        return 200, completion("echo " + body["messages"][-1]["content"])

    server = ChatServer(respond)
    return server


def _spec(url: str, **kw) -> ModelSpec:
    return ModelSpec(name="srv", backend="openai", weights="m", base_url=url, **kw)


def test_retries_twice_then_answers():
    with FlakyServer(failures=2) as srv:
        llm = OpenAICompatLLM(_spec(srv.url, max_retries=3))
        (c,) = llm.complete([messages(("user", "hi"))], SamplingParams(max_new_tokens=5, seed=4))
    assert c.text == "echo hi" and (c.prompt_tokens, c.completion_tokens) == (7, 3)
    assert len(srv.requests) == 3
    assert srv.requests[-1]["max_tokens"] == 5 and srv.requests[-1]["seed"] == 4
    assert llm.model_id == "openai/m"


def test_gives_up_after_max_retries_naming_the_url():
    with FlakyServer(failures=10, status=500) as srv:
        llm = OpenAICompatLLM(_spec(srv.url, max_retries=1))
        with pytest.raises(LLMError, match=f"{srv.url}.*HTTP 500"):
            llm.complete([messages(("user", "hi"))], SamplingParams())
    assert len(srv.requests) == 2


# What servers answer to a prompt over the context, as they word it.
OVER_CONTEXT = {
    "llama-cpp-python, vLLM": {"message": "This model's maximum context length is 4096 tokens. "
                               "However, you requested 4354 tokens (4254 in the messages, 100 in "
                               "the completion). Please reduce the length of the messages or "
                               "completion.", "type": "invalid_request_error"},
    "llama.cpp server": {"code": 400, "type": "exceed_context_size_error",
                         "message": "the request exceeds the available context size, try "
                                    "increasing it"},
    "OpenAI": {"code": "context_length_exceeded", "type": "invalid_request_error",
               "message": "Your input exceeds the context window of this model."},
}


@pytest.mark.parametrize("server", sorted(OVER_CONTEXT))
def test_a_prompt_over_the_context_is_an_over_context_outcome(server):
    """The server counts the answer's cap too: its refusal is the call's typed outcome (an
    empty answer, counted by the study), not an error that ends the stage."""
    with FlakyServer(failures=1, status=400, error=OVER_CONTEXT[server]) as srv:
        llm = OpenAICompatLLM(_spec(srv.url, max_retries=3))
        (answer,) = llm.complete([messages(("user", "hi"))], SamplingParams(max_new_tokens=100))
    assert answer.finish_reason == OVER_CONTEXT_REASON
    assert (answer.text, answer.completion_tokens) == ("", 0)
    assert len(srv.requests) == 1  # not retried: it cannot succeed


def test_another_bad_request_is_no_context_overflow():
    with FlakyServer(failures=1, status=400, error={"message": "unknown field 'seed'"}) as srv:
        llm = OpenAICompatLLM(_spec(srv.url))
        with pytest.raises(LLMError, match=r"HTTP 400.*unknown field") as e:
            llm.complete([messages(("user", "hi"))], SamplingParams())
    assert not isinstance(e.value, ContextOverflow)


def test_unreachable_server_names_the_url():
    with socket.socket() as s:  # a port that was free a moment ago: nobody listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    llm = OpenAICompatLLM(_spec(url, max_retries=0, timeout_s=5))
    with pytest.raises(LLMError, match=f"cannot reach .* at {url}"):
        llm.complete([messages(("user", "hi"))], SamplingParams())


def test_concurrent_batch_keeps_order():
    with FlakyServer(failures=0) as srv:
        llm = OpenAICompatLLM(_spec(srv.url, concurrency=3))
        prompts = [messages(("user", f"q{i}")) for i in range(7)]
        out = llm.complete(prompts, SamplingParams())
    assert [c.text for c in out] == [f"echo q{i}" for i in range(7)]


def test_base_url_from_env(monkeypatch):
    monkeypatch.setenv("RAMP_OPENAI_BASE_URL", "http://127.0.0.1:1/v9")
    assert OpenAICompatLLM(_spec("")).base_url == "http://127.0.0.1:1/v9"


def test_open_model_puts_the_configured_cache_in_front(tmp_path):
    from ramp.llm import CachedLLM, ModelsConfig, open_model

    with FlakyServer(failures=0) as srv:
        config = ModelsConfig.from_dict({
            "use": ["srv"], "cache": {"mode": "read-write", "dir": "cache/llm"},
            "entries": {"srv": {"backend": "openai", "weights": "m", "base_url": srv.url}},
        })
        llm = open_model(config, "srv", root=tmp_path)
        prompt = messages(("user", "q"))
        first = llm.complete([prompt], SamplingParams())
        again = llm.complete([prompt], SamplingParams())
    assert isinstance(llm, CachedLLM) and first == again
    assert len(srv.requests) == 1
    assert len(list((tmp_path / "cache" / "llm").glob("*/*.json"))) == 1
