"""Close-match suggestions for unknown names: one rule and one wording for the whole package.

``unknown axiom 'TFC4' (did you mean 'TFC1' or 'TFC3'?)``: :func:`suggest` gives the part in
parentheses (or ``""`` when nothing is close), :func:`close_matches` the names themselves for a
message worded otherwise. Both use :func:`difflib.get_close_matches`; with ``loose=True`` a name
that matches nothing is tried again ignoring case, ``-``, ``_`` and spaces (``m_tdc`` ->
``M-TDC``).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def _loose(name: str) -> str:
    return name.upper().replace("-", "").replace("_", "").replace(" ", "")


def close_matches(
    word: object,
    choices: Iterable[object],
    n: int = 3,
    cutoff: float = 0.5,
    *,
    loose: bool = False,
) -> list[str]:
    """Up to ``n`` of ``choices`` close to ``word``, best first (as strings)."""
    names = [str(c) for c in choices]
    close = difflib.get_close_matches(str(word), names, n=n, cutoff=cutoff)
    if not close and loose:
        canon = {_loose(c): c for c in names}
        close = [canon[c] for c in difflib.get_close_matches(_loose(str(word)), canon, n=n)]
    return close


def suggest(
    word: object,
    choices: Iterable[object],
    n: int = 3,
    cutoff: float = 0.5,
    *,
    loose: bool = False,
) -> str:
    """`` (did you mean 'a', 'b' or 'c'?)`` for the :func:`close_matches` of ``word``, ``""``
    when nothing is close; appended to the sentence that names the unknown word."""
    return did_you_mean(close_matches(word, choices, n, cutoff, loose=loose))


def did_you_mean(names: Iterable[object]) -> str:
    """`` (did you mean 'a', 'b' or 'c'?)`` for ``names`` (duplicates dropped, order kept),
    ``""`` for none: the wording of :func:`suggest` for a caller that chose the names."""
    close = [repr(str(c)) for c in dict.fromkeys(str(n) for n in names)]
    if not close:
        return ""
    listed = close[0] if len(close) == 1 else f"{', '.join(close[:-1])} or {close[-1]}"
    return f" (did you mean {listed}?)"
