"""The canonical form of an answer: what every reader of free text reads.

An answer passes through named rewrites before the T1 reader, the T2/T3 reader or a judge's
reply parser reads it, so a decision does not change under a meaning-preserving rewrite of the
answer. Each rewrite is its own module, tested on its own, and each one that changed something
is named in the evidence ("read after: think block set aside, full-width → ASCII"):

1. `reasoning` — reasoning blocks and preambles set aside (kept as evidence);
2. `structured` — JSON / dicts / `key: value` / fences / REPL / `\\boxed{}` as statements;
3. `numerals` — full-width, minus signs, separators, exponents, Chinese numerals;
4. `signs` — arrows and accounting negatives as "+" / "-";
5. `quotes` — terse quote lines get their field word; contract months and "52-wk" as labels;
6. `corrections` — where the answer corrects itself (positions; readers supersede earlier
   values of the fields stated again).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from . import corrections, numerals, quotes, reasoning, signs, structured

__all__ = ["Canonical", "canonical", "set_aside_reasoning"]


@dataclass(frozen=True, slots=True)
class Canonical:
    """An answer as read: the text the readers see, and how it was made from the original."""

    source: str  # the answer as given
    text: str  # the canonical text (spans in a score's evidence index this text)
    rewrites: tuple[str, ...]  # the rewrites that changed something, in order
    reasoning: tuple[str, ...]  # reasoning set aside
    corrections: tuple[int, ...]  # offsets in `text` where a self-correction starts

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
        return out


def set_aside_reasoning(text: str) -> reasoning.Reasoning:
    """Step 1 alone: what a judge's reply parser uses."""
    return reasoning.set_aside(text)


@lru_cache(maxsize=4096)
def canonical(answer: str) -> Canonical:
    """The canonical form of `answer`. Pure; cached (a score run reads the same answers once per
    evaluator)."""
    text = answer.strip()
    done: list[str] = []
    r = reasoning.set_aside(text)
    if r.how:
        done.append(f"{r.how} set aside")
    text = r.text
    text, names = numerals.fullwidth(text)
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
    return Canonical(answer, text, tuple(done), blocks, corrections.positions(text))
