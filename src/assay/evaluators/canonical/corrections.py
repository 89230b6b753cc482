"""Self-corrections: "It was $1,204 million. Wait, let me re-check… actually $1,297 million."

The last figure stated is the answer. Where an answer corrects itself, the figures before the
correction are superseded for what the correction states again: a reader sets aside an earlier
value of a field (or key point) that is stated again after the correction, and keeps earlier
values of fields that the correction does not mention.
"""

from __future__ import annotations

import re

from assay.core.lazy_pattern import lazy

# Words that take back what was said. Each is a correction only where it stands as one: not
# "market correction", "数据可能有误差", "Actually, over the past year…", "Updated: 10:35".
# Led by a class of the characters a marker can start with (tests/evaluators/
# canonical/test_leads.py checks it holds them all): the engine tests one class at each place of
# the answer instead of entering each of ~40 branches, which IGNORECASE keeps it from skipping.
MARKERS = lazy(
    r"(?=[wanhclosmit更修纠订不等重再核经我算写说有抱？?])(?:"
    r"(?<![a-z])(?:wait(?=[\s,.!…]|$)(?![\s,]*(?:and|for|until|till)\b)|"
    r"actually,?\s+(?:it|the (?:answer|figure|value|price|number|total|correct)|that)(?:'s|\s+is|"
    r"\s+was|\s+should)|actually,\s+(?-i:(?=[A-Z][a-z]+\s+[A-Z]))|"
    r"no,\s+(?:that|it|this)(?:'s|\s+(?:is|was))|hold on(?=[\s,.!…])|"
    r"(?:^|(?<=[\s.;:—–-]))correction\s*[:：,—–-]|corrected\s*[:：]|let me (?:re-?check|"
    r"double[- ]check|re-?calculate|recompute|re-?verify|check again|look again)|"
    r"on second thought|scratch that|my (?:mistake|bad)(?=[\s,.!:])|i (?:made|have made) "
    r"(?:an? )?(?:error|mistake)|i misread|i mis-?stated|sorry,? (?:that|the figure|i was wrong)|"
    r"that(?:'s| is| was) (?:wrong|incorrect|not right))|"
    r"更正|(?:修正|纠正)(?:一下)?[:：，,]|订正|不对[，,。:：]|等等[，,。]|等一下|重新核对|重新计算|重新检查|再核对|"
    r"核对后|经核实|我算错|算错了|写错了|说错了|有误(?![差])|抱歉[，,]?(?:刚才|上面|前面|之前|这|那)|"
    # a question answered at once the other way: "最低的是招商银行？不，是邮储银行"
    r"[？?]\s*(?:不[，,]\s*(?:是|应该是)|no[,.]\s+(?:it'?s|it\s+(?:is|was))))",
    re.IGNORECASE | re.MULTILINE)


def positions(text: str) -> tuple[int, ...]:
    """Where each self-correction starts, in order."""
    return tuple(m.start() for m in MARKERS.finditer(text))
