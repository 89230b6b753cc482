"""docs/extending.md's worked example, done: a new target type and a new ground-truth provider
are each a module and a registration — here both live in this test module and are registered
from it, with no edit anywhere in Assay — and a run takes them through the whole path: the
provider routes its own items (and spells instruments for questions resolved by name), the
target's span is of the kind its registration declares, the Ray executor would place it where
its registration says, and the rubric judges the echo against the provider's snapshot."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import assay
from assay.core.registry import Arg
from assay.core.types import Answer, Item, TruthSnapshot
from assay.runner.ray.executor import movable_target
from assay.store import repo
from assay.store.db import open_engine
from assay.targets.base import TargetContext
from assay.targets.build import build_target
from assay.targets.registry import NAME, TARGETS, target_facts
from assay.targets.spec import TargetSpec
from assay.truth.base import call_source, now, source_failed
from assay.truth.name_index import Instrument
from assay.truth.names import provider_fields
from assay.truth.registry import PROVIDERS
from assay.truth.routing import CodeRouting, route
from assay.truth.vocabulary import normalise

# --- the target type's module (src/assay/targets/echo.py in the docs) ------------------------


class EchoTarget:
    kind = "echo"

    def __init__(self, name: str, suffix: str) -> None:
        self.name, self.suffix = name, suffix

    def public(self) -> dict[str, str]:
        return {"type": self.kind, "suffix": self.suffix}

    async def answer(self, item: Item) -> Answer:
        return Answer(str(item.get("prompt")) + self.suffix)

    async def close(self) -> None: ...


def build_echo(ctx: TargetContext, *, name: str, suffix: str = "") -> EchoTarget:
    return EchoTarget(name, suffix)


# --- the provider's module (src/assay/truth/myfeed_provider.py in the docs) -------------------

QUOTES = {"MOUTAI": {"price": "1455.0", "open": "1483.1"}}  # what the feed's package returns


def myfeed_code(market: str, code: str) -> str | None:
    """An A-share of the tables as MyFeed writes it (600519 → 600519.MF)."""
    return f"{code}.MF" if market == "cn_stock" else None


class MyFeedProvider:
    name = "myfeed"
    routing = CodeRouting("myfeed_ticker", myfeed_code)

    def __init__(self, *, timeout_s: float = 30.0) -> None:
        self.timeout_s = timeout_s

    def _read(self, code: str) -> dict[str, Any]:  # the package's blocking call
        if code not in QUOTES:
            raise LookupError(f"MyFeed has no {code}")
        return QUOTES[code]

    async def fetch(self, instrument: str, market: str | None = None,
                    item: dict[str, Any] | None = None) -> TruthSnapshot:
        query = f"myfeed.quote({instrument!r})"
        started = now()
        try:
            source = await call_source(self._read, instrument, timeout_s=self.timeout_s)
        except Exception as exc:  # the source's failure is this snapshot's status
            return source_failed(self.name, instrument, query, exc)
        fields = normalise(source)
        return TruthSnapshot(self.name, instrument, query, started, "ok", fields, source,
                             source, None, market, {"data": {**fields, "symbol": instrument}})


# --- their registrations (one line each in targets/registry.py and truth/registry.py) -------

HERE = __name__


@pytest.fixture()
def registered() -> Iterator[None]:
    TARGETS.register("echo", f"{HERE}:build_echo", kind="agent",
                     summary="answers with the prompt", args=(NAME, Arg("suffix")),
                     meta=target_facts(span_kind="AGENT", placement="workers"))
    PROVIDERS.register("myfeed", f"{HERE}:MyFeedProvider", kind="live",
                       summary="quotes from MyFeed", args=(Arg("timeout_s"),))
    yield
    TARGETS.remove("echo")
    PROVIDERS.remove("myfeed")


REFERENCE = "必答点：贵州茅台最新股价（即最新收盘价）\n精度要求：仅允许四舍五入误差"
ROWS = [{"prompt_id": "has-code", "prompt": "贵州茅台最新股价", "response_reference": REFERENCE,
         "myfeed_ticker": "MOUTAI", "tags": "Stock"},
        {"prompt_id": "unknown-code", "prompt": "贵州茅台最新股价",
         "response_reference": REFERENCE, "myfeed_ticker": "NOPE", "tags": "Stock"},
        {"prompt_id": "no-code", "prompt": "贵州茅台最新股价", "response_reference": REFERENCE,
         "tags": "Stock"}]


def test_the_provider_routes_its_own_items(registered: None) -> None:
    assert route("myfeed", ROWS[0]).instrument == "MOUTAI"
    assert route("myfeed", ROWS[2]).error == "the item has no myfeed_ticker"
    # a question resolved by name is written as the item fields its routing reads
    fields = provider_fields(Instrument("cn_stock", "600519", "贵州茅台"), "myfeed")
    assert fields == {"myfeed_ticker": "600519.MF", "akshare_ticker": "600519", "tags": "Stock"}
    assert route("myfeed", fields).instrument == "600519.MF"
    assert provider_fields(Instrument("fx", "USDCNH", "美元兑离岸人民币"), "myfeed") is None


def test_the_target_type_is_placed_as_its_registration_says(registered: None) -> None:
    target = build_target(TargetSpec("e", "echo", {"suffix": "!"}), client=print, base=Path())
    record = movable_target(target)  # the Ray executor's decision, with no cluster started
    assert record is not None and record.as_dict() == {
        "registry": "targets", "name": "echo", "args": {"name": "e", "suffix": "!"}}


def test_a_run_takes_both_through_the_pipeline(registered: None, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    db = f"sqlite:///{tmp_path / 'x.db'}"
    run = assay.evaluate(ROWS, {"type": "echo", "name": "echo", "suffix": "：1455.00元"},
                         ["finance-rubric"], db=db, ground_truth="live",
                         truth={"provider": "myfeed"})
    assert run.status == "finished"
    got = {r["item_id"]: r for r in run.results()}
    assert got["has-code"]["answer"] == "贵州茅台最新股价：1455.00元"
    assert (got["has-code"]["status"], got["has-code"]["score"]) == ("scored", 1.0)
    assert got["unknown-code"]["status"] == "error"
    assert "LookupError: MyFeed has no NOPE" in got["unknown-code"]["reason"]
    assert got["no-code"]["status"] == "error"
    assert "the item has no myfeed_ticker" in got["no-code"]["reason"]
    spans = repo.list_spans(open_engine(db), run.id, "has-code")
    target = next(s for s in spans if s["kind"] == "target")
    assert target["attributes"]["openinference.span.kind"] == "AGENT"  # from the registration
    assert target["attributes"]["gen_ai.agent.name"] == "echo"
    truth = next(s for s in spans if s["kind"] == "truth")
    assert truth["name"] == "myfeed" and truth["attributes"]["instrument"] == "MOUTAI"
    assert truth["attributes"]["query"] == "myfeed.quote('MOUTAI')"
