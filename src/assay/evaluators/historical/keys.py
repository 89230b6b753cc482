"""Keys of keyed lists (by month, by year, by quarter, by name) and entity names.

"1月：0.90911，2月：0.90836 …" is a list keyed by month; an answer may write the key as "2024年1月",
"一月", "January" or "2024-01", in a table cell or in prose. Each spelling is turned into one
normal form ("M1", "Y2022", "Q1") so the reference's key and the answer's key can be compared.
Names are compared case-folded, without blanks, punctuation and the suffixes people drop
("上海市" is "上海", "Tesla, Inc." is "Tesla").
"""

from __future__ import annotations

import re
from functools import lru_cache

from assay.core.casing import word_key

_CN_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6,
              "七": 7, "八": 8, "九": 9}
_MONTH_NAMES = {"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6,
                "july": 7, "august": 8, "september": 9, "october": 10, "november": 11,
                "december": 12, "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7,
                "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12}


def cn_int(text: str) -> int | None:
    """一 … 九十九 (and plain digits) as an int; None for anything else."""
    if text.isdigit():
        return int(text)
    if not text or any(c not in _CN_DIGITS and c != "十" for c in text):
        return None
    if "十" not in text:
        return _CN_DIGITS[text] if len(text) == 1 else None
    tens, _, ones = text.partition("十")
    t = _CN_DIGITS.get(tens, 0) if tens else 1
    o = _CN_DIGITS.get(ones, 0) if ones else 0
    if (tens and tens not in _CN_DIGITS) or (ones and ones not in _CN_DIGITS):
        return None
    return t * 10 + o


_CN_NUM = "[0-9一二两三四五六七八九十]{1,3}"
_MONTH_ZH = re.compile(rf"(?:(?P<y>(?:19|20)\d{{2}})\s*年\s*)?(?P<m>{_CN_NUM})\s*月(?!份?[均平])")
_MONTH_ISO = re.compile(r"(?<!\d)(?P<y>(?:19|20)\d{2})[-/.](?P<m>0?[1-9]|1[0-2])(?![\d])")
_MONTH_EN = re.compile(r"(?<![a-z])(?P<m>" + "|".join(sorted(_MONTH_NAMES, key=len, reverse=True))
                       + r")\.?(?![a-z])(?:\s*'?(?P<y>(?:19|20)?\d{2}))?", re.IGNORECASE)
_QUARTER = re.compile(r"(?:(?P<y>(?:19|20)\d{2})\s*年?\s*)?(?:第?(?P<q>[1-4一二三四])\s*季度|"
                      r"Q(?P<q2>[1-4])(?![0-9]))", re.IGNORECASE)
_YEAR = re.compile(r"(?:FY\s?)?(?P<y>(?:19|20)\d{2})\s*(?:年度|财年|年|fiscal year|FY)?",
                   re.IGNORECASE)


def month_key(text: str) -> str | None:
    """The month a label names ("1月", "2024年1月", "一月", "January", "2024-01") as "M1"."""
    for rx in (_MONTH_ZH, _MONTH_ISO):
        m = rx.search(text)
        if m:
            n = cn_int(m.group("m"))
            if n is not None and 1 <= n <= 12:
                return f"M{n}"
    m = _MONTH_EN.search(text)
    if m:
        word = word_key(m.group("m"))
        if word == "may" and not re.fullmatch(r"\s*may\s*[:：]?\s*", text, re.IGNORECASE) \
                and m.group("y") is None and not re.search(r"may\s*[:：|]", text, re.I):
            return None  # the verb "may"
        return f"M{_MONTH_NAMES[word]}"
    return None


def quarter_key(text: str) -> str | None:
    m = _QUARTER.search(text)
    if not m:
        return None
    q = m.group("q") or m.group("q2")
    n = cn_int(q) if q else None
    return f"Q{n}" if n else None


def year_key(text: str) -> str | None:
    m = _YEAR.search(text)
    return f"Y{m.group('y')}" if m else None


def last_key(text: str, kind: str) -> str | None:
    """The key named last in `text` ("，11月" → M11, never the "1月" inside it)."""
    if kind == "name":
        return None
    if kind == "month":
        rxs = [_MONTH_ZH, _MONTH_ISO, _MONTH_EN]
        fn = month_key
    elif kind == "quarter":
        rxs, fn = [_QUARTER], quarter_key
    else:
        rxs, fn = [_YEAR], year_key
    best: tuple[int, str] | None = None
    for rx in rxs:
        for m in rx.finditer(text):
            k = fn(m.group(0))
            if k and (best is None or m.start() > best[0]):
                best = (m.start(), k)
    return best[1] if best else None


def label_key(label: str, kind: str) -> str | None:
    """The key of `label` under the list's kind (month / quarter / year)."""
    if kind == "month":
        return month_key(label)
    if kind == "quarter":
        return quarter_key(label)
    if kind == "year":
        return year_key(label)
    return name_key(label) or None


def key_kind(labels: list[str]) -> str | None:
    """What keys a list of labels: month, quarter or year when every label names a distinct
    one; None when they do not form such a list."""
    for kind, fn in (("month", month_key), ("quarter", quarter_key), ("year", year_key)):
        keys = [fn(lab) for lab in labels]
        if all(keys) and len(set(keys)) == len(keys):
            if kind == "year" and any(month_key(lab) or quarter_key(lab) for lab in labels):
                continue
            return kind
    return None


_SUFFIXES = ("股份有限公司", "有限责任公司", "有限公司", "集团", "公司", "特别行政区", "自治区",
             "直辖市", "省", "市", "指数", "inc.", "inc", "corporation", "corp.", "corp", "ltd.",
             "ltd", "limited", "incorporated", "company", "co.", "co", "plc", "group", "holdings",
             "index", "the ")
_STRIPPED = tuple(s.strip() for s in _SUFFIXES)
_PUNCT = re.compile(r"[\s\"'“”‘’「」『』《》()（）\[\]【】*_`.,，、:：;；!！?？·]+")
_THE = re.compile(r"^(?:the)\s+")


def name_key(text: str) -> str:
    """A name as compared: case-folded, no blanks or punctuation, common suffixes dropped.
    Memoised for a name-sized text: the T2/T3 reader asks for the same few hundred names' keys
    many times an answer (the aliases, the provinces and cities); a longer text (a segment of
    an answer) is not kept."""
    return _name_key_kept(text) if len(text) <= _KEPT_UP_TO else _name_key(text)


_KEPT_UP_TO = 120


@lru_cache(maxsize=8192)
def _name_key_kept(text: str) -> str:
    return _name_key(text)


def _name_key(text: str) -> str:
    t = text.strip().lower()
    t = _THE.sub("", t)
    changed = True
    while changed and t:
        changed = False
        for st in _STRIPPED:
            if t.endswith(st) and len(t) > len(st) + 1:
                t = t[: -len(st)].rstrip(" ,.")
                changed = True
    return _PUNCT.sub("", t)


# A few names the answer may write another way. Kept short on purpose: an unknown spelling
# makes the reader abstain, it never turns a right answer wrong (see `entity` in binding).
ALIASES: list[tuple[str, ...]] = [
    ("科创50", "科创板50", "上证科创板50", "上证科创板50成份", "star50", "star 50", "sse star 50"),
    ("沪深300", "csi300", "csi 300"), ("中证500", "csi500", "csi 500"),
    ("中证1000", "csi1000", "csi 1000"), ("上证50", "sse50", "sse 50"),
    ("上证指数", "上证综指", "上证综合指数", "sse composite"),
    ("创业板指", "创业板指数", "chinext"), ("恒生指数", "恒指", "hang seng index", "hsi"),
    ("标普500", "s&p500", "s&p 500", "sp500"), ("纳斯达克", "nasdaq"),
    ("特斯拉", "tesla", "tsla"), ("英伟达", "nvidia", "nvda"), ("苹果", "apple", "aapl"),
    ("微软", "microsoft", "msft"), ("亚马逊", "amazon", "amzn"), ("谷歌", "google", "alphabet",
                                                              "googl"),
    ("meta", "facebook", "meta platforms"), ("贵州茅台", "茅台", "kweichow moutai", "moutai"),
    ("腾讯", "腾讯控股", "tencent"), ("阿里巴巴", "alibaba"), ("比亚迪", "byd"),
    ("宁德时代", "catl"), ("上海", "shanghai"), ("北京", "beijing"), ("深圳", "shenzhen"),
    ("广州", "guangzhou"), ("杭州", "hangzhou"), ("香港", "hong kong"), ("东京", "tokyo"),
    ("纽约", "new york"), ("伦敦", "london"), ("美国", "united states", "usa", "us", "u.s."),
    ("中国", "china"), ("日本", "japan"), ("英国", "united kingdom", "uk"),
    # the short forms banks, carriers and large companies go by
    ("工商银行", "中国工商银行", "工行", "icbc"), ("建设银行", "中国建设银行", "建行", "ccb"),
    ("农业银行", "中国农业银行", "农行", "abc", "agricultural bank of china"),
    ("中国银行", "中行", "boc", "bank of china"), ("招商银行", "招行", "cmb", "china merchants bank"),
    ("交通银行", "交行", "bocom", "bank of communications"),
    ("邮储银行", "中国邮政储蓄银行", "邮储", "psbc", "postal savings bank of china"),
    ("中国联通", "联通", "china unicom"), ("中国移动", "china mobile"),
    ("中国电信", "china telecom"), ("jpmorgan chase", "jpmorgan", "jpm", "摩根大通", "小摩"),
    ("taiwan semiconductor manufacturing company", "tsmc", "tsm", "台积电"),
    ("berkshire hathaway", "berkshire", "伯克希尔", "伯克希尔哈撒韦"),
]
_ALIAS_INDEX: dict[str, tuple[str, ...]] = {}
for _group in ALIASES:
    _keys = tuple(name_key(a) for a in _group)
    for _k in _keys:
        _ALIAS_INDEX[_k] = _keys


_ALIAS_GROUP: dict[str, tuple[str, ...]] = {name_key(a): g for g in ALIASES for a in g}


def aliases(name: str) -> tuple[str, ...]:
    """The name as written and its known aliases as written ("中国联通", "联通", "china unicom")."""
    return (name, *_ALIAS_GROUP.get(name_key(name), ()))


def spellings(name: str) -> tuple[str, ...]:
    """The name's normal form and the normal forms of its known aliases."""
    key = name_key(name)
    return _ALIAS_INDEX.get(key, (key,))


# Chinese provinces and province-level cities, for lists that must name no other province.
PROVINCES = ("北京", "天津", "上海", "重庆", "河北", "山西", "辽宁", "吉林", "黑龙江", "江苏", "浙江",
             "安徽", "福建", "江西", "山东", "河南", "湖北", "湖南", "广东", "海南", "四川", "贵州",
             "云南", "陕西", "甘肃", "青海", "台湾", "内蒙古", "广西", "西藏", "宁夏", "新疆", "香港",
             "澳门")
