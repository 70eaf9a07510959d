"""Liu et al. (smooth cross-lingual retrieval): data and the units' computation (the units of
each part: :mod:`.parts`)."""

from __future__ import annotations

import math
import time
from dataclasses import asdict
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from axiomatic.data.records import Dataset
from axiomatic.evaluate.clir_metrics import (
    evaluate_clir_per_query,
    relevance_levels,
)
from axiomatic.experiments.common import read_json, write_json
from axiomatic.experiments.liu_smooth.parts import LiuParts
from axiomatic.experiments.liu_smooth.plan import (
    DEFAULT_NR,
    EMBEDDING_SETTINGS,
    PARTS,
    UNIT_CODE,
    LiuPlan,
    Unit,
    _fmt,
)
from axiomatic.experiments.schedule import run_runner_units
from axiomatic.experiments.units import (
    UnitRecord,
    dataset_fingerprint,
)
from axiomatic.training.smooth import validate_thresholds


class LiuRun(LiuParts):
    """The computing half of :class:`~axiomatic.experiments.liu_smooth.report.LiuSmooth`:
    data, embeddings, the units of every part and :meth:`compute`."""

    unit_code = UNIT_CODE
    plan_class = LiuPlan
    plan: LiuPlan

    @cached_property
    def _data(self) -> dict[tuple[str, str, int], dict[str, Dataset]]:
        return {}  # (setting, language, NR documents) -> splits, loaded once

    @cached_property
    def _emb(self) -> dict[tuple[str, str], tuple[Any, Any, Any]]:
        return {}  # (setting, language) -> vocabulary and embeddings, built once

    @classmethod
    def check_plan(cls, plan: Any) -> None:
        validate_thresholds(plan.thresholds)
        from axiomatic.data.readers.xquad import check_nr_pool

        check_nr_pool(plan.nr_pool)  # before any training (the old "all" is a test-set leak)

    @classmethod
    def plan_lines(cls, plan: Any, out: Path) -> list[str]:
        lp: LiuPlan = plan
        r = cls(lp, out, lambda _m: None)
        n = sum(
            len(getattr(r, f"{part}_units")())
            for part in ("table2", "table3", "fig4", "fig5", "stability", "nfcorpus")
            if part in lp.parts or (part == "table2" and "fig3" in lp.parts)
        )
        return [
            f"  parts {', '.join(lp.parts)}; languages {', '.join(lp.languages)}",
            f"  training runs: {n}; time: docs/clir.md (Table 2 alone ~3.5 h)",
        ]

    # ------------------------------------------------------------------ data
    def data(self, setting: str, lang: str, nr: int | None = None) -> dict[str, Dataset]:
        nr = DEFAULT_NR.get(setting, 40) if nr is None else nr
        key = (setting, lang, nr)
        if key in self._data:
            return self._data[key]
        p = self.plan
        if setting == "xquad":
            from axiomatic.experiments.clir_data import xquad_graded

            out = {
                s: xquad_graded(p.data_root, p.query_language, lang, s, nr, p.nr_pool)
                for s in ("train", "dev", "test")
            }
        elif setting == "synthetic":
            from axiomatic.experiments.clir_data import synthetic_graded_clir

            out = synthetic_graded_clir(n_negatives=nr, seed=0)
        elif setting == "nfcorpus":
            from axiomatic.experiments.clir_data import nfcorpus_graded

            out = {
                "train": nfcorpus_graded(
                    p.data_root, "train", p.nfcorpus_depth, p.nfcorpus_train_queries
                ),
                "dev": nfcorpus_graded(p.data_root, "dev", p.nfcorpus_depth, None),
                "test": nfcorpus_graded(p.data_root, "test", p.nfcorpus_depth, None),
            }
        elif setting == "sasaki":
            from axiomatic.experiments.clir_data import sasaki_splits

            if not p.sasaki:
                raise ValueError("the sasaki part needs a folder: --sasaki DIR")
            out = sasaki_splits(p.sasaki)
        else:
            raise ValueError(f"unknown setting {setting!r}")
        self._data[key] = out
        return out

    def _query_side_texts(self, setting: str, train: Dataset) -> list[str]:
        texts = [q.text for q in train.queries.values()]
        if setting == "xquad":
            from axiomatic.experiments.clir_data import english_paragraphs

            texts += english_paragraphs(self.plan.data_root)
        elif setting == "nfcorpus":
            texts += [d.text for d in train.documents.values()]
        return texts

    def vocab_and_embeddings(self, setting: str, lang: str) -> tuple[Any, Any, Any]:
        """Vocabulary (train queries + all documents; the document language's analyzer) and the
        initial query / document embedding tables (word2vec trained per language, or MiniLM)."""
        key = (setting, lang)
        if key in self._emb:
            return self._emb[key]
        from axiomatic.models.embeddings import make_embeddings, train_word2vec
        from axiomatic.models.vocab import Vocabulary, model_analyzer

        p = self.plan
        d = self.data(setting, lang)
        train = d["train"]
        doc_texts = [x.text for x in train.documents.values()]
        qtexts = [q.text for q in train.queries.values()]
        analyzer = model_analyzer(train.doc_language or "en")
        vocab = Vocabulary.build(qtexts + doc_texts, analyzer, max_size=60_000)
        dim = p.embedding_dim
        if p.embeddings == "word2vec":
            ep = p.word2vec_epochs
            q_texts = self._query_side_texts(setting, train)
            q_emb = train_word2vec(q_texts, vocab, dim, epochs=ep, sample=0.0)
            d_emb = train_word2vec(doc_texts, vocab, dim, epochs=ep, sample=0.0, seed=1)
        else:
            q_emb = make_embeddings(p.embeddings, vocab, dim, seed=0)
            d_emb = q_emb
        self._emb[key] = (vocab, q_emb, d_emb)
        return self._emb[key]

    # ------------------------------------------------------------------ one run
    def _train_config(self, u: Unit) -> Any:
        """The trainer configuration of a unit (one dev evaluation and checkpoint per epoch:
        needs the unit's training data)."""
        from axiomatic.training.config import TrainConfig

        p = self.plan
        data = self.data(u.setting, u.language, u.nr)
        n_points = sum(len(data["train"].candidate_ids(q)) for q in data["train"].queries)
        per_epoch = max(1, math.ceil(n_points / u.batch_size))
        spec = self._loss_spec(u)
        return TrainConfig(
            dataset=data["train"].name,
            model="clir-dual",
            model_config={"encoder": u.encoder, "eps": u.eps, "embedding_dim": p.embedding_dim},
            loss="graded",
            graded_loss=spec,
            lr=u.lr,
            # the paper's DSSM-CNN / DSSM-LSTM: initial lr 0.001, exponential decay 0.95 (read
            # as per epoch); the average towers train at a fixed lr
            lr_schedule="exponential(gamma=0.95)" if u.encoder in ("cnn", "lstm") else "constant",
            batch_size=u.batch_size,
            epochs=u.epochs,
            eval_every=per_epoch,
            checkpoint_every=per_epoch,
            patience=0,
            candidate_depth=10_000,
            dev_depth=10_000,
            grad_clip=u.clip if u.clip > 0 else None,
            log_grad_norm=True,
            seed=u.seed,
        )

    def unit_settings(self, u: Unit) -> dict[str, Any]:
        """Every plan setting that determines a unit's result, without loading data (the
        folder name holds only some of them; a report compares these)."""
        p = self.plan
        return self.record_settings(
            *EMBEDDING_SETTINGS,
            **asdict(u),
            loss_spec=self._loss_spec(u),
            word2vec_epochs=p.word2vec_epochs if p.embeddings == "word2vec" else None,
            **self._data_settings(u.setting),
        )

    def _data_settings(self, setting: str) -> dict[str, Any]:
        p = self.plan
        if setting == "xquad":
            return {"query_language": p.query_language, "nr_pool": p.nr_pool}
        if setting == "nfcorpus":
            return {
                "nfcorpus_depth": p.nfcorpus_depth,
                "nfcorpus_train_queries": p.nfcorpus_train_queries,
            }
        return {}

    def _data_inputs(self, setting: str, lang: str, nr: int | None = None) -> dict[str, str]:
        """Content hashes of a unit's train / dev / test data (and of a Sasaki folder)."""
        data = self.data(setting, lang, nr)
        return {f"{s} data": dataset_fingerprint(data[s]) for s in ("train", "dev", "test")}

    def unit_record(self, u: Unit) -> UnitRecord:
        """The unit's settings, its trainer configuration and the fingerprints of its data."""
        settings = self.unit_settings(u)
        settings["train_config"] = self._train_config(u).to_dict()
        return UnitRecord(settings, self._data_inputs(u.setting, u.language, u.nr))

    def unit(self, u: Unit, train_scores: bool = False) -> dict[str, Any]:
        import torch

        from axiomatic.models.clir import SmoothDualEncoder
        from axiomatic.models.scoring import score_candidates
        from axiomatic.training.trainer import NonFiniteLossError, Trainer

        p = self.plan
        folder = self.out_dir / "runs" / u.path()
        done = folder / "test_metrics.json"
        state = self.store.enter(folder, self.unit_record(u))
        if state == "done" and (not train_scores or (folder / "train_scores.json").exists()):
            return read_json(done)
        if p.threads:
            torch.set_num_threads(p.threads)
        t0 = time.perf_counter()
        data = self.data(u.setting, u.language, u.nr)
        vocab, q_emb, d_emb = self.vocab_and_embeddings(u.setting, u.language)
        spec = self._loss_spec(u)
        cfg = self._train_config(u)
        torch.manual_seed(u.seed)
        model = SmoothDualEncoder(
            vocab,
            embedding_dim=p.embedding_dim,
            max_query_len=p.max_query_len,
            max_doc_len=p.max_doc_len,
            encoder=u.encoder,
            eps=u.eps,
            shared_embeddings=p.shared_embeddings,
            embeddings=q_emb,
            doc_embeddings=d_emb,
        )
        model.build_info = {"seed": u.seed, "embeddings": p.embeddings}
        out: dict[str, Any] = {"unit": asdict(u), "embeddings": p.embeddings, "loss_spec": spec}
        try:
            result = Trainer(model, cfg, folder, data["train"], data["dev"]).fit(resume=True)
            out.update(result.to_dict())
            out["diverged"] = False
        except NonFiniteLossError as exc:
            out.update({"diverged": True, "message": str(exc)})
        if not out["diverged"]:
            mr, r = relevance_levels(*(d.qrels for d in data.values()))  # top grade = MR
            test_run = score_candidates(model, data["test"])
            dev_run = score_candidates(model, data["dev"])
            per_q = evaluate_clir_per_query(test_run, data["test"].qrels or {}, mr, r)
            out["test_per_query"] = per_q
            out["test"] = {k: float(np.mean(list(v.values()))) for k, v in per_q.items()}
            dev_q = evaluate_clir_per_query(dev_run, data["dev"].qrels or {}, mr, r)
            out["dev"] = {k: float(np.mean(list(v.values()))) for k, v in dev_q.items()}
            if train_scores:
                self._train_scores(model, data["train"], folder, u.seed)
        out["seconds_total"] = round(time.perf_counter() - t0, 2)
        write_json(done, out)
        test = out.get("test", {})
        self.echo(
            f"[liu-smooth] {u.setting}/{u.language} {u.encoder} {u.loss} eps={_fmt(u.eps)} "
            f"th={list(u.thresholds)} nr={u.nr} clip={_fmt(u.clip)} seed={u.seed}: "
            f"MRRmr={test.get('MRRmr', float('nan')):.4f} NDCG@5={test.get('NDCG@5', float('nan')):.4f}"
            f"{' DIVERGED' if out['diverged'] else ''} ({out['seconds_total']:.0f}s)"
        )
        return out

    def zero_shot(self, lang: str) -> dict[str, Any]:
        """Test measures of the untrained model (the initial embeddings, seed 0): the floor that
        training has to beat."""
        import torch

        from axiomatic.models.clir import SmoothDualEncoder
        from axiomatic.models.scoring import score_candidates

        p = self.plan
        f = self._zero_shot_file(lang)
        record = UnitRecord(self._zero_shot_settings(lang), self._data_inputs(p.setting, lang))
        kw: dict[str, Any] = {"done": f.name, "record_name": f.stem + ".unit.json"}
        if self.store.enter(f.parent, record, owns_folder=False, **kw) == "done":
            return read_json(f)
        if p.threads:
            torch.set_num_threads(p.threads)
        data = self.data(p.setting, lang)
        vocab, q_emb, d_emb = self.vocab_and_embeddings(p.setting, lang)
        torch.manual_seed(0)
        model = SmoothDualEncoder(
            vocab,
            embedding_dim=p.embedding_dim,
            max_query_len=p.max_query_len,
            max_doc_len=p.max_doc_len,
            eps=p.eps,
            shared_embeddings=p.shared_embeddings,
            embeddings=q_emb,
            doc_embeddings=d_emb,
        )
        run = score_candidates(model, data["test"])
        per_q = evaluate_clir_per_query(run, data["test"].qrels or {})
        out = {
            "unit": {"language": lang, "seed": 0},
            "test_per_query": per_q,
            "test": {k: float(np.mean(list(v.values()))) for k, v in per_q.items()},
        }
        write_json(f, out)
        return out

    def _zero_shot_file(self, lang: str) -> Path:
        p = self.plan
        return (
            self.out_dir
            / "runs"
            / p.setting
            / lang
            / f"zero_shot_{p.embeddings}_eps{_fmt(p.eps)}.json"
        )

    def _zero_shot_settings(self, lang: str) -> dict[str, Any]:
        p = self.plan
        return self.record_settings(
            *("setting", "eps", *EMBEDDING_SETTINGS),
            part="zero-shot",
            language=lang,
            seed=0,
            word2vec_epochs=p.word2vec_epochs if p.embeddings == "word2vec" else None,
            **self._data_settings(p.setting),
        )

    def _loss_spec(self, u: Unit) -> str:
        th = ",".join(_fmt(t) for t in u.thresholds)
        return f"{u.loss}(thresholds={th})"

    def _train_scores(self, model: Any, train: Dataset, folder: Path, seed: int) -> None:
        from axiomatic.training.smooth import graded_points

        pts = graded_points(train)
        rng = np.random.default_rng([seed, 3])
        pick = rng.choice(len(pts), size=min(4000, len(pts)), replace=False)
        sel = [pts[int(i)] for i in pick]
        scores = model.score_pairs(
            [train.queries[x.query_id].text for x in sel],
            [train.documents[x.doc_hi].text for x in sel],
            batch_size=256,
        ).tolist()
        write_json(
            folder / "train_scores.json",
            {"scores": scores, "grades": [int(x.label_hi) for x in sel]},
        )

    # ------------------------------------------------------------------ run
    def compute(self) -> None:
        p = self.plan
        unknown = sorted(set(p.parts) - set(PARTS))
        if unknown:
            raise ValueError(
                f"unknown liu-smooth part(s) {unknown}; expected some of {list(PARTS)}"
            )
        for msg in self.unreachable().values():  # plan time: before any unit trains
            import warnings

            warnings.warn(f"liu-smooth plan: {msg}", UserWarning, stacklevel=2)
        if p.threads:  # as in every unit (the machine record of results.json names them)
            import torch

            torch.set_num_threads(p.threads)
        parts = set(p.parts)
        first: list[tuple[Unit, bool]] = []  # (unit, with train scores for Figure 3)
        if "table2" in parts or "fig3" in parts:
            for u in self.table2_units():
                fig3 = "fig3" in parts and u.language == p.fig3_language and u.seed == p.seeds[0]
                if "table2" in parts or fig3:
                    first.append((u, fig3))
        todo: list[Unit] = []
        if "table3" in parts:
            todo += self.table3_units()
        if "fig4" in parts:
            todo += self.fig4_units()
        if "fig5" in parts:
            todo += self.fig5_units()
        if "stability" in parts:
            todo += self.stability_units()
        if "nfcorpus" in parts:
            todo += self.nfcorpus_units()
        if "sasaki" in parts and p.sasaki:
            todo += self.sasaki_units()
        # every unit is compared with its record before anything runs: a unit computed with
        # other settings or data is refused here (or cleared with overwrite)
        zero_langs = list(p.languages) if "table2" in parts else []
        for lang in zero_langs:
            self.store.check(
                self._zero_shot_file(lang).parent,
                UnitRecord(self._zero_shot_settings(lang), self._data_inputs(p.setting, lang)),
                done=self._zero_shot_file(lang).name,
                record_name=self._zero_shot_file(lang).stem + ".unit.json",
                owns_folder=False,
            )
        for u in dict.fromkeys([*(u for u, _ in first), *todo]):
            self.store.check(self.out_dir / "runs" / u.path(), self.unit_record(u))
        self.write_config()
        # no unit needs another's result (each builds its data and embeddings itself, seeded):
        # they may run in any order, on Dask too; a unit planned twice (e.g. Figure 4's eps = 1
        # unit is Figure 5's nr = 8 one) runs once, with train scores if either asks for them
        wanted: dict[Unit, bool] = {}
        for u, fig3 in [*first, *((u, False) for u in todo)]:
            wanted[u] = wanted.get(u, False) or fig3
        items: list[tuple[Any, ...]] = [("zero-shot", lang) for lang in zero_langs]
        items += [("unit", u, fig3) for u, fig3 in wanted.items()]
        run_runner_units(self, items, "_run_item", label=self._item_label, what="liu-smooth unit")

    def _run_item(self, item: tuple[Any, ...]) -> dict[str, Any]:
        """One scheduled item: ``("zero-shot", language)`` or ``("unit", Unit, train_scores)``."""
        if item[0] == "zero-shot":
            return self.zero_shot(item[1])
        return self.unit(item[1], train_scores=item[2])

    def _item_label(self, item: tuple[Any, ...]) -> str:
        if item[0] == "zero-shot":
            f = self._zero_shot_file(item[1])
        else:
            f = self.out_dir / "runs" / item[1].path()
        return f.relative_to(self.out_dir).as_posix()

    def unreachable(self) -> dict[tuple[float, tuple[float, ...]], str]:
        """``(eps, thresholds)`` of the planned units whose thresholds no score can reach (tanh
        towers of dimension ``embedding_dim``: every score below p/(sqrt(p)+eps)^2) -> the
        message naming the bound."""
        from axiomatic.training.smooth import tanh_threshold_problem

        p = self.plan
        by_part = {
            "table2": self.table2_units,
            "fig3": self.table2_units,
            "table3": self.table3_units,
            "fig4": self.fig4_units,
            "fig5": self.fig5_units,
            "stability": self.stability_units,
            "nfcorpus": self.nfcorpus_units,
        }
        out: dict[tuple[float, tuple[float, ...]], str] = {}
        for part in p.parts:
            for u in by_part[part]() if part in by_part else []:
                key = (u.eps, tuple(u.thresholds))
                msg = tanh_threshold_problem(u.thresholds, p.embedding_dim, u.eps)
                if msg and key not in out:
                    out[key] = msg
        return out
