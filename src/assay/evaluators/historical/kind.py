"""Which items are FinSearchComp T2/T3 and which code reads them, without loading the reader:
`finance-rubric` asks this of every item, and a run of T1 items never needs the T2/T3 reader's
modules (a fifth of a score run's start-up)."""

from __future__ import annotations

import hashlib
import re
from functools import cache
from pathlib import Path

from assay.core.types import Item

_T23 = re.compile(r"\(T[23]\)|Simple_Historical_Lookup|Complex_Historical_Investigation",
                  re.IGNORECASE)
_T1 = re.compile(r"\(T1\)|Time_Sensitive", re.IGNORECASE)
_T1_RUBRIC = re.compile(r"必答点|required\s+(?:content|point)|精度要求|accuracy\s+requirement",
                        re.IGNORECASE)


@cache
def version() -> str:
    """Hash of this package's source: a stored score names the exact code that produced it."""
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return "h-" + digest.hexdigest()[:12]


def is_historical(item: Item) -> bool:
    """A FinSearchComp T2 (simple historical lookup) or T3 (complex historical investigation)
    item: by its id or label, else an item with a reference answer, no ground truth and no T1
    required point (必答点 / Required Content)."""
    tags = " ".join(str(x) for x in (item.id, item.get("prompt_id"), item.get("label"),
                                     item.get("task")) if x)
    if _T23.search(tags):
        return True
    if _T1.search(tags):
        return False
    reference = item.get("response_reference")
    if not isinstance(reference, str) or not reference.strip():
        return False
    truth = item.get("ground_truth")
    if truth not in (None, "", {}, []):
        return False
    return not _T1_RUBRIC.search(reference)
