"""Signs in one form: "+" and "-" written before the number.

- arrows and triangles (▲ ▼ ↑ ↓ 🔺 🔻 ⬆ ⬇ 📈 📉) before a number: its sign ("▲2.3%" → "+2.3%",
  "▼ 1.64%" → "-1.64%"); an arrow after a number ("2.3% ↓") likewise;
- an accounting negative — a bare number in brackets after a change label or a year ("Change:
  (1.64%)", "2022 (11.6)"), in a table cell ("| (1.64%) |"), or a bracketed change beside its
  bracketed percent ("(4.25)  (4.30%)") — is negative. Brackets elsewhere are glosses ("PFE
  24.10 (0.7%)", "rose today (1.10%)", "占比（12.5%）") and stay.
"""

from __future__ import annotations

import re

from assay.core.lazy_pattern import lazy

from .steps import Step, apply

_UP = "▲↑🔺⬆📈△⇧"
_DOWN = "▼↓🔻⬇📉▽⇩"
_ARROW_BEFORE = lazy(rf"([{_UP}{_DOWN}])\ufe0f?\s*([+-]?)(?=[$¥€£]?\s?\d|HK\$|US\$)")
_ARROW_AFTER = lazy(rf"(?<![\d.])(\d[\d,]*(?:\.\d+)?\s?%)\s*([{_UP}{_DOWN}])\ufe0f?")
_NUM = r"(?:(?:[$¥€£]|HK\$|US\$)?\s?\d[\d,]*(?:\.\d+)?\s?(?:%|pp|bp)?)"
_BRACKETED = rf"[(（]\s*({_NUM})\s*[)）]"
_CHANGE_LABEL = (r"(?:chg%?|change%?|net change|pct chg|涨跌幅|涨跌额|涨跌|变动|变化|p&l|pnl|fcf|"
                 r"free cash flow|"
                 r"net income|net loss|净利润|净亏损|现金流|盈亏|(?:fy|cy)?(?:19|20)\d{2})")
# A bracketed number is an accounting negative where accounting style is evident: after a
# change label or a year ("chg (0.34)", "涨跌幅 (0.81%)", "2022 (11.6)"), in a table cell
# ("| (1.64%) |"), or as a pair of bracketed change and change % ("(4.25)  (4.30%)"). A bracket
# after other words ("rose today (1.10%)", "占比（12.5%）", "Tax rate: (21%)") is a gloss.
_ACCOUNTING = lazy(
    rf"(?P<lead>(?<![A-Za-z]){_CHANGE_LABEL}[ \t]*(?:[:：=]|\b(?:of|was|is)\b|为|是)?[ \t]*|\|[ \t]*)"
    rf"{_BRACKETED}(?=[ \t]*(?:$|\||\n|[,，;；。]|\.(?:\s|$)|\s{{2}}))",
    re.MULTILINE | re.IGNORECASE)
_PAIR = lazy(rf"([$¥€£]?){_BRACKETED}([ \t]+(?:/[ \t]*)?|[ \t]*/[ \t]*){_BRACKETED}")
# a currency sign outside the brackets is accounting style whatever stands before: "$(1.82)"
_CURRENCY_BRACKET = lazy(r"([$¥€£])[(（]\s*(\d[\d,]*(?:\.\d+)?)\s*[)）]")
# before a bracketed number, these say it is a rise or a size, not an accounting negative
_NOT_ACCOUNTING = lazy(r"(?:涨|升|增|rose|up|gained|gain|rise|increase|yield|收益率|利率)\W{0,3}$",
                             re.IGNORECASE)


def _before(m: re.Match[str]) -> str:
    return "-" if m.group(1) in _DOWN else "+"


def _after(m: re.Match[str]) -> str:
    return ("-" if m.group(2) in _DOWN else "+") + m.group(1)


def _negative(m: re.Match[str]) -> str:
    if _NOT_ACCOUNTING.search(m.string, 0, m.start(2)) is not None:
        return m.group(0)
    return f"{m.group('lead')}-{m.group(2)}"


def _pair(m: re.Match[str]) -> str:
    if "%" not in m.group(4) or "%" in m.group(2):
        return m.group(0)  # a change and its percent: "(0.34)  (0.81%)", "$(1.82) / (0.35%)"
    return f"-{m.group(1)}{m.group(2)}{m.group(3)}-{m.group(4)}"


def _arrows(text: str) -> bool:
    """Whether an arrow of _UP or _DOWN is in `text`: written out, fourteen `in` tests cost
    less than a generator over them (a step each), and this gates two steps of every answer."""
    return ("▲" in text or "↑" in text or "🔺" in text or "⬆" in text or "📈" in text
            or "△" in text or "⇧" in text or "▼" in text or "↓" in text or "🔻" in text
            or "⬇" in text or "📉" in text or "▽" in text or "⇩" in text)


assert all(_arrows(c) for c in _UP + _DOWN) and len(_UP + _DOWN) == 14  # every arrow tested


# a change written with its sign, then its percent in brackets without one: "Chg -1.82
# (0.35%)" — the percent moved the same way
_SIGNED_THEN_PCT = lazy(r"(?<![\w.])(-\s?[$¥€£]?\d[\d,]*(?:\.\d+)?)([ \t]*)[(（]\s*(\d[\d,]*"
                              r"(?:\.\d+)?\s?%)\s*[)）]")

UNIFORM = (
    Step("signed change's percent", lambda t: "%)" in t or "%）" in t, _SIGNED_THEN_PCT,
         r"\1\2(-\3)"),
    Step("arrows → signs", _arrows, _ARROW_BEFORE, _before),
    Step("arrows → signs", _arrows, _ARROW_AFTER, _after),
    Step("accounting negative", lambda t: "(" in t or "（" in t, _PAIR, _pair),
    Step("accounting negative", lambda t: "$(" in t or "¥(" in t or "€(" in t or "£(" in t,
         _CURRENCY_BRACKET, r"-\1\2"),
    Step("accounting negative", lambda t: "(" in t or "（" in t, _ACCOUNTING, _negative),
)


def uniform(text: str) -> tuple[str, list[str]]:
    return apply(text, UNIFORM)
