"""The one text analyzer shared by rankers, axioms and perturbations.

An axiom and BM25 must see the same terms, so every component takes an :class:`Analyzer` and
every cached artifact is keyed by :attr:`Analyzer.config_hash`.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from importlib import resources
from typing import Any

from axiomatic._suggest import suggest
from axiomatic.data.languages import STEMMER_LANGUAGES, check_language

DEFAULT_TOKEN_PATTERN = r"(?u)\w+"
ANALYZER_VERSION = 1
"""Bump when analysis changes in a way the settings do not show (invalidates cached artifacts)."""
# Rennings (2019) sec. 3.4.1 keeps "only alphanumeric characters (and single spaces)" so that Indri
# can read the text: ASCII letters and digits. Measured on msmarco-dev-top20/test (relaxed, no
# length limit), this pattern gives exactly the reference re-implementation's 10,857 TFC1, 993
# TFC2 and 305 M-TDC instances; unicode ``\w+`` gives 10,818 / 974 / 312.
THESIS_TOKEN_PATTERN = r"[A-Za-z0-9]+"
_NO_STEMMER_WARNED: set[str] = set()

#: token patterns whose tokens are the runs of word characters (``\w``) of at least this length
#: (``\b\w\w+\b`` is scikit-learn's and bm25s' pattern): on ASCII text these are the runs of
#: ``[A-Za-z0-9_]``, which a byte translation and a split find without the regex engine
_WORD_RUN_PATTERNS = {r"(?u)\w+": 1, r"\w+": 1, r"(?u)\b\w\w+\b": 2, r"\b\w\w+\b": 2}

#: every ASCII byte that is not a word character (nor any non-ASCII byte) -> a space
_WORD_BYTES = bytes(c if c < 128 and (chr(c).isalnum() or c == 95) else 32 for c in range(256))


@lru_cache(maxsize=1)
def _snowball_algorithms() -> frozenset[str]:
    import Stemmer

    return frozenset(Stemmer.algorithms())


def snowball_algorithm(language: str) -> str | None:
    """The Snowball algorithm PyStemmer runs for ``language``, or ``None`` when there is none:
    the language has no Snowball stemmer here (``zh``, ``th``, ...), or the installed PyStemmer
    lacks the one it would have (``sw``: swahili). The latter falls back to no stemming with a
    warning, once per language and process (it used to end in a ``KeyError``)."""
    algorithm = STEMMER_LANGUAGES.get(language)
    if algorithm is None:
        return None
    try:
        available = _snowball_algorithms()
    except ImportError:  # pragma: no cover - PyStemmer is a hard dependency
        return algorithm  # Analyzer._stemmer raises the ImportError with the install hint
    if algorithm in available:
        return algorithm
    if language not in _NO_STEMMER_WARNED:
        _NO_STEMMER_WARNED.add(language)
        import warnings

        warnings.warn(
            f"the installed PyStemmer has no Snowball stemmer for language {language!r} "
            f"({algorithm}): its text is analysed without stemming",
            UserWarning,
            stacklevel=3,
        )
    return None


def load_stopwords(language: str = "en") -> frozenset[str]:
    """The packaged stopword list for ``language`` (empty set when none is packaged)."""
    name = f"stopwords_{language}.txt"
    try:
        text = resources.files("axiomatic.resources").joinpath(name).read_text(encoding="utf-8")
    except FileNotFoundError:
        return frozenset()
    return frozenset(w.strip() for w in text.splitlines() if w.strip() and not w.startswith("#"))


@dataclass(frozen=True)
class Analyzer:
    """Tokenize, lowercase, remove stopwords and stem.

    Parameters
    ----------
    language:
        ISO code. ``"zh"`` segments with jieba; other languages use ``token_pattern``.
    lowercase:
        Lowercase (and NFKC-normalize) before tokenizing.
    stopwords:
        ``True`` for the packaged list of ``language``, ``False``/``None`` for none, or an explicit
        collection of words (matched after lowercasing, before stemming).
    stemmer:
        ``"snowball"`` (PyStemmer's Snowball stemmer for ``language``), ``"porter"`` (the original
        Porter stemmer, English only) or ``None``.
    token_pattern:
        Regular expression whose matches are the tokens (ignored for Chinese).
    """

    language: str = "en"
    lowercase: bool = True
    stopwords: bool | frozenset[str] | tuple[str, ...] | None = True
    stemmer: str | None = "snowball"
    token_pattern: str = DEFAULT_TOKEN_PATTERN
    _cache: dict[str, str] = field(default_factory=dict, compare=False, hash=False, repr=False)

    def __post_init__(self) -> None:
        if self.stemmer not in (None, "snowball", "porter"):
            raise ValueError(f"stemmer must be 'snowball', 'porter' or None (got {self.stemmer!r})")
        if self.stemmer == "porter" and self.language != "en":
            raise ValueError("the 'porter' stemmer is English only; use stemmer='snowball'")
        if isinstance(self.stopwords, (list, set)):
            object.__setattr__(self, "stopwords", frozenset(self.stopwords))

    # ------------------------------------------------------------------ config
    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Analyzer:
        cfg = dict(config)
        sw = cfg.get("stopwords")
        if isinstance(sw, list):
            cfg["stopwords"] = frozenset(sw)
        return cls(**cfg)

    def config(self) -> dict[str, Any]:
        sw: Any = self.stopwords
        if isinstance(sw, (frozenset, tuple)):
            sw = sorted(sw)
        return {
            "language": self.language,
            "lowercase": self.lowercase,
            "stopwords": sw,
            "stemmer": self.stemmer,
            "token_pattern": self.token_pattern,
        }

    @cached_property
    def config_hash(self) -> str:
        """A stable 16-hex-digit key of :meth:`fingerprint` (part of every cached artifact's key).

        It covers what decides the terms, not only the settings: ``stopwords=True`` names a
        packaged list whose *contents* can change between versions, so the list itself is hashed.
        """
        blob = json.dumps(self.fingerprint(), sort_keys=True, ensure_ascii=True)
        return hashlib.sha1(blob.encode("utf-8")).hexdigest()[:16]

    def fingerprint(self) -> dict[str, Any]:
        """Everything that decides the index terms of a text, as JSON-able values.

        The settings of :meth:`config` plus the resolved parts: the stopword list's contents
        (hashed), the stemmer algorithm actually used and its library version, the normalization
        and the tokenizer (regex pattern, or jieba and its version for Chinese). Two analyzers
        with equal fingerprints produce the same terms.
        """
        lib_version = _lib_version
        words = sorted(self.stopword_set)
        if self.stemmer == "porter":
            algorithm: str | None = "porter"
        elif self.stemmer == "snowball":
            algorithm = snowball_algorithm(self.language)
        else:
            algorithm = None
        tokenizer = (
            {"kind": "jieba", "version": lib_version("jieba")}
            if self.language == "zh"
            else {"kind": "regex", "pattern": self.token_pattern}
        )
        return {
            "analyzer_version": ANALYZER_VERSION,
            "config": self.config(),
            "normalization": "NFKC+lower" if self.lowercase else "none",
            "tokenizer": tokenizer,
            "stopwords": {
                "count": len(words),
                "sha1": hashlib.sha1("\n".join(words).encode("utf-8")).hexdigest(),
            },
            "stemmer": None
            if algorithm is None
            else {"algorithm": algorithm, "version": lib_version("PyStemmer")},
        }

    @property
    def spec(self) -> str:
        """Every setting as a ``key=value`` string; :func:`parse_analyzer` of it gives back an
        equal analyzer. Recorded in manifests, reports and experiment configs."""
        sw: Any = self.stopwords
        if isinstance(sw, (frozenset, tuple)):
            sw = tuple(sorted(sw))
        stemmer = "None" if self.stemmer is None else self.stemmer
        return (
            f"language={self.language},lowercase={self.lowercase},stopwords={sw!r},"
            f"stemmer={stemmer},token_pattern={self.token_pattern!r}"
        )

    @property
    def preset(self) -> str | None:
        """The name of the preset (``"thesis"``, ``"default"``) this analyzer equals, if any."""
        for name, settings in ANALYZER_PRESETS.items():
            if Analyzer(language=self.language, **settings) == self:
                return name
        return None

    def describe(self) -> str:
        """``"thesis (language=en,...)"``: the preset name (when one matches) and the spec."""
        name = self.preset
        return f"{name} ({self.spec})" if name else self.spec

    # ------------------------------------------------------------------ parts
    @cached_property
    def _regex(self) -> re.Pattern[str]:
        return re.compile(self.token_pattern)

    @cached_property
    def _word_run_length(self) -> int:
        """The shortest token of a word-run pattern (:data:`_WORD_RUN_PATTERNS`), else 0."""
        return _WORD_RUN_PATTERNS.get(self.token_pattern, 0)

    @cached_property
    def stopword_set(self) -> frozenset[str]:
        if self.stopwords is True:
            return load_stopwords(self.language)
        if not self.stopwords:
            return frozenset()
        return frozenset(self.stopwords)  # type: ignore[arg-type]

    @cached_property
    def _stemmer(self) -> Any:
        if self.stemmer is None:
            return None
        try:
            import Stemmer
        except ImportError as exc:  # pragma: no cover - PyStemmer is a hard dependency
            raise ImportError("stemming needs PyStemmer: pip install PyStemmer") from exc
        if self.stemmer == "porter":
            return Stemmer.Stemmer("porter")
        lang = snowball_algorithm(self.language)
        if lang is None:
            return None  # no Snowball stemmer for this language (e.g. zh, th, vi, sw): identity
        return Stemmer.Stemmer(lang)

    # ------------------------------------------------------------------ analysis
    def tokenize(self, text: str) -> list[str]:
        """Surface tokens (normalized and lowercased, no stopping or stemming)."""
        if self.lowercase:
            # NFKC is a no-op on ASCII text; skipping it there saves most of the cost.
            if not text.isascii():
                text = unicodedata.normalize("NFKC", text)
            text = text.lower()
        if self.language == "zh":
            return _jieba_tokens(text)
        shortest = self._word_run_length
        if shortest and text.isascii():  # the regex's tokens, found by C-level passes
            words = text.encode("ascii").translate(_WORD_BYTES).decode("ascii").split()
            return words if shortest == 1 else [w for w in words if len(w) >= shortest]
        return self._regex.findall(text)

    def stem(self, tokens: Sequence[str], cache: bool = True) -> list[str]:
        """Stems of ``tokens``; ``cache=False`` for callers that keep their own map (the index
        build analyzes each surface form once) and need not grow the analyzer's."""
        st = self._stemmer
        if st is None:
            return list(tokens)
        if not cache:
            return st.stemWords(list(tokens))  # type: ignore[no-any-return]
        memo = self._cache
        # cached stems in one C-level pass; the stemmer only for tokens not seen before, each
        # once, in one call
        out: list[str | None] = list(map(memo.get, tokens))
        if None in out:
            new = list(dict.fromkeys(t for t, s in zip(tokens, out, strict=True) if s is None))
            memo.update(zip(new, st.stemWords(new), strict=True))
            return list(map(memo.__getitem__, tokens))
        return out  # type: ignore[return-value]  # no None: every token was cached

    def analyze(self, text: str) -> list[str]:
        """Index terms of ``text``, in order (positions are list indices)."""
        tokens = self.tokenize(text)
        sw = self.stopword_set
        if sw:
            tokens = [t for t in tokens if t not in sw]
        return self.stem(tokens)

    def __call__(self, text: str) -> list[str]:
        return self.analyze(text)

    def analyze_many(self, texts: Iterable[str]) -> list[list[str]]:
        return [self.analyze(t) for t in texts]

    def is_stopword(self, token: str) -> bool:
        return token in self.stopword_set

    def __repr__(self) -> str:
        sw = self.stopwords
        sw_repr = f"<{len(sw)} words>" if isinstance(sw, (frozenset, tuple)) else repr(sw)
        return (
            f"Analyzer(language={self.language!r}, stopwords={sw_repr}, stemmer={self.stemmer!r}, "
            f"token_pattern={self.token_pattern!r})"
        )


@lru_cache(maxsize=8)
def _lib_version(dist: str) -> str | None:
    """Installed version of ``dist`` (part of the fingerprint: stemmers change between releases);
    cached because reading package metadata costs milliseconds."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return None


_JIEBA: Any = None


def _jieba_tokens(text: str) -> list[str]:
    global _JIEBA
    if _JIEBA is None:
        try:
            import jieba
        except ImportError as exc:
            raise ImportError("Chinese analysis needs jieba: pip install jieba") from exc
        jieba.setLogLevel(60)
        _JIEBA = jieba
    return [t for t in _JIEBA.lcut(text) if t.strip() and any(ch.isalnum() for ch in t)]


def default_analyzer(language: str = "en") -> Analyzer:
    """The project default for ``language``: stopwords + Snowball (jieba segmentation for zh)."""
    return Analyzer(language=language, stopwords=True, stemmer="snowball")


class AnalyzerSpecError(ValueError):
    """An analyzer spec string could not be understood."""


# Named settings for ``--analyzer``. "thesis" is Rennings (2019) sec. 3.4.1: Snowball stemming
# (nltk's English SnowballStemmer there, the same Snowball algorithm as PyStemmer's), no stopword
# removal ("may remove informative terms such as the question words what and why"), only
# ASCII alphanumeric tokens. Lowercasing is implied: the Snowball stemmer lowercases its input.
ANALYZER_PRESETS: dict[str, dict[str, Any]] = {
    "default": {
        "lowercase": True,
        "stopwords": True,
        "stemmer": "snowball",
        "token_pattern": DEFAULT_TOKEN_PATTERN,
    },
    "thesis": {
        "lowercase": True,
        "stopwords": False,
        "stemmer": "snowball",
        "token_pattern": THESIS_TOKEN_PATTERN,
    },
}
_SPEC_KEYS = ("language", "lowercase", "stopwords", "stemmer", "token_pattern")
_SPEC_EXAMPLE = "stopwords=false,stemmer=porter"


def _check_spec_value(key: str, value: Any, spec: str) -> Any:
    where = f"analyzer spec {spec!r}"
    if key == "lowercase" and not isinstance(value, bool):
        raise AnalyzerSpecError(f"{where}: lowercase must be true or false (got {value!r})")
    if key == "stopwords":
        if isinstance(value, (list, tuple, set, frozenset)):
            if not all(isinstance(w, str) for w in value):
                raise AnalyzerSpecError(f"{where}: stopwords must be a list of words")
            return frozenset(value)
        if value is not None and not isinstance(value, bool):
            raise AnalyzerSpecError(
                f"{where}: stopwords must be true (the packaged list), false, or a list of "
                f"words such as ('the','a') (got {value!r})"
            )
    if key == "stemmer":
        if isinstance(value, str) and value.lower() in ("snowball", "porter"):
            return value.lower()
        if value is not None:
            raise AnalyzerSpecError(
                f"{where}: unknown stemmer {value!r}"
                f"{suggest(value, ['snowball', 'porter', 'none'], n=2)}; "
                "expected snowball, porter or none"
            )
    if key == "language":
        try:
            return check_language(value, where)
        except ValueError as exc:
            raise AnalyzerSpecError(str(exc)) from None
    if key == "token_pattern":
        if not isinstance(value, str):
            raise AnalyzerSpecError(
                f"{where}: token_pattern must be a quoted regular expression, e.g. "
                f"token_pattern='{THESIS_TOKEN_PATTERN}' (got {value!r})"
            )
        try:
            re.compile(value)
        except re.error as exc:
            raise AnalyzerSpecError(
                f"{where}: token_pattern {value!r} is not a valid regular expression ({exc})"
            ) from None
    return value


def parse_analyzer(spec: str | Analyzer | None, language: str | None = None) -> Analyzer:
    """An :class:`Analyzer` from a spec string (the ``--analyzer`` option of every command).

    Forms: a preset name (``"thesis"``, ``"default"``), ``key=value`` pairs
    (``"stopwords=false,stemmer=porter"``: unnamed keys take the ``default`` preset's values), or a
    preset followed by overrides (``"thesis,stemmer=porter"``). Keys: ``language``, ``lowercase``,
    ``stopwords`` (true / false / a tuple of words), ``stemmer`` (snowball / porter / none) and
    ``token_pattern`` (a quoted regex). ``language`` (e.g. the dataset's) applies when the spec
    does not set one. Values are parsed with :mod:`ast` (no ``eval``); unknown presets and keys
    raise :class:`AnalyzerSpecError` with close matches. :attr:`Analyzer.spec` round-trips.
    """
    if isinstance(spec, Analyzer):
        return spec
    if spec is None:
        spec = "default"
    if not isinstance(spec, str) or not spec.strip():
        raise AnalyzerSpecError(
            f"an analyzer spec must be a non-empty string such as 'thesis', 'default' or "
            f"{_SPEC_EXAMPLE!r} (got {spec!r})"
        )
    text = spec.strip()
    head, sep, rest = text.partition(",")
    preset = "default"
    if "=" not in head:
        preset, text = head.strip().lower(), rest if sep else ""
        if preset not in ANALYZER_PRESETS:
            raise AnalyzerSpecError(
                f"unknown analyzer {head.strip()!r} in spec {spec!r}"
                f"{suggest(preset, ANALYZER_PRESETS, n=2)}; presets: "
                f"{', '.join(ANALYZER_PRESETS)}, or key=value pairs such as {_SPEC_EXAMPLE!r}"
            )
    from axiomatic._keyvalue import parse_keyvalues

    params = parse_keyvalues(
        text, what=f"analyzer spec {spec!r}", example=_SPEC_EXAMPLE, error=AnalyzerSpecError
    )
    settings: dict[str, Any] = {"language": language or "en", **ANALYZER_PRESETS[preset]}
    for key, value in params.items():
        if key not in _SPEC_KEYS:
            raise AnalyzerSpecError(
                f"unknown analyzer setting {key!r} in spec {spec!r}"
                f"{suggest(key, _SPEC_KEYS, n=2)}; settings: {', '.join(_SPEC_KEYS)}"
            )
        settings[key] = _check_spec_value(key, value, spec)
    try:
        return Analyzer(**settings)
    except ValueError as exc:
        raise AnalyzerSpecError(f"analyzer spec {spec!r}: {exc}") from None
