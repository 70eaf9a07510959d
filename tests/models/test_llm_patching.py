"""Activation patching of the pointwise LLM ranker (explain/patching.py, DecoderPatchTarget) on
the tiny random Llama (conftest; grouped-query attention: 4 query heads share 2 key/value
heads): every patched score against one plain forward pass per pair and component of the
hand-written prompt, with a forward hook that puts the other run's activation in place."""

# ruff: noqa: B023  (the reference hooks close over loop variables but run in their iteration)
from __future__ import annotations

import numpy as np
import pytest
import torch

from axiomatic.explain.patching import ROLES, DecoderPatchTarget, patch, patching_target
from axiomatic.models.llm import LLMRanker
from axiomatic.perturb.minimal_pairs import MinimalPair

QUESTION = "Is the passage relevant to the query? Answer yes or no."
QUERY = "water boiling point"
PAIRS = [  # (baseline, perturbed): same number of word pieces, different lengths
    ("Water boils at 100 degrees at sea level.", "Water boils at 100 degrees at boiling level."),
    ("The kettle is hot a a.", "The kettle is hot water boiling."),
    (
        "Rivers carry fresh water to the sea and lakes a the mountains.",
        "Rivers carry fresh water to the sea and lakes point the mountains.",
    ),
]


def _pairs() -> list[MinimalPair]:
    return [
        MinimalPair("TFC1-I", "q1", f"d{i}", QUERY, b, p, (0, 1), (0, 1), "water", "a")
        for i, (b, p) in enumerate(PAIRS)
    ]


def _prompt(template: str, doc: str) -> tuple[str, bool, str, str]:
    body = f"Query: {QUERY}\nPassage: {doc}\n{QUESTION}"
    if template == "chat":
        return f"<user> {body} <assistant>", False, "yes", "no"
    return body + "\nAnswer:", True, " yes", " no"


def _reference(tiny, template: str, baseline: str, perturbed: str, comps, roles) -> dict:
    """Per component: the baseline prompt's score with that component's output replaced by the
    perturbed prompt's, one unbatched forward pass each; plus both plain scores."""
    tok, model = tiny["tok"], tiny["model"]
    decoder = model.model
    (pb, special, yes, no), (pp, _, _, _) = (
        _prompt(template, baseline),
        _prompt(template, perturbed),
    )
    ib = torch.tensor([tok(pb, add_special_tokens=special)["input_ids"]])
    ip = torch.tensor([tok(pp, add_special_tokens=special)["input_ids"]])
    a = tok.encode(yes, add_special_tokens=False)[0]
    b = tok.encode(no, add_special_tokens=False)[0]

    def score(ids: torch.Tensor) -> float:
        with torch.no_grad():
            logits = model(input_ids=ids).logits[0, -1]
        return float(logits[a] - logits[b])

    def module(kind: str, layer: int):
        if kind == "residual":
            return decoder.embed_tokens if layer == 0 else decoder.layers[layer - 1]
        if kind == "head":
            return decoder.layers[layer].self_attn.o_proj
        return decoder.layers[layer].mlp

    out = {"base": score(ib), "pert": score(ip)}
    hd = model.config.hidden_size // model.config.num_attention_heads
    for kind, layer, index in comps:
        m = module(kind, layer)
        got = {}
        if kind == "head":  # the head's slice of o_proj's input
            h1 = m.register_forward_pre_hook(lambda _m, args: got.setdefault("x", args[0].clone()))
            score(ip)
            h1.remove()

            def put(_m, args):
                x = args[0].clone()
                x[..., index * hd : (index + 1) * hd] = got["x"][..., index * hd : (index + 1) * hd]
                return (x,)

            h2 = m.register_forward_pre_hook(put)
        else:
            h1 = m.register_forward_hook(lambda _m, _i, o: got.setdefault("x", o.clone()))
            score(ip)
            h1.remove()
            if kind == "mlp":
                h2 = m.register_forward_hook(lambda _m, _i, o: got["x"])
            else:
                where = roles == ROLES.index(index) if isinstance(index, str) else roles == index
                sel = where[None, :, None]
                h2 = m.register_forward_hook(lambda _m, _i, o: torch.where(sel, got["x"], o))
        out[(kind, layer, index)] = score(ib)
        h2.remove()
    return out


@pytest.fixture(scope="module", params=["plain", "chat"])
def patched(request, tiny_llama):
    ranker = LLMRanker(tiny_llama[request.param])
    target = patching_target(ranker, name="tiny")
    assert isinstance(target, DecoderPatchTarget)
    result = patch(target, _pairs(), batch_size=2, min_delta=0.0)
    tokens, dropped = target.tokenize(_pairs())
    return request.param, ranker, target, result, tokens, dropped


def test_patched_scores_equal_plain_forward_passes_with_a_hook(patched, tiny_llama) -> None:
    template, ranker, target, result, tokens, dropped = patched
    assert dropped == {"unequal length": 0, "too long": 0}
    assert len(result.pairs) == len(PAIRS)
    assert (target.n_layers, target.n_heads) == (2, 4)  # 4 query heads over 2 key/value heads
    # the pair scores are the ranker's own
    base = ranker.score_pairs([QUERY] * 3, [b for b, _ in PAIRS]).numpy()
    pert = ranker.score_pairs([QUERY] * 3, [p for _, p in PAIRS]).numpy()
    np.testing.assert_allclose(result.pairs["s_base"], base, atol=1e-5)
    np.testing.assert_allclose(result.pairs["s_pert"], pert, atol=1e-5)
    assert np.all(np.abs(result.pairs["delta"]) > 1e-3)  # the fractions are well defined
    cols = [c for c in result.fractions.columns if c.count(":") == 2]
    assert len(cols) == 6 * 3 + 2 * 4 + 2  # residual roles x (embeddings, 2 layers), heads, MLPs
    for i, (b, p) in enumerate(PAIRS):
        n = int(tokens.attention_mask[i].sum())
        roles = tokens.roles[i, :n]
        comps = []
        for c in cols:
            kind, layer, index = c.split(":")
            comps.append((kind, int(layer), index if kind == "residual" else int(index)))
        ref = _reference(tiny_llama, template, b, p, comps, roles)
        row = result.pairs.iloc[i]
        assert row["s_base"] == pytest.approx(ref["base"], abs=1e-5)
        assert row["s_pert"] == pytest.approx(ref["pert"], abs=1e-5)
        for c, comp in zip(cols, comps, strict=True):
            restored = result.fractions.iloc[i][c] * row["delta"]
            assert restored == pytest.approx(ref[comp] - ref["base"], abs=2e-5), (template, c)


def test_identities_and_roles(patched, tiny_llama) -> None:
    _, _, target, result, tokens, _ = patched
    f = result.fractions
    last = target.n_layers
    # the last layer's residual at the last token carries the whole difference; every other
    # position there restores nothing (the score reads the last token only)
    np.testing.assert_allclose(f[f"residual:{last}:last token"], 1.0, atol=1e-4)
    for role in ("template", "query", "perturbed", "query term", "document"):
        np.testing.assert_allclose(f[f"residual:{last}:{role}"], 0.0, atol=1e-5)
    # the embeddings differ only at the perturbed positions
    np.testing.assert_allclose(f["residual:0:perturbed"], 1.0, atol=1e-4)
    # roles: the perturbed positions are where the two prompts differ, the query segment holds
    # the query's word pieces, the last position is the last token
    tok = tiny_llama["tok"]
    qids = tok.encode(QUERY, add_special_tokens=False)
    for i in range(len(PAIRS)):
        n = int(tokens.attention_mask[i].sum())
        roles, b, p = tokens.roles[i, :n], tokens.base[i, :n], tokens.pert[i, :n]
        assert torch.equal(roles == ROLES.index("perturbed"), b != p)
        assert b[roles == ROLES.index("query")].tolist() == qids
        assert int(roles[-1]) == ROLES.index("last token")
        assert int((roles == ROLES.index("last token")).sum()) == 1


def test_a_pairwise_llm_is_refused(tiny_llama) -> None:
    from axiomatic.data.catalog import load_dataset
    from axiomatic.rankers.registry import make_ranker

    r = make_ranker(f"prp:{tiny_llama['plain']}", load_dataset("demo"))
    with pytest.raises(ValueError, match="llm:PATH, smollm2"):
        patching_target(r, name="prp")


def test_cli_patches_an_llm_ranker(tiny_llama, tmp_path) -> None:
    """`axiomatic patch -r llm:PATH` end to end on the demo collection: the decoder's roles in
    the tables, the last layer's last token restoring the whole difference, and a pairwise LLM
    refused with one error line."""
    import pandas as pd
    from typer.testing import CliRunner

    from axiomatic.cli.main import app

    out = tmp_path / "p"
    args = ["patch", "-r", f"llm:{tiny_llama['plain']}", "-d", "demo", "--pairs", "1",
            "--depth", "2", "--axioms", "TFC1-I,LNC2", "--components", "residual,mlp",
            "--threads", "1", "--min-delta", "0", "-o", str(out)]  # fmt: skip
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    e = pd.read_csv(out / "patch_effects.csv")
    res_roles = set(e.loc[e["component"] == "residual", "role"])
    assert res_roles == {"template", "query", "perturbed", "query term", "document", "last token"}
    last = e[(e["component"] == "residual") & (e["layer"] == 2) & (e["role"] == "last token")]
    assert len(last) == 2
    np.testing.assert_allclose(last["aggregate"], 1.0, atol=1e-4)
    bad = CliRunner().invoke(app, ["patch", "-r", f"prp:{tiny_llama['plain']}", "-d", "demo"])
    assert bad.exit_code != 0 and "cannot patch" in bad.output


def test_a_changed_last_token_is_a_perturbed_position(tiny_llama) -> None:
    """A template ending with the passage, and a tokenizer that adds no end token (as
    SmolLM2's): the pair's changed last word is the last token; it counts as perturbed, so the
    embeddings at the perturbed positions still restore the whole difference."""
    from tokenizers.processors import TemplateProcessing

    ranker = LLMRanker(tiny_llama["plain"], template="Query: {query} Document: {document}")
    tok = ranker.components()[0]
    cls = tok.cls_token_id
    tok.backend_tokenizer.post_processor = TemplateProcessing(
        single="[CLS] $A", special_tokens=[("[CLS]", cls)]
    )
    target = patching_target(ranker, name="tiny")
    pairs = [
        MinimalPair("TFC1-I", "q1", "d0", QUERY, "The kettle is hot a", "The kettle is hot water",
                    (0, 1), (0, 1), "water", "a"),
    ]  # fmt: skip
    tokens, _ = target.tokenize(pairs)
    roles, b, p = tokens.roles[0], tokens.base[0], tokens.pert[0]
    assert int(b[-1]) != int(p[-1])  # the last token is the changed word
    assert torch.equal(roles == ROLES.index("perturbed"), b != p)
    result = patch(target, pairs, components=["residual"], min_delta=0.0)
    assert abs(result.pairs["delta"].iloc[0]) > 1e-3
    f = result.fractions
    np.testing.assert_allclose(f["residual:0:perturbed"], 1.0, atol=1e-4)
    np.testing.assert_allclose(f["residual:2:perturbed"], 1.0, atol=1e-4)
