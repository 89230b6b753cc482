"""Several judges on one item, combined. Each member's score is kept as its own result; the
jury's result lists them. Only scored members vote: a null, unscored or failed member is
listed but does not count; a member that does not apply to the item (`skipped`) is left out,
and when none applies the jury's result is `skipped` too. A majority tie is `unscored`
("tie"), never a coin flip."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from assay.core.errors import ConfigError
from assay.core.types import Score, ScoreStatus

METHODS = ("majority", "mean")


def jury_name(method: str) -> str:
    return f"jury-{method}"


def combine(method: str, members: list[Score]) -> Score:
    if method not in METHODS:
        raise ConfigError(f"unknown jury method '{method}' (use {' or '.join(METHODS)})")
    name = jury_name(method)
    if members and all(m.status == ScoreStatus.SKIPPED for m in members):
        return Score.skip("not applicable: no member judge applies to this item", name, method)
    members = [m for m in members if m.status != ScoreStatus.SKIPPED]
    votes = [m for m in members if m.status == ScoreStatus.SCORED and m.value is not None]
    evidence = {"method": method, "members": [
        {"evaluator": m.evaluator, "score": m.value, "status": str(m.status)} for m in members]}
    full = members[0].full_score if members else (0.0, 1.0)
    if not votes:
        status = (ScoreStatus.NULL if members and all(m.status == ScoreStatus.NULL
                                                      for m in members)
                  else ScoreStatus.UNSCORED)
        return Score(None, status, "no member gave a score", name, method, full, evidence)
    values = [float(m.value) for m in votes if m.value is not None]
    if method == "mean":
        value = sum(values) / len(values)
        return Score(value, ScoreStatus.SCORED,
                     f"mean of {len(values)} of {len(members)} judges", name, method, full,
                     evidence)
    ranked = Counter(values).most_common()
    if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
        return replace(Score.unscored(f"tie: {', '.join(f'{v:g}×{n}' for v, n in ranked)}",
                                      name, method, evidence=evidence), full_score=full)
    value, count = ranked[0]
    return Score(value, ScoreStatus.SCORED, f"{count} of {len(values)} judges gave {value:g}",
                 name, method, full, evidence)


@dataclass(frozen=True)
class Jury:
    """A registered jury (`jury-majority`, `jury-mean`): not an evaluator of its own, it
    combines the scores a run's model judges gave one item."""

    method: str

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ConfigError(f"unknown jury method '{self.method}' (use "
                              f"{' or '.join(METHODS)})")

    @property
    def name(self) -> str:
        return jury_name(self.method)

    def combine(self, members: list[Score]) -> Score:
        return combine(self.method, members)


def majority() -> Jury:
    return Jury("majority")


def mean() -> Jury:
    return Jury("mean")
