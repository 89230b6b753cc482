"""Named factories: the one shape of every extension point (targets, ground-truth providers,
evaluators).

A registration names a factory, either the object itself or `"module:attribute"` text so the
module (and the optional package behind it, akshare, yfinance …) is imported only when the entry
is built; listing entries imports nothing. The registry is strict: a name registered twice with
a different factory is an error, never a silent overwrite, and an unknown name is answered with
the close ones. Every component it builds carries a `Built` record — the registry, the entry
name and the arguments as plain data — so a stored manifest can rebuild it (`rebuild`).

Some factories need what a run holds and a manifest cannot (a model client, the spec's folder):
that is the *context*, passed beside the arguments and never recorded. This module imports
nothing else of Assay but its errors."""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import inspect
import re
import sys
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any, Generic, TypeVar

from .errors import ConfigError

T = TypeVar("T")
DISTRIBUTION = "assay-eval"  # the distribution's name (pyproject.toml), for the extras it names


def install_hint(extra: str) -> str:
    """How to add an extra: Assay is installed from its source (`pip install .`), not from a
    package index, so the hint names both the checkout's form and the distribution's."""
    return f"pip install '.[{extra}]' in Assay's checkout (the {DISTRIBUTION} distribution)"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_RECORD = "_assay_built"
_RECORDS: weakref.WeakKeyDictionary[Any, Built] = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class Arg:
    """One argument an entry takes, as listings and the strict check see it."""

    name: str
    required: bool = False
    help: str = ""

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "required": self.required, "help": self.help}


@dataclass(frozen=True)
class Built:
    """What a component was built from: enough, with the run's context, to build it again."""

    registry: str
    name: str
    args: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"registry": self.registry, "name": self.name, "args": dict(self.args)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Built:
        if not isinstance(data, Mapping) or not isinstance(data.get("name"), str) \
                or not isinstance(data.get("args", {}), Mapping):
            raise ConfigError(f"not a build record (registry, name, args): {data!r}"[:200])
        return cls(str(data.get("registry", "")), data["name"], dict(data.get("args") or {}))


@dataclass(frozen=True)
class Entry(Generic[T]):
    name: str
    factory: str | Callable[..., T]  # "module:attribute" is imported when first built
    kind: str = ""  # a family within the registry: "code", "judge template", "hybrid" …
    summary: str = ""
    args: tuple[Arg, ...] | None = None  # None: read from the factory's signature
    aliases: tuple[str, ...] = ()
    requires: tuple[str, ...] = ()  # optional packages, checked before the module is imported
    extra: str | None = None  # the extra (`pip install '.[EXTRA]'`) that brings them
    hint: str | None = None  # how to get them when no extra does (WindPy)
    context: bool = False  # the factory takes the run's context as its first argument
    meta: Mapping[str, Any] = field(default_factory=dict)


def built_from(component: Any) -> Built | None:
    """The record of how a registry built `component`; None if no registry built it."""
    found = getattr(component, _RECORD, None)
    if isinstance(found, Built):
        return found
    try:
        return _RECORDS.get(component)
    except TypeError:
        return None


def plain(value: Any, where: str) -> Any:
    """Arguments as a manifest stores them: text, numbers, lists and mappings. A function
    becomes its `module:name` reference, which is how a spec names one."""
    if value is None or isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, PurePath):
        return str(value)
    if isinstance(value, Mapping):
        return {str(k): plain(v, f"{where}.{k}") for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v, where) for v in value]
    if callable(value) and hasattr(value, "__module__") and hasattr(value, "__qualname__"):
        return f"{value.__module__}:{value.__qualname__}"
    raise ConfigError(f"{where}: a {type(value).__name__} is not plain data (text, numbers, "
                      "lists, mappings), so it cannot be recorded to rebuild the component")


class Registry(Generic[T]):
    """Name → factory for one kind of component. `name` identifies the registry in build
    records; `noun` is how its messages call an entry ("target type", "evaluator")."""

    def __init__(self, name: str, *, noun: str, context: bool = False) -> None:
        self.name = name
        self.noun = noun
        self.context = context  # the default for entries: does the factory take the context?
        self._entries: dict[str, Entry[T]] = {}
        self._aliases: dict[str, str] = {}
        self._sources: list[Callable[[], Iterable[Entry[T]]]] = []
        self._loaded: dict[str, Callable[..., T]] = {}

    # -- registering -------------------------------------------------------------------------

    def register(self, name: str, factory: str | Callable[..., T], *, kind: str = "",
                 summary: str = "", args: Iterable[str | Arg] | None = None,
                 required: Iterable[str] = (), aliases: Iterable[str] = (),
                 requires: Iterable[str] = (), extra: str | None = None,
                 hint: str | None = None, context: bool | None = None,
                 meta: Mapping[str, Any] | None = None) -> Entry[T]:
        entry = self.entry_for(name, factory, kind=kind, summary=summary, args=args,
                               required=required, aliases=aliases, requires=requires,
                               extra=extra, hint=hint, context=context, meta=meta)
        for n in (entry.name, *entry.aliases):
            holder = self._entries.get(self._aliases.get(n, n))
            if holder is not None and holder != entry:
                raise ConfigError(f"{self.noun} '{n}' is already registered (by "
                                  f"{_where(holder.factory)}); a second registration "
                                  f"({_where(factory)}) would replace it silently")
        self._entries[entry.name] = entry
        self._aliases.update({a: entry.name for a in entry.aliases})
        return entry

    def entry_for(self, name: str, factory: str | Callable[..., T], *, kind: str = "",
                  summary: str = "", args: Iterable[str | Arg] | None = None,
                  required: Iterable[str] = (), aliases: Iterable[str] = (),
                  requires: Iterable[str] = (), extra: str | None = None,
                  hint: str | None = None, context: bool | None = None,
                  meta: Mapping[str, Any] | None = None) -> Entry[T]:
        """An entry of this registry, checked, without registering it (for a source)."""
        for n in (name, *aliases):
            if not _NAME.match(n):
                raise ConfigError(f"{self.noun} name '{n}' must be letters, digits, '.', '_' "
                                  "or '-'")
        if isinstance(factory, str) and not re.match(r"^[\w.]+:[\w.]+$", factory):
            raise ConfigError(f"{self.noun} '{name}': factory '{factory}' is not "
                              "'module:attribute'")
        need = set(required)
        declared = None
        if args is not None:
            declared = tuple(a if isinstance(a, Arg) else Arg(a, a in need) for a in args)
            missing = need - {a.name for a in declared}
            if missing:
                raise ConfigError(f"{self.noun} '{name}': required {sorted(missing)} not in "
                                  "its args")
        return Entry(name, factory, kind, summary, declared, tuple(aliases), tuple(requires),
                     extra, hint, self.context if context is None else context,
                     dict(meta or {}))

    def remove(self, name: str) -> None:
        """Take an entry (and its aliases) out: for a plugin being unloaded, and for tests that
        register a kind of their own. Replacing an entry is remove, then register."""
        entry = self._entries.get(self._aliases.get(name, name))
        if entry is None:  # a source's entry goes with its file, not from here
            raise self.unknown(name)
        del self._entries[entry.name]
        for alias in entry.aliases:
            self._aliases.pop(alias, None)

    def add_source(self, source: Callable[[], Iterable[Entry[T]]]) -> None:
        """Entries found at lookup time (judge templates in a folder): asked for a name no
        registration has, and for listings; a found name that clashes is an error."""
        self._sources.append(source)

    # -- looking up --------------------------------------------------------------------------

    def _found(self) -> dict[str, Entry[T]]:
        out: dict[str, Entry[T]] = {}
        for source in self._sources:
            for e in source():
                clash = self._entries.get(self._aliases.get(e.name, e.name)) or out.get(e.name)
                if clash is not None:
                    raise ConfigError(f"{self.noun} '{e.name}' is defined twice: "
                                      f"{_where(clash.factory)} and {_where(e.factory)}")
                out[e.name] = e
        return out

    def entries(self) -> list[Entry[T]]:
        """Registered entries in registration order, then those the sources find."""
        return [*self._entries.values(), *self._found().values()]

    def names(self) -> list[str]:
        return [e.name for e in self.entries()]

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        return name in self._entries or name in self._aliases or name in self._found()

    def entry(self, name: str) -> Entry[T]:
        found = self._entries.get(self._aliases.get(name, name))
        if found is None and self._sources:
            found = self._found().get(name)
        if found is None:
            raise self.unknown(name)
        return found

    def close(self, name: str, n: int = 3) -> list[str]:
        """Known names (and aliases) that look like `name`, best first: only those nearly as
        close as the closest, so a typo gets its name and not the whole family."""
        return close_names(name, [*self.names(), *self._aliases], n)

    def unknown(self, name: str) -> ConfigError:
        close = self.close(name)
        hint = (f"; did you mean {', '.join(close)}?" if close
                else f"; known: {', '.join(self.names())}")
        return ConfigError(f"unknown {self.noun} '{name}'{hint}")

    def factory(self, name: str) -> Callable[..., T]:
        """The entry's factory, imported but not called: for what its class declares (a
        provider's routing) without building one. Its optional packages are not checked."""
        return self._load(self.entry(name))

    def arguments(self, entry: Entry[T]) -> tuple[Arg, ...] | None:
        """The entry's arguments; None when its factory takes any (**kwargs)."""
        if entry.args is not None:
            return entry.args
        try:
            params = list(inspect.signature(self._load(entry)).parameters.values())
        except (TypeError, ValueError):  # a builtin without a signature: take what it gets
            return None
        if entry.context and params:
            params = params[1:]
        if any(p.kind is p.VAR_KEYWORD for p in params):
            return None
        return tuple(Arg(p.name, p.default is p.empty) for p in params
                     if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD))

    # -- building ----------------------------------------------------------------------------

    def build(self, name: str, context: Any = None, /, **args: Any) -> T:
        """Build an entry from its arguments (checked against those it declares) and record
        them on the result; `context` goes to factories that take one, unrecorded."""
        entry = self.entry(name)
        where = f"{self.noun} '{entry.name}'"
        self._check(entry, args, where)
        record = Built(self.name, entry.name, plain(args, where))
        factory = self._load(entry)
        made = factory(context, **args) if entry.context else factory(**args)
        _attach(made, record)
        return made

    def rebuild(self, record: Built | Mapping[str, Any], context: Any = None) -> T:
        """The component a stored record describes (`Built.as_dict()` as a manifest keeps it)."""
        r = record if isinstance(record, Built) else Built.from_dict(record)
        if r.registry and r.registry != self.name:
            raise ConfigError(f"a record of the {r.registry} registry cannot be rebuilt as "
                              f"one of the {self.name}")
        return self.build(r.name, context, **dict(r.args))

    def _check(self, entry: Entry[T], args: Mapping[str, Any], where: str) -> None:
        for module in entry.requires:
            if not _importable(module):
                raise self._missing(entry, module)
        known = self.arguments(entry)
        if known is None:
            return
        self.check_names(entry, args, where)
        absent = [a.name for a in known if a.required and args.get(a.name) is None]
        if absent:
            raise ConfigError(f"{where} needs '{absent[0]}'")

    def check_names(self, entry: Entry[T], args: Mapping[str, Any], where: str) -> None:
        """Each of `args` is an option the entry takes (a spec is checked at load with this;
        what the run adds — a model, a mapping — comes later)."""
        known = self.arguments(entry)
        if known is None:
            return
        names = [a.name for a in known]
        for key in args:
            if key not in names:
                close = close_names(key, names, 2)
                raise ConfigError(f"{where}: unknown option '{key}'"
                                  + (f"; did you mean {', '.join(close)}?" if close else "")
                                  + f" (known: {', '.join(names) or 'none'})")

    def _load(self, entry: Entry[T]) -> Callable[..., T]:
        if not isinstance(entry.factory, str):
            return entry.factory
        if entry.factory in self._loaded:
            return self._loaded[entry.factory]
        module_name, _, attr = entry.factory.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            missing = exc.name or module_name
            if (entry.extra or entry.hint) and not missing.startswith("assay."):
                raise self._missing(entry, missing.partition(".")[0]) from None
            raise ConfigError(f"{self.noun} '{entry.name}': cannot import '{module_name}' "
                              f"({exc})") from None
        found: Any = module
        for part in attr.split("."):
            found = getattr(found, part, None)
        if not callable(found):
            raise ConfigError(f"{self.noun} '{entry.name}': '{module_name}' has no "
                              f"factory '{attr}'")
        self._loaded[entry.factory] = found
        return found  # type: ignore[no-any-return]

    def _missing(self, entry: Entry[T], module: str) -> ConfigError:
        how = entry.hint or install_hint(entry.extra or entry.name)
        return ConfigError(f"{self.noun} '{entry.name}' needs the '{module}' package: {how}")

    # -- listing -----------------------------------------------------------------------------

    def describe(self) -> list[dict[str, Any]]:
        """Every entry as plain data, for the CLI, the UI and the docs; imports only the
        modules of entries that declare neither summary nor arguments."""
        out = []
        for e in self.entries():
            summary = e.summary
            args: tuple[Arg, ...] | None = e.args
            if not summary or args is None:
                try:
                    factory = self._load(e)
                    summary = summary or (inspect.getdoc(factory) or "").split("\n")[0]
                    args = self.arguments(e)
                except ConfigError as exc:
                    summary = summary or str(exc)
            out.append({"name": e.name, "kind": e.kind, "summary": summary,
                        "args": [a.describe() for a in args or ()],
                        "aliases": list(e.aliases), "requires": list(e.requires),
                        "extra": e.extra, "hint": e.hint, **e.meta})
        return out


def close_names(name: str, known: Iterable[str], n: int = 3) -> list[str]:
    scored = sorted(((difflib.SequenceMatcher(None, name, k).ratio(), k) for k in known),
                    key=lambda x: -x[0])
    if not scored or scored[0][0] < 0.5:
        return []
    best = scored[0][0]
    return [k for r, k in scored if r >= max(0.5, best - 0.1)][:n]


def _attach(component: Any, record: Built) -> None:
    try:
        object.__setattr__(component, _RECORD, record)
    except (AttributeError, TypeError):  # __slots__ or a builtin: keep it aside
        try:
            _RECORDS[component] = record
        except TypeError:
            raise TypeError(f"{type(component).__name__} can hold no build record; "
                            "a registered factory must return an ordinary object") from None


def _importable(module: str) -> bool:
    if module in sys.modules:
        return sys.modules[module] is not None
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _where(factory: Any) -> str:
    if isinstance(factory, str):
        return factory
    qualname = getattr(factory, "__qualname__", None)
    if qualname is None:  # a factory object: its repr says where it comes from
        return repr(factory)
    return f"{getattr(factory, '__module__', '?')}:{qualname}"
