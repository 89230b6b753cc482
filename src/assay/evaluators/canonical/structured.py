"""Structured answers as statements: JSON objects, Python dicts, `key: value` lines, code
fences, REPL sessions and LaTeX (`\\boxed{2315}`).

A key names a field ("change_pct" → "change percent"), so `{"ticker": "ORCL", "price": 291.3,
"change_pct": -0.4}` is read as "ORCL price: 291.3; change percent: -0.4%." Numbers keep the
digits they were written with (JSON's 1455.00 is not 1455.0: precision decides rounding).
"""

from __future__ import annotations

import ast
import json
import re
import warnings
from typing import Any

# Abbreviations in keys, as words the readers know.
_KEY_WORDS = {
    "pct": "percent", "chg": "change", "prev": "previous", "px": "price", "hi": "high",
    "lo": "low", "vol": "volume", "mktcap": "market cap", "mkt": "market", "cap": "cap",
    "ytd": "YTD", "pe": "P/E", "qty": "quantity", "amt": "amount", "ccy": "currency",
    "cur": "currency", "curr": "currency", "perc": "percent", "pctchg": "change percent",
    "pctchange": "change percent", "ts": "time", "dt": "date", "sym": "symbol",
    "last": "last", "close": "close", "open": "open", "yld": "yield", "rt": "",
}
_NAME_KEYS = ("name", "ticker", "symbol", "instrument", "company", "stock", "code", "security",
              "index", "pair", "asset", "名称", "代码", "股票", "标的", "品种", "公司", "证券")
# keys whose value is the unit, scale or currency of the object's numbers
_UNIT_KEYS = ("unit", "units", "scale", "单位", "量纲")
_CURRENCY_KEYS = ("currency", "ccy", "币种", "货币")
# keys whose numbers are labels (a year, a date, an id), never quantities
_LABEL_KEY = re.compile(r"year|date|period|fy|quarter|month|day|time|id$|code|rank|年份|年度|日期|"
                        r"期间|季度|月份|代码|排名", re.IGNORECASE)
_NUMBER = re.compile(r"[-+]?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?")
_PERCENT_KEY = re.compile(r"pct|percent|perc\b|%|涨跌幅|幅", re.IGNORECASE)
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


class _Raw(str):
    """A JSON number kept as written."""


def key_words(key: str) -> str:
    """"change_pct" → "change percent", "lastPrice" → "last price", "RT_LAST" → "last"."""
    if not key.isascii():
        return key
    parts = [p for p in re.split(r"[_\-.\s]+", _CAMEL.sub(" ", key)) if p]
    words = [_KEY_WORDS.get(p.lower(), p.lower()) for p in parts]
    return " ".join(w for w in words if w) or key


def _scalar(key: str, value: Any) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float, _Raw)):
        text = str(value)
        if _PERCENT_KEY.search(key) and not text.endswith("%"):
            text += "%"
        return text
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list) and all(not isinstance(v, (dict, list)) for v in value):
        return ", ".join(_scalar(key, v) for v in value)
    return json.dumps(value, ensure_ascii=False)


def _subject(obj: dict[str, Any]) -> tuple[str, set[str]]:
    for k, v in obj.items():
        if str(k).lower() in _NAME_KEYS and isinstance(v, (str, int)) and str(v).strip():
            return str(v).strip(), {k}
    return "", set()


def statements(value: Any, subject: str = "") -> list[str]:
    """One line per object: its subject, then "field: value" pairs."""
    lines: list[str] = []
    if isinstance(value, list):
        for v in value:
            lines += statements(v, subject)
        return lines
    if not isinstance(value, dict):
        return [f"{subject} {_scalar('', value)}".strip()] if value is not None else []
    if len(value) == 1 and not subject:
        (key, inner), = value.items()
        if str(key).lower() in _WRAPPERS and isinstance(inner, str):
            return [inner.strip()]  # {"answer": "…"}: the answer itself
    own, used = _subject(value)
    head = " ".join(x for x in (subject, own) if x)
    suffix = _unit_suffix(value, used)
    pairs: list[str] = []
    for k, v in value.items():
        if k in used:
            continue
        if isinstance(v, dict) or (isinstance(v, list) and any(isinstance(x, dict) for x in v)):
            # {"ORCL": {...}}: the key names what the inner object speaks of, unless it is a
            # field group ("quote": {...}, "data": {...})
            inner = str(k)
            lines += statements(v, " ".join(x for x in (head, _nest(inner)) if x))
            continue
        shown = _scalar(str(k), v)
        numeric = (isinstance(v, (int, float, _Raw)) and not isinstance(v, bool)) or (
            isinstance(v, str) and _NUMBER.fullmatch(v.strip()) is not None)
        if suffix and numeric and not _LABEL_KEY.search(str(k)):
            shown += suffix  # {"value": 48.79, "unit": "万亿元"} → "value: 48.79万亿元"
        pairs.append(f"{key_words(str(k))}: {shown}")
    if pairs:
        lines.insert(0, (head + " " if head else "") + "; ".join(pairs))
    return lines


def _unit_suffix(obj: dict[str, Any], used: set[str]) -> str:
    """The unit an object's keys give its numbers ("unit": "billion", "currency": "RMB");
    the keys are consumed."""
    parts: list[str] = []
    for keys in (_UNIT_KEYS, _CURRENCY_KEYS):
        for k, v in obj.items():
            if str(k).lower() in keys and isinstance(v, str) and v.strip() and len(v) <= 12:
                parts.append(v.strip())
                used.add(k)
                break
    if not parts:
        return ""
    text = " ".join(parts)
    return text if re.match(r"[\u4e00-\u9fff%‰]", text) else " " + text


_WRAPPERS = frozenset({"answer", "final_answer", "finalanswer", "response", "output", "result",
                       "content", "text", "reply", "答案", "回答", "结果"})


def _nest(key: str) -> str:
    return "" if key.lower() in ("data", "quote", "result", "results", "response", "answer",
                                 "output", "payload", "fields", "values", "items") else key


_FENCE = re.compile(r"^[ \t]*```[ \t]*[A-Za-z0-9_+-]*[ \t]*$\n?", re.MULTILINE)
_BOXED = re.compile(r"\$*\s*\\(?:boxed|fbox)\s*\{((?:[^{}]|\{[^{}]*\})*)\}\s*\$*")
_LATEX = (("\\%", "%"), ("\\$", "$"), ("\\,", ""), ("\\;", " "), ("\\!", ""), ("\\approx", "约"),
          ("\\times", "×"), ("\\cdot", "×"), ("\\(", ""), ("\\)", ""), ("\\[", ""), ("\\]", ""),
          ("\\text", ""), ("\\mathrm", ""), ("\\textbf", ""), ("\\quad", " "))
_LATEX_BRACES = re.compile(r"(?<![\w$])\{([^{}\n]{0,80})\}")
_REPL_CODE = re.compile(r"^[ \t]*(?:>>>|\.\.\.|In \[\d*\]:)[^\n]*\n?", re.MULTILINE)
_REPL_OUT = re.compile(r"^[ \t]*Out\[\d*\]:[ \t]*", re.MULTILINE)
_KEY_LINE = re.compile(r"^([ \t]*(?:[-*•][ \t]*)?)([A-Za-z][A-Za-z0-9]*(?:[_.][A-Za-z0-9]+)+|"
                       r"[a-z]+(?:[A-Z][a-z0-9]*)+)([ \t]*[:=])", re.MULTILINE)


def _objects(text: str) -> list[tuple[int, int, Any]]:
    """Every JSON object or array of objects (or Python dict literal) in `text`."""
    decoder = json.JSONDecoder(parse_float=_Raw, parse_int=_Raw)
    out: list[tuple[int, int, Any]] = []
    pos = _next_open(text, 0)
    while pos != -1:
        value: Any = None
        end = -1
        try:
            value, end = decoder.raw_decode(text, pos)
        except ValueError:
            close = _balanced(text, pos)
            if close > pos:
                try:
                    with warnings.catch_warnings():  # "\ " in prose is no escape to warn of
                        warnings.simplefilter("ignore", SyntaxWarning)
                        warnings.simplefilter("ignore", DeprecationWarning)
                        value = ast.literal_eval(text[pos:close + 1])
                    end = close + 1
                except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
                    value = None
        if isinstance(value, dict) or (isinstance(value, list) and value and
                                       all(isinstance(v, dict) for v in value)):
            out.append((pos, end, value))
            pos = _next_open(text, end)
        else:
            pos = _next_open(text, pos + 1)
    return out


def _next_open(text: str, start: int) -> int:
    a, b = text.find("{", start), text.find("[", start)
    return min(x for x in (a, b) if x >= 0) if a >= 0 or b >= 0 else -1


def _balanced(text: str, pos: int) -> int:
    pairs = {"{": "}", "[": "]"}
    stack: list[str] = []
    quote = ""
    for k in range(pos, min(len(text), pos + 20000)):
        ch = text[k]
        if quote:
            if ch == quote and text[k - 1] != "\\":
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in pairs:
            stack.append(pairs[ch])
        elif ch in "}]":
            if not stack or stack.pop() != ch:
                return -1
            if not stack:
                return k
    return -1


def unwrap(text: str) -> tuple[str, list[str]]:
    """The answer with its structures turned into statements, and the names of what changed."""
    done: list[str] = []
    if "\\" in text:
        new = _BOXED.sub(lambda m: " " + m.group(1) + " ", text)
        for a, b in _LATEX:
            if a in new:
                new = new.replace(a, b)
        new = _LATEX_BRACES.sub(r"\1", new) if new != text else new
        if new != text:
            text = new
            done.append("LaTeX")
    if "```" in text:
        text = _FENCE.sub("", text)
        done.append("code fence")
    if ">>>" in text or "In [" in text:
        new = _REPL_OUT.sub("", _REPL_CODE.sub("", text))
        if new != text:
            text = new
            done.append("REPL prompts")
    if "{" in text or "[{" in text:
        found = _objects(text)
        if found:
            parts: list[str] = []
            last = 0
            for start, end, value in found:
                parts.append(text[last:start])
                parts.append("\n" + "\n".join(statements(value)) + "\n")
                last = end
            parts.append(text[last:])
            text = "".join(parts)
            done.append("JSON as statements")
    if "_" in text or any(c.isupper() for c in text[:4000] if c.isascii()):
        new = _KEY_LINE.sub(lambda m: m.group(1) + key_words(m.group(2)) + m.group(3), text)
        if new != text:
            text = new
            done.append("key names as words")
    return text, done
