"""A judge's reply becomes a score only when it states one in JSON."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.core.types import ScoreStatus
from assay.evaluators.judge.parse import ScoreSchema, json_objects, parse_reply

T1 = ScoreSchema(0, 1, integer=True, null_allowed=True)
COZE4 = ScoreSchema(0, 4, integer=True, null_allowed=False)


@pytest.mark.parametrize(("reply", "score", "how"), [
    ('分析：……满足要求。\n最终分数：{"score":1}', 1.0, "last JSON object"),
    ('{"score":0}', 0.0, "last JSON object"),  # the bare reply the release's grader missed
    ('分析：示例中是{"score":1}；本题不满足。\n{"score":0}', 0.0, "last JSON object"),
    ('```json\n{"answer_score": 1}\n```\nThe student is right.', 1.0, "fenced block"),
    ('```\n{"Score": 0}\n```\nbut later I mention {"score": 1} as an example', 0.0,
     "fenced block"),
    ('{"SCORE": "1", "REASON": "ok"}', 1.0, "last JSON object"),
    ('{"score": 1.0}', 1.0, "last JSON object"),
    ('Result: {"reason": "has } and { inside", "score": 0}', 0.0, "last JSON object"),
])
def test_scores_stated_in_json(reply: str, score: float, how: str) -> None:
    j = parse_reply(reply, T1)
    assert (j.status, j.score, j.how) == (ScoreStatus.SCORED, score, how)
    assert j.raw == reply


def test_reason_and_full_score_are_kept() -> None:
    j = parse_reply('{"Score":4,"Reason":"回复完全符合需求","FullScore":4}', COZE4)
    assert (j.status, j.score, j.reason, j.full_score) == (ScoreStatus.SCORED, 4.0,
                                                           "回复完全符合需求", 4.0)


@pytest.mark.parametrize("reply", ['{"score":"null"}', '{"score": null}', '{"Score":"NULL"}'])
def test_null_when_the_template_allows_it(reply: str) -> None:
    assert parse_reply(reply, T1).status == ScoreStatus.NULL
    j = parse_reply(reply, COZE4)
    assert j.status == ScoreStatus.UNSCORED
    assert "does not allow" in j.reason


@pytest.mark.parametrize(("reply", "why"), [
    ("The answer is correct, score 1.", "no JSON object with a score"),
    ("最终分数：1", "no JSON object with a score"),
    ("{'score': 1}", "no JSON object with a score"),  # a Python dict is not JSON
    ('{"verdict": "correct"}', "no JSON object with a score"),
    ('{"result": {"score": 1}}', "no JSON object with a score"),  # nested: not stated at top
    ("", "empty reply"),
    ('{"score": 5}', "outside the declared range"),
    ('{"score": -1}', "outside the declared range"),
    ('{"score": 0.5}', "outside the declared range"),  # integer scores only
    ('{"score": true}', "is not a number"),
    ('{"score": "high"}', "is not a number"),
    ('{"score": "NaN"}', "is not a number"),
])
def test_unusable_replies_are_unscored_never_guessed(reply: str, why: str) -> None:
    j = parse_reply(reply, T1)
    assert (j.status, j.score) == (ScoreStatus.UNSCORED, None)
    assert why in j.reason
    assert j.raw == reply


def test_non_integer_scores_when_declared() -> None:
    schema = ScoreSchema(0, 1, integer=False)
    assert parse_reply('{"score": 0.75}', schema).score == 0.75


prose = st.text(alphabet=st.characters(blacklist_characters="{}"), max_size=200)


@given(prose)
def test_digits_in_prose_are_never_a_score(text: str) -> None:
    j = parse_reply(text, COZE4)
    assert j.status == ScoreStatus.UNSCORED and j.score is None


@given(prose, st.integers(0, 4), prose)
def test_the_stated_score_is_read_whatever_surrounds_it(before: str, score: int,
                                                        after: str) -> None:
    reply = before + json.dumps({"Score": score, "Reason": "r"}) + after
    j = parse_reply(reply, COZE4)
    assert (j.status, j.score) == (ScoreStatus.SCORED, float(score))


def test_json_objects_skips_non_json_braces() -> None:
    text = 'see {var} and {"a": 1} then {"b": {"c": 2}}'
    assert [o for _, o in json_objects(text)] == [{"a": 1}, {"b": {"c": 2}}]
