"""JUnit XML for CI systems (Jenkins, GitLab, GitHub test reporters): one test case per item ×
evaluator, so a CI page lists which items failed and why.

A run (`assay run` / `assay score --junit`): one suite per evaluator (and target, when a run has
several), classname `RUN/EVALUATOR` (`RUN/TARGET/EVALUATOR`), name the item id (`ID#EPOCH` when
the run has repeats). A scored item passes at its full score, or at `threshold` when one is
given; below it is a `<failure>`; an `error` status is an `<error>`; null, unscored and
abstained are `<skipped>`, each with the evaluator's reason, and so is `skipped` (the evaluator
does not apply to the item: its when:). A reviewer's correction counts.

A comparison (`assay compare --junit`): one suite per evaluator and compared run, a test case
per item it applies to in both runs: a score lower than the baseline's is a failure, an item in
one run only or without a score on one side is skipped (with which), and one more case,
`[significance gate]`, fails only when the gate found the run significantly worse.

A conversation (core/conversation.py) is one case like any item, and its judged turns are one
case each beside it (`ID turn N`, `ID#EPOCH turn N`), judged the same way by the turn's score.
The conversation's case names its outcome when it is not `done`; an `aborted` conversation (a
turn failed) is a `<failure>` whatever its score.

The files are checked against Jenkins' junit-10.xsd in the tests (tests/data/junit)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assay.core.conversation import Outcome
from assay.core.outputs import replaced
from assay.store import repo
from assay.store import results as stored
from assay.store.conversations import conversation_turns, outcomes
from assay.store.db import Engine
from assay.store.reviews import score_range

from .compare import Key, Pairing, run_scores
from .gate import Verdict

GATE_CASE = "[significance gate]"
# XML 1.0 cannot carry these at all, escaped or not; an answer or a judge's reply may hold them
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_MESSAGE_CHARS = 500  # the full reason goes in the element's text


def _clean(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


@dataclass
class _Case:
    name: str
    kind: str  # "pass", "failure", "error", "skipped"
    message: str = ""
    text: str = ""


def _label(item_id: str, epoch: int, repeats: bool) -> str:
    return f"{item_id}#{epoch}" if repeats else item_id


def _suite(parent: ET.Element, name: str, classname: str, cases: list[_Case]) -> None:
    counts = {k: sum(c.kind == k for c in cases) for k in ("failure", "error", "skipped")}
    suite = ET.SubElement(parent, "testsuite", name=_clean(name), tests=str(len(cases)),
                          failures=str(counts["failure"]), errors=str(counts["error"]),
                          skipped=str(counts["skipped"]))
    for c in cases:
        case = ET.SubElement(suite, "testcase", classname=_clean(classname), name=_clean(c.name))
        if c.kind == "pass" and c.message:
            ET.SubElement(case, "system-out").text = _clean(c.message)
        elif c.kind != "pass":
            msg = c.message if len(c.message) <= _MESSAGE_CHARS else \
                c.message[:_MESSAGE_CHARS] + "…"
            el = ET.SubElement(case, c.kind, message=_clean(msg), type=c.kind)
            el.text = _clean(c.text or c.message)


def _document(suites: Iterable[tuple[str, str, list[_Case]]], name: str) -> ET.ElementTree:
    root = ET.Element("testsuites", name=_clean(name))
    total = failures = errors = 0
    for suite_name, classname, cases in suites:
        _suite(root, suite_name, classname, cases)
        total += len(cases)
        failures += sum(c.kind == "failure" for c in cases)
        errors += sum(c.kind == "error" for c in cases)
    root.set("tests", str(total))
    root.set("failures", str(failures))
    root.set("errors", str(errors))
    return ET.ElementTree(root)


def _result_case(r: Mapping[str, Any], review: dict[str, Any] | None,
                 threshold: float | None) -> _Case:
    name = r["item_id"]  # the epoch is added once the whole run is read (see run_junit)
    reason = r["reason"] or ""
    status, value = r["status"], r["score"]
    if review is not None:  # a reviewer's score replaces the raw one, and says so
        value = review["score"]
        status = "scored" if value is not None else "null"
        reason = f"reviewed by {review['reviewer']}: {review['reason']} (raw: {reason})"
    if status == "error":
        return _Case(name, "error", f"error: {reason}", reason)
    if status != "scored" or value is None:
        return _Case(name, "skipped", f"{status}: {reason}", reason)
    full = score_range(r["evidence"])
    top = full[1] if full is not None else 1.0  # a judge result stored before ranges were kept
    bar, what = (threshold, "the threshold") if threshold is not None else (top, "full score")
    if value < bar:
        return _Case(name, "failure", f"score {value:g} below {what} {bar:g}: {reason}", reason)
    return _Case(name, "pass")


def _with_outcome(case: _Case, outcome: str | None) -> _Case:
    """A conversation's case says how it ended unless it simply ran to its end; an aborted one
    (a turn failed: the target's or the simulated user's error) fails whatever its score."""
    if outcome is None or outcome == Outcome.DONE:
        return case
    kind = "failure" if outcome == Outcome.ABORTED and case.kind == "pass" else case.kind
    return _Case(case.name, kind, f"outcome {outcome}" + (
        f"; {case.message}" if case.message else ""), case.text)


def _turn_cases(engine: Engine, run_id: str, threshold: float | None
                ) -> dict[tuple[str, str, int, str], list[tuple[int, _Case]]]:
    """(item, target, epoch, evaluator) → (turn, case) for each judged turn, in turn order."""
    out: dict[tuple[str, str, int, str], list[tuple[int, _Case]]] = {}
    for (item_id, target, epoch), turns in conversation_turns(engine, run_id).items():
        for turn in sorted(turns, key=lambda t: t.number):
            for s in turn.scores:
                row = {"item_id": item_id, "reason": s.reason, "status": str(s.status),
                       "score": s.value, "evidence": s.evidence}
                out.setdefault((item_id, target, epoch, s.evaluator), []).append(
                    (turn.number, _result_case(row, None, threshold)))
    return out


def run_junit(engine: Engine, run_id: str, *, threshold: float | None = None) -> ET.ElementTree:
    """The run's results as JUnit XML (see the module's docstring)."""
    reviews = repo.latest_reviews(engine, run_id)
    ended = outcomes(engine, run_id)  # conversations only: one-question items have none
    turned = _turn_cases(engine, run_id, threshold) if ended else {}
    # streamed: only each result's case (its reason) is kept, never the run's evidence at once
    groups: dict[tuple[str, str], list[tuple[int, _Case, int | None]]] = {}
    repeats = False
    for r in stored.iter_results(engine, run_id):
        key = (r["item_id"], r["target"], r["epoch"])
        review = reviews.get((*key, r["evaluator"]))
        group = groups.setdefault((r["target"], r["evaluator"]), [])
        group.append((r["epoch"], _with_outcome(_result_case(r, review, threshold),
                                                ended.get(key)), None))
        group.extend((r["epoch"], c, n) for n, c in turned.pop((*key, r["evaluator"]), []))
        repeats = repeats or bool(r["epoch"])
    for (_, target, epoch, evaluator), left in turned.items():  # no conversation score
        groups.setdefault((target, evaluator), []).extend((epoch, c, n) for n, c in left)
        repeats = repeats or bool(epoch)
    targets = {t for t, _ in groups}
    suites = []
    for (target, evaluator), triples in groups.items():
        classname = f"{run_id}/{target}/{evaluator}" if len(targets) > 1 else \
            f"{run_id}/{evaluator}"
        cases = [c for _, c, _ in triples]
        for epoch, c, turn in triples:
            # a run with repeats: every case is named ID#EPOCH, epoch 0 included
            c.name = _label(c.name, epoch, repeats) + (f" turn {turn}" if turn else "")
        suites.append((classname, classname, cases))
    return _document(suites, f"assay run {run_id}")


def _compare_cases(p: Pairing, base: dict[Key, float | None], other: dict[Key, float | None],
                   skipped: set[Key] | None = None) -> list[_Case]:
    """`skipped`: the items the evaluator does not apply to in either run (none: no case)."""
    away = skipped or set()
    keys = (base.keys() | other.keys()) - away
    repeats = any(e for _, e in keys)
    cases = []
    for key in sorted(keys):
        name = _label(key[0], key[1], repeats)
        if key not in other:
            cases.append(_Case(name, "skipped", f"only in the baseline {p.baseline}, not in "
                               f"{p.other}: left out of the comparison"))
        elif key not in base:
            cases.append(_Case(name, "skipped", f"only in {p.other}, not in the baseline "
                               f"{p.baseline}: left out of the comparison"))
        elif base[key] is None or other[key] is None:
            side = "either run" if base[key] is None and other[key] is None else \
                p.baseline if base[key] is None else p.other
            cases.append(_Case(name, "skipped", f"no score in {side} (null, unscored, "
                               "abstained or error): left out of the comparison"))
        elif (vo := other[key]) is not None and (vb := base[key]) is not None and vo < vb:
            cases.append(_Case(name, "failure", f"score went from {vb:g} (baseline "
                               f"{p.baseline}) to {vo:g} ({p.other})"))
        else:
            cases.append(_Case(name, "pass"))
    return cases


def compare_junit(engine: Engine, run_ids: list[str], pairs: list[Pairing],
                  verdicts: list[Verdict], targets: list[str | None] | None = None
                  ) -> ET.ElementTree:
    """A comparison as JUnit XML: `run_ids` and `targets` as `compare_runs` was given them,
    `verdicts` in the order of its `pairs`."""
    tsel = targets or [None] * len(run_ids)
    read = {rid: run_scores(engine, rid, t) for rid, t in zip(run_ids, tsel, strict=True)}
    suites = []
    for p, v in zip(pairs, verdicts, strict=True):
        away = read[p.baseline][2].get(p.evaluator, set()) | read[p.other][2].get(p.evaluator,
                                                                                 set())
        cases = _compare_cases(p, read[p.baseline][0][p.evaluator],
                               read[p.other][0][p.evaluator], away)
        kind = {"worse": "failure", "dropped": "failure",
                "undecided": "skipped"}.get(v.outcome, "pass")
        cases.append(_Case(GATE_CASE, kind, v.line))
        classname = f"{p.other}/{p.evaluator}"
        suites.append((f"{p.baseline} vs {p.other}/{p.evaluator}", classname, cases))
    return _document(suites, "assay compare " + " ".join(run_ids))


def write_junit(tree: ET.ElementTree, path: Path) -> None:
    ET.indent(tree)
    with replaced(path) as tmp:  # the old file stays whole until the new one is
        tree.write(tmp, encoding="utf-8", xml_declaration=True)
