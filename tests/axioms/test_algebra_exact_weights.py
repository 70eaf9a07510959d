"""An axiom combination's ``.name`` and ``.spec`` write weights exactly, so that
``1.0000001*TFC1 - LNC1`` (and any float weight) parses back to the same combination."""

from __future__ import annotations

import numpy as np
import pytest

from axiomatic.axioms.spec import parse_axiom


def _weights(node) -> list[float]:
    out = [node.weight] if getattr(node, "op", "") == "scale" else []
    for o in getattr(node, "operands", ()):
        out += _weights(o)
    return out


@pytest.mark.parametrize("text", ["1.0000001*TFC1 - LNC1", "TFC1/3 + LNC1", "0.5*TFC1 + 2*LNC1"])
def test_examples_round_trip(text) -> None:
    a = parse_axiom(text)
    for rendered in (a.name, a.spec):
        assert parse_axiom(rendered) == a, rendered
    assert parse_axiom(parse_axiom(a.name).name).name == a.name


def test_random_weights_round_trip_exactly() -> None:
    rng = np.random.default_rng(22)
    ws = np.concatenate(
        [
            1 + rng.normal(0, 1e-7, 60),  # differ from 1 in the 7th digit or later
            rng.uniform(-5, 5, 60),
            10.0 ** rng.uniform(-12, 12, 40) * rng.choice([-1, 1], 40),
            rng.integers(-9, 10, 20).astype(float),
        ]
    )
    for w1, w2 in zip(ws, np.roll(ws, 7), strict=True):
        text = f"{float(w1)!r}*TFC1 - {float(w2)!r}*LNC1 + M-TDC"
        a = parse_axiom(text)
        assert sorted(_weights(a)) == sorted([float(w1), float(w2)])
        for rendered in (a.name, a.spec):
            b = parse_axiom(rendered)
            assert b == a, rendered
            assert _weights(b) == _weights(a)  # bit for bit
