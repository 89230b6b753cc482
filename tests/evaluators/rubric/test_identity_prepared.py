"""An item's instrument and time, read with tables prepared once, as the per-item loops read them.

`identity` runs once per distinct question (most items of a real run): its alias groups are now
found through an index, its stop words and listing words sorted at import, and an item's time
in the usual form read without strptime. Each is compared with the loop it replaced."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.evaluators.rubric import instruments as I
from assay.truth import vocabulary as V


def _aliases_by_groups(names: list[str], groups: tuple[tuple[str, ...], ...]) -> list[str]:
    """The loop `_add_aliases` replaced: every group in order, tested against the names so far."""
    out = list(names)
    for group in groups:
        if any(a in out for a in group):
            out.extend(a for a in group if a not in out)
    return out


_WORDS = [*sorted({a for g in I._ALIASES for a in g}), "600519", "贵州", "shares", "apple inc"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_WORDS), max_size=6, unique=True))
def test_aliases_are_added_as_the_pass_over_the_groups_added_them(names: list[str]) -> None:
    got = list(names)
    I._add_aliases(got)
    assert got == _aliases_by_groups(names, I._ALIASES)


@pytest.mark.parametrize(("names", "expected"), [
    (["a"], ["a", "b", "e"]),  # group 0 adds b, which brings in the later group 2
    (["e"], ["e", "b"]),  # group 2 adds b; group 0 came before it and is not met again
    (["c"], ["c", "d"]),
    (["d", "a"], ["d", "a", "b", "c", "e"]),
    (["x"], ["x"]),
])
def test_a_name_a_group_adds_brings_in_only_later_groups(
        monkeypatch: pytest.MonkeyPatch, names: list[str], expected: list[str]) -> None:
    groups = (("a", "b"), ("c", "d"), ("b", "e"))
    monkeypatch.setattr(I, "_ALIASES", groups)
    monkeypatch.setattr(I, "_ALIAS_GROUPS", {"a": (0,), "b": (0, 2), "c": (1,), "d": (1,),
                                             "e": (2,)})
    got = list(names)
    I._add_aliases(got)
    assert got == expected == _aliases_by_groups(names, groups)


def test_a_question_naming_one_alias_gets_the_company_s_other_names() -> None:
    ident = I.identity.__wrapped__("茅台的最新股价是多少？", "必答点：茅台最新股价", (), "", "", "Stock")
    assert [n for n in ident.names if n in ("贵州茅台", "茅台", "kweichow moutai", "moutai")] \
        == ["茅台", "贵州茅台", "kweichow moutai", "moutai"]
    us = I.identity.__wrapped__("Apple (AAPL) latest price", "AAPL latest price", ("AAPL.O",),
                                "", "", "Stock")
    assert "苹果" in us.names and us.listing == "US" and us.currency == "USD"


def test_the_listing_word_read_is_the_longest_of_those_in_the_question() -> None:
    # "港股市场" (H) holds "港股"; "a股市场" holds "a股": the longer word decides, as before
    assert I._listing((), "", "腾讯控股 港股市场 最新价") == "H"
    assert I._listing((), "", "中国平安 a股 最新价") == "A"
    assert I._listing(("0700.HK",), "", "腾讯 最新价") == "H"
    assert I._listing((), "", "最新价") == ""


def test_an_item_s_stop_words_leave_its_names_in_chinese_only() -> None:
    assert I._names_of("贵州茅台最新股价是多少") == ["贵州茅台"]
    assert I._names_of("What is Kweichow Moutai's latest price") == \
        ["kweichow", "moutai", "kweichow moutai"]


def _time_by_strptime(value: str) -> datetime:
    for fmt in ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d", "%Y/%m/%d %H:%M:%S", "%Y/%m/%d"):
        try:
            return datetime.strptime(value.strip(), fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    return datetime(1970, 1, 1, tzinfo=UTC)


_TIMES = st.builds(
    lambda y, mo, d, h, mi, s, sep, pad: f"{pad}{y}{sep}{mo}{sep}{d} {h}:{mi}:{s}{pad}",
    st.sampled_from(["2025", "1999", "0001", "9999", "202", "٢٠٢٥", "２０２５"]),
    st.sampled_from(["10", "01", "1", "13", "00", "02", "١٠", "１０", "1٠"]),
    st.sampled_from(["17", "30", "31", "29", "00", "7", "١٧", "１７"]),
    st.sampled_from(["10", "00", "23", "24", "7", "١٠", "0٥"]),
    st.sampled_from(["35", "00", "59", "60", "٣٥"]),
    st.sampled_from(["05", "59", "60", "61", "5", "٠5", "０５"]),
    st.sampled_from(["-", "/"]), st.sampled_from(["", " ", "\t"]))


@settings(max_examples=300, deadline=None)
@given(st.one_of(_TIMES, st.text(max_size=25)))
def test_an_item_s_time_is_the_instant_strptime_reads(value: str) -> None:
    assert V._item_time(value) == _time_by_strptime(value)


def test_the_usual_time_and_the_impossible_ones() -> None:
    assert V._item_time("2025-10-17 10:35:05") == datetime(2025, 10, 17, 10, 35, 5, tzinfo=UTC)
    assert V._item_time("2025-02-30 10:00:00") == datetime(1970, 1, 1, tzinfo=UTC)
    assert V._item_time("2025-10-17") == datetime(2025, 10, 17, tzinfo=UTC)
    # other scripts' digits: strptime reads them in the year, not in the month or the time
    assert V._item_time("2025-١٠-17 10:35:05") == datetime(1970, 1, 1, tzinfo=UTC)
    assert V._item_time("２０２５-１０-１７ １０:３５:０５") == datetime(1970, 1, 1, tzinfo=UTC)
    assert V._item_time("٢٠٢٥-10-17 10:35:05") == datetime(2025, 10, 17, 10, 35, 5, tzinfo=UTC)
