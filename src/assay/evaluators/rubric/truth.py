"""The rubric's view of a `TruthSnapshot`: its normalised fields as exact Decimals, each with
the source column it came from. Nothing is re-parsed here: the shapes and column names are the
ground-truth vocabulary's business (`assay.truth.vocabulary`)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from assay.core.decimals import quantum_of
from assay.core.types import TruthSnapshot
from assay.truth.vocabulary import PERCENT_FIELDS, RATE, TIME, YIELD, origins

from . import words as F


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
    snapshot: TruthSnapshot
    percent_fields: frozenset[str]  # fields whose quantity is itself in percent
    shown: dict[str, Any]  # the evidence form, built once

    @property
    def status(self) -> str:
        return self.snapshot.status

    def evidence(self) -> dict[str, Any]:
        return self.shown


def _shown(s: TruthSnapshot, values: dict[str, TruthValue]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "provider": s.provider, "status": s.status,
        "values": {f: {"value": format(v.value, "f"), "key": v.key} for f, v in values.items()},
    }
    if s.instrument:
        out["instrument"] = s.instrument
    if s.message:
        out["message"] = s.message
    return out


def view(snapshot: TruthSnapshot) -> Truth:
    """The snapshot's values as Decimals; cached per snapshot object (the stored path hands
    the same frozen snapshot to every answer of an item)."""
    key = id(snapshot)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is snapshot:
        return hit[1]
    truth = _view(snapshot)
    if len(_CACHE) > 8192:
        _CACHE.clear()
    _CACHE[key] = (snapshot, truth)  # holding the snapshot keeps its id from being reused
    return truth


_CACHE: dict[int, tuple[TruthSnapshot, Truth]] = {}


def _view(snapshot: TruthSnapshot) -> Truth:
    fields = snapshot.fields or {}
    names = origins(fields, snapshot.source_fields or {})
    values: dict[str, TruthValue] = {}
    for f, raw in fields.items():
        if f == TIME or raw is None or isinstance(raw, bool):
            continue
        try:
            d = Decimal(str(raw))
        except InvalidOperation:
            continue
        if d.is_finite():
            values[f] = TruthValue(d, names.get(f, f))
    percent = set(PERCENT_FIELDS)
    last = values.get(F.LAST)
    for f in (YIELD, RATE):  # a yield's or a rate's headline is itself in percent
        if last is not None and f in values and values[f].value == last.value:
            percent.add(F.LAST)
    return Truth(values, snapshot, frozenset(percent), _shown(snapshot, values))
