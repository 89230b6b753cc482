"""The budget's arithmetic: estimates before and after a model's first reply, in-flight
requests counted, the refusal's message, costs settled from the reply's usage."""

from __future__ import annotations

import pytest

from assay.core.errors import ConfigError
from assay.core.model_call import Usage
from assay.models.budget import DEFAULT_OUTPUT_TOKENS, Budget, BudgetExceeded, priced
from assay.models.config import ModelConfig

# 1 USD per million input tokens, 4 per million output tokens
CFG = ModelConfig("m", "http://127.0.0.1:1/v1", "x", price_in_per_mtok=1.0,
                  price_out_per_mtok=4.0)
MSG = [{"role": "system", "content": "s" * 100}, {"role": "user", "content": "u" * 900}]


def test_first_estimate_is_one_token_a_character_and_max_tokens_or_1024_out() -> None:
    b = Budget(10.0)
    assert b.estimate(CFG, MSG, {}) == pytest.approx((1000 * 1 + DEFAULT_OUTPUT_TOKENS * 4)
                                                     / 1e6)
    assert b.estimate(CFG, MSG, {"max_tokens": 50}) == pytest.approx((1000 + 200) / 1e6)
    assert b.estimate(CFG, MSG, {"max_completion_tokens": 10}) == pytest.approx(1040 / 1e6)


def test_estimate_learns_tokens_per_character_and_the_largest_completion() -> None:
    b = Budget(10.0)
    guess = b.reserve(CFG, MSG, {})
    assert b.in_flight == pytest.approx(guess) and b.requests == 1
    b.settle(guess, CFG, MSG, Usage(250, 30))
    assert b.in_flight == 0.0
    assert b.spent == pytest.approx((250 + 30 * 4) / 1e6)
    # 0.25 tokens a character now, and 30 tokens out (capped by max_tokens when smaller)
    short = [{"role": "user", "content": "x" * 400}]
    assert b.estimate(CFG, short, {}) == pytest.approx((100 + 120) / 1e6)
    assert b.estimate(CFG, short, {"max_tokens": 5}) == pytest.approx((100 + 20) / 1e6)
    b.settle(0.0, CFG, short, Usage(100, 10))
    assert b.estimate(CFG, short, {}) == pytest.approx((100 + 120) / 1e6)  # largest, not last


def test_a_request_is_refused_when_spent_plus_in_flight_plus_it_would_pass() -> None:
    cheap = ModelConfig("c", "http://127.0.0.1:1/v1", "x", price_in_per_mtok=1000.0,
                        price_out_per_mtok=1000.0)
    one = [{"role": "user", "content": "x" * 10}]  # 10 tokens + 10 out: 0.02 USD
    b = Budget(0.05)
    first = b.reserve(cheap, one, {"max_tokens": 10})
    second = b.reserve(cheap, one, {"max_tokens": 10})
    assert (first, second) == (pytest.approx(0.02), pytest.approx(0.02))
    with pytest.raises(BudgetExceeded) as exc:  # 0.04 in flight + 0.02 > 0.05
        b.reserve(cheap, one, {"max_tokens": 10})
    assert str(exc.value) == ("budget 0.05 USD: spent 0, in flight ~0.04, next request to c "
                              "~0.02")
    assert b.requests == 2
    b.settle(first, cheap, one, Usage(2, 3))  # cheaper
    assert b.spent == pytest.approx(0.005) and b.in_flight == pytest.approx(0.02)
    b.reserve(cheap, one, {"max_tokens": 10})  # 0.005 + 0.02 + estimate ≤ 0.05 now
    # a failed request (no usage) costs nothing, and its estimate is released
    b.settle(second, cheap, one, Usage())
    assert b.spent == pytest.approx(0.005)


def test_budget_must_be_positive_and_a_model_priced() -> None:
    with pytest.raises(ConfigError):
        Budget(0.0)
    assert priced(CFG)
    assert not priced(ModelConfig("f", "http://127.0.0.1:1/v1", "x"))
    assert priced(ModelConfig("o", "http://127.0.0.1:1/v1", "x", price_out_per_mtok=2.0))
