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


def _entry_points(tmp_path, monkeypatch, group: str, lines: str, module: str = "") -> None:
    """A package installed in tmp_path (a dist-info folder) declaring ``lines`` in ``group``."""
    info = tmp_path / "plug-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: plug\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[{group}]\n{lines}\n")
    if module:
        (tmp_path / "plug_mod.py").write_text(module)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(__import__("sys").modules, "plug_mod", raising=False)


def test_entry_points_are_read_on_lookup_and_listing(tmp_path, monkeypatch) -> None:
    _entry_points(
        tmp_path, monkeypatch, "test.zoo", "duet-x = plug_mod:DUET\nbroken = plug_mod:nothing",
        module="DUET = 'the duet'\n",
    )  # fmt: skip
    zoo = Registry("model", {"knrm": "a"}, entry_points="test.zoo", adapt=lambda n, o: o.upper())
    assert zoo.get("DuetX") == "THE DUET"  # read on lookup, under the entry point's name
    with pytest.raises(ValueError) as exc:
        zoo.names()  # listing reads every entry point: the broken one is named
    assert str(exc.value).startswith(
        "entry point 'broken' = 'plug_mod:nothing' of group 'test.zoo' could not be loaded "
        "(AttributeError: "
    )
    assert zoo.unregister("duet-x") == "THE DUET" and "duet-x" not in zoo  # not read again


def test_an_entry_point_that_registers_nothing_is_refused(tmp_path, monkeypatch) -> None:
    _entry_points(tmp_path, monkeypatch, "test.zoo2", "ghost = plug_mod:GHOST", "GHOST = 1\n")
    zoo: Registry[str] = Registry("model", {"knrm": "a"}, entry_points="test.zoo2")
    with pytest.raises(ValueError, match=r"registered no model named 'ghost'; register it"):
        zoo.find("ghost")
    zoo.register("k-nrm2", "b", aliases=["kn2"])
    assert zoo.unregister("KN2") == "b" and "kn2" not in zoo.aliases()
    with pytest.raises(UnknownNameError, match="unknown model 'k-nrm2'"):
        zoo.unregister("k-nrm2")
