"""Budgets end to end: `budget: {usd: …}` / `--max-cost` against the local OpenAI-compatible
server, through the `assay` command (run in this process: tests/invoke.py). Prices and token
counts are chosen so every request's cost is known: a target request costs 0.02 USD, a judge
request 0.014 USD."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.cli.test_run_cli import run, run_id_of
from tests.openai_server import OpenAIServer

JUDGE = """---
name: short-judge
placeholders: double
score: {min: 0, max: 1, integer: true, nullable: false}
variables: [output]
---
[user]
Judge: {{output}}
"""


def reply(messages: list[dict[str, str]]) -> str:
    """The target's answer: the item's id and 34 letters (36 characters → 10 completion tokens
    on the test server); the judge's reply: a score of 1 (4 completion tokens)."""
    user = messages[-1]["content"]
    return user[5:7] + "A" * 34 if user.startswith("ITEM ") else '{"score": 1}'


def sent(server: OpenAIServer) -> list[str]:
    """Each request as T<id> (target) or J<id> (judge), in the order they came."""
    out = []
    for r in server.requests:
        text = r["messages"][-1]["content"]
        out.append(("T" + text[5:7]) if text.startswith("ITEM ") else "J" + text[7:9])
    return out


@pytest.fixture()
def project(tmp_path: Path, openai_server: OpenAIServer) -> Path:
    openai_server.default = reply
    url = openai_server.base_url
    # 1,000 USD per million tokens: a token costs 0.001. A target request: 40 prompt
    # characters (10 tokens on the test server) + 10 completion tokens = 0.02; a judge request:
    # 43 characters (10 tokens) + 4 completion tokens = 0.014.
    (tmp_path / "assay-models.yaml").write_text(f"""models:
  t: {{base_url: "{url}", model: fake-t, price_in_per_mtok: 1000, price_out_per_mtok: 1000,
      max_retries: 0}}
  j: {{base_url: "{url}", model: fake-j, price_in_per_mtok: 1000, price_out_per_mtok: 1000,
      max_retries: 0, params: {{max_tokens: 4}}}}
  free: {{base_url: "{url}", model: fake-f}}
""", "utf-8")
    with (tmp_path / "items.jsonl").open("w", encoding="utf-8") as f:
        for i in range(1, 7):
            f.write(json.dumps({"prompt_id": f"{i:02d}", "prompt": "Q" * 32,
                                "label": "odd" if i % 2 else "even"}) + "\n")
    (tmp_path / "judge.md").write_text(JUDGE, "utf-8")
    (tmp_path / "spec.yaml").write_text("""\
name: budgeted
dataset: items.jsonl
targets:
  - {name: t, type: model, model: t, prompt: "ITEM {prompt_id}|{prompt}",
     params: {max_tokens: 10}}
evaluators: [judge.md@j]
concurrency: 1
budget: {usd: 0.13}
""", "utf-8")
    return tmp_path


def run_row(project: Path, run_id: str) -> tuple[str, dict]:  # type: ignore[type-arg]
    db = sqlite3.connect(project / ".assay" / "assay.db")
    status, summary = db.execute("SELECT status, summary FROM runs WHERE id = ?",
                                 (run_id,)).fetchone()
    return status, json.loads(summary)


def test_budget_stops_before_the_request_that_would_pass_it_and_resume_completes(
        project: Path, openai_server: OpenAIServer) -> None:
    # The estimate before a model's first reply is high (1 token per character, max_tokens out):
    # T01 ~0.05, J01 ~0.047; after that the measured ratio makes it exact: T 0.02, J 0.014.
    # Spent after T01 J01 T02 J02 T03 J03 T04: 0.122; J04 would make 0.136 > 0.13.
    r = run("run", "spec.yaml", cwd=project)
    assert r.returncode == 130, r.stderr
    assert sent(openai_server) == ["T01", "J01", "T02", "J02", "T03", "J03", "T04"]
    run_id = run_id_of(r.stdout.split("continue with")[0] + r.stderr.split("--resume ")[1])
    assert "stopped by the budget: budget 0.13 USD: spent 0.122" in r.stderr
    assert "next request to j ~0.014" in r.stderr
    assert f"assay run --resume {run_id} --max-cost LARGER" in r.stderr
    status, summary = run_row(project, run_id)
    assert status == "interrupted" and summary["stop_reason"] == "budget"
    assert summary["budget"]["usd"] == 0.13
    assert summary["budget"]["spent"] == pytest.approx(0.122)
    assert summary["costs"]["targets"] == {"t": pytest.approx(0.08)}
    assert summary["costs"]["judges"] == {"short-judge@j": pytest.approx(0.042)}
    assert "0.1220 of a 0.13 budget" in r.stdout
    r = run("show", run_id, cwd=project)
    assert (f"interrupted by: budget; continue with: assay run --resume {run_id} --max-cost "
            "LARGER") in r.stdout

    # Resumed under the same budget: refused at once (0.122 spent counts), nothing sent.
    r = run("run", "--resume", run_id, cwd=project)
    assert r.returncode == 130 and len(openai_server.requests) == 7, r.stderr
    # A larger budget, 0.2: the 0.122 already spent counts toward it. J04 (a new process:
    # estimated ~0.047 again) → 0.136, T05 (~0.05) → 0.156, J05 → 0.170, T06 → 0.190;
    # J06 would make 0.204 > 0.2.
    r = run("run", "--resume", run_id, "--max-cost", "0.2", cwd=project)
    assert r.returncode == 130, r.stderr
    assert sent(openai_server)[7:] == ["J04", "T05", "J05", "T06"]
    status, summary = run_row(project, run_id)
    assert status == "interrupted" and summary["budget"] == {
        "usd": 0.2, "spent": pytest.approx(0.19), "refused": summary["budget"]["refused"]}
    # Enough to finish: only J06 is asked; nothing done before is repeated.
    r = run("run", "--resume", run_id, "--max-cost", "1", cwd=project)
    assert r.returncode == 0, r.stderr
    assert sent(openai_server)[11:] == ["J06"]
    status, summary = run_row(project, run_id)
    assert status == "finished" and "stop_reason" not in summary
    costs = summary["costs"]
    assert costs["targets"]["t"] == pytest.approx(0.12)
    assert costs["judges"]["short-judge@j"] == pytest.approx(0.084)
    assert costs["total"] == pytest.approx(0.204)
    assert costs["correct"] == {"short-judge@j": 6}
    assert costs["per_correct"]["short-judge@j"] == pytest.approx(0.034)
    assert "0.2040 of a 1 budget" in r.stdout
    assert summary["evaluators"]["short-judge@j"]["scored"] == 6
    shows_costs(project, run_id)


def shows_costs(project: Path, run_id: str) -> None:
    """`assay show`, the HTML report and the UI's run page give the same cost figures."""
    r = run("show", run_id, cwd=project)
    assert r.returncode == 0, r.stderr
    rows = [" ".join(line.replace("│", " ").split()) for line in r.stdout.splitlines()]
    for row in ("target t 0.1200", "judge short-judge@j 0.0840",
                "per correct short-judge@j 6 0.0340", "total 0.2040 of a 1 budget"):
        assert row in rows, row
    r = run("report", run_id, "-o", "r.html", cwd=project)
    assert r.returncode == 0, r.stderr
    html = (project / "r.html").read_text("utf-8")
    for cell in ("<td>target</td><td>t</td><td class=\"n\">0.1200</td>",
                 "<td>judge</td><td>short-judge@j</td><td class=\"n\">0.0840</td>",
                 "<td class=\"n\">6</td><td class=\"n\">0.0340</td>",
                 "budget 1.0 USD</td><td class=\"n\">0.2040</td>"):
        assert cell in html, cell
    from fastapi.testclient import TestClient

    from assay.store.db import open_engine
    from assay.web.app import create_app

    client = TestClient(create_app(open_engine(f"sqlite:///{project / '.assay' / 'assay.db'}")),
                        base_url="http://127.0.0.1:8600")
    page = client.get(f"/runs/{run_id}")
    assert page.status_code == 200
    assert "<td>target</td><td>t</td><td class=\"n\">0.1200</td>" in page.text
    assert "<td class=\"n\">6</td><td class=\"n\">0.0340</td>" in page.text
    api = client.get(f"/api/runs/{run_id}").json()
    assert api["costs"]["per_correct"] == {"short-judge@j": pytest.approx(0.034)}


def test_max_cost_flag_and_unpriced_model(project: Path, openai_server: OpenAIServer) -> None:
    # --max-cost replaces the spec's budget for a fresh run
    r = run("run", "spec.yaml", "--max-cost", "0.06", cwd=project)
    assert r.returncode == 130, r.stderr
    assert sent(openai_server) == ["T01"]  # J01 ~0.047 on top of 0.02 would pass 0.06
    # a budget needs every model priced: one line, before anything is sent
    spec = (project / "spec.yaml").read_text("utf-8").replace("judge.md@j", "judge.md@free")
    (project / "free.yaml").write_text(spec, "utf-8")
    r = run("run", "free.yaml", cwd=project)
    assert r.returncode == 2 and len(openai_server.requests) == 1
    assert r.stderr.strip().splitlines() == [
        "error: a budget of 0.13 USD needs prices: model 'free' has none (price_in_per_mtok / "
        "price_out_per_mtok in the model registry; assay models add … --price-in --price-out "
        "--replace)"]
    # a budget of nothing, or less, is a mistake
    r = run("run", "free.yaml", "--max-cost", "0", cwd=project)
    assert r.returncode == 2 and "--max-cost (US dollars) must be a finite number > 0, not 0" \
        in r.stderr
    bad = spec.replace("budget: {usd: 0.13}", "budget: {usd: -1}")
    (project / "bad.yaml").write_text(bad, "utf-8")
    r = run("run", "bad.yaml", cwd=project)
    assert r.returncode == 2
    assert r.stderr.strip() == "error: bad.yaml:8: budget.usd: must be a finite number > 0, " \
        "not -1 (US dollars)"


def test_score_with_max_cost_stops_the_judges_and_resumes(
        project: Path, openai_server: OpenAIServer) -> None:
    with (project / "answers.jsonl").open("w", encoding="utf-8") as f:
        for i in range(1, 7):
            f.write(json.dumps({"prompt_id": f"{i:02d}", "prompt": "Q",
                                "response": f"{i:02d}" + "A" * 34}) + "\n")
    # `assay score` runs its judges many at once: J01 is admitted (~0.047 in flight) and every
    # other request, each estimated ~0.047 too before a first reply, would pass 0.05 with it
    r = run("score", "answers.jsonl", "-e", "judge.md@j", "--max-cost", "0.05", cwd=project)
    assert r.returncode == 130, r.stderr
    assert sent(openai_server) == ["J01"]
    assert "spent 0, in flight ~0.047, next request to j ~0.047" in r.stderr
    assert "assay score --resume" in r.stderr and "--max-cost LARGER" in r.stderr
    run_id = r.stderr.split("assay score --resume ")[1].split()[0]
    r = run("score", "--resume", run_id, "--max-cost", "1", cwd=project)
    assert r.returncode == 0, r.stderr
    assert sorted(sent(openai_server)) == ["J01", "J02", "J03", "J04", "J05", "J06"]
    status, summary = run_row(project, run_id)
    assert status == "finished"
    assert summary["costs"]["judges"]["short-judge@j"] == pytest.approx(0.084)


def test_python_api_takes_max_cost(project: Path, openai_server: OpenAIServer,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import assay

    monkeypatch.chdir(project)  # the judge template's path, as in a spec
    rows = [{"prompt_id": f"{i:02d}", "prompt": "ITEM " + f"{i:02d}|" + "Q" * 32}
            for i in range(1, 7)]

    def evaluate(usd: float) -> assay.Run:
        return assay.evaluate(rows, "model:t", ["judge.md@j"], db=f"sqlite:///{project}/a.db",
                              models_file=project / "assay-models.yaml", concurrency=1,
                              max_cost=usd)

    # no max_tokens on this target: before its first reply, 1,024 tokens out are assumed
    # (1.064 USD with its 40-character prompt), more than 0.5 — nothing is sent
    assert evaluate(0.5).status == "interrupted" and openai_server.requests == []
    run = evaluate(1.1)
    assert run.status == "finished" and len(openai_server.requests) == 12
