"""What one tool call returned, read for the asked quantity and judged by the finance rubric.

A result object (a quote, an AKShare row, a table of rows, `{"data": …}` wrappers, rows keyed
by code) is read through the ground-truth vocabulary (`truth.vocabulary.normalise`): the same
column names every provider maps (最新价, price, last, RT_LAST …). Its value for the asked
quantity goes through the rubric's own `Checker` — the precision rule against this item's
truth — so "meets the rule" means one thing for the answer and for the tool. A text result (or
JSON text) is read as an answer would be: by the rubric itself."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any, Final

from assay.core.decimals import quantum_of
from assay.core.trajectory import ToolCall
from assay.core.types import Answer, Item, ScoreStatus, TruthSnapshot
from assay.evaluators.rubric import words as F
from assay.evaluators.rubric.checks import MissingTruth, RuleNotApplicable
from assay.evaluators.rubric.evaluator import FinanceRubric, Prepared
from assay.truth.vocabulary import TIME, normalise, number_text, origins

from .instrument import (
    MINE,
    OTHER,
    Asked,
    Claims,
    claims_in_args,
    claims_in_record,
    claims_in_text,
)

MEETS: Final = "meets"  # a value of every failing point, each meeting the rule
FAILS: Final = "fails"  # some value fails the rule
NO_VALUE: Final = "no value"  # data, but no value of the asked quantity
UNCLEAR: Final = "unclear"  # a value that cannot be read (or judged) unambiguously

# wrappers a tool puts around its rows
_WRAPPERS: Final = ("data", "result", "results", "res", "quote", "quotes", "rows", "items",
                    "records", "output", "content", "body")


@dataclass(frozen=True, slots=True)
class Found:
    """The value a call's result holds for one asked quantity, and the rule's word on it."""

    field: str
    value: str  # as the tool wrote it (exact decimal text)
    key: str  # the tool's own name for it: 最新价, price, RT_LAST; "text" for a text result
    passed: bool | None  # None: the rule could not be applied to it

    def as_dict(self) -> dict[str, Any]:
        return {"field": self.field, "value": self.value, "key": self.key,
                "meets_rule": self.passed}


@dataclass(frozen=True, slots=True)
class Reading:
    """One call, read: did it return market data, for which instrument, with which value of
    the asked quantities."""

    n: int  # its position, from 1
    call: ToolCall
    data: bool
    instrument: str | None  # MINE, OTHER, or None (nothing says)
    claims: Claims
    found: tuple[Found, ...] = ()
    unclear: str = ""  # why its value cannot be read unambiguously
    notes: tuple[str, ...] = field(default=())

    @property
    def outcome(self) -> str:
        if self.unclear or any(f.passed is None for f in self.found):
            return UNCLEAR
        if not self.found:
            return NO_VALUE
        if any(f.passed is False for f in self.found):
            return FAILS
        return MEETS

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {"call": self.n, "name": self.call.name,
                               "arguments": self.call.args()}
        if self.call.failed:
            out["error"] = self.call.error
            return out
        out["data"] = self.data
        if self.data:
            out["instrument"] = self.instrument or "unknown"
            if self.claims:
                out["names"] = self.claims.shown()
            out["outcome"] = self.outcome
            if self.found:
                out["values"] = [f.as_dict() for f in self.found]
        if self.unclear:
            out["unclear"] = self.unclear
        return out


@dataclass(frozen=True, slots=True)
class Context:
    """What reading every call of one answer needs."""

    item: Item
    truth: TruthSnapshot | None  # as the rubric is given it (None: the item's own)
    prepared: Prepared
    fields: tuple[str, ...]  # the asked quantities to look for: the failing points
    asked: Asked
    rubric: FinanceRubric


def read_call(n: int, call: ToolCall, ctx: Context) -> Reading:
    args = claims_in_args(call.args())
    if call.failed:
        return Reading(n, call, False, None, args)
    result = call.result
    if isinstance(result, str):
        text = result.strip()
        if text[:1] in ("{", "["):
            try:
                result = json.loads(text)
            except ValueError:
                result = text
        else:
            result = text
    if isinstance(result, str):
        return _read_text(n, call, result, args, ctx)
    if isinstance(result, bool) or result is None:
        return Reading(n, call, False, None, args)
    if isinstance(result, int | float):  # a bare number: the quantity, when one is asked
        number = number_text(result)
        if number is None:
            return Reading(n, call, False, None, args)
        found = tuple(_judge(f, number, "result", ctx) for f in ctx.fields[:1])
        unclear = "" if len(ctx.prepared.required) == 1 else \
            "a bare number, and the question asks for several quantities"
        return Reading(n, call, True, ctx.asked.judge(args), args, found, unclear)
    records = _records(result, "", 0)
    if not records:
        return Reading(n, call, False, None, args)
    return _read_records(n, call, records, args, ctx)


def _records(value: Any, key: str, depth: int) -> list[tuple[Mapping[str, Any], str]]:
    """The flat rows in a result, each with the key it sat under (a code, in results keyed by
    code)."""
    if depth > 6:
        return []
    if isinstance(value, list):
        return [r for v in value for r in _records(v, "", depth + 1)]
    if not isinstance(value, dict):
        return []
    for w in _WRAPPERS:
        inner = value.get(w)
        if isinstance(inner, dict | list) and inner:
            rest = {k: v for k, v in value.items() if k != w}
            found = _records(inner, key, depth + 1)
            if found and not _has_value(rest):
                return found
    nested = [(k, v) for k, v in value.items() if isinstance(v, dict)]
    if nested and len(nested) == len(value):  # {"600519.SH": {...}, "000858.SZ": {...}}
        return [r for k, v in nested for r in _records(v, str(k), depth + 1)]
    return [(value, key)]


def _has_value(record: Mapping[str, Any]) -> bool:
    return any(f != TIME for f in normalise(record))


def _value_of(fields: Mapping[str, Any], f: str, session: str) -> tuple[str, str] | None:
    """(normalised field it came from, value) of `f` in a row; the latest of the day's two
    benchmarks answers "the latest" as `truth_for` reads the truth."""
    if fields.get(f) is not None:
        return f, str(fields[f])
    if f == F.LAST:
        for alt in ((F.AM_FIX, F.PM_FIX) if session == "am" else (F.PM_FIX, F.AM_FIX)):
            if fields.get(alt) is not None:
                return alt, str(fields[alt])
    return None


def _judge(f: str, value: str, key: str, ctx: Context) -> Found:
    p = ctx.prepared
    try:
        d = Decimal(value)
        percent = f in p.truth.percent_fields or (f == F.LAST and p.want.percent_last)
        passed: bool | None = p.checker.check(f, d, quantum_of(d), percent).passed
    except (InvalidOperation, RuleNotApplicable, MissingTruth):
        passed = None
    return Found(f, value, key, passed)


def _read_records(n: int, call: ToolCall, records: list[tuple[Mapping[str, Any], str]],
                  args: Claims, ctx: Context) -> Reading:
    rows = []
    for record, key in records:
        fields = normalise(record)
        if not any(f != TIME for f in fields):
            continue  # a row of codes and names only (a search result)
        own = claims_in_record(record, key)
        claims = own or args
        rows.append((record, fields, claims, _instrument(own, args, ctx.asked)))
    if not rows:
        return Reading(n, call, False, None, args)
    mine = [r for r in rows if r[3] == MINE]
    unknown = [r for r in rows if r[3] is None]
    chosen = mine or unknown or rows
    instrument = MINE if mine else (None if unknown else OTHER)
    notes: tuple[str, ...] = ()
    if len(chosen) > 1:  # several rows of the instrument (or of none said): the newest is last
        notes = (f"{len(chosen)} rows of the instrument; the last one read",)
    record, fields, claims, _ = chosen[-1]
    names = origins(fields, record)
    found: list[Found] = []
    for f in ctx.fields:
        got = _value_of(fields, f, ctx.prepared.criteria.session)
        if got is not None:
            found.append(_judge(f, got[1], names.get(got[0], got[0]), ctx))
    return Reading(n, call, True, instrument, claims, tuple(found), notes=notes)


def _instrument(own: Claims, args: Claims, asked: Asked) -> str | None:
    """A row's instrument: its own code decides; its own name alone decides too, except that
    a name the question does not use beside arguments that asked for the question's code says
    nothing sure (a name in another language, a longer legal name)."""
    if not own:
        return asked.judge(args)
    found = asked.judge(own)
    if own.codes or found != OTHER or not args.codes:
        return found
    return None if asked.judge(args) == MINE else found


def _read_text(n: int, call: ToolCall, text: str, args: Claims, ctx: Context) -> Reading:
    if not text or not any(c.isdigit() for c in text):
        return Reading(n, call, False, None, args)
    score = ctx.rubric.check(ctx.item, Answer(text), ctx.truth)
    ev = score.evidence
    values = [r for r in ev.get("values", []) if isinstance(r, dict)]
    ignored = [r for r in ev.get("ignored", []) if isinstance(r, dict)]
    if score.status not in (ScoreStatus.SCORED, ScoreStatus.ABSTAINED):
        return Reading(n, call, False, None, args, unclear=score.reason)
    data = bool(values or ignored or ev.get("candidates"))
    if not data:
        return Reading(n, call, False, None, args)
    own = claims_in_text(text, ctx.asked)
    claims = own if own.codes else (args or own)
    instrument = ctx.asked.judge(claims)
    if instrument is None and not values and ignored and all(
            str(r.get("why")).startswith(("another instrument", "speaks of"))
            for r in ignored):
        instrument = OTHER  # every value it states is, by the rubric's reading, another's
    found: list[Found] = []
    for f in ctx.fields:
        rows = [r for r in values if r.get("field") == f]
        if rows:
            bad = [r for r in rows if not r.get("pass")]
            row = bad[-1] if bad else rows[-1]
            found.append(Found(f, str(row.get("value")), str(row.get("via") or "text"),
                               bool(row.get("pass"))))
    unclear = ""
    if score.status == ScoreStatus.ABSTAINED:
        unclear = f"the rubric abstains on its text: {score.reason}"
    return Reading(n, call, True, instrument, claims, tuple(found), unclear)
