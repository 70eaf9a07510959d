"""The fingerprinted unit store of the experiments: a unit is
reused only when its recorded settings and inputs equal the requested ones; otherwise it is
refused with one line naming the differing fields, or redone with ``overwrite``."""

from __future__ import annotations

import json

import pytest

from axiomatic.experiments.units import (
    UnitMismatchError,
    UnitRecord,
    UnitStore,
    dataset_fingerprint,
    differences,
    files_fingerprint,
    fingerprint,
    machine,
)


def _record(**changes) -> UnitRecord:
    settings = {"experiment": "x", "model": "knrm", "steps": 2, "lr": 1e-3, "seed": 0}
    settings.update(changes)
    return UnitRecord(settings, {"train data": "a" * 32})


def test_fingerprint_is_canonical_and_stable() -> None:
    a = fingerprint({"b": (1, 2), "a": {"y": 1.5, "x": None}}, {"data": "h"})
    b = fingerprint({"a": {"x": None, "y": 1.5}, "b": [1, 2]}, {"data": "h"})
    assert a == b and len(a) == 32 and int(a, 16) >= 0
    assert fingerprint({"a": 1}) != fingerprint({"a": 2})
    assert fingerprint({"a": 1}) != fingerprint({"a": 1}, {"data": "h"})
    assert fingerprint({"a": 1}) != fingerprint({"a": "1"})
    # pinned: the digest must not change between versions or platforms (it keys stored units)
    assert fingerprint({"steps": 2}, {"data": "x"}) == "d525694df9623469bd90b334e6348f49"


def test_differences_name_fields_shallow_first() -> None:
    old = _record(steps=2, train_config={"steps": 2, "lr": 0.1}).to_json()
    new = _record(steps=6, train_config={"steps": 6, "lr": 0.1}).to_json()
    assert differences(old, new) == [("steps", 2, 6), ("train_config.steps", 2, 6)]
    new["inputs"]["train data"] = "b" * 32
    assert differences(old, new)[-1] == ("input train data", "a" * 32, "b" * 32)


def test_absent_unit_is_started_with_its_record(tmp_path) -> None:
    store = UnitStore(tmp_path)
    unit = tmp_path / "runs" / "u1"
    assert store.status(unit) == "absent"
    assert store.enter(unit, _record()) == "absent"
    data = json.loads((unit / "unit.json").read_text())
    assert data["fingerprint"] == _record().fingerprint and data["settings"]["steps"] == 2
    assert {"platform", "torch", "threads", "device"} <= set(data["machine"])
    assert store.status(unit) == "partial"
    assert store.check(unit, _record()) == "partial"  # same settings: resumed
    (unit / "test_metrics.json").write_text("{}")
    assert store.check(unit, _record()) == "done"  # same settings: reused


def test_changed_setting_is_refused_naming_it_and_overwrite_redoes(tmp_path) -> None:
    unit = tmp_path / "runs" / "u1"
    UnitStore(tmp_path).enter(unit, _record(steps=2))
    (unit / "test_metrics.json").write_text('{"steps": 2}')
    with pytest.raises(UnitMismatchError) as err:
        UnitStore(tmp_path).check(unit, _record(steps=6))
    msg = str(err.value)
    assert "\n" not in msg and "runs/u1" in msg and "steps 2 -> 6" in msg
    assert "--overwrite" in msg and "--out" in msg
    assert err.value.differences == [("steps", 2, 6)]
    assert (unit / "test_metrics.json").exists()  # nothing removed without overwrite
    notes: list[str] = []
    store = UnitStore(tmp_path, overwrite=True, echo=notes.append)
    assert store.enter(unit, _record(steps=6)) == "absent"
    assert not (unit / "test_metrics.json").exists() and "steps 2 -> 6" in notes[0]
    assert json.loads((unit / "unit.json").read_text())["settings"]["steps"] == 6
    # a partial unit with other settings is refused too (not resumed with them)
    with pytest.raises(UnitMismatchError, match=r"lr 0\.001 -> 0\.01"):
        UnitStore(tmp_path).check(unit, _record(steps=6, lr=0.01))
    # other input data: refused, naming the input
    other = UnitRecord(_record(steps=6).settings, {"train data": "b" * 32})
    with pytest.raises(UnitMismatchError, match="input train data aaaaaaaaaa -> bbbbbbbbbb"):
        UnitStore(tmp_path).check(unit, other)


def test_a_trainer_field_added_later_with_its_default_is_no_difference(tmp_path) -> None:
    """A record written before a TrainConfig field existed (so without it) matches a request
    whose value is that field's default; another value is a difference."""
    import dataclasses

    from axiomatic.training.config import TrainConfig

    cfg = TrainConfig(dataset="demo/train", model="knrm", steps=2)
    field = [f for f in dataclasses.fields(TrainConfig) if f.name not in ("dataset", "model")][-1]
    old = {k: v for k, v in cfg.to_dict().items() if k != field.name}
    unit = tmp_path / "runs" / "u"
    UnitStore(tmp_path).enter(unit, _record(train_config=old))
    (unit / "test_metrics.json").write_text("{}")
    assert UnitStore(tmp_path).check(unit, _record(train_config=cfg.to_dict())) == "done"
    assert json.loads((unit / "unit.json").read_text())["fingerprint"] == (
        _record(train_config=cfg.to_dict()).fingerprint
    )
    with pytest.raises(UnitMismatchError, match=r"train_config\.steps 2 -> 3"):
        UnitStore(tmp_path).check(unit, _record(train_config={**cfg.to_dict(), "steps": 3}))


def test_unit_written_before_fingerprints(tmp_path) -> None:
    from axiomatic.training.config import TrainConfig, write_toml

    cfg = TrainConfig(dataset="demo/train", model="knrm", steps=2)
    unit = tmp_path / "runs" / "old"
    write_toml(cfg.to_dict(), unit / "config.toml")
    (unit / "test_metrics.json").write_text("{}")
    store = UnitStore(tmp_path)
    # the trainer's config.toml equals the requested configuration: adopted (record written)
    assert store.check(unit, _record(train_config=cfg.to_dict())) == "done"
    assert json.loads((unit / "unit.json").read_text())["adopted"]
    (unit / "unit.json").unlink()
    six = TrainConfig(dataset="demo/train", model="knrm", steps=6).to_dict()
    with pytest.raises(UnitMismatchError, match=r"train_config\.steps 2 -> 6"):
        store.check(unit, _record(train_config=six))
    (unit / "config.toml").unlink()
    with pytest.raises(UnitMismatchError, match="before units were fingerprinted"):
        store.check(unit, _record(train_config=six))
    (unit / "unit.json").write_text("{not json")
    with pytest.raises(UnitMismatchError, match="unreadable"):
        store.check(unit, _record())


def test_file_units_and_clearing(tmp_path) -> None:
    folder = tmp_path / "runs" / "de"
    folder.mkdir(parents=True)
    kw = {"done": "zero.json", "record_name": "zero.unit.json", "owns_folder": False}
    store = UnitStore(tmp_path)
    assert store.enter(folder, _record(), **kw) == "absent"
    (folder / "zero.json").write_text("{}")
    (folder / "instances").mkdir()
    (folder / "keep.json").write_text("{}")
    assert store.check(folder, _record(), **kw) == "done"
    assert store.matches(folder, {"steps": 2}, record_name="zero.unit.json")
    assert not store.matches(folder, {"steps": 6}, record_name="zero.unit.json")
    assert UnitStore(tmp_path, overwrite=True).check(
        folder, _record(steps=6), also=("instances",), **kw
    ) == ("absent")
    assert not (folder / "zero.json").exists() and not (folder / "instances").exists()
    assert (folder / "keep.json").exists()  # another unit's file in the same folder stays
    with pytest.raises(ValueError, match="refusing to remove"):
        UnitStore(tmp_path / "runs").clear(tmp_path / "elsewhere")
    with pytest.raises(ValueError, match="refusing to remove"):
        UnitStore(tmp_path).clear(tmp_path)


def test_content_fingerprints(tmp_path) -> None:
    from axiomatic.data.catalog import load_dataset

    ds = load_dataset("demo/test")
    assert dataset_fingerprint(ds) == dataset_fingerprint(ds.subset(list(ds.queries)))
    q = sorted(ds.queries)[0]
    assert dataset_fingerprint(ds) != dataset_fingerprint(ds.subset(sorted(ds.queries)[1:]))
    assert dataset_fingerprint(ds, 2) != dataset_fingerprint(ds) or len(ds.candidate_ids(q)) <= 2
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "w.bin").write_bytes(b"\x00\x01")
    a = files_fingerprint(tmp_path / "m")
    (tmp_path / "m" / "w.bin").write_bytes(b"\x00\x02")
    assert files_fingerprint(tmp_path / "m") != a
    assert files_fingerprint(tmp_path / "missing") == "absent"


def test_machine_record_has_the_shared_keys() -> None:
    m = machine()
    assert {"platform", "cpu", "cpus", "python", "torch", "threads", "device", "load"} <= set(m)
    assert isinstance(m["threads"], int) and m["threads"] >= 1
