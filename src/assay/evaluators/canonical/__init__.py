"""The canonical form of an answer: what every reader of free text reads.

An answer passes through named rewrites before the T1 reader, the T2/T3 reader or a judge's
reply parser reads it, so a decision does not change under a meaning-preserving rewrite of the
answer. Each rewrite is its own module, tested on its own, and each one that changed something
is named in the evidence ("read after: think block set aside, full-width → ASCII"):

1. `reasoning` — reasoning blocks and preambles set aside (kept as evidence);
2. `script` — traditional Chinese as simplified (OpenCC);
   `structured` — JSON / dicts / `key: value` / fences / REPL / `\\boxed{}` as statements;
3. `numerals` — full-width, minus signs, separators, exponents, Chinese numerals;
4. `signs` — arrows and accounting negatives as "+" / "-";
5. `quotes` — terse quote lines get their field word; contract months and "52-wk" as labels;
6. `corrections` — where the answer corrects itself (positions; readers supersede earlier
   values of the fields stated again).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from . import corrections, letters, numerals, quotes, reasoning, script, signs, structured

__all__ = ["MAX_CHARS", "Canonical", "canonical", "set_aside_reasoning", "too_long"]


@dataclass(frozen=True, slots=True)
class Canonical:
    """An answer as read: the text the readers see, and how it was made from the original."""

    source: str  # the answer as given
    text: str  # the canonical text (spans in a score's evidence index this text)
    rewrites: tuple[str, ...]  # the rewrites that changed something, in order
    reasoning: tuple[str, ...]  # reasoning set aside
    corrections: tuple[int, ...]  # offsets in `text` where a self-correction starts
    tool_end: int = -1  # where the last tool output (JSON, CSV, a fence) that prose follows ends

    @property
    def restated_from(self) -> int:
        """Values before this offset are replaced by values of the same field stated after it
        (a self-correction, or the answer's own words after a pasted tool output); -1: none."""
        return max(self.corrections[-1] if self.corrections else -1, self.tool_end)

    def evidence(self) -> dict[str, object]:
        """What a score's evidence says about the reading (empty when nothing changed)."""
        out: dict[str, object] = {}
        if self.rewrites:
            out["rewrites"] = list(self.rewrites)
        if self.text != self.source:
            out["text"] = self.text
        if self.reasoning:
            out["reasoning"] = list(self.reasoning)
        if self.corrections:
            out["corrections"] = list(self.corrections)
        if self.tool_end >= 0:
            out["tool_output_ends"] = self.tool_end
        return out


def set_aside_reasoning(text: str) -> reasoning.Reasoning:
    """Step 1 alone: what a judge's reply parser uses."""
    return reasoning.set_aside(text)


# The longest answer read (characters): a finance answer is a few thousand; past this the
# readers say so (status error) instead of spending seconds on it.
MAX_CHARS = 100_000
_CACHED_UP_TO = 20_000  # longer answers are not kept in the cache


def canonical(answer: str) -> Canonical:
    """The canonical form of `answer`. Pure; short answers are cached (a score run reads the
    same answer once per evaluator, the T1 rubric twice)."""
    return _cached(answer) if len(answer) <= _CACHED_UP_TO else _build(answer)


@lru_cache(maxsize=4096)
def _cached(answer: str) -> Canonical:
    return _build(answer)


def too_long(answer: str, zh: bool) -> str:
    """The reason an answer is not read ("" when it is read)."""
    if len(answer) <= MAX_CHARS:
        return ""
    return (f"回复长达{len(answer)}个字符，超过评分器读取的上限{MAX_CHARS}，未评分。" if zh else
            f"The answer is {len(answer):,} characters long, over the {MAX_CHARS:,} the rubric "
            "reads: not scored.")


def _build(answer: str) -> Canonical:
    # the tool-output mark is ours: one in the answer itself means nothing
    text = answer.replace(structured.TOOL_END, " ")
    if "\r" in text:  # CRLF and lone CR line ends as "\n": every reader splits lines on it
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = text.strip()
    done: list[str] = []
    r = reasoning.set_aside(text)
    if r.how:
        done.append(f"{r.how} set aside")
    text = r.text
    text, names = letters.set_aside(text)
    done += names
    text, names = numerals.fullwidth(text)
    done += names
    text, names = script.simplified(text)
    done += names
    blocks = r.blocks
    for _ in range(2):  # {"answer": "{\"price\": 1455}"}: a structure inside a structure
        text, names = structured.unwrap(text)
        done += [n for n in names if n not in done]
        if names:  # a fence or a wrapper may have held the reasoning too
            inner = reasoning.set_aside(text)
            if inner.how:
                text, blocks = inner.text, blocks + inner.blocks
                done.append(f"{inner.how} set aside")
        if "JSON as statements" not in names:
            break
    for step in (numerals.uniform, signs.uniform, quotes.uniform):
        text, names = step(text)
        done += names
    text = text.strip()
    tool_end = text.find(structured.TOOL_END)
    if tool_end >= 0:
        text = text.replace(structured.TOOL_END, "")
        done.append("tool output before the answer's own words")
    return Canonical(answer, text, tuple(done), blocks, corrections.positions(text), tool_end)
