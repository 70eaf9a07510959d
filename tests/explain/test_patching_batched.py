"""The batched, layer-skipping patching runs against a plain reference: one full forward pass
of the baseline per pair and per component, with a single hook, on a tiny random BERT that
reads MiniLM's word pieces (the toolkit's cross- and bi-encoder around it, the public path from
minimal pairs to restored fractions)."""

# ruff: noqa: B023  (the reference hooks close over loop variables but run in their iteration)
from __future__ import annotations

import numpy as np
import pytest
import torch
from transformers import BertConfig, BertModel

import axiomatic.models.transformer as T
from axiomatic.data.records import Dataset, Document, Query
from axiomatic.explain.patching import (
    COMPONENTS,
    ROLES,
    PatchTarget,
    patch,
    patch_tokens,
    patching_target,
)
from axiomatic.perturb.minimal_pairs import minimal_pairs

TINY = {
    "vocab_size": 30522,
    "hidden_size": 32,
    "num_hidden_layers": 3,
    "num_attention_heads": 4,
    "intermediate_size": 64,
    "max_position_embeddings": 128,
}


@pytest.fixture(autouse=True)
def _one_thread():
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


@pytest.fixture
def tiny(monkeypatch):
    """Every MiniLM encoder built in the test is a tiny random BERT (3 layers, 4 heads)."""

    def load_encoder(source=None, pretrained=True):
        return BertModel(BertConfig(**TINY), add_pooling_layer=False)

    monkeypatch.setattr(T, "load_encoder", load_encoder)
    monkeypatch.setattr(T, "load_pooler", lambda *a, **k: None)


def _dataset() -> Dataset:
    docs = {
        "d1": Document("d1", "The heron nests near water and eats fish in shallow lakes."),
        "d2": Document("d2", "Herons are wading birds; the grey heron is common in Europe."),
        "d3": Document("d3", "Lakes freeze in winter, and the fish move to deeper water."),
        "d4": Document("d4", "Fish."),
    }
    queries = {"q1": Query("q1", "where do herons nest"), "q2": Query("q2", "lake fish winter")}
    cands = {"q1": ["d1", "d2", "d3", "d4"], "q2": ["d3", "d1", "d4", "d2"]}
    return Dataset("toy", queries, docs, candidates=cands)


def _model(kind: str):
    torch.manual_seed(7)
    cls = T.CrossEncoder if kind == "cross-encoder" else T.BiEncoder
    model = cls(max_length=64, pretrained=False)
    with torch.no_grad():  # sizeable weights, so that every component moves the score
        for name, p in model.encoder.named_parameters():
            if "LayerNorm" not in name and "embeddings" not in name:
                p.mul_(5.0)
        if kind == "cross-encoder":
            model.head.weight.normal_(0.0, 1.0)
    return model.eval()


def reference_scores(target: PatchTarget, tokens) -> tuple[np.ndarray, np.ndarray, dict]:
    """Per pair, unpadded and alone: the baseline and perturbed scores, and the baseline's score
    with one component replaced by the perturbed run's (a hook on the full model) for every
    residual role, head and MLP."""
    enc = target.encoder
    layers = enc.encoder.layer
    hd = target.head_dim
    s_base, s_pert, patched = [], [], {}
    for i in range(tokens.base.shape[0]):
        k = int(tokens.attention_mask[i].sum())
        common = {
            "attention_mask": tokens.attention_mask[i : i + 1, :k],
            "token_type_ids": tokens.token_type_ids[i : i + 1, :k],
        }
        b_in = {"input_ids": tokens.base[i : i + 1, :k], **common}
        p_in = {"input_ids": tokens.pert[i : i + 1, :k], **common}
        query = [tokens.queries[i]]
        roles = tokens.roles[i, :k]
        acts = {}

        def keep(key, pre=False):
            if pre:
                return lambda m, a: acts.__setitem__(key, a[0])
            return lambda m, a, o: acts.__setitem__(key, o[0] if isinstance(o, tuple) else o)

        hooks = [enc.embeddings.register_forward_hook(keep(("residual", 0)))]
        for li, layer in enumerate(layers):
            hooks.append(layer.register_forward_hook(keep(("residual", li + 1))))
            hooks.append(
                layer.attention.output.dense.register_forward_pre_hook(keep(("head", li), True))
            )
            hooks.append(layer.output.dense.register_forward_hook(keep(("mlp", li))))
        with torch.inference_mode():
            s_pert.append(float(target.score_fn(p_in, query)))
        for h in hooks:
            h.remove()
        with torch.inference_mode():
            s_base.append(float(target.score_fn(b_in, query)))

        def run(module, fn, pre=False):
            h = module.register_forward_pre_hook(fn) if pre else module.register_forward_hook(fn)
            try:
                with torch.inference_mode():
                    return float(target.score_fn(b_in, query))
            finally:
                h.remove()

        for li in range(len(layers) + 1):
            module = enc.embeddings if li == 0 else layers[li - 1]
            for r, role in enumerate(ROLES):
                where = (roles == r).view(1, -1, 1)

                def residual(m, a, o):
                    h = o[0] if isinstance(o, tuple) else o
                    new = torch.where(where, acts[("residual", li)], h)
                    return (new, *o[1:]) if isinstance(o, tuple) else new

                patched.setdefault(f"residual:{li}:{role}", []).append(run(module, residual))
        for li, layer in enumerate(layers):
            for h in range(target.n_heads):

                def head(m, a):
                    x = a[0].clone()
                    x[..., h * hd : (h + 1) * hd] = acts[("head", li)][..., h * hd : (h + 1) * hd]
                    return (x,)

                patched.setdefault(f"head:{li}:{h}", []).append(
                    run(layer.attention.output.dense, head, pre=True)
                )
            patched.setdefault(f"mlp:{li}:-1", []).append(
                run(layer.output.dense, lambda m, a, o: acts[("mlp", li)])
            )
    return np.array(s_base), np.array(s_pert), {k: np.array(v) for k, v in patched.items()}


@pytest.mark.parametrize("kind", ["cross-encoder", "bi-encoder"])
def test_batched_runs_equal_one_plain_forward_per_pair_and_component(tiny, kind: str) -> None:
    target = patching_target(_model(kind), "tiny")
    assert (target.n_layers, target.n_heads) == (3, 4)
    pairs = minimal_pairs(_dataset(), "all", depth=4, pieces=target.pieces)
    tokens, dropped = target.tokenize(pairs)
    assert sum(dropped.values()) == 0
    n = int(tokens.base.shape[0])
    lengths = tokens.attention_mask.sum(1)
    assert n >= 8 and len(set(lengths.tolist())) >= 3  # batches of mixed lengths, padded
    # 3 pairs a batch; one forward pass per kind and layer, or (max_rows=6) 2 heads or roles
    # a pass: several groups per layer
    res = patch(target, pairs, batch_size=3, min_delta=0.0, attention=False)
    grouped = patch_tokens(target, tokens, batch_size=3, min_delta=0.0, attention=False,
                           max_rows=6)  # fmt: skip
    s_base, s_pert, patched = reference_scores(target, tokens)
    delta = s_pert - s_base
    # float32 rounding of the scores (~5 for the cross-encoder's head, cosines ~1 for the
    # bi-encoder) after batching, padding and skipped layers: a few units in the 7th digit
    tol = 2e-6 * max(1.0, float(np.abs(s_base).max()))
    for r in (res, grouped):
        np.testing.assert_allclose(r.pairs["s_base"], s_base, rtol=0, atol=tol)
        np.testing.assert_allclose(r.pairs["s_pert"], s_pert, rtol=0, atol=tol)
    names = [c for c in res.fractions.columns if c.count(":") == 2]
    encoder_roles = ["[CLS]", "query", "[SEP]", "perturbed", "query term", "document"]
    roles = encoder_roles if kind == "cross-encoder" else [x for x in encoder_roles if x != "query"]
    want_names = (
        [f"residual:{li}:{role}" for li in range(4) for role in roles]
        + [f"head:{li}:{h}" for li in range(3) for h in range(4)]
        + [f"mlp:{li}:-1" for li in range(3)]
    )
    assert sorted(names) == sorted(want_names)
    still = set()
    for name in names:
        restored = patched[name] - s_base  # s(baseline, patched) - s(baseline), per pair
        for r in (res, grouped):
            got = r.fractions[name].to_numpy() * delta
            np.testing.assert_allclose(got, restored, rtol=0, atol=tol, err_msg=name)
        if np.abs(restored).max() < 100 * tol:
            still.add(name)
    # the comparison has teeth: every component moves some pair's score by far more than the
    # tolerance, but those that cannot (the embeddings away from the perturbed positions; for
    # the cross-encoder the last layer away from the [CLS] its score reads)
    unmoved = {f"residual:0:{role}" for role in roles if role != "perturbed"}
    if kind == "cross-encoder":
        unmoved |= {f"residual:3:{role}" for role in roles if role != "[CLS]"}
    assert still == unmoved


@pytest.mark.parametrize("kind", ["cross-encoder", "bi-encoder"])
def test_rows_equal_to_the_baseline_are_skipped_and_score_as_the_baseline(tiny, kind: str) -> None:
    """Given the baseline's scores, a patched group leaves out the rows whose patched
    activation equals the baseline's (a residual role absent from the pair) and gives them the
    baseline's score exactly; every other score equals the run of all rows (to float32
    rounding: a tiny model's matrix products may round a row differently in a smaller batch)."""
    from axiomatic.explain.patching import _components, _groups

    target = patching_target(_model(kind), "tiny")
    tokens, _ = target.tokenize(minimal_pairs(_dataset(), "all", depth=4, pieces=target.pieces))
    inputs = {
        "input_ids": tokens.base,
        "attention_mask": tokens.attention_mask,
        "token_type_ids": tokens.token_type_ids,
    }
    queries, roles = list(tokens.queries), tokens.roles
    b = len(queries)
    rows_run: list[int] = []
    plain = target.score_fn

    def counting(inp, qs):
        rows_run.append(int(inp["input_ids"].shape[0]))
        return plain(inp, qs)

    query_term = ROLES.index("query term")
    lacking = ~(roles == query_term).any(1)  # pairs without another query-term occurrence
    assert 0 < int(lacking.sum()) < b
    with torch.inference_mode():
        _, pert_cache = target.cache_run({**inputs, "input_ids": tokens.pert}, queries)
        s_base, base_cache = target.cache_run(inputs, queries)
        tol = 2e-6 * float(s_base.abs().max())
        skipped: dict[tuple[str, int], int] = {}
        for kind_, layer, indexes in _groups(_components(target, COMPONENTS), 10**6, b):
            args = (inputs, queries, kind_, layer, indexes, pert_cache, base_cache, roles)
            every = target.patched_group(*args)
            target.score_fn = counting
            try:
                rows_run.clear()
                fewer = target.patched_group(*args, s_base)
            finally:
                target.score_fn = plain
            torch.testing.assert_close(fewer, every, rtol=0, atol=tol)
            skipped[(kind_, layer)] = len(indexes) * b - sum(rows_run)
            for j, index in enumerate(indexes):
                if kind_ == "residual" and index == query_term:
                    assert torch.equal(fewer[j][lacking], s_base[lacking])
                    assert not torch.equal(fewer[j][~lacking], s_base[~lacking])
    # the pairs lacking the query-term role, at every layer after the embeddings (whose only
    # patched role is the perturbed positions), and nothing else
    want = {(k, layer): 0 for k, layer, _ in _groups(_components(target, COMPONENTS), 10**6, b)}
    for layer in range(1, target.n_layers + 1):
        want[("residual", layer)] = int(lacking.sum())
    assert skipped == want
