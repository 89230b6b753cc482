"""`assay export`: one row per item and evaluator, with the provenance to check it — the
answer, the ground truth used (provider, instrument, query, fetch time), the judge's raw reply,
tokens and cost, its whole model call (`call`, as JSON), the reason, the status, and any
reviewer's correction beside the raw score."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from assay.core.errors import ConfigError
from assay.core.outputs import replaced
from assay.store import repo
from assay.store import results as stored
from assay.store.db import Engine
from assay.store.rows import answer_call, result_call

FORMATS = ("csv", "jsonl", "parquet", "xlsx")
COLUMNS = ("run_id", "item_id", "target", "epoch", "evaluator", "evaluator_version", "score",
           "status", "reason", "corrected_score", "review_reason", "reviewer", "question",
           "answer", "answer_error", "latency_s", "tokens", "ground_truth", "truth_provider",
           "truth_instrument", "truth_query", "truth_fetched_at", "truth_status",
           "judge_reply", "judge_parse", "judge_tokens", "judge_cost", "call", "evidence")


def _text(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else orjson.dumps(value, default=str).decode()


def rows(engine: Engine, run_id: str) -> Iterator[dict[str, Any]]:
    run = repo.require_run(engine, run_id)
    answers = {(a["item_id"], a["target"], a["epoch"]): a for a in repo.list_answers(engine,
                                                                                      run_id)}
    truths = {(t["item_id"], t["target"], t["epoch"]): t for t in repo.list_truth(engine,
                                                                                   run_id)}
    reviews = repo.latest_reviews(engine, run_id)
    items = repo.get_items(engine, run["dataset_id"])
    for r in stored.iter_results(engine, run_id):
        key = (r["item_id"], r["target"], r["epoch"])
        a = answers.get(key) or {}
        t = truths.get(key)
        review = reviews.get((*key, r["evaluator"]))
        item = items.get(r["item_id"])
        fields = item.fields if item else {}
        ev = r["evidence"] or {}
        judged = result_call(r)
        answered = answer_call(a) if a else None
        yield {
            "run_id": run_id, "item_id": r["item_id"], "target": r["target"],
            "epoch": r["epoch"], "evaluator": r["evaluator"],
            "evaluator_version": r["evaluator_version"], "score": r["score"],
            "status": r["status"], "reason": r["reason"],
            "corrected_score": review["score"] if review else None,
            "review_reason": review["reason"] if review else None,
            "reviewer": review["reviewer"] if review else None,
            "question": _text(fields.get("prompt", fields.get("question"))),
            "answer": a.get("text"), "answer_error": a.get("error"),
            "latency_s": a.get("latency_s"),
            "tokens": answered.usage.total if answered is not None else None,
            "ground_truth": _text(t["payload"]) if t else _text(fields.get("ground_truth")),
            "truth_provider": t["provider"] if t else ("stored" if fields.get(
                "ground_truth") is not None else None),
            "truth_instrument": t["instrument"] if t else None,
            "truth_query": t["query"] if t else None,
            "truth_fetched_at": t["fetched_at"].isoformat() if t else None,
            "truth_status": t["status"] if t else None,
            "judge_reply": judged.reply if judged is not None else None,
            "judge_parse": (ev.get("parsed") or {}).get("how") if isinstance(ev, dict)
            else None,
            "judge_tokens": judged.usage.total if judged is not None else None,
            "judge_cost": judged.cost if judged is not None else None,
            "call": _text(judged.to_json()) if judged is not None else None,
            # last: never empty (a spreadsheet reader may drop a row's empty last cells)
            "evidence": _text(ev)}


def export_run(engine: Engine, run_id: str, fmt: str, out: Path) -> int:
    if fmt not in FORMATS:
        raise ConfigError(f"--format must be one of {', '.join(FORMATS)}, not '{fmt}'")
    try:
        with replaced(out) as tmp:  # the old file stays whole until the new one is
            n = {"csv": _csv, "jsonl": _jsonl, "parquet": _parquet, "xlsx": _xlsx}[fmt](
                rows(engine, run_id), tmp)
    except OSError as exc:
        raise ConfigError(f"cannot write {out}: {exc.strerror or exc}") from None
    return n


def _csv(data: Iterator[dict[str, Any]], out: Path) -> int:
    n = 0
    with out.open("w", encoding="utf-8-sig", newline="") as fh:  # BOM: Excel reads UTF-8
        w = csv.DictWriter(fh, fieldnames=COLUMNS)
        w.writeheader()
        for row in data:
            w.writerow({k: _csv_cell(v) for k, v in row.items()})
            n += 1
    return n


# A spreadsheet reads a cell starting with one of these as a formula (=HYPERLINK(…), +1+cmd|…):
# a model's or a dataset's text must never run when the CSV is opened (OWASP's rule: a quote).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _csv_cell(value: Any) -> Any:
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def _jsonl(data: Iterator[dict[str, Any]], out: Path) -> int:
    n = 0
    with out.open("wb") as fh:
        for row in data:
            fh.write(orjson.dumps(row, default=str) + b"\n")
            n += 1
    return n


def _parquet(data: Iterator[dict[str, Any]], out: Path) -> int:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([(c, pa.int64() if c in ("epoch", "tokens", "judge_tokens") else
                         pa.float64() if c in ("score", "corrected_score", "latency_s",
                                               "judge_cost")
                         else pa.string()) for c in COLUMNS])
    n = 0
    with pq.ParquetWriter(out, schema) as writer:
        batch: list[dict[str, Any]] = []
        for row in data:
            batch.append(row)
            if len(batch) == 5000:
                writer.write_table(pa.Table.from_pylist(batch, schema=schema))
                n += len(batch)
                batch = []
        if batch or n == 0:
            writer.write_table(pa.Table.from_pylist(batch, schema=schema))
            n += len(batch)
    return n


def _xlsx(data: Iterator[dict[str, Any]], out: Path) -> int:
    from openpyxl import Workbook

    wb = Workbook(write_only=True)
    ws = wb.create_sheet("results")
    ws.append(list(COLUMNS))
    n = 0
    for row in data:
        # a cell holds at most 32,767 characters: long evidence is cut, and says so
        ws.append([_cell(row[c]) for c in COLUMNS])
        n += 1
    wb.save(out)
    return n


def _cell(value: Any) -> Any:
    if isinstance(value, str) and len(value) > 32_000:
        return value[:32_000] + " …[cut; full text in the jsonl or parquet export]"
    if isinstance(value, str) and value.startswith("="):
        return "'" + value  # openpyxl would store it as a formula: a model's text never runs
    return value
