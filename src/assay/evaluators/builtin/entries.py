"""The built-in checks' registry entries: names, arguments (declared, so listings import
nothing and unknown arguments are refused with the accepted ones) and what they score.

Factories are `module:Class` text, so `jsonschema` and `rapidfuzz` are imported only when a
run uses the check that needs them."""

from __future__ import annotations

from typing import Any

from assay.core.registry import Arg, Registry

from .base import EXPECTED, LABEL, NORMALISE, REFERENCE

_M = "assay.evaluators.builtin"
PASS = "1 (pass) or 0"
TRAJ_SCORE = "1 (pass), 0 or null"  # null: no tool calls recorded
TRAJ_READS = ["tool_calls"]
FENCED = Arg("fenced", False, "read a reply that is one ```json fenced block from inside the "
             "fence (default true)")

# name, factory, args, summary, score, reads (the item's reference unless `expected` is given)
_CHECKS: list[tuple[str, str, tuple[Arg, ...], str, str, list[str]]] = [
    ("exact", f"{_M}.match:Exact", (EXPECTED, *NORMALISE, LABEL),
     "the answer equals the expected answer (optionally ignoring case, blanks, punctuation, "
     "full-width forms)", PASS, [REFERENCE]),
    ("contains", f"{_M}.match:Contains", (EXPECTED, *NORMALISE, LABEL),
     "the expected answer appears in the answer", PASS, [REFERENCE]),
    ("contains-all", f"{_M}.match:ContainsAll",
     (EXPECTED, Arg("separator", False, "cut a text reference into values at this string"),
      *NORMALISE, LABEL),
     "every expected string (a list) appears in the answer", PASS, [REFERENCE]),
    ("contains-any", f"{_M}.match:ContainsAny",
     (EXPECTED, Arg("separator", False, "cut a text reference into values at this string"),
      *NORMALISE, LABEL),
     "at least one expected string (a list) appears in the answer", PASS, [REFERENCE]),
    ("regex", f"{_M}.pattern:Regex",
     (Arg("pattern", True, "a Python regular expression; scores 1 when re.search finds it"),
      Arg("flags", False, 'letters "imsxa" or names [IGNORECASE, MULTILINE, DOTALL, …]'),
      LABEL),
     "the answer matches a regular expression (re.search)", PASS, []),
    ("numeric", f"{_M}.numeric:Numeric",
     (EXPECTED, Arg("abs", False, "absolute tolerance (default 0)"),
      Arg("rel", False, "relative tolerance, a fraction of the expected value (default 0)"),
      Arg("pick", False, "which stated number counts: all (default; abstain when they "
          "disagree), first, last, any"),
      Arg("only_numbers", False, "in a mixed dataset: an item whose reference states no "
          "single number is skipped (not applicable), not an error; as when: {reference: "
          "number} (default false)"), LABEL),
     "the number the answer states is within tolerance of the expected one (read as the "
     "rubric reads numbers: 万/亿/billion, signs, separators, full-width; and durations, "
     "counts, multiples)",
     "1, 0, abstained, or skipped (only_numbers)", [REFERENCE]),
    ("json-valid", f"{_M}.jsoncheck:JsonValid", (FENCED, LABEL),
     "the answer parses as JSON", PASS, []),
    ("json-schema", f"{_M}.jsoncheck:JsonSchema",
     (Arg("schema", True, "a JSON Schema, inline or the path of a .json/.yaml file"),
      FENCED, LABEL),
     "the answer is JSON valid against a JSON Schema (jsonschema)", PASS, []),
    ("length", f"{_M}.length:Length",
     (Arg("min", False, "fewest chars/words"), Arg("max", False, "most chars/words"),
      Arg("unit", False, "chars (default) or words (a CJK character is one word)"),
      Arg("strip", False, "ignore blanks at both ends (default true)"), LABEL),
     "the answer's length is within min/max characters or words", PASS, []),
    ("similarity", f"{_M}.similarity:Similarity",
     (EXPECTED, Arg("method", False, "levenshtein (default), ratio, token-sort, "
                    "jaro-winkler, rouge-l"),
      Arg("threshold", False, "pass at or above this similarity (0–1); without it the score "
          "is the similarity"), *NORMALISE, LABEL),
     "similarity to the expected answer (edit distance or ROUGE-L, by rapidfuzz)",
     "similarity in [0, 1], or 1/0 with a threshold", [REFERENCE]),
    ("tool-used", f"{_M}.trajectory:ToolUsed",
     (Arg("tool", False, "the tool's name (default: the item's 'expected_tool')"), LABEL),
     "the agent called the tool (its recorded tool calls: an HTTP agent's tool_calls, a "
     "Python target's, a watched trace's TOOL spans)", TRAJ_SCORE, TRAJ_READS),
    ("tool-sequence", f"{_M}.trajectory:ToolSequence",
     (Arg("expected", False, "the expected tool names, a list (default: the item's "
          "'expected_tools')"),
      Arg("mode", False, "strict (default: same calls, same order), unordered (same calls), "
          "subset (no call outside expected), superset (every expected call made); the "
          "item's 'expected_tools_mode' overrides"), LABEL),
     "the tools the agent called, by name, against an expected list", TRAJ_SCORE,
     TRAJ_READS),
    ("tool-args", f"{_M}.trajectory:ToolArgs",
     (Arg("tool", False, "the tool's name (default: the item's 'expected_tool')"),
      Arg("expected", False, "the expected arguments, a mapping (default: the item's "
          "'expected_tool_args')"),
      Arg("match", False, "exact (default: the same keys) or subset (the expected keys, "
          "others allowed)"),
      Arg("tolerance", False, "for numbers: absolute (0.01), relative (\"1%\") or {abs, "
          "rel} (default 0)"),
      Arg("ignore_case", False, "compare text arguments case-insensitively (default false)"),
      LABEL),
     "some call of the tool had the expected arguments", TRAJ_SCORE, TRAJ_READS),
    ("max-steps", f"{_M}.trajectory:MaxSteps",
     (Arg("n", False, "the most tool calls allowed (default: the item's 'max_steps')"),
      LABEL),
     "the agent made at most n tool calls", TRAJ_SCORE, TRAJ_READS),
    ("no-tool-errors", f"{_M}.trajectory:NoToolErrors", (LABEL,),
     "no tool call reported an error", TRAJ_SCORE, TRAJ_READS),
]

PYTHON_ARGS = (
    Arg("path", True, "the Python file (relative to the spec's folder)"),
    Arg("function", True, "the function: FUNCTION(item: dict, answer: str, **args)"),
    Arg("args", False, "keyword arguments passed to the function"),
    LABEL,
)


def register(registry: Registry[Any]) -> None:
    for name, factory, args, summary, score, reads in _CHECKS:
        # "cost": the Ray executor keeps such checks beside the run (runner/executor_spec.py)
        meta: dict[str, Any] = {"score": score, "reads": reads, "family": "builtin",
                                "cost": "microseconds"}
        if name == "json-schema":  # a schema given as text is a file, relative to the spec
            meta["paths"] = ["schema"]
        registry.register(name, factory, kind="code", context=False, args=args,
                          summary=summary, meta=meta)
    registry.register(
        "python", f"{_M}.custom:python_evaluator", kind="code", context=False,
        args=PYTHON_ARGS, summary="your own check: -e python:FILE.py:FUNCTION, or "
        "{python: FILE.py:FUNCTION, args: {…}} in a spec; returns a bool, a number or a Score",
        meta={"score": "what the function returns", "reads": ["any"], "family": "builtin"})
