"""An LLM judge calibrated against the rules: on the items an executable rubric decided (0 or
1), how often does the judge agree, and how does it err?

- accuracy: judge = rules, over the items both scored;
- false-accept rate: the judge gives 1 where the rules give 0, among the rules' 0s;
- false-reject rate: the judge gives 0 where the rules give 1, among the rules' 1s;
each with a 95 % Wilson interval, Cohen's κ, the counts, and every item where they differ with
both reasons. An item is one sample: (item, target, epoch).

The rates let one estimate the judge's error where the rules cannot decide (abstained, null):
there the judge's pass rate q is observed, and if the judge errs there as it errs on decided
items, the true pass rate is π = (q − FAR) / (1 − FAR − FRR) (Rogan–Gladen). Decided items may
be easier than undecided ones, so read that figure as a lower bound on the judge's trouble,
not as its error on hard items (docs/calibration.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from assay.evaluators.build import is_model_judge
from assay.store import results as stored
from assay.store.db import Engine
from assay.store.rows import result_call

from .agreement import cohen_kappa
from .stats import wilson

Key = tuple[str, str, int]  # item, target, epoch
RUBRIC = "finance-rubric"


@dataclass(frozen=True, slots=True)
class Rate:
    """k of n, with its 95 % Wilson interval (None without observations)."""

    k: int
    n: int

    @property
    def value(self) -> float | None:
        return self.k / self.n if self.n else None

    @property
    def ci(self) -> tuple[float, float] | None:
        return wilson(self.k, self.n)

    def as_dict(self) -> dict[str, Any]:
        return {"k": self.k, "n": self.n, "rate": self.value,
                "ci95": list(self.ci) if self.ci else None}


@dataclass
class Calibration:
    run_id: str
    judge: str
    rubric: str
    both_pass: int  # rules 1, judge 1
    both_fail: int  # rules 0, judge 0
    false_accepts: int  # rules 0, judge 1
    false_rejects: int  # rules 1, judge 0
    rubric_decided: int  # samples the rules scored 0 or 1
    judge_missing: int  # of those, the judge has no 0/1 score (unscored, null, error, absent)
    undecided_judged: int  # samples the rules did not decide that the judge scored
    undecided_judge_pass: int  # of those, judged 1
    kappa: float | None
    differences: list[dict[str, Any]] = field(default_factory=list)

    @property
    def compared(self) -> int:
        return self.both_pass + self.both_fail + self.false_accepts + self.false_rejects

    @property
    def accuracy(self) -> Rate:
        return Rate(self.both_pass + self.both_fail, self.compared)

    @property
    def false_accept(self) -> Rate:
        return Rate(self.false_accepts, self.false_accepts + self.both_fail)

    @property
    def false_reject(self) -> Rate:
        return Rate(self.false_rejects, self.false_rejects + self.both_pass)

    def corrected_undecided_pass_rate(self) -> float | None:
        """The judge's pass rate on undecided samples, corrected for its measured error rates
        (Rogan–Gladen, clipped to [0, 1]); None when it cannot be formed."""
        far, frr = self.false_accept.value, self.false_reject.value
        if far is None or frr is None or not self.undecided_judged or far + frr >= 1:
            return None
        q = self.undecided_judge_pass / self.undecided_judged
        return min(1.0, max(0.0, (q - far) / (1 - far - frr)))

    def as_dict(self) -> dict[str, Any]:
        return {
            "run": self.run_id, "judge": self.judge, "rubric": self.rubric,
            "rubric_decided": self.rubric_decided, "compared": self.compared,
            "judge_missing": self.judge_missing,
            "counts": {"both_pass": self.both_pass, "both_fail": self.both_fail,
                       "false_accept": self.false_accepts, "false_reject": self.false_rejects},
            "accuracy": self.accuracy.as_dict(), "false_accept_rate": self.false_accept.as_dict(),
            "false_reject_rate": self.false_reject.as_dict(), "kappa": self.kappa,
            "undecided": {"judged": self.undecided_judged,
                          "judge_pass": self.undecided_judge_pass,
                          "judge_pass_rate": (self.undecided_judge_pass / self.undecided_judged
                                              if self.undecided_judged else None),
                          "corrected_pass_rate": self.corrected_undecided_pass_rate()},
            "differences": self.differences,
        }


class CalibrationError(ValueError):
    """The results cannot be compared (a judge whose scores are not 0/1)."""


def _binary(row: dict[str, Any] | None) -> int | None:
    if row is None or row.get("status") != "scored" or row.get("score") is None:
        return None
    return int(row["score"]) if float(row["score"]) in (0.0, 1.0) else -1


def _reply(row: dict[str, Any]) -> str:
    call = result_call(row)
    return call.reply or "" if call is not None else ""


def _key(row: dict[str, Any]) -> Key:
    return (str(row["item_id"]), str(row.get("target") or ""), int(row.get("epoch") or 0))


def calibrate(results: list[dict[str, Any]], *, judge: str, rubric: str = RUBRIC,
              run_id: str = "") -> Calibration:
    """`results`: stored result rows (item_id, target, epoch, evaluator, score, status,
    reason) of one run holding both evaluators."""
    rules: dict[Key, dict[str, Any]] = {}
    judged: dict[Key, dict[str, Any]] = {}
    # a sample either of them does not apply to (`skipped`) is no evidence about the judge
    away = {_key(row) for row in results if row.get("status") == "skipped"
            and row["evaluator"] in (rubric, judge)}
    for row in results:
        if _key(row) in away:
            continue
        if row["evaluator"] == rubric:
            rules[_key(row)] = row
        elif row["evaluator"] == judge:
            judged[_key(row)] = row
    counts = {(1, 1): 0, (0, 0): 0, (0, 1): 0, (1, 0): 0}
    pairs: list[tuple[float, float]] = []
    differences: list[dict[str, Any]] = []
    decided = missing = undecided_judged = undecided_pass = 0
    bad_scores: list[str] = []
    for key in sorted(set(rules) | set(judged)):
        r, j = _binary(rules.get(key)), _binary(judged.get(key))
        if j == -1:
            bad_scores.append(f"{key[0]}={judged[key]['score']:g}")
            continue
        if r == -1:
            raise CalibrationError(f"{rubric} gives {key[0]} the score {rules[key]['score']:g}: "
                                   "calibration needs a rubric that scores 0 or 1")
        if r is None:
            if j is not None:
                undecided_judged += 1
                undecided_pass += j
            continue
        decided += 1
        if j is None:
            missing += 1
            continue
        counts[(r, j)] += 1
        pairs.append((float(r), float(j)))
        if r != j:
            differences.append({
                "item_id": key[0], "target": key[1], "epoch": key[2], "rules": r, "judge": j,
                "kind": "false accept" if j == 1 else "false reject",
                "rules_reason": rules[key].get("reason") or "",
                "judge_reason": judged[key].get("reason") or "",
                # the judge's stated reasoning is in its reply; its reason may only say how
                # the score was parsed ("fenced block")
                "judge_reply": _reply(judged[key])})
    if bad_scores:
        raise CalibrationError(f"{judge} gives scores other than 0 and 1 ("
                               + ", ".join(bad_scores[:3]) + (" …" if len(bad_scores) > 3
                                                              else "")
                               + "): calibration compares pass/fail judgments")
    return Calibration(run_id, judge, rubric, counts[(1, 1)], counts[(0, 0)], counts[(0, 1)],
                       counts[(1, 0)], decided, missing, undecided_judged, undecided_pass,
                       cohen_kappa(pairs), differences)


def load_calibration(engine: Engine, run_id: str, judge: str, rubric: str = RUBRIC, *,
                     reasons_for: int | None = None) -> Calibration:
    """The calibration of one judge in a stored run. The comparison reads only scores; the
    reasons and the judge's reply are read for the differing samples shown (`reasons_for`
    of them, all with None), so a large run is not read whole for a page."""
    rows = [{"item_id": r.item_id, "target": r.target, "epoch": r.epoch,
             "evaluator": r.evaluator, "score": r.score, "status": r.status}
            for r in stored.sample_scores(engine, run_id, evaluators=[judge, rubric])]
    cal = calibrate(rows, judge=judge, rubric=rubric, run_id=run_id)
    shown = cal.differences if reasons_for is None else cal.differences[:reasons_for]
    words = {(r["item_id"], r["target"] or "", r["epoch"] or 0, r["evaluator"]): r
             for r in stored.reasons(engine, run_id, {d["item_id"] for d in shown},
                                     [judge, rubric])} if shown else {}
    for d in shown:
        key = (d["item_id"], d["target"], d["epoch"])
        rules, said = words.get((*key, rubric), {}), words.get((*key, judge), {})
        d["rules_reason"] = rules.get("reason") or ""
        d["judge_reason"] = said.get("reason") or ""
        d["judge_reply"] = said.get("reply") or ""
    return cal


def run_calibrations(engine: Engine, run_id: str, *, rubric: str = RUBRIC, show: int = 20
                     ) -> list[dict[str, Any]]:
    """For the report and the UI: each LLM judge (or jury) of a run that also has `rubric`,
    measured against it — `Calibration.as_dict()` with the first `show` differences (and
    `differences_total`), or `{judge, rubric, note}` saying why it cannot be measured. Empty
    when the run has no rubric or no judge."""
    evaluators = stored.evaluator_names(engine, run_id)
    if rubric not in evaluators:
        return []
    out: list[dict[str, Any]] = []
    for judge in sorted(e for e in evaluators if e != rubric and is_model_judge(e)):
        try:
            cal = load_calibration(engine, run_id, judge, rubric, reasons_for=show)
        except CalibrationError as exc:
            out.append({"judge": judge, "rubric": rubric, "note": str(exc)})
            continue
        if cal.compared == 0:
            out.append({"judge": judge, "rubric": rubric, "note": (
                f"no sample that {rubric} decided (0 or 1) was also scored 0 or 1 by {judge} "
                f"({cal.rubric_decided} decided by the rules, {cal.judge_missing} of them "
                "without a judge score)")})
            continue
        d = cal.as_dict()
        d["differences_total"] = len(cal.differences)
        d["differences"] = cal.differences[:show]
        out.append(d)
    return out
