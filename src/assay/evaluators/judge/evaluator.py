"""A template judged by a model: render → call (or cache) → strict parse. Everything needed to
see and recompute the judgment is kept with the score: in its evidence the template and how the
reply was parsed; in its `call` (a ModelCall) the rendered messages, the raw reply, tokens,
latency, attempts, cost and the model asked (its registry name: never its key)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from assay.core.model_call import Attempt, ModelCall, Usage, provider_of
from assay.core.types import Answer, Item, Score, Step, TruthSnapshot
from assay.models.cache import ResponseCache, cache_key
from assay.models.client import Completion, ModelClient

from ..base import missing_fields
from .messages import ANSWER_NAMES, build_messages
from .parse import parse_reply
from .templates import Template, item_template


async def ask(client: ModelClient, cache: ResponseCache | None,
              messages: list[dict[str, str]]) -> tuple[Completion, ModelCall]:
    """One model call through the cache, and the typed record of it a score carries."""
    cfg = client.cfg
    extra = {"response_format": {"type": "json_object"}} if cfg.json_mode else {}
    key = cache_key(cfg.base_url, cfg.model, messages, {**cfg.params, **extra})
    completion: Completion | None = None
    if cache is not None:
        hit = cache.get(key)
        if hit is not None:
            completion = Completion(hit["text"], Usage.from_json(hit.get("usage")), 0.0, [],
                                    cached=True, finish_reason=hit.get("finish_reason"))
    if completion is None:
        completion = await client.chat(messages, extra)
        # an empty reply is not kept: asking again (assay retry) must really ask again
        if completion.error is None and not completion.empty and cache is not None:
            cache.put(key, cfg.name, {"text": completion.text,
                                      "usage": completion.usage.to_json(),
                                      "finish_reason": completion.finish_reason})
    cost = cfg.cost(completion.usage)
    call = ModelCall(
        model=cfg.model, provider=provider_of(cfg.base_url), messages=tuple(messages),
        reply=completion.text, finish_reason=completion.finish_reason, usage=completion.usage,
        attempts=tuple(Attempt.from_json(a) for a in completion.attempts),
        latency_s=round(completion.latency_s, 4), cached=completion.cached,
        # a cache hit is free
        cost=None if cost is None else 0.0 if completion.cached else round(cost, 8),
        # the model that answered, as its response says (traces)
        response_model=completion.model, name=cfg.name, cache_key=key,
        # the reply held characters no store can keep (see core/text.py)
        sanitized=completion.sanitized)
    return completion, call


def request_steps(call: ModelCall) -> list[Step]:
    """One step per model request (retries included), from the call's attempts."""
    steps = []
    for n, a in enumerate(call.attempts):
        if a.start is None:
            continue
        attrs: dict[str, Any] = {"attempt": n + 1, "outcome": a.outcome, "model": call.name}
        if a.retry_in_s is not None:
            attrs["retry_in_s"] = a.retry_in_s
        steps.append(Step("model.request", call.name, a.start, a.end,
                          "ok" if a.ok else "error", attrs))
    return steps


class JudgeEvaluator:
    deterministic = False

    def __init__(self, template: Template | None, client: ModelClient, *,
                 cache: ResponseCache | None = None,
                 mapping: Mapping[str, str] | None = None, name: str | None = None) -> None:
        self.template = template  # None: item-judge, the template comes with each item
        self.client = client
        self.cache = cache
        self.mapping = dict(mapping or {})
        base = template.name if template else "item-judge"
        self.name = name or f"{base}@{client.cfg.name}"
        self.requires: tuple[str, ...] = (
            tuple(self.mapping.get(v, v) for v in template.variables if v not in ANSWER_NAMES)
            if template else ("judge_system_prompt", "judge_prompt_template"))

    @property
    def version(self) -> str:
        return self.template.version if self.template else "per-item"

    @property
    def concurrency(self) -> int:
        return int(self.client.cfg.max_concurrency)

    @property
    def uses_truth(self) -> bool:
        # an item's own judge prompt (FinSearchComp) renders the ground truth of T1 items
        return self.template is None or "ground_truth" in self.requires

    async def close(self) -> None:
        return None  # the client is shared and closed by whoever built it

    def template_for(self, item: Item) -> Template:
        if self.template is not None:
            return self.template
        return item_template(str(item.get("judge_system_prompt") or ""),
                             str(item.get("judge_prompt_template") or ""))

    def messages(self, item: Item, answer: Answer) -> list[dict[str, str]]:
        """Raises ConfigError when the item cannot fill the template (checked before calls)."""
        return build_messages(self.template_for(item), item.fields, answer.text or "",
                              self.mapping, where=f"item {item.id} (line {item.line})")

    def lacking(self, item: Item) -> list[str]:
        return missing_fields(self.requires, item)

    def prompts(self, item: Item, answer: Answer) -> list[dict[str, str]]:
        return self.messages(item, answer)

    async def evaluate(self, item: Item, answer: Answer,
                       truth: TruthSnapshot | None = None) -> Score:
        if truth is not None:  # judged against the quote captured for this answer
            item = item.with_field("ground_truth", truth.payload_text())
        t0 = time.time()
        template = self.template_for(item)
        messages = self.messages(item, answer)
        t1 = time.time()
        completion, call = await ask(self.client, self.cache, messages)
        t2 = time.time()
        steps = [Step("render", self.name, t0, t1), *request_steps(call)]
        evidence: dict[str, Any] = {"template": template.name,
                                    "template_version": template.version}
        full = (template.schema.minimum, template.schema.maximum)
        if completion.error is not None:
            return replace(Score.error(f"model call failed: {completion.error}", self.name,
                                       self.version, evidence=evidence),
                           full_score=full, steps=tuple(steps), call=call)
        judgment = parse_reply(completion.text, template.schema)
        evidence["parsed"] = {"how": judgment.how, "score": judgment.score,
                              "full_score": judgment.full_score}
        thinking = [*([completion.reasoning] if completion.reasoning else []),
                    *judgment.reasoning]
        if thinking:  # set aside before parsing: kept so a reader sees what was not parsed
            evidence["reasoning"] = thinking
        steps.append(Step("parse", self.name, t2, time.time(), attributes={"how": judgment.how}))
        return Score(judgment.score, judgment.status, judgment.reason or judgment.how,
                     self.name, self.version, full, evidence, tuple(steps), call)
