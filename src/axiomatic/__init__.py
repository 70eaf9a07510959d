"""Axiomatic neural IR: diagnose rankers with IR axioms, train and pre-train rankers with them.

The documented workflow in a few names (each imported on first use, so ``import axiomatic`` stays
instant and loads neither torch, pandas nor matplotlib)::

    import axiomatic as ax

    ds = ax.load_dataset("demo")
    bm25 = ax.make_ranker("bm25", ds)
    info = ax.mine(ds, ax.parse_axioms("TFC1,M-TDC,LNC2"), "instances/")
    instances, artificial = ax.read_instances("instances/")
    diagnosis = ax.diagnose(instances, [bm25], ds, artificial)
    print(diagnosis.table())
    print(ax.evaluate(ax.rerank(bm25, ds), ds.qrels, "nDCG@10 AP"))
"""

# Only the documented API is public here: no helper is imported at module level, and dir()
# lists __all__. The names are bound lazily by __getattr__ (PEP 562).


def _package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("axiomatic-ir")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
        return "0.0.0+unknown"


__version__ = _package_version()

# public name -> (module, attribute); resolved lazily by __getattr__
_API: dict[str, tuple[str, str]] = {
    "load_dataset": ("axiomatic.data.catalog", "load_dataset"),
    "list_datasets": ("axiomatic.data.catalog", "list_datasets"),
    "demo_dataset": ("axiomatic.data.demo", "demo_dataset"),
    "read_run": ("axiomatic.data.trec", "read_run"),
    "write_run": ("axiomatic.data.trec", "write_run"),
    "read_qrels": ("axiomatic.data.trec", "read_qrels"),
    "write_qrels": ("axiomatic.data.trec", "write_qrels"),
    "Analyzer": ("axiomatic.text.analyzer", "Analyzer"),
    "parse_analyzer": ("axiomatic.text.analyzer", "parse_analyzer"),
    "make_ranker": ("axiomatic.rankers.registry", "make_ranker"),
    "list_rankers": ("axiomatic.rankers.registry", "list_rankers"),
    "register_ranker": ("axiomatic.rankers.registry", "register_ranker"),
    "Ranker": ("axiomatic.rankers.base", "Ranker"),
    "rerank": ("axiomatic.rankers.base", "rerank"),
    "parse_axiom": ("axiomatic.axioms.spec", "parse_axiom"),
    "parse_axioms": ("axiomatic.axioms.spec", "parse_axioms"),
    "list_axioms": ("axiomatic.axioms.spec", "list_axioms"),
    "mine": ("axiomatic.diagnose.mining", "mine"),
    "read_instances": ("axiomatic.data.instances", "read_instances"),
    "diagnose": ("axiomatic.diagnose.diagnosis", "diagnose"),
    "axiomatic_rerank": ("axiomatic.diagnose.rerank", "axiomatic_rerank"),
    "evaluate": ("axiomatic.evaluate.api", "evaluate"),
    "evaluate_per_query": ("axiomatic.evaluate.metrics", "evaluate_per_query"),
    "write_report": ("axiomatic.report.writer", "write_report"),
}

__all__ = ["__version__", *_API]

# ``diagnose`` and ``evaluate`` name both a function of the API and a subpackage, and Python
# binds a subpackage to this module's attribute when the subpackage is first imported. Both
# subpackages (their __init__ imports nothing) are imported now and the bindings dropped, so
# that no later import binds them again and ``axiomatic.diagnose`` is the function. Reach the
# subpackages' modules with ``from axiomatic.diagnose import mining`` or ``from
# axiomatic.diagnose.mining import mine`` (``import axiomatic.diagnose.mining as m`` would
# look ``mining`` up on the function).
from axiomatic import diagnose as _diagnose_package  # noqa: E402
from axiomatic import evaluate as _evaluate_package  # noqa: E402

del _diagnose_package, _evaluate_package
globals().pop("diagnose", None)
globals().pop("evaluate", None)


def __getattr__(name: str) -> object:
    try:
        module, attr = _API[name]
    except KeyError:
        from axiomatic._suggest import suggest

        hint = suggest(name, _API, n=2, cutoff=0.6)
        raise AttributeError(f"module 'axiomatic' has no attribute {name!r}{hint}") from None
    import importlib

    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value  # cache: the next access is a plain attribute lookup
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
