"""The built-in demo collection: deterministic, split as documented, shaped for every axiom."""

from __future__ import annotations

import itertools

import pytest

from axiomatic.data import demo
from axiomatic.data.demo import demo_dataset
from axiomatic.text.analyzer import default_analyzer

AN = default_analyzer("en")


def _profile(query_text: str, doc_text: str) -> tuple[int, list[int], list[str]]:
    qt = list(dict.fromkeys(AN.analyze(query_text)))
    toks = AN.analyze(doc_text)
    return len(toks), [toks.count(t) for t in qt], toks


def test_sizes_and_splits() -> None:
    full, train, test = demo_dataset(), demo_dataset("train"), demo_dataset("test")
    assert 40 <= len(full.documents) <= 60
    assert 8 <= len(full.queries) <= 12
    assert full.name == "demo" and train.name == "demo/train" and test.name == "demo/test"
    assert set(train.queries) | set(test.queries) == set(full.queries)
    assert not set(train.queries) & set(test.queries)
    assert len(test.queries) == len(full.queries) // 3
    for qid in full.queries:
        cands = full.candidate_ids(qid)
        assert 10 <= len(cands) <= 20
        assert len(set(cands)) == len(cands)
        assert set(full.qrels[qid]) == set(cands)  # every candidate judged
        assert set(full.qrels[qid].values()) == {0, 1, 2}
    assert sum(len(AN.analyze(q.text)) >= 2 for q in full.queries.values()) >= 8  # multi-term


def test_deterministic() -> None:
    a = demo._build.__wrapped__()
    b = demo._build.__wrapped__()
    assert a.documents == b.documents and a.candidates == b.candidates and a.qrels == b.qrels


def test_unknown_split() -> None:
    with pytest.raises(ValueError, match="'train' or 'test'"):
        demo_dataset("dev")


def _pairs(ds, qid):
    q = ds.queries[qid].text
    docs = ds.candidate_documents(qid)
    return [(d, *_profile(q, d.text)) for d in docs]


def _shapes(ds, qid: str) -> set[str]:
    prof = _pairs(ds, qid)
    found: set[str] = set()
    for (da, la, ca, ta), (db, lb, cb, tb) in itertools.permutations(prof, 2):
        if la == lb and sum(ca) > sum(cb):
            found.add("TFC1")
        if la == lb and sum(ca) == sum(cb) > 0 and sum(c > 0 for c in ca) > sum(c > 0 for c in cb):
            found.add("TDC")
        if la == lb and len(ca) == 2 and ca == cb[::-1] and ca[0] != ca[1]:
            found.add("M-TDC")
        if db.text.startswith(da.text) and len(db.text) > len(da.text):
            found.add("LNC1")
        if la == lb and ca == cb and all(c == 1 for c in ca) and len(ca) > 1 and ta != tb:
            found.add("PROX")
    for d, _l, c, _t in prof:
        if sum(c) == 0 and ds.qrels[qid][d.doc_id] > 0:
            found.add("STMC")  # relevant by related words only
    for (_a, la, ca, _), (_b, lb, cb, _), (_c, lc, cc, _) in itertools.permutations(prof, 3):
        if (la == lb == lc and ca[0] == cb[0] == cc[0] if len(ca) > 1 else la == lb == lc) and (
            sum(cb) - sum(ca) == sum(cc) - sum(cb) == 1 and sum(ca) > 0
        ):
            found.add("TFC2")
            break
    return found


def test_every_axiom_shape_is_present() -> None:
    ds = demo_dataset()
    shapes = {qid: _shapes(ds, qid) for qid in ds.queries}
    n = {
        s: sum(s in v for v in shapes.values())
        for s in ("TFC1", "TFC2", "TDC", "M-TDC", "LNC1", "PROX", "STMC")
    }
    assert n["TFC1"] == len(ds.queries)
    assert n["STMC"] == len(ds.queries)
    assert n["TFC2"] >= 8 and n["TDC"] >= 8
    assert n["PROX"] >= 4 and n["LNC1"] >= 4
    assert n["M-TDC"] >= 1
    single = [q for q in ds.queries.values() if len(AN.analyze(q.text)) == 1]
    assert single and {"TFC1", "TFC2"} <= shapes[single[0].query_id]  # strict variants


def test_query_terms_have_different_idf() -> None:
    ds = demo_dataset()
    for q in ds.queries.values():
        terms = list(dict.fromkeys(AN.analyze(q.text)))
        if len(terms) < 2:
            continue
        df = [sum(t in AN.analyze(d.text) for d in ds.documents.values()) for t in terms]
        assert len(set(df)) > 1, (q.query_id, df)


# the axioms whose instances come from real documents of a query context (LNC2 needs the
# artificial duplicates that mining creates; LB1 needs retrieval scores)
_AXIOMS = [
    "TFC1",
    "TFC2",
    "M-TDC",
    "TFC3",
    "TDC",
    "LNC1",
    "TF-LNC",
    "LB2",
    "STMC1",
    "STMC2",
    "STMC3",
    "PROX1",
    "PROX2",
    "PROX3",
    "PROX4",
    "PROX5",
    "REG",
    "AND",
    "LEN-AND",
    "M-AND",
    "LEN-M-AND",
    "DIV",
    "LEN-DIV",
]


def test_project_axioms_have_instances_on_demo() -> None:
    import numpy as np

    from axiomatic import axioms
    from axiomatic.index import cache

    ds = demo_dataset()
    index = cache.dataset_index(ds, cache_dir=False)
    known = {a["name"]: a["variants"] for a in axioms.list_axioms()}
    contexts = [
        axioms.QueryContext.build(q, ds.candidate_documents(q.query_id), index)
        for q in ds.iter_queries()
    ]
    missing = []
    for name in _AXIOMS:
        for variant in known.get(name, []):
            ax = axioms.parse_axiom(f'{name}(variant="{variant}")')
            total = 0
            for ctx in contexts:
                if ax.arity == 3:
                    total += len(ax.instances(ctx)[0])
                else:
                    total += int((np.asarray(ax.preferences(ctx)) > 0).sum())
            if total == 0:
                missing.append(f"{name}({variant})")
    assert not missing, f"no instances on the demo collection: {missing}"


def test_each_call_returns_its_own_dataset() -> None:
    """A caller that edits its demo dataset must not change what the next caller gets."""
    first = demo_dataset()
    qid = next(iter(first.queries))
    first.candidates[qid] = []
    first.qrels[qid]["not-a-doc"] = 1
    first.documents.pop(next(iter(first.documents)))
    again = demo_dataset()
    assert again.candidates[qid] and "not-a-doc" not in again.qrels[qid]
    assert len(again.documents) == len(first.documents) + 1


def test_every_lazy_name_of_the_data_package_resolves() -> None:
    import axiomatic.data as data

    for name in data.__all__:
        assert getattr(data, name) is not None, name
    assert issubclass(data.DataWarning, UserWarning) and issubclass(data.ParseError, ValueError)
