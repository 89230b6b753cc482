"""The one ground-truth vocabulary: every source's column names → Assay's normalised fields.

Providers map their rows here once (`normalise`), and a stored ground-truth payload of any shape
users meet becomes a `TruthSnapshot` here (`snapshot_from_payload`): Wind `wsq` output (with
its "___" code escaping, possibly under `res.data`), AKShare rows of every market the providers
fetch, CFETS quotes, `bond_zh_us_rate` and `bond_china_yield` rows, SGE benchmark tables,
`{"data": …}` wrappers, yfinance `fast_info`, Tushare daily rows and COMEX realtime rows.
Evaluators read `snapshot.fields` by these names; the source's own names stay beside them in
`snapshot.source_fields`, and `origins` says which source column gave which field.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any, Final

from assay.core.types import TruthSnapshot

# --- normalised fields ----------------------------------------------------------------------
LAST: Final = "last"  # the headline quantity: latest price, level, rate, yield
OPEN: Final = "open"
HIGH: Final = "high"
LOW: Final = "low"
PREV_CLOSE: Final = "prev_close"  # the previous trading day's close (or settlement)
CLOSE: Final = "close"  # a closing price stated as such (a daily bar's close)
CHANGE: Final = "change"
CHANGE_PCT: Final = "change_pct"  # in percent units: -1.95 means -1.95 %
VOLUME: Final = "volume"
TURNOVER: Final = "turnover"
MARKET_CAP: Final = "market_cap"
AM_FIX: Final = "am_fix"  # SGE benchmark, morning fix (早盘价)
PM_FIX: Final = "pm_fix"  # SGE benchmark, afternoon fix (午盘价, labelled 晚盘价 by AKShare)
BID: Final = "bid"
ASK: Final = "ask"
YIELD: Final = "yield"  # a bond yield, in percent units
RATE: Final = "rate"  # an interest rate (LPR, SHIBOR …), in percent units
TIME: Final = "time"  # the quote's date/time as the source wrote it (text, not a value)

FIELDS: Final = (LAST, OPEN, HIGH, LOW, PREV_CLOSE, CLOSE, CHANGE, CHANGE_PCT, VOLUME, TURNOVER,
                 MARKET_CAP, AM_FIX, PM_FIX, BID, ASK, YIELD, RATE, TIME)
# Quantities that are themselves in percent: a tolerance "±0.01%" on them is percentage points.
PERCENT_FIELDS: Final = frozenset({CHANGE_PCT, YIELD, RATE})
# Quantities that are prices (or levels): what "the day's high–low range" speaks of.
PRICE_FIELDS: Final = frozenset({LAST, OPEN, HIGH, LOW, PREV_CLOSE, CLOSE, AM_FIX, PM_FIX, BID,
                                 ASK})

# --- source columns -------------------------------------------------------------------------
# Keys are matched as written, then lower-cased (Wind writes RT_LAST or rt_last).
_WIND = {"rt_last": LAST, "rt_open": OPEN, "rt_high": HIGH, "rt_low": LOW,
         "rt_pre_close": PREV_CLOSE, "rt_close": CLOSE, "rt_chg": CHANGE,
         "rt_pct_chg": CHANGE_PCT, "rt_vol": VOLUME, "rt_amt": TURNOVER,
         "rt_mkt_cap": MARKET_CAP, "rt_bid1": BID, "rt_ask1": ASK, "rt_pre_settle": PREV_CLOSE,
         "rt_ytm": YIELD}
# The judge prompt's {"data": {...}} quote, yfinance fast_info, Tushare daily rows; and the
# normalised names themselves (a payload that is already normalised reads back unchanged).
_QUOTE = {"price": LAST, "last_price": LAST, "previous_close": PREV_CLOSE,
          "regular_market_previous_close": PREV_CLOSE, "pre_close": PREV_CLOSE,
          "change_percent": CHANGE_PCT, "pct_chg": CHANGE_PCT, "day_high": HIGH,
          "day_low": LOW, "last_volume": VOLUME, "vol": VOLUME, "amount": TURNOVER,
          **{f: f for f in FIELDS if f != TIME}}
# CFETS quotes (the judge prompt's example 2)
_CFETS = {"exchange_rate": LAST, "exchange_rate_hi": HIGH, "exchange_rate_lo": LOW,
          "open_exchange_rate": OPEN, "pre_close_exchange_rate": PREV_CLOSE,
          "exchange_range": CHANGE, "exchange_per": CHANGE_PCT}
# AKShare (East Money, CFETS, SGE, Sina futures) column names
_AKSHARE = {"最新价": LAST, "现价": LAST, "今开": OPEN, "开盘价": OPEN, "开盘": OPEN, "最高": HIGH,
            "最高价": HIGH, "最低": LOW, "最低价": LOW, "昨收": PREV_CLOSE, "昨收价": PREV_CLOSE,
            "昨日结算价": PREV_CLOSE, "收盘价": CLOSE, "收盘": CLOSE, "涨跌额": CHANGE,
            "涨跌幅": CHANGE_PCT, "成交量": VOLUME, "成交额": TURNOVER, "总市值": MARKET_CAP,
            "早盘价": AM_FIX, "晚盘价": PM_FIX, "午盘价": PM_FIX, "买报价": BID, "卖报价": ASK,
            "买价": BID, "卖价": ASK, "收益率": YIELD, "利率": RATE}
COLUMNS: Final[dict[str, str]] = {**_WIND, **_QUOTE, **_CFETS, **_AKSHARE}
# Columns that date the quote.
TIME_COLUMNS: Final = ("rt_date", "trading_date", "latest_trading_day", "trade_date", "日期",
                       "交易时间", "最新行情时间", "行情时间", "更新时间", "时间", "date", "time")
# Columns that name the instrument (used to pick one row of a table).
CODE_COLUMNS: Final = ("代码", "货币对", "ts_code", "symbol", "品种", "code", "currency_pair",
                       "名称")
# Columns that hold numbers which are not values: codes, dates, serials.
META_COLUMNS: Final = frozenset({"rt_date", "rt_time", "symbol", "trading_date",
                                 "latest_trading_day", "trade_date", "代码", "名称", "交易时间",
                                 "最新行情时间", "currency_pair", "货币对", "序号", "内部编号",
                                 "date", "time", "日期", "时间", "行情时间", "更新时间", "code",
                                 "name", "request", "currency", "exchange", "timezone",
                                 "ts_code", "品种", "曲线名称", "期限"})

# AKShare's bond_zh_us_rate: "中国国债收益率10年", "美国国债收益率2年" (spreads "10年-2年" are not
# yields of one bond, GDP growth is not a yield at all).
_US_CN_YIELD = re.compile(r"^(中国|美国)国债收益率(\d+)年$")
# bond_china_yield: one row per curve and day, tenors as columns
_TENOR_COLUMN = re.compile(r"^(\d+)([月年])$")


def field_of(column: str) -> str | None:
    """The normalised field a source column holds, or None (a column kept only as the source's)."""
    found = COLUMNS.get(column)
    if found is None:
        found = COLUMNS.get(column.lower())
    return found


def number_text(value: Any) -> str | None:
    """A cell as exact decimal text ("1,455.0" → "1455.0", "-0.59%" → "-0.59"), or None when it
    is not a finite number. Floats go through repr, the shortest text that round-trips."""
    if value is None or isinstance(value, bool):
        return None
    item = getattr(value, "item", None)
    if callable(item) and not isinstance(value, (Decimal, str)):  # numpy / pandas scalar
        try:
            value = item()
        except (TypeError, ValueError):
            return None
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return None
        text = repr(value)
    elif isinstance(value, (int, Decimal)):
        text = str(value)
    elif isinstance(value, str):
        text = value.strip().replace(",", "").removesuffix("%").strip()
        if not text:
            return None
    else:
        return None
    try:
        d = Decimal(text)
    except InvalidOperation:
        return None
    return format(d, "f") if d.is_finite() else None


def _clean(value: Any) -> Any:
    """A source cell as plain JSON (numbers exact, NaN and blanks None)."""
    if isinstance(value, Decimal):
        return format(value, "f") if value.is_finite() else None
    if isinstance(value, float) and value != value:
        return None
    if isinstance(value, str) and not value.strip():
        return None
    if hasattr(value, "isoformat"):
        return value.isoformat()
    item = getattr(value, "item", None)
    if callable(item) and not isinstance(value, (str, int, float)):
        try:
            return _clean(item())
        except (TypeError, ValueError):
            return str(value)
    return value


def normalise(row: Mapping[str, Any]) -> dict[str, Any]:
    """One source row → normalised fields: numbers as exact decimal text, `time` as the source's
    own text. Where the source has no latest value, the headline is derived once, here: a daily
    bar's close, the middle of a bid/ask quote, or a yield."""
    out: dict[str, Any] = {}
    for key, value in row.items():
        name = str(key)
        f = field_of(name)
        if f is not None and f not in out:
            text = number_text(value)
            if text is not None:
                out[f] = text
    if YIELD not in out:  # a row narrowed to one bond (see `_pick_yield`)
        tenors = [k for k in row if _US_CN_YIELD.match(str(k)) or _TENOR_COLUMN.match(str(k))]
        if len(tenors) == 1:
            text = number_text(row[tenors[0]])
            if text is not None:
                out[YIELD] = text
    time = _time_of(row)
    if time is not None:
        out[TIME] = time
    if LAST not in out:
        if CLOSE in out:
            out[LAST] = out[CLOSE]
        elif BID in out and ASK in out:
            out[LAST] = format((Decimal(out[BID]) + Decimal(out[ASK])) / 2, "f")
        elif YIELD in out:
            out[LAST] = out[YIELD]
        elif RATE in out:
            out[LAST] = out[RATE]
    return out


def _time_of(row: Mapping[str, Any]) -> str | None:
    lower = {str(k).lower(): v for k, v in row.items()}
    parts = []
    for col in TIME_COLUMNS:
        v = lower.get(col)
        if v is not None and str(v).strip():
            parts.append(str(_clean(v)))
            if col != "rt_date":
                break
            t = lower.get("rt_time")  # Wind splits date and time
            if t is not None:
                parts.append(str(_clean(t)))
            break
    return " ".join(parts) if parts else None


def origins(fields: Mapping[str, Any], source: Mapping[str, Any]) -> dict[str, str]:
    """For each normalised field, the source column it came from (for evidence: "最新价",
    "RT_LAST"); a derived field names what it was derived from."""
    out: dict[str, str] = {}
    for key in source:
        f = field_of(str(key))
        if f is not None and f not in out and f in fields:
            out[f] = str(key)
    for key, value in source.items():  # picked tenor columns, bond_zh_us_rate columns
        if (_US_CN_YIELD.match(str(key)) or _TENOR_COLUMN.match(str(key))) and \
                fields.get(YIELD) == number_text(value):
            out.setdefault(YIELD, str(key))
    if LAST in fields and LAST not in out:
        for f in (CLOSE, YIELD, RATE):
            if f in out and fields.get(f) == fields[LAST]:
                out[LAST] = out[f]
                break
        else:
            if BID in out and ASK in out:
                out[LAST] = f"({out[BID]} + {out[ASK]}) / 2"
    return out


# --- stored payloads ------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Hints:
    """What the item says about its instrument, to pick one record from a payload that holds
    several (a Wind result for two codes, a whole table, a row of many yields)."""

    codes: tuple[str, ...] = ()
    text: str = ""  # the question and the required point, lower-cased

    @classmethod
    def of_item(cls, fields: Mapping[str, Any]) -> Hints:
        codes = tuple(str(fields[k]).strip() for k in ("wind_ticker", "akshare_ticker",
                                                       "yfinance_ticker", "instrument")
                      if fields.get(k) not in (None, ""))
        text = " ".join(str(fields.get(k) or "") for k in ("prompt", "response_reference",
                                                           "tags"))
        return cls(codes, text.lower())


class PayloadError(ValueError):
    """The payload cannot be read (not JSON, or several instruments and no way to pick)."""


_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_DECODER = json.JSONDecoder(parse_float=Decimal)  # exact decimals; built once


def _loads(text: str) -> tuple[Any, list[str]]:
    """JSON with two repairs for shapes in the judge's own examples (a trailing comma; a bare
    `"CODE": {...}` member), each recorded; anything else that is not JSON is an error."""
    try:
        return _DECODER.decode(text.strip()), []
    except ValueError as first:
        candidates: list[tuple[str, list[str]]] = []
        fixed = _TRAILING_COMMA.sub(r"\1", text)
        if fixed != text:
            candidates.append((fixed, ["removed trailing comma"]))
        stripped = fixed.strip()
        if stripped.startswith('"') and ":" in stripped:
            candidates.append(("{" + stripped + "}", ["wrapped bare member in braces"]
                               + (["removed trailing comma"] if fixed != text else [])))
        for candidate, repairs in candidates:
            try:
                return _DECODER.decode(candidate.strip()), repairs
            except ValueError:
                continue
        raise PayloadError(f"ground_truth is not valid JSON: {first}") from None


_EASTMONEY_US = re.compile(r"^\d{3}\.([A-Z][A-Z0-9_-]*)")
_SHARE_CLASS = re.compile(r"^([A-Z]{1,5})[._/-]([A-C])(?:\.[A-Z]{1,2})?$")
_CODE_END = re.compile(r"[.\s]")


def code_core(code: str) -> str:
    """The part of an instrument code every spelling shares: 600519.SH / 600519___SH → 600519,
    0700.HK / 00700 → 700, 105.AAPL / AAPL.O / AAPL → AAPL, USD/CNY / USDCNY → USDCNY."""
    c = code.strip().upper().replace("___", ".")
    if c.isdigit():  # the common case, and what the steps below make of it
        return c.lstrip("0") or c
    if c.isascii() and c.isalpha():  # letters alone ("AAPL"): the steps below keep them
        return c
    m = _EASTMONEY_US.match(c)  # East Money's US prefix "105."
    if m:
        c = m.group(1)
    # a share class is part of the code: BRK.B, BRK-B, BRK_B, BRK/B → BRK_B
    cls = _SHARE_CLASS.match(c)
    if cls:
        return f"{cls.group(1)}_{cls.group(2)}"
    head = _CODE_END.split(c, maxsplit=1)[0] if not c.startswith(".") else c
    head = head.replace("/", "").replace("-", "")
    return head.lstrip("0") or head if head.isdigit() else head


def _matches(key: Any, hints: Hints) -> bool:
    core = code_core(str(key))
    return bool(core) and any(code_core(c) == core for c in hints.codes)


def _has_number(record: Mapping[str, Any]) -> bool:
    return any(str(k).lower() not in META_COLUMNS and number_text(v) is not None
               for k, v in record.items())


def _record(payload: Any, hints: Hints, notes: list[str]) -> tuple[dict[str, Any], str]:
    """Descend wrappers to the flat record of one instrument: (record, instrument key)."""
    instrument = ""
    for _ in range(8):
        if isinstance(payload, list):
            payload = _pick_row(payload, hints, notes)
            continue
        if not isinstance(payload, dict):
            raise PayloadError(f"ground_truth is a {type(payload).__name__}, not an object")
        if isinstance(payload.get("res"), dict):
            payload = payload["res"]
            continue
        if isinstance(payload.get("data"), (dict, list)):
            payload = payload["data"]
            continue
        nested = [k for k, v in payload.items() if isinstance(v, dict)]
        if nested and len(nested) == len(payload):
            key = nested[0]
            if len(nested) > 1:
                chosen = [k for k in nested if _matches(k, hints)]
                if len(chosen) != 1:
                    raise PayloadError(f"ground_truth holds {len(nested)} instruments "
                                       f"({', '.join(nested[:5])}); the item's tickers pick "
                                       f"{len(chosen)} of them")
                key = chosen[0]
                notes.append(f"picked {key}")
            instrument = key.replace("___", ".")
            payload = payload[key]
            continue
        return payload, instrument
    raise PayloadError("ground_truth is nested too deeply")


def _pick_row(rows: list[Any], hints: Hints, notes: list[str]) -> Any:
    """One row of a table: the item's own (by code, or by name written in its question), else
    the newest (tables of one instrument: SGE benchmark, SGE intraday, daily bars)."""
    dicts = [r for r in rows if isinstance(r, dict)]
    if len(rows) == 1:
        return rows[0]
    if len(dicts) != len(rows) or not rows:
        raise PayloadError(f"ground_truth holds {len(rows)} rows that are not records")
    curves = {str(r.get("曲线名称")) for r in dicts if r.get("曲线名称")}
    if len(curves) > 1:  # bond_china_yield: several curves a day; a 国债 question means 国债
        if not _GOVERNMENT.search(hints.text):
            raise PayloadError(f"ground_truth holds {len(curves)} yield curves; the item does "
                               "not say which")
        dicts = [r for r in dicts if "国债" in str(r.get("曲线名称"))]
        notes.append("picked curve 中债国债收益率曲线")
    for col in CODE_COLUMNS:
        codes = {str(r.get(col)) for r in dicts if r.get(col) is not None}
        if len(codes) > 1:
            if col == "名称":
                mine = [r for r in dicts if r.get(col) is not None
                        and str(r[col]).lower() in hints.text]
            else:
                mine = [r for r in dicts if r.get(col) is not None and _matches(r[col], hints)]
            if len(mine) == 1:
                notes.append(f"picked row {col} == {mine[0][col]!r}")
                return mine[0]
            raise PayloadError(f"ground_truth holds {len(rows)} rows of {len(codes)} "
                               f"instruments; the item picks {len(mine)} of them")
    numbered = [(i, r) for i, r in enumerate(dicts) if _has_number(r)]
    if numbered and all(_time_key(r) for _, r in numbered):
        _, newest = max(numbered, key=lambda ir: (_time_key(ir[1]), ir[0]))
        notes.append(f"picked the newest row ({_time_key(newest)})")
        return newest
    raise PayloadError(f"ground_truth holds {len(rows)} rows and no way to pick one")


def _time_key(row: Mapping[str, Any]) -> str:
    """Every date/time cell of a row, dates first: sorts rows oldest to newest."""
    lower = {str(k).lower(): v for k, v in row.items()}
    return " ".join(str(lower[c]) for c in (*TIME_COLUMNS, "rt_time")
                    if lower.get(c) not in (None, ""))


_GOVERNMENT = re.compile(r"国债|government|treasur|cgb")
_COUNTRY = (("中国", re.compile(r"中国|中债|国内|china|chinese|cgb|\bcn\b")),
            ("美国", re.compile(r"美国|美债|\bus\b|u\.s\.|treasury|treasuries|\bust")))
_TENOR_TEXT = re.compile(r"(\d+)\s*(?:年期|年|-?\s*years?|-?\s*yr|y\b)|(\d+)\s*(?:个月|月|-?\s*months?"
                         r"|m\b)")


_ZH_TENORS = (("三十年", "30年"), ("十年", "10年"), ("两年", "2年"), ("二年", "2年"),
              ("一年", "1年"), ("三年", "3年"), ("五年", "5年"), ("七年", "7年"),
              ("三个月", "3个月"), ("六个月", "6个月"))


def _tenors(text: str) -> set[str]:
    out = set()
    for zh, digits in _ZH_TENORS:
        text = text.replace(zh, digits)
    for m in _TENOR_TEXT.finditer(text):
        out.add(f"{int(m.group(1))}年" if m.group(1) else f"{int(m.group(2))}月")
    return out


def _pick_yield(record: dict[str, Any], hints: Hints, notes: list[str]) -> dict[str, Any]:
    """A row holding the yields of several bonds keeps only the one the item asks for."""
    us_cn = {k: m for k, m in ((k, _US_CN_YIELD.match(str(k))) for k in record)
             if m and number_text(record[k]) is not None}
    tenor_cols = {k: m for k, m in ((k, _TENOR_COLUMN.match(str(k))) for k in record)
                  if m and number_text(record[k]) is not None}
    candidates: dict[str, str] = {}  # column → its tenor
    if us_cn:
        countries = {name for name, pat in _COUNTRY if pat.search(hints.text)} or \
            {m.group(1) for m in us_cn.values()}
        candidates = {k: f"{int(m.group(2))}年" for k, m in us_cn.items()
                      if m.group(1) in countries}
    elif tenor_cols and ("曲线名称" in record or len(tenor_cols) > 1):
        candidates = {k: f"{int(m.group(1))}{m.group(2)}" for k, m in tenor_cols.items()}
    else:
        return record
    wanted = _tenors(hints.text)
    picked = [k for k, t in candidates.items() if t in wanted] if wanted else []
    if len(picked) != 1 and len(candidates) == 1:
        picked = list(candidates)
    if len(picked) != 1:
        raise PayloadError(f"ground_truth holds {len(candidates) or len(us_cn)} yields "
                           f"({', '.join(list(candidates or us_cn)[:6])}); the item does not say "
                           "which one it asks for")
    col = picked[0]
    notes.append(f"picked column {col}")
    keep = {k: v for k, v in record.items() if str(k).lower() in META_COLUMNS}
    keep[col] = record[col]
    return keep


# a subset of what strptime's "%Y-%m-%d %H:%M:%S" reads, giving the same instant
# (ASCII digits only: strptime reads other scripts' digits in the year alone)
_PLAIN_TIME = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2}) ([0-9]{2}):([0-9]{2}):([0-9]{2})")


def _item_time(value: Any) -> datetime:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, str):
        m = _PLAIN_TIME.fullmatch(value.strip())
        if m is not None:  # the usual "2025-10-17 10:35:05", read without strptime's machinery
            try:
                y, mo, d, h, mi, sec = map(int, m.groups())
                return datetime(y, mo, d, h, mi, sec, tzinfo=UTC)
            except ValueError:
                pass  # "2025-02-30 …": strptime below says so as before
        for fmt in ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d", "%Y/%m/%d %H:%M:%S", "%Y/%m/%d"):
            try:
                return datetime.strptime(value.strip(), fmt).replace(tzinfo=UTC)
            except ValueError:
                continue
    return datetime(1970, 1, 1, tzinfo=UTC)  # unknown: a fixed instant, never "now"


def snapshot_from_payload(raw: Any, *, hints: Hints = Hints(), provider: str = "stored",
                          instrument: str = "", query: str = "item field 'ground_truth'",
                          fetched_at: datetime | None = None,
                          market: str | None = None) -> TruthSnapshot:
    """A stored ground-truth payload of any known shape → a snapshot (`ok`, `empty`: no number,
    `error`: unreadable, with the reason). Never raises for bad data."""
    when = fetched_at or _item_time(None)
    notes: list[str] = []
    data: Any = raw
    try:
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            return TruthSnapshot(provider, instrument, query, when, "empty", raw=raw,
                                 message="the ground truth is empty", market=market,
                                 payload=raw)
        if isinstance(raw, str):
            data, repairs = _loads(raw)
            notes.extend(repairs)
        record, key = _record(data, hints, notes)
        record = _pick_yield(record, hints, notes)
    except PayloadError as exc:
        return TruthSnapshot(provider, instrument, query, when, "error", raw=raw,
                             message=str(exc), market=market, payload=data)
    source = {str(k): _clean(v) for k, v in record.items()}
    fields = normalise(record)
    has_number = any(k != TIME for k in fields)
    message = "; ".join(notes) or None
    if not has_number:
        message = "the ground truth has no number" + (f" ({message})" if message else "")
    return TruthSnapshot(provider, instrument or key or _code_in(source), query, when,
                         "ok" if has_number else "empty", fields, source, raw, message, market,
                         data)


def _code_in(source: Mapping[str, Any]) -> str:
    for col in CODE_COLUMNS:
        if source.get(col) is not None:
            return str(source[col])
    return ""


def snapshot_of_item(fields: Mapping[str, Any], *, provider: str = "stored",
                     market: str | None = None) -> TruthSnapshot:
    """The item's own `ground_truth` as a snapshot (FinSearchComp's stored truth)."""
    raw = fields.get("ground_truth")
    hints = Hints.of_item(fields)
    query = "item field 'ground_truth'" + (f" (recorded {fields['time']})"
                                           if fields.get("time") else "")
    instrument = next(iter(hints.codes), "")
    if isinstance(raw, str):
        return _cached(raw, hints, provider, instrument, query, str(fields.get("time") or ""),
                       market)
    return snapshot_from_payload(raw, hints=hints, provider=provider, instrument=instrument,
                                 query=query, fetched_at=_item_time(fields.get("time")),
                                 market=market)


@lru_cache(maxsize=8192)
def _cached(raw: str, hints: Hints, provider: str, instrument: str, query: str, time: str,
            market: str | None) -> TruthSnapshot:
    """Datasets repeat one payload for many answers: read each distinct one once. The snapshot
    is frozen; callers must not mutate its dicts."""
    return snapshot_from_payload(raw, hints=hints, provider=provider, instrument=instrument,
                                 query=query, fetched_at=_item_time(time or None),
                                 market=market)


def display_order(fields: Iterable[str]) -> list[str]:
    rank = {f: i for i, f in enumerate(FIELDS)}
    return sorted(fields, key=lambda f: rank.get(f, len(rank)))


# --- instruments named in words ---------------------------------------------------------------
# The fixed vocabularies a question names an instrument with when no table lists it by that name
# (currency pairs, SGE products, bond tenors); `names` resolves questions with them and with the
# tables' own names. Only exact words: a currency name a table spells differently is added here.

CURRENCY_CODES: Final = frozenset({
    "USD", "CNY", "CNH", "EUR", "JPY", "GBP", "HKD", "AUD", "CAD", "CHF", "SGD", "NZD", "KRW",
    "RUB", "THB", "MXN", "ZAR", "TRY", "SEK", "NOK", "DKK", "PLN", "HUF", "CZK", "INR", "IDR",
    "BRL", "SAR", "AED", "MYR", "MOP", "ARS", "TWD"})
CURRENCY_NAMES: Final[dict[str, str]] = {
    "美元": "USD", "人民币": "CNY", "在岸人民币": "CNY", "离岸人民币": "CNH", "欧元": "EUR",
    "日元": "JPY", "英镑": "GBP", "港币": "HKD", "港元": "HKD", "澳元": "AUD", "澳大利亚元": "AUD",
    "加元": "CAD", "加拿大元": "CAD", "瑞郎": "CHF", "瑞士法郎": "CHF", "新加坡元": "SGD",
    "新元": "SGD", "新西兰元": "NZD", "纽元": "NZD", "韩元": "KRW", "卢布": "RUB",
    "俄罗斯卢布": "RUB", "泰铢": "THB", "墨西哥元": "MXN", "南非兰特": "ZAR", "土耳其里拉": "TRY",
    "瑞典克朗": "SEK", "挪威克朗": "NOK", "丹麦克朗": "DKK", "印度卢比": "INR", "新台币": "TWD"}
# Words that make a pair the central parity (AKShare's fx table writes it code + "C").
FIXING_WORDS: Final = re.compile(r"中间价|central\s+parity|fixing|midpoint", re.I)

# Shanghai Gold Exchange: the benchmark (上海金, one table, Wind SHAU.SGE) and the spot contracts
# `spot_quotations_sge(symbol)` takes, under the spellings people write them in.
SGE_BENCHMARK: Final = ("上海金基准价", "上海金", "shau", "shanghai gold benchmark")
# 上海金 inside a longer word is not the benchmark (上海金融, 上海金山, 上海金桥 …).
SGE_BENCHMARK_NOT_BEFORE: Final = "融山桥茂额鼎"
SGE_PRODUCTS: Final[dict[str, str]] = {
    "au99.99": "Au99.99", "au9999": "Au99.99", "黄金9999": "Au99.99", "au99.95": "Au99.95",
    "au9995": "Au99.95", "au100g": "Au100g", "au99.5": "Au99.5", "au(t+d)": "Au(T+D)",
    "aut+d": "Au(T+D)", "au t+d": "Au(T+D)", "黄金t+d": "Au(T+D)", "ag(t+d)": "Ag(T+D)",
    "agt+d": "Ag(T+D)", "白银t+d": "Ag(T+D)", "ag99.99": "Ag99.99", "ag9999": "Ag99.99",
    "pt99.95": "Pt99.95", "iau99.99": "iAu99.99", "iau100g": "iAu100g"}
COMEX_GOLD: Final = ("comex黄金", "comex gold", "comex金")

# China government bond yields: the tenors `bond_china_yield` has a column for (markets._TENORS).
BOND_TENOR_CODES: Final[dict[str, str]] = {"3月": "3M", "6月": "6M", "1年": "1Y", "3年": "3Y",
                                           "5年": "5Y", "7年": "7Y", "10年": "10Y", "30年": "30Y"}
_BOND_TEXT = re.compile(
    r"(?P<a>(?P<c0>中美|中国|美国)?\s*(?P<n1>\d{1,2}|[一二三五七十]{1,3}|两|三个|六个)\s*(?P<u1>年期|年|个月期|个月|月期)"
    r"\s*(?:的)?\s*(?P<c1>中国|中债|美国|美债)?\s*(?:国债|政府债|美债))"
    r"|(?P<b>(?P<c2>中国|中债|美国)?\s*(?:国债|美债)\s*(?P<n2>\d{1,2}|[一二三五七十]{1,3})\s*"
    r"(?P<u2>年期|年|个月期|个月))"
    r"|(?P<c>(?P<c4>\b(?:china|chinese|u\.?s\.?)\s+)?(?P<n3>\d{1,2})\s*-?\s*(?P<u3>years?|yr|y|months?|m)\s+(?P<c3>chin(?:a|ese)\s+|"
    r"u\.?s\.?\s+)?(?:government\s+bond|treasury|treasuries|gov(?:ernmen)?t\s+bond))"
    r"|(?P<d>\bcgb\s*(?P<n4>\d{1,2})(?P<u4>[ym])\b)", re.I)
_BOND_WORDS = ("国债", "美债", "政府债", "bond", "treasur", "cgb")
_BOND_SIBLING = re.compile(r"(?P<n>\d{1,2}|[一二三五七十]{1,3})\s*(?P<u>年期|年|个月期|个月)\s*"
                           r"(?:和|与|及|、|/|,|，|至|到|-|vs\.?)\s*(?:中国|中债|美国)?\s*$")
_ZH_NUMBER = {"一": 1, "两": 2, "二": 2, "三": 3, "五": 5, "七": 7, "十": 10, "三十": 30,
              "三个": 3, "六个": 6}


@dataclass(frozen=True, slots=True)
class BondMention:
    """A government-bond tenor written in a question: its span, the tenor column ("10年"), the
    country the words name (中国 / 美国, "" when none) and the CGB code when there is a column."""

    start: int
    end: int
    text: str
    tenor: str
    country: str
    code: str | None


def bond_mentions(text: str) -> list[BondMention]:
    """Every "10年期国债", "国债10年", "10-year China government bond", "CGB10Y" in `text`."""
    out: list[BondMention] = []
    lowered = text.lower()
    if not any(word in lowered for word in _BOND_WORDS):  # most questions: no regex at all
        return out
    for m in _BOND_TEXT.finditer(text):
        n = next(m.group(g) for g in ("n1", "n2", "n3", "n4") if m.group(g))
        unit = next(m.group(g) for g in ("u1", "u2", "u3", "u4") if m.group(g)).lower()
        country_text = next((m.group(g) for g in ("c0", "c1", "c2", "c3", "c4")
                             if m.group(g)), "") or ""
        number = int(n) if n.isdigit() else _ZH_NUMBER.get(n)
        if number is None:
            continue
        months = unit.startswith(("个月", "月", "m"))
        tenor = f"{number}{'月' if months else '年'}"
        if "美债" in m.group(0):
            country_text = "美国"
        country = "中美" if country_text == "中美" else next(
            (name for name, pat in _COUNTRY if pat.search(country_text.lower())), "")
        code = BOND_TENOR_CODES.get(tenor)
        out.append(BondMention(m.start(), m.end(), m.group(0), tenor, country,
                               f"CGB{code}" if code and country in ("", "中国") else None))
        sibling = _BOND_SIBLING.search(text, 0, m.start())  # "10年期和30年期国债": two bonds
        if sibling is not None:
            number = int(sibling.group("n")) if sibling.group("n").isdigit() else \
                _ZH_NUMBER.get(sibling.group("n"))
            if number is not None:
                months = sibling.group("u").startswith(("个月", "月"))
                tenor = f"{number}{'月' if months else '年'}"
                code = BOND_TENOR_CODES.get(tenor)
                out.append(BondMention(sibling.start(), sibling.end(), sibling.group(0), tenor,
                                       country, f"CGB{code}" if code and
                                       country in ("", "中国") else None))
    return out
