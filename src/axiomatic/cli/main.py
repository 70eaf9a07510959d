"""Entry point of the ``axiomatic`` command: imports the command modules, which register on ``app``."""

from __future__ import annotations

import importlib

from axiomatic.cli.app import app

# Each module registers its commands on ``app`` when imported; a module that is missing (an
# optional area not installed) only removes its commands.
for _mod in (
    "axiomatic.cli.data_cmds",
    "axiomatic.cli.collection_cmds",
    "axiomatic.cli.axiom_cmds",
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


def main() -> None:  # pragma: no cover
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
