"""Reasoning set aside: what a model thought on the way is not what it answered.

Reasoning models write their drafts in a block before the answer (`<think>…</think>`, Kimi's
`◁think▷…◁/think▷`, gpt-oss's analysis channel) or in a preamble ("Reasoning: …  Final answer:
…"). Figures in those drafts are not the answer; a verdict inside them is not the verdict. A
server that strips the opening tag leaves a bare `</think>`: everything before it is reasoning.
A block that never closes holds no answer at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TAGS = r"think|thinking|reasoning|reason|analysis|scratchpad|thought|thoughts|reflection"
_BLOCK = re.compile(rf"<\s*({_TAGS})\s*>(.*?)<\s*/\s*\1\s*>|◁think▷(.*?)◁/think▷",
                    re.IGNORECASE | re.DOTALL)
_CLOSE_ONLY = re.compile(rf"<\s*/\s*(?:{_TAGS})\s*>|◁/think▷", re.IGNORECASE)
_OPEN_ONLY = re.compile(rf"<\s*(?:{_TAGS})\s*>|◁think▷", re.IGNORECASE)
# gpt-oss (harmony): <|channel|>analysis<|message|>…<|end|>…<|channel|>final<|message|>answer
_HARMONY_FINAL = re.compile(r"<\|channel\|>\s*final\s*<\|message\|>", re.IGNORECASE)
_HARMONY_TOKEN = re.compile(r"<\|[a-z_]+\|>", re.IGNORECASE)
# A preamble that announces itself as reasoning, ended by a line that announces the answer.
_PREAMBLE = re.compile(
    r"^\s*(?:\*\*|#+\s*)?(?:reasoning|thinking|thought process|chain of thought|analysis|"
    r"scratchpad|思考过程|思考|推理过程|推理|分析过程)\s*(?:\*\*)?\s*[:：]", re.IGNORECASE | re.MULTILINE)


def _preamble(text: str) -> re.Match[str] | None:
    """A reasoning preamble in the answer's first lines (after a greeting or a fence)."""
    return _PREAMBLE.search(text, 0, 300)
_ANSWER_LINE = re.compile(
    r"^\s*(?:\*\*|#+\s*)?(?:final answer|answer|最终答案|最终回答|答案|回答|结论)\s*(?:\*\*)?\s*[:：]",
    re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Reasoning:
    text: str  # what remains: the answer
    blocks: tuple[str, ...]  # what was set aside, in order
    how: str  # "" when nothing was set aside


def set_aside(text: str) -> Reasoning:
    """The answer without its reasoning, and the reasoning kept apart (as evidence)."""
    if "<" not in text and "◁" not in text and _preamble(text) is None:
        return Reasoning(text, (), "")
    blocks: list[str] = []
    hows: list[str] = []
    final = _HARMONY_FINAL.search(text)
    if final is not None:
        blocks.append(_HARMONY_TOKEN.sub(" ", text[:final.start()]).strip())
        text = text[final.end():]
        hows.append("analysis channel")
    text = _HARMONY_TOKEN.sub(" ", text) if "<|" in text else text

    def cut(m: re.Match[str]) -> str:
        blocks.append((m.group(2) if m.group(2) is not None else m.group(3) or "").strip())
        return " "  # not a newline: the block may sit inside a JSON string

    text, n = _BLOCK.subn(cut, text)
    if n:
        hows.append("think block")
    closes = list(_CLOSE_ONLY.finditer(text))
    if closes:  # the opening tag was stripped by the server: all before the last close
        last = closes[-1]
        blocks.append(_OPEN_ONLY.sub(" ", text[:last.start()]).strip())
        text = text[last.end():]
        hows.append("think block (no opening tag)")
    opened = _OPEN_ONLY.search(text)
    if opened is not None:  # never closed: the rest is reasoning, no answer follows
        blocks.append(text[opened.end():].strip())
        text = text[:opened.start()]
        hows.append("unclosed think block")
    pre = _preamble(text)
    if pre is not None:
        answer = [a for a in _ANSWER_LINE.finditer(text) if a.start() > pre.start()]
        if answer:
            blocks.append(text[:answer[-1].start()].strip())
            text = text[answer[-1].end():]  # the label "Final answer:" is not the answer
            hows.append("reasoning preamble")
    return Reasoning(text.strip(), tuple(b for b in blocks if b), ", ".join(hows))
