"""The review API refuses JSON `true`/`false` as a score or epoch (issue 27): pydantic read
`true` as 1.0, so a mistaken body stored a perfect score."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from assay.store.db import open_engine
from assay.web.app import create_app
from tests.web.conftest import Store
from tests.web.test_hardening_web import LOCAL, STALE, copy, reviews  # noqa: F401  (fixture)


@pytest.mark.parametrize(("field", "value"), [("score", True), ("score", False),
                                              ("epoch", True)])
def test_a_boolean_score_is_422_and_nothing_stored(two_runs: Store, copy: str,  # noqa: F811
                                                   field: str, value: bool) -> None:
    c = TestClient(create_app(open_engine(copy)), base_url=LOCAL)
    body = {"item_id": STALE, "evaluator": "finance-rubric", "score": 1.0, "reason": "x",
            "reviewer": "y", field: value}
    r = c.post(f"/api/runs/{two_runs.run_a}/reviews", json=body)
    assert r.status_code == 422, r.text
    assert r.json()["detail"][0]["msg"] == ("Value error, must be a number (or null), not "
                                            "true/false")
    assert r.json()["detail"][0]["loc"] == ["body", field]
    assert reviews(copy) == 0
    body[field] = 1 if field == "score" else 0  # a number is taken
    assert c.post(f"/api/runs/{two_runs.run_a}/reviews", json=body).status_code == 201
