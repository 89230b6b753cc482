"""`assay export`: one row per item and evaluator, with the provenance to check it — the
answer, the ground truth used (provider, instrument, query, fetch time), the judge's raw reply,
tokens and cost, its whole model call (`call`, as JSON), the reason, the status, and any
reviewer's correction beside the raw score.

A conversation (core/conversation.py) is one sample: its rows are the conversation's scores
(`turn` empty) as any item's, each followed by one row per judged turn and evaluator (`turn`
1, 2 …: that turn's user message as `question`, the target's reply as `answer`, the truth
captured at it, the turn's score, status and reason). Both carry the conversation's `outcome`
(empty for a one-question item)."""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from assay.core.conversation import Turn
from assay.core.errors import ConfigError
from assay.core.outputs import replaced
from assay.core.types import Item, Score, TruthSnapshot
from assay.store import repo
from assay.store import results as stored
from assay.store.conversations import conversation_turns
from assay.store.db import Engine
from assay.store.rows import Key, answer_call, result_call

from .itemview import turn_ground_truth

FORMATS = ("csv", "jsonl", "parquet", "xlsx")
COLUMNS = ("run_id", "item_id", "target", "epoch", "turn", "evaluator", "evaluator_version",
           "score", "status", "reason", "outcome", "corrected_score", "review_reason", "reviewer", "question",
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
    talks = conversation_turns(engine, run_id) if any(a.get("outcome") for a in
                                                      answers.values()) else {}
    done: set[Key] = set()  # conversations whose turn rows are written
    last: Key | None = None
    for r in stored.iter_results(engine, run_id):
        key = (r["item_id"], r["target"], r["epoch"])
        if last is not None and key != last and last in talks and last not in done:
            done.add(last)  # after the conversation's own rows: its turns'
            yield from _turn_rows(run_id, last, talks[last], items.get(last[0]),
                                  (answers.get(last) or {}).get("outcome"))
        last = key
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
            "epoch": r["epoch"], "turn": None, "evaluator": r["evaluator"],
            "evaluator_version": r["evaluator_version"], "score": r["score"],
            "status": r["status"], "reason": r["reason"], "outcome": a.get("outcome"),
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
    for key in talks.keys() - done:  # the last conversation, and any with no result rows
        yield from _turn_rows(run_id, key, talks[key], items.get(key[0]),
                              (answers.get(key) or {}).get("outcome"))


def _turn_rows(run_id: str, key: Key, turns: list[Turn], item: Item | None,
               outcome: str | None) -> Iterator[dict[str, Any]]:
    """One row per judged turn and evaluator, in turn order."""
    for turn in sorted(turns, key=lambda t: t.number):
        for score in turn.scores:
            yield _turn_row(run_id, key, turn, score, item, outcome)


def _turn_row(run_id: str, key: Key, turn: Turn, score: Score, item: Item | None,
              outcome: str | None) -> dict[str, Any]:
    a, t, judged = turn.answer, turn.truth, score.call
    answered = a.call if a is not None else None
    stored_truth = turn_ground_truth(item, turn.number) if t is None else None
    ev = score.evidence or {}
    return {
        "run_id": run_id, "item_id": key[0], "target": key[1], "epoch": key[2],
        "turn": turn.number, "evaluator": score.evaluator,
        "evaluator_version": score.evaluator_version, "score": score.value,
        "status": str(score.status), "reason": score.reason, "outcome": outcome,
        "corrected_score": None, "review_reason": None, "reviewer": None,  # reviews: per sample
        "question": turn.input, "answer": a.text if a is not None else None,
        "answer_error": a.error if a is not None else turn.error,
        "latency_s": a.latency_s if a is not None else None,
        "tokens": answered.usage.total if answered is not None else None,
        **_truth_cells(t, stored_truth),
        "judge_reply": judged.reply if judged is not None else None,
        "judge_parse": (ev.get("parsed") or {}).get("how") if isinstance(ev, dict) else None,
        "judge_tokens": judged.usage.total if judged is not None else None,
        "judge_cost": judged.cost if judged is not None else None,
        "call": _text(judged.to_json()) if judged is not None else None,
        "evidence": _text(ev)}


def _truth_cells(t: TruthSnapshot | None, stored_truth: Any) -> dict[str, Any]:
    return {"ground_truth": _text(t.payload) if t else _text(stored_truth),
            "truth_provider": t.provider if t else ("stored" if stored_truth is not None
                                                     else None),
            "truth_instrument": t.instrument if t else None,
            "truth_query": t.query if t else None,
            "truth_fetched_at": t.fetched_at.isoformat() if t else None,
            "truth_status": t.status if t else None}


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

    schema = pa.schema([(c, pa.int64() if c in ("epoch", "turn", "tokens", "judge_tokens") else
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


# what openpyxl refuses in a cell (its ILLEGAL_CHARACTERS_RE): C0 controls but tab, LF, CR
_ILLEGAL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")


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
    if isinstance(value, str) and _ILLEGAL.search(value):
        # control characters a spreadsheet cell cannot hold (an escape in a model's text):
        # written as their code, U+001B, instead of failing the whole export
        value = _ILLEGAL.sub(lambda m: f"U+{ord(m.group()):04X}", value)
    if isinstance(value, str) and len(value) > 32_000:
        return value[:32_000] + " …[cut; full text in the jsonl or parquet export]"
    if isinstance(value, str) and value.startswith("="):
        return "'" + value  # openpyxl would store it as a formula: a model's text never runs
    return value
