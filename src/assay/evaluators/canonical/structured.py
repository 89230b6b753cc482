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

from assay.core.casing import has_ascii_upper
from assay.core.lazy_pattern import lazy

# Abbreviations in keys, as words the readers know.
_KEY_WORDS = {
    "pct": "percent", "chg": "change", "prev": "previous close", "px": "price", "hi": "high",
    "lo": "low", "vol": "volume", "mktcap": "market cap", "mkt": "market", "cap": "cap",
    "ytd": "YTD", "pe": "P/E", "qty": "quantity", "amt": "amount", "ccy": "currency",
    "cur": "current", "curr": "current", "perc": "percent", "pctchg": "change percent",
    "pctchange": "change percent", "ts": "time", "dt": "date", "sym": "symbol",
    "last": "last", "close": "close", "open": "open", "yld": "yield", "rt": "",
}
_ROW_KEYS = frozenset({"index", "level_0", "unnamed: 0", "row", "rownum", "#"})
_NAME_KEYS = ("name", "ticker", "symbol", "instrument", "company", "stock", "code", "security",
              "index", "pair", "asset", "名称", "代码", "股票", "标的", "品种", "公司", "证券")
# keys whose number a unit key scales ("value": 48.79, "unit": "万亿元")
_AMOUNT_KEYS = lazy(r"^(?:value|amount|total|figure|result|数值|金额|总额|数额|值)$",
                          re.IGNORECASE)
# keys whose value is the unit, scale or currency of the object's numbers
_UNIT_KEYS = ("unit", "units", "scale", "单位", "量纲")
_CURRENCY_KEYS = ("currency", "ccy", "币种", "货币")
# keys whose numbers are labels (a year, a date, an id), never quantities
_LABEL_KEY = lazy(r"year|date|period|fy|quarter|month|day|time|id$|code|rank|年份|年度|日期|"
                        r"期间|季度|月份|代码|排名", re.IGNORECASE)
_NUMBER = lazy(r"[-+]?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?")
_TIME_KEY = lazy(r"time|^ts$|时间", re.IGNORECASE)
_DATE_KEY = lazy(r"date|^dt$|日期", re.IGNORECASE)
_HHMMSS = lazy(r"(?:[01]\d|2[0-3])[0-5]\d(?:[0-5]\d)?")
_YYYYMMDD = lazy(r"(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])")
_PERCENT_KEY = lazy(r"pct|percent|perc\b|%|涨跌幅|幅", re.IGNORECASE)
_CAMEL = lazy(r"(?<=[a-z])(?=[A-Z])")
_DATED_KEY = lazy(r"(?:19|20)\d{2}[-/.]\d{1,2}(?:[-/.]\d{1,2})?")


class _Raw(str):
    """A JSON number kept as written."""


def key_words(key: str) -> str:
    """"change_pct" → "change percent", "lastPrice" → "last price", "RT_LAST" → "last"."""
    if not key.isascii() or _DATED_KEY.fullmatch(key):
        return key  # "2024-01", "2024-12-31": a month or a day, kept whole
    parts = [p for p in re.split(r"[_\-.\s]+", _CAMEL.sub(" ", key)) if p]
    words = [_KEY_WORDS.get(p.lower(), p.lower()) for p in parts]
    return " ".join(w for w in words if w) or key


def _scalar(key: str, value: Any) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float, _Raw)) or (isinstance(value, str) and
                                                 _NUMBER.fullmatch(value.strip())):
        try:
            text = str(value).strip()
        except ValueError:  # an int of more than 4,300 digits: no quantity
            return ""
        if _TIME_KEY.search(key) and _HHMMSS.fullmatch(text):  # "rt_time": 150002
            return ":".join(text[k:k + 2] for k in range(0, len(text), 2))
        if _DATE_KEY.search(key) and _YYYYMMDD.fullmatch(text):  # "trade_date": 20250814
            return f"{text[:4]}-{text[4:6]}-{text[6:]}"
        if _PERCENT_KEY.search(key) and not text.endswith("%"):
            text += "%"
        return text
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list) and len(value) <= 200 and all(
            not isinstance(v, (dict, list)) for v in value):
        return ", ".join(_scalar(key, v) for v in value)
    if not isinstance(value, (dict, list, str)):
        return ""  # a Python literal's set, bytes, complex, Ellipsis: no quantity of an answer
    try:
        return json.dumps(value, ensure_ascii=False, default=lambda _: "")[:2000]
    except (ValueError, TypeError, RecursionError):
        return ""


def _subject(obj: dict[str, Any]) -> tuple[str, set[str]]:
    for k, v in obj.items():
        # a name is text: {"index": 0, …} is a pandas record's row number, not a subject
        if str(k).lower() in _NAME_KEYS and isinstance(v, str) and not isinstance(v, _Raw) \
                and v.strip():
            return v.strip(), {k}
    return "", set()


def statements(value: Any, subject: str = "", depth: int = 0) -> list[str]:
    """One line per object: its subject, then "field: value" pairs."""
    lines: list[str] = []
    if depth > 12:  # an answer's data is never nested deeper; a hostile one may be
        return []
    if isinstance(value, list):
        for v in value[:500]:
            lines += statements(v, subject, depth + 1)
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
    # a unit key scales the object's one quantity (or its "value"/"amount"), never every number
    # of an object that mixes kinds ("price": 247.45, "market_cap": 3.67, "unit": "trillion")
    amounts = sum(1 for k, v in value.items() if k not in used and not _LABEL_KEY.search(str(k))
                  and ((isinstance(v, (int, float, _Raw)) and not isinstance(v, bool)) or (
                      isinstance(v, str) and _NUMBER.fullmatch(v.strip()) is not None)))
    pairs: list[str] = []
    for k, v in value.items():
        if k in used or (str(k).lower() in _ROW_KEYS and str(v).isdigit()):
            continue  # {"index": 0, …}: a pandas record's row number
        if isinstance(v, dict) or (isinstance(v, list) and any(isinstance(x, dict) for x in v)):
            # {"ORCL": {...}}: the key names what the inner object speaks of, unless it is a
            # field group ("quote": {...}, "data": {...})
            inner = str(k)
            lines += statements(v, " ".join(x for x in (head, _nest(inner)) if x), depth + 1)
            continue
        shown = _scalar(str(k), v)
        numeric = (isinstance(v, (int, float, _Raw)) and not isinstance(v, bool)) or (
            isinstance(v, str) and _NUMBER.fullmatch(v.strip()) is not None)
        if suffix and numeric and (_AMOUNT_KEYS.match(str(k)) or amounts == 1) and \
                not _LABEL_KEY.search(str(k)):
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


_FENCE = lazy(r"^[ \t]*```[ \t]*[A-Za-z0-9_+-]*[ \t]*$\n?", re.MULTILINE)
_BOX = lazy(r"\$*\s*\\(?:boxed|fbox)\s*\{")


def _unbox(text: str) -> str:
    """`$\\boxed{12.5\\%}$` → its content: braces matched by counting, a bounded number of
    boxes, each within 2,000 characters (a regex with nested groups took seconds on a text
    of unclosed boxes)."""
    out: list[str] = []
    last = 0
    for n, m in enumerate(_BOX.finditer(text)):
        if n >= 32 or m.start() < last:
            break
        depth, k = 1, m.end()
        while k < len(text) and k < m.end() + 2000 and depth:
            depth += {"{": 1, "}": -1}.get(text[k], 0)
            k += 1
        if depth:
            continue
        end = k
        while end < len(text) and text[end] in "$ ":
            end += 1
        out.append(text[last:m.start()])
        out.append(" " + text[m.end():k - 1] + " ")
        last = end
    out.append(text[last:])
    return "".join(out)
_LATEX = (("\\%", "%"), ("\\$", "$"), ("\\,", ""), ("\\;", " "), ("\\!", ""), ("\\approx", "约"),
          ("\\times", "×"), ("\\cdot", "×"), ("\\(", ""), ("\\)", ""), ("\\[", ""), ("\\]", ""),
          ("\\text", ""), ("\\mathrm", ""), ("\\textbf", ""), ("\\quad", " "))
_LATEX_BRACES = lazy(r"(?<![\w$])\{([^{}\n]{0,80})\}")
_REPL_CODE = lazy(r"^[ \t]*(?:>>>|\.\.\.|In \[\d*\]:)[^\n]*\n?", re.MULTILINE)
_REPL_OUT = lazy(r"^[ \t]*Out\[\d*\]:[ \t]*", re.MULTILINE)
# code-style keys only: snake_case, camelCase ("last_price:", "changePct ="), never a ticker or
# an instrument written with a dot or digits ("BRK.B:", "Au99.99:")
_KEY_LINE = lazy(r"^([ \t]*(?:[-*•][ \t]*)?)([A-Za-z]+(?:_[A-Za-z]+)+|[a-z]+(?:[A-Z][a-z]+)+)"
                       r"([ \t]*[:=])", re.MULTILINE)


# where a structure can start: "{" before a quote, "[" before "{" (blanks allowed)
_OPENER = lazy(r"\{(?=\s*[\"'}])|\[(?=\s*\{)")
_MAX_TRIES = 64  # openers tried per answer: prose with braces costs no more than this


def _objects(text: str) -> list[tuple[int, int, Any]]:
    """Every JSON object or array of objects (or Python dict literal) in `text`. Tries at most
    _MAX_TRIES openers and scans at most _SCAN characters from each, so brace-heavy text costs
    a bounded time (a hostile review measured 5 s for 10,000 braces before the bounds)."""
    decoder = json.JSONDecoder(parse_float=_Raw, parse_int=_Raw)
    out: list[tuple[int, int, Any]] = []
    tries = 0
    opener = _OPENER.search(text)
    while opener is not None and tries < _MAX_TRIES:
        tries += 1
        pos = opener.start()
        value: Any = None
        end = -1
        try:
            value, end = decoder.raw_decode(text, pos)
        except (ValueError, RecursionError):
            close = _balanced(text, pos)
            if close > pos:
                try:
                    with warnings.catch_warnings():  # "\ " in prose is no escape to warn of
                        warnings.simplefilter("ignore", SyntaxWarning)
                        warnings.simplefilter("ignore", DeprecationWarning)
                        value = ast.literal_eval(text[pos:close + 1])
                    end = close + 1
                except Exception:  # any literal the parser refuses (or overflows on) is prose
                    value = None
        if isinstance(value, dict) or (isinstance(value, list) and value and
                                       all(isinstance(v, dict) for v in value)):
            out.append((pos, end, value))
            opener = _OPENER.search(text, end)
        else:
            opener = _OPENER.search(text, pos + 1)
    return out


_SCAN = 5000  # characters a Python literal may span


def _balanced(text: str, pos: int) -> int:
    pairs = {"{": "}", "[": "]"}
    stack: list[str] = []
    quote = ""
    for k in range(pos, min(len(text), pos + _SCAN)):
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


# Marks where a tool output (a fenced block, a JSON object, a CSV block) ends while the canonical
# form is built: an invisible separator no rewrite reads; `canonical` removes it and keeps the
# offset of the last one that prose follows (`Canonical.tool_end`).
TOOL_END = "\u2063"
_FENCED = lazy(r"^[ \t]*```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\n(.*?)^[ \t]*```[ \t]*$\n?",
                     re.MULTILINE | re.DOTALL)
_CSV_LINE = lazy(r"^[^,\n|]+(?:,[^,\n|]*)+$")


def _csv_tables(text: str) -> str:
    """Runs of three or more comma-separated lines with as many fields each, the first with no
    digit (a header): a markdown table, which the readers read by column and row."""
    lines = text.split("\n")
    out: list[str] = []
    k = 0
    while k < len(lines):
        line = lines[k]
        n = line.count(",")
        run = 1
        if n and _CSV_LINE.match(line) and not any(c.isdigit() for c in line):
            while k + run < len(lines) and lines[k + run].count(",") == n and \
                    _CSV_LINE.match(lines[k + run]):
                run += 1
        if run >= 3:
            rows = [[c.strip() for c in r.split(",")] for r in lines[k:k + run]]
            out.append("| " + " | ".join(rows[0]) + " |")
            out.append("|" + "---|" * len(rows[0]))
            out += ["| " + " | ".join(r) + " |" for r in rows[1:]]
            out[-1] += TOOL_END
            k += run
        else:
            out.append(line)
            k += 1
    return "\n".join(out)


def _keep_last_tool_end(text: str) -> str:
    """Only the last tool output that prose stating a figure follows marks where the answer's
    own words start."""
    if TOOL_END not in text:
        return text
    parts = text.split(TOOL_END)
    # the last mark with words stating a figure after it (not a closing courtesy, nor the
    # fence around the whole answer); none: no mark
    for k in range(len(parts) - 1, 0, -1):
        if any(c.isdigit() for c in "".join(parts[k:])) and parts[k].strip():
            return "".join(parts[:k]) + TOOL_END + "".join(parts[k:])
    return "".join(parts)


_CITE = lazy(r"(?<=\S)\[\d{1,2}\]|\[\d{1,2}\](?=\[\d)|【\d{1,2}(?:[†:]\w*)?】")
_CITE_LOOSE = lazy(r"[ \t]\[\d{1,2}\](?=[\s.。,，;；:：]|$)")
_SOURCE_LINE = lazy(r"[ \t]*(?:[-*•][ \t]*)?(?:\[\d{1,2}\]|【\d{1,2}】|\^\d{1,2})[ \t:：.]?.*")


def _citations(text: str) -> str:
    """Search assistants' citations: the trailing list of sources ("[1] 中国债券信息网 …"), after
    a blank line, and the markers in the text — glued to what they cite ("1.76%[1]"), in a row
    ("[1][2]"), or after a blank before a stop ("4.01% [1]."); never at a line's start ("[1] 最新价
    1455元" numbers an item). "[1, 2, 3]" is no citation."""
    lines = text.split("\n")
    end = len(lines)
    while end > 0 and len(lines) - end < 3 and lines[end - 1].strip() and not _SOURCE_LINE.fullmatch(
            lines[end - 1]) and not any(c.isdigit() for c in lines[end - 1]):
        end -= 1  # a closing line after the sources ("Let me know if you need anything else.")
    k = end
    while k > 0 and (not lines[k - 1].strip() or _SOURCE_LINE.fullmatch(lines[k - 1])):
        k -= 1
    sources = any(lines[j].strip() for j in range(k, end))
    if sources and (k == 0 or (lines[k - 1].strip() and k < end and lines[k].strip())):
        sources = False  # no blank line before the list: numbered items, not sources
    body = "\n".join(lines[:k] + lines[end:]) if sources else text
    return _CITE_LOOSE.sub("", _CITE.sub("", body))


_FOOTNOTE_DEF = lazy(r"^[ \t]*\[\^[^\]\n]{1,20}\]:[^\n]*\n?", re.MULTILINE)
_FOOTNOTE_REF = lazy(r"\[\^[^\]\n]{1,20}\]")


# a tool's log line of key=value pairs: "symbol=603288.SH rt_last=38.77 rt_time=150002"
_PAIR = r"[A-Za-z_][\w.]*=[^\s=,;]+"
_LOGFMT = lazy(rf"^[ \t]*({_PAIR}(?:[ \t,;]+{_PAIR})+)[ \t]*$", re.MULTILINE)


def _logfmt(m: re.Match[str]) -> str:
    pairs = dict(p.split("=", 1) for p in re.findall(_PAIR, m.group(1)))
    return "\n".join(statements(pairs)) + TOOL_END


def unwrap(text: str) -> tuple[str, list[str]]:
    """The answer with its structures turned into statements, and the names of what changed."""
    done: list[str] = []
    if "```" in text:
        text = _FENCED.sub(lambda m: m.group(2).rstrip("\n") + TOOL_END + "\n", text)
        text = _FENCE.sub("", text)  # a fence left open
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
                parts.append("\n" + "\n".join(statements(value)) + TOOL_END + "\n")
                last = end
            parts.append(text[last:])
            text = "".join(parts)
            done.append("JSON as statements")
    if "=" in text:
        new = _LOGFMT.sub(_logfmt, text)
        if new != text:
            text = new
            done.append("key=value pairs as statements")
    if "," in text and text.count("\n") >= 2:
        new = _csv_tables(text)
        if new != text:
            text = new
            done.append("CSV as a table")
    # citations of search assistants: "1.76%[1]", "[1][2]", and the source list "[1] 中国债券信息网"
    if "[" in text or "【" in text:
        new = _citations(text)
        if new != text:
            text = new
            done.append("citations set aside")
    # markdown footnotes, after JSON (a JSON string may hold them): sources, not the answer
    if "[^" in text:
        new = _FOOTNOTE_REF.sub("", _FOOTNOTE_DEF.sub("", text))
        if new != text:
            text = new
            done.append("footnotes set aside")
    if "\\" in text:  # after JSON: a JSON string's escapes are no LaTeX
        new = _unbox(text)
        for a, b in _LATEX:
            if a in new:
                new = new.replace(a, b)
        new = _LATEX_BRACES.sub(r"\1", new) if new != text else new
        if new != text:
            text = new
            done.append("LaTeX")
    if "_" in text or has_ascii_upper(text[:4000]):
        new = _KEY_LINE.sub(lambda m: m.group(1) + key_words(m.group(2)) + m.group(3), text)
        if new != text:
            text = new
            done.append("key names as words")
    return _keep_last_tool_end(text), done
