"""Which instrument a part of an answer speaks of.

An item's instrument is known by its tickers, the names in its question and required point,
and the ground truth's own name and code (`Identity`, built once per item). An answer names it,
or names others: indices, currency pairs, gold and silver quotes, bonds of other tenors, other
listings and share classes of the same company, other companies by code. `scan` finds every
such name in an answer and says whether it is the item's (`mine`) or another's (`other`).
A name the reader cannot place is left to the caller, who treats it as a doubt, never a guess.
"""

from __future__ import annotations

import heapq
import re
from dataclasses import dataclass, field
from functools import lru_cache
from operator import attrgetter
from typing import Any, Final

from assay.core.casing import has_ascii_letter, has_ascii_upper
from assay.truth.markets import listing
from assay.truth.vocabulary import code_core

from .words import alternation, any_in

# Families of instruments people name in answers; each surface form → the ids it can mean.
# A bare "纳斯达克" can mean the Composite or the Nasdaq-100, so it carries both ids.
_LEXICON: Final[dict[str, tuple[str, ...]]] = {
    # indices: Greater China
    "sse": ("上证指数", "上证综指", "沪指", "上证综合指数", "上证", "shanghai composite",
            "sse composite", "sse composite index", "shanghai composite index"),
    "szse": ("深证成指", "深成指", "深证成份指数", "深证综指", "shenzhen component",
             "szse component", "shenzhen component index"),
    "chinext": ("创业板指", "创业板指数", "创业板", "chinext", "chinext index"),
    "chinext50": ("创业板50", "创业板50指数", "chinext 50"),
    "sse_b": ("b股指数", "上证b股指数", "b-share index", "sse b-share index", "b-share"),
    "idx_futures": ("期指", "股指期货", "期指主力", "index futures", "if主力", "ih主力", "ic主力",
                    "im主力", "a50期货", "富时a50", "ftse china a50"),
    "sox": ("费城半导体", "费城半导体指数", "philadelphia semiconductor", "sox"),
    "ftse250": ("ftse 250", "富时250"),
    "aim": ("ftse aim all-share", "ftse aim", "aim all-share"),
    "mdax": ("mdax",),
    "credit": ("商业银行普通债", "商业银行债", "银行债", "bank bonds", "bank bond", "aaa", "企业债",
               "信用债", "国开债", "地方债", "城投债", "corporate bonds", "corporate bond"),
    "csi300": ("沪深300", "沪深300指数", "csi 300", "csi300", "csi 300 index"),
    "csi500": ("中证500", "csi 500", "csi500"),
    "csi1000": ("中证1000", "csi 1000"),
    "sse50": ("上证50", "sse 50"),
    "star50": ("科创50", "科创板50", "star 50", "star50"),
    "bse50": ("北证50",),
    "hsi": ("恒生指数", "恒指", "hang seng index", "hang seng", "hsi"),
    "hstech": ("恒生科技指数", "恒生科技", "恒科指", "hang seng tech", "hang seng tech index",
               "hstech", "hs tech"),
    "hscei": ("国企指数", "恒生中国企业指数", "h股指数", "hscei", "hang seng china enterprises"),
    # indices: elsewhere
    "spx": ("标普500", "标普500指数", "标准普尔500", "标普", "s&p 500", "s&p500", "sp500", "spx",
            "s&p"),
    "ndx": ("纳斯达克100", "纳斯达克100指数", "纳指100", "nasdaq 100", "nasdaq-100", "ndx",
            "nasdaq100"),
    "ixic": ("纳斯达克综合指数", "纳斯达克综指", "nasdaq composite", "ixic"),
    "dji": ("道琼斯", "道琼斯指数", "道指", "道琼斯工业平均指数", "道琼斯工业指数", "dow jones", "dow",
            "djia", "dow jones industrial average", "the dow"),
    "n225": ("日经225", "日经指数", "日经225指数", "日经", "nikkei 225", "nikkei"),
    "kospi": ("韩国综合指数", "韩国kospi", "kospi"),
    "ftse": ("富时100", "英国富时100", "ftse 100", "ftse"),
    "dax": ("德国dax", "dax指数", "dax"),
    "cac": ("法国cac40", "cac 40", "cac40"),
    "rut": ("罗素2000", "russell 2000"),
    "sx5e": ("欧洲斯托克50", "euro stoxx 50", "stoxx 50"),
    "vix": ("vix", "恐慌指数"),
    "dxy": ("美元指数", "dollar index", "us dollar index", "dxy"),
    # gold, silver, oil, crypto
    "sge_gold": ("上海金", "上海金基准价", "上金所黄金基准价", "shau", "上海黄金基准价",
                 "sge gold benchmark", "shanghai gold benchmark", "shanghai gold"),
    "sge_spot": ("au99.99", "au9999", "au(t+d)", "黄金t+d", "黄金延期", "au t+d", "黄金9999",
                 "金9999", "黄金99.99", "au 99.99"),
    "comex_gold": ("comex黄金", "comex金", "comex 黄金", "纽约金", "纽约黄金", "美黄金", "美国黄金期货",
                   "comex gold", "comex gold futures", "gold futures", "gc"),
    "spot_gold": ("伦敦金", "现货黄金", "国际金价", "国际现货黄金", "spot gold", "xau/usd",
                  "xauusd", "london gold", "xau"),
    "silver": ("白银", "银价", "上海银", "上海白银", "上海银基准价", "现货白银", "伦敦银", "comex白银",
               "comex银", "沪银", "silver", "spot silver", "comex silver", "xag", "ag(t+d)",
               "白银t+d"),
    "oil": ("原油", "布伦特", "布伦特原油", "wti", "wti原油", "brent", "crude", "crude oil", "油价",
            "oil"),
    "btc": ("比特币", "bitcoin", "btc"),
}
# Surface forms that mean a whole family ("黄金" may be any gold quote).
_FAMILIES: Final[dict[str, tuple[str, ...]]] = {
    "gold": ("黄金", "金价", "gold", "gold price"),
    "nasdaq": ("纳斯达克", "纳指", "nasdaq"),
}
_FAMILY_IDS: Final = {"gold": ("sge_gold", "sge_spot", "comex_gold", "spot_gold"),
                      "nasdaq": ("ndx", "ixic")}

# One company's names in Chinese and English: an answer may name it in either language.
_ALIASES: Final = (
    ("贵州茅台", "茅台", "kweichow moutai", "moutai"), ("腾讯控股", "腾讯", "tencent"),
    ("阿里巴巴", "阿里", "alibaba"), ("美团", "meituan"), ("小米集团", "小米", "xiaomi"),
    ("比亚迪", "byd"), ("宁德时代", "catl", "contemporary amperex"), ("中国平安", "ping an"),
    ("招商银行", "招行", "china merchants bank", "cmb"), ("汇丰控股", "汇丰", "hsbc"),
    ("中国移动", "china mobile"), ("英伟达", "nvidia"), ("苹果", "apple"), ("微软", "microsoft"),
    ("特斯拉", "tesla"), ("亚马逊", "amazon"), ("迪士尼", "disney", "walt disney"),
    ("谷歌", "alphabet", "google"), ("伯克希尔", "伯克希尔哈撒韦", "berkshire"),
    ("摩根大通", "jpmorgan", "jp morgan"), ("菲利普莫里斯", "菲利普·莫里斯", "philip morris"),
    ("海天味业", "haitian"), ("英特尔", "intel"), ("五粮液", "wuliangye"), ("京东", "jd.com"),
    ("网易", "netease"), ("百度", "baidu"), ("拼多多", "pinduoduo"), ("奈飞", "netflix"),
    ("脸书", "meta platforms"), ("台积电", "tsmc"), ("可口可乐", "coca-cola"),
    ("中国石油", "petrochina"), ("中国海油", "cnooc"), ("工商银行", "icbc"),
)

# Listings and share classes of one company.
_LISTINGS: Final[dict[str, tuple[str, ...]]] = {
    "A": ("a股", "a-share", "a-shares", "a share", "a shares", "沪市", "深市", "上交所", "深交所",
          "上海证券交易所", "深圳证券交易所", "shanghai-listed", "shenzhen-listed", "a股市场"),
    "H": ("h股", "h-share", "h-shares", "h share", "h shares", "港股", "港交所", "香港交易所",
          "hong kong-listed", "hk-listed", "hong kong shares", "hong kong listing",
          "in hong kong", "hkex", "香港上市", "港股市场"),
    "US": ("美股", "adr", "adrs", "ads", "美国存托股", "美国存托凭证", "纽交所", "纳斯达克上市", "nyse",
           "us-listed", "u.s.-listed", "us shares", "u.s. shares", "us listing", "in new york",
           "美国上市", "美股市场", "new york-listed"),
    "B": ("b股", "b-share", "b-shares", "b shares"),
    # a London line of an HK or US company ("In London, HSBA last traded at 1,010p")
    "LSE": ("in london", "london-listed", "london listing", "london shares", "london-quoted",
            "london stock exchange", "lse", "伦交所", "伦敦证券交易所", "伦敦上市", "在伦敦", "伦敦市场",
            "伦敦股"),
    "classA": ("class a", "a类股", "a类普通股", "class-a"),
    "classB": ("class b", "b类股", "b类普通股", "class-b"),
    "classC": ("class c", "c类股", "class-c"),
}
# "1 ADS = 8 shares", "3.2 million shares": after a number, "shares" counts; it refers to nothing
_COUNT_BEFORE = re.compile(r"\d\s*(?:(?:million|billion|thousand|mn|bn|m|k)\s*)?$")
# Pronouns and stand-ins: they refer to the statement's subject.
_PRONOUNS: Final = ("it", "its", "the stock", "the shares", "shares", "the index", "the company",
                    "the pair", "the rate", "the currency", "该股", "该股票", "其", "公司", "该指数",
                    "该公司", "个股", "股票", "本股")

_CURRENCIES: Final = {
    "USD": ("美元", "usd", "us dollar", "dollar", "美金"),
    "CNY": ("人民币", "cny", "rmb", "yuan", "cnh", "在岸人民币", "离岸人民币", "renminbi"),
    "EUR": ("欧元", "eur", "euro"), "JPY": ("日元", "jpy", "yen"),
    "GBP": ("英镑", "gbp", "pound", "sterling"), "HKD": ("港元", "港币", "hkd"),
    "AUD": ("澳元", "aud"), "CAD": ("加元", "cad"), "CHF": ("瑞郎", "瑞士法郎", "chf"),
    "SGD": ("新加坡元", "新元", "sgd"), "KRW": ("韩元", "krw"),
}
_CCY_WORD = {w: c for c, ws in _CURRENCIES.items() for w in ws}


def _bounded(w: str) -> str:
    """`(?<![a-z])w`, written to start with w's first character: a pattern whose branches all
    start with a character lets the engine skip to one of them (and skip a branch at once when
    its character is not there), where a lookbehind first is tried at every position."""
    c = re.escape(w[0])
    return rf"{c}(?<![a-z]{c}){re.escape(w[1:])}"


_CCY_RE = re.compile("|".join(
    (re.escape(w) if not w.isascii() else rf"{_bounded(w)}(?![a-z])")
    for w in sorted(_CCY_WORD, key=len, reverse=True)))
_CCY_ALT = "|".join(re.escape(w) for w in sorted(_CCY_WORD, key=len, reverse=True))
# Nicknames of pairs
_PAIR_NICKNAMES: Final = {"cable": "fx:GBP/USD", "fiber": "fx:EUR/USD", "aussie": "fx:AUD/USD",
                          "loonie": "fx:CAD/USD", "kiwi": "fx:NZD/USD", "欧美": "fx:EUR/USD",
                          "镑美": "fx:GBP/USD", "美日": "fx:JPY/USD"}
# "美元兑人民币", "USD/CNY", "EUR/USD", "欧元兑美元", "美元对日元"
_PAIR = re.compile("(" + "|".join(_bounded(w) for w in sorted(_CCY_WORD, key=len, reverse=True))
                   + rf")\s*(?:兑|对|/|-|兑换|to)\s*({_CCY_ALT})(?![a-z])")
_PAIR_CODE = re.compile(r"(?<![a-z])(usd|eur|gbp|jpy|aud|cad|chf|hkd|cny|cnh|sgd|krw)"
                        r"(usd|eur|gbp|jpy|aud|cad|chf|hkd|cny|cnh|sgd|krw)(?![a-z])")
_CODE_NORM = {"cnh": "CNY", "cny": "CNY"}
# "10年期国债", "美债10年期收益率", "US 10-year Treasury", "2-year yield"
_BOND = re.compile(
    r"(?:(中国|中债|国内|美国|美债|日本|德国|英国|us|u\.s\.|china|chinese|japan|german|uk)\s*)?"
    r"(\d{1,2}|十|两|二|三|五|七|三十)\s*(?:年期|年|-?\s*year|-?\s*yr|y)(?![a-z])"
    r"\s*(?:期)?\s*(?:(?:国债|政府债|treasury|treasuries|government bond|gilt|bund|jgb|bond|note)s?)?"
    r"\s*(?:收益率|利率|yield)?")
_ZH_DIGITS = {"十": 10, "两": 2, "二": 2, "三": 3, "五": 5, "七": 7, "三十": 30}
_COUNTRY = {"中国": "CN", "中债": "CN", "国内": "CN", "china": "CN", "chinese": "CN",
            "美国": "US", "美债": "US", "us": "US", "u.s.": "US", "日本": "JP", "japan": "JP",
            "德国": "DE", "german": "DE", "英国": "UK", "uk": "UK"}

_LEX_WORDS: dict[str, tuple[str, ...]] = {}
for _id, _forms in _LEXICON.items():
    for _f in _forms:
        _LEX_WORDS.setdefault(_f, ())
        _LEX_WORDS[_f] = (*_LEX_WORDS[_f], _id)
for _fam, _forms in _FAMILIES.items():
    for _f in _forms:
        _LEX_WORDS.setdefault(_f, _FAMILY_IDS[_fam])
_LISTING_OWNER = {w: k for k, ws in _LISTINGS.items() for w in ws}
_SCAN_RE, _SCAN_OWNER = alternation({
    "lex": tuple(_LEX_WORDS), "listing": tuple(_LISTING_OWNER), "pronoun": _PRONOUNS})
SCAN_WORDS: Final = dict(_SCAN_OWNER)  # word → lex / listing / pronoun, for the one-pass lexer

# Words that are never an instrument's name, for reading names out of a question.
_NAME_STOP: Final = frozenset({
    "the", "latest", "price", "prices", "stock", "stocks", "share", "shares", "of", "inc", "corp",
    "corporation", "holdings", "holding", "group", "company", "co", "ltd", "limited", "index",
    "level", "closing", "opening", "close", "open", "what", "is", "was", "today", "how", "did",
    "do", "does", "current", "and", "change", "percentage", "percent", "high", "low", "rate",
    "exchange", "yield", "required", "content", "accuracy", "requirements", "value", "market",
    "cap", "previous", "prior", "day", "for", "in", "on", "at", "a", "an", "its", "s", "w", "now",
    "quote", "trading", "traded", "please", "tell", "me", "give", "amount", "net", "volume",
    "turnover", "real", "time", "realtime", "real-time", "latest's", "us", "hk", "usd", "cny",
    "hkd", "points", "point", "per", "with", "to", "from", "by", "as", "be", "are", "were",
    "intraday", "session", "daily", "today's", "yesterday", "yesterday's", "benchmark", "spot",
    "futures", "fix", "afternoon", "morning", "onshore", "offshore",
    "central", "parity", "listed", "listing", "class", "adr", "ordinary", "new", "york", "hong",
    "kong", "ended", "end", "recent", "most", "recently", "this", "that", "which", "where",
    "when", "much", "many", "answer", "between", "range", "any", "considered", "correct",
})
_ZH_STOP: Final = ("最新", "的", "今日", "今天", "当前", "目前", "实时", "即", "最近", "交易日", "价格",
                   "股价", "收盘", "开盘", "最高", "最低", "多少", "是", "如何", "怎么样", "查询", "请问",
                   "报价", "点位", "指数", "涨跌", "幅度", "百分比", "基准", "午盘", "早盘", "晚盘",
                   "昨收", "收益率", "汇率", "利率", "在岸", "离岸", "中间价", "市值", "成交", "一下",
                   "现在", "当日", "前", "个", "和", "与", "及", "价", "额", "量", "率", "年期", "期")
# longest first, as `_names_of` takes them out ("收盘" before "收"); sorted once, not per name
_ZH_STOP_LONGEST: Final = tuple(sorted(_ZH_STOP, key=len, reverse=True))
_GENERIC_ZH: Final = frozenset({"中国", "美国", "香港", "股份", "集团", "控股", "银行", "公司", "科技",
                                "国际", "时代", "有限", "股票", "指数", "人民", "美元", "黄金", "国债",
                                "基准", "价格", "最新", "交易", "市场", "证券", "能源", "电子",
                                "上海", "深圳", "北京", "电力", "汽车", "医药", "保险"})
_CJK_RUN = re.compile(r"[\u4e00-\u9fff]{2,}")
_EN_WORD = re.compile(r"[a-z][a-z&.'-]*[a-z]|[a-z]")
_PAREN_CODE = re.compile(r"[(（]\s*([A-Za-z0-9.]{1,12})\s*[)）]")
_CODE_IN_TEXT = re.compile(r"(?<![A-Za-z0-9.,$])([0368]\d{5}(?:\.(?:SH|SZ|BJ|SS))?|\d{4,5}\.HK|0\d{4}"
                           r"|[A-Z]{1,5}\.(?:O|N|A|OQ|US))(?![A-Za-z0-9]|[.,]\d)", re.IGNORECASE)
_LETTERS = re.compile(r"[a-z]{1,5}")
_CCY_CODES = ("usd", "cny", "cnh", "eur", "jpy", "gbp", "hkd", "aud", "cad", "chf", "sgd", "krw")
_CODE_SUFFIXES = (".hk", ".sh", ".sz", ".bj", ".ss", ".o", ".n", ".a", ".us")


@dataclass(frozen=True, slots=True)
class Identity:
    """The item's instrument, as an answer may name it."""

    ids: frozenset[str]  # lexicon ids (indices, gold quotes, pairs, bonds)
    names: tuple[str, ...]  # lower-cased names and their distinctive parts
    codes: frozenset[str]  # code cores (600519, 700, AAPL)
    listing: str  # "A", "H", "US", "" (unknown or not a stock)
    classes: frozenset[str]  # share classes the item names ("classA")
    currency: str  # the currency its price is in, when known
    per: str  # "g" / "oz" for gold and silver prices
    kind: str  # "stock", "index", "fx", "commodity", "bond", ""
    # derived once here, not per answer: the currency pair among `ids` ("fx:CNY/USD") and its
    # two currencies, and the lower-cased codes that are words ("nvda")
    pair: str = ""
    pair_ccy: frozenset[str] = frozenset()
    word_codes: tuple[str, ...] = ()
    # the names an ASCII answer can hold (it holds no other): derived from `names`
    ascii_names: tuple[str, ...] = field(init=False, default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "ascii_names", tuple(n for n in self.names if n.isascii()))


@dataclass(slots=True)  # built per answer: see numbers.Mention on why not frozen
class Name:
    """An instrument named in an answer."""

    start: int
    end: int
    text: str
    mine: bool | None  # None: a pronoun (it refers to the statement's subject)


def _lex_ids(low: str) -> set[str]:
    ids: set[str] = set()
    for m in _SCAN_RE.finditer(low):
        word = m.group(0)
        if _SCAN_OWNER[word] == "lex":
            ids.update(_LEX_WORDS[word])
    for m in _PAIR.finditer(low):
        ids.add(_pair_id(m.group(1), m.group(2)))
    for m in _PAIR_CODE.finditer(low):
        ids.add(_pair_id(m.group(1), m.group(2)))
    for m in _BOND.finditer(low):
        bond = _bond_id(m)
        if bond:
            ids.add(bond)
    return ids


def _pair_id(a: str, b: str) -> str:
    x = _CODE_NORM.get(a, _CCY_WORD.get(a, a.upper()))
    y = _CODE_NORM.get(b, _CCY_WORD.get(b, b.upper()))
    return "fx:" + "/".join(sorted((x, y)))


_BOND_WORD_IN_NAME = re.compile(
    r"国债|政府债|treasur|government|gilt|bund|jgb|bond|note|收益率|yield|美债|中债")


def _bond_id(m: re.Match[str]) -> str:
    text = m.group(0)
    if not _BOND_WORD_IN_NAME.search(text):
        return ""
    tenor = m.group(2)
    years = _ZH_DIGITS.get(tenor) or int(tenor)
    country = _COUNTRY.get((m.group(1) or "").strip(), "")
    if not country and ("美债" in text):
        country = "US"
    return f"bond:{country}:{years}"


def _names_of(text: str) -> list[str]:
    """Candidate names in a question or required point: CJK runs and English words that are
    not field or filler words."""
    out: list[str] = []
    if not text.isascii():  # the stop words and the names they leave are all CJK
        cleaned = text
        for stop in _ZH_STOP_LONGEST:
            if stop in cleaned:  # `in` first: most stop words are not in a question
                cleaned = cleaned.replace(stop, " ")
        out.extend(_CJK_RUN.findall(cleaned))
    words = [w.strip("'.-") for w in _EN_WORD.findall(text.lower())]
    words = [w.removesuffix("'s").removesuffix("-w") for w in words]
    run: list[str] = []
    for w in [*words, ""]:
        if w and w not in _NAME_STOP and len(w) >= 3:
            run.append(w)
            out.append(w)
            continue
        if len(run) >= 2:
            out.append(" ".join(run))
        run = []
    return out


def _parts(name: str) -> list[str]:
    """A name and its distinctive parts: "贵州茅台" → 贵州茅台, 茅台, 贵州; generic parts
    ("中国", "控股") are not names by themselves."""
    out = [name]
    if _CJK_RUN.fullmatch(name) and len(name) >= 3:
        for k in range(2, len(name)):
            for piece in (name[:k], name[-k:]):
                if piece not in _GENERIC_ZH and piece not in out:
                    out.append(piece)
    return out


@lru_cache(maxsize=4096)
def identity(prompt: str, required: str, tickers: tuple[str, ...], truth_name: str,
             truth_code: str, tags: str) -> Identity:
    """The item's instrument; computed once per distinct item."""
    low_req = required.lower()
    low_prompt = prompt.lower()
    ids = _lex_ids(low_req) or _lex_ids(low_prompt)
    bond = _bond_of_item(low_req + " " + low_prompt, tags)
    if bond:
        ids = {i for i in ids if not i.startswith("bond:")} | {bond}
    names: list[str] = []
    for src in (required, prompt):
        for n in _names_of(src):
            for p in _parts(n.lower()):
                if p not in names:
                    names.append(p)
    if truth_name:
        # without its blanks: str.split's whitespace is re's \s (both Py_UNICODE_ISSPACE)
        clean = "".join(truth_name.split()).lower().removesuffix("-w").removesuffix("-sw")
        for p in _parts(clean):
            if p not in names:
                names.append(p)
    _add_aliases(names)
    codes = {code_core(t) for t in (*tickers, truth_code) if t}
    for m in _PAREN_CODE.finditer(required + " " + prompt):
        codes.add(code_core(m.group(1)))
    codes.discard("")
    # names that are lexicon words belong to `ids`, not to free-text matching
    names = [n for n in names if n not in _LEX_WORDS and n not in _LISTING_OWNER
             and n.upper() not in ("USD", "CNY")]
    listing = _listing(tickers, truth_code, low_req + " " + low_prompt)
    classes = frozenset(k for k in ("classA", "classB", "classC")
                        if any(w in low_req for w in _LISTINGS[k]))
    kind = _kind(ids, tags, listing)
    currency = {"A": "CNY", "H": "HKD", "US": "USD"}.get(listing, "") if kind == "stock" else ""
    per = ""
    if ids & {"sge_gold", "sge_spot"}:
        per = "g"
    elif ids & {"comex_gold", "spot_gold", "silver"}:
        per = "oz"
    all_ids, all_codes = frozenset(ids), frozenset(codes)
    pair = next((i for i in all_ids if i.startswith("fx:")), "")
    return Identity(all_ids, tuple(names), all_codes, listing, classes, currency, per, kind,
                    pair, frozenset(pair[3:].split("/")) if pair else frozenset(),
                    tuple(c.lower() for c in all_codes if len(c) >= 2 and c.isalpha()))


def _add_aliases(names: list[str]) -> None:
    """Each group of _ALIASES that holds one of `names`, in the groups' order, adds its other
    names (a name a group adds may bring in a later group, as a pass over the groups in order
    would): the groups found from the names through _ALIAS_GROUPS, not each group tested."""
    hits = [g for n in names for g in _ALIAS_GROUPS.get(n, ())]
    if not hits:
        return
    heapq.heapify(hits)
    last = -1
    while hits:
        g = heapq.heappop(hits)
        if g <= last:  # a group met twice
            continue
        last = g
        for a in _ALIASES[g]:
            if a not in names:
                names.append(a)
                hits.extend(g2 for g2 in _ALIAS_GROUPS.get(a, ()) if g2 > g)
                heapq.heapify(hits)


def _alias_groups() -> dict[str, tuple[int, ...]]:
    out: dict[str, tuple[int, ...]] = {}
    for g, group in enumerate(_ALIASES):
        for a in group:
            out[a] = (*out.get(a, ()), g)
    return out


_ALIAS_GROUPS: Final = _alias_groups()  # an alias → the groups of _ALIASES that hold it
# the listing words that say a stock's listing, longest first; sorted once, not per item
_LISTING_WORDS: Final = tuple((w, k) for w, k in sorted(_LISTING_OWNER.items(),
                                                        key=lambda kv: -len(kv[0]))
                              if k in ("A", "H", "US", "B"))


def _listing(tickers: tuple[str, ...], truth_code: str, text: str) -> str:
    for word, key in _LISTING_WORDS:
        if word in text:
            return key
    for t in (*tickers, truth_code):
        found = listing(t)
        if found is not None:
            return _LISTING_OF[found.market]
    return ""


_LISTING_OF: Final[dict[str, str]] = {"cn_stock": "A", "hk_stock": "H", "us_stock": "US"}


def _kind(ids: set[str], tags: str, listing: str) -> str:
    t = tags.lower()
    if any(i.startswith("fx:") for i in ids) or "汇率" in tags or "fx" in t:
        return "fx"
    if any(i.startswith("bond:") for i in ids) or "债" in tags or "bond" in t:
        return "bond"
    if ids & {"sge_gold", "sge_spot", "comex_gold", "spot_gold", "silver", "oil", "btc"}:
        return "commodity"
    if ids or "index" in t or "指数" in tags:
        return "index"
    if listing or "stock" in t or "股" in tags:
        return "stock"
    return ""


# (?<![A-Za-z0-9.$])[A-Z]{2,5}…, written to start with a capital so the engine skips to one
_TICKER = re.compile(r"([A-Z](?<![A-Za-z0-9.$][A-Z])[A-Z]{1,4}(?:\.[A-Z])?)"
                     r"(?=\s*[:=]?\s*(?:US)?\$?\s?\d)")
_NOT_TICKERS = frozenset({"usd", "hkd", "cny", "rmb", "eur", "gbp", "jpy", "etf", "ytd", "eps",
                          "adr", "ads", "pe", "pb", "ttm", "ohlc", "vol", "chg", "mkt", "cap", "gdp",
                          "cpi", "ppi", "pmi", "bp", "bps", "pct", "am", "pm", "et", "est", "edt",
                          "utc", "gmt", "hkt", "cst", "bj", "no", "id", "ai", "yoy", "mom", "qoq",
                          "high", "low", "open", "close", "last", "rsi", "macd", "kdj", "dif"})
_DERIVATIVE_FIRST = frozenset("期主合femo")  # the first characters of its words
_DERIVATIVE = re.compile(r"\s?(?:期货|期指|主力合约|主力|合约|futures?|etf|e-mini|mini|options?|期权)")


def scan(low: str, ident: Identity, original: str = "",
         hits: list[tuple[int, int, str]] | None = None,
         digit_runs: list[tuple[int, int]] | None = None,
         toks: list[tuple[int, int, str, Any]] | None = None) -> list[Name]:
    """Every instrument named in `low` (the lower-cased, normalised answer), in order. Where
    two names overlap the longer wins ("hang seng tech" over "hang seng", "恒生银行" over
    "恒生")."""
    found: list[tuple[int, int, bool | None]] = []
    # cheap tests first: most answers hold no pair, no code in brackets, no capitals
    latin = has_ascii_letter(low)  # _LATIN.search(low), without a regex call
    if "兑" in low or "对" in low or "/" in low or (latin and " to " in low):
        for m in _PAIR.finditer(low):
            found.append((m.start(), m.end(), _pair_id(m.group(1), m.group(2)) in ident.ids
                          or (ident.kind == "fx" and not any(i.startswith("fx:")
                                                             for i in ident.ids))))
    if latin and any_in(_CCY_CODES, low):
        for m in _PAIR_CODE.finditer(low):
            found.append((m.start(), m.end(), _pair_id(m.group(1), m.group(2)) in ident.ids))
    if ident.kind == "fx":
        for nick, pid in _PAIR_NICKNAMES.items():
            k = low.find(nick)
            if k >= 0 and not (k > 0 and _word_char(low[k - 1])) and not (
                    k + len(nick) < len(low) and _word_char(low[k + len(nick)])):
                found.append((k, k + len(nick), pid in ident.ids))
    if ident.kind == "bond":
        for m in _TENOR.finditer(low):
            years = _ZH_DIGITS.get(m.group(1)) or int(m.group(1))
            h0 = max(0, m.start() - 6)
            head = low[h0:m.start()]
            country = _BOND_COUNTRY.search(head)
            code = _COUNTRY_OF.get(country.group(1), "") if country else ""
            # "US 10-Year": the country is part of the bond's name, not a name of its own
            start = h0 + country.start() if country and not (
                h0 + country.start() > 0 and low[h0 + country.start() - 1].isalpha()) \
                and not low[h0 + country.end():m.start()].strip(" -") else m.start()
            found.append((start, m.end(), _bond_mine(f"bond:{code}:{years}", ident)))
        for m in _SPREAD.finditer(low):  # "2s10s", "10y-2y": a spread of two tenors
            found.append((m.start(), m.end(), False))
        for m in _BOND_COUNTRY_ONLY.finditer(low):
            word = m.group(1)
            country = _BOND_COUNTRY.search(word)
            code = _COUNTRY_OF.get(country.group(1), "") if country else ""
            found.append((m.start(), m.end(), _bond_mine(f"bond:{code}:", ident)))
    elif "收益率" in low or "yield" in low:
        for m in _BOND.finditer(low):
            bond = _bond_id(m)
            if bond:
                found.append((m.start(), m.end(), _bond_mine(bond, ident)))
    if ident.pair:  # "欧元8.3074" beside a USD/CNY item: another currency's quote
        mine_ccy = ident.pair_ccy
        for m in _CCY_RE.finditer(low):
            if _CCY_WORD[m.group(0)] not in mine_ccy:
                found.append((m.start(), m.end(), False))
    if toks is not None:  # the lexer's words, with their roles: those of names
        hits = []
        for start, end, word, role in toks:
            if role.scan:
                hits.append((start, end, word))
    elif hits is None:
        hits = [(m.start(), m.end(), m.group(0)) for m in _SCAN_RE.finditer(low)]
    for start, end, word in hits:
        owner = _SCAN_OWNER[word]
        if owner == "lex":
            found.append((start, end, bool(set(_LEX_WORDS[word]) & ident.ids)))
        elif owner == "listing":
            key = _LISTING_OWNER[word]
            if ident.kind != "stock":
                continue  # "A股三大指数": a market, not a listing of the item
            if key.startswith("class"):
                if ident.classes:
                    found.append((start, end, key in ident.classes))
            elif ident.listing:
                found.append((start, end, key == ident.listing))
        elif not (word == "shares" and _COUNT_BEFORE.search(low, max(0, start - 24), start)):
            found.append((start, end, None))  # "8 shares", "3 million shares": a count
    for name in ident.ascii_names if low.isascii() else ident.names:
        # `in` first: most names are not in the answer, and str.find parses its arguments
        k = low.find(name) if name in low else -1
        while k >= 0:
            end = k + len(name)
            # an English name is a whole word
            if not (name[0].isascii() and ((k > 0 and _word_char(low[k - 1]))
                                           or (end < len(low) and _word_char(low[end])))):
                found.append((k, end, True))
            k = low.find(name, end)
    for c in ident.word_codes:  # a bare ticker: "NVDA last price"
        k = low.find(c) if c in low else -1
        while k >= 0:
            end = k + len(c)
            if not ((k > 0 and _word_char(low[k - 1])) or (end < len(low) and
                                                           _word_char(low[end]))):
                found.append((k, end, True))
            k = low.find(c, end)
    if digit_runs is None or (latin and any_in(_CODE_SUFFIXES, low)):
        for m in _CODE_IN_TEXT.finditer(low):
            found.append((m.start(), m.end(), code_core(m.group(1)) in ident.codes))
    else:  # the caller found the five- and six-digit runs already
        for a, _ in digit_runs:
            run = _CODE_IN_TEXT.match(low, a)
            if run is not None:
                found.append((run.start(), run.end(), code_core(run.group(1)) in ident.codes))
    for m in (_PAREN_CODE.finditer(low) if "(" in low or "（" in low else ()):
        core = code_core(m.group(1))
        if core and core.upper() in ident.codes:
            found.append((m.start(1), m.end(1), True))
        elif _LETTERS.fullmatch(m.group(1)) and ident.kind == "stock" and ident.codes:
            found.append((m.start(1), m.end(1), False))  # "(BABA)" beside another name
    # "AMD $234.56": a ticker (capitals: only where the answer holds one)
    for m in (_TICKER.finditer(original) if latin and has_ascii_upper(original) else ()):
        word = m.group(1)
        if word.lower() in _NOT_TICKERS or word.lower() in _LEX_WORDS:
            continue
        found.append((m.start(1), m.end(1), code_core(word) in ident.codes))
    if not found:
        return []
    derivative = ident.kind in ("index", "stock")
    if len(found) == 1:  # nothing to choose between
        start, end, mine = found[0]
        if mine and derivative and _derivative_after(low, end):
            mine = False
        return [Name(start, end, low[start:end], mine)]
    out: list[Name] = []
    spans: list[tuple[int, int]] = []  # the names kept so far (few: a loop, not a bytearray)
    # longest first, then leftmost; the index keeps equal ones in the order found
    # a loop, not a comprehension: no function object and frame per answer
    ranked: list[tuple[int, int, int, int, bool | None]] = []
    for k, (s, e, owned) in enumerate(found):
        ranked.append((s - e, s, k, e, owned))
    ranked.sort()
    for _, start, _, end, mine in ranked:
        if start < end:  # an empty span overlaps nothing
            clash = False
            for a, b in spans:
                if a < end and start < b:
                    clash = True
                    break
            if clash:
                continue
            spans.append((start, end))
        if mine and derivative and _derivative_after(low, end):
            mine = False  # "恒指期货", "S&P 500 futures", "… ETF" (COMEX gold is a future)
        out.append(Name(start, end, low[start:end], mine))
    if len(out) > 1:
        out.sort(key=_START)
    return out


_START = attrgetter("start")


def _derivative_after(low: str, end: int) -> bool:
    """_DERIVATIVE.match(low, end), tried only where its first character is."""
    c = low[end:end + 1]
    if c.isspace():
        c = low[end + 1:end + 2]
    return bool(c) and c in _DERIVATIVE_FIRST and _DERIVATIVE.match(low, end) is not None


# A tenor may stand right before its value ("2年1.419%，10年1.7602%": each value is its own
# tenor's); a digit after it is a month only with 月 ("25年10月" is a date).
_TENOR = re.compile(r"(?<![\d.])(\d{1,2}|十|两|二|三|五|七|三十)\s*(?:年期|年|-?\s*years?|-?\s*yr|y)"
                    r"(?![a-z])(?!\d{1,2}\s*月)")
_SPREAD = re.compile(r"(?<![a-z0-9.])\d{1,2}(?:s|y|yr)\s*[-/]?\s*\d{1,2}(?:s|y|yr)(?![a-z0-9])|"
                     r"(?<![a-z])(?:term\s+)?spread(?![a-z])|利差|期限利差")
_BOND_WORDS = re.compile(r"国债|政府债|treasur|government bond|gilt|bund|jgb|收益率|yield|美债|中债|cgb|ust")
_BOND_COUNTRY = re.compile(r"(中国|中债|国内|china|chinese|cgb|美国|美债|us|u\.s\.|ust|treasur|日本|japan|"
                           r"德国|german|bund|英国|uk|gilt)")
_COUNTRY_OF = {"中国": "CN", "中债": "CN", "国内": "CN", "china": "CN", "chinese": "CN", "cgb": "CN",
               "美国": "US", "美债": "US", "us": "US", "u.s.": "US", "ust": "US", "treasur": "US",
               "日本": "JP", "japan": "JP", "德国": "DE", "german": "DE", "bund": "DE",
               "英国": "UK", "uk": "UK", "gilt": "UK"}
# "美国国债", "中债", "US Treasuries": a country's government bonds, no tenor
_BOND_COUNTRY_ONLY = re.compile(r"(中国国债|中债国债|中债|美国国债|美债|us treasur(?:y|ies)|"
                                r"u\.s\. treasur(?:y|ies)|treasur(?:y|ies)|china government bonds?|"
                                r"chinese government bonds?|cgbs?|usts?)(?![a-z])")


def _bond_of_item(text: str, tags: str) -> str:
    """A bond item's id (bond:COUNTRY:YEARS) from its question, wherever the words stand
    ("中债国债收益率曲线30年期最新收益率")."""
    if not (_BOND_WORDS.search(text) or "债" in tags or "bond" in tags.lower()):
        return ""
    tenor = _TENOR.search(text)
    if tenor is None:
        return ""
    years = _ZH_DIGITS.get(tenor.group(1)) or int(tenor.group(1))
    country = _BOND_COUNTRY.search(text)
    code = _COUNTRY_OF.get(country.group(1), "") if country else ""
    return f"bond:{code}:{years}"


def _word_char(ch: str) -> bool:
    return ch.isascii() and (ch.isalnum() or ch == "_")


def _bond_mine(bond: str, ident: Identity) -> bool:
    _, country, years = bond.split(":")
    for i in ident.ids:
        if i.startswith("bond:"):
            _, c, y = i.split(":")
            if (not years or y == years) and (not c or not country or c == country):
                return True
    return False
