"""Activation patching: a toy ranker with a planted head, exact identities,
and the grouped / layer-skipping runs checked against a plain reference computation."""

# ruff: noqa: B023  (the reference hooks close over loop variables but run in their iteration)
from __future__ import annotations

import copy
import math

import numpy as np
import pytest
import torch
from torch import nn

from axiomatic.data.records import Dataset, Document, Query
from axiomatic.explain.patching import (
    ROLES,
    PatchTarget,
    TokenPairs,
    patch,
    patch_tokens,
    patching_target,
)
from axiomatic.perturb.minimal_pairs import minimal_pairs

T, FILL, CLS, SEP = 7, 9, 1, 2
PLANTED = (1, 1)  # (layer, head)


def toy_bert(seed: int = 0) -> nn.Module:
    """A 2-layer, 2-head BERT whose only sizeable pathway is one head (layer 1, head 1): it
    attends from every position to tokens with a large component 0 (token ``T``, the query
    term) and writes their value into residual dimension 1, which the score reads at [CLS].
    Every other weight is tiny, so a second ``T`` raises the score through that head alone."""
    from transformers import BertConfig, BertModel

    torch.manual_seed(seed)
    cfg = BertConfig(
        vocab_size=20,
        hidden_size=16,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=16,
        max_position_embeddings=32,
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
    )
    bert = BertModel(cfg, add_pooling_layer=False).eval()
    with torch.no_grad():
        for name, p in bert.named_parameters():
            if "LayerNorm" in name:
                continue
            p.mul_(0.05)
        emb = bert.embeddings.word_embeddings.weight
        emb.normal_(0.0, 1.0)
        emb[:, 0] = 0.0
        emb[:, 1] = 0.0
        emb[T, 0] = 4.0
        att = bert.encoder.layer[1].attention.self
        lo = 8  # head 1's slice
        att.query.weight[lo:, :] = 0.0
        att.query.bias[lo:] = 0.0
        att.query.bias[lo] = 4.0
        att.key.weight[lo:, :] = 0.0
        att.key.weight[lo, 0] = 0.5  # unsaturated: a second T draws more attention
        att.value.weight[lo:, :] = 0.0
        att.value.weight[lo, 0] = 3.0
        dense = bert.encoder.layer[1].attention.output.dense
        dense.weight[:, lo:] = 0.0
        dense.weight[1, lo] = 3.0
    return bert


def toy_target(bert: nn.Module) -> PatchTarget:
    def score(inputs: dict[str, torch.Tensor], queries: list[str]) -> torch.Tensor:
        return bert(**inputs).last_hidden_state[:, 0, 1]

    return PatchTarget("toy", "cross-encoder", bert, score)


def toy_pairs(n: int = 6, seed: int = 0) -> TokenPairs:
    """``[CLS] T q [SEP] d... F [SEP]`` against the same with ``T`` in place of the filler."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(n):
        doc = [int(x) for x in rng.integers(10, 20, size=int(rng.integers(4, 8)))]
        k = int(rng.integers(0, len(doc) + 1))
        base = [CLS, T, 11, SEP, *doc[:k], FILL, *doc[k:], SEP]
        pert = [CLS, T, 11, SEP, *doc[:k], T, *doc[k:], SEP]
        types = [0, 0, 0, 0] + [1] * (len(doc) + 2)
        rows.append((base, pert, types, 4 + k))
    width = max(len(r[0]) for r in rows)
    b = torch.zeros((n, width), dtype=torch.long)
    p = torch.zeros((n, width), dtype=torch.long)
    tt = torch.zeros((n, width), dtype=torch.long)
    m = torch.zeros((n, width), dtype=torch.long)
    roles = torch.full((n, width), -1, dtype=torch.long)
    for i, (base, pert, types, at) in enumerate(rows):
        k = len(base)
        b[i, :k], p[i, :k], tt[i, :k], m[i, :k] = (
            torch.tensor(x) for x in (base, pert, types, [1] * k)
        )
        r = [ROLES.index("document")] * k
        r[0] = ROLES.index("[CLS]")
        r[1] = r[2] = ROLES.index("query")
        r[3] = r[k - 1] = ROLES.index("[SEP]")
        r[at] = ROLES.index("perturbed")
        roles[i, :k] = torch.tensor(r)
    meta = [{"axiom": "TFC1-I", "query_id": "q", "doc_id": f"d{i}"} for i in range(n)]
    return TokenPairs(b, p, m, tt, roles, meta, ["q"] * n)


def reference_fractions(target: PatchTarget, tokens: TokenPairs) -> dict[tuple, np.ndarray]:
    """The restored fraction of every head and MLP, and of the residual stream per layer and
    role, each from one full forward pass of the baseline per pair with a single hook: no
    grouping, no skipped layers."""
    out: dict[tuple, list[float]] = {}
    enc = target.encoder
    layers = enc.encoder.layer
    for i in range(tokens.base.shape[0]):
        k = int(tokens.attention_mask[i].sum())
        common = {
            "attention_mask": tokens.attention_mask[i : i + 1, :k],
            "token_type_ids": tokens.token_type_ids[i : i + 1, :k],
        }
        b_in = {"input_ids": tokens.base[i : i + 1, :k], **common}
        p_in = {"input_ids": tokens.pert[i : i + 1, :k], **common}
        roles = tokens.roles[i, :k]
        acts: dict[tuple, torch.Tensor] = {}
        hooks = [
            enc.embeddings.register_forward_hook(lambda m, a, o: acts.__setitem__(("r", 0), o))
        ]
        for li, layer in enumerate(layers):
            hooks.append(
                layer.register_forward_hook(
                    lambda m, a, o, li=li: acts.__setitem__(
                        ("r", li + 1), o[0] if isinstance(o, tuple) else o
                    )
                )
            )
            hooks.append(
                layer.attention.output.dense.register_forward_pre_hook(
                    lambda m, a, li=li: acts.__setitem__(("h", li), a[0])
                )
            )
            hooks.append(layer.output.dense.register_forward_hook(
                lambda m, a, o, li=li: acts.__setitem__(("m", li), o)))  # fmt: skip
        with torch.no_grad():
            sp = float(target.score_fn(p_in, ["q"]))
        for h in hooks:
            h.remove()
        with torch.no_grad():
            sb = float(target.score_fn(b_in, ["q"]))

        def run(hook_module: nn.Module, fn, pre: bool = False) -> float:
            h = (hook_module.register_forward_pre_hook(fn) if pre
                 else hook_module.register_forward_hook(fn))  # fmt: skip
            try:
                with torch.no_grad():
                    return float(target.score_fn(b_in, ["q"]))
            finally:
                h.remove()

        d = sp - sb
        for li in range(len(layers) + 1):
            mod = enc.embeddings if li == 0 else layers[li - 1]
            for r in set(roles.tolist()):
                where = (roles == r).view(1, -1, 1)

                def res(m, a, o, li=li, where=where):
                    h = o[0] if isinstance(o, tuple) else o
                    new = torch.where(where, acts[("r", li)], h)
                    return (new, *o[1:]) if isinstance(o, tuple) else new

                out.setdefault(("residual", li, ROLES[r]), []).append((run(mod, res) - sb) / d)
        hd = target.head_dim
        for li, layer in enumerate(layers):
            for h in range(target.n_heads):

                def head(m, a, li=li, h=h):
                    x = a[0].clone()
                    x[..., h * hd : (h + 1) * hd] = acts[("h", li)][..., h * hd : (h + 1) * hd]
                    return (x,)

                out.setdefault(("head", li, h), []).append(
                    (run(layer.attention.output.dense, head, pre=True) - sb) / d
                )
            out.setdefault(("mlp", li), []).append(
                (run(layer.output.dense, lambda m, a, o, li=li: acts[("m", li)]) - sb) / d
            )
    return {k: np.array(v) for k, v in out.items()}


def test_planted_head_is_the_top_component() -> None:
    target = toy_target(toy_bert())
    res = patch_tokens(target, toy_pairs(8), attention=False, min_delta=0.0)
    assert (res.pairs["delta"] > 0).all()  # a second query term raises the toy's score
    heads = res.effects[res.effects["component"] == "head"].set_index(["layer", "head"])
    assert heads["mean"].idxmax() == PLANTED
    assert heads.loc[PLANTED, "mean"] > 0.9
    assert heads.drop(PLANTED)["mean"].abs().max() < 0.1
    assert heads.loc[PLANTED, "ci_low"] > 0.8


def test_breaking_the_planted_head_moves_the_top_component() -> None:
    """The test above fails when the mechanism is not there: with head 1's output projection
    zeroed, the score difference no longer runs through it."""
    bert = toy_bert()
    with torch.no_grad():
        bert.encoder.layer[1].attention.output.dense.weight[:, 8:] = 0.0
    res = patch_tokens(toy_target(bert), toy_pairs(8), attention=False, min_delta=0.0)
    heads = res.effects[res.effects["component"] == "head"].set_index(["layer", "head"])
    assert abs(heads.loc[PLANTED, "mean"]) < 0.1


def test_grouped_runs_equal_the_reference() -> None:
    """Components stacked along the batch, runs started at their layer, pairs batched across
    lengths: the same fractions as one plain forward pass per component and pair."""
    bert = toy_bert(seed=3)
    with torch.no_grad():  # every pathway sizeable, so no fraction is trivially 0 or 1
        for name, p in bert.named_parameters():
            if "LayerNorm" not in name and "word_embeddings" not in name:
                p.mul_(3.0)
    target = toy_target(bert)
    tokens = toy_pairs(7, seed=1)
    res = patch_tokens(target, tokens, batch_size=3, attention=False, min_delta=0.0, max_rows=4)
    ref = reference_fractions(target, tokens)
    e = res.effects
    checked = 0
    for key, want in ref.items():
        if key[0] == "residual":
            row = e[(e.component == "residual") & (e.layer == key[1]) & (e.role == key[2])]
        elif key[0] == "head":
            row = e[(e.component == "head") & (e.layer == key[1]) & (e["head"] == key[2])]
        else:
            row = e[(e.component == "mlp") & (e.layer == key[1])]
        assert len(row) == 1, key
        np.testing.assert_allclose(float(row["mean"].iloc[0]), want.mean(), rtol=1e-4, atol=1e-5)
        checked += 1
    assert checked == 3 * 5 + 2 * 2 + 2  # 5 roles present x 3 layers, 4 heads, 2 MLPs
    # and the interval is the t-interval over pairs of the reference values
    want = ref[("head", 1, 1)]
    half = 2.4469118511449692 * want.std(ddof=1) / math.sqrt(len(want))  # t(0.975, 6)
    row = e[(e.component == "head") & (e.layer == 1) & (e["head"] == 1)].iloc[0]
    assert row["ci_high"] == pytest.approx(want.mean() + half, rel=1e-4, abs=1e-5)


def test_exact_identities_on_the_toy() -> None:
    target = toy_target(toy_bert(seed=5))
    res = patch_tokens(target, toy_pairs(5, seed=2), attention=False, min_delta=0.0)
    e = res.effects.set_index(["component", "layer", "role"])["mean"]
    assert e[("residual", 0, "perturbed")] == pytest.approx(1.0, abs=1e-6)
    assert e[("residual", 2, "[CLS]")] == pytest.approx(1.0, abs=1e-6)  # the score reads [CLS]
    for role in ("[CLS]", "query", "[SEP]", "document"):  # identical embeddings
        assert e[("residual", 0, role)] == 0.0


def _dataset() -> Dataset:
    docs = {
        "d1": Document("d1", "The heron nests near water and eats fish in shallow lakes."),
        "d2": Document("d2", "Herons are wading birds; the grey heron is common in Europe."),
        "d3": Document("d3", "Lakes freeze in winter, and the fish move to deeper water."),
    }
    queries = {"q1": Query("q1", "where do herons nest"), "q2": Query("q2", "lake fish winter")}
    cands = {"q1": ["d1", "d2", "d3"], "q2": ["d3", "d1"]}
    return Dataset("toy", queries, docs, candidates=cands)


@pytest.mark.parametrize("kind", ["cross-encoder", "bi-encoder"])
def test_minilm_targets_tokenize_and_patch(kind: str) -> None:
    """The MiniLM architecture (random weights: the identities hold for any weights) through
    the public path: minimal pairs in word pieces, roles, identities, duplicate attention."""
    from axiomatic.models.transformer import BiEncoder, CrossEncoder

    torch.manual_seed(0)
    cls = CrossEncoder if kind == "cross-encoder" else BiEncoder
    model = cls(max_length=64, pretrained=False)
    target = patching_target(model, "m")
    assert (target.n_layers, target.n_heads, target.head_dim) == (6, 12, 32)
    pairs = minimal_pairs(_dataset(), "TFC1-I,TFC1-R", depth=2, pieces=target.pieces)
    res = patch(target, pairs, components=("residual", "mlp"), batch_size=4)
    assert res.dropped["unequal length"] == 0 and len(res.pairs) == len(pairs)
    e = res.effects
    kept = res.pairs.groupby("axiom")["kept"].sum()
    for ax in ("TFC1-I", "TFC1-R"):
        row = e[(e.axiom == ax) & (e.component == "residual") & (e.layer == 0)]
        row = row.set_index("role")["mean"]
        if kept[ax]:
            assert row["perturbed"] == pytest.approx(1.0, abs=1e-5)
    if kind == "cross-encoder":
        last = e[(e.component == "residual") & (e.layer == 6) & (e.role == "[CLS]")]
        assert np.allclose(last["mean"].dropna(), 1.0, atol=1e-5)
    else:
        assert "query" not in set(e["role"])
    # TFC1-I appends the term: its last document position is 'perturbed'
    toks, _ = target.tokenize([p for p in pairs if p.axiom == "TFC1-I"][:1])
    k = int(toks.attention_mask[0].sum())
    assert ROLES[int(toks.roles[0, k - 2])] == "perturbed"
    assert ROLES[int(toks.roles[0, 0])] == "[CLS]" and ROLES[int(toks.roles[0, k - 1])] == "[SEP]"
    assert res.timing["pairs_per_second"] > 0


def test_unsupported_models_are_refused() -> None:
    from axiomatic.models.knrm import KNRM

    with pytest.raises(ValueError, match="cannot patch"):
        patching_target(object())
    with pytest.raises(ValueError, match="BERT-style encoder"):
        PatchTarget("x", "cross-encoder", nn.Linear(2, 2), lambda i, q: torch.zeros(1))
    assert KNRM  # a word model is not a transformer ranker either


def test_cli_patch_writes_the_report(tmp_path) -> None:
    """`axiomatic patch` end to end on the demo collection (the packaged MiniLM, one pair per
    axiom, MLPs only): tables, heat map, record and pages, the pair sample hash in each."""
    import json

    from typer.testing import CliRunner

    from axiomatic.cli.main import app

    out = tmp_path / "p"
    args = ["patch", "-r", "minilm", "-d", "demo", "--pairs", "1", "--depth", "1",
            "--axioms", "TFC1-I,LNC2", "--components", "mlp,residual", "--threads", "1",
            "-o", str(out)]  # fmt: skip
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    rec = json.loads((out / "patching.json").read_text())
    sample = rec["pair_sample_sha256"]
    assert len(sample) == 64 and rec["pairs"] == 2
    effects = (out / "patch_effects.csv").read_text()
    assert sample[:12] in effects and "residual" in effects and "mlp" in effects
    assert sample[:12] in (out / "patching.md").read_text()
    assert sample in (out / "patching.html").read_text()
    assert (out / "patching_0.png").stat().st_size > 1000
    (m,) = rec["models"]
    assert m["kind"] == "bi-encoder" and {s["axiom"] for s in m["summary"]} == {"TFC1-I", "LNC2"}
    bad = CliRunner().invoke(app, ["patch", "-r", "bm25", "-d", "demo", "--pairs", "1"])
    assert bad.exit_code != 0 and "cannot patch" in bad.output
    bad = CliRunner().invoke(app, ["patch", "-r", "minilm", "-d", "demo", "--axioms", "TFC9"])
    assert bad.exit_code != 0 and "bad --axioms" in bad.output


def test_patched_scores_are_the_rankers_scores() -> None:
    """The target scores a pair exactly as the ranker it wraps (so a restored fraction is a
    fraction of the ranker's own score difference): the packaged MiniLM as ``minilm`` (the
    toolkit's bi-encoder) and as ``st:DIR`` (the Hugging Face folder ranker)."""
    from axiomatic.data.records import Document, Query
    from axiomatic.models.hf import HFBiEncoderRanker
    from axiomatic.models.hf_loader import minilm_path
    from axiomatic.models.transformer import BiEncoder

    for ranker in (
        BiEncoder(max_length=128).eval(),
        HFBiEncoderRanker(f"st:{minilm_path()}", device="cpu", max_length=128),
    ):
        target = patching_target(ranker, "m", max_length=128)
        pairs = minimal_pairs(_dataset(), "TFC1-I", depth=2, pieces=target.pieces)
        res = patch(target, pairs, components=("mlp",), attention=False)
        assert res.dropped["unequal length"] == 0
        for p, row in zip(pairs, res.pairs.itertuples(), strict=True):
            assert (row.query_id, row.doc_id) == (p.query_id, p.doc_id)
        want = []
        for p in pairs:
            q, docs = (
                Query(p.query_id, p.query),
                [Document("b", p.baseline), Document("p", p.perturbed)],
            )
            if isinstance(ranker, BiEncoder):
                s = ranker.score_query(p.query, [p.baseline, p.perturbed], bf16=False).numpy()
            else:
                s = ranker.score(q, docs)
            want.append(s)
        want = np.array(want)
        got = res.pairs.sort_values(["query_id", "doc_id"])
        order = sorted(range(len(pairs)), key=lambda i: (pairs[i].query_id, pairs[i].doc_id))
        np.testing.assert_allclose(got["s_base"], want[order, 0], atol=1e-5)
        np.testing.assert_allclose(got["s_pert"], want[order, 1], atol=1e-5)


def test_a_hugging_face_cross_encoder_folder_is_patched_as_it_scores(tmp_path) -> None:
    """``cross-encoder:DIR`` (a ``BertForSequenceClassification`` folder, here a small random
    one with the MiniLM tokenizer): the target's scores are the ranker's, the hooks sit in
    its ``bert`` module, and the last layer's [CLS] restores everything (the classifier reads
    the pooled [CLS])."""
    from transformers import BertConfig, BertForSequenceClassification

    from axiomatic.data.records import Document, Query
    from axiomatic.models.hf import HFCrossEncoderRanker
    from axiomatic.models.hf_loader import load_tokenizer

    torch.manual_seed(0)
    tok = load_tokenizer()
    cfg = BertConfig(vocab_size=tok.vocab_size, hidden_size=32, num_hidden_layers=2,
                     num_attention_heads=4, intermediate_size=64, num_labels=1)  # fmt: skip
    BertForSequenceClassification(cfg).eval().save_pretrained(tmp_path)
    tok.save_pretrained(tmp_path)
    ranker = HFCrossEncoderRanker(f"hf:{tmp_path}", device="cpu")
    target = patching_target(ranker, "ce")
    assert (target.kind, target.n_layers, target.n_heads) == ("cross-encoder", 2, 4)
    pairs = minimal_pairs(_dataset(), "TFC1-I,TDC", depth=2, pieces=target.pieces)
    res = patch(target, pairs, components=("residual",), min_delta=0.0)
    for p, row in zip(pairs, res.pairs.itertuples(), strict=True):
        q = Query(p.query_id, p.query)
        want = ranker.score(q, [Document("b", p.baseline), Document("p", p.perturbed)])
        np.testing.assert_allclose([row.s_base, row.s_pert], want, atol=1e-5)
    last = res.effects[(res.effects.layer == 2) & (res.effects.role == "[CLS]")]
    np.testing.assert_allclose(last["mean"], 1.0, atol=1e-5)


def test_aggregate_is_the_difference_weighted_mean_fraction() -> None:
    bert = toy_bert(seed=3)
    with torch.no_grad():
        for name, p in bert.named_parameters():
            if "LayerNorm" not in name and "word_embeddings" not in name:
                p.mul_(3.0)
    target = toy_target(bert)
    tokens = toy_pairs(7, seed=1)
    res = patch_tokens(target, tokens, attention=False, min_delta=0.0)
    ref = reference_fractions(target, tokens)
    delta = res.pairs["delta"].to_numpy()
    e = res.effects
    for layer, head in ((0, 1), (1, 1)):
        want = float((ref[("head", layer, head)] * np.abs(delta)).sum() / np.abs(delta).sum())
        cols = res.fractions[f"head:{layer}:{head}"].to_numpy()
        np.testing.assert_allclose(cols, ref[("head", layer, head)], rtol=1e-4, atol=1e-6)
        row = e[(e.component == "head") & (e.layer == layer) & (e["head"] == head)].iloc[0]
        assert row["aggregate"] == pytest.approx(want, rel=1e-4, abs=1e-6)
        assert row["agg_low"] <= row["aggregate"] <= row["agg_high"]
    last = e[(e.component == "residual") & (e.layer == 2) & (e.role == "[CLS]")].iloc[0]
    assert (last["aggregate"], last["agg_low"], last["agg_high"]) == pytest.approx((1, 1, 1))


def test_report_heat_maps_share_one_colour_scale_and_the_text_has_no_empty_count(
    tmp_path, monkeypatch
) -> None:
    """Every heat map of a patching report (both models, heads and residual roles) is drawn on
    the one scale [-m, m], m = max(1, the largest |restored share| of any map); a run that left
    no pair out does not print an empty "( left out)"."""
    import matplotlib.axes

    from axiomatic.explain.patching_report import write_patching

    limits: list[tuple[float, float]] = []
    real = matplotlib.axes.Axes.imshow

    def spy(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        im = real(self, *args, **kwargs)
        limits.append(im.get_clim())
        return im

    monkeypatch.setattr(matplotlib.axes.Axes, "imshow", spy)
    res = patch_tokens(toy_target(toy_bert()), toy_pairs(8), attention=False, min_delta=0.0)
    other = copy.deepcopy(res)  # a second model whose heads overshoot: restored shares to 2.5x
    heads = other.effects["component"] == "head"
    other.effects.loc[heads, "aggregate"] *= 2.5
    other.model = "toy-2"
    results = [res, other]
    for r in results:
        r.dropped = {k: 0 for k in r.dropped}
    maps = [r.effects[r.effects["component"].isin(["head", "residual"])] for r in results]
    m = max(1.0, max(float(e["aggregate"].abs().max()) for e in maps))
    per_map = {round(float(e["aggregate"].abs().max()), 6) for e in maps}
    assert len(per_map) == 2 and m > 2  # the maps differ: one scale is a choice, not luck
    write_patching(results, [], tmp_path / "p")
    assert len(limits) == 4 and all(
        lo == pytest.approx(-m) and hi == pytest.approx(m) for lo, hi in limits
    )
    md = (tmp_path / "p" / "patching.md").read_text()
    assert "( left out)" not in md and "pairs patched ·" in md
