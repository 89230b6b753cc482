"""What a ground-truth provider is, and the pieces every provider shares: a missing optional
package named by its extra, normalised field names, snapshots for failures."""

from __future__ import annotations

import contextlib
import importlib
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Any, Protocol

from assay.core.errors import ConfigError
from assay.core.registry import install_hint
from assay.core.types import TruthSnapshot

from .vocabulary import FIELDS

__all__ = ["FIELDS", "Provider", "clean", "failed", "now", "numeric", "require"]


class Provider(Protocol):
    name: str

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
