"""`words.literal` escapes only what has a meaning outside a class, where `re.escape` escapes
blanks, "-", "&" and "~" as well. The patterns built with it (the lexer's vocabularies, the
tries of month and index words) must compile to the very program `re.escape` gave: the same
matches, only cheaper to parse."""

from __future__ import annotations

import random
import re
import string
from re import _compiler, _parser  # type: ignore[attr-defined]

import pytest

from assay.evaluators.rubric import lexer, words


def _program(pattern: str, flags: int = 0) -> list[int]:
    return list(_compiler._code(_parser.parse(pattern, flags), flags))


def _built(monkeypatch: pytest.MonkeyPatch, escape: object, ws: list[str]) -> list[str]:
    monkeypatch.setattr(words, "literal", escape)
    return [words.led_by_first(ws, True, "etaoin"), words.led_by_first(ws, False),
            words.longest_first(ws), words.trie(ws)]


ALPHABET = string.ascii_lowercase[:6] + string.digits[:3] + string.punctuation + " \t价收盘涨"


@pytest.mark.parametrize("seed", range(40))
def test_generated_words_compile_as_with_re_escape(monkeypatch: pytest.MonkeyPatch,
                                                   seed: int) -> None:
    rng = random.Random(seed)
    ws = sorted({"".join(rng.choices(ALPHABET, k=rng.randint(1, 6))) for _ in range(30)})
    plain = _built(monkeypatch, words.literal, ws)
    escaped = _built(monkeypatch, re.escape, ws)
    for a, b in zip(plain, escaped, strict=True):
        for flags in (0, re.IGNORECASE):
            assert _program(a, flags) == _program(b, flags)
    text = " ".join(rng.choices(ws, k=10)) + " " + "".join(rng.choices(ALPHABET, k=40))
    for a, b in zip(plain, escaped, strict=True):
        assert [m.span() for m in re.finditer(a, text)] == [m.span() for m in re.finditer(b, text)]


def test_the_lexer_vocabularies_compile_as_with_re_escape(monkeypatch: pytest.MonkeyPatch) -> None:
    ascii_words, other_words = lexer._ASCII_WORDS, lexer._OTHER_WORDS
    assert any(" " in w or "-" in w for w in ascii_words)  # what the light escape is for
    for ws, boundary in ((ascii_words, True), (other_words, False)):
        monkeypatch.setattr(words, "literal", words.literal)
        plain = words.led_by_first(ws, boundary)
        monkeypatch.setattr(words, "literal", re.escape)
        escaped = words.led_by_first(ws, boundary)
        assert len(plain) < len(escaped) if boundary else len(plain) <= len(escaped)
        assert _program(plain) == _program(escaped)


def test_literal_escapes_what_a_pattern_reads() -> None:
    assert words.literal("s&p 500") == "s&p 500"
    assert words.literal("a.b (c)|d\\e*f+g?h^i$j{k}[l]") == r"a\.b \(c\)\|d\\e\*f\+g\?h\^i\$j\{k\}\[l\]"
    for ch in map(chr, range(0x250)):
        assert re.fullmatch(words.literal(ch), ch), repr(ch)
