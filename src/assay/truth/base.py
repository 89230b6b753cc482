"""What a ground-truth provider is, and the pieces every provider shares: how it routes an
item to its instrument, a missing optional package named by its extra, its package's blocking
calls in a thread with a time limit, normalised field names, snapshots for failures."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Any, Protocol, TypeVar

from assay.core.errors import ConfigError
from assay.core.registry import install_hint
from assay.core.types import TruthSnapshot

from .vocabulary import FIELDS

__all__ = ["FIELDS", "Provider", "Route", "Routing", "SourceTimeout", "call_source", "clean",
           "failed", "now", "numeric", "require", "source_failed"]
T = TypeVar("T")


@dataclass(frozen=True)
class Route:
    instrument: str
    market: str | None = None
    error: str | None = None


class Routing(Protocol):
    """How a provider reaches its instruments from an item's fields, and back. Each provider
    class declares its own (`routing`); truth/routing.py has the shapes the built-in ones use
    and finds a provider's through its registration."""

    @property
    def field(self) -> str:
        """The item field its codes are read from, unless the spec names another."""
        ...

    @property
    def needs_market(self) -> bool:
        """Its codes alone do not say which table: the item's tags or the spec's market do."""
        ...

    def route(self, fields: Mapping[str, Any], *, field: str | None = None,
              market: str | None = None) -> Route:
        """(instrument, market) for the item; a code it cannot fetch is a Route with the
        reason as `error`, never the nearest instrument."""
        ...

    def item_fields(self, market: str, code: str) -> dict[str, str] | None:
        """The item fields `route` reads back as this instrument of the market tables (the
        table's own code), for a question resolved by name (truth/names.py); None when the
        provider has no code for it."""
        ...


class Provider(Protocol):
    name: str

    @property
    def routing(self) -> Routing:
        """How it routes its items: a class attribute, so that an item is routed without
        building a provider (truth/routing.py, `routing_of`)."""
        ...

    async def fetch(self, instrument: str, market: str | None = None,
                    item: dict[str, Any] | None = None) -> TruthSnapshot:
        """Never raises for a data problem: a failure is a snapshot with status `error`."""
        ...


def now() -> datetime:
    return datetime.now(UTC)


def require(module: str, extra: str) -> Any:
    """Import an optional data package, or stop with one line naming the extra to install."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ConfigError(f"the {extra} provider needs the '{module}' package: "
                          + install_hint(extra)) from None


class SourceTimeout(TimeoutError):
    """A data package's call that outlived its provider's `timeout_s`."""

    def __init__(self, timeout_s: float) -> None:
        super().__init__(f"timeout after {timeout_s:g} s")


async def call_source(read: Callable[..., T], *args: Any, timeout_s: float) -> T:
    """A data package's blocking call (AKShare, yfinance, Tushare, WindPy) in a worker thread,
    given `timeout_s` seconds: then `SourceTimeout` (as for a timeout the package itself
    raises). The thread cannot be stopped; it ends on its own, its result unread."""
    try:
        return await asyncio.wait_for(asyncio.to_thread(read, *args), timeout_s)
    except TimeoutError:
        raise SourceTimeout(timeout_s) from None


def source_failed(provider: str, instrument: str, query: str, exc: Exception, *,
                  market: str | None = None) -> TruthSnapshot:
    """The snapshot of a source's failure: a timeout says how long it was given, anything else
    its type and message."""
    message = str(exc) if isinstance(exc, SourceTimeout) else f"{type(exc).__name__}: {exc}"
    return failed(provider, instrument, query, message, market=market)


def clean(value: Any) -> Any:
    """A cell as JSON-safe text or number: NaN and empty become None, numpy scalars plain."""
    if value is None:
        return None
    item = getattr(value, "item", None)
    if callable(item):  # numpy / pandas scalar
        with contextlib.suppress(TypeError, ValueError):
            value = item()
    if isinstance(value, float) and value != value:
        return None
    if isinstance(value, str) and not value.strip():
        return None
    if isinstance(value, datetime):
        return value.isoformat()
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


def numeric(value: Any) -> str | None:
    """A value as exact decimal text (never a float's repr), or None if it is not a number."""
    value = clean(value)
    if value is None or isinstance(value, bool):
        return None
    try:
        d = Decimal(str(value).replace(",", "").strip())
    except InvalidOperation:
        return None
    return None if not d.is_finite() else format(d, "f")


def failed(provider: str, instrument: str, query: str, message: str, *,
           status: str = "error", market: str | None = None, raw: Any = None) -> TruthSnapshot:
    return TruthSnapshot(provider, instrument, query, now(), status, message=message,
                         market=market, raw=raw, payload={})
