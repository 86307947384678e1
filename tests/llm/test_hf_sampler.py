"""The transformers backend's sampler: each row of a batch draws from its own seed's generator."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from ramp.llm.backends.hf import RowSampler  # noqa: E402

LOGITS = torch.tensor([[1.0, 2.0, 3.0, 0.5, 2.5], [0.1, 0.2, 0.3, 0.4, 0.5]])


def _draws(sampler: RowSampler, scores: torch.Tensor, steps: int = 20) -> list[list[int]]:
    rows: list[list[int]] = [[] for _ in range(scores.shape[0])]
    for _ in range(steps):
        out = sampler(torch.zeros((scores.shape[0], 1), dtype=torch.long), scores)
        assert torch.isfinite(out).sum(dim=-1).tolist() == [1] * scores.shape[0]
        for row, token in zip(rows, out.argmax(dim=-1).tolist(), strict=True):
            row.append(token)
    return rows


def test_a_row_s_tokens_depend_on_its_seed_not_on_its_batch_partners():
    together = _draws(RowSampler([5, 7], 0.8, 1.0, torch.device("cpu")), LOGITS)
    alone = _draws(RowSampler([5], 0.8, 1.0, torch.device("cpu")), LOGITS[:1])
    other_partner = _draws(RowSampler([5, 99], 0.8, 1.0, torch.device("cpu")), LOGITS)
    assert together[0] == alone[0] == other_partner[0]
    assert len(set(together[0])) > 1  # it samples (20 draws from five tokens at T = 0.8)
    seven = _draws(RowSampler([7], 0.8, 1.0, torch.device("cpu")), LOGITS[1:])
    assert together[1] == seven[0]


def test_top_p_keeps_the_most_likely_tokens_up_to_its_mass():
    # Probabilities at T = 1: token 2 is 0.46, 4 is 0.28, 1 is 0.17: top_p 0.5 keeps 2 and 4.
    rows = _draws(RowSampler([1], 1.0, 0.5, torch.device("cpu")), LOGITS[:1], steps=50)
    assert set(rows[0]) == {2, 4}
    greedy_like = _draws(RowSampler([1], 1.0, 0.01, torch.device("cpu")), LOGITS[:1])
    assert set(greedy_like[0]) == {2}
