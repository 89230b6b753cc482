"""The evaluators: code evaluators, judge templates, item-judge, hybrids and juries in one
registry. A new evaluator is a module with a class or factory and one `EVALUATORS.register`
line here; a judge template is a file in `evaluators/judge/builtin/` or a project's
`./evaluators/` and needs no line at all. `assay evaluators list`, the UI and the docs read
this registry."""

from __future__ import annotations

from typing import Any

from assay.core.registry import Arg, Registry

from .builtin.entries import register as register_builtin
from .judges import MAPPING, MODEL, template_entries

# Any: besides evaluators it holds the juries, which combine judges' scores (kind "jury").
EVALUATORS: Registry[Any] = Registry("evaluators", noun="evaluator", context=True)

EVALUATORS.register(
    "finance-rubric", "assay.evaluators.finance:FinanceRubricEvaluator", kind="code",
    context=False, args=(Arg("rounding", False, 'T2/T3 "rounding errors are allowed": benchmark '
                             "(default: both at the coarser precision shown) or strict (the "
                             "reference's and the question's decimals)"),),
    summary="the executable finance rubric: T1 precision rules against "
    "the ground truth, T2/T3 reference answers and their grading notes, in code",
    meta={"score": "0, 1, null or abstained", "cost": "microseconds",
          "reads": ["prompt", "response_reference", "ground_truth (T1)"]})
EVALUATORS.register(
    "finance-cause", "assay.evaluators.cause:FinanceCause", kind="code", context=False,
    args=(), summary="why a T1 answer got its verdict, from its tool calls: truth_unavailable, "
    "right, no_retrieval, wrong_instrument, stale_data or misread",
    meta={"score": "1 (right), 0 (a wrong cause), null or abstained", "cost": "microseconds",
          "reads": ["prompt", "response_reference", "ground_truth (or the captured truth)",
                    "tool_calls"]})
EVALUATORS.register(
    "item-judge", "assay.evaluators.judges:item_judge", kind="judge", args=(MODEL, MAPPING),
    summary="each item's own judge prompts, FinSearchComp style",
    meta={"score": 'integer in [0, 1] or "null"',
          "reads": ["judge_system_prompt", "judge_prompt_template"]})
EVALUATORS.register(
    "finance-hybrid", "assay.evaluators.judges:finance_hybrid", kind="hybrid", args=(MODEL,),
    summary="a model extracts the values the answer states; the finance rubric decides",
    meta={"score": "0, 1 or null", "reads": ["prompt", "response_reference", "ground_truth"]})
EVALUATORS.register(
    "judge-file", "assay.evaluators.judges:file_judge", kind="judge",
    args=(Arg("path", True, "a template file (.md, .yaml)"), MODEL, MAPPING),
    summary="a judge template read from a file: -e PATH.md@MODEL",
    meta={"score": "as the template says"})
for _method in ("majority", "mean"):
    EVALUATORS.register(
        f"jury-{_method}", f"assay.evaluators.jury:{_method}", kind="jury", context=False,
        args=(), summary=f"the {_method} of the run's model judges (--jury {_method}); a "
        "member's own score stays",
        meta={"score": "combined from the judges' scores"})
register_builtin(EVALUATORS)  # exact, contains, regex, numeric, json-*, length, similarity,
#                               the trajectory checks (tool-used …), python
EVALUATORS.add_source(lambda: template_entries(EVALUATORS))
