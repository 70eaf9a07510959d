"""Named registries: one lookup rule and one refusal for models, rankers, objectives and
experiments.

A :class:`Registry` maps canonical names to entries. A name is looked up forgiving case, ``_``
for ``-`` and spaces (``Conv_KNRM`` -> ``conv-knrm``), then hyphens altogether (``convknrm``),
then through the registry's aliases (``cknrm``); anything else is refused in one line naming
the kind of thing, the accepted names and the close matches of :mod:`axiomatic._suggest`::

    unknown model 'knmr' (did you mean 'knrm'?); expected one of knrm, conv-knrm, ...

Entries may be given as ``"package.module:attribute"`` strings, imported on first use
(:meth:`Registry.load`), so that a registry of heavy classes costs nothing to import.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator, Mapping
from typing import Generic, TypeVar

from axiomatic._suggest import close_matches, did_you_mean

__all__ = ["Registry", "UnknownNameError", "registry_key"]

T = TypeVar("T")


class UnknownNameError(ValueError, KeyError):
    """A name no registry entry or alias matches (a ``ValueError`` and a ``KeyError``)."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


def registry_key(name: str) -> str:
    """The form names are compared in: stripped, lower case, ``_`` and spaces as ``-``."""
    return str(name).strip().lower().replace("_", "-").replace(" ", "-")


class Registry(Generic[T]):
    """Canonical name -> entry, with aliases and one refusal for unknown names.

    ``what`` names the kind of thing in messages (``"model"``, ``"graded loss"``).
    """

    def __init__(
        self,
        what: str,
        entries: Mapping[str, T] | None = None,
        aliases: Mapping[str, str] | None = None,
    ) -> None:
        self.what = what
        self._entries: dict[str, T] = {}
        self._aliases: dict[str, str] = {}
        for name, entry in (entries or {}).items():
            self.register(name, entry)
        for alias, name in (aliases or {}).items():
            self.alias(alias, name)

    # ---------------------------------------------------------------- building
    def register(self, name: str, entry: T, aliases: Iterable[str] = ()) -> T:
        """Add ``entry`` under ``name`` (its canonical spelling) and ``aliases``."""
        key = registry_key(name)
        if key != name:
            raise ValueError(
                f"{self.what} name {name!r} is not canonical: write it as {key!r} "
                "(lower case, '-' between words)"
            )
        if key in self._entries or key in self._aliases:
            raise ValueError(f"{self.what} {name!r} is registered twice")
        self._entries[key] = entry
        for alias in aliases:
            self.alias(alias, key)
        return entry

    def alias(self, alias: str, name: str) -> None:
        """Let ``alias`` stand for the registered ``name``."""
        if name not in self._entries:
            raise ValueError(f"alias {alias!r} names no registered {self.what} ({name!r})")
        key = registry_key(alias)
        if key in self._entries or self._aliases.get(key, name) != name:
            raise ValueError(f"{self.what} alias {alias!r} is taken")
        self._aliases[key] = name

    # ---------------------------------------------------------------- lookup
    def find(self, name: str) -> str | None:
        """The canonical name ``name`` stands for, or ``None``."""
        key = registry_key(name)
        if key in self._entries:
            return key
        if key in self._aliases:
            return self._aliases[key]
        squashed = key.replace("-", "")
        for canonical in self._entries:
            if canonical.replace("-", "") == squashed:
                return canonical
        for alias, canonical in self._aliases.items():
            if alias.replace("-", "") == squashed:
                return canonical
        return None

    def hint(self, name: str, n: int = 3) -> str:
        """`` (did you mean 'a' or 'b'?)`` for an unknown ``name``, ``""`` when nothing is
        close: close to a name or an alias, an alias shown as the name it stands for."""
        close = close_matches(registry_key(name), [*self._entries, *self._aliases], n=n)
        return did_you_mean(self._aliases.get(c, c) for c in close)

    def resolve(self, name: str) -> str:
        """The canonical name ``name`` stands for; :class:`UnknownNameError` if none."""
        found = self.find(name)
        if found is None:
            hint = self.hint(name)
            raise UnknownNameError(
                f"unknown {self.what} {str(name).strip()!r}{hint}; expected one of "
                f"{', '.join(self._entries)}"
            )
        return found

    def get(self, name: str) -> T:
        """The entry ``name`` stands for (as registered: a lazy entry stays a string)."""
        return self._entries[self.resolve(name)]

    def load(self, name: str) -> object:
        """The entry, with a ``"module:attribute"`` string imported."""
        entry = self.get(name)
        if isinstance(entry, str) and ":" in entry:
            module, _, attr = entry.partition(":")
            return getattr(importlib.import_module(module), attr)
        return entry

    # ---------------------------------------------------------------- listing
    def names(self) -> list[str]:
        """The canonical names, in registration order."""
        return list(self._entries)

    def aliases(self) -> dict[str, str]:
        """alias -> canonical name."""
        return dict(self._aliases)

    def items(self) -> Iterator[tuple[str, T]]:
        return iter(self._entries.items())

    def values(self) -> list[T]:
        """The entries, in registration order."""
        return list(self._entries.values())

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.find(name) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"Registry({self.what!r}, {self.names()})"
