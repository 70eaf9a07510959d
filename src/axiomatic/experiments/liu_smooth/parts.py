"""Liu et al. (smooth cross-lingual retrieval): the units of every part (which models each
table and figure trains), from the plan alone."""

from __future__ import annotations

from typing import Any

from axiomatic.experiments.engine import Runner
from axiomatic.experiments.liu_smooth.plan import DEFAULT_NR, LiuPlan, Unit
from axiomatic.training.smooth import validate_thresholds


class LiuParts(Runner):
    """Base of :class:`~axiomatic.experiments.liu_smooth.run.LiuRun`: the units of each part
    (Table 2, Table 3, Figures 4 and 5, stability, NFCorpus, Sasaki)."""

    plan: LiuPlan

    def _base(self, setting: str, lang: str, **kw: Any) -> Unit:
        p = self.plan
        args: dict[str, Any] = {
            "setting": setting,
            "language": lang,
            "thresholds": tuple(validate_thresholds(p.thresholds)),
            "nr": DEFAULT_NR.get(setting, 40),
            "eps": p.eps,
            "epochs": p.epochs,
            "lr": p.lr,
            "batch_size": p.batch_size,
            "clip": p.grad_clip,
        }
        args.update(kw)
        return Unit(**args)

    def table2_units(self) -> list[Unit]:
        p = self.plan
        return [
            self._base(p.setting, lang, loss=loss, seed=s)
            for lang in p.languages
            for loss in p.losses
            for s in p.seeds
        ]

    def table3_units(self) -> list[Unit]:
        p = self.plan
        out = []
        for lang in p.encoder_languages:
            for enc in p.encoders:
                kw = {
                    k: v
                    for k, v in p.encoder_settings.get(enc, {}).items()
                    if k in ("lr", "batch_size", "epochs")
                }
                out += [self._base(p.setting, lang, encoder=enc, seed=s, **kw) for s in p.seeds]
        return out

    def fig4_units(self) -> list[Unit]:
        p = self.plan
        ep = p.sweep_epochs or p.epochs
        return [
            self._base(
                p.setting,
                p.sweep_language,
                eps=e,
                thresholds=tuple(validate_thresholds(th)),
                epochs=ep,
            )
            for e in p.eps_grid
            for th in p.threshold_grid
        ]

    def fig5_units(self) -> list[Unit]:
        p = self.plan
        ep = p.nr_epochs or p.epochs
        return [self._base(p.setting, p.sweep_language, nr=n, epochs=ep) for n in p.nr_grid]

    def stability_units(self) -> list[Unit]:
        p = self.plan
        return [
            self._base(
                p.setting,
                p.sweep_language,
                eps=e,
                clip=c,
                seed=s,
                epochs=p.stability_epochs,
                lr=p.stability_lr,
            )
            for e in p.stability_eps
            for c in p.stability_clip
            for s in p.stability_seeds
        ]

    def nfcorpus_units(self) -> list[Unit]:
        p = self.plan
        th = tuple(validate_thresholds(p.nfcorpus_thresholds))
        return [
            self._base(
                "nfcorpus", "en", loss=loss, thresholds=th, epochs=p.nfcorpus_epochs or p.epochs
            )
            for loss in p.losses
        ]

    def sasaki_units(self) -> list[Unit]:
        p = self.plan
        from axiomatic.experiments.clir_data import sasaki_splits

        lang = sasaki_splits(p.sasaki)["train"].doc_language or "xx" if p.sasaki else "xx"
        return [
            self._base("sasaki", lang, loss=loss, epochs=p.sasaki_epochs or p.epochs)
            for loss in ("sosl", "mse")
        ]


__all__ = ["LiuParts"]
