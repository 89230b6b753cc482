"""Factories of the evaluators that call a model: a judge template (built in, in
`./evaluators/`, or a file), `item-judge` and `finance-hybrid`. Each takes the run's
`JudgeContext` (its clients and response cache) beside the arguments a manifest records: the
model's name and the variable mapping."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from assay.core.errors import ConfigError
from assay.core.registry import Arg, Entry, Registry

if TYPE_CHECKING:
    from .hybrid import FinanceHybrid
    from .judge.evaluator import JudgeEvaluator
    from .judge.templates import Template

MODEL = Arg("model", help="the judge model (or --judge-model)")
MAPPING = Arg("mapping", help="template variable → item field")


class JudgeContext(Protocol):
    """What a run lends the evaluators it builds and a manifest does not hold."""

    def client(self, model: str) -> Any: ...

    def response_cache(self) -> Any: ...


def _model(name: str, model: str | None) -> str:
    if not model:
        raise ConfigError(f"evaluator '{name}' is an LLM judge: give --judge-model MODEL "
                          f"or write {name}@MODEL")
    return str(model)


def judge(ctx: JudgeContext, template: Template | None, name: str, model: str | None,
          mapping: Mapping[str, str] | None) -> JudgeEvaluator:
    from .judge.evaluator import JudgeEvaluator

    model = _model(name, model)
    if template is not None and mapping:
        unknown = sorted(set(mapping) - set(template.variables))
        if unknown:
            raise ConfigError(f"evaluator '{name}@{model}': mapping names variable(s) the "
                              f"template does not have: {', '.join(unknown)} (it has "
                              f"{', '.join(template.variables)})")
    return JudgeEvaluator(template, ctx.client(model), cache=ctx.response_cache(),
                          mapping={str(k): str(v) for k, v in (mapping or {}).items()})


@dataclass(frozen=True)
class TemplateJudge:
    """The factory of one judge template's evaluator."""

    template: Template

    def __call__(self, ctx: JudgeContext, *, model: str | None = None,
                 mapping: Mapping[str, str] | None = None) -> JudgeEvaluator:
        return judge(ctx, self.template, self.template.name, model, mapping)

    def __repr__(self) -> str:  # how a clash of two names shows where each came from
        return self.template.source


def item_judge(ctx: JudgeContext, *, model: str | None = None,
               mapping: Mapping[str, str] | None = None) -> JudgeEvaluator:
    """Each item's own judge prompts (`judge_system_prompt`, `judge_prompt_template`)."""
    return judge(ctx, None, "item-judge", model, mapping)


def file_judge(ctx: JudgeContext, *, path: str, model: str | None = None,
               mapping: Mapping[str, str] | None = None) -> JudgeEvaluator:
    """A judge template read from a file given as the evaluator: `-e my-judge.md@MODEL`."""
    from .judge.templates import get_template

    template = get_template(str(path))
    return judge(ctx, template, template.name, model, mapping)


def finance_hybrid(ctx: JudgeContext, *, model: str | None = None) -> FinanceHybrid:
    """A model extracts the values the answer states; the finance rubric decides."""
    from .hybrid import FinanceHybrid

    if not model:
        raise ConfigError("finance-hybrid reads answers with a model: give --judge-model "
                          "MODEL or write finance-hybrid@MODEL")
    return FinanceHybrid(ctx.client(str(model)), ctx.response_cache())


def template_entries(registry: Registry[Any]) -> list[Entry[Any]]:
    """Every judge template (built in, then `./evaluators/`) as an entry of `registry`; read
    at lookup time, so a template added to the folder is known without registering it."""
    from .judge.templates import all_templates

    return [registry.entry_for(
        t.name, TemplateJudge(t), kind="judge template",
        summary=_first_sentence(t.description), args=(MODEL, MAPPING),
        meta={"score": t.schema.describe(), "reads": list(t.variables),
              "description": t.description,
              "variables": list(t.variables), "version": t.version, "source": t.source})
        for t in all_templates().values()]


def _first_sentence(text: str) -> str:
    return re.split(r"(?<=[.。])\s", text.strip(), maxsplit=1)[0]
