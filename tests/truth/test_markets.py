"""The market a stock code is listed on (`markets.listing`): the one reading that routing
(`table_market`), the names (an A-share's exchange) and the rubric (an item's listing) share.
Its answers are pinned on the codes those three classified before they shared it (the sample
datasets' tickers in each source's spelling, and the edges), as they classified them."""

from __future__ import annotations

import pytest

from assay.evaluators.rubric.instruments import _listing
from assay.truth.markets import Listing, listing
from assay.truth.routing import table_market

CN, HK, US = "cn_stock", "hk_stock", "us_stock"
PINNED: list[tuple[str, tuple[str, str, bool] | None]] = [
    # the tables' own codes (an item's akshare_ticker)
    ("600519", (CN, "SH", True)), ("601318", (CN, "SH", True)), ("900901", (CN, "SH", True)),
    ("000001", (CN, "SZ", True)), ("000858", (CN, "SZ", True)), ("300750", (CN, "SZ", True)),
    ("399001", (CN, "SZ", True)),  # an index's code too: the item's tags tell which
    ("430047", (CN, "BJ", True)), ("830799", (CN, "BJ", True)), ("920001", (CN, "BJ", True)),
    ("00700", (HK, "HK", True)), ("00005", (HK, "HK", True)), ("09988", (HK, "HK", True)),
    ("105.AAPL", (US, "O", True)), ("106.PM", (US, "N", True)), ("107.BRK_A", (US, "A", True)),
    ("106.PM.USA", (US, "N", True)), ("106.DIS.USA", (US, "N", True)),
    ("153.XYZ", (US, "", True)),
    # Wind's and people's spellings
    ("600519.SH", (CN, "SH", False)), ("000858.SZ", (CN, "SZ", False)),
    ("600519.sh", (CN, "SH", False)), ("600519___SH", (CN, "SH", False)),
    ("0700.HK", (HK, "HK", False)), ("0005.HK", (HK, "HK", False)),
    ("9988.HK", (HK, "HK", False)), ("0700.hk", (HK, "HK", False)),
    ("AAPL.O", (US, "O", False)), ("PM.N", (US, "N", False)), ("AAPL.OQ", (US, "O", False)),
    ("AAPL.US", (US, "", False)), ("106___PM", (US, "N", False)),
    # what was read so before, and still is: three digits and a dot are East Money's US form
    ("700.HK", (US, "", True)),
    # a full-width code is read as digits (its exchange, by its ASCII first digit, is SZ)
    ("６００５１９", (CN, "SZ", True)),
    # no stock's code by its form: bare tickers, indices, pairs, metals, Yahoo's .SS
    ("AAPL", None), ("PM", None), ("BRK.B", None), ("HSI", None), ("HSI.HI", None),
    ("SPX.GI", None), ("DJIA", None), ("USDCNH", None), ("USDCNH.FX", None),
    ("USDCNY.IB", None), ("USD/CNY", None), ("SHAU.SGE", None), ("GC.CMX", None),
    ("Au99.99", None), ("600519.SS", None), (" 600519", None), ("", None),
]


@pytest.mark.parametrize(("code", "expected"), PINNED)
def test_the_market_of_a_code(code: str, expected: tuple[str, str, bool] | None) -> None:
    found = listing(code)
    assert found == (Listing(*expected) if expected is not None else None)
    # routing reads a stock's table from the code as the tables write it
    assert table_market(code, "Stock") == (found.market if found and found.table else None)
    # the rubric reads the item's listing from its tickers
    letter = {CN: "A", HK: "H", US: "US"}[found.market] if found is not None else ""
    assert _listing((code,), "", "") == letter
    assert _listing(("", "AAPL", code), "", "") == letter  # the first one that says


def test_the_rubric_reads_the_listing_from_the_words_first() -> None:
    assert _listing(("600519",), "", "港股 腾讯") == "H"
    assert _listing((), "600519.SH", "") == "A"  # the truth's own code
