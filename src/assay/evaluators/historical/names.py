"""Name key points ("上海", "Tesla", "美的集团", a list of provinces): is the name the answer's
final answer?

- never named anywhere (nor any known spelling of it) → wrong; part of it named ("茅台" for
  "贵州茅台") → unsure;
- named in the conclusion (the first final block) → right, unless the conclusion gives it as
  one of two answers ("上海和广州", "Apple or NVIDIA") — then wrong, the rules want one answer —
  or hedges it ("可能是", "maybe") — then unsure;
- not named in the conclusion, which names something else ("结论：地平线机器人", "答案是北京") →
  wrong; a conclusion that names nothing (numbers only) → unsure;
- no marked conclusion: a short answer naming it → right; a longer one → right only when the
  name shares its sentence with a right value of the item, else unsure.

A list whose note forbids others ("不能出现其他公司") is wrong with any further name in the
answer's enumeration; when the enumeration cannot be told, unsure.
"""

from __future__ import annotations

import re
from functools import lru_cache

from . import final as FN
from .binding import Context, PointResult
from .keys import ALIASES, PROVINCES, name_key, spellings
from .reference import KeyPoint, name_like
from .tolerance import FAIL, PASS, UNSURE

_NEGATED = re.compile(r"(?:不是|而非|并非|而不是|非|高于|超过|低于|不如|胜过|多于|少于|比|"
                      r"(?<![a-z])(?:not|than|rather\s+than|instead\s+of|unlike|over|"
                      r"ahead\s+of|behind))\s*$", re.IGNORECASE)
_HEDGE = re.compile(r"或者|或是|还是|也可能|可能是|也许|不确定|无法确定|难以确定|"
                    r"(?<![a-z])(?:maybe|possibly|perhaps|might\s+be|uncertain|either)"
                    r"(?![a-z])", re.IGNORECASE)
_COMPARE = re.compile(r"相比|比较|对比|相较|高于|低于|超过|不如|(?<![a-z])(?:than|versus|vs\.?|"
                      r"compared|ahead\s+of|behind)(?![a-z])", re.IGNORECASE)
_SEP = r"(?:或者|或是|或|还是|以及|和|与|及|、|/|\s+or\s+|\s+and\s+|,\s*or\s+)"
_OTHER_ZH = re.compile(r"[\u4e00-\u9fff][\u4e00-\u9fffA-Za-z0-9]{1,11}")
_OTHER_EN = re.compile(r"(?:the\s+)?([A-Z][\w&.\-]*(?:\s+(?:[A-Z0-9][\w&.\-]*|&))*)")
_FUNCTION = "的是为都在和或与及等均也"
CITIES = ("北京", "上海", "天津", "重庆", "广州", "深圳", "杭州", "南京", "苏州", "成都", "武汉", "西安",
          "长沙", "郑州", "济南", "青岛", "沈阳", "大连", "哈尔滨", "长春", "石家庄", "太原", "合肥",
          "福州", "厦门", "南昌", "昆明", "贵阳", "南宁", "海口", "兰州", "西宁", "银川", "乌鲁木齐",
          "拉萨", "呼和浩特", "宁波", "无锡", "佛山", "东莞", "泉州", "唐山", "烟台", "温州")
_SIBLING_GROUPS: tuple[tuple[str, ...], ...] = (
    tuple(sorted(set(PROVINCES) | set(CITIES), key=len, reverse=True)),
    tuple(sorted({a for g in ALIASES for a in g if len(a) > 2}, key=len, reverse=True)),
)
# words many names share: "中国银行" is not partly "招商银行"
_GENERIC = ("股份有限公司", "有限公司", "银行", "集团", "公司", "控股", "股份", "证券", "基金", "科技",
            "中国", "国际", "指数", "电力", "能源", "汽车", "保险", "地产", "省", "市")
_CONCLUSION_FILLER = re.compile(
    r"[*#_`>\s:：,，.。!！;；()（）\"'“”]|最终答案|最终结果|答案(?:是|为)?|结论|综上所述|综上|总结|因此|所以|"
    r"应该是|应为|就是|是|为|(?<![a-z])(?:final\s+answer|the\s+answer\s+is|answer|in\s+summary|"
    r"therefore|so|thus|the|it\s+is|is|was)(?![a-z])", re.IGNORECASE)


_CORPORATE = re.compile(r"(?:[\s,]+(?:company|co\.?|inc\.?|incorporated|corporation|corp\.?|"
                        r"limited|ltd\.?|plc|group|holdings))+\s*$", re.IGNORECASE)


# each alias group's names' keys, and the group lower-cased, read once
_GROUP_KEYS: tuple[tuple[frozenset[str], tuple[str, ...]], ...] = tuple(
    (frozenset(name_key(a) for a in group), tuple(a.lower() for a in group)) for group in ALIASES)
_BRACKETED = re.compile(r"\s*(.+?)\s*[(（]\s*(.+?)\s*[)）]\s*")
_CJK = re.compile(r"[\u4e00-\u9fff]")


@lru_cache(maxsize=2048)
def _variants(name: str) -> tuple[str, ...]:
    """The spellings of a name the answer may use: as written, without its bracketed alias,
    the alias alone ("Taiwan Semiconductor Manufacturing Company (TSMC)"), known aliases.
    Memoised: a name's variants depend on the name alone."""
    forms = {name.strip()}
    m = _BRACKETED.fullmatch(name)
    if m:
        forms.update({m.group(1), m.group(2)})
    for f in list(forms):  # "… Manufacturing Company" is "… Manufacturing Co." too
        short = _CORPORATE.sub("", f).strip()
        if short and short != f and len(short.split()) >= 2:
            forms.add(short)
    out: set[str] = set()
    for f in forms:
        out.add(f.lower())
        out.update(spellings(f))
        key = name_key(f)
        for keys, lowered in _GROUP_KEYS:
            if key in keys:
                out.update(lowered)
    return tuple(sorted((v for v in out if v), key=len, reverse=True))


@lru_cache(maxsize=2048)
def _name_patterns(name: str) -> tuple[re.Pattern[str], ...]:
    """The searches for `name`'s variants, compiled once a name."""
    pats = []
    for v in _variants(name):
        if _CJK.search(v):
            pat = re.escape(v)
        else:
            # words apart by blanks, or by a middle initial ("Warren E. Buffett")
            pat = r"(?<![a-z0-9])" + r"\s*(?:[a-z]\.\s*)?".join(
                re.escape(w) for w in v.split()) + r"(?![a-z0-9])"
        pats.append(re.compile(pat))
    return tuple(pats)


def find_name(text: str, name: str) -> list[tuple[int, int]]:
    """Where the answer names `name` (or a known spelling of it)."""
    low = text.lower()
    spans: list[tuple[int, int]] = []
    for rx in _name_patterns(name):
        spans.extend((m.start(), m.end()) for m in rx.finditer(low))
    spans.sort()
    return spans


def _names_it(text: str, name: str) -> bool:
    return bool(find_name(text, name))


def _partly_named(text: str, name: str) -> bool:
    key = name_key(name)
    for g in _GENERIC:
        key = key.replace(g, "")
    if re.search(r"[\u4e00-\u9fff]", key):
        return len(key) >= 2 and any(key[i:i + 2] in text for i in range(len(key) - 1))
    low = text.lower()
    return any(len(w) >= 4 and w in low for w in re.findall(r"[a-z]+", key))


_SIBLING_KEYS: tuple[tuple[tuple[str, str], ...], ...] = tuple(
    tuple((g, name_key(g)) for g in group) for group in _SIBLING_GROUPS)


@lru_cache(maxsize=1024)
def _siblings(name: str) -> tuple[str, ...]:
    k = name_key(name)
    for group in _SIBLING_KEYS:
        if any(gk == k for _, gk in group):
            return tuple(g for g, gk in group if gk != k)
    return ()


def _other_name(fragment: str, name: str, before: bool) -> str | None:
    """A name-like word in `fragment` (the words joined to the name by 和/或/and/or) that is
    not a spelling of `name`."""
    if before:
        m = re.search(rf"([\u4e00-\u9fff]{{2,12}}|[A-Z][\w&.\-]*(?:\s+[A-Z0-9][\w&.\-]*)*)"
                      rf"\s*{_SEP}\s*$", fragment)
        other = m.group(1) if m else None
    else:
        m = re.match(rf"\s*{_SEP}\s*", fragment)
        if not m:
            return None
        rest = fragment[m.end():]
        mz = _OTHER_ZH.match(rest)
        if mz:
            other = mz.group(0)
            cut = next((i for i, c in enumerate(other) if i >= 2 and c in _FUNCTION), None)
            other = other[:cut] if cut else other
        else:
            me = _OTHER_EN.match(rest)
            other = me.group(1) if me else None
    if not other or other[0] in _FUNCTION:
        return None
    if name_key(other) in spellings(name) or name_key(name) in name_key(other):
        return None
    return other


def _alternative(text: str, span: tuple[int, int], name: str) -> str | None:
    """The other answer given beside the name ("上海和广州", "Apple or NVIDIA"), if any."""
    sentence_start = FN.sentence_start(text, span[0])
    sentence = FN.sentence_of(text, span[0])
    if _COMPARE.search(sentence):
        return None
    before = text[max(sentence_start, span[0] - 16):span[0]]
    after = text[span[1]:span[1] + 24]
    return _other_name(after, name, False) or _other_name(before, name, True)


def _conclusion_names(text: str, block: FN.Block) -> str | None:
    """What a short conclusion names ("结论：地平线机器人", "答案是北京"), when it is a name."""
    head = text[block.head[0]:block.head[1]]
    rest = _CONCLUSION_FILLER.sub(" ", head).strip()
    rest = re.sub(r"\s+", " ", rest)
    if rest and not re.search(r"\d", rest) and name_like(rest) and len(rest) <= 30:
        return rest
    # "**Highest: FTSE 100**", "最高：沪深300": a superlative label, then a name that carries
    # a number (an index)
    rest = _SUPERLATIVE.sub("", rest).strip()
    if _NAME_WITH_NUMBER.fullmatch(rest):
        return rest
    return None


_SUPERLATIVE = re.compile(r"^(?:(?:the\s+)?(?:highest|largest|biggest|top|best|lowest|smallest|"
                          r"worst|winner)|最高|最大|最多|最低|最小|最少|第一名?)\s*", re.IGNORECASE)
_NAME_WITH_NUMBER = re.compile(r"(?:[A-Za-z&][\w&.\-]*\s)*[A-Za-z&][\w&.\-]*\s?\d{2,4}|"
                               r"[\u4e00-\u9fff]{2,6}\d{2,4}")


# greetings, closings and headings: sentences that state nothing
_COURTESY = re.compile(r"(?:好的|当然|没问题|以下是.{0,20}|如需.{0,30}|希望.{0,30}|有其他问题.{0,20}|"
                       r"sure|certainly|"
                       r"of course|here (?:is|are).{0,40}|let me know.{0,40}|hope this helps.{0,20}|"
                       r"#{1,6}\s.{0,60})[。.!！:：]?", re.IGNORECASE)


_BOLD = re.compile(r"\*\*([^*\n]{1,60})\*\*")
# "最低的是邮储银行", "增速最高的为中国联通", "最低的银行是招商银行", "the largest was JPMorgan Chase":
# the one the answer picks, by the superlative the question asks for
_SUPERLATIVE_ZH = re.compile(r"(最[\u4e00-\u9fff])[\u4e00-\u9fff]{0,5}?的(?:[\u4e00-\u9fff]{1,4})?"
                             r"(?:是|为)\s*([\u4e00-\u9fff]{2,12}\d{0,4})")
_SUPERLATIVE_EN = re.compile(r"\b(?:the\s+)?(highest|largest|lowest|biggest|smallest|top|greatest|"
                             r"fastest|best|worst)\b[^.。\n,;]{0,40}?\b(?:is|was)\s+"
                             r"([A-Z][\w&.\-]*(?:\s+(?:of|and|&|[A-Z0-9][\w&.\-]*)){0,5})")


def _superlative_names(text: str, question: str) -> list[str]:
    """The names the answer's superlative statements pick — only superlatives the question
    itself uses ("最低" for 不良贷款率最低的是哪家; "largest") — when they all pick one."""
    found: list[str] = []
    low_q = question.lower()
    for m in _SUPERLATIVE_ZH.finditer(text):
        if m.group(1) not in question:
            continue  # "规模最大的是工商银行" beside a question about the lowest NPL ratio
        name = m.group(2)
        cut = next((i for i, c in enumerate(name) if i >= 2 and c in _FUNCTION + "其而"), None)
        found.append(name[:cut] if cut else name)
    found += [re.sub(r"\s+(?:of|and|&)$", "", m.group(2))
              for m in _SUPERLATIVE_EN.finditer(text) if m.group(1).lower() in low_q]
    found = [f for f in found if name_like(f)]
    if not found or len({name_key(f) for f in found}) > 1:
        return []
    return found


# what a correction says the answer is: "不对，…应该是农业银行", "actually, Greg Abel had …"
_CORRECTED_TO = re.compile(r"(?:应该是|应为|应是|实为|实际上是|should be|is actually|actually,?\s+(?=[A-Z]))"
                           r"\s*([\u4e00-\u9fff]{2,12}|[A-Z][\w&.\-]*(?:\s+[A-Z][\w&.\-]*){0,4})|"
                           r"(?:的是|就是|(?<![不非])是)\s*([\u4e00-\u9fff]{2,12})")


def bind_name(p: KeyPoint, ctx: Context, passed_spans: list[tuple[int, int]],
              all_points: list[KeyPoint]) -> PointResult:
    text = ctx.text
    spans = find_name(text, p.name)
    only_name = len(all_points) == 1  # a "which one" question: one answer is wanted
    if not spans:
        if _partly_named(text, p.name):
            return PointResult(p, UNSURE, "part of the name appears, the name itself does not")
        return PointResult(p, FAIL, "the answer never names it")
    stated = [s for s in spans if not _NEGATED.search(text[max(0, s[0] - 8):s[0]])]
    emphasised = [b for b in _BOLD.findall(text) if name_like(b.strip()) and
                  not re.search(r"\d", b)]
    if only_name and emphasised and not any(_names_it(b, p.name) for b in emphasised):
        # "the CEO was **Greg Abel**, with Warren Buffett remaining chairman": the answer
        # marks another name as its answer
        return PointResult(p, UNSURE, f"named, but the answer emphasises «{emphasised[0].strip()}»")

    one_name = sum(1 for x in all_points if x.kind == "name") == 1
    floor = min((b.start for b in ctx.blocks), default=0)  # after a self-correction
    if one_name and (chosen := _superlative_names(text[floor:], ctx.question)) and not any(
            _names_it(c, p.name) for c in chosen):
        # "不良率最低的是邮储银行（0.90%），其次是招商银行": the answer's choice is another name
        return PointResult(p, FAIL, f"the answer's superlative names «{chosen[0]}», not {p.name}")

    def second_answer(where: list[tuple[int, int]]) -> PointResult | None:
        """"上海和广州", "Apple or NVIDIA": two answers where one is wanted is wrong."""
        for s in where if only_name else []:
            other = _alternative(text, s, p.name)
            if other:
                return PointResult(p, FAIL, f"the answer gives «{other}» beside it as a "
                                   "second answer")
        return None

    marker_blocks = [b for b in ctx.blocks if b.why != "whole answer"]
    if marker_blocks:
        b = marker_blocks[0]
        if b.why == "the self-correction":
            # "不对，招行不在市值前五，应该是农业银行": what the correction says the answer is
            # decides, whatever else its sentence names
            corrected = _CORRECTED_TO.search(text, b.start)
            other = (corrected.group(1) or corrected.group(2)) if corrected else ""
            if other and name_like(other) and not _names_it(other, p.name):
                return PointResult(p, FAIL, f"the self-correction names «{other}», not {p.name}",
                                   b.why)
        inside = [s for s in stated if b.start <= s[0] < b.end]
        if inside:
            if (two := second_answer(inside)) is not None:
                return two
            if any(_HEDGE.search(FN.sentence_of(text, s[0])) for s in inside):
                return PointResult(p, UNSURE, "named in the conclusion, but hedged", b.why)
            return PointResult(p, PASS, "named in the final statement", b.why)
        if b.why == "the self-correction":
            corrected = _CORRECTED_TO.search(text, b.start)
            other = (corrected.group(1) or corrected.group(2)) if corrected else ""
            if other and not _names_it(other, p.name):
                return PointResult(p, FAIL, f"the self-correction names «{other}», not {p.name}",
                                   b.why)
            if corrected is None and stated and all(s[0] < b.start for s in stated):
                # "JPMorgan Chase, … $3.88 trillion… correction, that was 2023. At Dec 31,
                # 2024: $4.00 trillion.": the correction restates a figure, not the name
                return PointResult(p, PASS, "named before a correction that names nothing else",
                                   b.why)
        named = _conclusion_names(text, b)
        if named and not _names_it(named, p.name):
            return PointResult(p, FAIL, f"the conclusion names «{named}», not {p.name}", b.why)
        head = text[b.head[0]:b.head[1]]
        others = [g for g in _siblings(p.name) if g in head
                  and not any(name_key(g) == name_key(n.name) for n in all_points
                              if n.kind == "name")]
        if others:
            return PointResult(p, FAIL, f"the conclusion names {others[0]}, not {p.name}", b.why)
        return PointResult(p, UNSURE, "named in the reasoning, not in the conclusion", b.why)
    if not stated:
        return PointResult(p, UNSURE, "named only as a comparison or a negation")
    if (two := second_answer(stated)) is not None:
        return two
    if any(_HEDGE.search(FN.sentence_of(text, s[0])) for s in stated):
        return PointResult(p, UNSURE, "named in a hedged sentence")
    sentences = [s for s in re.split(r"(?<=[。！？!?])|\n+|(?<=\.)\s+", text) if s.strip()
                 and not _COURTESY.fullmatch(s.strip())]
    if len(sentences) <= 3:
        return PointResult(p, PASS, "named in a short answer with no separate reasoning",
                           "whole answer")
    if any(FN.sentence_start(text, s[0]) == FN.sentence_start(text, ps[0])
           for s in stated for ps in passed_spans):
        return PointResult(p, PASS, "named in the sentence that states the right value",
                           "whole answer")
    return PointResult(p, UNSURE, "named, but the answer has no marked conclusion")


# ------------------------------------------------------------------- lists with no others
_ITEM_SPLIT = re.compile(r"[、，,;；\n]|(?:以及|和|及|与)|\s+and\s+")


_LIST_ITEM = re.compile(r"\s*(?:\d{1,2}\s*[.、)）]|[-*•])\s*\S")


def _enumeration(ctx: Context, names: list[KeyPoint] | None = None) -> list[str]:
    """The items of the answer's enumeration: a table's first column, else the conclusion's
    (or a short answer's) list items."""
    text = ctx.text
    tbls = FN.tables(text)
    if tbls:
        s, e = tbls[-1]
        rows = [r for r in text[s:e].splitlines() if r.strip()]
        body = [r for i, r in enumerate(rows)
                if not re.fullmatch(r"\s*\|[\s:|-]+\|?\s*", r)
                and not (i + 1 < len(rows) and re.fullmatch(r"\s*\|[\s:|-]+\|?\s*", rows[i + 1]))]
        return [r.strip().strip("|").split("|")[0].strip() for r in body]
    marker_blocks = [b for b in ctx.blocks if b.why != "whole answer"]
    region = text[marker_blocks[0].head[0]:marker_blocks[0].head[1]] if marker_blocks else text
    if names:
        # the enumeration is in the sentences that name the reference's names, not in a
        # greeting, a closing courtesy or the sentence of a correction ("让我重新核对")
        parts = re.split(r"(?<=[。！？!?])|\n+", region)
        named = [any(_names_it(x, n.name) or find_name(x, n.name) for n in names)
                 for x in parts]
        # a list that names some of them is the enumeration whole: its other items are
        # other names ("1. 中国神华 … 5. 中国银行"), never a greeting
        listed = any(k and _LIST_ITEM.match(x) for x, k in zip(parts, named, strict=True))
        sentences = [x for x, k in zip(parts, named, strict=True)
                     if k or (listed and _LIST_ITEM.match(x))]
        region = "\n".join(sentences) or region
    items = []
    for part in _ITEM_SPLIT.split(region):
        part = re.sub(r"[(（][^)）]*[)）]", "", part)  # （+52.1%）
        part = re.sub(r"^.*[:：]", "", part)  # "涨幅超过50%的有：农业银行"
        part = part.strip(" *-•#。.！!")
        if part:
            items.append(part)
    return items


def extra_names(ctx: Context, names: list[KeyPoint]) -> list[str] | None:
    """Names in the answer's final enumeration beyond the reference's, for notes that forbid
    others; None when the reader cannot tell the enumeration's items."""
    wanted = {name_key(n.name) for n in names}
    if all(k in {name_key(x) for x in PROVINCES} for k in wanted):
        marker_blocks = [b for b in ctx.blocks if b.why != "whole answer"]
        b = marker_blocks[0] if marker_blocks else ctx.blocks[-1]
        seg = ctx.text[b.start:b.end]
        return sorted({x for x in PROVINCES if x in seg and name_key(x) not in wanted})
    items = _enumeration(ctx, names)
    matched = [i for i in items if any(_names_it(i, n.name) for n in names)]
    if len(matched) < len(names) or len(matched) * 2 < len(items):
        return None  # not a clean enumeration of the reference's names
    extras = [i for i in items if i not in matched]
    if any(not name_like(i) or re.search(r"\d", i) for i in extras):
        return None  # something that is not a name: cannot tell
    return extras


def named_for_another(ctx: Context, numbers: list[PointResult], names: list[KeyPoint],
                      reference: str) -> list[PointResult]:
    """A right number said of the wrong name ("振幅最高的是中证500，振幅70.62%" where the reference
    line reads "年波动率最高：科创50 70.62%"): the clause that states the passing value names a
    sibling of that line's name (another index, another bank …) and not the name itself → the
    point fails. Names the reader does not know leave the point as it is."""
    lines = [ln for ln in re.split(r"[\n；;]", reference) if ln.strip()]
    for r in numbers:
        if r.outcome != PASS or not r.used:
            continue
        line = next((ln for ln in lines if r.point.text in ln), "")
        mine = [n for n in names if n.name and _names_it(line, n.name)]
        if len(mine) != 1:
            continue
        name = mine[0].name
        for used in r.used:
            start = used.mention.start
            lo = max(ctx.text.rfind(c, 0, start) for c in "。；;\n") + 1
            his = [ctx.text.find(c, start) for c in "。；;\n"]
            hi = min([h for h in his if h >= 0] or [len(ctx.text)])
            clause = ctx.text[lo:hi]
            other = next((g for g in _siblings(name) if _names_it(clause, g)), None)
            if other and not _names_it(clause, name):
                r.outcome = FAIL
                r.why = f"the value is said of {other}, not {name}"
                break
    return numbers
