"""Which evaluators score which items, for a dataset that mixes kinds of question: an
evaluator's `when:` (a spec entry's key, `--when` on the command line) and an item's own
`evaluators` / `skip_evaluators` fields.

    evaluators:
      - {name: numeric, when: {reference: number}}       # where the reference states a number
      - {name: exact, when: {reference: text}}           # the rest
      - {name: contains, when: {field: category, in: [math, units]}}
      - {name: coze-correctness@judge, when: {not: {field: category, equals: trivia}}}

A condition is a mapping, and every key it gives must hold:

    reference: number     the item's `reference_output` states one number, as `numeric` reads
                          it ("3,600 seconds", "约1.2亿元", 12)
    reference: text       it has one that does not (none, or several)
    field: NAME           the item's field NAME is there and not empty; with
      equals: VALUE       … its value is VALUE (compared as text: 3 matches "3"; a list field
                          matches when one of its elements does)
      in: [VALUE, …]      … its value is one of these
    not: CONDITION        the condition does not hold
    any: [CONDITION, …]   one of them holds
    all: [CONDITION, …]   each of them holds

An item is scored by an evaluator when its `when:` holds, the item's `evaluators` field (a
list, or text with commas: "exact, numeric"), if it has one, names it, and its
`skip_evaluators` field does not. Any other item gets that evaluator's result `skipped`, with
the reason: recorded, never a 0 or an error, and outside the evaluator's counts and mean.

Nothing here evaluates code: a condition is data, checked at load like every key of a spec
(its model: runner/spec_models.py), and a `field` no selected item has stops the run before it starts, on the
line of the spec that names it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.core.errors import ConfigError, DataError
from assay.core.types import Item, Score
from assay.core.yamltext import KeyLines

Keys = tuple[str | int, ...]
REFERENCE = "reference_output"  # the field `reference:` reads: the checks' expected answer
ONLY = "evaluators"  # an item's own list of the evaluators that score it
EXCEPT = "skip_evaluators"  # … and of those that do not
Scalar = str | int | float | bool


# -- the condition, as data ------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class When:
    """One condition (see the module's docstring); `keys` is where it is written, below the
    evaluator's entry (`("when", "any", 1)`), so a mistake found later names that key."""

    reference: str | None = None  # number | text
    field: str | None = None
    op: str | None = None  # equals | in (None: the field is there, not empty)
    values: tuple[Any, ...] = ()
    negated: When | None = None
    any_of: tuple[When, ...] | None = None
    all_of: tuple[When, ...] | None = None
    keys: Keys = ("when",)

    def holds(self, item: Item) -> bool:
        if self.reference is not None and not _reference_is(item, self.reference):
            return False
        if self.field is not None and not _field_matches(item, self.field, self.op,
                                                          self.values):
            return False
        if self.negated is not None and self.negated.holds(item):
            return False
        if self.any_of is not None and not any(w.holds(item) for w in self.any_of):
            return False
        return self.all_of is None or all(w.holds(item) for w in self.all_of)

    def fields(self) -> Iterator[tuple[str, Keys]]:
        """Each item field the condition names, with the keys of its `field:`."""
        if self.field is not None:
            yield self.field, (*self.keys, "field")
        for w in (self.negated, *(self.any_of or ()), *(self.all_of or ())):
            if w is not None:
                yield from w.fields()

    def as_dict(self) -> dict[str, Any]:
        """As a spec writes it (the manifest keeps this; runner/spec.py's `parse_when` reads
        it back)."""
        out: dict[str, Any] = {}
        if self.reference is not None:
            out["reference"] = self.reference
        if self.field is not None:
            out["field"] = self.field
            if self.op == "equals":
                out["equals"] = self.values[0]
            elif self.op == "in":
                out["in"] = list(self.values)
        if self.negated is not None:
            out["not"] = self.negated.as_dict()
        if self.any_of is not None:
            out["any"] = [w.as_dict() for w in self.any_of]
        if self.all_of is not None:
            out["all"] = [w.as_dict() for w in self.all_of]
        return out

    def text(self) -> str:
        """The condition in one line, as YAML's flow style writes it: `{reference: number}`."""
        return _flow(self.as_dict())


def _flow(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    return _as_text(value)


def _as_text(value: Any) -> str:
    """A value as `equals`/`in` compare it: booleans as YAML writes them, 3.0 as 3."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, str | list | dict) and not
                             (value.strip() if isinstance(value, str) else value))


def _reference_is(item: Item, kind: str) -> bool:
    value = item.fields.get(REFERENCE)
    if _empty(value):
        return False  # no reference: neither a number nor text
    # imported here: `numeric`'s reader of numbers is the rubric's, a tenth of a second of
    # start-up that only a run with a `reference:` condition needs
    from assay.evaluators.builtin.numeric import expected_number

    number = not isinstance(expected_number(value), str)
    return number if kind == "number" else not number


def _field_matches(item: Item, name: str, op: str | None, values: tuple[Any, ...]) -> bool:
    value = item.fields.get(name)
    if _empty(value):
        return False
    if op is None:
        return True
    wanted = {_as_text(v) for v in values}
    have = value if isinstance(value, list) else [value]
    return any(v in values or _as_text(v) in wanted for v in have
               if not isinstance(v, dict | list))


# -- where an entry was written --------------------------------------------------------------

@dataclass(frozen=True)
class Origin:
    """Where an evaluator's entry was written — a spec's file, its lines and the entry's keys
    (`evaluators[2]`); no file for the command line or the Python API — so a mistake found
    when the run starts (a field no item has) is said in the one line a spec's errors take."""

    path: Path | None = None
    lines: KeyLines | None = None
    keys: Keys = ()

    def error(self, message: str, *keys: str | int) -> ConfigError:
        if self.path is not None:
            return (self.lines or KeyLines(None)).error(self.path, message, *self.keys, *keys)
        dotted = ".".join(str(k) if isinstance(k, str) else f"[{k}]" for k in (*self.keys,
                                                                                 *keys))
        return ConfigError(f"{dotted.replace('.[', '[')}: {message}")


# -- a run's scope: which evaluator scores which item ----------------------------------------

@dataclass(frozen=True)
class Condition:
    """An evaluator's `when:` and where it was written."""

    when: When
    origin: Origin = field(default_factory=Origin)


@dataclass(frozen=True)
class Scope:
    """A run's conditions by evaluator name (the items' own fields are read per item). Built
    by `RunSession.scope`; the pipeline asks `skip` before each evaluation."""

    conditions: Mapping[str, Condition] = field(default_factory=dict)

    def skip(self, name: str, version: str, item: Item) -> Score | None:
        """The evaluator's `skipped` result for this item, or None when it applies."""
        fields = item.fields
        if ONLY in fields or EXCEPT in fields:
            only = item_names(fields.get(ONLY))
            if only and not any(_names(name, n) for n in only):
                return Score.skip(f"not applicable: the item's '{ONLY}' field names "
                                  f"{', '.join(only)}", name, version,
                                  evidence={"not_applicable": {"field": ONLY, "names": only}})
            unwanted = item_names(fields.get(EXCEPT))
            if any(_names(name, n) for n in unwanted):
                return Score.skip(f"not applicable: the item's '{EXCEPT}' field names it",
                                  name, version,
                                  evidence={"not_applicable": {"field": EXCEPT,
                                                               "names": unwanted}})
        condition = self.conditions.get(name)
        if condition is not None and not condition.when.holds(item):
            return Score.skip(f"not applicable: when: {condition.when.text()} does not hold",
                              name, version,
                              evidence={"not_applicable": {"when": condition.when.as_dict()}})
        return None

    def records(self) -> dict[str, dict[str, Any]]:
        """The conditions as the manifest keeps them, by evaluator name."""
        return {name: c.when.as_dict() for name, c in self.conditions.items()}


def _names(evaluator: str, named: str) -> bool:
    """An item names an evaluator by its scores' name (`numeric`, a label, `NAME@MODEL`) or,
    for a judge, by the name before the model (`coze-correctness`)."""
    return named == evaluator or named == evaluator.partition("@")[0]


def item_names(value: Any) -> list[str]:
    """An item's `evaluators` / `skip_evaluators` value as names: a list, or text with commas."""
    if _empty(value):
        return []
    parts = value if isinstance(value, list) else str(value).split(",")
    return [str(p).strip() for p in parts if str(p).strip()]


def applies_per_item(scope: Scope, items: Sequence[Item]) -> bool:
    """Whether the run must ask, item by item, which evaluators apply: it has a condition, or
    an item names its evaluators (without, the pipeline asks nothing: no cost per item)."""
    return bool(scope.conditions) or any(ONLY in it.fields or EXCEPT in it.fields
                                         for it in items)


def check_scope(scope: Scope, evaluators: Sequence[str], items: Sequence[Item], path: str
                ) -> list[str]:
    """Before the run starts: a condition's `field` that no selected item has stops it, on the
    spec's line; so does an item's `evaluators` field that is not a list of names. Returned,
    one line each: evaluators that apply to no selected item, and names items give that no
    evaluator of this run has (a typo would otherwise skip silently)."""
    notes: list[str] = []
    have: set[str] = set()
    for it in items:
        have.update(it.fields)
    for c in scope.conditions.values():
        for fname, keys in c.when.fields():
            if fname not in have:
                known = ", ".join(sorted(have)[:12]) + (" …" if len(have) > 12 else "")
                raise c.origin.error(f"no item of {path} has a field '{fname}' (fields: "
                                     f"{known or 'none'})", *keys)
    unknown: dict[str, tuple[int, Item]] = {}
    for it in items:
        for key in (ONLY, EXCEPT):
            value = it.fields.get(key)
            if value is None:
                continue
            if not isinstance(value, str | list) or (
                    isinstance(value, list) and not all(isinstance(v, str) for v in value)):
                raise DataError(f"must be a list of evaluator names, or text with commas, not "
                                f"{value!r}", path=path, line=it.line, field=key)
            for n in item_names(value):
                if not any(_names(e, n) for e in evaluators):
                    count, first = unknown.get(n, (0, it))
                    unknown[n] = (count + 1, first)
    for n, (count, first) in unknown.items():
        notes.append(f"{path}: {count} item(s) name the evaluator '{n}' (e.g. "
                     f"{first.id!r}, line {first.line}), which this run does not have (its "
                     f"evaluators: {', '.join(evaluators)})")
    if applies_per_item(scope, items):
        for name in evaluators:
            if items and all(scope.skip(name, "", it) is not None for it in items):
                notes.append(f"{name} applies to none of the {len(items)} selected items of "
                             f"{path}: every result of it is skipped")
    return notes
