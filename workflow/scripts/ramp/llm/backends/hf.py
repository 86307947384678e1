"""transformers + torch: the paper's setup (4-bit NF4 via bitsandbytes), on a GPU or the CPU.

GGUF weights (the embedded models) load too: transformers dequantizes them (needs `gguf`).
Prompts are generated in batches of ``spec.batch_size``, left-padded, which on a GPU is far
faster than one by one; prompts whose parameters differ only in the seed (one task's
candidates) share a batch, each row sampled from a generator of its own seed
(:class:`RowSampler`), so the tokens drawn for a row do not depend on the rest of its batch.
"""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, LogitsProcessor

from ramp.llm import embedded
from ramp.llm.base import (
    Completion,
    LLMError,
    Params,
    Prompt,
    SamplingParams,
    finish_text,
    fits,
    per_prompt,
)
from ramp.llm.spec import ModelSpec
from ramp.llm.weights import model_id, weights_path


def _device(spec: ModelSpec) -> str:
    if spec.device != "auto":
        return spec.device
    return "cuda" if torch.cuda.is_available() else "cpu"


def _compute_dtype(device: str) -> torch.dtype:
    """The dtype the unquantized layers hold and the 4-bit ones compute in: bfloat16 on a GPU
    (the paper's setup); float32 on the CPU, where most processors have no fast bfloat16."""
    return torch.bfloat16 if device == "cuda" else torch.float32


def _quantization_config(spec: ModelSpec, device: str) -> Any:
    if spec.quantization == "none":
        return None
    try:
        # Imported only here: a model without quantization never loads bitsandbytes, whose
        # CPU backend (>= 0.47) runs the paper's NF4 where there is no GPU.
        import bitsandbytes  # noqa: F401
        from transformers import BitsAndBytesConfig
    except ImportError as e:
        raise LLMError(
            f"model {spec.name}: quantization nf4 needs bitsandbytes (`pip install -e '.[models]'`)"
        ) from e
    return BitsAndBytesConfig(
        load_in_4bit=True,
        bnb_4bit_quant_type="nf4",
        bnb_4bit_compute_dtype=_compute_dtype(device),
        bnb_4bit_use_double_quant=True,
    )


def _load_kwargs(spec: ModelSpec, path: Path) -> tuple[str, dict[str, Any]]:
    """``from_pretrained`` arguments: a GGUF file is named inside its folder."""
    if path.suffix == ".gguf":
        return str(path.parent), {"gguf_file": path.name}
    return str(path) if path.exists() else spec.weights, {}


def _converted_dir(spec: ModelSpec) -> Path | None:
    """Where an embedded GGUF is kept once converted to a transformers folder.

    Converting the GGUF (tokenizer above all) takes a minute or more on a small CPU; the
    converted folder loads in seconds. It is named by the GGUF's sha256, so new weights never
    meet an old conversion.
    """
    if not spec.embedded:
        return None
    model = embedded.lookup(spec.embedded)
    return embedded.models_dir() / f"{model.name}.{model.sha256[:16]}.hf"


def _convert_once(spec: ModelSpec, gguf: Path, target: Path) -> None:
    """Load the GGUF through transformers and save it as a folder, atomically (one rename)."""
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        kwargs: dict[str, Any] = {"gguf_file": gguf.name}
        AutoTokenizer.from_pretrained(gguf.parent, **kwargs).save_pretrained(tmp)
        model = AutoModelForCausalLM.from_pretrained(gguf.parent, dtype=torch.float32, **kwargs)
        # The weights are already dequantized; only the GGUF marker blocks saving them.
        model.hf_quantizer = None
        if hasattr(model.config, "quantization_config"):
            del model.config.quantization_config
        model.save_pretrained(tmp)
        try:
            tmp.rename(target)
        except OSError:
            if not target.is_dir():  # else another process converted it first: use theirs
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


#: Marks the sampling of :class:`RowSampler` in the model identity: before it, one seed drew the
#: tokens of a whole batch (and the model's top_k applied), so recorded samples differ.
SAMPLER = "row-seeds"


class RowSampler(LogitsProcessor):
    """Draws each row's next token from its own ``torch.Generator`` (seeded with that row's
    seed), after temperature and nucleus (top-p) filtering, and leaves only that token possible,
    so greedy decoding (``do_sample=False``) takes it. One draw per row per step: a row's
    tokens depend on its seed and its logits alone, not on its batch partners' draws."""

    def __init__(self, seeds: Sequence[int], temperature: float, top_p: float,
                 device: torch.device) -> None:
        self.temperature, self.top_p = temperature, top_p
        self.generators = [torch.Generator(device=device).manual_seed(s) for s in seeds]

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        probs = torch.softmax(scores.float() / self.temperature, dim=-1)
        if self.top_p < 1:
            ranked, order = probs.sort(dim=-1, descending=True)
            # Keep the most likely tokens up to probability top_p (the first always).
            drop = ranked.cumsum(dim=-1) - ranked >= self.top_p
            probs = probs.scatter(-1, order, ranked.masked_fill(drop, 0.0))
        chosen = torch.cat([torch.multinomial(row, 1, generator=g)
                            for row, g in zip(probs, self.generators, strict=True)])
        out = torch.full_like(scores, float("-inf"))
        return out.scatter(-1, chosen[:, None], 0.0)


def _batch_kind(params: SamplingParams) -> SamplingParams:
    """What must be equal for two prompts to share a batch: everything but the seed."""
    return dataclasses.replace(params, seed=0)


class TransformersLLM:
    def __init__(self, spec: ModelSpec) -> None:
        self.spec = spec
        self.device = _device(spec)
        quant = _quantization_config(spec, self.device)
        if spec.n_threads:
            torch.set_num_threads(spec.n_threads)
        path = weights_path(spec)
        converted = _converted_dir(spec)
        if converted is not None:
            if not converted.is_dir():
                _convert_once(spec, path, converted)
            path = converted
        where, extra = _load_kwargs(spec, path)
        self.tokenizer = AutoTokenizer.from_pretrained(where, **extra)
        self.tokenizer.padding_side = "left"  # decoder-only: pad on the left for batching
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        if spec.chat_template:
            self.tokenizer.chat_template = Path(spec.chat_template).read_text(encoding="utf-8")
        kwargs: dict[str, Any] = dict(extra)
        kwargs["dtype"] = _compute_dtype(self.device)
        if quant is not None:
            # bitsandbytes places the 4-bit layers as it loads them: on the GPU(s), or the CPU.
            kwargs.update(quantization_config=quant,
                          device_map="auto" if self.device == "cuda" else "cpu")
        self.model = AutoModelForCausalLM.from_pretrained(where, **kwargs)
        if quant is None:
            self.model.to(self.device)
        self.model.eval()
        self._model_id = f"{model_id(spec)}/{SAMPLER}"

    @property
    def model_id(self) -> str:
        return self._model_id

    def _batch(self, prompts: Sequence[Prompt], params: SamplingParams,
               seeds: Sequence[int]) -> list[Completion]:
        """One ``generate`` for ``prompts`` (same parameters but the seed, ``seeds[i]`` the
        i-th prompt's)."""
        start = time.perf_counter()
        texts = [self._text(p) for p in prompts]
        enc = self.tokenizer(texts, return_tensors="pt", padding=True).to(self.model.device)
        gen_kwargs: dict[str, Any] = {
            "max_new_tokens": params.max_new_tokens,
            "do_sample": False,  # sampling, if any, is RowSampler's: greedy takes its draw
            "temperature": None, "top_p": None, "top_k": None,
            "pad_token_id": self.tokenizer.pad_token_id,
        }
        if params.temperature > 0:
            gen_kwargs["logits_processor"] = [RowSampler(
                seeds, params.temperature, params.top_p, self.model.device)]
        if params.stop:
            gen_kwargs.update(stop_strings=list(params.stop), tokenizer=self.tokenizer)
        with torch.inference_mode():
            out = self.model.generate(**enc, **gen_kwargs)
        seconds = (time.perf_counter() - start) / len(prompts)
        width = enc["input_ids"].shape[1]
        eos = set(self._eos_ids())
        completions = []
        for row, mask in zip(out, enc["attention_mask"], strict=True):
            new = row[width:].tolist()
            pad = self.tokenizer.pad_token_id
            # Trailing padding of rows that finished early is not generated text.
            while new and new[-1] == pad and pad not in eos:
                new.pop()
            ended = next((i for i, t in enumerate(new) if t in eos), None)
            # Counted without the end-of-turn token, as llama.cpp and servers count.
            generated = new[:ended] if ended is not None else new
            text = self.tokenizer.decode(generated, skip_special_tokens=True)
            # A batch generates on to its longest row: stop_when only cuts the text here.
            text, stopped = finish_text(text, params)
            finish = "stop" if ended is not None or stopped else "length"
            if finish == "length" and len(generated) < params.max_new_tokens:
                finish = "stop"
            completions.append(
                Completion(
                    text=text,
                    finish_reason=finish,
                    prompt_tokens=int(mask.sum()),
                    completion_tokens=len(generated),
                    seconds=seconds,
                )
            )
        return completions

    def _eos_ids(self) -> list[int]:
        ids = self.model.generation_config.eos_token_id
        if ids is None:
            ids = self.tokenizer.eos_token_id
        return list(ids) if isinstance(ids, list | tuple) else [ids]

    def _text(self, prompt: Prompt) -> str:
        return self.tokenizer.apply_chat_template(
            [{"role": m.role, "content": m.content} for m in prompt],
            tokenize=False,
            add_generation_prompt=True,
        )

    def complete(self, prompts: Sequence[Prompt], params: Params) -> list[Completion]:
        each = per_prompt(prompts, params)
        out: list[Completion | None] = [None] * len(prompts)
        # A prompt that leaves less than its answer's cap in the context is not generated.
        for i, (prompt, p) in enumerate(zip(prompts, each, strict=True)):
            n = len(self.tokenizer(self._text(prompt))["input_ids"])
            if not fits(n, p, self.spec.context_size):
                out[i] = Completion.over_context(n)
        todo = [i for i, c in enumerate(out) if c is None]
        for kind in dict.fromkeys(_batch_kind(each[i]) for i in todo):
            where = [i for i in todo if _batch_kind(each[i]) == kind]
            for n in range(0, len(where), self.spec.batch_size):
                rows = where[n : n + self.spec.batch_size]
                answers = self._batch([prompts[i] for i in rows], kind,
                                      [each[i].seed for i in rows])
                for i, answer in zip(rows, answers, strict=True):
                    out[i] = answer
        return [c for c in out if c is not None]
