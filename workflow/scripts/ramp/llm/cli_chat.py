"""`ramp chat --model NAME "prompt"`: check in one shot that a configured backend answers."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ramp.llm.base import ChatMessage, LLMError, SamplingParams
from ramp.llm.embedded import ModelIntegrityError
from ramp.llm.registry import create_llm
from ramp.llm.spec import ConfigError, load_models_config

HELP = "send one prompt to a configured model and print its answer and usage"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("prompt")
    parser.add_argument("--model", default=None, help="entry name (default: first of models.use)")
    parser.add_argument("--config", type=Path, default=Path("config/config.yaml"))
    parser.add_argument("--system", default="", help="optional system message")
    parser.add_argument("--max-new-tokens", type=int, default=128)
    parser.add_argument("--temperature", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0)


def main(args: argparse.Namespace) -> int:
    try:
        config = load_models_config(args.config)
        name = args.model or (config.use[0] if config.use else "")
        llm = create_llm(config.spec(name))
        prompt = [ChatMessage("system", args.system)] if args.system else []
        prompt.append(ChatMessage("user", args.prompt))
        params = SamplingParams(
            temperature=args.temperature, seed=args.seed, max_new_tokens=args.max_new_tokens
        )
        (c,) = llm.complete([prompt], params)
    except (ConfigError, LLMError, ModelIntegrityError, FileNotFoundError, ValueError) as e:
        print(f"ramp chat: {e}", file=sys.stderr)
        return 1 if isinstance(e, LLMError) else 2
    print(c.text)
    rate = c.completion_tokens / c.seconds if c.seconds else 0.0
    print(
        f"[{llm.model_id}] finish={c.finish_reason} prompt_tokens={c.prompt_tokens} "
        f"completion_tokens={c.completion_tokens} seconds={c.seconds:.2f} ({rate:.1f} tok/s)",
        file=sys.stderr,
    )
    return 0
