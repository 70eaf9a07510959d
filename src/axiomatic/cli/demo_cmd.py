"""``axiomatic demo``: the main job end to end on the built-in demo collection."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from axiomatic.cli.app import app
from axiomatic.cli.common import console, err_console

DEMO_AXIOMS = (
    "TFC1,TFC2,TFC3,TDC,M-TDC,LNC1,LNC2,TF-LNC,LB1,LB2,STMC1,STMC2,STMC3,"
    "PROX1,PROX2,PROX3,PROX4,PROX5,REG,AND,DIV"
)


@app.command()
def demo(
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder.")] = Path("demo-output"),
    neural: Annotated[
        bool,
        typer.Option(
            "--neural/--no-neural", help="Also diagnose the zero-shot MiniLM bi-encoder."
        ),
    ] = True,
    axioms: Annotated[str, typer.Option(help="Axioms to mine (comma separated).")] = DEMO_AXIOMS,
    variant: Annotated[
        str, typer.Option(help="Axiom variant to mine: strict, extended or relaxed.")
    ] = "extended",
) -> None:
    """Index the demo collection, rank it with BM25/QL/RM3 (+ MiniLM), mine the axioms, diagnose
    every ranker and write the HTML report.

    Everything is written under OUT: runs/*.trec, instances/ (Parquet), report/ (HTML, CSV, PNG).
    """
    from axiomatic.data.demo import demo_dataset
    from axiomatic.data.trec import write_run
    from axiomatic.diagnose.diagnosis import diagnose
    from axiomatic.diagnose.mining import mine, read_instances
    from axiomatic.evaluate.metrics import evaluate_per_query
    from axiomatic.index.cache import dataset_index
    from axiomatic.rankers.base import rerank
    from axiomatic.rankers.registry import make_ranker
    from axiomatic.report import write_report
    from axiomatic.axioms import parse_axioms

    out.mkdir(parents=True, exist_ok=True)
    ds = demo_dataset()
    c = ds.counts()
    console.print(
        f"[bold]demo collection[/]: {c['queries']} queries, {c['documents']} documents, "
        f"{c['qrels']} judgments, {c['candidates']} candidates"
    )
    index = dataset_index(ds, cache_dir=out / "index")
    console.print(f"[bold]index[/]: {index}")

    rankers = [make_ranker(s, ds, index=index) for s in ("bm25", "ql", "rm3")]
    if neural:
        try:
            from axiomatic.models.io import minilm_bi_encoder_ranker

            rankers.append(minilm_bi_encoder_ranker())
        except ImportError as exc:  # the model package is a dependency; say so if it is missing
            err_console.print(f"[yellow]skipping the MiniLM bi-encoder:[/] {exc}")

    measures = ["nDCG@10", "RR@10", "AP"]
    effectiveness = {}
    (out / "runs").mkdir(exist_ok=True)
    for r in rankers:
        run = rerank(r, ds)
        write_run(run, out / "runs" / f"{r.name}.trec", tag=r.name)
        effectiveness[r.name] = evaluate_per_query(
            run, ds.qrels or {}, measures, rel_threshold=ds.rel_threshold
        )

    axiom_list = parse_axioms(axioms, variant=variant)
    summary = mine(ds, axiom_list, out / "instances", index=index)
    instances, artificial = read_instances(out / "instances")
    console.print(f"[bold]mined[/]: {len(instances)} instances ({summary})")

    diagnosis = diagnose(instances, rankers, ds, artificial)
    paths = write_report(diagnosis, effectiveness, out / "report", title="axiomatic demo")
    from axiomatic.report.tables import print_table_4_5

    print_table_4_5(diagnosis, effectiveness, baseline=rankers[0].name, console=console)
    console.print(f"[bold green]report[/]: {paths['html']}")
