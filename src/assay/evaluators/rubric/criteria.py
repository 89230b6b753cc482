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

from . import fields as F

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


_REQUIRED_LABEL = re.compile(r"(?:必答点|required\s+content)\s*[:：]", re.IGNORECASE)
_PRECISION_LABEL = re.compile(r"(?:精度要求|accuracy\s+requirements?)\s*[:：]", re.IGNORECASE)
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


def required_fields(text: str) -> tuple[str, ...]:
    found: list[str] = []
    last_named = False  # `last` named by a word other than an instrument-name word
    for m in F.REQUIRED_RE.finditer(text.lower()):
        word = m.group(0)
        field = F.REQUIRED_OWNER[word]
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
    aliases: list[tuple[str, str]] = []
    for q in F.QUALIFIER_RE.finditer(required_text.lower()):
        qfield = F.QUALIFIERS[q.group(0)]
        if qfield in (F.OFFSHORE, F.CENTRAL_PARITY, F.EXTENDED, F.BID, F.ASK):
            aliases.append((qfield, F.LAST))
    if aliases:
        required = tuple(dict.fromkeys(F.LAST if f in dict(aliases) else f for f in required))
    if not required:
        raise RubricError(f"cannot tell which quantity the required content names: "
                          f"«{required_text}»")
    session = "pm" if re.search(r"午盘|晚盘|afternoon", required_text, re.IGNORECASE) else (
        "am" if re.search(r"早盘|morning", required_text, re.IGNORECASE) else "")
    return Criteria(required, required_text, parse_rule(precision_text), session,
                    tuple(dict.fromkeys(aliases)))


def _clip(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
