"""Which instrument a question asks for, and which one a tool call fetched.

The question's instrument is known by the item's tickers, the ground truth's own code and name,
and (for a currency pair) the pair its words name, onshore unless they say offshore. A call's is
known by its arguments (symbol, code, ticker …) and by its result's own code and name fields;
the result's word wins over the arguments' (an agent that asked for 000858 and got 贵州茅台's
row got 贵州茅台). Exchange suffixes and prefixes (.SH/.SZ/.HK/.SS, sh600519, East Money's
"1.600519"), leading zeros and case never make another instrument: codes compare by their core
(`truth.vocabulary.code_core`). USD/CNY and USD/CNH do differ: the rubric reads CNH as a
spelling of the yuan in an answer, but a tool that served the offshore rate served another
quote."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from assay.core.types import Item, TruthSnapshot
from assay.evaluators.rubric.instruments import Identity
from assay.truth.vocabulary import code_core

MINE: Final = "mine"  # the question's instrument
OTHER: Final = "other"  # another one

# argument and column names that hold an instrument's code, or its name
_CODE_KEYS: Final = frozenset({
    "symbol", "symbols", "code", "codes", "ticker", "tickers", "ts_code", "stock_code",
    "secid", "instrument", "instruments", "pair", "currency_pair", "security", "windcode",
    "wind_code", "sec_code", "stock", "asset", "代码", "证券代码", "股票代码", "货币对", "品种",
    "合约", "symbol_id", "instrument_id"})
_NAME_KEYS: Final = frozenset({"name", "stock_name", "security_name", "名称", "股票名称",
                               "证券简称", "简称", "shortname", "short_name"})
_CJK: Final = re.compile(r"[\u4e00-\u9fff]")
_PREFIXED: Final = re.compile(r"^(?:sh|sz|bj|hk|us)\.?(\d{4,6})$", re.IGNORECASE)
_SECID: Final = re.compile(r"^\d{1,3}\.([A-Za-z0-9]+)$")  # East Money: 1.600519, 116.00700
_SUFFIXES: Final = frozenset({"SH", "SZ", "SS", "BJ", "HK", "US", "O", "N", "A", "OQ", "L", "T"})
_YAHOO_FX: Final = re.compile(r"^([A-Za-z]{3})([A-Za-z]{3})?=X$", re.IGNORECASE)
_OFFSHORE: Final = re.compile(r"离岸|offshore|\bcnh\b", re.IGNORECASE)
# codes written in a text result: A-share codes, HK codes, pairs
_CODE_IN_TEXT: Final = re.compile(
    r"(?<![A-Za-z0-9.])(?:(?:sh|sz|bj)?[036]\d{5}(?:\.(?:SH|SZ|BJ|SS))?|\d{4,5}\.HK"
    r"|[A-Z]{3}/?(?:CNY|CNH|USD|EUR|JPY|HKD|GBP))(?![A-Za-z0-9]|\.\d)", re.IGNORECASE)
_SPACES: Final = re.compile(r"\s+")


def core(code: str) -> str:
    """The part of a code every spelling shares (`code_core`), after the prefixes a tool may
    write that the truth's codes never carry: sh600519, sz.000858, 1.600519, CNY=X."""
    c = code.strip()
    m = _PREFIXED.match(c)
    if m:
        c = m.group(1)
    m = _SECID.match(c)
    if m and m.group(1).upper() in _SUFFIXES:
        # digits and an exchange suffix: the digits (code_core reads "700.HK" as East Money's
        # US prefix "700." before a ticker "HK")
        c = c.split(".", 1)[0]
    elif m:
        c = m.group(1)
    m = _YAHOO_FX.match(c)
    if m:  # Yahoo: CNY=X is USD/CNY, EURCNY=X is EUR/CNY
        c = (m.group(1) + m.group(2)) if m.group(2) else "USD" + m.group(1)
    return code_core(c)


def _flat(name: str) -> str:
    return _SPACES.sub("", name).lower().removesuffix("-w").removesuffix("-sw")


@dataclass(frozen=True, slots=True)
class Claims:
    """What a call (or one record of its result) says about its instrument."""

    codes: tuple[str, ...] = ()
    names: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.codes or self.names)

    def shown(self) -> str:
        return " ".join(dict.fromkeys((*self.codes, *self.names)))

    def as_dict(self) -> dict[str, Any]:
        return {"codes": list(self.codes), "names": list(self.names)}


@dataclass(frozen=True, slots=True)
class Asked:
    """The question's instrument."""

    codes: frozenset[str]  # code cores
    names: tuple[str, ...]  # flattened names (the truth's, the question's, their aliases)
    text: str  # the question and its required point, flattened: a name in it is the asked one
    shown: str  # for the reason line: "000858 五粮液"

    def as_dict(self) -> dict[str, Any]:
        return {"codes": sorted(self.codes), "names": list(self.names[:4]),
                "shown": self.shown}

    def judge(self, claims: Claims) -> str | None:
        """MINE, OTHER, or None when the claims say nothing comparable."""
        if claims.codes and self.codes:
            cores = {core(c) for c in claims.codes}
            return MINE if cores & self.codes else OTHER
        if claims.names:
            return MINE if any(self.names_match(n) for n in claims.names) else OTHER
        if claims.codes and _mentions(self.text, claims.codes):
            return MINE  # no code to compare with; the question itself writes it
        return None

    def names_match(self, name: str) -> bool:
        n = _flat(name)
        if len(n) < 2:
            return False
        if n in self.text:
            return True
        return any(a == n or (len(a) >= 2 and a in n) or (len(n) >= 3 and n in a)
                   for a in self.names)


def _mentions(text: str, codes: Iterable[str]) -> bool:
    return any(len(c) >= 3 and c.lower() in text for c in codes)


def asked_of(item: Item, snap: TruthSnapshot, ident: Identity, required: str) -> Asked:
    source = snap.source_fields or {}
    codes: list[str] = [str(item.get(k)) for k in ("akshare_ticker", "wind_ticker",
                                                   "yfinance_ticker", "instrument")
                        if item.get(k) not in (None, "")]
    for key in ("代码", "symbol", "ts_code", "code", "货币对", "currency_pair"):
        if source.get(key) not in (None, ""):
            codes.append(str(source[key]))
    if snap.instrument:
        codes.append(snap.instrument)
    text = _flat(f"{item.get('prompt') or ''} {required}")
    if ident.pair_ccy and len(ident.pair_ccy) == 2 and not codes:
        # the pair its words name; the yuan is the onshore one unless they say offshore
        yuan = "CNH" if _OFFSHORE.search(text) else "CNY"
        a, b = sorted(yuan if c == "CNY" else c for c in ident.pair_ccy)
        codes += [a + b, b + a]
    cores = frozenset(c for c in (core(x) for x in codes) if c)
    truth_name = str(source.get("名称") or source.get("name") or "")
    names = [_flat(truth_name)] if truth_name else []
    for n in map(_flat, ident.names):
        if (len(n) >= 3 or (_CJK.search(n) and len(n) >= 2)) and n not in names:
            names.append(n)
    shown = " ".join(dict.fromkeys(x for x in (
        next((c for c in codes if c), ""), truth_name) if x)) or (names[0] if names else "?")
    return Asked(cores, tuple(names), text, shown)


def claims_in_args(arguments: Any) -> Claims:
    """Codes and names in a call's arguments (an object; nested objects are read too)."""
    codes: list[str] = []
    names: list[str] = []
    _collect(arguments, codes, names, depth=0)
    return Claims(tuple(dict.fromkeys(codes)), tuple(dict.fromkeys(names)))


def claims_in_record(record: Mapping[str, Any], key: str = "") -> Claims:
    """A result row's own code and name columns (and the key it sat under in its result)."""
    codes = [key] if key else []
    names: list[str] = []
    for k, v in record.items():
        if isinstance(v, dict | list):
            continue
        _add(str(k), v, codes, names)
    return Claims(tuple(dict.fromkeys(codes)), tuple(dict.fromkeys(names)))


def claims_in_text(text: str, asked: Asked) -> Claims:
    """Codes a text result writes, and the asked instrument's name when it writes it."""
    codes = [m.group(0) for m in _CODE_IN_TEXT.finditer(text)]
    flat = _flat(text)
    names = [n for n in asked.names if len(n) >= 2 and n in flat][:1]
    return Claims(tuple(dict.fromkeys(codes)), tuple(names))


def _collect(value: Any, codes: list[str], names: list[str], depth: int) -> None:
    if depth > 3 or not isinstance(value, dict):
        return
    for k, v in value.items():
        if isinstance(v, dict):
            _collect(v, codes, names, depth + 1)
        else:
            _add(str(k), v, codes, names)


def _add(key: str, value: Any, codes: list[str], names: list[str]) -> None:
    k = key.strip().lower()
    values = value if isinstance(value, list) else [value]
    for v in values:
        if v is None or isinstance(v, bool | dict | list):
            continue
        text = str(v).strip()
        if not text:
            continue
        if k in _CODE_KEYS:
            (names if _CJK.search(text) else codes).append(text)
        elif k in _NAME_KEYS:
            names.append(text)
