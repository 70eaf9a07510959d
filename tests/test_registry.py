"""The one registry helper (axiomatic._registry): lookup forms, aliases, the one refusal."""

from __future__ import annotations

import pytest

from axiomatic._registry import Registry, UnknownNameError, registry_key


def _zoo() -> Registry[str]:
    return Registry(
        "model",
        {"knrm": "a", "conv-knrm": "b", "arc-i": "axiomatic._suggest:suggest"},
        aliases={"cknrm": "conv-knrm"},
    )


@pytest.mark.parametrize(
    "given, canonical",
    [
        ("knrm", "knrm"),
        (" KNRM ", "knrm"),
        ("Conv_KNRM", "conv-knrm"),  # case and '_' forgiven
        ("convknrm", "conv-knrm"),  # hyphens dropped
        ("arci", "arc-i"),
        ("CKNRM", "conv-knrm"),  # an alias
        ("c-knrm", "conv-knrm"),  # an alias, hyphenated
    ],
)
def test_resolve_forms(given: str, canonical: str) -> None:
    zoo = _zoo()
    assert zoo.resolve(given) == canonical
    assert given in zoo


def test_unknown_name_is_one_line_with_canonical_suggestions() -> None:
    zoo = _zoo()
    with pytest.raises(UnknownNameError) as err:
        zoo.resolve("cknr")
    # the close alias 'cknrm' is shown as the name it stands for, once
    assert str(err.value) == (
        "unknown model 'cknr' (did you mean 'conv-knrm' or 'knrm'?); expected one of "
        "knrm, conv-knrm, arc-i"
    )
    assert isinstance(err.value, ValueError) and isinstance(err.value, KeyError)
    assert "\n" not in str(err.value)
    with pytest.raises(UnknownNameError, match=r"^unknown model 'zzz'; expected one of"):
        zoo.resolve("zzz")
    assert "zzz" not in zoo and zoo.find("zzz") is None


def test_entries_lazy_load_and_listing() -> None:
    from axiomatic._suggest import suggest

    zoo = _zoo()
    assert zoo.get("ARC_I") == "axiomatic._suggest:suggest"
    assert zoo.load("arc-i") is suggest
    assert zoo.load("knrm") == "a"  # not a module path: the entry itself
    assert zoo.names() == ["knrm", "conv-knrm", "arc-i"] == list(zoo)
    assert len(zoo) == 3 and zoo.aliases() == {"cknrm": "conv-knrm"}


def test_registration_is_checked() -> None:
    zoo = _zoo()
    with pytest.raises(ValueError, match="not canonical: write it as 'my-model'"):
        zoo.register("My_Model", "x")
    with pytest.raises(ValueError, match="registered twice"):
        zoo.register("knrm", "x")
    with pytest.raises(ValueError, match="names no registered model"):
        zoo.alias("k", "nothing")
    with pytest.raises(ValueError, match="alias 'knrm' is taken"):
        zoo.alias("knrm", "conv-knrm")
    assert registry_key(" Conv_KNRM ") == "conv-knrm"


def test_package_registries_use_it() -> None:
    """Models, graded losses and experiments are Registry instances with the one refusal."""
    from axiomatic.experiments.engine import REGISTRY
    from axiomatic.models.io import MODELS
    from axiomatic.rankers.registry import RANKERS
    from axiomatic.training.config import LOSSES, OPTIMIZERS, TrainConfig
    from axiomatic.training.smooth import GRADED_LOSSES

    for reg in (MODELS, RANKERS, LOSSES, OPTIMIZERS, GRADED_LOSSES, REGISTRY):
        assert isinstance(reg, Registry), reg
    assert RANKERS.resolve("CE") == "cross-encoder" and RANKERS.resolve("TF_IDF") == "tfidf"
    assert TrainConfig(loss="Hinge", optimizer="AdamW").to_dict()["loss"] == "hinge"
    assert REGISTRY.resolve("Liu_Smooth") == "liu-smooth"
    with pytest.raises(ValueError, match=r"^unknown loss 'hnge' \(did you mean 'hinge'\?\)"):
        TrainConfig(loss="hnge")
    with pytest.raises(ValueError, match=r"unknown model 'knmr' \(did you mean 'knrm'"):
        MODELS.resolve("knmr")
    assert GRADED_LOSSES.resolve("3part") == "3partl2"
    assert GRADED_LOSSES.resolve("Proportional_Odds") == "po"
