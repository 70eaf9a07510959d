"""The languages a collection may declare: ISO 639-1 codes, and the Snowball stemmer of each.

A data-layer module so that the descriptor reader (``data/descriptor.py``) checks a declared
language with the same table the analyzer (``text/analyzer.py``) picks stemmers from.
"""

from __future__ import annotations

STEMMER_LANGUAGES: dict[str, str] = {
    "en": "english",
    "de": "german",
    "es": "spanish",
    "fr": "french",
    "it": "italian",
    "nl": "dutch",
    "pt": "portuguese",
    "ru": "russian",
    "ro": "romanian",
    "tr": "turkish",
    "el": "greek",
    "ar": "arabic",
    "hi": "hindi",
    "sw": "swahili",
}
"""ISO 639-1 code -> the Snowball algorithm PyStemmer runs for it."""

_LANGUAGE_NAMES = {
    **{name: code for code, name in STEMMER_LANGUAGES.items()},
    "chinese": "zh",
    "mandarin": "zh",
    "thai": "th",
    "vietnamese": "vi",
}
SUPPORTED_LANGUAGES: tuple[str, ...] = tuple(sorted({*STEMMER_LANGUAGES, "zh", "th", "vi"}))
"""The ISO 639-1 codes a collection may declare (descriptor ``language`` / ``doc_language``,
analyzer spec ``language=``): the Snowball languages, Chinese (jieba segmentation) and the
other languages of the XQuAD collections (Thai, Vietnamese: token pattern, no stemmer)."""


def check_language(value: object, where: str) -> str:
    """``value`` when it is one of :data:`SUPPORTED_LANGUAGES`, else a ``ValueError`` naming
    ``where``, the supported codes and the closest one (``"english"`` -> ``"en"``): an unknown
    code would silently get no stemmer and no stopwords."""
    if isinstance(value, str) and value in SUPPORTED_LANGUAGES:
        return value
    hint = ""
    if isinstance(value, str):
        from axiomatic._suggest import close_matches, did_you_mean

        word = value.strip().lower()
        named = _LANGUAGE_NAMES.get(word)
        if named is None:
            near = close_matches(word, _LANGUAGE_NAMES, n=1, cutoff=0.75)
            named = _LANGUAGE_NAMES[near[0]] if near else None
        close = [named] if named else close_matches(word, SUPPORTED_LANGUAGES, n=2, cutoff=0.5)
        if word in SUPPORTED_LANGUAGES:
            close = [word]
        hint = did_you_mean(close)
    raise ValueError(
        f"{where}: unknown language {value!r}{hint}; expected an ISO 639-1 code, one of "
        f"{', '.join(SUPPORTED_LANGUAGES)} (it selects the stemmer and stopwords)"
    )
