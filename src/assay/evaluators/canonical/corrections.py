"""Self-corrections: "It was $1,204 million. Wait, let me re-check… actually $1,297 million."

The last figure stated is the answer. Where an answer corrects itself, the figures before the
correction are superseded for what the correction states again: a reader sets aside an earlier
value of a field (or key point) that is stated again after the correction, and keeps earlier
values of fields that the correction does not mention.
"""

from __future__ import annotations

import re

MARKERS = re.compile(
    r"(?<![a-z])(?:wait(?![-a-z])|actually(?=[\s,])|"
    r"no,\s+(?:that|it|this)(?:'s|\s+(?:is|was))|hold on|hmm+|correction|corrected|let me (?:re-?check|"
    r"double[- ]check|re-?calculate|recompute|verify|re-?verify|check again|look again)|"
    r"on second thought|scratch that|my (?:mistake|bad|error)|i (?:made|have made) (?:an? )?"
    r"(?:error|mistake)|i misread|i mis-?stated|sorry,? (?:that|the|i)|that(?:'s| is| was) "
    r"(?:wrong|incorrect|not right)|update(?:d)?\s*:|re-?checking)|"
    r"更正|修正|纠正|订正|不对|等等|等一下|重新核对|重新计算|重新检查|再核对|再确认一下|核对后|经核实|"
    r"我算错|算错了|写错了|说错了|有误|抱歉", re.IGNORECASE)


def positions(text: str) -> tuple[int, ...]:
    """Where each self-correction starts, in order."""
    return tuple(m.start() for m in MARKERS.finditer(text))
