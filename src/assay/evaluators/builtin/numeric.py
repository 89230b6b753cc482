"""`numeric`: the number an answer states, within an absolute or relative tolerance of the
expected one. Numbers are read as the finance rubric reads them (its `numbers` module: scales
万/亿/billion, signs including the Unicode minus, separators of every style, full-width digits,
dates and codes skipped), so "约1.2亿元" and "120,000,000" are the same value; unlike the
rubric, it also reads durations, counts and multiples ("12 minutes", "1440分钟", "3倍").

An answer may state several numbers. By default (`pick: all`) they must all decide alike; when
some are within tolerance and others are not, the check abstains with the candidates rather
than guess which one was meant. `pick: first | last | any` chooses instead."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

from assay.core.errors import ConfigError
from assay.core.types import Answer, Item, Score, TruthSnapshot

from ..rubric.numbers import Mention, normalise, read_numbers
from .base import BuiltinCheck, answer_text, as_text, excerpt

PICKS = ("all", "first", "last", "any")


def _tolerance(name: str, value: Any, where: str) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ConfigError(f"{where}: '{name}' must be a number ≥ 0, not {value!r}")
    try:
        tol = Decimal(str(value))
    except InvalidOperation:
        raise ConfigError(f"{where}: '{name}' must be a number ≥ 0, not {value!r}") from None
    if not tol.is_finite() or tol < 0:
        raise ConfigError(f"{where}: '{name}' must be a number ≥ 0, not {value!r}")
    return tol


# A number of minutes, days, things or times: not a value to the finance reader ("3倍" is no
# price, "12 minutes ago" no quote), but the very answer a general question asks for ("How
# long does it take?" "12 minutes"). Dates (年/月/日/号) stay out: "2025年" is no count.
_QUANTITY = re.compile(
    r"(?<![A-Za-z\d.,])(-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)"
    r"(?=\s*(?:分钟|秒钟|秒|小时|个小时|个交易日|交易日|天|周|个月|季度|倍|只|家|名|位|个|次|人)"
    r"|[-\s]?(?:minutes?|mins?|seconds?|secs?|hours?|hrs?|days?|weeks?|months?|years?|yrs?"
    r"|quarters?|times|people|items?)(?![a-z])|\s*[xX×](?![a-z]))", re.IGNORECASE)


def read_values(text: str) -> list[Mention]:
    """The numbers `text` states, read as the finance rubric reads values, and besides them
    durations, counts and multiples, which that reader leaves out on purpose."""
    norm = normalise(text)
    found = read_numbers(norm)
    taken = [(m.start, m.end) for m in found]
    for q in _QUANTITY.finditer(norm):
        start, end = q.span(1)
        if any(s < end and start < e for s, e in taken):
            continue
        raw = q.group(1).replace(",", "")
        places = len(raw) - raw.find(".") - 1 if "." in raw else 0
        found.append(Mention(start, end, q.group(1), Decimal(raw),
                             Decimal(1).scaleb(-places), False, raw.startswith("-"), ""))
    found.sort(key=lambda m: m.start)
    return found


def expected_number(value: Any) -> tuple[Decimal, str] | str:
    """The expected value and how it was written, or why there is none."""
    if isinstance(value, bool):
        return f"{value!r} is not a number"
    if isinstance(value, int | float):
        d = Decimal(str(value))
        return (d, str(value)) if d.is_finite() else f"{value!r} is not a finite number"
    text = as_text(value)
    found = read_values(text)
    if len(found) != 1:
        what = "no number" if not found else f"{len(found)} numbers"
        return f"{excerpt(text, 80)!r} states {what}; the expected answer must state one"
    return found[0].value, found[0].text


class Numeric(BuiltinCheck):
    """The stated number is within `abs` or `rel` of the expected one (exact when neither)."""

    family = "numeric"
    reads_with = ("assay.evaluators.rubric.numbers",)  # a change in reading is a new version

    def __init__(self, *, expected: Any = None, abs: Any = 0, rel: Any = 0,
                 pick: str = "all", only_numbers: Any = False,
                 label: str | None = None) -> None:
        super().__init__(expected=expected, label=label)
        if not isinstance(only_numbers, bool):
            raise ConfigError(f"{self.where}: 'only_numbers' must be true or false, not "
                              f"{only_numbers!r}")
        self.only_numbers = only_numbers
        self.abs = _tolerance("abs", abs, self.where)
        self.rel = _tolerance("rel", rel, self.where)
        if pick not in PICKS:
            raise ConfigError(f"{self.where}: 'pick' must be one of {', '.join(PICKS)}, "
                              f"not {pick!r}")
        self.pick = pick
        if expected is not None:
            found = expected_number(expected)
            if isinstance(found, str):
                raise ConfigError(f"{self.where}: 'expected': {found}")

    def within(self, value: Decimal, expected: Decimal) -> bool:
        diff = abs(value - expected)
        return diff <= self.abs or diff <= self.rel * abs(expected)

    def check(self, item: Item, answer: Answer, truth: TruthSnapshot | None = None) -> Score:
        found = expected_number(self.expected_of(item))
        if isinstance(found, str):
            if self.only_numbers:  # a mixed dataset: this item is another check's (as a
                # `when: {reference: number}` would say, runner/scope.py)
                return Score.skip("not applicable: the reference states no single number "
                                  "(only_numbers)", self.name, self.version,
                                  evidence={"reference": found})
            return self.fail(f"expected answer: {found} (item line {item.line})")
        expected, written = found
        text = answer_text(answer)
        mentions = read_values(text)
        ev: dict[str, Any] = {"expected": written, "expected_value": str(expected),
                              "abs": str(self.abs), "rel": str(self.rel), "pick": self.pick}
        if not mentions:
            ev["answer"] = excerpt(text)
            return self.score(False, "the answer states no number", ev)
        read = [(m, self.within(m.value, expected)) for m in mentions]
        ev["read"] = [{"text": m.text, "value": str(m.value), "within": ok} for m, ok in read]
        if self.pick in ("first", "last"):
            m, ok = read[0] if self.pick == "first" else read[-1]
            return self.score(ok, f"the {self.pick} number, {m.text}, is "
                              f"{'within' if ok else 'outside'} tolerance of {written}", ev)
        within = [m.text for m, ok in read if ok]
        if self.pick == "any" or len(within) in (0, len(read)):
            ok = bool(within)
            which = ", ".join(within) if ok else ", ".join(m.text for m in mentions)
            return self.score(ok, f"{which} {'is' if len(which.split(', ')) == 1 else 'are'} "
                              f"{'within' if ok else 'outside'} tolerance of {written}", ev)
        return Score.abstain(f"the answer states {len(read)} numbers and they decide "
                             f"differently ({', '.join(within)} within tolerance of "
                             f"{written}); set pick: first, last or any to choose",
                             self.name, self.version,
                             candidates=[m.text for m, _ in read], evidence=ev)
