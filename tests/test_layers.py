"""The layer map of docs/architecture.md, checked over the import graph.

Data flows top to bottom; a module may import its own package, any package of a lower row, and
the few same-row packages listed in ``SAME_ROW``. Every ``import axiomatic...`` counts, at module
level or inside a function (a lazy import is still a dependency), and so does a literal module
path handed to ``importlib.import_module`` or kept in a lazy registry; only imports under
``if TYPE_CHECKING:`` are exempt. A new package must be placed in ``LAYERS``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"

#: rows of the layer map, bottom to top ("" is the top-level facade ``axiomatic/__init__``)
LAYERS: list[set[str]] = [
    # utilities that import nothing of the package (but _report -> _atomic: SAME_ROW)
    {
        "_atomic",
        "_callable",
        "_keyvalue",
        "_params",
        "_progress",
        "_registry",
        "_report",
        "_suggest",
        "resources",
    },
    {"data", "evaluate"},  # records, readers, catalog | ir_measures, significance
    {"text", "index"},  # analyzers | collection statistics
    {"rankers", "models"},  # lexical / run-file rankers | neural models (the neural rankers)
    {"axioms", "perturb"},  # specifications, engine, kernels | perturbations
    {"training", "diagnose"},  # losses, samplers, trainer | mining, diagnosis, re-ranking
    {"ares", "explain"},  # pipelines built on them: ARES pre-training | explanations
    {"experiments"},  # one module per paper
    {"report", "cli", "integrations", ""},  # user-facing (PyTerrier adapter included)
]
#: allowed imports between packages of one row (importer, imported)
SAME_ROW = {
    ("_report", "_atomic"),  # figures and tables are saved atomically
    ("_report", "resources"),  # the one HTML page shell inlines the packaged style sheet
    ("_registry", "_suggest"),  # one refusal wording for unknown names
    ("_params", "_keyvalue"),  # one number conversion for parameter records
    ("_params", "_suggest"),  # close matches for a refused choice
    ("_params", "_report"),  # the parameters tables of the docs
    ("evaluate", "data"),
    ("index", "text"),
    ("rankers", "models"),
    ("cli", "report"),
    ("cli", ""),  # the version string
    ("cli", "integrations"),
    ("integrations", "report"),
    ("", "cli"),
    ("", "report"),
}

_MODULE_PATH = re.compile(r"^axiomatic(\.[A-Za-z_]\w*)+$")


def _module_name(path: Path, src: Path) -> str:
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def import_edges(src: Path) -> list[tuple[str, int, str]]:
    """``(importer module, line, imported module)`` for every ``axiomatic`` import under
    ``src/axiomatic`` (``TYPE_CHECKING`` blocks and ``entry_points=`` group names excepted)."""
    edges = []
    for path in sorted((src / "axiomatic").rglob("*.py")):
        mod = _module_name(path, src)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        skip: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                skip.update(id(n) for n in ast.walk(node))
            elif isinstance(node, ast.Call):  # an entry point group is no module to import
                skip.update(id(k.value) for k in node.keywords if k.arg == "entry_points")
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                if node.module == "axiomatic":  # a subpackage, or a name of the facade
                    pkg = src / "axiomatic"
                    targets = [
                        f"axiomatic.{a.name}"
                        if (pkg / a.name).is_dir() or (pkg / f"{a.name}.py").is_file()
                        else "axiomatic"
                        for a in node.names
                    ]
                elif node.module.startswith("axiomatic."):  # the submodule when one is named
                    pkg = src.joinpath(*node.module.split("."))
                    targets = [
                        f"{node.module}.{a.name}"
                        if (pkg / a.name).is_dir() or (pkg / f"{a.name}.py").is_file()
                        else node.module
                        for a in node.names
                    ]
            elif isinstance(node, ast.ImportFrom) and node.level > 0:
                base = mod.split(".")
                if path.name != "__init__.py":
                    base = base[:-1]
                base = base[: len(base) - (node.level - 1)]
                targets = [".".join(base + ([node.module] if node.module else []))]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names if a.name.startswith("axiomatic")]
            elif (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and _MODULE_PATH.match(node.value)
            ):
                targets = [node.value]
            edges.extend((mod, getattr(node, "lineno", 0), t) for t in targets)
    return edges


def layer_violations(src: Path = SRC) -> list[str]:
    row = {pkg: i for i, pkgs in enumerate(LAYERS) for pkg in pkgs}
    out = []
    for mod, line, target in import_edges(src):
        a, b = _package(mod), _package(target)
        for pkg in (a, b):
            if pkg not in row:
                out.append(
                    f"{mod}:{line}: package {pkg!r} is not in the layer map; add it to LAYERS in "
                    "tests/test_layers.py and to docs/architecture.md"
                )
        if a not in row or b not in row or a == b:
            continue
        if row[b] > row[a] or (row[b] == row[a] and (a, b) not in SAME_ROW):
            out.append(
                f"{mod}:{line} imports {target}: {a or 'axiomatic'} (row {row[a]}) may not import "
                f"{b or 'axiomatic'} (row {row[b]}); move the shared code down a layer"
            )
    return sorted(set(out))


def test_no_upward_or_sideways_imports() -> None:
    bad = layer_violations()
    assert not bad, "imports against the layer map:\n" + "\n".join(bad)


@pytest.mark.parametrize(
    "importer, code, fragment",
    [
        ("data/x.py", "from axiomatic.diagnose.mining import read_instances\n", "row 1"),
        ("training/x.py", "def f():\n    from axiomatic.diagnose import mining\n", "row 5"),
        ("index/x.py", "import importlib\nimportlib.import_module('axiomatic.report.x')\n", ""),
        ("diagnose/x.py", "from axiomatic import report\n", "row 8"),
        ("newpkg/x.py", "from axiomatic.data import records\n", "not in the layer map"),
    ],
)
def test_the_check_catches_violations(tmp_path: Path, importer: str, code: str, fragment: str):
    """The check can fail: a planted upward or sideways import is reported."""
    f = tmp_path / "axiomatic" / importer
    f.parent.mkdir(parents=True)
    f.write_text(code, encoding="utf-8")
    bad = layer_violations(tmp_path)
    assert bad and all(fragment in b for b in bad[:1]), bad


def test_type_checking_imports_are_exempt(tmp_path: Path) -> None:
    f = tmp_path / "axiomatic" / "data" / "x.py"
    f.parent.mkdir(parents=True)
    f.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from axiomatic.cli import app\n"
    )
    assert layer_violations(tmp_path) == []


def test_an_entry_point_group_is_no_import_but_a_module_path_is(tmp_path: Path) -> None:
    """``Registry(..., entry_points="axiomatic.models")`` names a group of other packages'
    entry points, not the package; the same string anywhere else counts as an import."""
    f = tmp_path / "axiomatic" / "data" / "x.py"
    f.parent.mkdir(parents=True)
    f.write_text('R = Registry("model", entry_points="axiomatic.models")\n', encoding="utf-8")
    assert layer_violations(tmp_path) == []
    f.write_text('R = Registry("model", group="axiomatic.models")\n', encoding="utf-8")
    assert layer_violations(tmp_path)


def module_cycles(src: Path = SRC) -> list[list[str]]:
    """Import cycles between modules (strongly connected components of more than one module),
    with ``from package import submodule`` resolved to the submodule."""
    # the top-level facade (lazy names of the whole API) is the root of the graph, not a module
    # that other modules may depend on: it is left out
    known = {_module_name(p, src) for p in (src / "axiomatic").rglob("*.py")} - {"axiomatic"}
    graph: dict[str, set[str]] = {m: set() for m in known}
    for mod, _line, target in import_edges(src):
        while target not in known and "." in target:
            target = target.rsplit(".", 1)[0]  # a name inside a module -> the module
        if mod in known and target in known and target != mod:
            graph[mod].add(target)
    # Tarjan's strongly connected components
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


#: cycles that exist and are owned by work in progress; each must go, none may be added
KNOWN_CYCLES: list[list[str]] = []


def test_no_import_cycles() -> None:
    cycles = [c for c in module_cycles() if c not in KNOWN_CYCLES]
    assert not cycles, "import cycles (lazy imports included):\n" + "\n".join(map(str, cycles))


def test_the_cycle_check_catches_a_lazy_cycle(tmp_path: Path) -> None:
    pkg = tmp_path / "axiomatic" / "models"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "io.py").write_text(
        "def __getattr__(name):\n    from axiomatic.models import ranker\n"
        "    return getattr(ranker, name)\n"
    )
    (pkg / "ranker.py").write_text("def f():\n    from axiomatic.models.io import load_model\n")
    assert module_cycles(tmp_path) == [["axiomatic.models.io", "axiomatic.models.ranker"]]


# ---------------------------------------------------------------------- private names
#: the row-0 utility modules are the intended shared bottom layer: private by name only
SHARED_PRIVATE = {pkg for pkg in LAYERS[0] if pkg.startswith("_")}


def _private(part: str) -> bool:
    return part.startswith("_") and not part.startswith("__")


def private_imports(src: Path = SRC) -> list[str]:
    """``"importer:line imports target"`` for every import of a private name (a ``_name``, or
    a name inside a ``_module``) of another axiomatic package; a package's own private names
    and the row-0 utilities (:data:`SHARED_PRIVATE`) are allowed. Imports under
    ``TYPE_CHECKING`` count too (a type is part of the coupling)."""
    out = []
    for path in sorted((src / "axiomatic").rglob("*.py")):
        mod = _module_name(path, src)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level > 0:  # relative: resolve against the importer's package
                    parts = mod.split(".")
                    if path.name != "__init__.py":
                        parts = parts[:-1]
                    parts = parts[: len(parts) - (node.level - 1)]
                    base = ".".join([*parts, node.module] if node.module else parts)
                if base == "axiomatic" or base.startswith("axiomatic."):
                    targets = [f"{base}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names if a.name.startswith("axiomatic.")]
            elif (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and _MODULE_PATH.match(node.value)
            ):
                targets = [node.value]
            for target in targets:
                parts = target.split(".")
                pkg = parts[1] if len(parts) > 1 else ""
                if pkg in SHARED_PRIVATE or pkg == _package(mod):
                    continue
                if any(_private(p) for p in parts[2:]):
                    out.append(f"{mod}:{getattr(node, 'lineno', 0)} imports {target}")
    return sorted(set(out))


#: private imports across packages that are tolerated (``importer imports target``, line numbers
#: left out): none; the former cli/ and experiments/ ones were made public or moved
KNOWN_PRIVATE_IMPORTS: set[str] = set()


def _without_line(entry: str) -> str:
    where, rest = entry.split(" imports ", 1)
    return f"{where.rsplit(':', 1)[0]} imports {rest}"


def test_no_private_imports_across_packages() -> None:
    bad = [b for b in private_imports() if _without_line(b) not in KNOWN_PRIVATE_IMPORTS]
    assert not bad, (
        "private names imported from another package (make the name public in its home "
        "module, or move the shared code to a row-0 utility):\n" + "\n".join(bad)
    )


@pytest.mark.parametrize(
    "importer, code, expected",
    [
        (
            "report/x.py",
            "from axiomatic.diagnose.result import _records\n",
            ["axiomatic.report.x:1 imports axiomatic.diagnose.result._records"],
        ),
        (
            "models/x.py",
            "def f():\n    from axiomatic.data._io import iter_lines\n",
            ["axiomatic.models.x:2 imports axiomatic.data._io.iter_lines"],
        ),
        (
            "models/x.py",
            "import axiomatic.axioms._jit\n",
            ["axiomatic.models.x:1 imports axiomatic.axioms._jit"],
        ),
        (
            "cli/x.py",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
            "    from axiomatic.training.trainer import _Hidden\n",
            ["axiomatic.cli.x:3 imports axiomatic.training.trainer._Hidden"],
        ),
        ("models/x.py", "from axiomatic.models.hf_loader import _quiet\n", []),  # own package
        ("models/y/x.py", "from .._z import a\n", []),  # own package, relative
        (
            "models/x.py",
            "from ..data import _io\n",
            ["axiomatic.models.x:1 imports axiomatic.data._io"],
        ),
        ("models/x.py", "from axiomatic._suggest import suggest\n", []),  # row 0
        ("models/x.py", "from axiomatic.data.records import Query\n", []),
        ("models/x.py", "from axiomatic.data.records import __all__\n", []),  # dunder
    ],
)
def test_the_private_import_check(
    tmp_path: Path, importer: str, code: str, expected: list[str]
) -> None:
    """The check fails on a planted private import and passes the allowed ones."""
    f = tmp_path / "axiomatic" / importer
    f.parent.mkdir(parents=True)
    f.write_text(code, encoding="utf-8")
    assert private_imports(tmp_path) == expected


# ---------------------------------------------------------------------- private attributes
def _private_definitions(src: Path) -> dict[str, set[str]]:
    """Private name -> the packages that define it: a function, method or class, an attribute
    assigned (``self._x = ...``), a module or class-level name (dataclass fields included)."""
    defined: dict[str, set[str]] = {}
    for path in sorted((src / "axiomatic").rglob("*.py")):
        pkg = _package(_module_name(path, src))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            names: list[str] = []
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names = [node.name]
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names = [node.attr]
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names = [node.id]
            for name in names:
                if _private(name):
                    defined.setdefault(name, set()).add(pkg)
    return defined


def _own_object(node: ast.expr) -> bool:
    """``self``, ``cls`` or ``super()``: the object whose class the code belongs to."""
    if isinstance(node, ast.Name):
        return node.id in ("self", "cls")
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"
    )


def private_attributes(src: Path = SRC) -> list[str]:
    """``"module:line reads x._name (defined in pkg)"`` for every access to a private attribute
    (``x._name`` or ``getattr(x, "_name")``, read or written) on an object other than
    ``self`` / ``cls`` / ``super()``, where ``_name`` is defined by other axiomatic packages
    and not by the accessing one: such an attribute is another package's internals (give it a
    public name or method in its home package). A name the accessing package also defines is
    taken as its own; a name no package defines is another library's
    (``tests/test_no_private_names.py``)."""
    defined = _private_definitions(src)
    out = []
    for path in sorted((src / "axiomatic").rglob("*.py")):
        mod = _module_name(path, src)
        pkg = _package(mod)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            target: ast.expr | None = None
            name = ""
            if isinstance(node, ast.Attribute) and _private(node.attr):
                target, name = node.value, node.attr
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "setattr", "hasattr")
                and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant)
                and isinstance(node.args[1].value, str)
                and _private(node.args[1].value)
            ):
                target, name = node.args[0], node.args[1].value
            if target is None or _own_object(target):
                continue
            homes = defined.get(name, set())
            if homes and pkg not in homes:
                where = ", ".join(sorted(h or "axiomatic" for h in homes))
                out.append(
                    f"{mod}:{node.lineno} reads {ast.unparse(target)}.{name} (defined in {where})"
                )
    return sorted(set(out))


#: private attributes read across packages that are tolerated (``module reads x._name``, line
#: numbers and homes left out): none
KNOWN_PRIVATE_ATTRIBUTES: set[str] = set()


def _attribute_key(entry: str) -> str:
    where, rest = entry.split(" reads ", 1)
    return f"{where.rsplit(':', 1)[0]} reads {rest.split(' (defined in', 1)[0]}"


def test_no_private_attributes_across_packages() -> None:
    bad = [b for b in private_attributes() if _attribute_key(b) not in KNOWN_PRIVATE_ATTRIBUTES]
    assert not bad, (
        "private attributes of another package's objects (give them a public name or method "
        "in their home package):\n" + "\n".join(bad)
    )


@pytest.mark.parametrize(
    "files, expected",
    [
        (  # a method of another package's class, called on its object
            {
                "diagnose/result.py": "class D:\n    def _keys(self):\n        return 1\n",
                "report/html.py": "def page(d):\n    return d._keys()\n",
            },
            ["axiomatic.report.html:2 reads d._keys (defined in diagnose)"],
        ),
        (  # a dataclass field written from another package
            {
                "axioms/context.py": "class C:\n    _cache: dict\n",
                "diagnose/artificial.py": "def f(new):\n    new._cache['x'] = 1\n",
            },
            ["axiomatic.diagnose.artificial:2 reads new._cache (defined in axioms)"],
        ),
        (  # an attribute assigned in __init__, read through getattr
            {
                "axioms/similarity.py": "class S:\n    def __init__(self):\n        self._tok = 1\n",
                "cli/x.py": "def f(s):\n    return getattr(s, '_tok')\n",
            },
            ["axiomatic.cli.x:2 reads s._tok (defined in axioms)"],
        ),
        (  # the own package, self / cls / super(), and other libraries' names pass
            {
                "axioms/similarity.py": "class S:\n    def _load(self):\n        return 1\n",
                "axioms/query_pairs.py": "def f(sim):\n    return sim._load()\n",
                "models/x.py": "class M:\n    def f(self):\n        return self._load(), "
                "super()._load()\n",
                "data/y.py": "def f(t):\n    return t._version, t._asdict()\n",
            },
            [],
        ),
    ],
)
def test_the_private_attribute_check(
    tmp_path: Path, files: dict[str, str], expected: list[str]
) -> None:
    """The check fails on planted cross-package accesses (the three it was written for) and
    passes the allowed ones."""
    for rel, code in files.items():
        f = tmp_path / "axiomatic" / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(code, encoding="utf-8")
    assert private_attributes(tmp_path) == expected
