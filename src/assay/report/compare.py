"""Comparing runs (first = baseline): per evaluator, paired per-item differences, the items
that flipped, McNemar's exact test (0/1 scores) and a bootstrap interval for the difference in
means. Items present in only one run are counted and listed, never silently dropped."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from assay.core.errors import ConfigError
from assay.store import repo
from assay.store import results as stored
from assay.store.db import Engine

from .stats import bootstrap_diff, mcnemar_exact

Key = tuple[str, int]  # item id, epoch


@dataclass
class Pairing:
    evaluator: str
    baseline: str
    other: str
    paired: int = 0
    mean_base: float | None = None
    mean_other: float | None = None
    diff: float | None = None
    ci95: tuple[float, float] | None = None  # at `ci_level` (0.95 unless a gate asks)
    ci_level: float = 0.95
    binary: bool = True
    to_worse: list[str] = field(default_factory=list)  # 1 → 0
    to_better: list[str] = field(default_factory=list)  # 0 → 1
    changed: list[tuple[str, float, float]] = field(default_factory=list)  # non-binary
    mcnemar_p: float | None = None
    only_base: list[str] = field(default_factory=list)
    only_other: list[str] = field(default_factory=list)
    unscored_pairs: int = 0  # paired items where either side has no score
    # items the evaluator does not apply to (`skipped`, its when:) in either run: not compared,
    # and counted nowhere else
    skipped: int = 0
    lost: list[str] = field(default_factory=list)  # scored in the baseline, not in this run

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items()}


def run_scores(engine: Engine, run_id: str, target: str | None
               ) -> tuple[dict[str, dict[Key, float | None]], set[str], dict[str, set[Key]]]:
    """evaluator → (item, epoch) → corrected score (None when not scored); the run's targets;
    evaluator → the (item, epoch) it does not apply to (`skipped`: left out of the first)."""
    repo.require_run(engine, run_id)
    reviews = repo.latest_reviews(engine, run_id)
    rows = stored.sample_scores(engine, run_id)
    targets = {r[1] for r in rows}
    if target is None and len(targets) > 1:
        raise ConfigError(f"run '{run_id}' has several targets ({', '.join(sorted(targets))})"
                          f": choose one with --target")
    out: dict[str, dict[Key, float | None]] = {}
    skipped: dict[str, set[Key]] = {}
    # rows unpacked as tuples (a Row's attributes cost ten times as much: 100,000 rows a run)
    for item_id, tgt, epoch, evaluator, score, status in rows:
        if target is not None and tgt != target:
            continue
        per = out.get(evaluator)
        if per is None:
            per = out[evaluator] = {}
        if status == "skipped":
            skipped.setdefault(evaluator, set()).add((item_id, epoch))
            continue
        review = reviews.get((item_id, tgt, epoch, evaluator)) if reviews else None
        value = review["score"] if review else (score if status == "scored" else None)
        per[(item_id, epoch)] = value
    return out, targets, skipped


def compare_runs(engine: Engine, run_ids: list[str], *, evaluators: list[str] | None = None,
                 targets: list[str | None] | None = None, seed: int = 0,
                 level: float = 0.95, resamples: int = 2000) -> list[Pairing]:
    """`level` and `resamples` set the bootstrap interval (a CI gate at α asks for 1 − α)."""
    if len(run_ids) < 2:
        raise ConfigError("compare needs two runs or more (the first is the baseline)")
    tsel = targets or [None] * len(run_ids)
    read = [run_scores(engine, rid, t) for rid, t in zip(run_ids, tsel, strict=True)]
    loaded = [r[0] for r in read]
    base_id, base, base_skipped = run_ids[0], loaded[0], read[0][2]
    names = evaluators or [e for e in base if all(e in other for other in loaded[1:])]
    if not names:
        raise ConfigError("the runs share no evaluator (name them with --evaluator)")
    out: list[Pairing] = []
    for (other_id, other), (_, _, other_skipped) in zip(
            zip(run_ids[1:], loaded[1:], strict=True), read[1:], strict=True):
        for name in names:
            if name not in base or name not in other:
                raise ConfigError(f"evaluator '{name}' is not in both {base_id} and {other_id}")
            # an item it does not apply to in either run is compared nowhere
            away = base_skipped.get(name, set()) | other_skipped.get(name, set())
            a = {k: v for k, v in base[name].items() if k not in away}
            b = {k: v for k, v in other[name].items() if k not in away}
            p = Pairing(name, base_id, other_id, ci_level=level, skipped=len(away))
            p.only_base = sorted(f"{i}" + (f"#{e}" if e else "") for i, e in a.keys() - b.keys())
            p.only_other = sorted(f"{i}" + (f"#{e}" if e else "") for i, e in
                                  b.keys() - a.keys())
            xs, ys = [], []
            for key in sorted(a.keys() & b.keys()):
                va, vb = a[key], b[key]
                if va is None or vb is None:
                    p.unscored_pairs += 1
                    if va is not None:  # an error or null here where the baseline had a score
                        p.lost.append(key[0] + (f"#{key[1]}" if key[1] else ""))
                    continue
                xs.append(va)
                ys.append(vb)
                label = key[0] + (f"#{key[1]}" if key[1] else "")
                if va != vb:
                    if va == 1.0 and vb == 0.0:
                        p.to_worse.append(label)
                    elif va == 0.0 and vb == 1.0:
                        p.to_better.append(label)
                    else:
                        p.changed.append((label, va, vb))
            p.paired = len(xs)
            p.binary = all(v in (0.0, 1.0) for v in xs + ys)
            if xs:
                p.mean_base, p.mean_other = sum(xs) / len(xs), sum(ys) / len(ys)
                p.diff = p.mean_other - p.mean_base
                p.ci95 = bootstrap_diff(xs, ys, seed=seed, level=level, resamples=resamples)
            if p.binary and xs:
                p.mcnemar_p = mcnemar_exact(len(p.to_worse), len(p.to_better))
            out.append(p)
    return out
