"""The calibration figures, from result rows built by hand (no store)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from assay.report.calibration import CalibrationError, calibrate

R, J = "finance-rubric", "item-judge@m"


def row(item: str, evaluator: str, score: float | None, status: str = "scored",
        reason: str = "", target: str = "recorded", epoch: int = 0) -> dict[str, Any]:
    return {"item_id": item, "evaluator": evaluator, "score": score, "status": status,
            "reason": reason or f"{evaluator} on {item}", "target": target, "epoch": epoch}


def wilson_by_hand(k: int, n: int) -> tuple[float, float]:
    z = 1.959963984540054
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def rows_for(pairs: list[tuple[int | None, int | None]]) -> list[dict[str, Any]]:
    out = []
    for i, (r, j) in enumerate(pairs):
        out.append(row(f"q{i}", R, r, "scored" if r is not None else "abstained"))
        out.append(row(f"q{i}", J, j, "scored" if j is not None else "unscored"))
    return out


def test_rates_counts_and_kappa() -> None:
    # rules/judge: 4×(1,1), 1×(1,0), 3×(0,0), 2×(0,1), one judge unscored, one rules undecided
    pairs = [(1, 1)] * 4 + [(1, 0)] + [(0, 0)] * 3 + [(0, 1)] * 2 + [(1, None), (None, 1)]
    cal = calibrate(rows_for(pairs), judge=J, rubric=R, run_id="r1")
    assert (cal.both_pass, cal.false_rejects, cal.both_fail, cal.false_accepts) == (4, 1, 3, 2)
    assert (cal.rubric_decided, cal.compared, cal.judge_missing) == (11, 10, 1)
    assert (cal.undecided_judged, cal.undecided_judge_pass) == (1, 1)
    assert (cal.accuracy.k, cal.accuracy.n) == (7, 10)
    assert (cal.false_accept.k, cal.false_accept.n) == (2, 5)
    assert (cal.false_reject.k, cal.false_reject.n) == (1, 5)
    assert cal.accuracy.ci == pytest.approx(wilson_by_hand(7, 10))
    assert cal.false_accept.ci == pytest.approx(wilson_by_hand(2, 5))
    # κ: observed 0.7; rules 5/5, judge 6 ones and 4 zeros → expected 0.5 → κ = 0.4
    assert cal.kappa == pytest.approx(0.4)
    # undecided: judge pass rate 1.0, corrected (1 − 0.4) / (1 − 0.4 − 0.2) = 1.5 → clipped
    assert cal.corrected_undecided_pass_rate() == 1.0
    kinds = [(d["item_id"], d["kind"], d["rules"], d["judge"]) for d in cal.differences]
    assert kinds == [("q4", "false reject", 1, 0), ("q8", "false accept", 0, 1),
                     ("q9", "false accept", 0, 1)]
    assert cal.differences[0]["rules_reason"] == f"{R} on q4"
    assert cal.differences[0]["judge_reason"] == f"{J} on q4"
    d = cal.as_dict()
    assert d["false_accept_rate"]["rate"] == 0.4 and d["counts"]["false_reject"] == 1


def test_corrected_pass_rate_on_undecided_items() -> None:
    # FAR 1/4, FRR 1/4; the judge passes 2 of 4 undecided items → (0.5 − 0.25) / 0.5 = 0.5
    base = [(1, 1)] * 3 + [(1, 0)] + [(0, 0)] * 3 + [(0, 1)]
    cal = calibrate(rows_for([*base, (None, 1), (None, 1), (None, 0), (None, 0)]), judge=J,
                    rubric=R)
    assert cal.corrected_undecided_pass_rate() == pytest.approx(0.5)


def test_samples_are_paired_by_target_and_epoch() -> None:
    rows = [row("a", R, 1, target="t1"), row("a", J, 0, target="t1"),
            row("a", R, 0, target="t2"), row("a", J, 0, target="t2"),
            row("a", R, 1, target="t2", epoch=1), row("a", J, 1, target="t2", epoch=1)]
    cal = calibrate(rows, judge=J, rubric=R)
    assert (cal.compared, cal.false_rejects, cal.both_fail, cal.both_pass) == (3, 1, 1, 1)
    assert cal.differences[0]["target"] == "t1"


def test_kappa_undefined_when_both_always_agree_on_one_class() -> None:
    cal = calibrate(rows_for([(1, 1)] * 3), judge=J, rubric=R)
    assert cal.kappa is None and cal.false_accept.value is None and cal.false_accept.ci is None
    assert cal.false_reject.value == 0.0


def test_a_judge_that_does_not_score_zero_or_one_is_refused() -> None:
    rows = [row("a", R, 1), row("a", J, 7)]
    with pytest.raises(CalibrationError, match=r"item-judge@m gives scores other than 0 and 1 "
                       r"\(a=7\)"):
        calibrate(rows, judge=J, rubric=R)


def test_which_evaluators_are_llm_judges() -> None:
    from assay.evaluators.build import is_model_judge

    judges = ["item-judge@m", "finsearch-t1-judge@m", "jury-majority", "jury-mean",
              "a-template-since-removed@m"]
    others = ["finance-rubric", "finance-hybrid@m", "some-check"]
    assert [is_model_judge(n) for n in judges] == [True] * len(judges)
    assert [is_model_judge(n) for n in others] == [False] * len(others)


def test_run_calibrations_from_the_store(db_url: str) -> None:
    """What the report and the UI show: every LLM judge of a run against finance-rubric, the
    differences' reasons read for those shown, and a note where a judge cannot be measured."""
    from assay.core.types import Item
    from assay.report.calibration import run_calibrations
    from assay.store import repo
    from assay.store.db import open_engine

    engine = open_engine(db_url)
    repo.save_dataset(engine, version="d", name="d", path="d.json", fmt="json",
                      rows=[Item(f"i{n}", {}, "d", n) for n in range(6)])
    repo.create_run(engine, run_id="r", kind="score", dataset_id="d", manifest={})
    rules = [1, 1, 1, 0, 0, None]
    verdicts = {"item-judge@m": [1, 1, 0, 1, 0, 1],  # a false reject, a false accept
                "finance-hybrid@m": [1, 1, 1, 0, 0, 1],  # not a judge: not calibrated
                "jury-mean": [1, 0.5, 1, 0, 0, 1],  # not 0/1: a note
                "finsearch-t1-judge@m": [None] * 5 + [1]}  # nothing in common: a note
    rows = [{**row(f"i{n}", R, v, "scored" if v is not None else "abstained",
                   reason=f"rules on i{n}"), "run_id": "r", "evaluator_version": "v",
             "created_at": repo.now(), "evidence": None} for n, v in enumerate(rules)]
    for name, scores in verdicts.items():
        rows += [{**row(f"i{n}", name, v, "scored" if v is not None else "unscored"),
                  "run_id": "r", "evaluator_version": "v", "created_at": repo.now(),
                  "evidence": {"reply": f"{name} says {v} on i{n}"}}
                 for n, v in enumerate(scores)]
    repo.write_rows(engine, {"results": rows})
    cals = {c["judge"]: c for c in run_calibrations(engine, "r", show=1)}
    assert sorted(cals) == ["finsearch-t1-judge@m", "item-judge@m", "jury-mean"]
    judge = cals["item-judge@m"]
    assert judge["counts"] == {"both_pass": 2, "both_fail": 1, "false_accept": 1,
                               "false_reject": 1}
    assert judge["accuracy"]["rate"] == 3 / 5 and judge["kappa"] == pytest.approx(1 / 6)
    assert judge["undecided"] == {"judged": 1, "judge_pass": 1, "judge_pass_rate": 1.0,
                                  "corrected_pass_rate": 1.0}
    assert judge["differences_total"] == 2
    (shown,) = judge["differences"]  # show=1: the first, with its words
    assert (shown["item_id"], shown["kind"], shown["rules_reason"], shown["judge_reason"],
            shown["judge_reply"]) == ("i2", "false reject", "rules on i2",
                                      "item-judge@m on i2", "item-judge@m says 0 on i2")
    assert "scores other than 0 and 1 (i1=0.5)" in cals["jury-mean"]["note"]
    assert cals["finsearch-t1-judge@m"]["note"].startswith(
        "no sample that finance-rubric decided (0 or 1) was also scored 0 or 1 by "
        "finsearch-t1-judge@m (5 decided by the rules, 5 of them without a judge score)")
    # no rubric in the run: nothing to calibrate against
    assert run_calibrations(engine, "r", rubric="other-rubric") == []
