"""Properties: a number written with separators, in full-width digits or with a scale reads
back as itself; a fold applied twice changes nothing more; exact with a fold agrees with
comparing the folded texts."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.evaluators.builtin.base import Normaliser

from .helpers import value

_FULL = str.maketrans("0123456789,.-", "０１２３４５６７８９，．－")
amounts = st.decimals(min_value=Decimal("-9999999.99"), max_value=Decimal("9999999.99"),
                      places=2, allow_nan=False, allow_infinity=False)


@settings(max_examples=80, deadline=None)
@given(amounts)
def test_numeric_reads_every_written_form_back(amount: Decimal) -> None:
    grouped = f"{amount:,.2f}"
    for answer in (f"收盘价为{grouped}元", f"price {grouped} USD", grouped.translate(_FULL),
                   f"变动{grouped.replace('-', '−')}元"):
        assert value("numeric", answer, str(amount)) == 1.0, answer
    if abs(amount) >= 1:
        assert value("numeric", f"约{amount / 10000:f}万元", str(amount)) == 1.0


def test_fold_is_stable_when_a_dropped_mark_leaves_a_pair_that_composes() -> None:
    fold = Normaliser(ignore_punctuation=True, fullwidth=True)
    text = "cafe.\u0301"  # dropping "." leaves e + a combining acute: NFKC makes it "é"
    assert fold(text) == "café" == fold(fold(text))
    assert value("exact", text, "café", ignore_punctuation=True, fullwidth=True) == 1.0


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=40), st.booleans(), st.booleans(), st.booleans(), st.booleans())
def test_folds_are_idempotent_and_exact_agrees(text: str, case: bool, blanks: bool,
                                               punct: bool, full: bool) -> None:
    fold = Normaliser(case, blanks, punct, full)
    once = fold(text)
    assert fold(once) == once
    # so an answer always equals its own folded form under the same folds
    args = {"ignore_case": case, "ignore_whitespace": blanks, "ignore_punctuation": punct,
            "fullwidth": full}
    assert value("exact", text, once, **args) == 1.0
