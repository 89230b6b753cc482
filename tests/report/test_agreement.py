from __future__ import annotations

import pytest

from assay.report.agreement import agreement, cohen_kappa


def test_kappa_textbook_case() -> None:
    # both 1: 20, A1/B0: 5, A0/B1: 10, both 0: 15 → po 0.7, pe 0.5, κ 0.4
    pairs = [(1, 1)] * 20 + [(1, 0)] * 5 + [(0, 1)] * 10 + [(0, 0)] * 15
    assert cohen_kappa(pairs) == pytest.approx(0.4)


def test_kappa_edges() -> None:
    assert cohen_kappa([]) is None
    assert cohen_kappa([(1, 1), (1, 1)]) is None  # chance agreement is total
    assert cohen_kappa([(1, 1), (0, 0)]) == pytest.approx(1.0)
    assert cohen_kappa([(1, 0), (0, 1)]) == pytest.approx(-1.0)


def row(item: str, ev: str, score: float | None, status: str = "scored") -> dict:
    return {"item_id": item, "evaluator": ev, "score": score, "status": status,
            "reason": f"{ev} on {item}"}


def test_pairs_disagreements_and_left_out_items() -> None:
    rows = [row("a", "rubric", 1), row("a", "judge", 1),
            row("b", "rubric", 0), row("b", "judge", 1),
            row("c", "rubric", None, "null"), row("c", "judge", 0),
            row("d", "rubric", 1), row("d", "judge", None, "unscored")]
    (p,) = agreement(rows)
    assert (p.a, p.b, p.compared, p.agree, p.only_one_scored) == ("judge", "rubric", 2, 1, 2)
    assert p.percent == 50.0
    assert p.disagreements == [{"item_id": "b", "judge": 1, "rubric": 0,
                                "judge reason": "judge on b", "rubric reason": "rubric on b"}]
