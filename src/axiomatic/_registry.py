"""Named registries: one lookup rule and one refusal for models, rankers, objectives and
experiments.

A :class:`Registry` maps canonical names to entries. A name is looked up forgiving case, ``_``
for ``-`` and spaces (``Conv_KNRM`` -> ``conv-knrm``), then hyphens altogether (``convknrm``),
then through the registry's aliases (``cknrm``); anything else is refused in one line naming
the kind of thing, the accepted names and the close matches of :mod:`axiomatic._suggest`::

    unknown model 'knmr' (did you mean 'knrm'?); expected one of knrm, conv-knrm, ...

Entries may be given as ``"package.module:attribute"`` strings, imported on first use
(:meth:`Registry.load`), so that a registry of heavy classes costs nothing to import.

A registry may name an entry point group (``Registry("ranker", entry_points="axiomatic.rankers")``):
other installed packages then add entries without anyone importing them first. An entry point
is read when its name is looked up and not registered yet, or when the registry is listed; its
object is imported, and either registers itself on import (a function or class under the
registry's decorator) or is turned into an entry by the registry's ``adapt``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Generic, TypeVar

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

    ``what`` names the kind of thing in messages (``"model"``, ``"graded loss"``);
    ``entry_points`` the group of installed packages' entries (see the module docstring), and
    ``adapt(name, loaded)`` the entry for an entry point whose object did not register itself
    (``None``: such an entry point is an error).
    """

    def __init__(
        self,
        what: str,
        entries: Mapping[str, T] | None = None,
        aliases: Mapping[str, str] | None = None,
        *,
        entry_points: str | None = None,
        adapt: Callable[[str, Any], T] | None = None,
    ) -> None:
        self.what = what
        self.entry_point_group = entry_points
        self._adapt = adapt
        self._entries: dict[str, T] = {}
        self._aliases: dict[str, str] = {}
        self._plugins_read: set[str] = set()
        self._all_read = False
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

    def unregister(self, name: str) -> T:
        """Remove the entry ``name`` stands for, and its aliases; returns the entry."""
        key = self.resolve(name)
        self._aliases = {a: n for a, n in self._aliases.items() if n != key}
        return self._entries.pop(key)

    def alias(self, alias: str, name: str) -> None:
        """Let ``alias`` stand for the registered ``name``."""
        if name not in self._entries:
            raise ValueError(f"alias {alias!r} names no registered {self.what} ({name!r})")
        key = registry_key(alias)
        if key in self._entries or self._aliases.get(key, name) != name:
            raise ValueError(f"{self.what} alias {alias!r} is taken")
        self._aliases[key] = name

    # ---------------------------------------------------------------- entry points
    def _entry_points(self) -> list[Any]:
        if self.entry_point_group is None:
            return []
        from importlib.metadata import entry_points

        return sorted(entry_points(group=self.entry_point_group), key=lambda ep: ep.name)

    def _read_entry_point(self, ep: Any) -> None:
        """Import entry point ``ep`` (once) and make sure its name is registered."""
        key = registry_key(ep.name)
        if key in self._plugins_read:
            return
        self._plugins_read.add(key)
        where = f"entry point {ep.name!r} = {ep.value!r} of group {self.entry_point_group!r}"
        try:
            loaded = ep.load()
        except Exception as exc:
            raise ValueError(
                f"{where} could not be loaded ({type(exc).__name__}: {exc}); fix or uninstall "
                "the package that declares it"
            ) from exc
        if key in self._entries or key in self._aliases:
            return  # it registered itself on import (the registry's decorator)
        if self._adapt is None:
            raise ValueError(
                f"{where} registered no {self.what} named {key!r}; register it under that name "
                "when its module is imported"
            )
        self.register(key, self._adapt(key, loaded))

    def read_entry_points(self) -> None:
        """Register every entry point of the registry's group (listing calls this; the
        installed packages are scanned once)."""
        if self._all_read:
            return
        for ep in self._entry_points():
            self._read_entry_point(ep)
        self._all_read = True

    # ---------------------------------------------------------------- lookup
    def find(self, name: str) -> str | None:
        """The canonical name ``name`` stands for, or ``None`` (an entry point of that name
        is read first when no entry has it)."""
        found = self._find(name)
        if found is None and self.entry_point_group is not None:
            key = registry_key(name)
            for ep in self._entry_points():
                if registry_key(ep.name).replace("-", "") == key.replace("-", ""):
                    self._read_entry_point(ep)
            found = self._find(name)
        return found

    def _find(self, name: str) -> str | None:
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
        self.read_entry_points()
        close = close_matches(registry_key(name), [*self._entries, *self._aliases], n=n)
        return did_you_mean(self._aliases.get(c, c) for c in close)

    def resolve(self, name: str) -> str:
        """The canonical name ``name`` stands for; :class:`UnknownNameError` if none."""
        found = self.find(name)
        if found is None:
            hint = self.hint(name)
            raise UnknownNameError(
                f"unknown {self.what} {str(name).strip()!r}{hint}; expected one of "
                f"{', '.join(self.names())}"
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
        """The canonical names, in registration order (entry points read first)."""
        self.read_entry_points()
        return list(self._entries)

    def aliases(self) -> dict[str, str]:
        """alias -> canonical name."""
        return dict(self._aliases)

    def items(self) -> Iterator[tuple[str, T]]:
        self.read_entry_points()
        return iter(list(self._entries.items()))

    def values(self) -> list[T]:
        """The entries, in registration order (entry points read first)."""
        self.read_entry_points()
        return list(self._entries.values())

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.find(name) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self.names())

    def __repr__(self) -> str:
        return f"Registry({self.what!r}, {self.names()})"
