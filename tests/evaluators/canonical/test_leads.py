"""The canonical form's cheaper scans decide as the plain ones did.

Five patterns are led by a class of the characters a match can start with, `(?=[…])(?:body)`,
so the engine tests one class at each place instead of entering every branch (IGNORECASE keeps
it from skipping to a first character by itself). That is the same pattern only if the class
holds every character the body's matches can start with, under the pattern's own flags: checked
here from the parsed body, and by comparing matches on texts built from the body's own words.
The gates that replaced generators (an ASCII letter, an ASCII capital, an arrow, a traditional
character) are checked against what they replaced."""

from __future__ import annotations

import re
from re import _parser  # type: ignore[attr-defined]

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.core.casing import has_ascii_letter, has_ascii_upper
from assay.evaluators.canonical import (
    corrections,
    letters,
    numerals,
    quotes,
    script,
    signs,
)
from assay.evaluators.rubric.words import _first

LED = {
    "self-correction markers": corrections.MARKERS,
    "day.month.year": quotes._DMY,
    "contract month": quotes._CONTRACT_EN,
    "number words": numerals._SPELLED,
    "telephone numbers": letters._PHONE,
}
_LEAD = re.compile(r"\(\?=\[([^\]]+)\]\)")


def _split(pattern: str) -> tuple[str, str]:
    """(the lead class's characters, the body) of a led pattern."""
    m = _LEAD.match(pattern)
    assert m is not None, f"not led by a class: {pattern[:40]!r}"
    body = pattern[m.end():]
    if body.startswith("(?:") and body.endswith(")"):
        body = body[3:-1]
    return m.group(1), body


@pytest.mark.parametrize("name", list(LED))
def test_the_lead_class_holds_every_first_character_of_the_body(name: str) -> None:
    led = LED[name]
    lead, body = _split(led.pattern)
    firsts, blank = _first(_parser.parse(body, led.flags).data)
    assert firsts is not None and not blank, name  # a body whose matches start anywhere: no lead
    cls = re.compile(f"[{lead}]", led.flags)
    missing = sorted(c for c in firsts if not cls.fullmatch(c))
    assert missing == [], f"{name}: the lead misses {missing}"
    # and no match of the body starts with a blank (`_first` passes over blanks)
    assert not re.compile(body, led.flags).match(" " + "x" * 3)


def _words(pattern: str) -> list[str]:
    """The body's literal runs: the stuff texts that reach deep into its branches are made of."""
    return [w for w in re.split(r"[\\()\[\]|?*+{}^$.:=<!,-]+", pattern) if w.strip()]


_PIECES = sorted({w for p in LED.values() for w in _words(_split(p.pattern)[1])}
                 | {"Wait, ", "ACTUALLY, it's ", "更正：", "不对，", "？不，是", "31.12.2024", "Dec25",
                    "DEC-25 contract", "twenty-five thousand", "Point", "ſep", "İ", "v1.2.2024",
                    "版本1.2.2024", "+86 21 6888 1234", "(021) 6888-1234", "0", " ", "\n", "，",
                    "。", "$", "1", "05", "2024", "2,"})


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=12))
def test_a_led_pattern_finds_what_its_body_finds(parts: list[str]) -> None:
    text = "".join(parts)
    for name, led in LED.items():
        _, body = _split(led.pattern)
        plain = re.compile(body, led.flags)
        assert [m.span() for m in led.finditer(text)] == \
               [m.span() for m in plain.finditer(text)], (name, text)


@given(st.text(max_size=40))
def test_the_gates_say_what_the_generators_said(text: str) -> None:
    assert has_ascii_letter(text) == any(c.isascii() and c.isalpha() for c in text)
    assert has_ascii_upper(text) == any(c.isupper() for c in text if c.isascii())
    assert signs._arrows(text) == any(c in text for c in signs._UP + signs._DOWN)
    assert (not script._TRADITIONAL.isdisjoint(text)) == any(c in script._TRADITIONAL
                                                            for c in text)


@pytest.mark.parametrize(("text", "letter"), [
    ("贵州茅台最新股价为1455.00元", False), ("收盘价 1,455.00 HK$", True), ("ſ", False),
    ("\u212a", False), ("\u00e9", False), ("2024-12-31", False), ("x", True), ("Z", True)])
def test_an_ascii_letter_is_a_to_z_either_case(text: str, letter: bool) -> None:
    assert has_ascii_letter(text) is letter


def test_text_without_an_ascii_letter_holds_no_english_month_or_number_word() -> None:
    # why the gate may pass such text over: "ſ" and "K" are IGNORECASE's only non-ASCII
    # partners of these words' letters, and every word holds another letter
    for word in ("sep", "sept", "dec", "jan", "twenty", "thousand", "point", "six", "seventy"):
        odd = word.replace("s", "ſ").replace("k", "\u212a")
        assert has_ascii_letter(odd), word


_LINE_PIECES = ["\n", "\n\n", "  ", "\t", "- ", "1. ", "AAPL", "腾讯控股", "Apple Inc", ": ", "：",
                "$", "HK$", "412.50", "1,455.00", "元", " (+1.2%)", " ▲", " -3", "，", "Best regards",
                "此致", "谢谢", "Disclaimer:", "**免责声明**：", "风险提示:", "x", "。", "\u2028"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_LINE_PIECES), max_size=14))
def test_a_line_start_pattern_finds_and_replaces_what_re_does(parts: list[str]) -> None:
    text = "".join(parts)
    for line_starts, repl in ((quotes._QUOTE_LINE, quotes._quote),
                              (letters._VALEDICTION, None), (letters._DISCLAIMER, None)):
        plain = re.compile(line_starts.pattern, line_starts._pattern.flags)
        assert [m.span() for m in line_starts.finditer(text)] == \
            [m.span() for m in plain.finditer(text)], text
        found = line_starts.search(text)
        expected = plain.search(text)
        assert (found.span() if found else None) == (expected.span() if expected else None)
        if repl is not None:
            assert line_starts.sub(repl, text) == plain.sub(repl, text), text


def test_line_starts_sub_with_a_template_and_empty_matches() -> None:
    from assay.evaluators.canonical.steps import LineStarts

    for pattern in (r"^(\w)", r"^", r"^$", r"^(?=a)"):
        p = re.compile(pattern, re.MULTILINE)
        for text in ("", "a", "ab\ncd\n", "\n\na\n", "x\n\n"):
            ls = LineStarts(p)
            assert [m.span() for m in ls.finditer(text)] == [m.span() for m in p.finditer(text)]
            assert ls.sub(r"<\g<0>>", text) == p.sub(r"<\g<0>>", text), (pattern, text)
