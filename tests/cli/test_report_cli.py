"""`assay compare`, `review`, `export`, `report` and `show --by` through the command (run in
this process: tests/invoke.py)."""

from __future__ import annotations

import csv
import html
import json
import re
import sqlite3
from pathlib import Path

import pytest

from tests.cli.test_calibrate_cli import run as calibrate_run
from tests.cli.test_calibrate_cli import scored, wilson  # noqa: F401  (the shared fixture)
from tests.cli.test_run_cli import run
from tests.web.conftest import XSS, Store, two_runs  # noqa: F401  (the shared fixture)

S01 = "(T1)Assay_Sample_S01_right"


@pytest.fixture()
def store(two_runs: Store, tmp_path: Path) -> Store:  # noqa: F811
    """A private copy, so reviews made here stay here."""
    with sqlite3.connect(two_runs.path / "ui.db") as src, \
            sqlite3.connect(tmp_path / "ui.db") as dst:
        src.backup(dst)
    return Store(f"sqlite:///{tmp_path / 'ui.db'}", two_runs.run_a, two_runs.run_b, tmp_path)


def test_compare_cli(store: Store) -> None:
    r = run("compare", store.run_a, store.run_b, "--db", store.url, cwd=store.path)
    assert r.returncode == 0, r.stderr
    line = next(x for x in r.stdout.splitlines() if "finance-rubric" in x and "│" in x)
    cells = [c.strip() for c in line.split("│") if c.strip()]
    # A: 54 of 97 right; B: every item answered right except S01 (its stray "1")
    assert cells[:5] == ["finance-rubric", store.run_b, "97", "0.557", "0.990"]
    assert cells[5] == "+0.433" and cells[7:9] == ["1", "43"]
    assert "1→0 (worse): (T1)Assay_Sample_S01_right" in r.stdout
    data = json.loads(run("compare", store.run_a, store.run_b, "--db", store.url, "--json",
                          cwd=store.path).stdout)
    assert data[0]["mcnemar_p"] == pytest.approx(2 * (1 + 44) / 2 ** 44)  # b=1, c=43
    assert data[0]["only_base"] == [] and data[0]["unscored_pairs"] == 2
    r = run("compare", store.run_a, "--db", store.url, cwd=store.path)
    assert r.returncode == 2 and "two runs or more" in r.stderr
    # a run of ten items: the other 89 are reported as present in one run only
    from tests.conftest import SAMPLE

    (store.path / "ten.yaml").write_text(
        f"dataset: {{path: {SAMPLE}, limit: 10}}\ntargets: [{{type: recorded}}]\n"
        "evaluators: [finance-rubric]\n", "utf-8")
    r = run("run", "ten.yaml", "--db", store.url, cwd=store.path)
    ten = r.stdout.split("run ")[-1].split()[0]
    data = json.loads(run("compare", store.run_a, ten, "--db", store.url, "--json",
                          cwd=store.path).stdout)
    assert len(data[0]["only_base"]) == 89 and data[0]["only_other"] == []
    assert data[0]["paired"] == 10 and data[0]["diff"] == 0


def test_review_cli_and_corrected_aggregates(store: Store) -> None:
    stale = "(T1)Assay_Sample_S01_stale"
    r = run("review", store.run_a, stale, "-e", "finance-rubric", "--score", "1", "--reason",
            "accepted by the desk", "--reviewer", "wang", "--db", store.url, cwd=store.path)
    assert r.returncode == 0, r.stderr
    assert "0 → 1 by wang (the raw score is kept)" in r.stdout
    r = run("review", store.run_a, "--db", store.url, cwd=store.path)
    assert stale in r.stdout and "accepted by the desk" in r.stdout
    r = run("show", store.run_a, "--by", "answer_kind", "--db", store.url, cwd=store.path)
    assert r.returncode == 0, r.stderr
    line = next(x for x in r.stdout.splitlines() if x.startswith("│ finance-rubric"))
    cells = [c.strip() for c in line.split("│") if c.strip()]
    assert cells[3] == "0.557" and cells[9] == "1" and cells[10] == "0.567"  # +abstained
    assert "finance-rubric by answer_kind" in r.stdout
    stale_row = next(x for x in r.stdout.splitlines() if x.startswith("│ stale"))
    assert [c.strip() for c in stale_row.split("│") if c.strip()][3] == "0.000"
    r = run("review", store.run_a, "nope", "-e", "finance-rubric", "--score", "1", "--reason",
            "x", "--reviewer", "y", "--db", store.url, cwd=store.path)
    assert r.returncode == 2 and "has no result of finance-rubric for item 'nope'" in r.stderr
    r = run("review", store.run_a, stale, "-e", "finance-rubric", "--db", store.url,
            cwd=store.path)
    assert r.returncode == 2 and "needs --score, --reason, --reviewer" in r.stderr


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet", "xlsx"])
def test_export_formats(store: Store, fmt: str) -> None:
    run("review", store.run_b, S01, "-e", "finance-rubric", "--score", "1", "--reason",
        "script text is not a value", "--reviewer", "li", "--db", store.url, cwd=store.path)
    out = store.path / f"out.{fmt}"
    r = run("export", store.run_b, "--format", fmt, "--out", str(out), "--db", store.url,
            cwd=store.path)
    assert r.returncode == 0, r.stderr
    assert "99 row(s) written" in r.stderr
    if fmt == "csv":
        rows = list(csv.DictReader(out.open(encoding="utf-8-sig")))
    elif fmt == "jsonl":
        rows = [json.loads(x) for x in out.read_text("utf-8").splitlines()]
    elif fmt == "parquet":
        import pyarrow.parquet as pq

        rows = pq.read_table(out).to_pylist()
    else:
        from openpyxl import load_workbook

        sheet = load_workbook(out, read_only=True).active
        values = list(sheet.values)  # type: ignore[union-attr]
        rows = [dict(zip(values[0], v, strict=True)) for v in values[1:]]
    assert len(rows) == 99
    s01 = next(x for x in rows if x["item_id"] == S01)
    assert s01["answer"] == XSS and s01["status"] == "scored"
    assert float(s01["score"]) == 0 and float(s01["corrected_score"]) == 1
    assert s01["reviewer"] == "li" and s01["truth_provider"] == "stored"
    assert "1455.0" in s01["ground_truth"] and "最新价" in s01["reason"]
    assert json.loads(s01["evidence"])["rule"]["kind"] == "rounding"
    r = run("export", store.run_b, "--format", "pdf", "--out", "x.pdf", "--db", store.url,
            cwd=store.path)
    assert r.returncode == 2 and "--format must be one of csv, jsonl, parquet, xlsx" in r.stderr


def test_html_report_is_self_contained_and_escaped(store: Store) -> None:
    out = store.path / "report.html"
    r = run("report", store.run_b, "--compare", store.run_a, "--out", str(out), "--db",
            store.url, cwd=store.path)
    assert r.returncode == 0, r.stderr
    html = out.read_text("utf-8")
    # offline: no external scripts, styles, images or fonts
    assert not re.search(r'(src|href)="https?://', html)
    assert "<script" not in html.replace("&lt;script", "")
    assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt;" in html
    for text in ("Summary", "Score by label", "Comparison (baseline", "McNemar p",
                 "<svg", "<details>", "raw reply" if "raw reply" in html else "rule",
                 "贵州茅台最新股价", "99 of 99 result(s)"):
        assert text in html, text
    table = html[html.index("<h2>Items</h2>"):]
    assert table.index("S34_bad_truth") < table.index("S01_right")  # failures first


def test_html_report_shows_the_judge_calibrated_against_the_rules(
        scored: tuple[Path, str]) -> None:  # noqa: F811
    """The run of tests/cli/test_calibrate_cli.py (finance-rubric and a scripted LLM judge on
    twelve items): the report carries the figures computed there by hand."""
    cwd, run_id = scored
    out = cwd / "calibrated.html"
    r = calibrate_run("report", run_id, "--out", str(out), cwd=cwd)
    assert r.returncode == 0, r.stderr
    page = out.read_text("utf-8")
    section = page[page.index('<h2 id="calibration">'):page.index("<h2>Items</h2>")]
    row = re.search(r"<tr><td>finsearch-t1-judge@judge</td>(.*?)</tr>", section, re.S)
    assert row is not None, section
    cells = [html.unescape(re.sub(r"<[^>]+>", "", c)).split() for c in
             re.findall(r"<td[^>]*>(.*?)</td>", row[0], re.S)]

    def rate(k: int, n: int) -> list[str]:
        lo, hi = wilson(k, n)
        return [f"{k / n:.3f}", f"[{lo:.3f},", f"{hi:.3f}]", f"({k}/{n})"]

    assert cells[1] == ["10", "of", "11", "(1", "without", "a", "judge", "score)"]
    assert cells[2] == rate(7, 10)  # accuracy
    assert cells[3] == rate(2, 5)  # false-accept rate
    assert cells[4] == rate(1, 5)  # false-reject rate
    assert cells[5] == ["0.400"]  # Cohen's κ
    assert [c[0] for c in cells[6:10]] == ["4", "1", "2", "3"]  # the 2×2 of judgments
    assert " ".join(cells[10]) == "1 judged, pass rate 1.000, corrected 1.000"
    text = html.unescape(section)
    assert "3 sample(s) where the judge and the rules differ" in text
    assert "false accept: rules 0, judge 1" in text and "false reject: rules 1, judge 0" in text
    assert '数字在允许范围内。 {"score": 1}' in text  # the judge's own words
    assert "最新价 1400 不在 [1454.5, 1455.5] 内" in text  # the rules' reason
    # a run with the rubric alone has no calibration section
    out_a = cwd / "rubric-only.html"
    r = calibrate_run("score", "items.json", "-e", "finance-rubric", cwd=cwd)
    alone = r.stdout.split("run ")[-1].split()[0]
    assert calibrate_run("report", alone, "--out", str(out_a), cwd=cwd).returncode == 0
    assert 'id="calibration"' not in out_a.read_text("utf-8")
