"""Reading a T1 rubric (`response_reference`): which fields are required, which precision rule.

The rule wording is matched against the four forms the FinSearchComp judge defines, in Chinese
and English. Anything else is reported with the text quoted: guessing a rule would silently
change scores.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache

from assay.core.decimals import to_decimal

from . import words as F

ROUNDING = "rounding"
RANGE = "range"
ABSOLUTE = "absolute"
EXPANDED_RANGE = "expanded_range"


class RubricError(ValueError):
    """The rubric text cannot be mapped to rules; the message quotes it."""


@dataclass(frozen=True, slots=True)
class Rule:
    kind: str  # ROUNDING | RANGE | ABSOLUTE | EXPANDED_RANGE
    text: str  # the wording it was read from
    amount: Decimal | None = None  # ±x or a
    amount_is_percent: bool = False


@dataclass(frozen=True, slots=True)
class Criteria:
    required: tuple[str, ...]  # canonical fields, in the order the rubric names them
    required_text: str
    rule: Rule
    session: str = ""  # "am" / "pm" when the rubric names the SGE morning/afternoon fix
    # When the rubric itself asks for a qualified quote ("离岸人民币汇率", "central parity"),
    # answer values tied to that qualifier answer the required point.
    aliases: tuple[tuple[str, str], ...] = ()
    # The required point names a quantity that is itself in percent (a yield, an interest rate)
    percent_point: bool = False


_REQUIRED_LABEL = re.compile(r"(?:必答点|required\s+(?:content|points?))\s*[:：]", re.IGNORECASE)
_PRECISION_LABEL = re.compile(r"(?:精度要求|accuracy\s+requirements?|precision(?:\s+requirements?)?)"
                              r"\s*[:：]", re.IGNORECASE)
_AMOUNT = r"[±+]?\s*(\d+(?:\.\d+)?)\s*(%|％)?"
_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (EXPANDED_RANGE, re.compile(
        r"在最高价最低价区间基础上扩大范围(?:绝对)?(?:数值)?\s*" + _AMOUNT
        + r"|expand\s+the\s+high[-\s–]*low\s+(?:price\s+)?range\s+by\s+an\s+absolute\s+value"
        r"\s+of\s+" + _AMOUNT, re.IGNORECASE)),
    (RANGE, re.compile(
        r"答案落在最高价最低价区间"
        r"|between\s+the\s+high\s+and\s+low\s+price"
        r"|within\s+the\s+(?:day'?s\s+)?high[-\s–]*low", re.IGNORECASE)),
    (ABSOLUTE, re.compile(
        r"允许误差范围(?:绝对)?(?:数值)?\s*" + _AMOUNT
        + r"|allowable\s+error\s+range\s+is\s+an\s+absolute\s+value\s+of\s+" + _AMOUNT,
        re.IGNORECASE)),
    (ROUNDING, re.compile(r"仅允许四舍五入误差|only\s+rounding\s+errors?\s+(?:are|is)\s+allowed",
                          re.IGNORECASE)),
)
_LATEST = re.compile(r"最新|latest|current", re.IGNORECASE)


def _section(text: str, label: re.Pattern[str], other: re.Pattern[str]) -> str | None:
    m = label.search(text)
    if m is None:
        return None
    rest = text[m.end():]
    stop = other.search(rest)
    return (rest[: stop.start()] if stop else rest).strip().strip('"').strip()


def parse_rule(text: str) -> Rule:
    for kind, pattern in _RULES:
        m = pattern.search(text)
        if m is None:
            continue
        if kind in (ROUNDING, RANGE):
            return Rule(kind, text)
        groups = [g for g in m.groups()]
        number = next((g for g in groups[0::2] if g), None)
        pct = next((g for g in groups[1::2] if g), None)
        amount = to_decimal(number) if number else None
        if amount is None:
            raise RubricError(f"cannot read the tolerance in «{text}»")
        return Rule(kind, text, amount, pct is not None)
    raise RubricError(f"precision rule not recognised: «{text}»")


_PAREN = re.compile(r"[(（][^)）]*[)）]")
# A generic word right after another field word is part of its name ("previous close price").
_GENERIC_LAST = frozenset({"price", "价格", "报价", "quote", "价"})


def required_fields(text: str) -> tuple[str, ...]:
    """The fields a required point names, in order. A parenthesis explains what is outside it
    ("昨收价（前一交易日收盘价）", "previous close (the prior trading day's closing price)"): its
    words count only when nothing outside names a field."""
    outside = _PAREN.sub(lambda m: " " * len(m.group(0)), text)
    found = _fields_in(outside)
    return found or _fields_in(text)


def _fields_in(text: str) -> tuple[str, ...]:
    found: list[str] = []
    last_named = False  # `last` named by a word other than an instrument-name word
    prev_end = -10
    prev_field = ""
    for m in F.REQUIRED_RE.finditer(text.lower()):
        word = m.group(0)
        field = F.REQUIRED_OWNER[word]
        adjacent = text[prev_end:m.start()].strip() == "" and prev_field not in ("", F.LAST)
        prev_end, prev_field = m.end(), field
        if field == F.LAST and word in _GENERIC_LAST and adjacent:
            continue
        if field == F.LAST and word not in F.NAME_LIKE:
            last_named = True
        if field not in found:
            found.append(field)
    if F.LAST in found and not last_named and len(found) > 1:
        found.remove(F.LAST)
    if not found and _LATEST.search(text):
        found.append(F.LAST)
    return tuple(found)


@lru_cache(maxsize=4096)
def parse_criteria(reference: str) -> Criteria:
    """Parse once per distinct rubric text; datasets repeat the same few rubrics many times."""
    text = reference.strip().strip('"').strip()
    required_text = _section(text, _REQUIRED_LABEL, _PRECISION_LABEL)
    precision_text = _section(text, _PRECISION_LABEL, _REQUIRED_LABEL)
    if required_text is None:
        raise RubricError(f"no 必答点 / Required Content in the rubric: «{_clip(text)}»")
    if precision_text is None:
        raise RubricError(f"no 精度要求 / Accuracy Requirements in the rubric: «{_clip(text)}»")
    required = required_fields(required_text)
    lowered = required_text.lower()
    session = "pm" if re.search(r"午盘|晚盘|afternoon", required_text, re.IGNORECASE) else (
        "am" if re.search(r"早盘|morning", required_text, re.IGNORECASE) else "")
    # "午盘价" is the latest afternoon benchmark: the headline of its session
    required = tuple(dict.fromkeys(F.LAST if f in (F.AM_FIX, F.PM_FIX) else f
                                   for f in required))
    aliases: list[tuple[str, str]] = []
    for q in F.QUALIFIER_RE.finditer(lowered):
        qfield = F.QUALIFIERS[q.group(0)]
        if qfield in (F.OFFSHORE, F.ONSHORE, F.CENTRAL_PARITY, F.EXTENDED, F.BID, F.ASK):
            aliases.append((qfield, F.LAST))
    if not any(a[0] in (F.OFFSHORE, F.CENTRAL_PARITY) for a in aliases):
        aliases.append((F.ONSHORE, F.LAST))  # a plain exchange rate is the onshore one
    # the benchmark of the session asked for (the afternoon one when none is named)
    aliases.append((F.AM_FIX if session == "am" else F.PM_FIX, F.LAST))
    alias = dict(aliases)
    required = tuple(dict.fromkeys(F.LAST if f in alias else f for f in required))
    if not required:
        raise RubricError(f"cannot tell which quantity the required content names: "
                          f"«{required_text}»")
    percent_point = bool(_PERCENT_POINT.search(lowered))
    return Criteria(required, required_text, parse_rule(precision_text), session,
                    tuple(dict.fromkeys(aliases)), percent_point)


_PERCENT_POINT = re.compile(r"收益率|利率|yield|interest rate|lpr|shibor|hibor|libor|sofr")


def _clip(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
