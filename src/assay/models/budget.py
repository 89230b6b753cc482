"""A run's spending limit, checked before every model request.

A request may start only when what is already spent, plus an estimate of every request still
in flight, plus an estimate of this one stays within the budget; otherwise `BudgetExceeded` is
raised before anything is sent, and the runner stops the run cleanly (status `interrupted`,
reason `budget`). Spend is the registry's price table applied to the usage each reply reports,
so the figures are the ones the summaries show.

The estimate of a request, per model:
- input tokens: the characters of its messages × that model's tokens per character measured on
  its earlier replies in this run (1 token per character before the first reply, which over-
  rather than under-estimates English and Chinese text alike);
- output tokens: the largest completion that model has returned in this run, capped by the
  request's `max_tokens` (or `max_completion_tokens`); before its first reply, `max_tokens`
  when set, else 1,024.
When the reply comes, its estimate is released and its actual cost counted. The estimate errs
on the high side so a budget stops a run a request early rather than one too late.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from assay.core.errors import AssayError, ConfigError
from assay.core.model_call import Usage

DEFAULT_OUTPUT_TOKENS = 1024


class BudgetExceeded(AssayError):
    """The next request would pass the run's budget: nothing was sent."""

    exit_code = 130


@dataclass
class _Seen:
    chars: int = 0
    prompt_tokens: int = 0
    max_completion: int | None = None


@dataclass
class Budget:
    limit: float
    spent: float = 0.0  # committed: actual cost of finished requests (earlier attempts too)
    in_flight: float = 0.0  # estimates of requests sent and not yet answered
    requests: int = 0  # requests this process let through
    refused: str | None = None  # why the first refused request was refused
    _seen: dict[str, _Seen] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.limit <= 0:
            raise ConfigError(f"a budget must be more than 0 (got {self.limit:g})")

    def estimate(self, cfg: Any, messages: list[dict[str, str]],
                 params: Mapping[str, Any]) -> float:
        seen = self._seen.get(cfg.name, _Seen())
        chars = sum(len(str(m.get("content") or "")) for m in messages)
        ratio = seen.prompt_tokens / seen.chars if seen.chars else 1.0
        cap = params.get("max_tokens", params.get("max_completion_tokens"))
        cap = cap if isinstance(cap, int) and not isinstance(cap, bool) else None
        out = seen.max_completion if seen.max_completion is not None else (
            cap if cap is not None else DEFAULT_OUTPUT_TOKENS)
        if cap is not None:
            out = min(out, cap)
        cost = cfg.cost(Usage(round(chars * ratio), out))
        return float(cost or 0.0)

    def reserve(self, cfg: Any, messages: list[dict[str, str]],
                params: Mapping[str, Any]) -> float:
        """Admit a request (its estimate is held until `settle`), or refuse it."""
        guess = self.estimate(cfg, messages, params)
        if self.spent + self.in_flight + guess > self.limit:
            if self.refused is None:
                self.refused = (f"budget {self.limit:g} USD: spent {self.spent:.6g}, in flight "
                                f"~{self.in_flight:.6g}, next request to {cfg.name} "
                                f"~{guess:.6g}")
            raise BudgetExceeded(self.refused)
        self.in_flight += guess
        self.requests += 1
        return guess

    def settle(self, guess: float, cfg: Any, messages: list[dict[str, str]],
               usage: Usage) -> None:
        """The request is answered (or failed): its estimate out, its actual cost in."""
        self.in_flight = max(0.0, self.in_flight - guess)
        if usage.empty:
            return
        self.spent += float(cfg.cost(usage) or 0.0)
        seen = self._seen.setdefault(cfg.name, _Seen())
        if usage.prompt_tokens is not None:
            seen.chars += sum(len(str(m.get("content") or "")) for m in messages)
            seen.prompt_tokens += usage.prompt_tokens
        if usage.completion_tokens is not None:
            seen.max_completion = max(seen.max_completion or 0, usage.completion_tokens)


def priced(cfg: Any) -> bool:
    return cfg.price_in_per_mtok is not None or cfg.price_out_per_mtok is not None
