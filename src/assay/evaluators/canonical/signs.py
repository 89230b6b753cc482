"""Signs in one form: "+" and "-" written before the number.

- arrows and triangles (▲ ▼ ↑ ↓ 🔺 🔻 ⬆ ⬇ 📈 📉) before a number: its sign ("▲2.3%" → "+2.3%",
  "▼ 1.64%" → "-1.64%"); an arrow after a number ("2.3% ↓") likewise;
- an accounting negative, a bare number in brackets where a value is expected — after a label
  ("Change: (1.64%)"), in a table cell ("| (1.64%) |"), or alone on a line — is negative
  ("-1.64%"). Brackets right after another number ("PFE 24.10 (0.7%)") are the quote line's
  change written in brackets, not a sign: left as they are.
"""

from __future__ import annotations

import re

from .steps import Step, apply

_UP = "▲↑🔺⬆📈△⇧"
_DOWN = "▼↓🔻⬇📉▽⇩"
_ARROW_BEFORE = re.compile(rf"([{_UP}{_DOWN}])\ufe0f?\s*([+-]?)(?=[$¥€£]?\s?\d|HK\$|US\$)")
_ARROW_AFTER = re.compile(rf"(?<![\d.])(\d[\d,]*(?:\.\d+)?\s?%)\s*([{_UP}{_DOWN}])\ufe0f?")
_ACCOUNTING = re.compile(
    r"(^|[:：=|]|\n|[A-Za-z\u4e00-\u9fff][ \t]|[\u4e00-\u9fff])([ \t]*)"
    r"[(（]\s*((?:[$¥€£]|HK\$|US\$)?\s?\d[\d,]*\.\d+\s?(?:%|pp|bp)?|\d[\d,]*\s?%)\s*[)）]"
    r"(?=[ \t]*(?:$|\||\n|[,，;；。]|\s{2}))", re.MULTILINE)
# before a bracketed number, these say it is a rise or a size, not an accounting negative
_NOT_ACCOUNTING = re.compile(r"(?:涨|升|增|rose|up|gained|gain|rise|increase|yield|收益率|利率)\W{0,3}$",
                             re.IGNORECASE)


def _before(m: re.Match[str]) -> str:
    return "-" if m.group(1) in _DOWN else "+"


def _after(m: re.Match[str]) -> str:
    return ("-" if m.group(2) in _DOWN else "+") + m.group(1)


def _negative(m: re.Match[str]) -> str:
    if _NOT_ACCOUNTING.search(m.string, 0, m.start(2)) is not None:
        return m.group(0)
    return f"{m.group(1)}{m.group(2)}-{m.group(3)}"


def _arrows(text: str) -> bool:
    return any(c in text for c in _UP + _DOWN)


UNIFORM = (
    Step("arrows → signs", _arrows, _ARROW_BEFORE, _before),
    Step("arrows → signs", _arrows, _ARROW_AFTER, _after),
    Step("accounting negative", lambda t: "(" in t or "（" in t, _ACCOUNTING, _negative),
)


def uniform(text: str) -> tuple[str, list[str]]:
    return apply(text, UNIFORM)
