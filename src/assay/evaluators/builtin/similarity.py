"""`similarity`: how close the answer is to the expected one, computed by `rapidfuzz` (a
maintained C++ library) rather than by hand: normalised Levenshtein, rapidfuzz's ratio
(InDel), token-sort ratio, Jaro-Winkler, or ROUGE-L (the F-measure of the longest common
subsequence of words, through rapidfuzz's LCSseq on word lists). Words for ROUGE-L are those
of `length`: each Chinese character is one, so Chinese answers compare as ROUGE-L over
characters, as Chinese ROUGE usually does.

With `threshold` the score is 1 at or above it and 0 below; without, the score is the
similarity itself, in [0, 1]."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from assay.core.errors import ConfigError
from assay.core.types import Answer, Item, Score, TruthSnapshot

from .base import BuiltinCheck, Normaliser, answer_text, as_text, excerpt
from .length import _WORDS

METHODS = ("levenshtein", "ratio", "token-sort", "jaro-winkler", "rouge-l")


def _rouge_l(a: str, b: str) -> float:
    from rapidfuzz.distance import LCSseq

    wa, wb = _WORDS.findall(a), _WORDS.findall(b)
    if not wa or not wb:
        return 1.0 if wa == wb else 0.0
    lcs = LCSseq.similarity(wa, wb)
    if lcs == 0:
        return 0.0
    p, r = lcs / len(wa), lcs / len(wb)
    return 2 * p * r / (p + r)


def measure(method: str) -> Callable[[str, str], float]:
    """The similarity function, each in [0, 1]; imported when the evaluator is built."""
    from rapidfuzz import fuzz
    from rapidfuzz.distance import JaroWinkler, Levenshtein

    found: dict[str, Callable[[str, str], float]] = {
        "levenshtein": Levenshtein.normalized_similarity,
        "ratio": lambda a, b: fuzz.ratio(a, b) / 100,
        "token-sort": lambda a, b: fuzz.token_sort_ratio(a, b) / 100,
        "jaro-winkler": JaroWinkler.normalized_similarity,
        "rouge-l": _rouge_l,
    }
    return found[method]


class Similarity(BuiltinCheck):
    """The similarity of the answer to the expected answer, or pass/fail at a threshold."""

    family = "similarity"
    reads_with = ("rapidfuzz",)

    def __init__(self, *, expected: Any = None, method: str = "levenshtein",
                 threshold: Any = None, label: str | None = None, **folds: Any) -> None:
        super().__init__(expected=expected, label=label)
        if method not in METHODS:
            raise ConfigError(f"{self.where}: 'method' must be one of {', '.join(METHODS)}, "
                              f"not {method!r}")
        if threshold is not None and (isinstance(threshold, bool) or not isinstance(
                threshold, int | float) or not 0 <= threshold <= 1):
            raise ConfigError(f"{self.where}: 'threshold' must be a number in [0, 1], not "
                              f"{threshold!r}")
        self.method = method
        self.threshold = None if threshold is None else float(threshold)
        self.fold = Normaliser.of(self.where, **folds)
        self.similar = measure(method)

    def check(self, item: Item, answer: Answer, truth: TruthSnapshot | None = None) -> Score:
        expected = as_text(self.expected_of(item))
        text = answer_text(answer)
        sim = round(float(self.similar(self.fold(text), self.fold(expected))), 6)
        ev: dict[str, Any] = {"expected": excerpt(expected), "answer": excerpt(text),
                              "method": self.method, "similarity": sim}
        if self.fold.applied():
            ev["normalised"] = self.fold.applied()
        if self.threshold is None:
            return self.value(sim, f"{self.method} similarity {sim:.3f}", ev)
        ev["threshold"] = self.threshold
        ok = sim >= self.threshold
        return self.score(ok, f"{self.method} similarity {sim:.3f} "
                          f"{'≥' if ok else '<'} threshold {self.threshold}", ev)
