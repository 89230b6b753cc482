"""Target types come from one registry: the spec checker, `build_target`, `assay targets
list` and the manifest's build records all read it; a new type is one file and one line."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assay.core.errors import ConfigError
from assay.core.registry import built_from
from assay.core.types import Item
from assay.evaluators.build import EvaluatorFactory
from assay.models.config import ModelConfig, save_models
from assay.runner.spec import TARGET_KEYS, load_spec
from assay.store.db import open_engine
from assay.targets.build import build_target, rebuild_target
from assay.targets.registry import TARGETS, fact, target_facts
from assay.targets.spec import TargetSpec
from tests.cli.test_score_cli import assay
from tests.conftest import ROOT

BUILTIN = ["model", "http", "python", "command", "recorded", "baseline-quote-agent"]
SNAPSHOTS = ROOT / "examples" / "data" / "market_snapshots"
ITEM = Item("q1", {"prompt": "贵州茅台最新股价", "akshare_ticker": "600519", "tags": "Stock",
                   "response": "最新价1455元"}, "v", 1)


def no_client(name: str) -> Any:
    raise AssertionError(f"no model client wanted, asked for {name}")


def agent_fn(fields: dict[str, Any]) -> str:
    return f"answer to {fields['prompt']}"


def test_every_builtin_type_is_registered_with_its_options() -> None:
    assert TARGETS.names() == BUILTIN
    assert list(TARGET_KEYS) == BUILTIN
    assert TARGET_KEYS["http"] == {"url", "method", "headers", "body", "answer_path", "extras",
                                   "tool_calls", "timeout_s", "history", "end"}
    assert TARGET_KEYS["model"] == {"model", "prompt", "system", "params", "placeholders"}
    assert TARGET_KEYS["baseline-quote-agent"] == {
        "provider", "snapshots", "date", "field", "market", "cache_s", "min_interval_s",
        "token_env"}
    assert "robot" not in TARGET_KEYS


@pytest.mark.parametrize(("kind", "options", "cls"), [
    ("http", {"url": "http://127.0.0.1:9/ask", "timeout_s": 5, "headers": {"X": "1"}},
     "HttpTarget"),
    pytest.param("command", {"command": "cat", "timeout_s": 2}, "CommandTarget",
                 marks=pytest.mark.process),
    ("recorded", {"file": "answers.jsonl"}, "RecordedTarget"),
    ("baseline-quote-agent", {"snapshots": str(SNAPSHOTS)}, "BaselineQuoteAgent"),
    ("python", {"function": agent_fn}, "PythonTarget"),
])
def test_built_targets_record_their_options_and_rebuild_the_same(
        tmp_path: Path, kind: str, options: dict[str, Any], cls: str) -> None:
    (tmp_path / "answers.jsonl").write_text('{"id": "q1", "response": "1455"}\n', "utf-8")
    target = build_target(TargetSpec("t1", kind, options), client=no_client, base=tmp_path)
    assert type(target).__name__ == cls
    record = built_from(target)
    assert record is not None
    stored = json.loads(json.dumps(record.as_dict()))
    expected = {k: (f"{__name__}:agent_fn" if callable(v) else v) for k, v in options.items()}
    assert stored == {"registry": "targets", "name": kind, "args": {"name": "t1", **expected}}
    again = rebuild_target(stored, client=no_client, base=tmp_path)
    assert type(again) is type(target) and again.public() == target.public()
    answers = asyncio.run(_answers([target, again]))
    assert answers[0] == answers[1]


async def _answers(targets: list[Any]) -> list[Any]:
    out = []
    for t in targets:
        a = await t.answer(ITEM)
        out.append((a.text, a.error is None))
        await t.close()
    return out


def test_a_model_target_gets_the_shared_client_and_records_only_its_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASSAY_TEST_KEY", "sk-never-recorded")
    models = tmp_path / "models.yaml"
    save_models({"m1": ModelConfig("m1", "http://127.0.0.1:9/v1", "m-1",
                                   api_key_env="ASSAY_TEST_KEY")}, models)

    async def go() -> None:
        factory = EvaluatorFactory(open_engine(f"sqlite:///{tmp_path / 'a.db'}"),
                                   models_file=models)
        try:
            t = build_target(TargetSpec("t", "model", {"model": "m1", "system": "be brief"}),
                             client=factory.client, base=tmp_path)
            assert t.client is factory.client("m1")  # type: ignore[attr-defined]
            record = built_from(t)
            assert record is not None and record.as_dict() == {
                "registry": "targets", "name": "model",
                "args": {"name": "t", "model": "m1", "system": "be brief"}}
            assert "sk-never" not in json.dumps(record.as_dict())
        finally:
            await factory.close()
    asyncio.run(go())


def test_unknown_types_and_options_name_the_close_ones(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as err:
        build_target(TargetSpec("a", "htp", {}), client=no_client, base=tmp_path)
    assert str(err.value) == "unknown target type 'htp'; did you mean http?"
    with pytest.raises(ConfigError) as err:
        build_target(TargetSpec("a", "http", {"url": "http://x/a", "answer_pth": "$.a"}),
                     client=no_client, base=tmp_path)
    assert str(err.value) == ("target type 'http': unknown option 'answer_pth'; did you mean "
                              "answer_path? (known: name, url, method, headers, body, "
                              "answer_path, extras, tool_calls, history, end, timeout_s)")
    with pytest.raises(ConfigError, match="target 'a': params must be a mapping"):
        build_target(TargetSpec("a", "model", {"model": "m", "params": [1]}),
                     client=no_client, base=tmp_path)
    spec = tmp_path / "spec.yaml"
    spec.write_text("dataset: x.json\ntargets:\n  - type: comand\n    command: cat\n"
                    "evaluators: [finance-rubric]\n", "utf-8")
    with pytest.raises(ConfigError) as err:
        load_spec(spec)
    assert str(err.value) == (
        f"{spec}:3: targets[0].type: unknown target type 'comand' (known: model, http, python,"
        " command, recorded, baseline-quote-agent); did you mean command?")


ECHO = '''"""`echo`: answers with the item's prompt and a suffix."""
from assay.core.types import Answer


class EchoTarget:
    kind = "echo"

    def __init__(self, name, suffix):
        self.name, self.suffix = name, suffix

    def public(self):
        return {"type": self.kind, "suffix": self.suffix}

    async def answer(self, item):
        return Answer(str(item.get("prompt")) + self.suffix)

    async def close(self):
        pass


def build(ctx, *, name, suffix="!"):
    return EchoTarget(name, suffix)
'''


@pytest.fixture()
def echo_type(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    (tmp_path / "echo_target_zz.py").write_text(ECHO, "utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    TARGETS.register("echo", "echo_target_zz:build", kind="agent", summary="echoes")
    yield
    TARGETS.remove("echo")
    sys.modules.pop("echo_target_zz", None)


def test_a_new_type_is_one_file_and_one_registration(tmp_path: Path, echo_type: None) -> None:
    assert "echo" in TARGET_KEYS and TARGET_KEYS["echo"] == {"suffix"}
    spec = tmp_path / "spec.yaml"
    spec.write_text("dataset: x.json\ntargets:\n  - {name: e, type: echo, suffix: '?'}\n"
                    "evaluators: [finance-rubric]\n", "utf-8")
    (t,) = load_spec(spec).targets
    target = build_target(t, client=no_client, base=tmp_path)
    assert asyncio.run(target.answer(ITEM)).text == "贵州茅台最新股价?"
    assert built_from(target).as_dict()["args"] == {"name": "e", "suffix": "?"}  # type: ignore[union-attr]
    assert [e["name"] for e in TARGETS.describe()][-1] == "echo"
    spec.write_text("dataset: x.json\ntargets:\n  - {name: e, type: echo, sufix: '?'}\n"
                    "evaluators: [finance-rubric]\n", "utf-8")
    with pytest.raises(ConfigError, match=r"spec.yaml:3: targets\[0\].sufix: not a echo target "
                       r"option \(known: suffix\)"):
        load_spec(spec)


def test_each_type_declares_its_span_kind_and_placement() -> None:
    """What the runner once listed by type name (the span kind in traces/semconv.py, the types
    the Ray executor moves in runner/ray/executor.py) is each registration's own."""
    assert {n: fact(n, "span_kind") for n in BUILTIN} == {
        "model": "LLM", "http": "AGENT", "python": "CHAIN", "command": "CHAIN",
        "recorded": "CHAIN", "baseline-quote-agent": "AGENT"}
    assert [n for n in BUILTIN if fact(n, "placement") == "workers"] == [
        "python", "command", "baseline-quote-agent"]
    # a type that declares nothing, or no registered type (an online trace's answers), is a
    # program that stays in the coordinator
    assert fact("echo", "span_kind") == "CHAIN" and fact("echo", "placement") == "coordinator"
    listed = {e["name"]: e for e in TARGETS.describe()}
    assert listed["http"]["span_kind"] == "AGENT" and listed["python"]["placement"] == "workers"
    with pytest.raises(ConfigError, match="span_kind 'AGNET' is not one of LLM, AGENT"):
        target_facts(span_kind="AGNET")
    with pytest.raises(ConfigError, match="placement 'ray' is not one of coordinator"):
        target_facts(placement="ray")


@pytest.mark.process  # python -c: a fresh interpreter
def test_targets_import_nothing_of_the_runner() -> None:
    code = ("import sys\nimport assay.targets.build, assay.targets.baseline, "
            "assay.targets.recorded, assay.targets.model, assay.targets.http, "
            "assay.targets.python, assay.targets.command, assay.targets.spec\n"
            "print(sorted(m for m in sys.modules if m.startswith('assay.runner')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout
    assert out.strip() == "[]"


def test_cli_lists_the_target_types(tmp_path: Path) -> None:
    r = assay("targets", "list", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    for name in BUILTIN:
        assert name in r.stdout
    assert "url*" in r.stdout and "function*" in r.stdout
