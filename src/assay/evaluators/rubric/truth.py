"""Normalising a ground-truth payload into field → value.

Shapes seen in FinSearchComp and its judge prompt: Wind snapshots keyed by instrument
(`{"SHAU___SGE": {"RT_LAST": …}}`, possibly under `res.data`), a `{"data": {...}}` quote, the CFETS
FX record, AKShare rows with Chinese column names; as a JSON string or an object.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from assay.core.decimals import quantum_of, to_decimal

from . import fields as F


class TruthError(ValueError):
    """The ground truth cannot be read at all (not JSON, or an unknown nesting)."""


@dataclass(frozen=True, slots=True)
class TruthValue:
    value: Decimal
    key: str  # the source's own name for it, e.g. RT_LAST or 最新价

    @property
    def quantum(self) -> Decimal:
        # computed on use: a snapshot has many values and a rule looks at one or two
        return quantum_of(self.value)


@dataclass(frozen=True, slots=True)
class Truth:
    values: dict[str, TruthValue]
    instrument: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    repairs: tuple[str, ...] = ()

    def evidence(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "values": {f: {"value": str(v.value), "key": v.key} for f, v in self.values.items()},
        }
        if self.instrument:
            out["instrument"] = self.instrument
        if self.meta:
            out["meta"] = self.meta
        if self.repairs:
            out["repairs"] = list(self.repairs)
        return out


_TRAILING_COMMA = re.compile(r",\s*([}\]])")
# One decoder, built once: json.loads(..., parse_float=Decimal) builds a new one per call.
_DECODER = json.JSONDecoder(parse_float=Decimal)


def _loads(text: str) -> tuple[Any, tuple[str, ...]]:
    """Parse JSON, keeping decimals exact. Two repairs for shapes that appear in the judge's own
    examples (a trailing comma; a bare `"CODE": {...}` member without braces) are applied and
    recorded; anything else that is not JSON is an error."""
    try:
        return _DECODER.decode(text), ()
    except ValueError as first:
        candidates: list[tuple[str, tuple[str, ...]]] = []
        fixed = _TRAILING_COMMA.sub(r"\1", text)
        if fixed != text:
            candidates.append((fixed, ("removed trailing comma",)))
        stripped = fixed.strip()
        if stripped.startswith('"') and ":" in stripped:
            candidates.append(("{" + stripped + "}", ("wrapped bare member in braces",)
                               + (("removed trailing comma",) if fixed != text else ())))
        for candidate, repairs in candidates:
            try:
                return _DECODER.decode(candidate), repairs
            except ValueError:
                continue
        raise TruthError(f"ground_truth is not valid JSON: {first}") from None


def _record(payload: Any) -> tuple[dict[str, Any], str | None]:
    """Descend to the flat record of one instrument."""
    instrument = None
    for _ in range(6):
        if isinstance(payload, list):
            if len(payload) != 1:
                raise TruthError(f"ground_truth holds {len(payload)} rows; expected one")
            payload = payload[0]
            continue
        if not isinstance(payload, dict):
            raise TruthError(f"ground_truth is a {type(payload).__name__}, not an object")
        if "res" in payload and isinstance(payload["res"], dict):
            payload = payload["res"]
            continue
        if "data" in payload and isinstance(payload["data"], (dict, list)):
            payload = payload["data"]
            continue
        nested = [k for k, v in payload.items() if isinstance(v, dict)]
        if nested and len(nested) == len(payload):
            if len(nested) != 1:
                raise TruthError(f"ground_truth holds {len(nested)} instruments "
                                 f"({', '.join(nested[:5])}); expected one")
            instrument = nested[0].replace("___", ".")
            payload = payload[nested[0]]
            continue
        return payload, instrument
    raise TruthError("ground_truth is nested too deeply")


def _number(val: Any) -> Decimal | None:
    if isinstance(val, Decimal):
        return val if val.is_finite() else None
    if isinstance(val, int):
        return Decimal(val)
    if isinstance(val, float):
        # repr gives the shortest text that round-trips: 3383.2, not 3383.19999…
        return to_decimal(repr(val))
    if isinstance(val, str):
        return to_decimal(val)
    return None


def parse_truth(raw: Any) -> Truth:
    """Field values of a ground-truth payload. Raises TruthError when it cannot be read."""
    repairs: tuple[str, ...] = ()
    if raw is None:
        return Truth({})
    if isinstance(raw, str):
        if not raw.strip():
            return Truth({})
        raw, repairs = _loads(raw)
    record, instrument = _record(raw)
    values: dict[str, TruthValue] = {}
    meta: dict[str, Any] = {}
    for key, val in record.items():
        lower = str(key).lower()
        if lower in F.TRUTH_META_KEYS:
            meta[str(key)] = val if isinstance(val, (str, int)) else str(val)
            continue
        field_name = F.TRUTH_KEYS.get(lower) or F.TRUTH_KEYS.get(str(key))
        if field_name is None or field_name in values:
            continue
        if isinstance(val, bool):
            continue
        number = _number(val)
        if number is None:
            continue
        values[field_name] = TruthValue(number, str(key))
    return Truth(values, instrument, meta, repairs)
