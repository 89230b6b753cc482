"""The trajectory checks (issue 26) on known trajectories: every tool-sequence mode both ways,
each check's edges (no trajectory recorded vs an empty one, a failed call, arguments given as
JSON text, tolerances), the item's own fields overriding the spec's args, and bad args refused
in one line that names the key."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from assay.core.errors import ConfigError
from assay.core.trajectory import ANSWER, ITEM, ToolCall, read_trajectory, trajectory_of
from assay.core.types import Answer, Item, Score, ScoreStatus
from assay.evaluators.builtin.trajectory import match_sequence
from assay.evaluators.registry import EVALUATORS
from assay.runner.evaluate import evaluate

NOT_RECORDED = ("no tool calls recorded for this answer (neither the answer's tool_calls nor "
                "the item's 'tool_calls' field): nothing to judge")


def calls(*names: str, **by_name: Any) -> list[dict[str, Any]]:
    """Tool calls by name; `by_name[NAME]` adds that call's other keys."""
    return [{"name": n, **by_name.get(n, {})} for n in names]


def judge(name: str, tool_calls: Any, fields: dict[str, Any] | None = None,
          **args: Any) -> Score:
    """`name` built as a run builds it, on an answer whose target reported `tool_calls`
    (None: the target reported none)."""
    ev = EVALUATORS.build(name, **args)
    extras = {} if tool_calls is None else {"tool_calls": tool_calls}
    item = Item("i1", {"prompt": "q", **(fields or {})}, "v", 3)
    return asyncio.run(evaluate(ev, item, Answer("answer", extras)))


def got(score: Score) -> tuple[float | None, str]:
    return score.value, score.reason


# -- tool-sequence: agentevals' four modes, both ways ----------------------------------------

S, Q, C = "search", "quote", "calc"
SEQUENCES = [  # mode, called, expected, passes, missing, extra
    ("strict", [S, Q], [S, Q], True, [], []),
    ("strict", [], [], True, [], []),
    ("strict", [Q, S], [S, Q], False, [], []),  # the same calls, another order
    ("strict", [S], [S, Q], False, [Q], []),  # one short
    ("strict", [S, Q, Q], [S, Q], False, [], [Q]),  # one more
    ("unordered", [Q, S], [S, Q], True, [], []),
    ("unordered", [S, Q, Q], [Q, S, Q], True, [], []),
    ("unordered", [S, Q, Q], [S, Q], False, [], [Q]),  # counts matter
    ("unordered", [S], [S, Q], False, [Q], []),
    ("unordered", [S, C], [S, Q], False, [Q], [C]),
    ("subset", [Q], [S, Q], True, [S], []),
    ("subset", [], [S, Q], True, [S, Q], []),
    ("subset", [Q, S], [S, Q], True, [], []),
    ("subset", [Q, C], [S, Q], False, [S], [C]),  # a call outside the expected
    ("subset", [Q, Q], [S, Q], False, [S], [Q]),  # quote once expected, made twice
    ("superset", [S, C, Q], [S, Q], True, [], [C]),
    ("superset", [Q, S], [S, Q], True, [], []),
    ("superset", [S, Q], [S, Q], True, [], []),
    ("superset", [Q], [S, Q], False, [S], []),
    ("superset", [S, Q], [Q, Q], False, [Q], [S]),  # quote twice expected, made once
    ("superset", [], [S], False, [S], []),
]


@pytest.mark.parametrize(("mode", "called", "expected", "passes", "missing", "extra"),
                         SEQUENCES)
def test_every_mode_both_ways(mode: str, called: list[str], expected: list[str],
                              passes: bool, missing: list[str], extra: list[str]) -> None:
    m = match_sequence(called, expected, mode)
    assert (m.passed, m.missing, m.extra) == (passes, missing, extra)
    s = judge("tool-sequence", calls(*called), expected=expected, mode=mode)
    assert (s.status, s.value) == (ScoreStatus.SCORED, 1.0 if passes else 0.0)
    assert s.evidence["tools"] == called and s.evidence["expected"] == expected
    assert (s.evidence["mode"], s.evidence["missing"], s.evidence["extra"]) == (
        mode, missing, extra)


def test_sequence_reasons_say_what_differs() -> None:
    assert got(judge("tool-sequence", calls(S, Q), expected=[S, Q])) == (
        1.0, "strict: called [search, quote], expected [search, quote]")
    s = judge("tool-sequence", calls(Q, S), expected=[S, Q])
    assert got(s) == (0.0, "strict: called [quote, search], expected [search, quote]: call 1 "
                           "is quote, expected search")
    assert s.evidence["differs_at"] == 1
    assert got(judge("tool-sequence", calls(S), expected=[S, Q]))[1].endswith(
        "call 2 is nothing, expected quote")
    assert got(judge("tool-sequence", [], expected=[S], mode="superset")) == (
        0.0, "superset: called no tool, expected [search]: missing [search]")
    assert got(judge("tool-sequence", calls(Q, C), expected=[S, Q], mode="subset")) == (
        0.0, "subset: called [quote, calc], expected [search, quote]: not expected [calc]")
    assert got(judge("tool-sequence", calls(S, C), expected=[S, Q], mode="unordered")) == (
        0.0, "unordered: called [search, calc], expected [search, quote]: missing [quote]; "
             "not expected [calc]")


def test_calls_are_ordered_by_their_start_when_every_one_has_one() -> None:
    timed = [{"name": Q, "start": 2.0}, {"name": S, "start": 1.0}]
    assert judge("tool-sequence", timed, expected=[S, Q]).value == 1.0
    untimed = [{"name": Q, "start": 2.0}, {"name": S}]  # as recorded
    assert judge("tool-sequence", untimed, expected=[Q, S]).value == 1.0


# -- no trajectory recorded is not "made no call" ---------------------------------------------

@pytest.mark.parametrize(("name", "args"), [
    ("tool-used", {"tool": Q}), ("tool-sequence", {"expected": [Q]}),
    ("tool-args", {"tool": Q, "expected": {}}), ("max-steps", {"n": 1}),
    ("no-tool-errors", {})])
def test_no_trajectory_recorded_is_null_never_a_zero(name: str, args: dict[str, Any]) -> None:
    s = judge(name, None, **args)
    assert (s.status, s.value, s.reason) == (ScoreStatus.NULL, None, NOT_RECORDED)
    assert s.evidence == {"tools": None}


@pytest.mark.parametrize(("name", "args", "value"), [
    ("tool-used", {"tool": Q}, 0.0), ("tool-sequence", {"expected": [Q]}, 0.0),
    ("tool-sequence", {"expected": []}, 1.0), ("tool-args", {"tool": Q, "expected": {}}, 0.0),
    ("max-steps", {"n": 0}, 1.0), ("no-tool-errors", {}, 1.0)])
def test_an_empty_trajectory_recorded_is_judged(name: str, args: dict[str, Any],
                                                value: float) -> None:
    s = judge(name, [], **args)
    assert (s.status, s.value, s.evidence["tools"]) == (ScoreStatus.SCORED, value, [])


def test_a_list_that_could_not_be_read_is_null_and_says_why() -> None:
    ev = EVALUATORS.build("tool-used", tool=Q)
    answer = Answer("a", {"tool_calls": [],
                          "tool_call_problems": ["tool calls: expected a list, got dict"]})
    s = asyncio.run(evaluate(ev, Item("i", {}), answer))
    assert (s.status, s.reason) == (
        ScoreStatus.NULL, "the recorded tool calls could not be read: tool calls: expected a "
                          "list, got dict")
    # what could be read is judged; what could not is in the evidence
    s = judge("tool-used", [{"name": Q}, "", 7], tool=Q)
    assert s.value == 1.0 and s.evidence["problems"] == [
        "tool call 2: expected an object, got str", "tool call 3: expected an object, got int"]


# -- tool-used, max-steps, no-tool-errors -------------------------------------------------------

def test_tool_used() -> None:
    assert got(judge("tool-used", calls(S, Q, Q), tool=Q)) == (1.0, "quote called 2 times")
    assert got(judge("tool-used", calls(S), tool=Q)) == (
        0.0, "quote never called (called [search])")
    assert got(judge("tool-used", [], tool=Q)) == (0.0, "quote never called (called no tool)")
    failed = judge("tool-used", calls(Q, quote={"error": "timeout"}), tool=Q)
    assert got(failed) == (1.0, "quote called 1 time")  # a failed call was still made
    assert failed.evidence == {"tools": [Q], "source": "the answer's tool_calls",
                               "expected": Q, "times": 1}


def test_max_steps() -> None:
    assert got(judge("max-steps", calls(S, Q), n=2)) == (1.0, "2 tool calls, at most 2")
    assert got(judge("max-steps", calls(S, Q, Q), n=2)) == (0.0, "3 tool calls, more than 2")
    assert got(judge("max-steps", [], n=0)) == (1.0, "0 tool calls, at most 0")
    assert judge("max-steps", calls(S), n=0).evidence == {
        "tools": [S], "source": "the answer's tool_calls", "steps": 1, "n": 0}


def test_no_tool_errors() -> None:
    assert got(judge("no-tool-errors", calls(S, Q))) == (1.0, "no tool error in 2 calls")
    s = judge("no-tool-errors", calls(S, Q, C, quote={"error": "HTTP 503"},
                                      calc={"error": {"code": 1}}))
    assert got(s) == (0.0, "2 of 3 tool calls failed: quote (call 2): HTTP 503 (+1 more)")
    assert s.evidence["failed"] == [{"call": 2, "name": Q, "error": "HTTP 503"},
                                    {"call": 3, "name": C, "error": "{'code': 1}"}]
    # an empty or false error is no error
    assert judge("no-tool-errors", calls(S, search={"error": ""})).value == 1.0


# -- tool-args ------------------------------------------------------------------------------------

QUOTE = {"symbol": "600519", "market": "SH", "days": 5, "price": 1455.0}


def args_of(arguments: Any, *, name: str = Q, **args: Any) -> Score:
    return judge("tool-args", [{"name": name, "arguments": arguments}],
                 **{"tool": Q, **args})


@pytest.mark.parametrize(("arguments", "args", "passes"), [
    (QUOTE, {"expected": QUOTE}, True),
    (QUOTE, {"expected": {"symbol": "600519"}}, False),  # exact: other keys are differences
    (QUOTE, {"expected": {"symbol": "600519"}, "match": "subset"}, True),
    (QUOTE, {"expected": {"symbol": "600519", "currency": "CNY"}, "match": "subset"}, False),
    ({"symbol": "600519"}, {"expected": {"symbol": "000001"}, "match": "subset"}, False),
    ({"price": 1455.4}, {"expected": {"price": 1455}}, False),  # no tolerance: equal only
    ({"price": 1455.4}, {"expected": {"price": 1455}, "tolerance": 0.5}, True),
    ({"price": 1455.6}, {"expected": {"price": 1455}, "tolerance": 0.5}, False),
    ({"price": 1469}, {"expected": {"price": 1455}, "tolerance": "1%"}, True),
    ({"price": 1470}, {"expected": {"price": 1455}, "tolerance": "1%"}, False),
    ({"price": 1.02}, {"expected": {"price": 1}, "tolerance": {"abs": 0.01, "rel": 0.05}},
     True),
    ({"price": "1,455.00"}, {"expected": {"price": 1455}}, True),  # a number as text
    ({"symbol": 600519}, {"expected": {"symbol": "600519"}}, True),  # text as a number
    ({"symbol": "sh600519"}, {"expected": {"symbol": "SH600519"}}, False),
    ({"symbol": "sh600519"}, {"expected": {"symbol": "SH600519"}, "ignore_case": True}, True),
    ({"flag": 1}, {"expected": {"flag": True}}, False),  # true is not 1
    ({"q": {"a": 1, "b": [1, 2]}}, {"expected": {"q": {"a": 1, "b": [1, 2]}}}, True),
    ({"q": {"a": 1, "b": [1, 2]}}, {"expected": {"q": {"b": [1, 2]}}}, False),
    ({"q": {"a": 1, "b": [1, 2]}}, {"expected": {"q": {"b": [1, 2]}}, "match": "subset"},
     True),
    ({"q": [1, 2]}, {"expected": {"q": [2, 1]}}, False),
    ('{"symbol": "600519"}', {"expected": {"symbol": "600519"}}, True),  # JSON text (OpenAI)
    ("1455 * 1", {"expected": {"x": 1}}, False),
])
def test_tool_args_both_ways(arguments: Any, args: dict[str, Any], passes: bool) -> None:
    assert args_of(arguments, **args).value == (1.0 if passes else 0.0)


def test_tool_args_reasons_and_evidence() -> None:
    s = args_of(QUOTE, expected={"symbol": "600519", "days": 4, "x": 1}, match="subset")
    assert got(s) == (0.0, "quote: no call with the expected arguments (subset); its call: "
                           "days: expected 4, got 5 (+1 more)")
    assert s.evidence["calls"] == [{"arguments": QUOTE,
                                    "differences": ["days: expected 4, got 5", "x: missing"]}]
    assert (s.evidence["tool"], s.evidence["match"], s.evidence["tolerance"]) == (
        Q, "subset", None)
    s = args_of({"price": 2}, expected={"price": 1}, tolerance={"abs": 0.5, "rel": 0.1})
    assert s.reason.endswith("price: expected 1 ±0.5 or ±10%, got 2")
    two = judge("tool-args", [{"name": Q, "arguments": {"symbol": "000001"}},
                              {"name": Q, "arguments": {"symbol": "600519"}}],
                tool=Q, expected={"symbol": "600519"})
    assert got(two) == (1.0, "quote called with the expected arguments (exact) (call 2 of 2)")
    assert got(judge("tool-args", calls(S), tool=Q, expected={})) == (
        0.0, "quote never called (called [search])")
    assert args_of("1455 * 1", expected={"x": 1}).evidence["calls"][0]["differences"] == [
        'arguments: expected an object, got "1455 * 1"']


# -- the item's own fields ----------------------------------------------------------------------

def test_item_fields_override_the_spec_args() -> None:
    trajectory = calls(S, Q, quote={"arguments": {"symbol": "600519"}})
    assert judge("tool-used", trajectory, {"expected_tool": C}, tool=Q).value == 0.0
    assert judge("tool-used", trajectory, {"expected_tool": S}).value == 1.0
    assert judge("tool-sequence", trajectory, {"expected_tools": [Q, S]},
                 expected=[S, Q]).value == 0.0
    assert judge("tool-sequence", trajectory, {"expected_tools": [Q, S],
                                               "expected_tools_mode": "unordered"}).value == 1.0
    # from a CSV column: a JSON list, or names split by commas
    assert judge("tool-sequence", trajectory, {"expected_tools": '["search", "quote"]'}
                 ).value == 1.0
    assert judge("tool-sequence", trajectory, {"expected_tools": "search, quote"}).value == 1.0
    assert judge("tool-args", trajectory, {"expected_tool_args": {"symbol": "000001"}},
                 tool=Q, expected={"symbol": "600519"}).value == 0.0
    assert judge("tool-args", trajectory, {"expected_tool": Q,
                                           "expected_tool_args": '{"symbol": "600519"}'}
                 ).value == 1.0
    assert judge("max-steps", trajectory, {"max_steps": 1}, n=5).value == 0.0
    assert judge("max-steps", trajectory, {"max_steps": "2"}).value == 1.0
    # an empty field is no override
    assert judge("tool-used", trajectory, {"expected_tool": ""}, tool=Q).value == 1.0


def test_a_bad_item_field_is_that_items_error() -> None:
    s = judge("tool-sequence", calls(S), {"expected_tools_mode": "loose"}, expected=[S])
    assert (s.status, s.reason) == (
        ScoreStatus.ERROR, "the item's 'expected_tools_mode' must be one of strict, unordered, "
                           "subset, superset, not 'loose'")
    s = judge("max-steps", calls(S), {"max_steps": -1})
    assert s.reason == "the item's 'max_steps' must be a whole number ≥ 0, not -1"


def test_without_the_arg_the_item_field_is_required() -> None:
    assert EVALUATORS.build("tool-used").requires == ("expected_tool",)
    assert EVALUATORS.build("tool-used", tool=Q).requires == ()
    assert EVALUATORS.build("tool-args").requires == ("expected_tool", "expected_tool_args")
    assert EVALUATORS.build("tool-sequence").requires == ("expected_tools",)
    assert EVALUATORS.build("max-steps").requires == ("max_steps",)
    assert EVALUATORS.build("no-tool-errors").requires == ()
    s = judge("tool-sequence", calls(S))
    assert (s.status, s.reason) == (ScoreStatus.ERROR,
                                    "item has no field 'expected_tools' (line 3)")


@pytest.mark.parametrize(("name", "args", "message"), [
    ("tool-used", {"tool": ""}, "evaluator 'tool-used': 'tool' must be a tool's name, not ''"),
    ("tool-sequence", {"expected": "[x"},
     "evaluator 'tool-sequence': 'expected' is not a JSON list: [x"),
    ("tool-sequence", {"expected": [1]},
     "evaluator 'tool-sequence': 'expected' must be a list of tool names, not [1]"),
    ("tool-sequence", {"expected": [S], "mode": "exact"},
     "evaluator 'tool-sequence': 'mode' must be one of strict, unordered, subset, superset, "
     "not 'exact'"),
    ("tool-args", {"tool": Q, "expected": [1]},
     "evaluator 'tool-args': 'expected' must be a mapping of argument names to values, "
     "not [1]"),
    ("tool-args", {"tool": Q, "expected": {}, "match": "loose"},
     "evaluator 'tool-args': 'match' must be exact or subset, not 'loose'"),
    ("tool-args", {"tool": Q, "expected": {}, "tolerance": -1},
     "evaluator 'tool-args': 'tolerance' must be a number, \"N%\" or {abs, rel}, not -1"),
    ("tool-args", {"tool": Q, "expected": {}, "tolerance": "x%"},
     "evaluator 'tool-args': 'tolerance' must be a number, \"N%\" or {abs, rel}, not 'x%'"),
    ("tool-args", {"tool": Q, "expected": {}, "tolerance": {"abs": 1, "pct": 2}},
     "evaluator 'tool-args': 'tolerance' takes abs and rel, not pct"),
    ("tool-args", {"tool": Q, "expected": {}, "ignore_case": "yes"},
     "evaluator 'tool-args': 'ignore_case' must be true or false, not 'yes'"),
    ("max-steps", {"n": 2.5}, "evaluator 'max-steps': 'n' must be a whole number ≥ 0, not 2.5"),
    ("max-steps", {"n": True},
     "evaluator 'max-steps': 'n' must be a whole number ≥ 0, not True"),
])
def test_bad_args_are_one_line_naming_the_key(name: str, args: dict[str, Any],
                                              message: str) -> None:
    with pytest.raises(ConfigError) as err:
        EVALUATORS.build(name, **args)
    assert str(err.value) == message


def test_unknown_args_are_refused_with_the_accepted_ones() -> None:
    with pytest.raises(ConfigError, match="tol"):
        EVALUATORS.build("tool-args", tool=Q, expected={}, tol=1)


# -- the typed trajectory -----------------------------------------------------------------------

def test_the_trajectory_comes_from_the_answer_else_the_item() -> None:
    item = Item("i", {"tool_calls": [{"name": "from_item"}]})
    t = trajectory_of(item, Answer("a", {"tool_calls": [
        {"name": Q, "arguments": '{"symbol": "600519"}', "result": 1455.0, "id": 7,
         "start": 1.5, "end": 2, "error": "slow"}]}))
    assert t is not None and t.source == ANSWER
    assert t.calls == (ToolCall(Q, '{"symbol": "600519"}', 1455.0, "slow", "7", 1.5, 2.0),)
    assert t.calls[0].args() == {"symbol": "600519"} and t.calls[0].failed
    t = trajectory_of(item, Answer("a"))
    assert t is not None and (t.source, t.names) == (ITEM, ["from_item"])
    assert trajectory_of(Item("i", {}), Answer("a")) is None
    # a dataset's OpenAI-shaped calls, and bare names
    t = read_trajectory([{"id": "c1", "type": "function",
                          "function": {"name": Q, "arguments": "{}"}}, S], ITEM)
    assert t is not None and t.names == [Q, S] and t.calls[0].args() == {}
    assert read_trajectory({"name": Q}, ITEM) is None


def test_a_python_targets_returned_calls_are_its_answers_trajectory() -> None:
    from assay.targets.python import PythonTarget

    def agent(item: dict[str, Any]) -> dict[str, Any]:
        return {"text": "1455元", "metadata": {"model": "m"},
                "tool_calls": [{"name": Q, "arguments": {"symbol": "600519"}}, "bad"]}

    answer = asyncio.run(PythonTarget("p", agent).answer(Item("i", {})))
    assert answer.extras["tool_calls"] == [{"name": Q, "arguments": {"symbol": "600519"}}]
    assert answer.extras["tool_call_problems"] == ["tool call 2: expected an object, got str"]
    t = trajectory_of(Item("i", {}), answer)
    assert t is not None and t.names == [Q] and t.problems == (
        "tool call 2: expected an object, got str",)
    # text alone, or tool_calls None: nothing recorded
    for out in ("1455元", {"text": "1455元", "tool_calls": None}):
        plain = asyncio.run(PythonTarget("p", lambda item, o=out: o).answer(Item("i", {})))
        assert "tool_calls" not in plain.extras
