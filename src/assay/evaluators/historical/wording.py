"""Reasons in the item's language. The evidence keeps the English wording of each step; a
Chinese item's reason says the same in Chinese."""

from __future__ import annotations

import re

from .binding import PointResult
from .tolerance import FAIL, PASS

_ZH: dict[str, str] = {
    "the answer states no value for this key point": "回复没有给出该要点的数值",
    "the final statement": "以最终答案为准",
    "every value stated in the final statement decides alike": "最终答案中的各个数值结论一致",
    "the value in the reference's currency": "以标准答案币种的数值为准，另一币种为换算",
    "the value written in the reference's kind of unit": "以与标准答案同类单位的数值为准",
    "the precise value, with its rounded restatement set aside": "以精确数值为准，约数为其复述",
    "the values for the period the question asks about": "以题目所问期间的数值为准",
    "the total, with its parts set aside": "以合计数为准，分项为推理过程",
    "the conclusion sentence": "以结论句为准",
    "the figure itself, with forecasts set aside": "以实际数值为准，预测值不计",
    "the value said in the question's own words": "以与题目表述一致的数值为准",
    "the answer states values for this point that decide differently, and none is clearly "
    "the final one": "回复给出的多个数值结论不一，无法确定哪个是最终答案",
    "the value is given as a guess (可能 / cannot confirm / maybe)": "该数值只是猜测（可能/无法确认）",
    "part of the name appears, the name itself does not": "回复只出现了名称的一部分",
    "the answer never names it": "回复没有给出该名称",
    "named in the conclusion, but hedged": "结论中提到，但语气不确定",
    "named in the final statement": "最终答案中给出",
    "named in the reasoning, not in the conclusion": "只在推理中提到，结论中没有",
    "named only as a comparison or a negation": "只作为比较或否定对象出现",
    "named in a hedged sentence": "出现在不确定的表述中",
    "named in a short answer with no separate reasoning": "简短回复中直接给出",
    "named in the sentence that states the right value": "与正确数值在同一句中给出",
    "named, but the answer has no marked conclusion": "提到了，但回复没有明确结论",
}
_ZH_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"the answer gives «(.+)» beside it as a second answer"),
     r"回复同时给出了「\1」，答案不唯一"),
    (re.compile(r"the conclusion names «?(.+?)»?, not (.+)"), r"结论给出的是「\1」，不是「\2」"),
    (re.compile(r"the answer states no value for this key point \(under (.+)\)"),
     r"回复没有给出\1的数值"),
    (re.compile(r"values are given, but none under a (.+) the reader recognises"),
     r"回复给出了数值，但无法识别其对应的项目"),
]


def why_zh(why: str) -> str:
    if why in _ZH:
        return _ZH[why]
    if why.startswith("the rule cannot settle it: "):
        return "按规则无法判定：" + why.removeprefix("the rule cannot settle it: ")
    for rx, repl in _ZH_PATTERNS:
        if rx.fullmatch(why):
            return rx.sub(repl, why)
    return why


def point_reason(r: PointResult, zh: bool) -> str:
    """One key point's outcome in a sentence: what the answer's final answer is, and why."""
    vals = "、".join(x.mention.text for x in r.used) if zh else ", ".join(
        x.mention.text for x in r.used)
    why = why_zh(r.why) if zh else r.why
    if not vals:
        return f"{r.point.text}：{why}" if zh else f"{r.point.text}: {why}"
    if zh:
        verdict = {PASS: "符合", FAIL: "不符合"}.get(r.outcome, "无法判断是否符合")
        return f"{r.point.text}：回复「{vals}」{verdict}（{why}）"
    verdict = {PASS: "meets it", FAIL: "does not meet it"}.get(r.outcome, "may or may not "
                                                                         "meet it")
    return f"{r.point.text}: the answer's «{vals}» {verdict} ({why})"
