"""Where an answer states its final answer.

The written rules grade the final answer, not figures met in the reasoning. An answer marks its
conclusion with words ("因此", "综上", "最终", "答案为", "In summary", "Therefore") or ends with a
table. The reader tries, for each key point, the blocks that run from such a marker to the end
of the answer — strong markers (综上, 最终, 答案为, In summary …) latest first, then the last
table, then weak ones (因此, 所以, therefore …), then the whole answer — and takes the first that
says anything about the point. Each block has a head: the marker's own sentence (with the list
or table it introduces), which is the conclusion when the block also holds other figures.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from assay.evaluators.canonical.corrections import MARKERS as CORRECTIONS

STRONG = re.compile(
    r"综上所述|综上|综合来看|综合以上|综合上述|总结|总之|结论|最终答案|最终结果|最终|"
    r"答案(?:是|为|：|:|如下)|回答(?:：|:)|"
    r"(?<![a-z])(?:in\s+summary|to\s+summari[sz]e|summary|to\s+sum\s+up|in\s+conclusion|"
    r"conclusion|final\s+answer|the\s+answer\s+is|answer\s*[:：]|in\s+short|overall,)",
    re.IGNORECASE)
WEAK = re.compile(
    r"因此|所以|故答案|由此可见|由此可知|可见|可知|即为|"
    r"(?<![a-z])(?:therefore|thus|hence|so,|so\s+the|as\s+a\s+result|consequently|"
    r"accordingly)(?![a-z])",
    re.IGNORECASE)
_SENTENCE_END = re.compile(r"[。！？!?；;]|\n|\.(?=\s|$)")
_TABLE_LINE = re.compile(r"^\s*\|.*\|\s*$")
_BLANK_LINE = re.compile(r"\n\s*\n")


# A word every match of the pattern holds, one per alternative (lower case): an answer
# without any (in its `.lower()`) has no match, unless it holds İ, ı or ſ — the only characters
# IGNORECASE takes for an ASCII letter that `.lower()` does not give as one — and is searched.
_STRONG_WORDS = ("综", "总", "结论", "最终", "答案", "回答", "sum", "conclusion", "final", "answer",
                 "short", "overall,")
_WEAK_WORDS = ("因此", "所以", "故答案", "可见", "可知", "即为", "therefore", "thus", "hence", "so",
               "result", "consequently", "accordingly")
_CORRECTION_WORDS = ("wait", "actually", "no,", "hold on", "correct", "let me ",
                     "on second thought", "scratch that", "my ", "made ", "i mis", "sorry", "that",
                     "更正", "修正", "纠正", "订正", "不对", "等等", "等一下", "重新", "再核对", "核对后",
                     "经核实", "我算错", "算错了", "写错了", "说错了", "有误", "抱歉", "?", "？")
_CASE_ODD = ("\u0130", "\u0131", "\u017f")


def _found(rx: re.Pattern[str], words: tuple[str, ...], text: str,
           pos: int = 0) -> list[re.Match[str]]:
    """`list(rx.finditer(text, pos))`, searched only where one of `words` is."""
    if not any(c in text for c in _CASE_ODD):
        low = text.lower()
        if not any(w in low for w in words):
            return []
    return list(rx.finditer(text, pos))


def _table_line(line: str) -> bool:
    r"""`_TABLE_LINE.match(line)`, tried only on a line whose first non-blank character is '|'
    (`\s` and `str.isspace` are the same set; checked over every code point)."""
    return line.lstrip()[:1] == "|" and _TABLE_LINE.match(line) is not None


@dataclass(frozen=True, slots=True)
class Block:
    start: int
    end: int
    why: str  # the marker word, "last table" or "whole answer"
    head: tuple[int, int]  # the marker's statement
    strong: bool


def sentence_end(text: str, pos: int) -> int:
    m = _SENTENCE_END.search(text, pos)
    return m.end() if m else len(text)


def sentence_start(text: str, pos: int) -> int:
    k = pos
    while k > 0:
        c = text[k - 1]
        if c in "。！？!?；;\n" or (c == "." and k < len(text) and text[k].isspace()):
            break
        k -= 1
    return k


def _head(text: str, pos: int) -> tuple[int, int]:
    """The marker's statement: its sentence; a heading or a sentence ending in a colon takes
    the paragraph, list or table that follows."""
    end = sentence_end(text, pos)
    stated = text[pos:end]
    body = re.sub(r"[*#_`\s:：,，.。]|" + STRONG.pattern + "|" + WEAK.pattern, "", stated,
                  flags=re.IGNORECASE)
    if stated.rstrip().endswith((":", "：")) or not body:
        m = _BLANK_LINE.search(text, end)
        nxt = m.start() if m else len(text)
        # a list or table may itself be split by blank lines: take it whole
        while m and nxt < len(text):
            rest = text[m.end():]
            if re.match(r"\s*(?:[-*•|]|\d{1,2}[.、)])", rest):
                m = _BLANK_LINE.search(text, m.end())
                nxt = m.start() if m else len(text)
            else:
                break
        end = max(end, nxt)
    return pos, end


def tables(text: str) -> list[tuple[int, int]]:
    """Spans of markdown tables (runs of lines that start and end with '|')."""
    out: list[tuple[int, int]] = []
    pos = 0
    start = None
    last_end = 0
    for line in text.splitlines(keepends=True):
        is_row = _table_line(line.rstrip("\n"))
        if is_row and start is None:
            start = pos
        if is_row:
            last_end = pos + len(line.rstrip("\n"))
        if not is_row and start is not None:
            out.append((start, last_end))
            start = None
        pos += len(line)
    if start is not None:
        out.append((start, last_end))
    return out


def blocks(text: str, tool_end: int = -1) -> list[Block]:
    """Candidate final blocks, the one to try first first. `tool_end`: where a pasted tool
    output ends and the answer's own words begin (canonical form), a floor like a correction's."""
    n = len(text)
    out: list[Block] = []
    seen: set[int] = set()

    def add(start: int, why: str, head: tuple[int, int], strong: bool) -> None:
        if start not in seen:
            seen.add(start)
            out.append(Block(start, n, why, head, strong))

    floor = max(correction_floor(text), tool_end if 0 < tool_end < n else 0)
    for m in reversed(_found(STRONG, _STRONG_WORDS, text, floor)):
        add(m.start(), m.group(0), _head(text, m.start()), True)
    # then, latest first: a weak marker, the last table, the lines after the last table
    rest: list[tuple[int, str, tuple[int, int], bool]] = []
    tbl = tables(text)
    if tbl:
        s, e = tbl[-1]
        rest.append((s, "last table", (s, e), True))
        if _DIGIT.search(text, e) is not None:  # words after the table that state a figure,
            # not a closing courtesy ("如需更多信息，请告诉我")
            after = e + (len(text[e:]) - len(text[e:].lstrip()))
            rest.append((after, "after the last table", (after, sentence_end(text, after)),
                         False))
    last = _last_line(text)
    if last is not None and last[0] >= floor:
        rest.append((last[0], "the last line", last, False))
    bold = [m for m in _BOLD.finditer(text, floor) if _DIGIT.search(m.group(1))]
    if len(bold) == 1:
        # "- **M2余额：313.5万亿元**，同比增长7.3%": the one figure the answer emphasises; its
        # clause is the conclusion ("其中 … 贡献约1052亿美元" after it is a part)
        b = bold[0]
        start = max(floor, max(text.rfind(c, 0, b.start()) for c in "\n。；;") + 1)
        ends = [k for k in (text.find(c, b.end()) for c in "\n。；;") if k >= 0]
        add(start, "the emphasised figure", (start, min(ends) if ends else n), True)
    for m in _found(WEAK, _WEAK_WORDS, text, floor):
        rest.append((m.start(), m.group(0), _head(text, m.start()), False))
    for start, why, head, strong in sorted(rest, key=lambda x: -x[0]):
        if start >= floor:
            add(start, why, head, strong)
    if floor:
        # "等一下，465.74亿元是2023年的数据；2024年为543.45亿元": what follows the correction's own
        # sentence is its answer, not the sentence that retracts the earlier figure
        after = sentence_end(text, floor)
        # the correction's own sentence is its answer ("Correction: it was a cut of 50 basis
        # points; the 25 bp moves came later") unless it only retracts an earlier figure
        # ("等一下，465.74亿元是2023年的数据；2024年为543.45亿元")
        before = set(_FIGURE.findall(text, 0, floor))
        retracts = bool(before & set(_FIGURE.findall(text, floor, after)))
        head = (after, n) if retracts and _DIGIT.search(text, after) is not None else (floor, n)
        add(floor, "after the tool output" if floor == tool_end else "the self-correction",
            head, False)
    else:
        add(0, "whole answer", (0, n), False)
    return out


_DIGIT = re.compile(r"\d")
_BOLD = re.compile(r"\*\*([^*\n]{1,80})\*\*")
_FIGURE = re.compile(r"\d[\d,]*(?:\.\d+)?")
# what a correction can restate: a figure or a name (a capitalised word, two CJK characters)
_RESTATED = re.compile(r"\d|\b[A-Z][a-z]+|[\u4e00-\u9fff]{2}")


_LABELLED_LINE = re.compile(r"[^\n:：]{1,24}[:：]\s*\S.{0,40}")


def _last_line(text: str) -> tuple[int, int] | None:
    """The answer's last short paragraph after a list or a table ("- Apple: $93.74B\n- …\n\n
    Alphabet reported the highest, at $100.12 billion.") or a short "label: answer" line that
    ends a list: the answer's conclusion. Not when every line is a "key: value" line (then the
    lines together are the answer)."""
    body = text.rstrip()
    for _ in range(2):  # past a closing courtesy ("如需更多信息，请告诉我。")
        start = body.rfind("\n") + 1
        tail = body[start:]
        if start and not _DIGIT.search(tail) and ":" not in tail and "：" not in tail \
                and len(tail) <= 40 and _COURTESY.search(tail):
            body = body[:start].rstrip()
    start = body.rfind("\n") + 1
    if start == 0:
        return None
    lines = [ln.strip() for ln in body.splitlines() if ln.strip()]
    if all(_KEY_VALUE.fullmatch(ln) for ln in lines):
        return None
    line = body[start:].strip(" *#>")
    before = body[:start].rstrip(" \t")
    prev = before.rstrip("\n").rsplit("\n", 1)[-1].strip()
    listed = bool(re.match(r"(?:[-*•|]|\d+[.、)])", prev))
    paragraph = before.endswith("\n\n") or (before.endswith("\n") and not prev)
    if line.startswith("[") or len(line) > 200 or re.match(r"(?:[-*•|]|\d+[.、)])", line):
        return None  # a footnote, a long paragraph, or the list's or table's own last row
    if ((paragraph or before.endswith("\n")) and listed) or \
            (_LABELLED_LINE.fullmatch(line) and (paragraph or listed)):
        return start, len(body)
    return None


_KEY_VALUE = re.compile(r"[-*•]?\s*[^\n:：]{1,40}[:：]\s*\S.{0,80}")
# a closing courtesy, not a conclusion ("最大的是美的集团。" is one)
_COURTESY = re.compile(r"如需|如有|请告诉|告诉我|希望|欢迎|随时|供参考|帮助|问题|谢谢|感谢|"
                       r"(?<![a-z])(?:let\s+me\s+know|hope|feel\s+free|happy\s+to|anything\s+else|questions?|help|"
                       r"thanks?|cheers|reference\s+only)(?![a-z])", re.IGNORECASE)


def correction_floor(text: str) -> int:
    """Where the answer's last self-correction starts (0 when none): what it said before is
    replaced by what it says after, so the final statement is looked for after it. A marker
    followed by no figure or name ("actually quite impressive") replaces nothing."""
    for m in reversed(_found(CORRECTIONS, _CORRECTION_WORDS, text)):
        if _RESTATED.search(text, m.end()) is not None:
            return m.start()
    return 0


def heads_after(text: str, block: Block) -> list[tuple[int, int]]:
    """Statements of markers that come after the block's own head, inside the block."""
    out = []
    for rx in (STRONG, WEAK):
        for m in rx.finditer(text, block.head[1]):
            out.append(_head(text, m.start()))
    return out


def row_of(text: str, pos: int) -> tuple[int, int] | None:
    """The table row (line) holding `pos`, if `pos` is in a table."""
    ls = text.rfind("\n", 0, pos) + 1
    le = text.find("\n", pos)
    le = len(text) if le < 0 else le
    return (ls, le) if _table_line(text[ls:le]) else None


def clause_before(text: str, pos: int, floor: int = 0) -> str:
    """The words before `pos` in its clause: back to a clause mark, a line start or `floor`."""
    k = pos
    while k > floor:
        c = text[k - 1]
        if c in "，,。；;！？!?\n|" and not (c == "," and k < len(text) and text[k].isdigit()
                                           and k >= 2 and text[k - 2].isdigit()):
            break
        k -= 1
    return text[k:pos]


def sentence_of(text: str, pos: int) -> str:
    return text[sentence_start(text, pos):sentence_end(text, pos)]


def column_header(text: str, pos: int) -> str:
    """The header cell above `pos` in its table ("2024年" over a column of values)."""
    row = row_of(text, pos)
    if row is None:
        return ""
    for s, e in tables(text):
        if s <= row[0] <= e:
            header = text[s:text.find("\n", s) if "\n" in text[s:e] else e]
            column = text[row[0]:pos].count("|") - 1
            cells = header.strip().strip("|").split("|")
            return cells[column].strip() if 0 <= column < len(cells) else ""
    return ""
