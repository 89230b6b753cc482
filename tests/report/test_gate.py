"""The CI gate of `assay compare --fail-if-worse`, on runs whose outcomes sit either side of α."""

from __future__ import annotations

import pytest

from assay.core.errors import ConfigError
from assay.report.compare import compare_runs
from assay.report.gate import MaxDrop, gate, needed_pairs
from assay.report.stats import mcnemar_exact
from assay.store.db import Engine, open_engine
from tests.report.synthetic import make_run


@pytest.fixture()
def engine(db_url: str) -> Engine:
    return open_engine(db_url)


def verdicts(engine: Engine, base: str, new: str, alpha: float = 0.05, min_paired: int = 10,
             resamples: int = 2000):  # type: ignore[no-untyped-def]
    pairs = compare_runs(engine, [base, new], level=1 - alpha, resamples=resamples)
    return gate(pairs, alpha=alpha, min_paired=min_paired, resamples=resamples)


def test_mcnemar_matches_scipy_binomtest() -> None:
    from scipy.stats import binomtest

    for b in range(0, 25):
        for c in range(0, 25):
            if b + c:
                ref = binomtest(b, b + c, 0.5, alternative="two-sided").pvalue
                assert mcnemar_exact(b, c) == pytest.approx(ref, rel=1e-12), (b, c)


def test_needed_pairs() -> None:
    # 2 / 2**5 = 0.0625 cannot pass α=0.05; 2 / 2**6 = 0.031 can
    assert needed_pairs(0.05, 1, binary=True) == 6
    assert needed_pairs(0.05, 10, binary=True) == 10
    assert needed_pairs(0.001, 10, binary=True) == 11  # 2 / 2**11 = 0.00098
    assert needed_pairs(0.001, 10, binary=False) == 10


def test_binary_worse_only_when_mcnemar_says_so(engine: Engine) -> None:
    ids = [f"q{i:02d}" for i in range(30)]
    make_run(engine, "base", dict.fromkeys(ids, 1.0))
    # 8 items go 1 → 0: p = 2 / 2**8 = 0.0078
    make_run(engine, "eight", {i: 0.0 if n < 8 else 1.0 for n, i in enumerate(ids)})
    (v,) = verdicts(engine, "base", "eight")
    assert v.outcome == "worse" and v.failed and v.test == "McNemar exact"
    assert v.p_value == pytest.approx(2 / 2 ** 8) and v.n == 30
    assert v.line == ("FAIL check (eight vs baseline base): significantly worse: mean 1.000 → "
                      "0.733, McNemar exact p=0.0078 < α=0.05 (8 went 1→0, 0 went 0→1), n=30")
    # 5 items go 1 → 0: p = 2 / 2**5 = 0.0625, not significant at 0.05 — but it is at 0.1
    make_run(engine, "five", {i: 0.0 if n < 5 else 1.0 for n, i in enumerate(ids)})
    (v,) = verdicts(engine, "base", "five")
    assert v.outcome == "same" and not v.failed
    assert "not significant (n = 30; a drop of less than ≈ 0.200 could not show at this n)" \
        in v.line and "p=0.0625 ≥ α=0.05" in v.line
    assert verdicts(engine, "base", "five", alpha=0.1)[0].outcome == "worse"
    # the other way round it is better, which never fails the gate
    (v,) = verdicts(engine, "eight", "base")
    assert v.outcome == "better" and not v.failed and v.line.startswith("PASS")


def test_discordant_pairs_both_ways_cancel(engine: Engine) -> None:
    ids = [f"q{i:02d}" for i in range(40)]
    make_run(engine, "base", {i: 1.0 if n % 2 else 0.0 for n, i in enumerate(ids)})
    # 10 went 1→0 and 8 went 0→1: p = binomtest(8, 18) = 0.8145
    new = {i: (1.0 if n % 2 else 0.0) for n, i in enumerate(ids)}
    for i in ids[1:21:2]:
        new[i] = 0.0
    for i in ids[0:16:2]:
        new[i] = 1.0
    make_run(engine, "new", new)
    (v,) = verdicts(engine, "base", "new")
    assert v.outcome == "same" and v.p_value == pytest.approx(0.8145, abs=1e-4)
    assert "(10 went 1→0, 8 went 0→1)" in v.line


def test_continuous_scores_use_the_paired_bootstrap(engine: Engine) -> None:
    ids = [f"q{i:02d}" for i in range(40)]
    base = {i: 0.5 + 0.01 * (n % 7) for n, i in enumerate(ids)}
    make_run(engine, "base", base)
    make_run(engine, "lower", {i: v - 0.1 + 0.02 * (n % 3) for n, (i, v)
                               in enumerate(base.items())})
    (v,) = verdicts(engine, "base", "lower")
    assert v.test == "paired bootstrap" and v.outcome == "worse" and v.p_value is None
    assert v.interval is not None and v.interval[1] < 0
    assert "95% interval of the difference" in v.line and "below 0 (2000 resamples)" in v.line
    assert verdicts(engine, "base", "lower")[0].interval == v.interval  # seeded
    # a noisy change whose interval straddles 0 does not fail
    make_run(engine, "noisy", {i: v + (0.2 if n % 2 else -0.21) for n, (i, v)
                               in enumerate(base.items())})
    (v,) = verdicts(engine, "base", "noisy")
    assert v.outcome == "same" and v.interval is not None
    assert v.interval[0] < 0 < v.interval[1] and "includes 0" in v.line
    # --alpha changes the interval's level
    (v99,) = verdicts(engine, "base", "noisy", alpha=0.01)
    assert "99% interval" in v99.line
    assert v99.interval is not None and v99.interval[0] < v.interval[0]


def test_too_few_paired_items_is_undecided_and_says_what_was_left_out(engine: Engine) -> None:
    make_run(engine, "base", {"a": 1.0, "b": 1.0, "c": 1.0, "d": 1.0, "e": 1.0, "x": 1.0})
    make_run(engine, "new", {"a": 0.0, "b": 0.0, "c": 0.0, "d": 0.0, "e": (None, "error"),
                             "y": 0.0, "z": 0.0})
    (v,) = verdicts(engine, "base", "new")
    assert v.outcome == "undecided" and not v.failed and v.n == 4
    assert v.line == ("UNDECIDED check (new vs baseline base): too few paired items to decide "
                      "(n=4, the gate needs 10 at α=0.05); not failing; left out of the test: "
                      "1 only in base, 2 only in new, 1 without a score on one side (1 scored "
                      "in base but not in new)")
    # even with --min-paired 1, four 1→0 flips cannot reach p < 0.05 (p = 2/16): still no verdict
    (v,) = verdicts(engine, "base", "new", min_paired=1)
    assert v.outcome == "undecided" and "needs 6" in v.line


def test_gate_options_are_checked(engine: Engine) -> None:
    make_run(engine, "base", {"a": 1.0})
    pairs = compare_runs(engine, ["base", "base"])
    for kwargs, msg in (({"alpha": 0.0}, "--alpha must be between 0 and 1"),
                        ({"alpha": 1.5}, "--alpha must be between 0 and 1"),
                        ({"min_paired": 0}, "--min-paired must be at least 1"),
                        ({"resamples": 10}, "--resamples must be at least 100")):
        with pytest.raises(ConfigError, match=msg):
            gate(pairs, **kwargs)  # type: ignore[arg-type]


def test_max_drop_fails_a_halving_that_is_not_significant(engine: Engine) -> None:
    """Issue 28: exact fell 0.70 → 0.35 at n = 20 and the gate said PASS, "same"."""
    ids = [f"q{i:02d}" for i in range(20)]
    base = {i: 1.0 if n < 14 else 0.0 for n, i in enumerate(ids)}  # 0.70
    new = dict(base)
    for i in ids[:9]:  # 9 went 1→0 …
        new[i] = 0.0
    for i in ids[14:16]:  # … and 2 went 0→1: 0.35, McNemar p = 0.065
        new[i] = 1.0
    make_run(engine, "base", base)
    make_run(engine, "new", new)
    pairs = compare_runs(engine, ["base", "new"], level=0.95, resamples=2000)
    (plain,) = gate(pairs)
    assert plain.outcome == "same" and not plain.failed
    assert plain.line == (
        "PASS check (new vs baseline base): not significant (n = 20; a drop of less than ≈ "
        "0.300 could not show at this n): mean 0.700 → 0.350, McNemar exact p=0.0654 ≥ "
        "α=0.05 (9 went 1→0, 2 went 0→1), n=20")
    (v,) = gate(pairs, max_drop=MaxDrop(0.10))
    assert v.outcome == "dropped" and v.failed
    assert v.line == (
        "FAIL check (new vs baseline base): the mean fell 0.350 (mean 0.700 → 0.350), more "
        "than --max-drop 0.1; not significant (n = 20; a drop of less than ≈ 0.300 could not "
        "show at this n): McNemar exact p=0.0654 ≥ α=0.05 (9 went 1→0, 2 went 0→1), n=20")
    assert not gate(pairs, max_drop=MaxDrop(0.40))[0].failed  # within the threshold
    # per evaluator: one evaluator's limit beside the default
    assert gate(pairs, max_drop=MaxDrop(0.01, (("check", 0.5),)))[0].outcome == "same"
    assert gate(pairs, max_drop=MaxDrop(None, (("other", 0.01),)))[0].outcome == "same"
    # too few pairs for a test still fail a drop past the threshold
    (few,) = gate(pairs, min_paired=50, max_drop=MaxDrop(0.10))
    assert few.outcome == "dropped" and few.line.startswith(
        "FAIL check (new vs baseline base): the mean fell 0.350")


def test_max_drop_parses_a_default_and_per_evaluator_limits() -> None:
    limits = MaxDrop.parse(["0.05", "exact=0.1", "my=check=0.2"])
    assert (limits.of("exact"), limits.of("my=check"), limits.of("numeric")) == (0.1, 0.2, 0.05)
    for bad in ("x", "1.5", "-0.1", "=0.1", "exact=", "nan"):
        with pytest.raises(ConfigError, match="--max-drop takes a number from 0 to 1"):
            MaxDrop.parse([bad])
