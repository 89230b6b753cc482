"""Does one answer value meet one key point under the reference's note?

Readings of the notes (checked on the release items in chat-test-eval.json):

- rounding ("答案允许四舍五入的误差", "rounding errors are allowed"), two readings:
  - `benchmark` (the default, the release judge's and the T1 rule's): both rounded half-up to
    the coarser of the two precisions shown — the answer's in its own unit after scale
    conversion — are equal: "63亿元" for "62.57亿元", "$48.31 billion" for "$48,306 million",
    "约318万辆" for "318.36万辆" (T2 Simple_Historical_Lookup_028: the release's judge accepted
    63亿元), "3%" for 2.9%. An answer so coarse
    that it rounds to zero ("0万亿") is unsure;
  - `strict`: the answer, rounded half-up to the decimals of the reference — and to those the
    question asks for, when it asks — must equal the reference; a coarser answer is wrong.
    When the reference's and the question's decimals decide differently, unsure.
- absolute ("允许有0.0001的误差", "error of ±x"): |answer − reference| ≤ x, x in the unit the
  reference is written in (T3 Complex_Historical_Investigation_062, five-decimal rates).
- percent ("允许0.01%的误差"): on a quantity given in % it is percentage points, |a − r| ≤ 0.01;
  on any other quantity it is relative, |a − r| ≤ 0.01% × |r|. Checked on T3 b027 (科创50 16.07%
  and 70.62%, "xx.xx%" asked): read as relative, 0.01% of 16.07 is 0.0016, finer than the two
  decimals the question asks for, so only the points reading lets an answer in the asked format
  be anything but exact.
- a range ("X到Y即可", "between X and Y"): X ≤ a ≤ Y; with rounding also allowed, an answer that
  rounds into the range at the precision of its ends (T2 Simple_Historical_Lookup_093).
- strict ("严格一致", "exactly"): the same value (12.45% = 0.1245 still holds: same value).
- no tolerance stated: the same value; an answer more precise than the reference that rounds to
  it is unsure (the rules do not say), one that does not is wrong.
- "约740": an answer rounding to 740 at its last non-zero digit passes; one more than 10% away
  fails; in between is unsure.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from assay.core.decimals import plain, round_half_up

from .reference import ABSOLUTE, EQUAL, PERCENT, ROUNDING, STRICT, KeyPoint, Note
from .rounding import BENCHMARK

PASS = "pass"
FAIL = "fail"
UNSURE = "unsure"


@dataclass(frozen=True, slots=True)
class Verdict:
    outcome: str  # PASS | FAIL | UNSURE
    accepted: tuple[Decimal, Decimal] | None  # the values the rule accepts, for the evidence
    how: str  # the rule as applied, in words

    def span(self) -> list[str] | None:
        return None if self.accepted is None else [plain(self.accepted[0]),
                                                   plain(self.accepted[1])]


def _combine(oks: list[bool], how: str, accepted: tuple[Decimal, Decimal] | None,
             why_unsure: str) -> Verdict:
    if all(oks):
        return Verdict(PASS, accepted, how)
    if not any(oks):
        return Verdict(FAIL, accepted, how)
    return Verdict(UNSURE, accepted, f"{how}; {why_unsure}")


def _quanta(point_q: Decimal, question_q: Decimal | None) -> list[Decimal]:
    out = [point_q]
    if question_q is not None and question_q != point_q:
        out.append(question_q)
    return out


def _approx_quantum(value: Decimal, quantum: Decimal) -> Decimal:
    """"约740": the place of the last non-zero digit (10), not of the last digit written."""
    if value == 0:
        return quantum
    q = quantum
    while (value / (q * 10)) == (value / (q * 10)).to_integral_value() and q * 10 <= abs(value):
        q *= 10
    return q


def check(point: KeyPoint, note: Note, a: Decimal, question_q: Decimal | None,
          answer_q: Decimal | None = None, rounding: str = BENCHMARK) -> Verdict:
    """Whether the answer value `a` (in the point's base units) meets `point` under `note`.
    `question_q` is the precision the question asks for, in the same units, if it asks;
    `answer_q` the precision the answer shows, in the same units; `rounding` the reading of
    "rounding errors are allowed" (`benchmark` or `strict`, see above)."""
    if point.kind == "range":
        return _range(point, note, a, None if rounding == BENCHMARK else question_q)
    assert point.qty is not None
    r = point.qty.value
    q = point.qty.quantum
    half = q / 2
    if note.kind == STRICT:
        return Verdict(PASS if a == r else FAIL, (r, r), "the same value (strict)")
    if note.kind == ABSOLUTE and note.amount is not None:
        amt = note.amount.value
        if note.amount.dim == "bare" and not note.amount.scaled:
            amt = amt * point.qty.scale  # "允许0.1的误差" on 62.57亿元: 0.1亿
        elif note.amount.dim == "percent" and point.qty.dim != "percent":
            return Verdict(UNSURE, None, f"a tolerance in percentage points ({plain(amt)}) on "
                           "a value that is not a percent")
        lo, hi = r - amt, r + amt
        return Verdict(PASS if lo <= a <= hi else FAIL, (lo, hi), f"|a − {plain(r)}| ≤ "
                       f"{plain(amt)}")
    if note.kind == PERCENT and note.amount is not None:
        x = note.amount.value
        if point.qty.dim == "percent":
            lo, hi = r - x, r + x
            how = f"|a − {plain(r)}| ≤ {plain(x)} percentage points (a % quantity)"
        else:
            d = abs(r) * x / 100
            lo, hi = r - d, r + d
            how = f"|a − {plain(r)}| ≤ {plain(x)}% of {plain(r)} (relative)"
        return Verdict(PASS if lo <= a <= hi else FAIL, (lo, hi), how)
    if point.approx and note.kind == EQUAL:
        qa = _approx_quantum(r, q)
        lo, hi = r - qa / 2, r + qa / 2
        if round_half_up(a, qa) == r:
            return Verdict(PASS, (lo, hi), f"about {plain(r)}: rounds to it at {plain(qa)}")
        if abs(a - r) > max(abs(r) / 10, qa):
            return Verdict(FAIL, (lo, hi), f"about {plain(r)}: more than 10% away")
        return Verdict(UNSURE, (lo, hi), f"about {plain(r)}: near it, but how near is "
                       "'about' is not written")
    if note.kind == ROUNDING and rounding == BENCHMARK and answer_q is not None:
        coarse = max(q, answer_q)
        how = f"both rounded half-up at {plain(coarse)} (the coarser precision)"
        if round_half_up(a, coarse) != round_half_up(r, coarse):
            return Verdict(FAIL, (r - coarse / 2, r + coarse / 2), how + f": not {plain(r)}")
        if round_half_up(a, coarse) == 0 and r != 0:
            return Verdict(UNSURE, (r - coarse / 2, r + coarse / 2), how + "; the answer rounds "
                           "to zero at its own precision")
        return Verdict(PASS, (r - coarse / 2, r + coarse / 2), how)
    if note.kind == ROUNDING:
        oks = [round_half_up(a, qq) == round_half_up(r, qq) for qq in _quanta(q, question_q)]
        return _combine(oks, f"rounds half-up to {plain(r)} at {plain(q)}",
                        (r - half, r + half),
                        "the reference's and the question's decimals decide differently")
    # EQUAL: no tolerance written
    if a == r:
        return Verdict(PASS, (r, r), "the same value")
    if all(round_half_up(a, qq) != round_half_up(r, qq) for qq in _quanta(q, question_q)):
        return Verdict(FAIL, (r, r), f"differs from {plain(r)} at its precision {plain(q)}")
    return Verdict(UNSURE, (r - half, r + half), "more precise than the reference and rounds "
                   "to it; no note says whether that counts")


def _range(point: KeyPoint, note: Note, a: Decimal, question_q: Decimal | None) -> Verdict:
    assert point.qty is not None and point.high is not None
    lo, hi = point.qty.value, point.high.value
    if lo <= a <= hi:
        return Verdict(PASS, (lo, hi), f"within [{plain(lo)}, {plain(hi)}]")
    if not note.rounding:
        return Verdict(FAIL, (lo, hi), f"outside [{plain(lo)}, {plain(hi)}]")
    q = max(point.qty.quantum, point.high.quantum)
    oks = [lo <= round_half_up(a, qq) <= hi for qq in _quanta(q, question_q)]
    return _combine(oks, f"rounded half-up at {plain(q)} within [{plain(lo)}, {plain(hi)}]",
                    (lo - q / 2, hi + q / 2),
                    "the range's and the question's decimals decide differently")
