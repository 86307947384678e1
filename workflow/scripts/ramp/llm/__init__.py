"""The model layer: one interface (`LLM.complete`), backends by name, cache, accounting, fake.

Importing this package loads no model library; backends import theirs when created.
"""

from ramp.llm.base import (
    LLM,
    ChatMessage,
    Completion,
    ContextOverflow,
    LLMError,
    SamplingParams,
    messages,
)
from ramp.llm.cache import CachedLLM
from ramp.llm.fake import FakeLLM
from ramp.llm.registry import BACKENDS, create_llm, open_model
from ramp.llm.spec import ConfigError, ModelsConfig, ModelSpec, load_models_config
from ramp.llm.usage import UsageLog

__all__ = [
    "BACKENDS",
    "LLM",
    "CachedLLM",
    "ChatMessage",
    "Completion",
    "ConfigError",
    "ContextOverflow",
    "FakeLLM",
    "LLMError",
    "ModelSpec",
    "ModelsConfig",
    "SamplingParams",
    "UsageLog",
    "create_llm",
    "load_models_config",
    "messages",
    "open_model",
]
