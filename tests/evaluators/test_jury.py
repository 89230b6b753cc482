from __future__ import annotations

import pytest

from assay.core.errors import ConfigError
from assay.core.types import Score, ScoreStatus
from assay.evaluators.jury import combine


def s(value: float | None, status: ScoreStatus = ScoreStatus.SCORED, name: str = "j") -> Score:
    return Score(value, status, "r", name, "v")


def test_majority_mean_and_ties() -> None:
    three = [s(1, name="a"), s(1, name="b"), s(0, name="c")]
    m = combine("majority", three)
    assert (m.value, m.status, m.evaluator) == (1, ScoreStatus.SCORED, "jury-majority")
    assert [x["evaluator"] for x in m.evidence["members"]] == ["a", "b", "c"]
    assert combine("mean", three).value == pytest.approx(2 / 3)
    tie = combine("majority", [s(1), s(0)])
    assert (tie.value, tie.status, tie.reason) == (None, ScoreStatus.UNSCORED, "tie: 1×1, 0×1")


def test_only_scored_members_vote() -> None:
    m = combine("majority", [s(0), s(None, ScoreStatus.UNSCORED), s(None, ScoreStatus.ERROR)])
    assert (m.value, m.reason) == (0, "1 of 1 judges gave 0")
    none = combine("mean", [s(None, ScoreStatus.UNSCORED), s(None, ScoreStatus.NULL)])
    assert (none.value, none.status) == (None, ScoreStatus.UNSCORED)
    nulls = combine("mean", [s(None, ScoreStatus.NULL), s(None, ScoreStatus.NULL)])
    assert nulls.status == ScoreStatus.NULL
    with pytest.raises(ConfigError, match="unknown jury method 'vote'"):
        combine("vote", [])
