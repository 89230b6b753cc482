"""Checks made before any target or model is called: a mistake in the evaluators, the
dataset's fields or a template stops the run with one line, not after the first 1,000 calls."""

from __future__ import annotations

from collections.abc import Sequence

from assay.core.errors import ConfigError, DataError
from assay.core.types import Answer, Item
from assay.evaluators.base import Evaluator
from assay.targets.base import Target, answers_recorded

from .scope import Scope


def names_once(evaluators: Sequence[Evaluator]) -> None:
    """Each evaluator's scores are kept under its name: two of one name would collide."""
    names = [ev.name for ev in evaluators]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ConfigError(f"evaluator given more than once: {', '.join(twice)}")


def check_evaluators(evaluators: Sequence[Evaluator], items: Sequence[Item], path: str, *,
                     truth_captured: bool, scope: Scope | None = None) -> None:
    """`scope`: which evaluator scores which item; a field is needed by the items an evaluator
    applies to (runner/scope.py), not by those it skips."""
    if not evaluators:
        raise ConfigError("no evaluator given")
    names_once(evaluators)
    for ev in evaluators:
        lacking = [set(ev.lacking(it)) for it in _applying(ev, items, scope)]
        for name in sorted(set.intersection(*lacking) if lacking else set()):
            if truth_captured and name == "ground_truth":
                continue  # captured for each sample while the run goes
            # Absent from every item is a mapping mistake: stop with one line. Absent from
            # some (a mixed file) is per item: those items get status `error` saying why.
            raise DataError(f"missing required field (needed by {ev.name}; map a column "
                            f"with --field {name}=COLUMN)", path=path,
                            line=items[0].line, field=name)


def check_answers(targets: Sequence[Target], items: Sequence[Item], path: str) -> list[str]:
    """Recorded answers that cannot be found: read from a field that no item has (a mapping
    mistake), or an answer file whose ids match no item (DataError: nothing is stored). The
    notes returned say when a file answers only some items: one line, with counts and an
    example id from each side, so a partial match is never silent."""
    from assay.datasets.answers import answer_from_item

    notes: list[str] = []
    for t in targets:
        field = getattr(t, "field", None)
        if not answers_recorded(t) or field is None:
            continue
        file = getattr(t, "file", None)
        if file is None:
            if items and all(answer_from_item(it, field) is None for it in items):
                raise ConfigError(f"{path}: no item has a '{field}' field; give answers with "
                                  f"--responses FILE or map a column with --field "
                                  f"{field}=COLUMN")
            continue
        answered: frozenset[str] | None = getattr(t, "answer_ids", None)
        if answered is None or not items:
            continue
        ids = [it.id for it in items]
        unanswered = [i for i in ids if i not in answered]
        if not unanswered:
            continue
        strangers = sorted(answered.difference(ids))
        if len(unanswered) == len(ids):
            raise DataError(
                f"none of its {len(answered)} answers has the id of an item of {path} "
                f"(answers: {_example(strangers)}; items: {_example(ids)}); the items' ids "
                "come from prompt_id, id or item_id (else a hash of the item), or the column "
                "--id-field names", path=str(file))
        notes.append(f"{file}: answers for {len(ids) - len(unanswered)} of {len(ids)} items; "
                     f"no answer for {len(unanswered)} (e.g. {unanswered[0]!r}, scored as "
                     "errors)" + (f"; {len(strangers)} answers match no item (e.g. "
                                  f"{strangers[0]!r})" if strangers else ""))
    return notes


def _example(ids: Sequence[str]) -> str:
    return f"e.g. {ids[0]!r}" if ids else "none"


def _applying(ev: Evaluator, items: Sequence[Item], scope: Scope | None) -> Sequence[Item]:
    if scope is None:
        return items
    return [it for it in items if scope.skip(ev.name, "", it) is None]


def check_fillable(targets: Sequence[Target], evaluators: Sequence[Evaluator],
                   items: Sequence[Item], path: str, *, scope: Scope | None = None) -> None:
    """Every prompt a target or judge will send must be fillable before any call is made (a
    judge's, for the items it applies to)."""
    for t in targets:
        build = getattr(t, "messages", None) or getattr(t, "request_body", None)
        if build is None:
            continue
        for item in items:
            try:
                build(item)
            except ConfigError as exc:
                raise ConfigError(f"{path}: {exc}") from None
    placeholder = Answer("…")
    for ev in evaluators:
        if ev.deterministic:
            continue  # code evaluators send no prompt
        for item in _applying(ev, items, scope):
            if not ev.lacking(item):
                try:
                    ev.prompts(item, placeholder)
                except ConfigError as exc:
                    raise ConfigError(f"{path}: {exc}") from None
