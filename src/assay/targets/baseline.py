"""`baseline-quote-agent`: a reference finance agent. It reads an item's question and ticker
fields, looks the quote up through the ground-truth provider layer and writes the answer a
careful analyst would: every standard field of the quote, in the question's language. It is the
offline target of `make demo` (on recorded snapshot tables) and a floor for real agents — an
agent that cannot beat a quote lookup is not fetching data."""

from __future__ import annotations

import re
import time
from typing import Any

from assay.core.conversation import history_of
from assay.core.errors import ConfigError
from assay.core.types import Answer, Item, TruthSnapshot
from assay.truth.capture import Capture, TruthConfig

from .base import TargetContext

_CJK = re.compile(r"[\u4e00-\u9fff]")
ZH = (("last", "最新价"), ("open", "今开"), ("high", "最高"), ("low", "最低"),
      ("prev_close", "昨收"), ("change", "涨跌额"), ("change_pct", "涨跌幅"),
      ("market_cap", "总市值"), ("am_fix", "早盘价"), ("pm_fix", "午盘价"))
EN = (("last", "latest price"), ("open", "open"), ("high", "high"), ("low", "low"),
      ("prev_close", "previous close"), ("change", "change"), ("change_pct", "change"),
      ("market_cap", "market cap"), ("am_fix", "morning fix"), ("pm_fix", "afternoon fix"))


def compose(question: str, snap: TruthSnapshot) -> str:
    zh = bool(_CJK.search(question))
    name = snap.source_fields.get("名称") or snap.instrument
    parts = []
    for key, label in ZH if zh else EN:
        value = snap.fields.get(key)
        if value is None:
            continue
        unit = "%" if key == "change_pct" else ""
        parts.append(f"{label} {value}{unit}" if not zh else f"{label}{value}{unit}")
    when = snap.fetched_at.strftime("%Y-%m-%d %H:%M UTC")
    if zh:
        return f"{name}（{snap.instrument}）" + "，".join(parts) + f"。（数据：{when}）"
    return f"{name} ({snap.instrument}): " + ", ".join(parts) + f". (Data as of {when}.)"


class BaselineQuoteAgent:
    kind = "baseline-quote-agent"

    def __init__(self, name: str, capture: Capture) -> None:
        self.name = name
        self.capture = capture

    def public(self) -> dict[str, Any]:
        cfg = self.capture.cfg
        return {"type": self.kind, "provider": cfg.provider, "snapshots": str(cfg.snapshots)
                if cfg.snapshots else None, "date": cfg.date, "field": cfg.code_field,
                "market": cfg.market}

    async def answer(self, item: Item) -> Answer:
        start = time.perf_counter()
        if history_of(item) is not None and not self.capture.names_instrument(item):
            # a conversation's turn that asks for no instrument ("谢谢", "thanks"): a word
            # back, no lookup — not a failed one, which would abort the conversation
            zh = bool(_CJK.search(str(item.get("prompt") or "")))
            return Answer("好的，还需要查询其他行情吗？" if zh else
                          "You're welcome. Anything else to look up?", {"tool_calls": []},
                          time.perf_counter() - start)
        t0 = time.time()
        snap = await self.capture.fetch(item)
        # its one tool call, as an agent reports its trajectory: what it asked for and what the
        # recorded table (or the live source) returned — read by the trajectory checks and
        # finance-cause like any agent's
        call: dict[str, Any] = {"name": "quote", "arguments": {"symbol": snap.instrument},
                                "result": snap.source_fields or snap.fields,
                                "start": t0, "end": time.time()}
        if snap.status != "ok":
            call["error"] = snap.message or snap.status
        extras = {"quote": snap.as_record(), "tool_calls": [call]}
        if snap.status != "ok":
            return Answer(None, extras, time.perf_counter() - start, None,
                          f"no quote for {snap.instrument or 'the item'}: {snap.message}")
        text = compose(str(item.get("prompt") or ""), snap)
        return Answer(text, extras, time.perf_counter() - start)

    async def close(self) -> None:
        pass


def build(ctx: TargetContext, *, name: str, provider: str = "snapshot",
          snapshots: str | None = None, date: str | None = None, field: str | None = None,
          market: str | None = None, cache_s: float | None = None,
          min_interval_s: float | None = None, token_env: str | None = None
          ) -> BaselineQuoteAgent:
    if provider == "snapshot":
        if not snapshots:
            raise ConfigError(f"target '{name}': the snapshot provider needs 'snapshots' "
                              "(a folder of recorded tables)")
        mode = f"snapshot:{snapshots}" + (f"@{date}" if date else "")
    else:
        mode = "live"
    given = {"field": field, "market": market, "cache_s": cache_s,
             "min_interval_s": min_interval_s, "token_env": token_env}
    truth: dict[str, Any] = {k: v for k, v in given.items() if v is not None}
    if provider != "snapshot":
        truth["provider"] = provider
    return BaselineQuoteAgent(name, Capture(TruthConfig.parse(mode, truth, ctx.base)))
