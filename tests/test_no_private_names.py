"""``src/`` uses no private name of another library.

A private name (``bert._create_attention_masks``, ``tensor._version``, ``from re import
_parser``) can change in any release without notice: transformers 5.24 renamed an argument of
the first and broke ARES pre-training on every fresh install. So the package touches other
libraries only through their public API, and this test finds every place that does not:

* ``from X import _name`` / ``import X._mod`` for a module ``X`` outside the package;
* ``obj._name`` where ``_name`` is defined nowhere in the package (not a function, method, class
  attribute, ``self._name = ...`` assignment or ``__dict__["_name"]`` key of ours), i.e. it can
  only be another library's attribute.

The few exceptions are public by their library's own documentation and listed with the reason.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "axiomatic"

#: underscore names that are public API by their library's documentation
PUBLIC_BY_DOCUMENTATION = {
    "_asdict": "collections.namedtuple's documented method (ir_datasets records are namedtuples)",
    "_replace": "collections.namedtuple's documented method",
    "_fields": "collections.namedtuple's documented attribute",
}


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _trees() -> dict[Path, ast.Module]:
    return {p: ast.parse(p.read_text(encoding="utf-8")) for p in sorted(SRC.rglob("*.py"))}


def _own_names(trees: dict[Path, ast.Module]) -> set[str]:
    """Every underscore name the package itself defines."""
    own: set[str] = set()
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                own.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                own.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                own.add(node.id)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                own.add(node.target.id)
            elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
                if isinstance(node.slice.value, str):  # self.__dict__["_name"]
                    own.add(node.slice.value)
            elif (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", None) in ("getattr", "setattr", "hasattr")
                and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant)
                and getattr(node.args[0], "id", None) == "self"
            ):
                own.add(str(node.args[1].value))
    return {n for n in own if _is_private(n)}


def private_uses(trees: dict[Path, ast.Module] | None = None) -> list[str]:
    trees = _trees() if trees is None else trees
    own = _own_names(trees)
    found: list[str] = []
    for path, tree in trees.items():
        rel = path.relative_to(SRC.parent)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                if node.module.split(".")[0] == "axiomatic":
                    continue
                parts = node.module.split(".") + [a.name for a in node.names]
                bad = [p for p in parts if _is_private(p)]
                if bad:
                    found.append(f"{rel}:{node.lineno}: from {node.module} import {bad}")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] != "axiomatic" and any(
                        _is_private(p) for p in alias.name.split(".")
                    ):
                        found.append(f"{rel}:{node.lineno}: import {alias.name}")
            elif isinstance(node, ast.Attribute) and _is_private(node.attr):
                if node.attr in own or node.attr in PUBLIC_BY_DOCUMENTATION:
                    continue
                found.append(f"{rel}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_src_uses_no_private_name_of_another_library() -> None:
    found = private_uses()
    assert not found, "private names of other libraries in src/:\n" + "\n".join(found)


def test_the_check_finds_the_private_names_it_exists_for() -> None:
    """The forms that broke or could break a fresh install are found; the package's own
    private names and documented namedtuple methods are not."""
    code = """
from re import _parser
import torch._dynamo
from transformers.models.bert import modeling_bert

class Mine:
    def __init__(self):
        self._cache = {}

    def _helper(self):
        return 1

def f(bert, tensor, record, m):
    mask = bert._create_attention_masks(attention_mask=None)
    version = tensor._version
    row = record._asdict()
    return m._cache, m._helper(), modeling_bert._prepare
"""
    tree = ast.parse(code)
    found = private_uses({SRC / "example.py": tree})
    text = "\n".join(found)
    assert "_parser" in text and "torch._dynamo" in text
    assert "bert._create_attention_masks" in text and "tensor._version" in text
    assert "modeling_bert._prepare" in text
    assert "_asdict" not in text and "m._cache" not in text and "m._helper" not in text
    assert len(found) == 5
