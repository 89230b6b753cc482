"""`finance-rubric`: decides 1, 0 or null for a T1 item exactly as the judge's written rules say,
and abstains where two readings of the answer would decide differently.

Order (from the judge prompt): empty answer → 0; ground truth without a number → null; a
required point missing → 0; otherwise every value given for a required point must meet the
precision rule. Values for other fields or other instruments never count against the answer.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

from assay.core.decimals import plain
from assay.core.types import Answer, Item, Score, ScoreStatus, TruthSnapshot
from assay.evaluators.base import CodeEvaluator
from assay.evaluators.canonical import MAX_CHARS, Canonical, canonical, too_long
from assay.truth.vocabulary import snapshot_of_item

from . import words as F
from .checks import Check, Checker, MissingTruth, RuleNotApplicable, truth_for
from .criteria import Criteria, RubricError, parse_criteria
from .instruments import Identity, identity
from .reader import MINE, Bound, Want, read, with_days
from .truth import Truth, view

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


@dataclass(frozen=True, slots=True)
class Prepared:
    """What reading and deciding need, once the rules have not already decided; built once
    per item (the criteria, the truth's values, the instrument's names)."""

    criteria: Criteria
    truth: Truth
    ident: Identity
    lang: str
    want: Want
    alias: dict[str, str]
    evidence: dict[str, Any]  # the part of every score's evidence that does not vary
    checker: Checker  # the precision rule against this truth, keeping its intervals
    required: frozenset[str]


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


def _superseded(values: list[Bound], correction: int) -> tuple[list[Bound], list[Bound]]:
    """Values stated before the answer's last self-correction, of a field the correction states
    again: the correction replaces them, whatever dates they carry."""
    restated = {b.field for b in values if b.mention.start >= correction}
    keep = [b for b in values if b.mention.start >= correction or b.field not in restated
            or b.mention.start < 0]
    gone = [b for b in values if 0 <= b.mention.start < correction and b.field in restated]
    return keep, gone


def _identity(item: Item, criteria: Criteria, snap: TruthSnapshot) -> Identity:
    tickers = tuple(str(item.get(k)).strip() for k in ("wind_ticker", "akshare_ticker",
                                                       "yfinance_ticker")
                    if item.get(k) not in (None, ""))
    source = snap.source_fields or {}
    name = str(source.get("名称") or source.get("name") or "")
    code = str(source.get("代码") or source.get("symbol") or source.get("ts_code")
               or snap.instrument or "")
    tags = item.get("tags")
    tag_text = " ".join(map(str, tags)) if isinstance(tags, list) else str(tags or "")
    return identity(str(item.get("prompt") or ""), criteria.required_text, tickers, name,
                    code, tag_text)


_PREPARED: dict[tuple[Any, ...], Score | Prepared] = {}
# an error text in place of data ("Error: no data for 600519", "N/A", "--", "暂无数据")
_ERROR_TEXT = re.compile(r"\s*(?:error|exception|failed|failure|no data|not found|n/?a|none|null|nan|"
                         r"-+|—+|失败|错误|异常|无数据|暂无|没有数据|查询失败)\b|\s*(?:-+|—+|暂无数据|无数据)\s*$",
                         re.IGNORECASE)


def _holds_no_number(raw: Any) -> bool:
    if raw is None or raw in ([], {}, ()):
        return True
    if not isinstance(raw, str):
        return False
    text = raw.strip()
    if text.lower() in ("", "null", "[]", "{}", '""', "none", "nan"):
        return True
    return not any(c.isdigit() for c in text) or _ERROR_TEXT.match(text) is not None


def _prepare(item: Item, truth: TruthSnapshot | None) -> Score | Prepared:
    lang = _lang(item)
    zh = lang == "zh"
    snap = truth if truth is not None else snapshot_of_item(item.fields)
    tv = view(snap)
    if snap.status == "error" and truth is None and _holds_no_number(item.get("ground_truth")):
        # a stored ground truth of JSON null, [], "", "--" or an error text: no number, so
        # null as the rules say — not an error of the rubric
        msg = ("真实实时信息中没有数字，无法评分（null）。" if zh else
               "The ground truth holds no number: not scored (null).")
        return Score.null(msg, NAME, version(), evidence={"truth": tv.evidence()})
    if snap.status == "error":
        return Score.error(str(snap.message or "the ground truth cannot be read"), NAME,
                           version(), evidence={"truth": tv.evidence()})
    if snap.status == "empty" and snap.query == "routing" and snap.message:
        # no one instrument to fetch for (an online question naming none or several)
        return Score.null(str(snap.message), NAME, version(),
                          evidence={"truth": tv.evidence()})
    if not tv.values:
        msg = ("真实实时信息中没有数字，无法评分（null）。" if zh else
               "The ground truth holds no number: not scored (null).")
        return Score.null(msg, NAME, version(), evidence={"truth": tv.evidence()})
    try:
        criteria = parse_criteria(str(item.get("response_reference") or ""))
    except RubricError as exc:
        return Score.error(str(exc), NAME, version(), evidence={"truth": tv.evidence()})
    evidence: dict[str, Any] = {
        "required": list(criteria.required),
        "rule": {"kind": criteria.rule.kind, "text": criteria.rule.text},
        "truth": tv.evidence(),
    }
    if criteria.rule.amount is not None:
        evidence["rule"]["amount"] = plain(criteria.rule.amount) + (
            "%" if criteria.rule.amount_is_percent else "")
    lacking = [f for f in criteria.required if truth_for(f, tv, criteria.session) is None]
    if lacking:
        names = _names(lacking, lang)
        return Score.null(f"真实实时信息中没有{names}的数字，无法评分（null）。" if zh else
                          f"The ground truth has no value for {names}: not scored (null).",
                          NAME, version(), evidence=evidence)
    rule = criteria.rule
    percent_last = criteria.percent_point or F.LAST in tv.percent_fields
    if rule.amount_is_percent:
        off = [f for f in criteria.required if f not in tv.percent_fields
               and not (f == F.LAST and percent_last)]
        if off:
            return Score.error(
                f"a tolerance in % («{rule.text}») is percentage points, which does not apply "
                f"to {_names(off, 'en')}", NAME, version(), evidence=evidence)
    ident = _identity(item, criteria, snap)
    alias = dict(criteria.aliases)
    # a dated close answers the previous close when that is asked for, else the close
    alias[F.DATED_CLOSE] = F.PREV_CLOSE if F.PREV_CLOSE in criteria.required else F.LAST
    if ident.per != "g" and F.AM_FIX not in tv.values and F.PM_FIX not in tv.values and \
            not criteria.session:
        # no benchmark here: "午盘收报…" is a price said in a session, not a fix
        alias[F.AM_FIX] = alias[F.PM_FIX] = F.LAST
    if tv.values.get(F.LAST) is not None and tv.values[F.LAST].key.startswith("("):
        alias.setdefault(F.BID, F.LAST)  # the truth's latest is the middle of bid and ask
        alias.setdefault(F.ASK, F.LAST)
    return Prepared(criteria, tv, ident, lang, Want(criteria.required, percent_last), alias,
                    evidence, Checker(rule, tv, criteria.session), frozenset(criteria.required))


class FinanceRubric(CodeEvaluator):
    """The executable T1 rubric. Stateless: one instance serves every item of every run."""

    name = NAME
    requires: tuple[str, ...] = ("prompt", "response_reference", "ground_truth")

    def __init__(self, stamp: str | None = None) -> None:
        # the version its decisions are stamped with: an evaluator that wraps this one
        # (`finance-rubric`, which also holds the T2/T3 reader) passes its own, so a decision
        # is not built twice to restamp it
        self._stamp = stamp

    @property
    def version(self) -> str:
        return self._stamp or version()

    def check(self, item: Item, answer: Answer, truth: TruthSnapshot | None = None) -> Score:
        """Pure and synchronous. `truth`: the snapshot captured for this answer; None reads the
        item's stored `ground_truth` through the ground-truth vocabulary."""
        prepared, read_as = self._prepare_text(item, (answer.text or "").strip(), truth)
        if isinstance(prepared, Score):
            return prepared
        assert read_as is not None  # a Prepared comes with the answer's canonical form
        return self._decide(read_as, prepared, None)

    def prepare(self, item: Item, answer: Answer, truth: TruthSnapshot | None = None
                ) -> Score | Prepared:
        """The steps before reading values: a final Score (empty answer, no truth, bad rubric,
        a required field the truth lacks), or what reading and deciding need."""
        return self._prepare_text(item, (answer.text or "").strip(), truth)[0]

    def _prepare_text(self, item: Item, text: str, truth: TruthSnapshot | None
                      ) -> tuple[Score | Prepared, Canonical | None]:
        """`prepare` on the stripped answer, with its canonical form once it is read."""
        if not text:
            zh = _lang(item) == "zh"
            return self._score(0, "回复为空，按规则得0分。" if zh else
                               "The answer is empty: score 0.", {"rule": "empty answer"}), None
        if len(text) > MAX_CHARS:
            return Score.error(too_long(text, _lang(item) == "zh"), NAME, self.version), None
        read_as = canonical(text)
        if not read_as.text:  # only reasoning, no answer after it
            zh = _lang(item) == "zh"
            return self._score(0, "回复只有推理过程，没有给出答案，得0分。" if zh else
                               "The answer holds only reasoning, no answer after it: score 0.",
                               {"rule": "empty answer", "read": read_as.evidence()}), None
        if truth is not None:
            return _prepare(item, truth), read_as
        f = item.fields
        raw = f.get("ground_truth")
        if not isinstance(raw, str):
            return _prepare(item, None), read_as
        key = (raw, f.get("prompt"), f.get("response_reference"), f.get("wind_ticker"),
               f.get("akshare_ticker"), f.get("yfinance_ticker"), f.get("time"),
               str(f.get("tags")))
        hit = _PREPARED.get(key)
        if hit is None:
            if len(_PREPARED) > 16384:
                _PREPARED.clear()
            hit = _PREPARED[key] = _prepare(item, None)
        return hit, read_as

    def decide(self, item: Item, answer: Answer, values: list[Bound] | None = None,
               truth: TruthSnapshot | None = None) -> Score:
        """Decide from the values the reader finds, or from `values` read by someone else
        (`finance-hybrid`'s model extraction)."""
        prepared = self.prepare(item, answer, truth)
        if isinstance(prepared, Score):
            return prepared
        return self._decide(canonical((answer.text or "").strip()), prepared, values)

    def _decide(self, read_as: Canonical, p: Prepared, given: list[Bound] | None) -> Score:
        criteria, truth, lang = p.criteria, p.truth, p.lang
        text = read_as.text
        zh = lang == "zh"
        evidence = dict(p.evidence)
        if read_as.rewrites or read_as.corrections:
            evidence["read"] = read_as.evidence()
        percent_last = p.want.percent_last
        alias = p.alias
        required = p.required
        counted: list[Bound] = []
        ignored: list[Bound] = []
        for b in given if given is not None else read(text, p.ident, p.want):
            if b.field in alias:
                b = replace(b, field=alias[b.field])
            if b.field in required and (b.doubt or not b.why):
                counted.append(b)
            else:
                ignored.append(b)
        earlier: list[Bound] = []
        if len(counted) > 1 and len(counted) > len({b.field for b in counted}):
            # some field has several values
            superseded: list[Bound] = []
            if read_as.restated_from >= 0:  # a correction, or words after a tool's output
                counted, superseded = _superseded(counted, read_as.restated_from)
            counted, earlier = _latest_only(with_days(text, counted))
            earlier += superseded
        shown_ignored = []
        for b in ignored:
            shown_ignored.append(_ignored(b))
        for b in earlier:
            shown_ignored.append({**_ignored(b), "why": "an earlier day or time than the "
                                  "answer's latest value"})
        evidence["ignored"] = shown_ignored
        percent_fields = truth.percent_fields
        checker = p.checker
        # one pass: each value checked, its evidence row, and what it says for the decision
        checked: list[tuple[Bound, Check]] = []
        rows: list[dict[str, Any]] = []
        covered: set[str] = set()  # the fields a value certainly answers
        all_pass = True  # every certain value passes
        maybe_pass: set[str] = set()  # fields a doubtful value would answer right
        maybe_fail = has_maybe = False
        try:
            for b in counted:
                field = b.field
                c = checker.check(field, b.value, b.mention.quantum,
                                  field in percent_fields or (field == F.LAST and percent_last))
                checked.append((b, c))
                rows.append(_row(b, c))
                if b.doubt:
                    has_maybe = True
                    if c.passed:
                        maybe_pass.add(field)
                    else:
                        maybe_fail = True
                else:
                    covered.add(field)
                    if not c.passed:
                        all_pass = False
        except RuleNotApplicable as exc:
            return Score.error(str(exc), NAME, self.version, evidence=evidence)
        except MissingTruth as exc:  # pragma: no cover - guarded by `lacking` above
            return Score.null(f"ground truth lacks {exc}", NAME, self.version, evidence=evidence)
        evidence["values"] = rows
        missing = []
        can_be_1 = all_pass
        for f in criteria.required:
            if f not in covered:
                missing.append(f)
                if f not in maybe_pass:
                    can_be_1 = False
        can_be_0 = not all_pass or bool(missing) or maybe_fail
        if can_be_1 and can_be_0:
            candidates = [{**_row(b, c), "doubt": b.why} for b, c in checked if b.doubt]
            reason = ("两种读法结论不同，无法确定，弃权：" + "；".join(
                f"{c['text']}（{c['doubt']}）" for c in candidates) if zh else
                "Two readings of the answer decide differently; abstained: " + "; ".join(
                f"{c['text']} ({c['doubt']})" for c in candidates))
            return Score.abstain(reason, NAME, self.version, candidates=candidates,
                                 evidence=evidence)
        if missing and not has_maybe:
            unbound = _unbound_passing(ignored, missing, checker, percent_fields, percent_last) \
                if all_pass else []
            if unbound:  # a 0 needs evidence: a number no field word reached may be the point
                candidates = [{**_row(b, c), "doubt": "no field word reaches it; it would "
                               f"answer {F.display(f, 'en')}"} for f, b, c in unbound]
                reason = ("回复未明确给出" + _names(missing, lang) + "，但有未标明含义的数字可能即是："
                          + "；".join(c["text"] for c in candidates) + "，弃权。" if zh else
                          f"The answer does not name the required {_names(missing, lang)}, "
                          "but a number no field word reaches may be it: "
                          + "; ".join(c["text"] for c in candidates) + "; abstained.")
                evidence["missing"] = missing
                return Score.abstain(reason, NAME, self.version, candidates=candidates,
                                     evidence=evidence)
            evidence["missing"] = missing
            names = _names(missing, lang)
            return self._score(0, f"回复缺少必答点：{names}，得0分。" if zh else
                               f"The answer does not state the required {names}: score 0.",
                               evidence)
        if missing:
            evidence["missing"] = missing
        return self._verdict(0 if can_be_0 else 1, checked, rows, criteria, lang, evidence)

    def _verdict(self, value: int, checked: list[tuple[Bound, Check]],
                 rows: list[dict[str, Any]], criteria: Criteria, lang: str,
                 evidence: dict[str, Any]) -> Score:
        zh = lang == "zh"
        parts_ok: list[str] = []
        parts_bad: list[str] = []
        labels = F.NAMES_ZH if zh else F.NAMES_EN  # F.display, without a call a value
        for k, (b, c) in enumerate(checked):
            shown = rows[k]["value"] + ("%" if b.mention.percent else "")
            label = labels.get(b.field, b.field)
            low, high, truth = c.interval.shown
            interval = f"[{low}, {high}]"
            if c.passed:
                parts_ok.append(f"{label} {shown} 在 {interval} 内" if zh else
                                f"{label} {shown} within {interval}")
            elif not b.doubt or value == 0:
                parts_bad.append(f"{label} {shown} 不在 {interval} 内（真实值 {truth}）"
                                 if zh else f"{label} {shown} outside {interval} "
                                 f"(truth {truth})")
        rule_text = criteria.rule.text
        if value == 0:
            if not parts_bad and evidence.get("missing"):
                names = _names(evidence["missing"], lang)
                return self._score(0, f"回复缺少必答点：{names}，得0分。" if zh else
                                   f"The answer does not state the required {names}: score 0.",
                                   evidence)
            reason = (f"按「{rule_text}」：" + "；".join(parts_bad) + "，得0分。" if zh else
                      f"Under «{rule_text}»: " + "; ".join(parts_bad) + ": score 0.")
            return self._score(0, reason, evidence)
        reason = (f"按「{rule_text}」：" + "；".join(parts_ok) + "，得1分。" if zh else
                  f"Under «{rule_text}»: " + "; ".join(parts_ok) + ": score 1.")
        return self._score(1, reason, evidence)

    def _score(self, value: int, reason: str, evidence: dict[str, Any]) -> Score:
        return Score(float(value), ScoreStatus.SCORED, reason, NAME, self.version, (0.0, 1.0), evidence)


_PRICES = frozenset({F.LAST, F.OPEN, F.HIGH, F.LOW, F.PREV_CLOSE, F.AM_FIX, F.PM_FIX, F.BID,
                     F.ASK})


def _unbound_passing(ignored: list[Bound], missing: list[str], checker: Checker,
                     percent_fields: frozenset[str] | set[str], percent_last: bool
                     ) -> list[tuple[str, Bound, Check]]:
    """Values of the item's instrument that no field word reached, of a kind that fits a
    missing point, and that would pass as that point: with them the answer may be right."""
    out: list[tuple[str, Bound, Check]] = []
    for b in ignored:
        if b.field or b.instrument != MINE or b.mention.bound:
            continue
        m = b.mention
        for f in missing:
            in_pct = f in percent_fields or (f == F.LAST and percent_last)
            if in_pct != m.percent or m.unit or m.count:
                continue
            if f in _PRICES and b.value < 0:
                continue
            try:
                c = checker.check(f, b.value, m.quantum, in_pct)
            except (RuleNotApplicable, MissingTruth):
                continue
            if c.passed:
                out.append((f, b, c))
                break
    # every missing point needs a number that may be it, else the answer is certainly short
    return out if {f for f, _, _ in out} >= set(missing) else []


def _names(fields: list[str], lang: str) -> str:
    return ("、" if lang == "zh" else ", ").join(F.display(f, lang) for f in fields)


def _row(b: Bound, c: Check) -> dict[str, Any]:
    low, high, truth = c.interval.shown
    row: dict[str, Any] = {
        "field": b.field, "text": b.mention.text, "span": [b.mention.start, b.mention.end],
        "value": plain(b.value), "via": b.via, "truth": truth,
        "accepted": [low, high], "compared": c.interval.how, "pass": c.passed,
    }
    if b.about:
        row["instrument"] = b.about
    if b.doubt:
        row["doubt"] = b.why
    return row


def _ignored(b: Bound) -> dict[str, Any]:
    out: dict[str, Any] = {"field": b.field, "text": b.mention.text,
                           "span": [b.mention.start, b.mention.end],
                           "why": b.why or ("not a required point" if b.instrument == MINE
                                            else "another instrument")}
    if b.about:
        out["instrument"] = b.about
    return out

