"""The T2/T3 reader of `finance-rubric`: 1, 0 or abstain, as the items' judge prompts say.

Order (from the T2/T3 judge prompts): an empty answer → 0; every key point of the reference
must be stated right in the answer's final answer → 1; one key point missing or wrong → 0;
anything the reader cannot bind with confidence → abstain, with the candidate readings in the
evidence, never a guess (`finance-hybrid` and the item's own judge take those).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from assay.core.types import Answer, Item, Score, ScoreStatus
from assay.evaluators.canonical import canonical, too_long

from . import binding as B
from . import names as N
from . import wording as W
from .kind import is_historical, version
from .quantities import normalise, read_mentions
from .reference import Reference, ReferenceError, parse_reference, question_decimals
from .rounding import BENCHMARK, rounding_reading
from .tolerance import FAIL, PASS, UNSURE

__all__ = ["NAME", "HistoricalRubric", "is_historical", "version"]

NAME = "finance-rubric"
_CJK = re.compile(r"[\u4e00-\u9fff]")
@lru_cache(maxsize=1024)
def _reference(reference: str, question: str) -> Reference:
    """`parse_reference`, once an item: its answers (every model's, both roundings) share the
    reading, which is immutable (frozen key points and note; `keys` is only read). A reference
    that raises is read again each time, as before."""
    return parse_reference(reference, question)


def _lang(item: Item) -> str:
    sample = f"{item.get('prompt') or ''}{item.get('response_reference') or ''}"
    return "zh" if _CJK.search(sample) else "en"


class HistoricalRubric:
    """Pure and stateless: one instance serves every item."""

    name = NAME
    requires: tuple[str, ...] = ("prompt", "response_reference")

    def __init__(self, rounding: str = BENCHMARK) -> None:
        self.rounding = rounding_reading(rounding)

    @property
    def version(self) -> str:
        return version()

    def evaluate(self, item: Item, answer: Answer) -> Score:
        return self.check(item, answer)

    def check(self, item: Item, answer: Answer) -> Score:
        zh = _lang(item) == "zh"
        question = str(item.get("prompt") or "")
        raw = (answer.text or "").strip()
        if not raw:
            return self._score(0, "回复为空，按规则得0分。" if zh else
                               "The answer is empty: score 0.", {"rule": "empty answer"})
        if (long := too_long(raw, zh)):
            return Score.error(long, NAME, version())
        read_as = canonical(raw)
        text = normalise(read_as.text)
        if not text:
            return self._score(0, "回复只有推理过程，没有给出答案，得0分。" if zh else
                               "The answer holds only reasoning, no answer after it: score 0.",
                               {"rule": "empty answer", "read": read_as.evidence()})
        try:
            ref = _reference(str(item.get("response_reference") or ""), question)
        except ReferenceError as exc:
            return Score.abstain(f"参考答案无法可靠解析：{exc}" if zh else
                                 f"The reference cannot be read with confidence: {exc}",
                                 NAME, version(), candidates=[],
                                 evidence={"reference": str(item.get("response_reference"))})
        mentions = read_mentions(text)
        ctx = B.make_context(text, question, ref, mentions, question_decimals(question),
                             self.rounding, read_as.tool_end)
        numbers = [p for p in ref.points if p.kind in ("number", "range")]
        names = [p for p in ref.points if p.kind == "name"]
        results = B.by_value_only([B.bind_number(p, ctx, numbers) for p in numbers])
        if names:
            results = N.named_for_another(ctx, results, names,
                                          str(item.get("response_reference") or ""))
        passed_spans = [(r.mention.start, r.mention.end) for res in results
                        if res.outcome == PASS for r in res.used]
        results += [N.bind_name(p, ctx, passed_spans, list(ref.points)) for p in names]
        order = {p.id: i for i, p in enumerate(ref.points)}
        results.sort(key=lambda r: order[r.point.id])
        evidence: dict[str, Any] = {**ref.as_dict(), "points": [r.as_dict() for r in results]}
        if ref.note.kind == "rounding":
            evidence["rounding"] = self.rounding
        if read_as.rewrites or read_as.corrections:
            evidence["read"] = read_as.evidence()
        if ctx.question_decimals is not None:
            evidence["question_decimals"] = ctx.question_decimals
        failed = [r for r in results if r.outcome == FAIL]
        if failed:
            return self._score(0, self._reason(failed, zh, False), evidence)
        if ref.note.exclusive and names:
            extra = N.extra_names(ctx, names)
            if extra:
                evidence["extra_names"] = extra
                return self._score(0, ("回复列出了标准答案之外的：" + "、".join(extra) + "，得0分。")
                                   if zh else "The answer names more than the reference: "
                                   + ", ".join(extra) + ": score 0.", evidence)
            if extra is None:
                unsure = UNSURE
                return Score.abstain(
                    "评分要点不允许多列，但无法判断回复是否多列了其他项。" if zh else
                    "The note forbids other names; the reader cannot tell whether the answer "
                    "lists others.", NAME, version(),
                    candidates=[r.as_dict() for r in results], evidence={**evidence,
                                                                          "outcome": unsure})
        open_points = [r for r in results if r.outcome == UNSURE]
        if open_points or ref.unread:
            cands = [r.as_dict() for r in open_points]
            parts = [W.point_reason(r, zh) for r in open_points]
            parts += [(f"参考答案中的「{u}」无法按规则核对" if zh else
                       f"«{u}» in the reference cannot be checked by rule") for u in ref.unread]
            return Score.abstain(("无法确定：" + "；".join(parts)) if zh else
                                 ("Cannot decide: " + "; ".join(parts)), NAME, version(),
                                 candidates=cands, evidence=evidence)
        return self._score(1, self._reason(results, zh, True), evidence)

    def _reason(self, rs: list[B.PointResult], zh: bool, ok: bool) -> str:
        parts = [W.point_reason(r, zh) for r in rs]
        if zh:
            return ("所有要点正确：" if ok else "要点错误或缺失：") + "；".join(parts) + \
                ("，得1分。" if ok else "，得0分。")
        return ("Every key point is right: " if ok else "A key point is wrong or missing: ") \
            + "; ".join(parts) + (": score 1." if ok else ": score 0.")

    def _score(self, value: int, reason: str, evidence: dict[str, Any]) -> Score:
        return Score(float(value), ScoreStatus.SCORED, reason, NAME, version(), (0.0, 1.0),
                     evidence)
