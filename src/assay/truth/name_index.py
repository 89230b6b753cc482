"""The names and codes of the instruments in the providers' own market tables, indexed once per
set of tables so that a question can be scanned for them quickly (a watch process scans every
incoming trace). Exact matches only: a name is found as a whole name, a code as a whole token;
nothing is matched by similarity."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .markets import INDEX_MARKETS, listing
from .vocabulary import CURRENCY_CODES, code_core


@dataclass(frozen=True, slots=True)
class Instrument:
    market: str
    code: str  # as the market's table writes it: the provider's lookup key
    name: str  # as the table (or the fixed vocabulary) writes it


@dataclass(frozen=True, slots=True)
class Hit:
    """Where the question names instruments: the span (in the folded question), the text, and
    every instrument that text names (several: a name two tables share, a bare code)."""

    start: int
    end: int
    text: str
    instruments: tuple[Instrument, ...]


def fold(text: str) -> str:
    """The form names are compared in: NFKC (full-width Ａ and digits become ASCII), lower
    case. Lengths are kept where NFKC keeps them, so spans still point into the question."""
    return unicodedata.normalize("NFKC", text).lower()


_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")


def _ascii_word(ch: str) -> bool:
    return ch in _WORD_CHARS


# Listing markers around a name that are not the company's name: A-share status prefixes
# (*ST, ST, XD/XR/DR ex-rights, N/C first days) and suffixes (-U unprofitable, -W/-UW weighted
# votes); Hong Kong's -W/-SW/-S/-B/-SS. The RMB/USD counters (-R, -U in Hong Kong) are other
# instruments and keep their suffix.
_CN_PREFIX = re.compile(r"^(?:\*st|st|xd|xr|dr|n|c)(?=[\u4e00-\u9fff])", re.I)
_CN_SUFFIX = re.compile(r"-(?:u|w|uw)$", re.I)
_HK_SUFFIX = re.compile(r"-(?:w|sw|s|b|ss)$", re.I)
_CORPORATE = re.compile(r"[ ,]+(?:inc\.?|corp\.?|corporation|ltd\.?|limited|plc|co\.?)$",
                        re.I)
_SPACES = re.compile(r"\s+")
# Right after a Chinese name, these make it part of a longer name the tables do not have (a
# company's full name, a sector, a concept): the name alone is not what is asked about.
_LONGER = re.compile(r"股份|集团|控股|化工|实业|板块|概念|行业|产业|赛道|主题|系列")
_CJK = re.compile(r"[\u4e00-\u9fff]")


def name_keys(market: str, name: str) -> set[str]:
    """The spellings a table's name is found under: the name itself (inner spaces of Chinese
    names dropped: "金 融 街"), and the name without its listing markers. Folded to lower case,
    except a Latin name of one word, which keeps the table's case: "NOW Inc" is found as "NOW",
    never in "now is a good time"; "Pool", "Guess", "Team" are words before they are names."""
    text = unicodedata.normalize("NFKC", name).strip()
    text = _SPACES.sub("" if _CJK.search(text) else " ", text)
    if not text:
        return set()
    bare = text
    if market == "cn_stock":
        bare = _CN_SUFFIX.sub("", _CN_PREFIX.sub("", text))
    elif market == "hk_stock":
        bare = _HK_SUFFIX.sub("", text)
    elif market == "us_stock" and not _CJK.search(text):
        bare = _CORPORATE.sub("", text)
    spellings = {text}
    # a name left with two characters by its markers is a word ("*ST比特" is not 比特币)
    if bare != text and len(bare) >= 3:
        spellings.add(bare)
    keys = set()
    for spelling in spellings:
        # one or two Latin letters or digits are a code's job, not a name's
        if len(spelling) < 2 or (spelling.isascii() and len(spelling) < 3):
            continue
        keys.add(CASED + spelling if _one_latin_word(spelling) else spelling.lower())
    return keys


CASED = "\x00"  # marks a key that keeps its case (a one-word Latin name)


def _one_latin_word(text: str) -> bool:
    return text.isascii() and " " not in text


class NameIndex:
    """One index over every table of a provider: folded name → instruments, and per market the
    table's codes. Built once per set of tables (`build`), then only read."""

    def __init__(self) -> None:
        self.names: dict[str, list[Instrument]] = {}
        self.lengths: dict[str, tuple[int, ...]] = {}  # first character → key lengths, longest first
        self.codes: dict[str, dict[str, Instrument]] = {}  # market → table code → instrument
        self.cased: dict[str, list[Instrument]] = {}  # one-word Latin names, case kept
        self.us_core: dict[str, list[Instrument]] = {}  # AAPL → 105.AAPL
        self.pairs: dict[str, Instrument] = {}  # "USD/CNY" → the CFETS row
        self.rows = 0

    @classmethod
    def build(cls, tables: Mapping[str, Iterable[Mapping[str, Any]]],
              keys: Mapping[str, str]) -> NameIndex:
        """`tables`: market → rows; `keys`: market → the column holding the code. An index
        listed by a home table (cn_index, h_index) is not listed again from global_idx, which
        repeats the home markets' main indices under the same codes."""
        index = cls()
        home = {str(r.get(keys[m], "")).strip().upper() for m in INDEX_MARKETS[:2]
                for r in tables.get(m, ())}
        for market, rows in tables.items():
            key = keys[market]
            codes: dict[str, Instrument] = {}
            for row in rows:
                code = str(row.get(key) or "").strip()
                if not code or (market == "global_idx" and code.upper() in home):
                    continue
                raw_name = row.get("名称")
                name = raw_name.strip() if isinstance(raw_name, str) else ""
                inst = Instrument(market, code, name or code)
                codes[code.upper()] = inst
                index.rows += 1
                if market == "us_stock":
                    index.us_core.setdefault(code_core(code), []).append(inst)
                if market == "cny_onshore":
                    index.pairs[code.upper()] = inst
                for k in name_keys(market, name) if name else ():
                    if k.startswith(CASED):
                        index.cased.setdefault(k[1:], []).append(inst)
                    else:
                        index.names.setdefault(k, []).append(inst)
            index.codes[market] = codes
        lengths: dict[str, set[int]] = {}
        for k in index.names:
            lengths.setdefault(k[0], set()).add(len(k))
        index.lengths = {ch: tuple(sorted(ls, reverse=True)) for ch, ls in lengths.items()}
        return index

    def name_hits(self, folded: str) -> list[Hit]:
        """Every table name found in the folded question as a whole name. Latin names need a
        word boundary on each side; Chinese names have none to need, so a shorter name inside a
        longer one is removed afterwards (`outermost`)."""
        hits: list[Hit] = []
        n = len(folded)
        words = _WORD_CHARS
        for i, ch in enumerate(folded):
            lengths = self.lengths.get(ch)
            if not lengths or (ch in words and i > 0 and folded[i - 1] in words):
                continue
            for length in lengths:
                end = i + length
                if end > n:
                    continue
                found = self.names.get(folded[i:end])
                if found is None:
                    continue
                if end < n and folded[end] in words and folded[end - 1] in words:
                    continue
                if _LONGER.match(folded, end) and _CJK.match(folded, end - 1):
                    continue  # "中国石油化工" is not 中国石油, "太阳能板块" not 太阳能
                hits.append(Hit(i, end, folded[i:end], tuple(found)))
        return hits

    def cased_hits(self, text: str) -> list[Hit]:
        """One-word Latin names, as the table spells them, as whole words of the question
        (NFKC, case kept; a possessive 's is not part of the word)."""
        hits = []
        for m in _LATIN_TOKEN.finditer(text):
            word = m.group(0)
            found = self.cased.get(word)
            if found is None and word.endswith(("'s", "’s")):
                word = word[:-2]
                found = self.cased.get(word)
            if found is not None:
                hits.append(Hit(m.start(), m.start() + len(word), word, tuple(found)))
        return hits

    def code_hits(self, text: str) -> list[Hit]:
        """Codes in the question (NFKC, case kept): 600519, SH600519, 600519.SH, 00700,
        0700.HK, 105.AAPL, AAPL.O, NASDAQ:AAPL, $AAPL, AAPL, HSI, USDCNH."""
        hits: list[Hit] = []
        for m in _SIX.finditer(text):
            exchange = (m.group("px") or m.group("sx") or "").upper()
            found = self._six(m.group("code"), "SH" if exchange == "SS" else exchange)
            if found:
                hits.append(Hit(m.start(), m.end(), m.group(0), found))
        for m in _HK.finditer(text):
            digits = m.group("a") or m.group("b") or m.group("c")
            inst = self.codes.get("hk_stock", {}).get(digits.zfill(5))
            if inst is not None:
                hits.append(Hit(m.start(), m.end(), m.group(0), (inst,)))
        for m in _US_MARKED.finditer(text):
            ticker = next(g for g in m.groups() if g)
            found = tuple(self.us_core.get(code_core(ticker), ()))
            if found:
                hits.append(Hit(m.start(), m.end(), m.group(0), found))
        for m in _WORD.finditer(text):
            word = m.group(0)
            if word in _NOT_CODES or _time_before(text, m.start()):
                continue
            found = tuple(self.us_core.get(code_core(word), ())) + tuple(
                inst for market in ("h_index", "global_idx", "fx")
                if (inst := self.codes.get(market, {}).get(word)) is not None)
            if found:
                hits.append(Hit(m.start(), m.end(), word, found))
        return hits

    def _six(self, code: str, exchange: str) -> tuple[Instrument, ...]:
        """A six-digit code: an A-share and an index can share one (000001 is 平安银行 and
        上证指数); the exchange written beside it tells them apart."""
        out = []
        stock = self.codes.get("cn_stock", {}).get(code)
        if stock is not None and (not exchange or _a_share(code) == exchange):
            out.append(stock)
        index = self.codes.get("cn_index", {}).get(code) or \
            self.codes.get("global_idx", {}).get(code)
        if index is not None and (not exchange or _exchange_of_index(code) == exchange):
            out.append(index)
        return tuple(out)


def fingerprint(tables: Mapping[str, Iterable[Mapping[str, Any]]], keys: Mapping[str, str]) -> int:
    """A hash of every table's codes and names: equal when an index built from them would be."""
    return hash(tuple((market, tuple((row.get(keys[market]), row.get("名称")) for row in rows))
                      for market, rows in tables.items()))


def _a_share(code: str) -> str | None:
    """The exchange of a six-digit code read as an A-share's (`markets.listing`)."""
    found = listing(code)
    return found.exchange if found is not None else None


def _exchange_of_index(code: str) -> str:
    return "SZ" if code.startswith("399") else "SH"


def _time_before(text: str, start: int) -> bool:
    """"3 PM", "10:30 AM": a clock time, not Philip Morris."""
    before = text[:start].rstrip()
    return bool(before) and before[-1].isdigit()


_LATIN_TOKEN = re.compile(r"(?<![0-9A-Za-z])[0-9A-Za-z](?:[0-9A-Za-z&.'’-]*[0-9A-Za-z])?"
                          r"(?:['’]s)?(?![0-9A-Za-z])")
# A number followed by a unit is an amount, a date or a count, never a code.
_UNIT = r"元万亿年月日号倍%"
_SIX = re.compile(r"(?<![0-9A-Za-z.])(?:(?P<px>SH|SZ|BJ|sh|sz|bj)[.:]?)?(?P<code>\d{6})"
                  r"(?:\.(?P<sx>SH|SZ|SS|BJ|sh|sz|ss|bj))?(?![0-9A-Za-z" + _UNIT + r"]|\.\d)")
_HK = re.compile(r"(?<![0-9A-Za-z.])(?:(?:HK|hk)[.:]?(?P<a>\d{1,5})|(?P<b>\d{1,5})\.(?:HK|hk)"
                 r"|(?P<c>0\d{4}))(?![0-9A-Za-z" + _UNIT + r"]|\.\d)")
_US_MARKED = re.compile(r"(?<![0-9A-Za-z.])(?:(?:105|106|107)\.(?P<a>[A-Z][A-Z0-9_]*)"
                        r"|(?P<b>[A-Z][A-Z0-9]*(?:[._-][A-Z])?)\.(?:O|N|A|OQ|US)"
                        r"|(?:NASDAQ|NYSE|AMEX)\s*:\s*(?P<c>[A-Z][A-Z0-9.\-]*)"
                        r"|\$(?P<d>[A-Z][A-Z0-9.\-]*))(?![0-9A-Za-z])")
# A bare upper-case word of two to eight letters or digits (SPX, N225, USDCNH, BRK.B).
# Followed by a company-form word ("HSBC Holdings") it is a name, not a ticker.
_WORD = re.compile(r"(?<![0-9A-Za-z$.:/_-])[A-Z][A-Z0-9]{1,7}(?:[.\-][A-Z])?(?![0-9A-Za-z_/])"
                   r"(?!\s+(?i:holdings?|group|bank|inc|corp|corporation|ltd|limited|plc|co|"
                   r"company)\b)")
# Upper-case words questions use that are not the instrument asked about, though a US ticker
# or an index code may be spelt so (USD is an ETF, CEO and EPS too).
_NOT_CODES = frozenset({
    *CURRENCY_CODES, "AI", "CEO", "CFO", "CTO", "ETF", "ETFS", "IPO", "EPS", "PE", "PB", "PS",
    "ROE", "ROA", "GDP", "CPI", "PPI", "PMI", "US", "USA", "UK", "EU", "HK", "SH", "SZ", "BJ",
    "OK", "AM", "PM", "API", "NAV", "YTD", "QOQ", "YOY", "MOM", "TTM", "ESG", "IT", "IR", "FX",
    "OTC", "LPR", "MLF", "SHIBOR", "LIBOR", "SOFR", "FED", "FOMC", "PBOC", "SEC", "CSRC",
    "NYSE", "NASDAQ", "AMEX", "HKEX", "SSE", "SZSE", "SGE", "COMEX", "CGB", "A", "B", "H",
    "ST", "EV", "VS", "THE", "AND", "OR", "OF", "TO", "IN", "ON", "AT", "BY", "FOR", "IS",
    "ARE", "WHAT", "HOW", "NEW", "ALL", "ANY", "ONE", "TWO", "NOW", "TODAY", "NEWS"})
