"""The trajectory checks: what an agent did, not only what it said, judged in code from the tool
calls recorded beside its answer (`core/trajectory.py`: an HTTP agent's `tool_calls`, a Python
target's, an `assay watch` trace's TOOL spans, a dataset's `tool_calls` field).

    tool-used       the tool was called (at least once)
    tool-sequence   the called tools' names against an expected list: strict | unordered |
                    subset | superset (agentevals' four trajectory match modes)
    tool-args       some call of the tool had the expected arguments: exact | subset, numbers
                    within a tolerance, strings exact or ignoring case
    max-steps       at most n tool calls
    no-tool-errors  no tool call reported an error

The spec's args are the defaults; an item's own fields override them per item
(`expected_tool`, `expected_tools`, `expected_tools_mode`, `expected_tool_args`, `max_steps`);
without the arg, the field is required, as a string check requires `reference_output`.
An answer with no tool calls recorded at all is `null` with a reason — nothing to judge — and
never a 0; an empty list recorded is a trajectory of no calls, and judged."""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass
from typing import Any

from assay.core.errors import ConfigError
from assay.core.trajectory import Trajectory, trajectory_of
from assay.core.types import Answer, Item, Score, TruthSnapshot

from .base import BuiltinCheck, flag

MODES = ("strict", "unordered", "subset", "superset")
MATCHES = ("exact", "subset")

# the item fields that override a check's args for that item
EXPECTED_TOOL = "expected_tool"  # tool-used, tool-args
EXPECTED_TOOLS = "expected_tools"  # tool-sequence
EXPECTED_MODE = "expected_tools_mode"  # tool-sequence
EXPECTED_ARGS = "expected_tool_args"  # tool-args
MAX_STEPS = "max_steps"  # max-steps

NOT_RECORDED = ("no tool calls recorded for this answer (neither the answer's tool_calls nor "
                "the item's 'tool_calls' field): nothing to judge")


def _names(value: Any, what: str) -> list[str]:
    """A list of tool names: a list, or text holding a JSON list or names split by commas."""
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                value = json.loads(text)
            except ValueError:
                raise ValueError(f"{what} is not a JSON list: {excerpt(text)}") from None
        else:
            value = [n.strip() for n in text.split(",") if n.strip()]
    if not isinstance(value, list | tuple) or not all(
            isinstance(n, str) and n.strip() for n in value):
        raise ValueError(f"{what} must be a list of tool names, not {value!r}")
    return [n.strip() for n in value]


def _tool(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{what} must be a tool's name, not {value!r}")
    return value.strip()


def _mode(value: Any, what: str) -> str:
    if value not in MODES:
        raise ValueError(f"{what} must be one of {', '.join(MODES)}, not {value!r}")
    return str(value)


def _count(value: Any, what: str) -> int:
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{what} must be a whole number ≥ 0, not {value!r}")
    return value


def _mapping(value: Any, what: str) -> dict[str, Any]:
    if isinstance(value, str) and value.strip().startswith("{"):
        try:
            value = json.loads(value)
        except ValueError:
            raise ValueError(f"{what} is not a JSON object: {excerpt(value)}") from None
    if not isinstance(value, dict):
        raise ValueError(f"{what} must be a mapping of argument names to values, not "
                         f"{value!r}")
    return value


def excerpt(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


class TrajectoryCheck(BuiltinCheck):
    """A check of the answer's recorded tool calls; `judge` sees a trajectory, never None."""

    needs_expected = False

    def __init__(self, *, label: str | None = None) -> None:
        super().__init__(label=label)

    def config(self, name: str, value: Any, parse: Any) -> Any:
        """An arg read at build time: a bad one is a one-line ConfigError naming it."""
        try:
            return parse(value, f"'{name}'")
        except ValueError as exc:
            raise ConfigError(f"{self.where}: {exc}") from None

    def per_item(self, item: Item, field: str, default: Any, parse: Any) -> Any:
        """The item's own field when it has one (parsed), else the spec's arg; a bad field
        raises ValueError, which `check` turns into this item's error."""
        value = item.fields.get(field)
        if value is None or value == "":
            return default
        return parse(value, f"the item's '{field}'")

    def check(self, item: Item, answer: Answer, truth: TruthSnapshot | None = None) -> Score:
        found = trajectory_of(item, answer)
        if found is None:
            return Score.null(NOT_RECORDED, self.name, self.version,
                              evidence={"tools": None})
        evidence: dict[str, Any] = {"tools": found.names, "source": found.where}
        if found.problems:
            evidence["problems"] = list(found.problems)
            if not found.calls:  # a list that could not be read is not an agent that made none
                return Score.null(f"the recorded tool calls could not be read: "
                                  f"{found.problems[0]}", self.name, self.version,
                                  evidence=evidence)
        try:
            return self.judge(item, found, evidence)
        except ValueError as exc:
            return self.fail(str(exc), evidence)

    def judge(self, item: Item, trajectory: Trajectory, evidence: dict[str, Any]) -> Score:
        raise NotImplementedError


def _called(names: list[str]) -> str:
    return "[" + ", ".join(names) + "]" if names else "no tool"


class ToolUsed(TrajectoryCheck):
    """1 when the tool was called at least once (a call that failed counts: it was used)."""

    family = "tool-used"

    def __init__(self, *, tool: Any = None, label: str | None = None) -> None:
        super().__init__(label=label)
        self.tool = None if tool is None else self.config("tool", tool, _tool)
        self.requires = (EXPECTED_TOOL,) if self.tool is None else ()

    def judge(self, item: Item, trajectory: Trajectory, evidence: dict[str, Any]) -> Score:
        tool = self.per_item(item, EXPECTED_TOOL, self.tool, _tool)
        if tool is None:
            return self.fail(f"no tool to look for: give args.tool or the item's "
                             f"'{EXPECTED_TOOL}'", evidence)
        times = trajectory.names.count(tool)
        evidence.update(expected=tool, times=times)
        if times:
            return self.score(True, f"{tool} called {times} time{'s' * (times > 1)}", evidence)
        return self.score(False, f"{tool} never called (called {_called(trajectory.names)})",
                          evidence)


@dataclass(frozen=True, slots=True)
class SequenceMatch:
    """What a tool-sequence comparison found: whether it passed, the expected calls no call
    matched (`missing`), the calls no expected one matched (`extra`), and for strict the first
    position where they differ."""

    passed: bool
    missing: list[str]
    extra: list[str]
    differs_at: int | None = None


def match_sequence(called: list[str], expected: list[str], mode: str) -> SequenceMatch:
    """The agentevals modes over tool names, each call matched at most once (a count matters:
    two expected calls of `quote` need two):

    strict     the same calls in the same order
    unordered  the same calls, any order
    subset     every call the agent made is among the expected (it may have made fewer)
    superset   every expected call was made (the agent may have made more)"""
    have, want = Counter(called), Counter(expected)
    missing = list((want - have).elements())
    extra = list((have - want).elements())
    if mode == "strict":
        at = next((i for i, (a, b) in enumerate(zip(called, expected, strict=False))
                   if a != b), None)
        if at is None and len(called) != len(expected):
            at = min(len(called), len(expected))
        return SequenceMatch(at is None, missing, extra, at)
    if mode == "unordered":
        return SequenceMatch(not missing and not extra, missing, extra)
    if mode == "subset":
        return SequenceMatch(not extra, missing, extra)
    return SequenceMatch(not missing, missing, extra)  # superset


class ToolSequence(TrajectoryCheck):
    """The tools called, by name, against an expected list in one of four modes."""

    family = "tool-sequence"

    def __init__(self, *, expected: Any = None, mode: Any = "strict",
                 label: str | None = None) -> None:
        super().__init__(label=label)
        self.expected_names = None if expected is None else \
            self.config("expected", expected, _names)
        self.mode = self.config("mode", mode, _mode)
        self.requires = (EXPECTED_TOOLS,) if self.expected_names is None else ()

    def judge(self, item: Item, trajectory: Trajectory, evidence: dict[str, Any]) -> Score:
        expected = self.per_item(item, EXPECTED_TOOLS, self.expected_names, _names)
        mode = self.per_item(item, EXPECTED_MODE, self.mode, _mode)
        if expected is None:
            return self.fail(f"no expected tools: give args.expected or the item's "
                             f"'{EXPECTED_TOOLS}'", evidence)
        called = trajectory.names
        m = match_sequence(called, expected, mode)
        evidence.update(expected=expected, mode=mode, missing=m.missing, extra=m.extra)
        head = f"{mode}: called {_called(called)}, expected {_called(expected)}"
        if m.passed:
            return self.score(True, head, evidence)
        if mode == "strict":
            assert m.differs_at is not None
            evidence["differs_at"] = m.differs_at + 1
            got = called[m.differs_at] if m.differs_at < len(called) else "nothing"
            want = expected[m.differs_at] if m.differs_at < len(expected) else "nothing"
            return self.score(False, f"{head}: call {m.differs_at + 1} is {got}, expected "
                              f"{want}", evidence)
        why = []
        if m.missing and mode in ("unordered", "superset"):
            why.append(f"missing {_called(m.missing)}")
        if m.extra and mode in ("unordered", "subset"):
            why.append(f"not expected {_called(m.extra)}")
        return self.score(False, f"{head}: {'; '.join(why)}", evidence)


@dataclass(frozen=True, slots=True)
class Tolerance:
    """How far a number may be from the expected one: `abs`, or `rel` (a fraction of the
    expected value); the larger bound wins when both are given."""

    abs: float = 0.0
    rel: float = 0.0

    def allows(self, expected: float, got: float) -> bool:
        return math.isclose(got, expected, rel_tol=self.rel, abs_tol=self.abs) \
            or abs(got - expected) <= max(self.abs, self.rel * abs(expected))

    def text(self) -> str | None:
        parts = ([f"±{self.abs:g}"] if self.abs else []) + \
            ([f"±{self.rel * 100:g}%"] if self.rel else [])
        return " or ".join(parts) or None


def _bound(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0 \
            or not math.isfinite(value):
        raise ValueError(f"{what} must be a number ≥ 0, not {value!r}")
    return float(value)


def _tolerance(value: Any, what: str) -> Tolerance:
    """A number (absolute), text "N%" (relative), or {abs: …, rel: …}."""
    if isinstance(value, str) and value.strip().endswith("%"):
        try:
            return Tolerance(rel=_bound(float(value.strip()[:-1]), what) / 100)
        except ValueError:
            raise ValueError(f"{what} must be a number, \"N%\" or {{abs, rel}}, not "
                             f"{value!r}") from None
    if isinstance(value, dict):
        unknown = set(value) - {"abs", "rel"}
        if unknown:
            raise ValueError(f"{what} takes abs and rel, not {', '.join(sorted(unknown))}")
        return Tolerance(_bound(value.get("abs", 0), f"{what}.abs"),
                         _bound(value.get("rel", 0), f"{what}.rel"))
    try:
        return Tolerance(abs=_bound(value, what))
    except ValueError:
        raise ValueError(f"{what} must be a number, \"N%\" or {{abs, rel}}, not "
                         f"{value!r}") from None


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            n = float(value.strip().replace(",", ""))
        except ValueError:
            return None
        return n if math.isfinite(n) else None
    return None


def _plain(value: Any) -> str:
    """A value as the differences show it: JSON, so "600519" and 600519 read apart."""
    return json.dumps(value, ensure_ascii=False, default=str)


@dataclass(frozen=True, slots=True)
class ArgsRule:
    """How tool-args compares arguments: `exact` (the same keys, at every level of an object)
    or `subset` (the expected keys, others allowed); numbers within `tolerance`; strings exact,
    or ignoring case."""

    match: str
    tolerance: Tolerance
    ignore_case: bool

    def diff(self, expected: Any, got: Any, path: str = "") -> list[str]:
        """Every difference, one line each (`path: expected X, got Y`); none when it matches."""
        at = path or "arguments"
        if isinstance(expected, dict):
            if not isinstance(got, dict):
                return [f"{at}: expected an object, got {_plain(got)}"]
            out: list[str] = []
            for key, want in expected.items():
                sub = f"{path}.{key}" if path else str(key)
                if key not in got:
                    out.append(f"{sub}: missing")
                else:
                    out.extend(self.diff(want, got[key], sub))
            if self.match == "exact":
                out.extend(f"{path}.{k}: not expected" if path else f"{k}: not expected"
                           for k in got if k not in expected)
            return out
        if isinstance(expected, list):
            if not isinstance(got, list) or len(got) != len(expected):
                return [f"{at}: expected {_plain(expected)}, got {_plain(got)}"]
            return [line for i, (w, g) in enumerate(zip(expected, got, strict=True))
                    for line in self.diff(w, g, f"{path}[{i}]")]
        want_n = _number(expected) if not isinstance(expected, str) else None
        if want_n is not None:  # a number: the call's number (or number as text) within range
            got_n = _number(got)
            if got_n is not None and self.tolerance.allows(want_n, got_n):
                return []
            return [f"{at}: expected {_plain(expected)}"
                    f"{' ' + t if (t := self.tolerance.text()) else ''}, got {_plain(got)}"]
        if isinstance(expected, str):  # text: against the call's text (a number as written)
            text = got if isinstance(got, str) else \
                str(got) if isinstance(got, int | float) and not isinstance(got, bool) \
                else None
            if text is not None and (text == expected or (
                    self.ignore_case and text.casefold() == expected.casefold())):
                return []
            return [f"{at}: expected {_plain(expected)}, got {_plain(got)}"]
        if expected == got and type(expected) is type(got):  # true, false, null
            return []
        return [f"{at}: expected {_plain(expected)}, got {_plain(got)}"]


class ToolArgs(TrajectoryCheck):
    """1 when some call of the tool had the expected arguments."""

    family = "tool-args"

    def __init__(self, *, tool: Any = None, expected: Any = None, match: Any = "exact",
                 tolerance: Any = 0, ignore_case: Any = False,
                 label: str | None = None) -> None:
        super().__init__(label=label)
        self.tool = None if tool is None else self.config("tool", tool, _tool)
        self.expected_args = None if expected is None else \
            self.config("expected", expected, _mapping)
        if match not in MATCHES:
            raise ConfigError(f"{self.where}: 'match' must be exact or subset, not {match!r}")
        self.rule = ArgsRule(str(match), self.config("tolerance", tolerance, _tolerance),
                             flag("ignore_case", ignore_case, self.where))
        self.requires = ((EXPECTED_TOOL,) if self.tool is None else ()) + (
            (EXPECTED_ARGS,) if self.expected_args is None else ())

    def judge(self, item: Item, trajectory: Trajectory, evidence: dict[str, Any]) -> Score:
        tool = self.per_item(item, EXPECTED_TOOL, self.tool, _tool)
        expected = self.per_item(item, EXPECTED_ARGS, self.expected_args, _mapping)
        if tool is None or expected is None:
            lack = "args.tool or the item's 'expected_tool'" if tool is None else \
                "args.expected or the item's 'expected_tool_args'"
            return self.fail(f"nothing to compare with: give {lack}", evidence)
        evidence.update(tool=tool, expected=expected, match=self.rule.match,
                        tolerance=self.rule.tolerance.text(), ignore_case=self.rule.ignore_case)
        calls = [c for c in trajectory.calls if c.name == tool]
        if not calls:
            evidence["calls"] = []
            return self.score(False, f"{tool} never called (called "
                              f"{_called(trajectory.names)})", evidence)
        checked = [{"arguments": c.args(), "differences": self.rule.diff(expected, c.args())}
                   for c in calls]
        evidence["calls"] = checked
        hit = next((n for n, c in enumerate(checked, 1) if not c["differences"]), None)
        if hit is not None:
            which = f" (call {hit} of {len(calls)})" if len(calls) > 1 else ""
            return self.score(True, f"{tool} called with the expected arguments "
                              f"({self.rule.match}){which}", evidence)
        first = checked[0]["differences"]
        more = f" (+{len(first) - 1} more)" if len(first) > 1 else ""
        calls_text = "its call" if len(calls) == 1 else f"any of its {len(calls)} calls"
        return self.score(False, f"{tool}: no call with the expected arguments "
                          f"({self.rule.match}); {calls_text}: {first[0]}{more}", evidence)


class MaxSteps(TrajectoryCheck):
    """1 when the agent made at most `n` tool calls."""

    family = "max-steps"

    def __init__(self, *, n: Any = None, label: str | None = None) -> None:
        super().__init__(label=label)
        self.n = None if n is None else self.config("n", n, _count)
        self.requires = (MAX_STEPS,) if self.n is None else ()

    def judge(self, item: Item, trajectory: Trajectory, evidence: dict[str, Any]) -> Score:
        n = self.per_item(item, MAX_STEPS, self.n, _count)
        if n is None:
            return self.fail(f"no limit: give args.n or the item's '{MAX_STEPS}'", evidence)
        steps = len(trajectory.calls)
        evidence.update(steps=steps, n=n)
        if steps <= n:
            return self.score(True, f"{steps} tool call{'s' * (steps != 1)}, at most {n}",
                              evidence)
        return self.score(False, f"{steps} tool calls, more than {n}", evidence)


class NoToolErrors(TrajectoryCheck):
    """1 when no tool call reported an error (a trajectory of no calls has none)."""

    family = "no-tool-errors"

    def judge(self, item: Item, trajectory: Trajectory, evidence: dict[str, Any]) -> Score:
        failed = [{"call": n, "name": c.name, "error": c.error}
                  for n, c in enumerate(trajectory.calls, 1) if c.error is not None]
        evidence["failed"] = failed
        if not failed:
            return self.score(True, f"no tool error in {len(trajectory.calls)} call"
                              f"{'s' * (len(trajectory.calls) != 1)}", evidence)
        first = failed[0]
        more = f" (+{len(failed) - 1} more)" if len(failed) > 1 else ""
        return self.score(False, f"{len(failed)} of {len(trajectory.calls)} tool calls "
                          f"failed: {first['name']} (call {first['call']}): "
                          f"{excerpt(str(first['error']))}{more}", evidence)
