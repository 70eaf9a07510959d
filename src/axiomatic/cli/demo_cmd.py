"""``axiomatic demo``: the main job end to end on the built-in demo collection."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from axiomatic.cli.app import app
from axiomatic.cli.common import ANALYZER_HELP, analyzer_or_exit, check_output_dir, console

DEMO_AXIOMS = (
    "TFC1,TFC2,TFC3,TDC,M-TDC,LNC1,LNC2,TF-LNC,LB2,STMC1,STMC2,STMC3,"
    "PROX1,PROX2,PROX3,PROX4,PROX5,REG,AND,DIV"
)


@app.command()
def demo(
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder.")] = Path("demo-output"),
    neural: Annotated[
        bool,
        typer.Option("--neural/--no-neural", help="Also diagnose the zero-shot MiniLM bi-encoder."),
    ] = True,
    axioms: Annotated[str, typer.Option(help="Axioms to mine (comma separated).")] = DEMO_AXIOMS,
    variant: Annotated[
        str, typer.Option(help="Axiom variant to mine: strict, extended or relaxed.")
    ] = "extended",
    analyzer: Annotated[str, typer.Option("--analyzer", help=ANALYZER_HELP)] = "default",
) -> None:
    """Index the demo collection, rank it with BM25/QL/RM3 (+ MiniLM), mine the axioms, diagnose
    every ranker and write the HTML report.

    Everything is written under OUT: runs/*.trec, instances/ (Parquet), report/ (HTML, CSV, PNG).
    """
    from axiomatic.axioms import parse_axioms
    from axiomatic.data.demo import demo_dataset
    from axiomatic.data.instances import read_instances
    from axiomatic.data.trec import write_run
    from axiomatic.diagnose.diagnosis import diagnose
    from axiomatic.diagnose.mining import mine
    from axiomatic.index.cache import dataset_index
    from axiomatic.rankers.base import rerank
    from axiomatic.rankers.registry import make_ranker
    from axiomatic.report.tables import effectiveness_table
    from axiomatic.report.writer import write_report

    an = analyzer_or_exit(analyzer)
    check_output_dir(out)
    out.mkdir(parents=True, exist_ok=True)
    ds = demo_dataset()
    c = ds.counts()
    console.print(
        f"[bold]demo collection[/]: {c['queries']} queries, {c['documents']} documents, "
        f"{c['qrels']} judgments, {c['candidates']} candidates"
    )
    index = dataset_index(ds, analyzer=an, cache_dir=out / "cache")
    console.print(f"[bold]index[/]: {escape(str(index))}")
    console.print(f"[bold]analyzer[/]: {escape(an.describe())}", highlight=False)

    rankers = [make_ranker(s, ds, index=index) for s in ("bm25", "ql", "rm3")]
    if neural:
        from axiomatic.models.ranker import minilm_bi_encoder_ranker

        rankers.append(minilm_bi_encoder_ranker())

    (out / "runs").mkdir(exist_ok=True)
    runs = {}
    for r in rankers:
        runs[r.name] = rerank(r, ds)
        write_run(runs[r.name], out / "runs" / f"{safe_filename(r.name)}.trec", tag=r.name)
    effectiveness = effectiveness_table(
        runs, ds.qrels or {}, "nDCG@10 RR@10 AP", rel_threshold=ds.rel_threshold
    )

    axiom_list = parse_axioms(axioms, default_variant=variant)
    summary = mine(ds, axiom_list, out / "instances", index=index, overwrite=True, progress=False)
    instances, artificial = read_instances(out / "instances")
    console.print(
        f"[bold]mined[/]: {len(instances)} instances of {instances['axiom'].nunique()} axioms "
        f"({len(artificial)} artificial LNC2 documents, {summary['pairs_examined']} pairs examined)"
    )

    diagnosis = diagnose(instances, rankers, ds, artificial, oracle=True)
    diagnosis.metadata["analyzer"] = an.describe()
    _print_demo_tables(diagnosis, effectiveness, [r.name for r in rankers])
    paths = write_report(
        diagnosis, effectiveness, out / "report", title="axiomatic demo", baseline=rankers[0].name
    )
    console.print(f"[bold green]report[/]: {escape(str(paths['html']))}")


def safe_filename(name: str) -> str:
    """A file name a shell takes unquoted: ``BM25(k1=0.9,b=0.4)`` -> ``BM25-k1-0.9-b-0.4``
    (runs of letters, digits, ``.``, ``_`` and ``-`` joined by ``-``)."""
    import re

    return "-".join(re.findall(r"[A-Za-z0-9._]+", name)) or "run"


def _print_demo_tables(diagnosis, effectiveness, names: list[str]) -> None:
    """Effectiveness (rankers x measures), then fulfilment transposed (axioms x rankers) so that
    twenty axioms fit an 80-column terminal."""
    from rich.table import Table

    from axiomatic.report.tables import effectiveness_wide

    short = {n: n.split("(")[0] for n in names}
    eff = effectiveness_wide(effectiveness)
    t = Table(title="retrieval effectiveness (demo, all queries)")
    t.add_column("ranker", style="bold")
    for m in eff.columns:
        t.add_column(str(m), justify="right")
    for name in eff.index:
        t.add_row(str(name), *(f"{v:.3f}" for v in eff.loc[name]))
    console.print(t)

    import numpy as np

    from axiomatic.diagnose.relations import SYMMETRIC_SUFFIX
    from axiomatic.report.tables import mined_description

    tab = diagnosis.table()
    tab = tab[tab["ranker"].isin(names)].copy()
    # one row per axiom, and one per axiom's equality group ("M-TDC [equal]"), as in the report
    tab["row"] = tab["axiom"] + np.where(
        tab["spec"].str.endswith(SYMMETRIC_SUFFIX), SYMMETRIC_SUFFIX, ""
    )
    t = Table(
        title="% of axiom instances fulfilled (instances per axiom in brackets; "
        f"{mined_description(diagnosis)})"
    )
    t.add_column("axiom", style="bold")
    for n in names:
        t.add_column(short[n], justify="right")
    order = {a: i for i, a in enumerate(a.strip() for a in DEMO_AXIOMS.split(","))}
    rows = sorted(
        tab["row"].unique(),
        key=lambda r: (order.get(r.removesuffix(SYMMETRIC_SUFFIX), len(order)), r),
    )
    for row in rows:
        grp = tab[tab["row"] == row]
        by = grp.groupby("ranker")[["n", "fulfilled"]].sum()
        cells = []
        for n in names:
            if n in by.index and by.loc[n, "n"] > 0:
                cells.append(f"{100 * by.loc[n, 'fulfilled'] / by.loc[n, 'n']:.0f}%")
            else:
                cells.append("-")
        t.add_row(escape(f"{row} ({int(by['n'].max())})"), *cells)
    console.print(t)
