"""Which instrument a production question asks about, from the names and codes written in it
("贵州茅台", "腾讯控股", "USD/CNY", "10年期国债"), against the providers' own market tables and
the fixed vocabularies (currency pairs, SGE products, bond tenors). Production questions carry
no ticker; a wrong instrument would score the answer against another market's price, so only
exact matches count, several instruments are "ambiguous" (no truth, every candidate recorded)
and nothing found is "none"."""

from __future__ import annotations

import re
import time
import unicodedata
from dataclasses import dataclass, field

from .markets import INDEX_MARKETS, MARKETS, STOCK_MARKETS
from .name_index import Hit, Instrument, NameIndex, fingerprint
from .registry import PROVIDERS
from .routing import routing_of
from .tables import AkshareProvider, Table, TableProvider
from .vocabulary import (
    COMEX_GOLD,
    CURRENCY_CODES,
    CURRENCY_NAMES,
    FIXING_WORDS,
    SGE_BENCHMARK,
    SGE_BENCHMARK_NOT_BEFORE,
    SGE_PRODUCTS,
    bond_mentions,
)

# The tables whose names and codes are indexed (the SGE, bond and COMEX tables name one
# instrument each and are reached through the fixed vocabularies).
NAMED_MARKETS = ("cn_stock", "hk_stock", "us_stock", "cn_index", "h_index", "global_idx", "fx",
                 "cny_onshore")


@dataclass(frozen=True)
class Resolution:
    status: str  # "resolved" | "ambiguous" | "none"
    fields: dict[str, str]  # item fields to add when resolved (akshare_ticker / wind_ticker /
    # yfinance_ticker / tags, as truth.routing routes them)
    candidates: list[dict[str, str]]  # every match: name, code, market, matched text
    message: str  # one line: what matched, or why nothing / why ambiguous


@dataclass
class _Found:
    """What the scan found: spans with their instruments, and reasons a mention named nothing
    a table has (an inverse currency pair, a US Treasury tenor)."""

    hits: list[Hit] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


class Resolver:
    """Resolves questions against one table provider's tables: each table is fetched (and
    cached for the capture window) by the provider itself, and the name index is rebuilt only
    when the codes or names in them changed. `refresh_s` asks the provider at most that often
    (names change far more rarely than prices); None asks it on every call, so the names
    follow the provider's own window."""

    def __init__(self, tables: TableProvider, *, refresh_s: float | None = None) -> None:
        self.tables = tables
        self.refresh_s = refresh_s
        self._seen: tuple[Table | None, ...] = ()
        self._checked = 0.0
        self._index = NameIndex()
        self._missing: dict[str, str] = {}
        self._names = 0
        self.builds = 0  # how many times the index was built

    async def index(self) -> tuple[NameIndex, dict[str, str]]:
        """The index over the current tables, and the markets whose table could not be read."""
        if self._seen and self.refresh_s is not None and \
                time.monotonic() - self._checked < self.refresh_s:
            return self._index, self._missing
        current: list[Table | None] = []
        missing: dict[str, str] = {}
        for name in NAMED_MARKETS:
            try:
                current.append(await self.tables.table(MARKETS[name]))
            except Exception as exc:  # an unreadable table narrows the search, and says so
                current.append(None)
                missing[name] = f"{type(exc).__name__}: {exc}".strip().rstrip(":")
        seen = tuple(current)
        self._checked = time.monotonic()
        # no await from here on: concurrent callers never build the same index twice
        if len(seen) != len(self._seen) or any(a is not b for a, b in zip(seen, self._seen,
                                                                           strict=True)):
            tables = {n: t.rows for n, t in zip(NAMED_MARKETS, seen, strict=True)
                      if t is not None}
            keys = {n: MARKETS[n].key or "" for n in NAMED_MARKETS}
            # a new window's tables have new prices but (nearly always) the same names: the
            # index is rebuilt only when the codes and names changed
            names = fingerprint(tables, keys)
            if names != self._names:
                self._index = NameIndex.build(tables, keys)
                self._names = names
                self.builds += 1
            self._seen, self._missing = seen, missing
        return self._index, self._missing

    async def resolve(self, question: str, provider: str = "akshare") -> Resolution:
        index, missing = await self.index()
        return decide(question, index, missing, provider)


def decide(question: str, index: NameIndex, missing: dict[str, str] | None = None,
           provider: str = "akshare") -> Resolution:
    """The decision on a scanned question (pure: the index is given)."""
    found = scan(question, index)
    hits = outermost(found.hits)
    folded = texts(question)[1]
    hits = [_narrow(h, folded, hits) for h in hits]
    chosen: dict[tuple[str, str], tuple[Instrument, str]] = {}
    for h in hits:
        for inst in h.instruments:
            chosen.setdefault((inst.market, inst.code), (inst, h.text))
    candidates = [{"name": i.name, "code": i.code, "market": i.market, "matched": text}
                  for i, text in chosen.values()]
    unread = f"; tables not read: {', '.join(missing)}" if missing else ""
    if not chosen:
        why = "; ".join(found.notes) or "no instrument name or code of the tables is in the " \
            "question"
        return Resolution("none", {}, [], why + unread)
    listed = ", ".join(f"{c['name']} {c['code']} ({c['market']}, from {c['matched']!r})"
                       for c in candidates)
    if len(chosen) > 1:
        listed_twice = any(len({i.market for i in h.instruments} & set(STOCK_MARKETS)) > 1
                           for h in hits)
        hint = " — say A股/港股/美股 or give the code" if listed_twice else ""
        return Resolution("ambiguous", {}, candidates,
                          f"{len(chosen)} instruments match: {listed}{hint}{unread}")
    if found.notes:  # the question also names something no table has: which one is asked?
        return Resolution("ambiguous", {}, candidates,
                          f"{listed}, and also {'; '.join(found.notes)}{unread}")
    inst, text = next(iter(chosen.values()))
    fields = provider_fields(inst, provider)
    if fields is None:
        return Resolution("none", {}, candidates, f"{text!r} is {inst.name} {inst.code} "
                          f"({inst.market}), which the {provider} provider has no code for")
    return Resolution("resolved", fields, candidates,
                      f"{text!r} → {inst.name} {inst.code} ({inst.market}){unread}")


def texts(question: str) -> tuple[str, str]:
    """The question in NFKC with its case (codes are read there) and folded to lower case
    (names are read there), of one length so that spans point into both."""
    text = unicodedata.normalize("NFKC", question)
    folded = "".join(c if len(low := c.lower()) != 1 else low for c in text)
    return text, folded


def scan(question: str, index: NameIndex) -> _Found:
    text, folded = texts(question)
    found = _Found(index.name_hits(folded) + index.cased_hits(text) + index.code_hits(text))
    _vocabulary(folded, text, index, found)
    return found


def outermost(hits: list[Hit]) -> list[Hit]:
    """A name inside a longer name is not named ("中国平安" inside "中国平安银行" when both are
    names); hits on one span are merged; hits that overlap without one holding the other are
    both kept (the question is then ambiguous)."""
    spans: dict[tuple[int, int], Hit] = {}
    for h in hits:
        prior = spans.get((h.start, h.end))
        spans[(h.start, h.end)] = h if prior is None else Hit(
            h.start, h.end, prior.text, prior.instruments + h.instruments)
    keep = []
    for (s, e), h in spans.items():
        inside = any(s2 <= s and e <= e2 and (s2, e2) != (s, e) for s2, e2 in spans)
        if not inside:
            keep.append(h)
    return sorted(keep, key=lambda h: h.start)


INDEXES = frozenset(INDEX_MARKETS)
_INDEX_WORD = re.compile(r"\s*(?:指数|index)")
# What a question says about the listing: A股, 港股/H股, 美股.
_MARKET_WORDS = (("cn_stock", re.compile(r"(?<![a-z])a股|沪市|深市|沪深两市|上交所|深交所|"
                                         r"上海证券交易所|深圳证券交易所|\ba[- ]shares?\b")),
                 ("hk_stock", re.compile(r"港股|(?<![a-z])h股|港交所|香港|hong\s*kong|"
                                         r"\bh[- ]shares?\b|\bhkex\b")),
                 ("us_stock", re.compile(r"美股|纳斯达克|纽交所|美国上市|\bnasdaq\b|\bnyse\b|"
                                         r"\bu\.?s\.?[- ]listed\b")))


def _narrow(hit: Hit, folded: str, hits: list[Hit]) -> Hit:
    """A name listed in several stock markets (招商银行: 600036 and 03968) keeps the listings
    of the markets the question names, if it names any; a name an index and a company share,
    followed by 指数 / index, keeps the index (纳斯达克指数)."""
    markets = {i.market for i in hit.instruments}
    if markets & INDEXES and markets - INDEXES and _INDEX_WORD.match(folded, hit.end):
        return Hit(hit.start, hit.end, hit.text,
                   tuple(i for i in hit.instruments if i.market in INDEXES))
    if len(markets & set(STOCK_MARKETS)) < 2:
        return hit
    for h in hits:  # the names themselves do not count ("香港电讯" names no market)
        folded = folded[:h.start] + " " * (h.end - h.start) + folded[h.end:]
    said = {m for m, pat in _MARKET_WORDS if pat.search(folded)}
    kept = tuple(i for i in hit.instruments if i.market in said)
    return Hit(hit.start, hit.end, hit.text, kept) if kept else hit


# --- the fixed vocabularies ---------------------------------------------------------------------

_ZH_CURRENCY = "|".join(sorted(map(re.escape, CURRENCY_NAMES), key=len, reverse=True))
_ZH_PAIR = re.compile(rf"(?P<a>100日元|{_ZH_CURRENCY})\s*(?:兑换|兑|对|/|:|：)\s*(?P<b>{_ZH_CURRENCY})")
_ISO_PAIR = re.compile(r"(?<![A-Za-z])(?P<a>[A-Za-z]{3})\s*/\s*(?P<b>[A-Za-z]{3})(?![A-Za-z])"
                       r"|(?<![A-Za-z0-9])(?P<c>[A-Z]{3})(?P<d>[A-Z]{3})(?![A-Za-z0-9])")
_LATIN_EDGE = re.compile(r"[0-9a-z]")


def _vocabulary(folded: str, text: str, index: NameIndex, found: _Found) -> None:
    for m in _ISO_PAIR.finditer(text):
        a, b = (m.group("a") or m.group("c")).upper(), (m.group("b") or m.group("d")).upper()
        if a in CURRENCY_CODES and b in CURRENCY_CODES:
            _pair(a, b, m, folded, index, found)
    for m in _ZH_PAIR.finditer(folded):
        a = "JPY100" if m.group("a") == "100日元" else CURRENCY_NAMES[m.group("a")]
        _pair(a, CURRENCY_NAMES[m.group("b")], m, folded, index, found)
    for word in SGE_BENCHMARK:
        for start in _find_all(folded, word):
            end = start + len(word)
            if word == "上海金" and folded[end:end + 1] and \
                    folded[end] in SGE_BENCHMARK_NOT_BEFORE:
                continue
            found.hits.append(Hit(start, end, folded[start:end], (
                Instrument("sge_benchmark", "SHAU", "上海金基准价"),)))
    for word, code in SGE_PRODUCTS.items():
        for start in _find_all(folded, word):
            found.hits.append(Hit(start, start + len(word), folded[start:start + len(word)],
                                  (Instrument("sge_spot", code, code),)))
    for word in COMEX_GOLD:
        for start in _find_all(folded, word):
            found.hits.append(Hit(start, start + len(word), folded[start:start + len(word)],
                                  (Instrument("comex", "GC", "COMEX黄金"),)))
    for bond in bond_mentions(text):
        if bond.code is None:
            where = "US Treasury yields" if bond.country == "美国" else \
                "one yield for a China–US comparison" if bond.country == "中美" else \
                f"the {bond.tenor} tenor"
            found.notes.append(f"{bond.text!r}: no provider table has {where} "
                               "(bond_china_yield: 中债国债 3月 … 30年)")
            continue
        found.hits.append(Hit(bond.start, bond.end, bond.text, (
            Instrument("cn_bond", bond.code, f"中债国债收益率曲线 {bond.tenor}"),)))


def _find_all(folded: str, word: str) -> list[int]:
    """Starts of `word` as a whole word where its edges are Latin letters or digits."""
    out = []
    start = folded.find(word)
    while start >= 0:
        end = start + len(word)
        before_ok = not (_LATIN_EDGE.match(word[0]) and start > 0 and
                         _LATIN_EDGE.match(folded[start - 1]))
        after_ok = not (_LATIN_EDGE.match(word[-1]) and end < len(folded) and
                        _LATIN_EDGE.match(folded[end]))
        if before_ok and after_ok:
            out.append(start)
        start = folded.find(word, start + 1)
    return out


def _pair(a: str, b: str, m: re.Match[str], folded: str, index: NameIndex,
          found: _Found) -> None:
    """A currency pair → the one row that quotes it: the central parity (code + "C") when the
    question says 中间价, else the CFETS onshore quote (USD/CNY), else East Money's pair. The
    inverse pair is another number (1/x), so it is never taken for the asked one."""
    text = m.group(0)
    if a == "JPY100":  # East Money quotes the yen per 100 (100日元兑…), never per one
        a = "JPY"
    elif a == "JPY":
        found.notes.append(f"{text!r}: the tables quote 100 yen (100日元兑…), not one")
        return
    fx = index.codes.get("fx", {})
    if FIXING_WORDS.search(folded):
        inst = fx.get(f"{a}{b}C")
    else:
        inst = index.pairs.get(f"{a}/{b}") or fx.get(f"{a}{b}")
    if inst is not None:
        found.hits.append(Hit(m.start(), m.end(), text, (inst,)))
        return
    inverse = index.pairs.get(f"{b}/{a}") or fx.get(f"{b}{a}")
    found.notes.append(f"{text!r}: {a}/{b} is not quoted by the tables" +
                       (f" ({inverse.code} is, the inverse rate)" if inverse else ""))


# --- fields for the provider ----------------------------------------------------------------


def provider_fields(inst: Instrument, provider: str) -> dict[str, str] | None:
    """The item fields the provider's own routing reads back as this instrument, or None when
    the provider has no code for it (truth/routing.py: AKShare codes are the tables' own; Wind,
    Tushare and Yahoo spell stocks, where the rule is fixed)."""
    return routing_of(provider).item_fields(inst.market, inst.code)


# --- the shared resolvers -------------------------------------------------------------------

_RESOLVERS: dict[str, Resolver] = {}


def use_tables(provider: str, tables: TableProvider, *,
               refresh_s: float | None = None) -> Resolver:
    """Resolve `provider`'s questions against these tables (a run's own provider, so that one
    fetch per window serves the truth and the names; or recorded tables). The same tables
    again keep their resolver, and with it the index already built."""
    current = _RESOLVERS.get(provider)
    if current is not None and current.tables is tables:
        current.refresh_s = refresh_s
        return current
    resolver = Resolver(tables, refresh_s=refresh_s)
    _RESOLVERS[provider] = resolver
    return resolver


def resolver_for(provider: str) -> Resolver | None:
    """The resolver for a provider: the tables given with `use_tables` (a `Capture` gives its
    own provider's), else AKShare's (the only tables with instrument names; Wind, Tushare and
    Yahoo have none). None for a recorded provider's tables nobody gave (its registration's
    kind: a live fallback would resolve against other days' names)."""
    found = _RESOLVERS.get(provider)
    if found is not None:
        return found
    if provider in PROVIDERS and PROVIDERS.entry(provider).kind == "recorded":
        return None
    return _RESOLVERS.get("akshare") or use_tables("akshare", AkshareProvider())


async def resolve_question(question: str, *, provider: str = "akshare") -> Resolution:
    """The instrument a question names, as item fields `provider` can fetch truth for."""
    resolver = resolver_for(provider)
    if resolver is None:
        return Resolution("none", {}, [], "no recorded tables to resolve names against: "
                          "names.use_tables('snapshot', SnapshotProvider(FOLDER))")
    return await resolver.resolve(question, provider)
