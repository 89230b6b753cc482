"""`finance-rubric`: decides 1, 0 or null for a T1 item exactly as the judge's written rules say.

Order (from the judge prompt): empty answer → 0; ground truth without a number → null; a
required point missing → 0; otherwise every value given for a required point must meet the
precision rule. Values for fields that are not required never count against the answer.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

from assay.core.decimals import plain
from assay.core.types import Answer, Item, Score, ScoreStatus, TruthSnapshot
from assay.evaluators.base import CodeEvaluator

from . import fields as F
from .binding import Bound, bind, with_days
from .checks import MissingTruth, RuleNotApplicable, check, truth_for
from .criteria import Criteria, RubricError, parse_criteria
from .truth import Truth, TruthError, parse_truth

NAME = "finance-rubric"
_CJK = re.compile(r"[\u4e00-\u9fff]")


@cache
def version() -> str:
    """Hash of the rubric's own source: a stored score names the exact code that produced it,
    so `replay` can tell a code change from a non-reproducing result."""
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def _lang(item: Item) -> str:
    sample = f"{item.get('prompt') or ''}{item.get('response_reference') or ''}"
    return "zh" if _CJK.search(sample) else "en"


def _latest_only(values: list[Bound]) -> tuple[list[Bound], list[Bound]]:
    """Per field: when its values carry different dates, the ones for earlier days are history
    the answer adds, not its answer (the judge: earlier days' values are not penalised)."""
    keep: list[Bound] = []
    earlier: list[Bound] = []
    by_field: dict[str, list[Bound]] = {}
    for b in values:
        by_field.setdefault(b.field, []).append(b)
    latest = {f: max((b.day for b in bs if b.day), default=None) for f, bs in by_field.items()}

    def is_earlier(b: Bound) -> bool:
        last = latest[b.field]
        return b.earlier or bool(b.day and last and b.day < last)

    for bs in by_field.values():
        # history is set aside only beside a current value: alone, a dated value is the answer
        current = [b for b in bs if not is_earlier(b)]
        if current:
            keep.extend(current)
            earlier.extend(b for b in bs if is_earlier(b))
        else:
            keep.extend(bs)
    keep.sort(key=lambda b: b.mention.start)
    return keep, earlier


class FinanceRubric(CodeEvaluator):
    """The executable T1 rubric. Stateless: one instance serves every item of every run."""

    name = NAME
    requires: tuple[str, ...] = ("prompt", "response_reference", "ground_truth")
    uses_truth = True

    @property
    def version(self) -> str:
        return version()

    def check(self, item: Item, answer: Answer, truth: TruthSnapshot | None = None) -> Score:
        if truth is not None:
            item = item.with_field("ground_truth", truth.payload_text())
        return self.decide(item, answer)

    def prepare(self, item: Item, answer: Answer) -> Score | tuple[Criteria, Truth, str]:
        """The steps before reading values: a final Score (empty answer, no truth, bad rubric),
        or what reading and deciding need. `finance-hybrid` uses it to skip the model call
        when the rules already decide."""
        lang = _lang(item)
        zh = lang == "zh"
        text = (answer.text or "").strip()
        if not text:
            return self._score(0, "回复为空，按规则得0分。" if zh else
                               "The answer is empty: score 0.", {"rule": "empty answer"})
        try:
            truth = parse_truth(item.get("ground_truth"))
        except TruthError as exc:
            return self._error(f"{exc}")
        if not truth.values:
            msg = ("真实实时信息中没有数字，无法评分（null）。" if zh else
                   "The ground truth holds no number: not scored (null).")
            return self._null(msg, {"truth": truth.evidence()})
        try:
            criteria = parse_criteria(str(item.get("response_reference") or ""))
        except RubricError as exc:
            return self._error(str(exc), {"truth": truth.evidence()})
        return criteria, truth, lang

    def decide(self, item: Item, answer: Answer, values: list[Bound] | None = None) -> Score:
        """Decide from the values `bind` reads, or from `values` read by someone else."""
        prepared = self.prepare(item, answer)
        if isinstance(prepared, Score):
            return prepared
        criteria, truth, lang = prepared
        return self._decide((answer.text or "").strip(), criteria, truth, lang, values)

    def _decide(self, text: str, criteria: Criteria, truth: Truth, lang: str,
                given: list[Bound] | None = None) -> Score:
        zh = lang == "zh"
        evidence: dict[str, Any] = {
            "required": list(criteria.required),
            "rule": {"kind": criteria.rule.kind, "text": criteria.rule.text},
            "truth": truth.evidence(),
        }
        if criteria.rule.amount is not None:
            evidence["rule"]["amount"] = plain(criteria.rule.amount) + (
                "%" if criteria.rule.amount_is_percent else "")
        lacking = [f for f in criteria.required if truth_for(f, truth, criteria.session) is None]
        if lacking:
            names = "、".join(F.display(f, lang) for f in lacking) if zh else ", ".join(
                F.display(f, "en") for f in lacking)
            return self._null(
                f"真实实时信息中没有{names}的数字，无法评分（null）。" if zh else
                f"The ground truth has no value for {names}: not scored (null).", evidence)
        bound = given if given is not None else bind(text, criteria.required)
        if criteria.aliases:
            alias = dict(criteria.aliases)
            bound = [replace(b, field=alias.get(b.field, b.field)) for b in bound]
        values = [b for b in bound if b.field in criteria.required]
        earlier: list[Bound] = []
        if len({b.field for b in values}) < len(values):  # some field has several values
            values, earlier = _latest_only(with_days(text, values))
        evidence["ignored"] = [
            {"field": b.field, "text": b.mention.text, "span": [b.mention.start, b.mention.end]}
            for b in bound if b.field not in criteria.required] + [
            {"field": b.field, "text": b.mention.text, "span": [b.mention.start, b.mention.end],
             "why": "an earlier day than the answer's latest value"} for b in earlier]
        missing = [f for f in criteria.required if not any(b.field == f for b in values)]
        if missing:
            names = "、".join(F.display(f, lang) for f in missing) if zh else ", ".join(
                F.display(f, "en") for f in missing)
            evidence["values"] = []
            evidence["missing"] = missing
            return self._score(0, f"回复缺少必答点：{names}，得0分。" if zh else
                               f"The answer does not state the required {names}: score 0.",
                               evidence)
        rows: list[dict[str, Any]] = []
        parts_ok: list[str] = []
        parts_bad: list[str] = []
        for b in values:
            try:
                c = check(b.field, b.value, b.mention.quantum, criteria.rule, truth,
                          criteria.session)
            except RuleNotApplicable as exc:
                return self._error(str(exc), evidence)
            except MissingTruth as exc:  # pragma: no cover - guarded by `lacking` above
                return self._null(f"ground truth lacks {exc}", evidence)
            shown = plain(b.value) + ("%" if b.mention.percent else "")
            rows.append({
                "field": b.field, "text": b.mention.text,
                "span": [b.mention.start, b.mention.end], "value": plain(b.value),
                "via": b.via, "truth": plain(c.truth), "accepted": [plain(c.low), plain(c.high)],
                "compared": c.how, "pass": c.passed,
            })
            label = F.display(b.field, lang)
            interval = f"[{plain(c.low)}, {plain(c.high)}]"
            if c.passed:
                parts_ok.append(f"{label} {shown} 在 {interval} 内" if zh else
                                f"{label} {shown} within {interval}")
            else:
                parts_bad.append(f"{label} {shown} 不在 {interval} 内（真实值 {plain(c.truth)}）"
                                 if zh else f"{label} {shown} outside {interval} "
                                 f"(truth {plain(c.truth)})")
        evidence["values"] = rows
        rule_text = criteria.rule.text
        if parts_bad:
            reason = (f"按「{rule_text}」：" + "；".join(parts_bad) + "，得0分。" if zh else
                      f"Under «{rule_text}»: " + "; ".join(parts_bad) + ": score 0.")
            return self._score(0, reason, evidence)
        reason = (f"按「{rule_text}」：" + "；".join(parts_ok) + "，得1分。" if zh else
                  f"Under «{rule_text}»: " + "; ".join(parts_ok) + ": score 1.")
        return self._score(1, reason, evidence)

    def _score(self, value: int, reason: str, evidence: dict[str, Any]) -> Score:
        return Score(float(value), ScoreStatus.SCORED, reason, NAME, version(), (0.0, 1.0),
                     evidence)

    def _null(self, reason: str, evidence: dict[str, Any]) -> Score:
        return Score(None, ScoreStatus.NULL, reason, NAME, version(), (0.0, 1.0), evidence)

    def _error(self, reason: str, evidence: dict[str, Any] | None = None) -> Score:
        return Score(None, ScoreStatus.ERROR, reason, NAME, version(), (0.0, 1.0),
                     evidence or {})
