"""Named dataset versions end to end: `assay datasets add/list/show`, specs naming NAME@VERSION
(or NAME: the latest), runs pinning the version (manifest and run row, also across a resume),
the items read from the store after the file changed, and `assay compare` warning about
different versions and item sets."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from assay.core.errors import ConfigError
from assay.runner.spec import parse_spec
from tests.cli.test_budget_cli import project, sent  # noqa: F401  (the fixture, shared)
from tests.cli.test_run_cli import run, run_id_of
from tests.openai_server import OpenAIServer


def write_items(path: Path, ids: range, prompt: str = "Q" * 32) -> None:
    with path.open("w", encoding="utf-8") as f:
        for i in ids:
            f.write(json.dumps({"prompt_id": f"{i:02d}", "prompt": prompt, "label": "x"}) + "\n")


def spec(root: Path, name: str, dataset: str, budget: str = "") -> str:
    text = (root / "spec.yaml").read_text("utf-8").replace("dataset: items.jsonl",
                                                             f"dataset: {dataset}")
    text = text.replace("budget: {usd: 0.13}\n", budget)
    (root / name).write_text(text, "utf-8")
    return name


def row(root: Path, run_id: str) -> tuple[str, str, dict]:  # type: ignore[type-arg]
    db = sqlite3.connect(root / ".assay" / "assay.db")
    ds, ref, manifest = db.execute("SELECT dataset_id, dataset_ref, manifest FROM runs WHERE "
                                   "id = ?", (run_id,)).fetchone()
    return ds, ref, json.loads(manifest)


def test_versions_runs_pin_and_compare_warns(project: Path,  # noqa: F811
                                            openai_server: OpenAIServer) -> None:
    r = run("datasets", "add", "qs", "items.jsonl", cwd=project)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("qs@1: 6 item(s) from items.jsonl (content ")
    r = run("datasets", "add", "qs", "items.jsonl", cwd=project)
    assert r.returncode == 0 and r.stdout.startswith("qs@1 unchanged: items.jsonl has the "
                                                     "content of the latest version")
    write_items(project / "items.jsonl", range(1, 8))  # one item more: changed content
    r = run("datasets", "add", "qs", "items.jsonl", cwd=project)
    assert r.stdout.startswith("qs@2: 7 item(s)"), r.stderr
    r = run("datasets", "list", cwd=project)
    cells = [" ".join(x.replace("│", " ").split()) for x in r.stdout.splitlines()]
    assert any(c.startswith("qs 2 2 7 ") and c.endswith(" items.jsonl") for c in cells), cells

    # the file is gone: a named version runs from the items kept in the store
    (project / "items.jsonl").unlink()
    r = run("run", spec(project, "v1.yaml", "qs@1"), cwd=project)
    assert r.returncode == 0, r.stderr
    run1 = run_id_of(r.stdout)
    assert sorted(x for x in sent(openai_server) if x[0] == "T") == [f"T0{i}" for i in
                                                                      range(1, 7)]
    ds1, ref1, manifest1 = row(project, run1)
    assert ref1 == "qs@1" and manifest1["dataset"]["ref"] == "qs@1"
    assert manifest1["dataset"]["version"] == ds1 and manifest1["dataset"]["items"] == 6
    # NAME alone: the latest version, pinned as a number
    r = run("run", spec(project, "latest.yaml", "qs"), cwd=project)
    assert r.returncode == 0, r.stderr
    run2 = run_id_of(r.stdout)
    ds2, ref2, _ = row(project, run2)
    assert ref2 == "qs@2" and ds2 != ds1

    r = run("compare", run1, run2, cwd=project)
    assert r.returncode == 0, r.stderr
    assert r.stderr.strip().splitlines() == [
        f"warning: different data: {run1} used dataset qs@1 (content {ds1[:12]}), {run2} used "
        f"dataset qs@2 (content {ds2[:12]}); item sets differ (0 item(s) only in {run1}, 1 only in "
        f"{run2}, 6 in both) — paired figures use only the items both runs have"]
    r = run("compare", run1, run2, "--json", cwd=project)  # the JSON stays JSON
    assert json.loads(r.stdout)[0]["only_other"] == ["07"] and "warning:" in r.stderr
    r = run("run", spec(project, "v1b.yaml", "{name: qs, version: 1}"), cwd=project)
    run3 = run_id_of(r.stdout)
    r = run("compare", run1, run3, cwd=project)
    assert r.returncode == 0 and "warning" not in r.stderr, r.stderr

    r = run("datasets", "show", "qs", cwd=project)
    cells = [" ".join(x.replace("│", " ").split()) for x in r.stdout.splitlines()]
    assert any(c.startswith(f"1 6 {ds1[:12]} ") and c.endswith("items.jsonl 2") for c in cells)
    assert any(c.startswith(f"2 7 {ds2[:12]} ") and c.endswith("items.jsonl 1") for c in cells)
    r = run("datasets", "show", "qs@1", "--items", "2", cwd=project)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[:4] == [
        f"qs@1: 6 item(s), jsonl, content {ds1}, added "
        + r.stdout.split("added ")[1].split(" UTC")[0] + " UTC from items.jsonl",
        "  01: " + "Q" * 32, "  02: " + "Q" * 32, "  … and 4 more"]
    assert f"runs: {run1} (finished), {run3} (finished)" in r.stdout
    r = run("runs", cwd=project)
    cells = [" ".join(x.replace("│", " ").split()) for x in r.stdout.splitlines()]
    assert any(c.startswith(run1) and c.endswith(" qs@1") for c in cells), cells
    r = run("show", run1, cwd=project)
    assert f"version {ds1[:12]}, 6 item(s) (named version qs@1, added from items.jsonl)" \
        in r.stdout
    from fastapi.testclient import TestClient

    from assay.store.db import open_engine
    from assay.web.app import create_app

    client = TestClient(create_app(open_engine(f"sqlite:///{project / '.assay' / 'assay.db'}")),
                        base_url="http://127.0.0.1:8600")
    warning = r"warning: different data: " + run1
    page = client.get(f"/compare?runs={run1}&runs={run2}").text
    assert page.count('<p class="warn" id="data-warning">' + warning) == 1
    assert run("report", run1, "--compare", run2, "-o", "c.html", cwd=project).returncode == 0
    assert '<p class="warn">' + warning in (project / "c.html").read_text("utf-8")
    page = client.get("/datasets").text
    assert f"<td><b>qs@1</b></td><td><code>{ds1[:12]}</code></td><td class=\"n\">6</td>" in page
    assert "<td><b>qs@2</b></td>" in page
    r = run("datasets", "show", "qs@9", cwd=project)
    assert r.returncode == 2 and r.stderr.strip() == (
        "error: dataset 'qs' has no version 9 (versions: 1, 2; see assay datasets show qs)")
    r = run("run", spec(project, "typo.yaml", "qz@1"), cwd=project)
    assert r.returncode == 2 and r.stderr.strip() == ("error: no named dataset 'qz'; did you "
                                                      "mean qs?")


def test_a_resumed_run_keeps_its_version_when_a_newer_one_is_added(
        project: Path, openai_server: OpenAIServer) -> None:  # noqa: F811
    assert run("datasets", "add", "qs", "items.jsonl", cwd=project).returncode == 0
    # stopped by its budget before J03 (0.088 spent + 0.014; see test_budget_cli)
    r = run("run", spec(project, "s.yaml", "qs", "budget: {usd: 0.1}\n"), cwd=project)
    assert r.returncode == 130, r.stderr
    run_id = r.stderr.split("--resume ")[1].split()[0]
    assert sent(openai_server) == ["T01", "J01", "T02", "J02", "T03"]
    write_items(project / "items.jsonl", range(1, 10), prompt="R" * 32)
    r = run("datasets", "add", "qs", "items.jsonl", cwd=project)
    assert r.stdout.startswith("qs@2: 9 item(s)")
    r = run("run", "--resume", run_id, "--max-cost", "5", cwd=project)
    assert r.returncode == 0, r.stderr
    # qs@1's items, as the run started: six, with their first prompts
    assert [x for x in sent(openai_server) if x[0] == "T"] == [f"T0{i}" for i in range(1, 7)]
    assert all("R" not in q["messages"][-1]["content"] for q in openai_server.requests)
    assert row(project, run_id)[1] == "qs@1"


@pytest.mark.parametrize(("dataset", "message"), [
    ("{name: qs, fields: {a: b}}", "dataset.fields: a named dataset's fields are mapped when "
                                   "it is added (assay datasets add NAME FILE --field …)"),
    ("{name: qs, path: x.json}", "dataset: must be a path, NAME@VERSION, or a mapping with "
                                 "'path' or 'name'"),
    ("{name: 'q s'}", "dataset: 'q s' is not a dataset name"),
])
def test_spec_mistakes_about_named_datasets(tmp_path: Path, dataset: str, message: str) -> None:
    import yaml

    raw = yaml.safe_load(f"dataset: {dataset}\ntargets: [{{type: recorded}}]\n"
                         "evaluators: [finance-rubric]\n")
    with pytest.raises(ConfigError) as exc:
        parse_spec(raw, tmp_path / "s.yaml")
    assert message in str(exc.value)


def test_spec_tells_names_from_files(tmp_path: Path) -> None:
    def ds(value: str) -> tuple[str | None, int | None]:
        s = parse_spec({"dataset": value, "targets": [{"type": "recorded"}],
                        "evaluators": ["finance-rubric"]}, tmp_path / "s.yaml")
        return s.dataset.name, s.dataset.version

    (tmp_path / "prices").write_text("[]", "utf-8")
    assert ds("qs@3") == ("qs", 3)
    assert ds("qs@latest") == ("qs", None)
    assert ds("qs") == ("qs", None)  # no such file, no data-file suffix: a name
    assert ds("prices") == (None, None)  # a file of that name is there: the file
    assert ds("missing.jsonl") == (None, None)  # a data file (its absence said at run time)
    assert ds("data/x@2") == (None, None)


@pytest.mark.process  # initdb and the PostgreSQL server (tests/postgres.py)
def test_named_versions_budget_and_costs_on_postgresql(project: Path,  # noqa: F811
                                                      openai_server: OpenAIServer) -> None:
    from tests.postgres import postgres_server

    with postgres_server() as pg:
        assert run("datasets", "add", "qs", "items.jsonl", "--db", pg,
                   cwd=project).returncode == 0
        r = run("run", spec(project, "s.yaml", "qs", "budget: {usd: 0.1}\n"), "--db", pg,
                cwd=project)
        assert r.returncode == 130, r.stderr
        run_id = r.stderr.split("--resume ")[1].split()[0]
        assert sent(openai_server) == ["T01", "J01", "T02", "J02", "T03"]
        r = run("run", "--resume", run_id, "--max-cost", "1", "--db", pg, cwd=project)
        assert r.returncode == 0, r.stderr
        assert "0.2040 of a 1 budget" in r.stdout
        r = run("compare", run_id, run_id, "--db", pg, cwd=project)
        assert r.returncode == 0 and "warning" not in r.stderr
        r = run("datasets", "show", "qs@1", "--db", pg, cwd=project)
        assert f"runs: {run_id} (finished)" in r.stdout


def test_score_a_named_version(tmp_path: Path) -> None:
    from tests.conftest import SAMPLE

    assert run("datasets", "add", "t1", str(SAMPLE), cwd=tmp_path).returncode == 0
    r = run("score", "t1@1", "--out", "o.jsonl", "--fail-under", "0.9", cwd=tmp_path)
    assert r.returncode == 1, r.stderr  # the same figures as the file's
    assert "below --fail-under 0.9: finance-rubric mean 0.557" in r.stdout
    run_id = r.stdout.split("run ")[-1].split()[0]
    db = sqlite3.connect(tmp_path / ".assay" / "assay.db")
    assert db.execute("SELECT dataset_ref FROM runs WHERE id = ?", (run_id,)).fetchone() == (
        "t1@1",)
    r = run("score", "t1@1", "--field", "response=answer", cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.strip() == (
        "error: t1@1 is a named dataset version: its fields were mapped when it was added "
        "(assay datasets add … --field, --id-field)")
