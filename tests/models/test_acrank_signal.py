"""ACRank's E() (Bo et al. 2023, eq. 7) against a reference computation - the cosine
translation matrix between the *query's* word pieces and the *document's* (no [CLS], no [SEP],
no query piece on the document side), KNRM kernel pooling with the log (soft-TF, Xiong et al.
2017), on a tiny random BERT. Shape checks let all three errors through; values do not."""

from __future__ import annotations

import numpy as np
import torch

from axiomatic.models import build_model


def _reference(model, batch) -> np.ndarray:
    """phi(T)_k = 0.1 * sum_i log max(1e-10, sum_j exp(-(T_ij - mu_k)^2 / (2 sigma_k^2))) over
    the query pieces i (between [CLS] and the first [SEP]) and the document pieces j (between
    the first and the second [SEP]), T = cosine of the last-layer vectors."""
    tok = model.tokenizer
    with torch.no_grad():
        h = model.token_embeddings(**batch).double().numpy()
    ids = batch["input_ids"].numpy()
    mask = batch["attention_mask"].numpy().astype(bool)
    mus = model.mus.double().numpy()
    sig = model.sigmas.double().numpy()
    out = []
    for b in range(len(ids)):
        row = ids[b][mask[b]]
        assert row[0] == tok.cls_token_id
        seps = [i for i, t in enumerate(row) if t == tok.sep_token_id]
        q_pos, d_pos = range(1, seps[0]), range(seps[0] + 1, seps[1])
        hq = h[b, list(q_pos)]
        hd = h[b, list(d_pos)]
        hq = hq / np.linalg.norm(hq, axis=1, keepdims=True)
        hd = hd / np.linalg.norm(hd, axis=1, keepdims=True)
        T = hq @ hd.T  # (|q|, |d|)
        k = np.exp(-((T[:, :, None] - mus) ** 2) / (2 * sig**2)).sum(axis=1)  # (|q|, K)
        out.append(0.1 * np.log(np.maximum(k, 1e-10)).sum(axis=0))
    return np.stack(out)


def test_e_signal_matches_the_reference_computation(tiny_bert) -> None:
    model = build_model("acrank", encoder_path=str(tiny_bert), max_length=48, seed=0).eval()
    queries = ["kernel pooling", "neural ranking of proteins", "x"]
    docs = [
        "kernel pooling counts soft matches of every kernel",
        "ranking neural models rank documents",
        "an unrelated passage about rivers and mountains",
    ]
    batch = model.encode_batch(queries, docs)
    with torch.no_grad():
        got = model.signals(**batch).double().numpy()
    want = _reference(model, batch)
    assert got.shape == want.shape == (3, 11)
    assert np.allclose(got, want, rtol=1e-4, atol=1e-4)
    # the same pair alone (no padding) gives the same signal
    one = model.encode_batch(queries[2:], docs[2:])
    with torch.no_grad():
        alone = model.signals(**one).double().numpy()
    assert np.allclose(alone[0], want[2], rtol=1e-4, atol=1e-4)


def test_exact_match_kernel_counts_shared_pieces(tiny_bert) -> None:
    """A document repeating a query word raises the exact-match kernel (mu = 1) by the log of
    the count: the value, not only the direction, follows the log of the soft TF."""
    model = build_model("acrank", encoder_path=str(tiny_bert), max_length=48, seed=0).eval()
    batch = model.encode_batch(["kernel"], ["kernel kernel kernel pooling"])
    with torch.no_grad():
        got = model.signals(**batch).double().numpy()
    assert np.allclose(got, _reference(model, batch), rtol=1e-4, atol=1e-4)
