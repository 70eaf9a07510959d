"""Entry point of the ``axiomatic`` command: imports the command modules, which register on ``app``."""

from __future__ import annotations

import importlib

from axiomatic.cli.app import app

# Each module registers its commands on ``app`` when imported; a module that is missing (an
# optional area not installed) only removes its commands.
for _mod in (
    "axiomatic.cli.data_cmds",
    "axiomatic.cli.evaluate_cmd",
    "axiomatic.cli.collection_cmds",
    "axiomatic.cli.axiom_cmds",
    "axiomatic.cli.diagnose_cmd",
    "axiomatic.cli.rerank_cmd",
    "axiomatic.cli.train_cmds",
    "axiomatic.cli.demo_cmd",
    "axiomatic.cli.explain_cmds",
    "axiomatic.cli.ares_cmds",
):
    try:
        importlib.import_module(_mod)
    except ModuleNotFoundError as exc:  # pragma: no cover - only while a module is absent
        if exc.name != _mod:
            raise


# `axiomatic --help` lists the commands in the order of a session (a module holds several, and
# the axiom commands span three modules); a command not named here follows, as registered.
COMMAND_ORDER = (
    "models", "rankers", "datasets", "rank", "evaluate", "axioms", "mine", "diagnose", "probe",
    "rerank", "counts", "train", "experiment", "demo", "explain", "patch", "pretrain",
)  # fmt: skip


def _place(command: object) -> int:
    name = getattr(command, "name", None) or getattr(
        getattr(command, "callback", None), "__name__", ""
    )
    return COMMAND_ORDER.index(name) if name in COMMAND_ORDER else len(COMMAND_ORDER)


app.registered_commands.sort(key=_place)


def main() -> None:  # pragma: no cover
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
