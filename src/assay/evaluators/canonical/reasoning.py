"""Reasoning set aside: what a model thought on the way is not what it answered.

Reasoning models write their drafts in a block that opens their reply (`<think>…</think>`,
Kimi's `◁think▷…◁/think▷`), in gpt-oss's analysis channel, or in a preamble ("Reasoning: …
Final answer: …"). Figures in those drafts are not the answer; a verdict inside them is not the
verdict. A server that strips the opening tag leaves a bare `</think>` on its own line:
everything before it is reasoning. A block that never closes holds no answer at all.

Only reasoning that opens the reply counts: a tag mentioned later ("the response hid its work
in a <think> block", a judge's reason) is text, not a block. Every search is a `str.find`, so
the time is linear in the reply whatever tags it repeats.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from assay.core.lazy_pattern import lazy

_TAGS = ("think", "thinking", "reasoning", "reason", "analysis", "scratchpad", "thought",
         "thoughts", "reflection")
_OPEN = lazy(r"<\s*(" + "|".join(_TAGS) + r")\s*>|◁think▷", re.IGNORECASE)
# a bare closing tag on a line of its own (or ending one): the server dropped the opening tag
_CLOSE_LINE = lazy(r"<\s*/\s*(?:" + "|".join(_TAGS) + r")\s*>[ \t]*(?:\n|$)|◁/think▷",
                         re.IGNORECASE)
_HARMONY_TOKEN = lazy(r"<\|[a-z_]{1,12}\|>", re.IGNORECASE)
_HARMONY_FINAL = "<|channel|>final<|message|>"
_PREAMBLE = lazy(
    r"^\s*(?:\*\*|#+\s*)?(?:reasoning|thinking|thought process|thought|chain of thought|analysis|"
    r"scratchpad|思考过程|思考|推理过程|推理|分析过程)\s*(?:\*\*)?\s*[:：]", re.IGNORECASE | re.MULTILINE)
_ANSWER_LINE = lazy(
    r"^\s*(?:\*\*|#+\s*)?(?:final answer|answer|最终答案|最终回答|答案|回答|结论)\s*(?:\*\*)?\s*[:：]",
    re.IGNORECASE | re.MULTILINE)
# what follows an answer label must state something ("see above" / "如上" states nothing)
_STATES = lazy(r"\d|\{|[\u4e00-\u9fff]{2}|[A-Za-z]{3}")
_NOTHING = lazy(r"\s*(?:see above|as above|见上|如上|同上)\W*$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Reasoning:
    text: str  # what remains: the answer
    blocks: tuple[str, ...]  # what was set aside, in order
    how: str  # "" when nothing was set aside


def _harmony(text: str, blocks: list[str], hows: list[str]) -> str:
    """gpt-oss: the last final channel's message is the answer; every other message is not."""
    at = text.lower().rfind(_HARMONY_FINAL)
    if at < 0:
        return text
    start = at + len(_HARMONY_FINAL)
    ends = [k for k in (text.find("<|end|>", start), text.find("<|start|>", start),
                        text.find("<|return|>", start)) if k >= 0]
    end = min(ends) if ends else len(text)
    rest = _HARMONY_TOKEN.sub(" ", text[:at] + " " + text[end:]).strip()
    if rest:
        blocks.append(rest)
    hows.append("analysis channel")
    return text[start:end]


_LINE_OPEN = lazy(r"^[ \t]*(?:" + _OPEN.pattern + ")", re.IGNORECASE | re.MULTILINE)


def _leading_blocks(text: str, blocks: list[str], hows: list[str]) -> str:
    """Blocks that open the reply, or a line of it before any JSON ("好的。\n<think>…"): a tag
    inside a sentence or a JSON string is text."""
    for _ in range(8):
        opener = _LINE_OPEN.search(text)
        if opener is None or "{" in text[:opener.start()]:
            break
        head = text[:opener.start()]
        body = text[opener.start():].lstrip()
        m = _OPEN.match(body)
        if m is None:
            break
        close = "◁/think▷" if m.group(0) == "◁think▷" else None
        if close is None:
            found = re.compile(r"<\s*/\s*" + re.escape(m.group(1)) + r"\s*>", re.IGNORECASE
                               ).search(body, m.end())
            end, after = (found.start(), found.end()) if found else (-1, -1)
        else:
            end = body.find(close, m.end())
            after = end + len(close) if end >= 0 else -1
        if end < 0:  # never closed: the rest is reasoning, no answer follows
            blocks.append(body[m.end():].strip())
            hows.append("unclosed think block")
            return head
        blocks.append(body[m.end():end].strip())
        hows.append("think block")
        text = head + body[after:]
    return text


def set_aside(text: str) -> Reasoning:
    """The answer without its reasoning, and the reasoning kept apart (as evidence)."""
    if "<" not in text and "◁" not in text and _PREAMBLE.search(text, 0, 300) is None:
        return Reasoning(text, (), "")
    blocks: list[str] = []
    hows: list[str] = []
    if "<|" in text:
        text = _harmony(text, blocks, hows)
    text = _leading_blocks(text, blocks, hows)
    close = _CLOSE_LINE.search(text)
    if close is not None and _OPEN.search(text, 0, close.start()) is None:
        blocks.append(text[:close.start()].strip())
        hows.append("think block (no opening tag)")
        text = _leading_blocks(text[close.end():], blocks, hows)
    pre = _PREAMBLE.search(text, 0, 300)
    if pre is not None:
        answer = [a for a in _ANSWER_LINE.finditer(text) if a.start() > pre.start()]
        if answer:
            rest = text[answer[-1].end():]
            if _STATES.search(rest) is not None and _NOTHING.match(rest) is None:
                blocks.append(text[:answer[-1].start()].strip())
                text = _leading_blocks(rest, blocks, hows)  # "Final answer:" is not the answer
                hows.append("reasoning preamble")
    return Reasoning(text.strip(), tuple(b for b in blocks if b), ", ".join(hows))
