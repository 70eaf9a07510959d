"""A language whose Snowball stemmer the installed PyStemmer lacks (``sw``, the
``sasaki-sw/*`` documents) is analysed without stemming, with a warning; it used to end in a
``KeyError`` from PyStemmer."""

from __future__ import annotations

import warnings

import pytest

from axiomatic.text import analyzer as analyzer_module
from axiomatic.text.analyzer import Analyzer


def test_swahili_falls_back_to_no_stemming_with_a_warning(monkeypatch) -> None:
    monkeypatch.setattr(analyzer_module, "_NO_STEMMER_WARNED", set(), raising=False)
    an = Analyzer(language="sw")
    with pytest.warns(UserWarning, match="no Snowball stemmer for language 'sw'"):
        terms = an.analyze("Watoto wanacheza mpira")
    assert terms == ["watoto", "wanacheza", "mpira"]
    assert an.fingerprint()["stemmer"] is None  # the cache key says: no stemming
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once per language and process
        Analyzer(language="sw").analyze("mpira")


def test_languages_with_a_stemmer_still_stem() -> None:
    assert Analyzer(language="en").analyze("running cats") == ["run", "cat"]
    assert Analyzer(language="de").fingerprint()["stemmer"]["algorithm"] == "german"
