"""Cross-lingual sets: XQuAD graded CLIR (Sasaki et al. 2018 construction) and the Sasaki
et al. 2018 en->sw sample."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from axiomatic.data.collections._common import cached, pairwise_dataset, spec_adder
from axiomatic.data.records import Dataset, Document, Query


def _xquad_path(root: Path, lang: str) -> Path:
    return root / "xquad-clir" / "raw" / f"xquad.{lang}.json"


@cached
def _xquad(root: Path, lang: str) -> Any:
    from axiomatic.data.readers.xquad import read_xquad

    return read_xquad(_xquad_path(root, lang))


XQUAD_NEGATIVES = 40
XQUAD_SEED = 0


def load_xquad_clir(
    root: Path,
    qlang: str,
    dlang: str,
    split: str,
    n_negatives: int = XQUAD_NEGATIVES,
    nr_pool: str = "split",
) -> Dataset:
    """XQuAD graded CLIR (Sasaki et al. 2018 construction): questions in ``qlang``, paragraphs
    in ``dlang``; grade 2 = source paragraph, 1 = same-article paragraphs, 0 = 40 sampled
    paragraphs of other articles **of the same split** (seed 0; dev/test have exactly 40). Split
    by article (English titles sorted; see
    :func:`axiomatic.data.readers.xquad.xquad_article_splits`). rel_threshold=2.

    The catalog's ``xquad-clir/<q>-<d>/<split>`` are the defaults; ``n_negatives`` and
    ``nr_pool`` (``"split"``, canonical, or ``"all-leaky"``: NR from every other article, which
    puts the dev/test paragraphs into the training candidates; see
    :func:`axiomatic.data.readers.xquad.graded_candidates`) give the named variants
    ``...@nr<n>`` / ``...@nr<n>-all-leaky``. The ``qlang`` / ``dlang`` files must be id-aligned
    with ``xquad.en.json`` (else :class:`~axiomatic.data.errors.ParseError`)."""
    from axiomatic.data.readers.xquad import (
        check_nr_pool,
        check_xquad_aligned,
        graded_candidates,
        xquad_article_splits,
    )

    check_nr_pool(nr_pool)
    ref = _xquad(root, "en")
    q = _xquad(root, qlang)
    d = _xquad(root, dlang)
    for lang, other in ((qlang, q), (dlang, d)):
        check_xquad_aligned(ref, other, _xquad_path(root, "en"), _xquad_path(root, lang))
    splits = xquad_article_splits(ref.titles)
    qids = [x for x in ref.questions if splits[ref.article_of[ref.paragraph_of[x]]] == split]
    candidates, qrels = graded_candidates(
        ref, qids, n_negatives, XQUAD_SEED, split_of=splits, nr_pool=nr_pool
    )
    name = f"xquad-clir/{qlang}-{dlang}/{split}"
    if n_negatives != XQUAD_NEGATIVES or nr_pool != "split":
        name += f"@nr{n_negatives}" + ("-all-leaky" if nr_pool == "all-leaky" else "")
    pool = "other articles of the same split" if nr_pool == "split" else "ALL other articles"
    return Dataset(
        name=name,
        queries={x: Query(x, q.questions[x]) for x in qids},
        documents={k: Document(k, v) for k, v in d.paragraphs.items()},
        qrels=qrels,
        candidates=candidates,
        split=split,
        language=qlang,
        doc_language=dlang,
        rel_threshold=2,
        description=f"XQuAD graded CLIR {qlang}->{dlang} {split} (2 = source paragraph, "
        f"1 = same article, 0 = {pool})",
        metadata={
            "source": "xquad-clir",
            "negatives": n_negatives,
            "seed": XQUAD_SEED,
            "nr_pool": nr_pool,
        },
    )


def load_sasaki(root: Path, split: str) -> Dataset:
    from axiomatic.data.readers.sasaki import read_sasaki_clir

    fname = "train_sw_l100.txt" if split == "train" else "test1_sw_l100.txt"
    s = read_sasaki_clir(root / "wikiclir-sasaki2018-sw-sample" / "raw" / fname)
    return pairwise_dataset(
        f"sasaki-sw/{split}",
        s,
        split,
        "en",
        "sw",
        2,
        f"Sasaki et al. 2018 CLIR sample en->sw {split} (2 = same article)",
        "wikiclir-sasaki2018-sw-sample",
    )


def catalog_specs() -> list[dict[str, Any]]:
    """``_Entry`` keyword dicts of this family (order = listing order)."""
    from axiomatic.data.readers.xquad import XQUAD_LANGUAGES

    specs: list[dict[str, Any]] = []
    add = spec_adder(specs)
    for split in ("train", "test"):
        add(
            f"sasaki-sw/{split}",
            f"Sasaki et al. 2018 CLIR sample en->sw {split}",
            "wikiclir-sasaki2018-sw-sample",
            partial(load_sasaki, split=split),
            (f"raw/{'train_sw_l100' if split == 'train' else 'test1_sw_l100'}.txt",),
        )
    for ql in XQUAD_LANGUAGES:
        for dl in XQUAD_LANGUAGES:
            for split in ("train", "dev", "test"):
                add(
                    f"xquad-clir/{ql}-{dl}/{split}",
                    f"XQuAD graded CLIR {ql}->{dl} {split} (2/1/0, NR from the same split)",
                    "xquad-clir",
                    partial(load_xquad_clir, qlang=ql, dlang=dl, split=split),
                    ("raw/xquad.en.json", f"raw/xquad.{ql}.json", f"raw/xquad.{dl}.json"),
                )
    return specs
