"""Write a diagnosis report to a folder: CSV/JSON tables, PNG plots and a self-contained HTML page.

The folder is written as a unit: every file is first written into a staging folder inside it
(``.report-staging/``) while the earlier report stays complete; then the folder is marked
incomplete (``INCOMPLETE.txt``, :func:`axiomatic._atomic.mark_incomplete`), the new files are
moved in (renames), the earlier report's other files removed, the manifest written and the mark
removed. A writer killed at any point leaves the earlier report complete or the folder marked;
the next report into the folder repairs it, and :meth:`Diagnosis.load` refuses a marked one.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from axiomatic._atomic import atomic_write_bytes, mark_complete, mark_incomplete
from axiomatic.diagnose.result import Diagnosis
from axiomatic.report import tables


def _text(path: Path, text: str) -> Path:
    return atomic_write_bytes(path, text.encode("utf-8"))


def view_table(diagnosis: Diagnosis, table: str) -> Any:
    """``table`` ("table", "by_relevance", "mcnemar", "delta_sweep") of every view, stacked,
    with the ``view`` first and the length tolerance (``delta_star``, ``length_tolerance``)
    next to each axiom group."""
    import pandas as pd

    frames = []
    for view, d in tables.view_diagnoses(diagnosis):
        f = getattr(d, table)()
        if "spec" in f:
            tol = {s: tables.length_tolerance(s) for s in f["spec"].drop_duplicates()}
            at = list(f.columns).index("spec") + 1
            f.insert(at, "length_tolerance", [tol[s][1] for s in f["spec"]])
            f.insert(at, "delta_star", [tol[s][0] for s in f["spec"]])
        f.insert(0, "view", view or "all")
        frames.append(f)
    return pd.concat(frames, ignore_index=True)


def _label_partial_csvs(paths: dict[str, Path], label: str) -> None:
    """Give every written CSV table a leading ``partial`` column holding ``label``, so that a
    table of an unfinished mining output cannot be read, or plotted, as the full result."""
    import csv
    import io

    for key, path in paths.items():
        if not key.endswith("_csv"):
            continue
        with open(path, encoding="utf-8", newline="") as fh:
            rows = list(csv.reader(fh))
        if not rows or rows[0][:1] == ["partial"]:
            continue
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(["partial", *rows[0]])
        writer.writerows([label, *row] for row in rows[1:])
        _text(path, buf.getvalue())


def _label_sample_csvs(paths: dict[str, Path], sample: str) -> None:
    """Give every written CSV table that lacks it a last column ``sample`` holding the probe
    sample's hash, so that a table says which instances it was computed on."""
    import csv
    import io

    for key, path in paths.items():
        if not key.endswith("_csv"):
            continue
        with open(path, encoding="utf-8", newline="") as fh:
            rows = list(csv.reader(fh))
        if not rows or "sample" in rows[0]:
            continue
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow([*rows[0], "sample"])
        writer.writerows([*row, sample] for row in rows[1:])
        _text(path, buf.getvalue())


FULL_NAMES = "full_names"
"""``Diagnosis.metadata`` key: shown name -> full name of the rankers whose names tables and
plots show shortened (``axiomatic diagnose`` cuts names longer than 24 characters)."""

_NAME_COLUMNS = ("ranker", "ranker_a", "ranker_b", "system")


def csv_text(frame: Any, diagnosis: Diagnosis, index: bool = False) -> str:
    """``frame`` as CSV with every ranker name whole: a name the tables show shortened
    (``RM3(fb_docs=10,fb_terms…``) is written as the ranker's full name
    (``metadata["full_names"]``), in the ranker columns and (``index=True``) the index."""
    full = diagnosis.metadata.get(FULL_NAMES) if isinstance(diagnosis.metadata, dict) else None
    if full:
        frame = frame.copy()
        for col in _NAME_COLUMNS:
            if col in frame.columns:
                frame[col] = frame[col].map(lambda v: full.get(v, v) if isinstance(v, str) else v)
        if "family" in frame.columns:  # "paired t-test vs <baseline>; ..."

            def whole(text: Any) -> Any:
                if not isinstance(text, str):
                    return text
                for short, name in full.items():
                    text = text.replace(f"vs {short};", f"vs {name};")
                return text

            frame["family"] = frame["family"].map(whole)
        if index:
            frame = frame.rename(index=lambda v: full.get(v, v) if isinstance(v, str) else v)
    return str(frame.to_csv(index=index))


def effectiveness_records(effectiveness: Any) -> Any:
    """The long effectiveness table with the significance test and its Holm family on every
    row (``test``, ``family``: what the terminal and HTML captions say), so that a CSV of it
    cannot be read without them."""
    eff = tables.normalize_effectiveness(effectiveness).copy()
    attrs = dict(eff.attrs)
    eff["test"] = attrs.get("test") if len(eff) and attrs.get("test") is not None else None
    eff["family"] = tables.effectiveness_family(eff) or None if len(eff) else None
    eff.attrs = attrs
    return eff


def report_document(
    diagnosis: Diagnosis, effectiveness: Any = None, main_table: Any = None
) -> dict[str, Any]:
    """Everything a diagnosis report holds, as the JSON of ``diagnosis.json`` (and of
    ``axiomatic diagnose --format json``): the diagnosis, its table per view, the layout
    titles and, with ``effectiveness``, its rows with the test, the Holm family and the
    baseline."""
    import json

    if main_table is None:
        main_table = view_table(diagnosis, "table")
    data = diagnosis.to_dict()
    main = [r for r in json.loads(main_table.to_json(orient="records"))]
    primary = main_table["view"].iloc[0] if len(main_table) else "all"
    data["table"] = [r for r in main if r["view"] == primary]
    data["view"] = diagnosis.view
    data["views"] = {
        v: {
            "table": [r for r in main if r["view"] == v],
            "skips": d.skips,
        }
        for v, d in tables.view_diagnoses(diagnosis)[1:]
    }
    data["layout"] = {
        "4.5": tables.layout_title(diagnosis),
        "4.6": tables.layout_title(diagnosis, "4.6"),
    }
    eff = effectiveness_records(effectiveness)
    if len(eff):
        data["effectiveness"] = {
            "baseline": eff.attrs.get("baseline"),
            "test": eff["test"].iloc[0],
            "family": eff["family"].iloc[0],
            "results": json.loads(eff.to_json(orient="records")),
        }
    return data


def write_report(
    diagnosis: Diagnosis,
    effectiveness: Any = None,
    out_dir: str | os.PathLike[str] = "report",
    *,
    title: str = "Axiomatic diagnosis",
    measure: str | None = None,
    baseline: str | None = None,
    plots: bool = True,
    notes: Sequence[str] = (),
    min_n: int = tables.MIN_N,
    mean_over: Sequence[str] | None = None,
) -> dict[str, Path]:
    """Write the full report of ``diagnosis`` into ``out_dir`` and return the paths by name.

    ``effectiveness``: long table from :func:`axiomatic.report.tables.effectiveness_table`, a wide
    table (index = ranker, one column per measure), a mapping, or ``None``. ``measure`` is the one
    correlated with axiomatic performance, the same in ``correlation.csv``, ``correlation.png``
    and the HTML, and named on each (default: nDCG@10 when present, else the first measure).
    ``min_n``: a fraction over fewer instances is left out of the correlations and the mean over
    axioms (shown hollow in the figure, its count in the tables); ``mean_over``: the axioms of
    that mean (default: every directional group each system has ``min_n`` instances of).

    A folder holding an earlier report is cleaned of the files that report wrote (listed in its
    ``report_manifest.json``; for reports older than the manifest, the file names a report
    writes) and this report does not write again, so that no stale figure or table stays beside
    the new ones; other files in the folder are left alone.

    Files: ``diagnosis.csv`` (per ranker x axiom), ``by_relevance.csv``, ``mcnemar.csv``,
    ``delta_sweep.csv``, ``overview.csv`` (numeric Table 4.5), ``effectiveness.csv``,
    ``correlation.csv``, ``diagnosis.json`` (everything), ``diagnosis_state/`` (reloadable with
    :meth:`Diagnosis.load`), PNGs (``bars.png``, ``delta_sweep.png``, ``delta_diff.png``,
    ``correlation.png``), ``report.html`` and ``report_manifest.json`` (the files written).
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stage = out / STAGING
    if stage.exists():  # left by a writer killed before it moved anything in
        shutil.rmtree(stage)
    stage.mkdir()
    try:
        staged = _write_files(
            diagnosis,
            effectiveness,
            stage,
            title=title,
            measure=measure,
            baseline=baseline,
            plots=plots,
            notes=notes,
            min_n=min_n,
            mean_over=mean_over,
        )
        paths = {k: out / Path(p).relative_to(stage) for k, p in staged.items()}
        paths["manifest"] = _move_in(out, stage, staged)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return paths


STAGING = ".report-staging"
"""The folder inside a report folder where a report is written before it is moved in."""


def _move_in(out: Path, stage: Path, staged: dict[str, Path]) -> Path:
    """Replace the report in ``out`` by the one in ``stage`` (see the module docstring)."""
    previous = previous_report_files(out)
    written = sorted({f for p in staged.values() for f in _files_of(Path(p), stage)})
    mark_incomplete(out, "a diagnosis report")
    # every file of either report listed first: a re-run after a kill removes all it replaces
    _write_file_list(out, sorted(set(previous) | set(written)))
    for rel in written:
        _move(stage / rel, out / rel)
    manifest = _write_manifest(out, written, previous)
    mark_complete(out)
    return manifest


def _move(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    os.replace(source, target)


def _write_files(
    diagnosis: Diagnosis,
    effectiveness: Any,
    out: Path,
    *,
    title: str,
    measure: str | None,
    baseline: str | None,
    plots: bool,
    notes: Sequence[str],
    min_n: int,
    mean_over: Sequence[str] | None,
) -> dict[str, Path]:
    """Write every file of the report into the (empty) folder ``out``; the paths by name."""
    paths: dict[str, Path] = {}
    main_table = view_table(diagnosis, "table")
    paths["diagnosis_csv"] = _text(out / "diagnosis.csv", csv_text(main_table, diagnosis))
    paths["by_relevance_csv"] = _text(
        out / "by_relevance.csv", csv_text(view_table(diagnosis, "by_relevance"), diagnosis)
    )
    paths["mcnemar_csv"] = _text(
        out / "mcnemar.csv", csv_text(view_table(diagnosis, "mcnemar"), diagnosis)
    )
    has_len = "len_diff_rel" in diagnosis.instances
    sweep = diagnosis.delta_sweep() if has_len else None
    if sweep is not None:
        paths["delta_sweep_csv"] = _text(
            out / "delta_sweep.csv", csv_text(view_table(diagnosis, "delta_sweep"), diagnosis)
        )
    import json

    from axiomatic.diagnose.result import json_default

    data = report_document(diagnosis, effectiveness, main_table)
    paths["json"] = _text(out / "diagnosis.json", json.dumps(data, indent=2, default=json_default))
    paths["state"] = diagnosis.save(out / "diagnosis_state")

    eff_long = tables.normalize_effectiveness(effectiveness)
    wide = tables.effectiveness_wide(eff_long) if len(eff_long) else None
    if wide is not None:
        paths["effectiveness_csv"] = _text(
            out / "effectiveness.csv", csv_text(effectiveness_records(eff_long), diagnosis)
        )
        measure = tables.default_measure(wide, measure)
        paths["correlation_csv"] = _text(
            out / "correlation.csv",
            csv_text(
                tables.correlation_frame(diagnosis, wide, measure, min_n, mean_over), diagnosis
            ),
        )
    paths["overview_csv"] = _text(
        out / "overview.csv",
        csv_text(
            tables.overview_numbers(diagnosis, eff_long if len(eff_long) else None),
            diagnosis,
            index=True,
        ),
    )

    images: dict[str, bytes] = {}
    if plots:
        from axiomatic.report import plots as P

        images["bars"] = P.plot_axiom_bars(diagnosis, out / "bars.png")
        paths["bars_png"] = out / "bars.png"
        if sweep is not None and len(sweep):
            images["delta_sweep"] = P.plot_delta_sweep(
                diagnosis, out / "delta_sweep.png", sweep=sweep, min_n=min_n
            )
            images["delta_diff"] = P.plot_delta_sweep(
                diagnosis, out / "delta_diff.png", value="diff_vs_0", sweep=sweep, min_n=min_n
            )
            paths["delta_sweep_png"] = out / "delta_sweep.png"
            paths["delta_diff_png"] = out / "delta_diff.png"
        n_eff = (
            0
            if wide is None
            else len(
                [r for r in wide.index if r in diagnosis.rankers and r not in diagnosis.references]
            )
        )
        if wide is not None and n_eff >= 2:
            images["correlation"] = P.plot_correlation(
                diagnosis, wide, measure, out / "correlation.png", min_n=min_n, mean_over=mean_over
            )
            paths["correlation_png"] = out / "correlation.png"

    from axiomatic.report.html import render_html

    page = render_html(
        diagnosis,
        eff_long if len(eff_long) else None,
        images,
        title=title,
        notes=notes,
        baseline=baseline,
        min_n=min_n,
        measure=measure,
        mean_over=mean_over,
    )
    paths["html"] = _text(out / "report.html", page)
    _label_sample_csvs(paths, diagnosis.sample)
    if getattr(diagnosis, "partial", None):
        _label_partial_csvs(paths, str(diagnosis.partial))
    return paths


MANIFEST = "report_manifest.json"
"""The files a report wrote (relative to its folder); the next report into the folder removes
those it does not write again."""
REPORT_FILES = (
    "diagnosis.csv",
    "by_relevance.csv",
    "mcnemar.csv",
    "delta_sweep.csv",
    "overview.csv",
    "effectiveness.csv",
    "correlation.csv",
    "diagnosis.json",
    "bars.png",
    "delta_sweep.png",
    "delta_diff.png",
    "correlation.png",
    "report.html",
)
"""Every file name :func:`write_report` may write at the top of its folder (besides the
``diagnosis_state/`` folder): what an earlier report without a manifest may have left."""


def _files_of(path: Path, root: Path) -> list[str]:
    if path.is_dir():
        return sorted(p.relative_to(root).as_posix() for p in path.rglob("*") if p.is_file())
    return [path.relative_to(root).as_posix()] if path.is_file() else []


def previous_report_files(out: Path) -> list[str]:
    """Files of an earlier report in ``out`` (relative paths): those its manifest lists, or,
    without a manifest, the report file names (:data:`REPORT_FILES`) present there."""
    import json

    manifest = out / MANIFEST
    if manifest.is_file():
        try:
            listed = json.loads(manifest.read_text(encoding="utf-8")).get("files", [])
        except (OSError, ValueError, AttributeError, RecursionError):
            listed = []
        return [str(f) for f in listed if isinstance(f, str)]
    return [f for f in REPORT_FILES if (out / f).is_file()]


def _write_file_list(out: Path, files: list[str]) -> Path:
    import json

    return _text(
        out / MANIFEST,
        json.dumps({"generator": "axiomatic.report.writer.write_report", "files": files}, indent=1)
        + "\n",
    )


def _write_manifest(out: Path, written: list[str], previous: list[str]) -> Path:
    """Remove the earlier report's files that this one did not write again, then list this
    report's files in :data:`MANIFEST`. Only plain files inside ``out`` are ever removed."""
    root = out.resolve()
    for rel in sorted(set(previous) - set(written) - {MANIFEST}):
        target = (out / rel).resolve()
        if root not in target.parents or not target.is_file():
            continue  # never outside the folder, never a folder
        target.unlink()
    return _write_file_list(out, written)
