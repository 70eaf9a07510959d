"""The one strict grammar for ``NAME(key=value)`` strings."""

from __future__ import annotations

import pytest

from axiomatic._keyvalue import parse_call, parse_keyvalues
from axiomatic.axioms import parse_axiom, parse_axioms
from axiomatic.training.config import parse_augmentation
from axiomatic.training.config import parse_call as parse_training_call


@pytest.mark.parametrize(
    "text",
    [
        "ar(lambda=__import__('os').system('x'))",
        "ar(lambda=abs(1))",
        "ar(mu=[1, 2][0])",
        "ar(lambda=a b)",
    ],
)
def test_training_specs_refuse_expressions_instead_of_keeping_them_as_strings(text: str) -> None:
    # the old parser returned such values as the string '__import__(...)', '1+1', ...
    with pytest.raises(ValueError, match="must be a literal"):
        parse_training_call(text)


def test_training_specs_keep_bare_words_paths_and_lists() -> None:
    call = parse_training_call("ar(lambda=0.1, axioms=TFC1-A,TFC1-D, k=3)")
    assert call.params == {"lambda": 0.1, "axioms": ["TFC1-A", "TFC1-D"], "k": 3}
    spec = parse_augmentation("diagnostic(mode=paired-delta, instances=/tmp/x, delta_max=0.2)")
    assert (spec.mode, spec.instances, spec.delta_max) == ("paired-delta", "/tmp/x", 0.2)


def test_one_value_grammar_for_axioms_regularizers_and_rankers() -> None:
    # the same value text means the same thing whichever string it appears in
    for value, want in [("0.25", 0.25), ("'x,y'", "x,y"), ("true", True), ("none", None)]:
        assert parse_call(f"f(a={value})", what="t", example="f(a=1)")[1] == {"a": want}
        assert parse_keyvalues(f"a={value}", what="t", example="a=1") == {"a": want}
    # axioms: bare words for the variant, quoted or not
    assert parse_axiom("TFC1(variant=strict)") == parse_axiom("TFC1(variant='strict')")


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("f(a=1)x", "closing parenthesis"),
        ("f(a=1,,b=2)", "empty item"),
        ("f(a=')", "cannot parse"),
        ("f(a=1, a=2)", "given twice"),
        ("f(**a)", "'**'"),
        ("f a(b=1)", "expected NAME"),
    ],
)
def test_call_grammar_errors(text: str, fragment: str) -> None:
    with pytest.raises(ValueError) as exc:
        parse_call(text, what="thing", example="f(a=1)")
    assert fragment in str(exc.value)


def test_default_variant_applies_only_where_the_string_sets_none() -> None:
    axs = parse_axioms(
        "TFC1(delta_rel=0.2),M-TDC(variant='relaxed'),TFC2", default_variant="strict"
    )
    assert [(a.name, a.variant) for a in axs] == [
        ("TFC1", "strict"),
        ("M-TDC", "relaxed"),
        ("TFC2", "strict"),
    ]
    assert axs[0].param("delta_rel") == 0.2
