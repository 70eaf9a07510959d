"""``variant_counts`` builds its stages from parsed axioms, not by editing spec strings."""

from __future__ import annotations

from axiomatic.data.demo import demo_dataset
from axiomatic.diagnose.counts import variant_counts


def test_stages_from_parsed_axioms_any_spelling_or_parameters() -> None:
    ds = demo_dataset()
    ref = variant_counts(ds, ["LNC2", "TFC1"], analyzer="default")
    # a lower-case name still gets LNC2's artificial duplicates in the relaxed stage, and an
    # axiom string with parameters names the axiom (the stages set their own variants)
    got = variant_counts(ds, ["lnc2", "TFC1(delta_rel=0.2)"], analyzer="default")
    assert got["axiom"].tolist() == ref["axiom"].tolist()
    assert got["instances"].tolist() == ref["instances"].tolist()
    assert got.loc[got["axiom"] == "LNC2", "instances"].iloc[-1] > 0
