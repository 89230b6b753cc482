"""The four precision rules as interval arithmetic on Decimals."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from assay.core.decimals import plain, round_half_up

from . import words as F
from .criteria import ABSOLUTE, EXPANDED_RANGE, RANGE, ROUNDING, Rule
from .truth import Truth, TruthValue

_ZERO = Decimal(0)  # `admits` compares with it per value: against an int 0 it would convert it


class RuleNotApplicable(ValueError):
    """The rule cannot be applied to this field (e.g. a % tolerance on a price)."""


class MissingTruth(LookupError):
    """The ground truth has no number for what the rule needs."""


@dataclass(slots=True)
class Interval:
    """What a value of one field, written to one precision, is compared with. The same for
    every answer to an item, so `Checker` keeps one per (field, precision)."""

    low: Decimal  # accepted interval, inclusive (for rounding: the values that round to target)
    high: Decimal
    truth: Decimal
    how: str  # what was compared, for evidence
    step: Decimal | None = None  # rounding: the value rounded to `step` must equal `target`
    target: Decimal = Decimal(0)
    shown: tuple[str, str, str] = ("", "", "")  # low, high and truth as written in evidence

    def admits(self, value: Decimal) -> bool:
        step = self.step
        if step is None:
            return self.low <= value <= self.high
        if step <= _ZERO:
            return round_half_up(value, step) == self.target
        # round_half_up(value, step) == target, without dividing: half-up rounds ties away
        # from zero, so a positive target takes [low, high), a negative one (low, high], and
        # zero (low, high)
        target = self.target
        if target > _ZERO:
            return self.low <= value < self.high
        if target < _ZERO:
            return self.low < value <= self.high
        return self.low < value < self.high


@dataclass(slots=True)  # built per answer: see numbers.Mention on why not frozen
class Check:
    passed: bool
    interval: Interval

    @property
    def low(self) -> Decimal:
        return self.interval.low

    @property
    def high(self) -> Decimal:
        return self.interval.high

    @property
    def truth(self) -> Decimal:
        return self.interval.truth

    @property
    def how(self) -> str:
        return self.interval.how


def truth_for(field: str, truth: Truth, session: str = "") -> TruthValue | None:
    if field == F.LAST and session == "am" and F.AM_FIX in truth.values:
        return truth.values[F.AM_FIX]
    value = truth.values.get(field)
    if value is None and field == F.LAST:
        # An SGE benchmark row (早盘价/晚盘价) answers "the latest benchmark" by its session;
        # the latest of a day's two fixes is the afternoon one.
        value = truth.values.get(F.AM_FIX if session == "am" else F.PM_FIX)
    return value


def _day_range(truth: Truth) -> tuple[Decimal, Decimal, str]:
    """The day's low and high; where the snapshot has only some prices (a Wind RT_LAST alone),
    the smallest and largest of the prices it has, as the judge rule's "最大值和最小值"."""
    lo, hi = truth.values.get(F.LOW), truth.values.get(F.HIGH)
    if lo is not None and hi is not None:
        return lo.value, hi.value, f"[{lo.key}, {hi.key}]"
    prices = [v for f, v in truth.values.items() if f in F.PRICE_FIELDS]
    if not prices:
        raise MissingTruth("high/low")
    low = min(prices, key=lambda v: v.value)
    high = max(prices, key=lambda v: v.value)
    return low.value, high.value, f"[min, max] of {', '.join(v.key for v in prices)}"


def check(field: str, value: Decimal, quantum: Decimal, rule: Rule, truth: Truth,
          session: str = "", percent: bool = False) -> Check:
    """Whether `value` (written to `quantum`) meets `rule` for `field`. `percent`: the quantity
    is itself in percent (a yield), so a tolerance written "±0.01%" is 0.01 percentage points,
    as the judge's own example (13.56% ± 0.01% → [13.55%, 13.57%]) reads it."""
    iv = interval(field, quantum, rule, truth, session, percent)
    return Check(iv.admits(value), iv)


class Checker:
    """`check` for one item's rule and truth, keeping each interval it computes."""

    __slots__ = ("_seen", "rule", "session", "truth")

    def __init__(self, rule: Rule, truth: Truth, session: str = "") -> None:
        self.rule, self.truth, self.session = rule, truth, session
        # per (field, precision, percent): the interval, and the two checks against it (a
        # Check is never changed once built: answers share them, and none is built per value)
        self._seen: dict[tuple[str, str, bool], tuple[Interval, Check, Check]] = {}

    def check(self, field: str, value: Decimal, quantum: Decimal, percent: bool = False
              ) -> Check:
        # str, not the Decimal: 0.01 and 0.010 are equal but show differently in evidence
        key = (field, str(quantum), percent)
        seen = self._seen.get(key)
        if seen is None:
            iv = interval(field, quantum, self.rule, self.truth, self.session, percent)
            seen = (iv, Check(True, iv), Check(False, iv))
            if len(self._seen) < 256:
                self._seen[key] = seen
        return seen[1] if seen[0].admits(value) else seen[2]


def _interval(low: Decimal, high: Decimal, truth: Decimal, how: str,
              step: Decimal | None = None, target: Decimal = Decimal(0)) -> Interval:
    return Interval(low, high, truth, how, step, target, (plain(low), plain(high), plain(truth)))


def interval(field: str, quantum: Decimal, rule: Rule, truth: Truth, session: str = "",
             percent: bool = False) -> Interval:
    """The interval `check` compares a value of `field` written to `quantum` with."""
    tv = truth_for(field, truth, session)
    if tv is None:
        raise MissingTruth(field)
    if rule.kind == ROUNDING or (rule.kind == RANGE and field not in F.PRICE_FIELDS):
        q = max(quantum, tv.quantum)
        target = round_half_up(tv.value, q)
        half = q / 2
        return _interval(target - half, target + half, tv.value,
                         f"{tv.key} rounded to {plain(q)}", q, target)
    if rule.kind == RANGE:
        lo, hi, keys = _day_range(truth)
        low, high = round_half_up(lo, quantum), round_half_up(hi, quantum)
        return _interval(low, high, tv.value, f"{keys} rounded to {plain(quantum)}")
    amount = rule.amount if rule.amount is not None else Decimal(0)
    if rule.amount_is_percent and not percent and field not in truth.percent_fields:
        raise RuleNotApplicable(
            f"a tolerance in % («{rule.text}») is percentage points, which does not apply to "
            f"{F.display(field, 'en')}")
    if rule.kind == ABSOLUTE or (rule.kind == EXPANDED_RANGE and field not in F.PRICE_FIELDS):
        low, high = tv.value - amount, tv.value + amount
        return _interval(low, high, tv.value, f"{tv.key} ± {plain(amount)}")
    if rule.kind == EXPANDED_RANGE:
        lo, hi, keys = _day_range(truth)
        low, high = lo - amount, hi + amount
        return _interval(low, high, tv.value, f"{keys} ± {plain(amount)}")
    raise RuleNotApplicable(f"unknown rule {rule.kind}")
