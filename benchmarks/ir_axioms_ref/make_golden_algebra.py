"""Write the golden ir_axioms 1.2.5 *combined* preference matrices that
tests/axioms/test_algebra.py compares our axiom algebra (``axiomatic.axioms.algebra``) with.

    bash benchmarks/ir_axioms_ref/setup.sh      # once: ir_axioms 1.2.5 in its own venv
    benchmarks/ir_axioms_ref/.venv/bin/python benchmarks/ir_axioms_ref/make_golden_algebra.py

Input: the single-axiom golden matrices of ``tests/axioms/golden/ir_axioms_1.2.5_demo.npz``
(ir_axioms' own output on the demo collection). Each is wrapped as an ir_axioms axiom that
returns the stored matrix, and the expressions of :data:`EXPRESSIONS` are built with ir_axioms'
Python operators (``&``, ``|``, ``%``, ``+``, ``-``, unary ``-``/``+``;
``UniformAxiom(scalar=w) * A`` for a weight), so the output is ir_axioms' arithmetic on
ir_axioms' preferences. The test evaluates the same expression strings with our parser and
array evaluation on the same single-axiom matrices and requires identical signs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from ir_axioms.axiom.arithmetic import UniformAxiom
from ir_axioms.axiom.base import Axiom

GOLDEN = Path(__file__).resolve().parents[2] / "tests" / "axioms" / "golden"
SOURCE = GOLDEN / "ir_axioms_1.2.5_demo.npz"
OUT = GOLDEN / "ir_axioms_1.2.5_algebra.npz"


@dataclass(frozen=True, kw_only=True)
class Fixed(Axiom):
    """An ir_axioms axiom returning a stored preference matrix (input: the query id)."""

    name: str
    mats: dict

    def preference(self, input, output1, output2):
        return float(self.mats[f"{input}.{self.name}"][output1, output2])

    def preferences(self, input, outputs):
        return self.mats[f"{input}.{self.name}"][np.ix_(outputs, outputs)].astype(float)

    def __hash__(self) -> int:
        return hash(self.name)


def W(w: float) -> UniformAxiom:
    return UniformAxiom(scalar=w)


#: (our expression string, the same combination with ir_axioms' operators on axioms ``a``)
EXPRESSIONS = [
    ("TFC1 & STMC1", lambda a: a["TFC1"] & a["STMC1"]),
    ("LNC1 & STMC1", lambda a: a["LNC1"] & a["STMC1"]),
    ("TFC1 & REG & M-AND", lambda a: a["TFC1"] & a["REG"] & a["M-AND"]),
    ("TFC1 | LNC1", lambda a: a["TFC1"] | a["LNC1"]),
    ("LNC1 | PROX2 | TFC3", lambda a: a["LNC1"] | a["PROX2"] | a["TFC3"]),
    ("TFC1 % DIV", lambda a: a["TFC1"] % a["DIV"]),
    ("TFC1 % DIV % STMC1", lambda a: a["TFC1"] % a["DIV"] % a["STMC1"]),
    ("LNC1 % STMC1 % DIV % REG", lambda a: a["LNC1"] % a["STMC1"] % a["DIV"] % a["REG"]),
    ("TFC1 % LNC1 % PROX1", lambda a: a["TFC1"] % a["LNC1"] % a["PROX1"]),
    ("TFC1 % LNC1 % PROX1 % AND", lambda a: a["TFC1"] % a["LNC1"] % a["PROX1"] % a["AND"]),
    ("PROX1 % (PROX2 % PROX3)", lambda a: a["PROX1"] % (a["PROX2"] % a["PROX3"])),
    ("(TFC1 | PROX1) % LNC1", lambda a: (a["TFC1"] | a["PROX1"]) % a["LNC1"]),
    ("0.5*TFC1 + 2*LNC1", lambda a: W(0.5) * a["TFC1"] + W(2) * a["LNC1"]),
    ("TFC1 + LNC1 - PROX1", lambda a: a["TFC1"] + a["LNC1"] - a["PROX1"]),
    ("-(TFC1 & AND) | REG", lambda a: -(a["TFC1"] & a["AND"]) | a["REG"]),
    ("+(LNC1 - 2*STMC1) | -DIV", lambda a: +(a["LNC1"] - W(2) * a["STMC1"]) | -a["DIV"]),
    ("(TFC1 + LNC1 + PROX1) | M-TDC", lambda a: (a["TFC1"] + a["LNC1"] + a["PROX1"]) | a["M-TDC"]),
    (
        "0.3*TF-LNC - 0.7*LB1 + PROX4",
        lambda a: W(0.3) * a["TF-LNC"] - W(0.7) * a["LB1"] + a["PROX4"],
    ),
    (
        "(DIV & LEN-DIV) % STMC1 % (M-AND | PROX5)",
        lambda a: (a["DIV"] & a["LEN-DIV"]) % a["STMC1"] % (a["M-AND"] | a["PROX5"]),
    ),
]


def main() -> None:
    src = np.load(SOURCE, allow_pickle=False)
    mats = {k: src[k] for k in src.files}
    axioms = {str(n): Fixed(name=str(n), mats=mats) for n in src["axioms"]}
    out: dict[str, np.ndarray] = {"expressions": np.array([e for e, _ in EXPRESSIONS])}
    for q in src["queries"]:
        n = len(src[f"{q}.candidates"])
        for k, (_, build) in enumerate(EXPRESSIONS):
            m = np.asarray(build(axioms).preferences(str(q), list(range(n))), dtype=float)
            np.fill_diagonal(m, 0)
            out[f"{q}.{k}"] = np.sign(m).astype(np.int8)
    out["queries"] = src["queries"]
    np.savez_compressed(OUT, **out)
    print(f"wrote {OUT} ({len(EXPRESSIONS)} expressions x {len(src['queries'])} queries)")


if __name__ == "__main__":
    main()
