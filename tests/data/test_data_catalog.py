"""Catalog: names, data-root resolution, errors with suggestions, caching, irds adapter."""

from __future__ import annotations

from pathlib import Path

import pytest

from axiomatic.data import catalog
from axiomatic.data.catalog import dataset_names, list_datasets, load_dataset, resolve_data_root
from axiomatic.data.errors import DatasetUnavailableError, UnknownDatasetError


def test_required_names_exist() -> None:
    names = set(dataset_names())
    for n in [
        "demo",
        "demo/train",
        "demo/test",
        "msmarco-dev-top20/train",
        "msmarco-dev-top20/test",
        "msmarco-dev-top20-graded/test",
        "trec-dl-2019/bm25",
        "trec-dl-2019/splade-pp",
        "trec-dl-2019/tasb",
        "trec-dl-2019/ada2",
        "trec-dl-2019/repllama",
        "trec-dl-2019/bm25-rm3",
        "trec-dl-2019/union",
        "trec-dl-2021/bm25",
        "scifact/train",
        "scifact/test",
        "nfcorpus/train",
        "nfcorpus/dev",
        "nfcorpus/test",
        "cranfield",
        "cisi",
        "cacm",
        "adi",
        "medline",
        "vaswani",
        "cystic-fibrosis",
        "noveleval",
        "trec-rag24",
        "wikiqa/train",
        "wikipassageqa/dev",
        "xquad-clir/en-de/test",
        "xquad-clir/zh-en/train",
        "qbqtc/train",
        "qbqtc/dev",
        "qbqtc/test",
        "qbqtc-pointwise/dev",
        "sasaki-sw/train",
    ]:
        assert n in names, n
    assert len(names) == len(dataset_names())  # unique


def test_unknown_name_suggests_close_matches() -> None:
    with pytest.raises(
        UnknownDatasetError, match=r"^unknown dataset 'scifact/tset' \(did you mean 'scifact/test'"
    ):
        load_dataset("scifact/tset")
    with pytest.raises(ValueError):  # also a ValueError for callers catching broadly
        load_dataset("no-such-thing")


def test_missing_data_names_the_folder(tmp_path: Path) -> None:
    with pytest.raises(DatasetUnavailableError) as exc:
        load_dataset("cranfield", tmp_path)
    assert str(tmp_path / "cranfield") in str(exc.value)
    assert "AXIOMATIC_DATA" in str(exc.value)
    assert isinstance(exc.value, FileNotFoundError)


def test_demo_always_available(tmp_path: Path) -> None:
    infos = {i.name: i for i in list_datasets(tmp_path)}
    assert infos["demo"].available and not infos["cranfield"].available
    assert infos["demo/test"].counts()["queries"] == 3
    a, b = load_dataset("demo", tmp_path), load_dataset("demo", tmp_path)
    assert a is not b and a.documents is b.documents  # parsed once, a copy per caller


def test_list_pattern(tmp_path: Path) -> None:
    names = [i.name for i in list_datasets(tmp_path, pattern="xquad-clir/en-*/test")]
    assert len(names) == 12 and all(n.endswith("/test") for n in names)


def test_resolve_data_root_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AXIOMATIC_DATA", str(tmp_path / "env"))
    assert resolve_data_root(tmp_path / "arg") == tmp_path / "arg"
    assert resolve_data_root() == tmp_path / "env"
    monkeypatch.delenv("AXIOMATIC_DATA")
    (tmp_path / "shared" / "data").mkdir(parents=True)
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    monkeypatch.setattr(catalog, "__file__", str(tmp_path / "nowhere" / "catalog.py"))
    assert resolve_data_root() == (tmp_path / "shared" / "data").resolve()


def test_wikipassageqa_user_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    raw = tmp_path / "wikipassageqa" / "raw"
    raw.mkdir(parents=True)
    (raw / "dev.tsv").write_text(
        "QID\tQuestion\tDocumentID\tDocumentName\tRelevantPassages\n1\tWhat?\t5\tX.html\t0\n",
        encoding="utf-8",
    )
    with pytest.raises(DatasetUnavailableError, match=r"document_passages\.json"):
        load_dataset("wikipassageqa/dev", tmp_path)
    pj = tmp_path / "passages.json"
    pj.write_text(json.dumps({"5": {"0": "yes", "1": "no"}}), encoding="utf-8")
    monkeypatch.setenv("AXIOMATIC_WIKIPASSAGEQA_PASSAGES", str(pj))
    catalog.clear_cache()
    ds = load_dataset("wikipassageqa/dev", tmp_path)
    assert ds.candidates == {"1": ["5_0", "5_1"]} and ds.qrels == {"1": {"5_0": 1}}


# ------------------------------------------------------------------------------- ir_datasets
def test_irds_local_files(tmp_path: Path) -> None:
    import ir_datasets
    from ir_datasets.formats import TrecQrels, TsvDocs, TsvQueries
    from ir_datasets.util import LocalDownload

    from axiomatic.data.irds import load_irds

    docs = tmp_path / "docs.tsv"
    docs.write_text("d1\tfirst doc\nd2\tsecond doc\n", encoding="utf-8")
    queries = tmp_path / "queries.tsv"
    queries.write_text("q1\tfirst\n", encoding="utf-8")
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\n", encoding="utf-8")
    name = f"axiomatic-test-{tmp_path.name}"
    ir_datasets.registry.register(
        name,
        ir_datasets.Dataset(
            TsvDocs(LocalDownload(docs)),
            TsvQueries(LocalDownload(queries)),
            TrecQrels(LocalDownload(qrels), {1: "relevant"}),
        ),
    )
    ds = load_irds(name)
    assert ds.name == f"irds:{name}" and ds.candidates is None
    assert ds.documents["d2"].text == "second doc"
    assert ds.queries["q1"].text == "first" and ds.qrels == {"q1": {"d1": 1}}

    missing = f"{name}-missing"
    ir_datasets.registry.register(
        missing,
        ir_datasets.Dataset(
            TsvDocs(LocalDownload(tmp_path / "absent.tsv")), TsvQueries(LocalDownload(queries))
        ),
    )
    with pytest.raises(DatasetUnavailableError, match=r"absent\.tsv"):
        load_irds(missing)


def test_irds_unknown_id() -> None:
    with pytest.raises(UnknownDatasetError, match="did you mean 'vaswani'"):
        load_dataset("irds:vaswanii")


def test_irds_never_downloads(tmp_path: Path) -> None:
    """A registered dataset whose file must come from the network fails clearly, offline."""
    import ir_datasets
    from ir_datasets.formats import TsvDocs, TsvQueries
    from ir_datasets.util import Download, RequestsDownload

    from axiomatic.data.irds import load_irds

    remote = Download(
        [RequestsDownload("http://example.invalid/q.tsv")],
        cache_path=str(tmp_path / "cache" / "q.tsv"),
    )
    name = f"axiomatic-remote-{tmp_path.name}"
    ir_datasets.registry.register(name, ir_datasets.Dataset(TsvDocs(remote), TsvQueries(remote)))
    with pytest.raises(DatasetUnavailableError, match="never downloads"):
        load_irds(name)
    assert not (tmp_path / "cache" / "q.tsv").exists()
