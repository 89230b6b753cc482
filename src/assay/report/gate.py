"""The CI gate of `assay compare --fail-if-worse`: per evaluator, is the new run *significantly*
worse than the baseline, on the items both runs scored?

- 0/1 scores: McNemar's exact test on the discordant pairs (two-sided, `stats.mcnemar_exact`).
  Worse means p < α and more items went 1→0 than 0→1.
- Other scores: the paired bootstrap interval of mean(new − base) at level 1 − α (the one
  `compare_runs` computed with the same α). Worse means the whole interval lies below 0.

Both tests are two-sided at α, so "significantly better" is decided the same way. Beside
significance, `--max-drop X` is a practical threshold: a mean that fell by more than X fails
the gate whatever the test says (at n = 20 a fall from 0.70 to 0.35 is "not significant", and
no team would ship it). A verdict that is not significant says how large a drop this n could
show at all, never "same". Items present
in only one run, and pairs where either side has no score (null, unscored, abstained, error),
are left out of the test and counted in the verdict's line: the gate judges the items both runs
scored, and says how many it left out. With too few paired items there is no verdict: the gate
says so and does not fail (a gate that fails on noise teaches people to ignore it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from assay.core.errors import ConfigError

from .compare import Pairing

Outcome = Literal["worse", "dropped", "better", "same", "undecided"]


@dataclass(frozen=True)
class Verdict:
    evaluator: str
    baseline: str
    other: str
    outcome: Outcome
    test: str  # "McNemar exact" or "paired bootstrap"
    n: int  # paired items with a score on both sides
    mean_base: float | None
    mean_other: float | None
    p_value: float | None  # McNemar only
    interval: tuple[float, float] | None  # bootstrap only, at 1 − α
    line: str  # the one line the CLI prints

    @property
    def failed(self) -> bool:
        return self.outcome in ("worse", "dropped")


@dataclass(frozen=True)
class MaxDrop:
    """`--max-drop`: the largest fall in an evaluator's mean the gate lets pass — one for every
    evaluator (`--max-drop 0.05`) and/or per evaluator (`--max-drop exact=0.10`)."""

    default: float | None = None
    per: tuple[tuple[str, float], ...] = ()

    def of(self, evaluator: str) -> float | None:
        return dict(self.per).get(evaluator, self.default)

    @classmethod
    def parse(cls, values: list[str]) -> MaxDrop:
        default: float | None = None
        per: dict[str, float] = {}
        for raw in values:
            name, sep, number = raw.rpartition("=")
            try:
                limit = float(number)
            except ValueError:
                limit = float("nan")
            if not 0 <= limit <= 1 or (sep and not name):
                raise ConfigError(f"--max-drop takes a number from 0 to 1, or EVALUATOR=NUMBER, "
                                  f"not {raw!r}")
            if sep:
                per[name] = limit
            else:
                default = limit
        return cls(default, tuple(sorted(per.items())))


def needed_pairs(alpha: float, min_paired: int, binary: bool) -> int:
    """The fewest paired items the gate decides on. For 0/1 scores also the fewest for which
    McNemar could reach p < α at all (every pair flipping the same way gives p = 2 / 2ⁿ): below
    that, no result could fail the gate, and saying "no difference" would be a false comfort."""
    if not binary:
        return min_paired
    n = 1
    while 2 * 0.5 ** n >= alpha:
        n += 1
    return max(min_paired, n)


def _fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def _p(p: float) -> str:
    return f"{p:.2e}" if p < 1e-4 else f"{p:.4f}"


def _left_out(p: Pairing) -> str:
    parts = []
    if p.only_base:
        parts.append(f"{len(p.only_base)} only in {p.baseline}")
    if p.only_other:
        parts.append(f"{len(p.only_other)} only in {p.other}")
    if p.unscored_pairs:
        lost = f" ({len(p.lost)} scored in {p.baseline} but not in {p.other})" if p.lost else ""
        parts.append(f"{p.unscored_pairs} without a score on one side{lost}")
    if p.skipped:
        parts.append(f"{p.skipped} it does not apply to (skipped)")
    return ("; left out of the test: " + ", ".join(parts)) if parts else ""


def smallest_detectable(p: Pairing, alpha: float) -> float | None:
    """The smallest fall in the mean this comparison could show as significant: for 0/1
    scores, the fewest items that must all go 1→0 (none 0→1) for McNemar's p < α, over n; for
    others, the interval's half-width. Below it, "not significant" says nothing."""
    if not p.paired:
        return None
    if p.binary:
        k = 1
        while 2 * 0.5 ** k >= alpha:
            k += 1
        return k / p.paired
    if p.ci95 is None:
        return None
    return (p.ci95[1] - p.ci95[0]) / 2


def _drop(p: Pairing) -> float | None:
    return None if p.mean_base is None or p.mean_other is None else p.mean_base - p.mean_other


def verdict(p: Pairing, *, alpha: float, min_paired: int, resamples: int,
            max_drop: float | None = None) -> Verdict:
    """One evaluator's verdict; `p` must come from `compare_runs(level=1 - alpha)`.
    `max_drop`: a fall in the mean above it fails, significant or not."""
    binary = p.binary
    test = "McNemar exact" if binary else "paired bootstrap"
    head = f"{p.evaluator} ({p.other} vs baseline {p.baseline})"
    means = f"mean {_fmt(p.mean_base)} → {_fmt(p.mean_other)}"
    need = needed_pairs(alpha, min_paired, binary)
    drop = _drop(p)
    too_much = max_drop is not None and drop is not None and drop > max_drop + 1e-12
    over = f"the mean fell {drop:.3f} ({means}), more than --max-drop {max_drop:g}" \
        if too_much and drop is not None and max_drop is not None else ""
    if p.paired < need:
        if too_much:
            line = (f"FAIL {head}: {over}; too few paired items for a test (n={p.paired}, "
                    f"needs {need} at α={alpha:g}){_left_out(p)}")
            return Verdict(p.evaluator, p.baseline, p.other, "dropped", test, p.paired,
                           p.mean_base, p.mean_other, None, None, line)
        line = (f"UNDECIDED {head}: too few paired items to decide (n={p.paired}, the gate "
                f"needs {need} at α={alpha:g}); not failing{_left_out(p)}")
        return Verdict(p.evaluator, p.baseline, p.other, "undecided", test, p.paired,
                       p.mean_base, p.mean_other, None, None, line)
    outcome: Outcome
    if binary:
        pv = p.mcnemar_p if p.mcnemar_p is not None else 1.0
        worse, better = len(p.to_worse), len(p.to_better)
        outcome = "same" if pv >= alpha else ("worse" if worse > better else "better")
        stat = (f"McNemar exact p={_p(pv)} {'<' if pv < alpha else '≥'} α={alpha:g} "
                f"({worse} went 1→0, {better} went 0→1)")
        interval = None
    else:
        pv = None
        interval = p.ci95
        low, high = interval if interval is not None else (0.0, 0.0)
        outcome = "worse" if high < 0 else "better" if low > 0 else "same"
        where = "below 0" if high < 0 else "above 0" if low > 0 else "includes 0"
        stat = (f"paired bootstrap {100 * (1 - alpha):g}% interval of the difference "
                f"[{low:+.3f}, {high:+.3f}] {where} ({resamples} resamples)")
    if outcome == "same":
        least = smallest_detectable(p, alpha)
        what = (f"not significant (n = {p.paired}; a drop of less than ≈ {least:.3f} could "
                "not show at this n)" if least is not None else "not significant")
    else:
        what = {"worse": "significantly worse", "better": "significantly better"}[outcome]
    if too_much and outcome != "worse":
        outcome = "dropped"
        line = f"FAIL {head}: {over}; {what}: {stat}, n={p.paired}{_left_out(p)}"
    else:
        word = "FAIL" if outcome == "worse" else "PASS"
        line = f"{word} {head}: {what}: {means}, {stat}, n={p.paired}{_left_out(p)}"
    return Verdict(p.evaluator, p.baseline, p.other, outcome, test, p.paired, p.mean_base,
                   p.mean_other, pv, interval, line)


def check_options(alpha: float, min_paired: int, resamples: int) -> None:
    if not 0 < alpha < 1:
        raise ConfigError(f"--alpha must be between 0 and 1, not {alpha:g}")
    if min_paired < 1:
        raise ConfigError(f"--min-paired must be at least 1, not {min_paired}")
    if resamples < 100:
        raise ConfigError(f"--resamples must be at least 100, not {resamples}")


def gate(pairs: list[Pairing], *, alpha: float = 0.05, min_paired: int = 10,
         resamples: int = 2000, max_drop: MaxDrop | None = None) -> list[Verdict]:
    check_options(alpha, min_paired, resamples)
    limits = max_drop or MaxDrop()
    return [verdict(p, alpha=alpha, min_paired=min_paired, resamples=resamples,
                    max_drop=limits.of(p.evaluator)) for p in pairs]
