"""The words a reader wants beside a score: the judge's own reason.

A judge template may ask for a JSON reason (`{"Score": 1, "Reason": "…"}`): the score's
`reason` is then that text. Others (FinSearchComp's) ask for an analysis first and a bare
`{"score": 1}` last: the stored reason is only how the reply was parsed ("last JSON object"),
and the judge's reasoning is the prose of its reply before the verdict. This module gives that
prose back, without the JSON verdict, the fences and the "Final score:" label."""

from __future__ import annotations

import re

# how the judge parser names what it read (evaluators/judge/parse.py: Judgment.how)
PARSE_RULES = ("fenced block", "last JSON object")
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n?.*?```", re.DOTALL)
_VERDICT = re.compile(r'\{[^{}]*"(?:score|answer_score|final_score|rating)"[^{}]*\}',
                      re.IGNORECASE)
_LABEL = re.compile(r"(?:final\s+score|score|最终分数|最终得分|分数|得分)\s*[:：]?\s*$",
                    re.IGNORECASE)


def stated_reason(reason: str | None, how: str | None, reply: str | None,
                  limit: int = 2000) -> str:
    """The judge's reason when it gave one; else, when the stored reason only names the parse
    rule, the judge's reply without its verdict; else the stored reason (a code evaluator's,
    or why a reply could not be used)."""
    reason = reason or ""
    if not reply or not how or reason != how or how not in PARSE_RULES:
        return reason
    text = _THINK.sub(" ", reply)
    text = _FENCE.sub(" ", text)
    text = _VERDICT.sub(" ", text)
    lines = [ln.rstrip() for ln in text.splitlines()]
    while lines and (not lines[-1].strip() or _LABEL.fullmatch(lines[-1].strip())):
        lines.pop()
    if lines:
        lines[-1] = _LABEL.sub("", lines[-1]).rstrip()
    prose = "\n".join(ln for ln in lines).strip()
    prose = re.sub(r"\n{3,}", "\n\n", prose)
    return (prose[:limit] + "…" if len(prose) > limit else prose) or reason
