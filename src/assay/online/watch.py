"""`assay watch SPEC`: an OTLP/HTTP receiver whose traces become the samples of an online run.

Received spans are assembled into traces (assemble.py); a complete trace is filtered, sampled
(a seeded hash of its trace id, so the choice does not depend on arrival order), and queued
for evaluation. The queue is bounded: past half full a trace is admitted with falling
probability, and when full it is dropped — each counted (counters.py), so memory stays flat
when evaluation falls behind. A worker reads the trace (reading.py), stores it as an item with
the agent's own spans, and runs the one sample pipeline of `assay run` with the recorded answer.

Ctrl-C (or SIGTERM) stops cleanly: the receiver closes, samples in flight finish and are
written, and what was received but not evaluated is counted as `dropped_at_stop` (not kept:
the exporter does not resend it either way). Restarting with the same spec name resumes the
same online run under its lease (store/lease.py): one watcher per run."""

from __future__ import annotations

import asyncio
import hashlib
import random
import re
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceResponse,
)

from assay.core.access import bearer, open_bind_refusal, token_matches
from assay.core.errors import AssayError, ConfigError, DataError
from assay.core.types import Answer, Item
from assay.runner.checks import names_once
from assay.runner.commit import BatchCommit
from assay.runner.manifest import build_manifest
from assay.runner.pipeline import Progress, SamplePipeline, Work
from assay.runner.session import RunSession, evaluator_records, ground_truth_record
from assay.store import online, repo
from assay.store.db import Engine
from assay.store.rows import answer_row
from assay.traces.otlp_in import SpanIn, decode
from assay.truth.capture import Capture, TruthConfig

from . import instruments
from .assemble import Assembler, trace_size
from .counters import Counters
from .inflate import MAGIC, NotGzip, TooLarge, inflate
from .items import agent_row, item_fields, matches, sampled
from .reading import read_trace
from .spec import WatchSpec

TARGET = "agent"
TOKEN_VARIABLE = "ASSAY_WATCH_TOKEN"
MAX_BODY = 32 * 1024 * 1024
SAVE_EVERY_S = 1.0
REMEMBER = 20_000  # trace ids kept in memory against resends; older ones are looked up
MIB = 1024 * 1024


@dataclass
class WatchResult:
    run_id: str
    status: str
    counters: Counters
    port: int = 0
    resumed: bool = False
    summary: dict[str, Any] = field(default_factory=dict)


def run_id_for(name: str) -> str:
    """The online run of a spec name: the same name, the same run (so a restart resumes)."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-")[:40] or "run"
    if slug == name:
        return f"o-{slug}"
    return f"o-{slug}-{hashlib.sha1(name.encode()).hexdigest()[:8]}"


class OnlineTarget:
    """The agent's recorded answer, read from the item (the trace's final output)."""

    kind = "recorded"
    recorded = True  # given before the sample: nothing to call or time (targets.base.Recorded)
    name = TARGET

    def public(self) -> dict[str, Any]:
        return {"type": "online", "field": "response"}

    async def answer(self, item: Item) -> Answer:
        return Answer(item.fields.get("response"),
                      {"trace_id": item.fields.get("trace_id"),
                       "answered_at": item.fields.get("answered_at_s")})

    async def close(self) -> None:
        pass


REFUSALS_KEPT = 10_000  # trace ids whose later rows are dropped too (refusals are rare)


class OnlineCommit(BatchCommit):
    """The batch commit of `assay score`, with the items of the traces (written first).

    A batch holds many traces. When the store refuses it for what one trace's rows hold, the
    batch is written again a trace at a time: the others are stored, the refused trace is
    given to `on_refused` (its id, its answer rows, the store's message) and its rows that
    come later are dropped — a store error on one trace must never end the watch nor cost the
    traces that came with it."""

    def __init__(self, engine: Engine,
                 on_refused: Callable[[str, list[dict[str, Any]], str | None], None]
                 | None = None) -> None:
        super().__init__(engine, size=500, seconds=0.5)
        self.items: list[dict[str, Any]] = []
        self.on_refused = on_refused
        self.refused: set[str] = set()

    def write(self, rows: dict[str, list[dict[str, Any]]]) -> None:
        if self.refused:  # a refused trace's rows that came after its refusal
            rows, late = _split(rows, self.refused)
            for tid, one in late.items():
                self._refuse(tid, one, None)
        try:
            repo.write_rows(self.engine, rows)
        except repo.ROWS_REFUSED as batch_error:
            by_trace = _split(rows, None)[1]
            if len(by_trace) == 1:  # nothing else to save
                self._refuse(*by_trace.popitem(), repo.refusal_message(batch_error))
                return
            for tid, one in by_trace.items():
                try:
                    repo.write_rows(self.engine, one)
                except repo.ROWS_REFUSED as exc:
                    self._refuse(tid, one, repo.refusal_message(exc))

    def _refuse(self, trace_id: str, rows: dict[str, list[dict[str, Any]]],
                message: str | None) -> None:
        if len(self.refused) >= REFUSALS_KEPT:
            self.refused.clear()
        self.refused.add(trace_id)
        if self.on_refused is not None:
            self.on_refused(trace_id, rows.get("answers", []), message)

    def flush(self) -> None:
        if self.items:  # in the samples' transaction: a kill keeps a trace whole or not at all
            self.rows["items"], self.items = self.items, []
        super().flush()

    def due(self) -> bool:
        return bool(self.items or any(self.rows.values())) and (
            time.monotonic() - self.flushed_at >= self.seconds)


def _split(rows: dict[str, list[dict[str, Any]]], only: set[str] | None
           ) -> tuple[dict[str, list[dict[str, Any]]], dict[str, dict[str, list[dict[str, Any]]]]]:
    """(the rows of traces not in `only`, {trace id: its rows} of those in it — of every
    trace when `only` is None), each table's rows in their order."""
    kept: dict[str, list[dict[str, Any]]] = {name: [] for name in rows}
    taken: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for name, table_rows in rows.items():
        for row in table_rows:
            tid = row["item_id"]
            if only is None or tid in only:
                taken.setdefault(tid, {}).setdefault(name, []).append(row)
            else:
                kept[name].append(row)
    return kept, taken


HEARTBEAT_S = 10.0  # how often `on_tick` hears the counters while traces come in


async def watch(engine: Engine, spec: WatchSpec, *, models_file: Path | None = None,
                use_cache: bool = True, stop: asyncio.Event | None = None,
                on_ready: Callable[[str, int, bool], None] | None = None,
                token: str | None = None,
                on_tick: Callable[[Counters], None] | None = None,
                heartbeat_s: float = HEARTBEAT_S) -> WatchResult:
    """Watch until `stop` is set (or SIGINT/SIGTERM in the main thread). `on_ready(run_id,
    port, resumed)` is called once the receiver listens (port 0 in the spec: a free one);
    `on_tick(counters)` every `heartbeat_s` after that (the CLI's heartbeat line).
    With `token`, a request must carry `Authorization: Bearer TOKEN` (else 401); without one,
    only a loopback address is listened on, as for the UI (core/access.py)."""
    refusal = open_bind_refusal(spec.host, token, "the OTLP receiver", TOKEN_VARIABLE)
    if refusal is not None:
        raise ConfigError(f"{spec.path}: source.otlp: {refusal}")
    run_id = run_id_for(spec.name)
    existing = repo.get_run(engine, run_id)
    if existing is not None and existing["kind"] != "online":
        raise ConfigError(f"run {run_id} exists and is not an online run")
    async with RunSession.open(engine, run_id, new=existing is None,
                               judge_model=spec.judge_model, use_cache=use_cache,
                               models_file=models_file) as session:
        return await _watch(session, spec, existing, stop=stop or asyncio.Event(),
                            on_ready=on_ready, token=token, on_tick=on_tick,
                            heartbeat_s=heartbeat_s)


async def _watch(session: RunSession, spec: WatchSpec, existing: dict[str, Any] | None, *,
                 stop: asyncio.Event, on_ready: Callable[[str, int, bool], None] | None,
                 token: str | None = None, on_tick: Callable[[Counters], None] | None = None,
                 heartbeat_s: float = HEARTBEAT_S) -> WatchResult:
    engine, run_id, factory = session.engine, session.run_id, session.factory
    evaluators = session.evaluators(spec.evaluators)
    scope = session.scope(spec.evaluators, evaluators)  # traces come later: asked per trace
    try:  # before anything listens (each trace's results would collide in the store)
        names_once(evaluators)
    except ConfigError as exc:
        raise ConfigError(f"{spec.path}: evaluators: {exc} (give one a label)") from None
    truth_cfg = TruthConfig.parse(spec.ground_truth, spec.truth, spec.base)
    capture = Capture(truth_cfg) if truth_cfg.mode != "stored" else None
    manifest = build_manifest(
        kind="online", name=spec.name, spec=spec.raw, spec_path=str(spec.path.resolve()),
        source={"otlp": f"{spec.host}:{spec.port}"}, sample=spec.sample, seed=spec.seed,
        filter=spec.filter, rubric=spec.rubric, quiet_s=spec.quiet_s, queue=spec.queue,
        targets={TARGET: OnlineTarget().public()}, models=factory.public_models(),
        evaluators=evaluator_records(evaluators, scope),
        ground_truth=ground_truth_record(truth_cfg, capture), repeats=1, jury=spec.jury)
    did = online.dataset_id(run_id)
    counters = Counters()
    if existing is None:
        online.create_dataset(engine, run_id, spec.name, str(spec.path.resolve()))
    else:
        _check_same(run_id, existing["manifest"], manifest)
        counters = Counters.from_dict((existing.get("summary") or {}).get("online", {}))
    session.start(kind="online", dataset_id=did, manifest=manifest,
                  resumed=existing is not None)
    if existing is not None:
        reconcile(engine, run_id, counters, starting=True)
        repo.merge_summary(engine, run_id, {"online": counters.as_dict()})
    writer = OnlineCommit(engine)
    pipeline = SamplePipeline(run_id, evaluators=evaluators, writer=writer,
                              progress=Progress(), capture=capture,
                              truth_mode=truth_cfg.mode, jury=spec.jury,
                              timeout_s=spec.timeout_s, scope=scope)
    service = _Service(engine, spec, run_id, did, pipeline, writer, counters, capture,
                       stop, token)
    writer.on_refused = service.refused
    if existing is not None:
        service.assembler.seen(online.recent_item_ids(engine, run_id, REMEMBER))
        service.line = online.last_line(engine, run_id)
    status = "failed"
    try:
        with _signals_set(stop):  # before the ready line: a Ctrl-C right after it counts
            port = await service.start()
            if on_ready is not None:
                on_ready(run_id, port, existing is not None)
            while not stop.is_set():
                try:
                    await asyncio.wait_for(stop.wait(), timeout=heartbeat_s)
                except TimeoutError:
                    if on_tick is not None:
                        on_tick(counters)
        await service.stop()
        if service.failure is not None:
            raise service.failure
        reconcile(engine, run_id, counters, starting=False)
        status = "interrupted"
    finally:
        session.finish(status, {"online": counters.as_dict(),
                                "samples_done": counters.evaluated})
    tally = session.summarize(repo.result_scores(engine, run_id), {}, "label")
    return WatchResult(run_id, status, counters, service.port, existing is not None,
                       {"online": counters.as_dict(), **tally.as_dict()})


def reconcile(engine: Engine, run_id: str, counters: Counters, *, starting: bool) -> None:
    """`evaluated` and `unknown` set to what the store holds. The counters are saved every
    second while samples are written in batches: after a `kill -9` they claimed 3,000 evaluated
    where 2,501 were stored. On a restart, traces claimed but not stored were lost with the
    process: counted as `dropped_at_stop` (the exporter will not resend them); traces stored
    after the last save are added to `traces`. A partly written trace (its item without its
    answer) is removed then, so a resend of it is evaluated, not taken for a duplicate."""
    evaluated, unknown, removed = online.stored_counts(engine, run_id,
                                                       remove_partial=starting)
    behind = counters.evaluated + counters.unknown - (evaluated + unknown)
    if behind > 0:
        counters.dropped_at_stop += behind
        when = "at the restart (the watch did not stop cleanly)" if starting else "at the stop"
        counters.note(f"{behind} trace(s) counted as evaluated were not in the store {when}: "
                      "counted as dropped at stop")
    elif behind < 0:
        counters.traces -= behind  # stored after the counters were last saved
    if removed:
        counters.note(f"{removed} partly stored trace(s) removed at the restart (a resend is "
                      "evaluated)")
    counters.evaluated, counters.unknown = evaluated, unknown


def _check_same(run_id: str, before: dict[str, Any], now: dict[str, Any]) -> None:
    """A resumed online run goes on as it started: a changed spec needs a new name."""
    for key in ("sample", "seed", "filter", "rubric", "ground_truth"):
        if before.get(key) != now.get(key):
            raise ConfigError(f"online run {run_id}: '{key}' changed since it started "
                              f"({before.get(key)!r}, now {now.get(key)!r}); give the spec a "
                              "new name to start another online run")
    names = [e["name"] for e in before.get("evaluators", [])]
    if names != [e["name"] for e in now.get("evaluators", [])]:
        raise ConfigError(f"online run {run_id}: the evaluators changed since it started "
                          f"({', '.join(names)}); give the spec a new name to start another "
                          "online run")
    for old, new in zip(before.get("evaluators", []), now.get("evaluators", []), strict=True):
        if old.get("when") != new.get("when"):  # which items it scores, as it started
            raise ConfigError(f"online run {run_id}: the 'when' of evaluator {old['name']} "
                              "changed since it started; give the spec a new name to start "
                              "another online run")


@contextmanager
def _signals_set(stop: asyncio.Event) -> Iterator[None]:
    """SIGINT and SIGTERM set `stop` (in the main thread: signals are only delivered there)."""
    loop = asyncio.get_running_loop()
    handled: list[signal.Signals] = []
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            try:
                loop.add_signal_handler(sig, stop.set)
                handled.append(sig)
            except (NotImplementedError, RuntimeError):
                pass
    try:
        yield
    finally:
        for sig in handled:
            loop.remove_signal_handler(sig)


class _Service:
    def __init__(self, engine: Engine, spec: WatchSpec, run_id: str, dataset_id: str,
                 pipeline: SamplePipeline, writer: OnlineCommit, counters: Counters,
                 capture: Capture | None, stop_event: asyncio.Event,
                 token: str | None = None) -> None:
        self.stop_event = stop_event
        self.token = token
        self.failure: BaseException | None = None  # the store failed: the watch stops
        self.engine = engine
        self.spec = spec
        self.run_id = run_id
        self.dataset_id = dataset_id
        self.pipeline = pipeline
        self.writer = writer
        self.counters = counters
        self.capture = capture
        self.reference = spec.reference()
        self.target = OnlineTarget()
        self.queue: asyncio.Queue[list[SpanIn] | None] = asyncio.Queue()
        self.queued_bytes = 0  # of the traces in the queue: with those waiting, under a cap
        self.max_trace_bytes = int(spec.max_trace_mb * MIB)
        self.max_pending_bytes = int(spec.max_pending_mb * MIB)
        self.assembler = Assembler(quiet_s=spec.quiet_s, orphan_s=spec.orphan_s,
                                   max_traces=max(1000, 10 * spec.queue), remember=REMEMBER,
                                   max_trace_bytes=self.max_trace_bytes,
                                   max_pending_bytes=self.max_pending_bytes,
                                   held_elsewhere=lambda: self.queued_bytes,
                                   on_oversized=self._oversized)
        # a resumed run's counters go on from where they were, not from the assembler's zero
        self.assembler.late_spans = counters.late_spans
        self.assembler.evicted = counters.dropped_waiting
        self.assembler.oversized = counters.oversized
        self.assembler.oversized_spans = counters.oversized_spans
        self.rng = random.Random(spec.seed)
        self.line = 0
        self.port = 0
        self.runner: web.AppRunner | None = None
        self.tasks: list[asyncio.Task[None]] = []
        judges = [ev.concurrency for ev in pipeline.evaluators if not ev.deterministic]
        self.workers = spec.concurrency or (max(16, 2 * max(judges)) if judges else 1)

    async def start(self) -> int:
        app = web.Application(client_max_size=MAX_BODY)
        app.router.add_post("/v1/traces", self.receive)
        # aiohttp's own inflation is off: every gzip body takes the one capped path (inflate.py)
        self.runner = web.AppRunner(app, access_log=None, auto_decompress=False)
        await self.runner.setup()
        site = web.TCPSite(self.runner, self.spec.host, self.spec.port)
        try:
            await site.start()
        except OSError as exc:
            await self.runner.cleanup()
            raise ConfigError(f"{self.spec.path}: source.otlp: cannot listen on "
                              f"{self.spec.host}:{self.spec.port}: {exc.strerror or exc}"
                              ) from None
        server = site._server
        sockets = getattr(server, "sockets", None) or []
        self.port = sockets[0].getsockname()[1] if sockets else self.spec.port
        self.tasks = [asyncio.create_task(self._sweep())]
        self.tasks += [asyncio.create_task(self._work()) for _ in range(self.workers)]
        return self.port

    async def stop(self) -> None:
        """Stop taking traces in; finish the samples in flight; count the rest as dropped."""
        if self.runner is not None:
            await self.runner.cleanup()
        self.tasks[0].cancel()
        dropped = self.assembler.drain()
        while not self.queue.empty():
            spans = self.queue.get_nowait()
            if spans is not None:
                self.queued_bytes -= trace_size(spans)
                dropped += 1
        self.counters.dropped_at_stop += dropped
        for _ in self.tasks[1:]:
            self.queue.put_nowait(None)
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await self.writer.close()
        self._update_counters()

    async def receive(self, request: web.Request) -> web.Response:
        self.counters.requests += 1
        if self.token and not token_matches(
                bearer(request.headers.get("Authorization", "")), self.token):
            return self._bad(401, f"a token is required ({TOKEN_VARIABLE}): send "
                                  "Authorization: Bearer TOKEN (OTEL_EXPORTER_OTLP_HEADERS)")
        try:
            body = await request.read()  # at most MAX_BODY bytes as sent (else 413)
        except web.HTTPRequestEntityTooLarge:
            return self._bad(413, f"body larger than {MAX_BODY:,} bytes")
        encoding = request.headers.get("Content-Encoding", "identity").strip().lower()
        if encoding not in ("gzip", "identity", ""):
            return self._bad(415, f"unsupported Content-Encoding '{encoding[:40]}' (OTLP/HTTP "
                                  "sends gzip or none)")
        # gzip by its header (OTEL_EXPORTER_OTLP_COMPRESSION=gzip) or by its magic alone: both
        # inflated with the same cap as a plain body, off the event loop (inflate.py)
        if encoding == "gzip" or body[:2] == MAGIC:
            try:
                body = await inflate(body, MAX_BODY)
            except TooLarge as exc:
                return self._bad(413, str(exc))
            except NotGzip as exc:
                return self._bad(400, str(exc))
        ctype = request.headers.get("Content-Type", "application/x-protobuf")
        try:
            spans = decode(body, ctype)
        except DataError as exc:
            return self._bad(400, str(exc))
        self.counters.spans += len(spans)
        self.assembler.add(spans, time.monotonic())
        if ctype.startswith("application/json"):
            return web.Response(body=b"{}", content_type="application/json")
        return web.Response(body=ExportTraceServiceResponse().SerializeToString(),
                            content_type="application/x-protobuf")

    def _bad(self, status: int, message: str) -> web.Response:
        """A request refused: answered with its status and counted, whatever the status."""
        self.counters.bad_requests += 1
        return web.Response(status=status, text=message)

    async def _sweep(self) -> None:
        try:
            await self._sweep_forever()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the store failing stops the watch, with its message
            self.failure = exc
            self.stop_event.set()

    async def _sweep_forever(self) -> None:
        tick = min(0.1, max(0.01, self.spec.quiet_s / 4))
        saved = 0.0
        while True:
            await asyncio.sleep(tick)
            now = time.monotonic()
            due = self.assembler.due(now)
            if due:
                stored = online.stored_items(self.engine, self.run_id,
                                             [spans[0].trace_id for spans in due])
                for spans in due:
                    if spans[0].trace_id in stored:
                        self.counters.duplicates += 1
                    else:
                        self._admit(spans)
            if self.writer.due():
                self.writer.flush()
            self.pipeline.tallies.clear()  # the summary is read back from the store
            if now - saved >= SAVE_EVERY_S:
                saved = now
                self._update_counters()
                repo.merge_summary(self.engine, self.run_id,
                                   {"online": self.counters.as_dict()})

    def _update_counters(self) -> None:
        self.counters.late_spans = self.assembler.late_spans
        self.counters.dropped_waiting = self.assembler.evicted
        self.counters.oversized = self.assembler.oversized
        self.counters.oversized_spans = self.assembler.oversized_spans

    def refused(self, trace_id: str, answer_rows: list[dict[str, Any]],
                message: str | None) -> None:
        """The store refused a trace's rows (OnlineCommit): not stored, so not counted as
        evaluated (nor as an unknown shape) but as failed, with the store's reason; a
        `message` of None is a refused trace's later rows, dropped and counted once already."""
        for row in answer_rows:  # its answer row was counted when it was made
            if str(row.get("error") or "").startswith(online.UNKNOWN_SHAPE):
                self.counters.unknown -= 1
            else:
                self.counters.evaluated -= 1
        if message is not None:
            self.counters.failed += 1
            self.counters.note(f"trace {trace_id}: the store refused it: {message}")

    def _oversized(self, trace_id: str, size: int) -> None:
        self.counters.note(f"trace {trace_id}: its spans pass {self.max_trace_bytes:,} bytes "
                           f"({size:,} so far; max_trace_mb: {self.spec.max_trace_mb:g}): "
                           "given up, not stored")

    def _admit(self, spans: list[SpanIn]) -> None:
        c = self.counters
        c.traces += 1
        if self.spec.filter and not matches(spans, self.spec.filter):
            c.filtered_out += 1
            return
        if not sampled(self.spec.seed, spans[0].trace_id, self.spec.sample):
            c.sampled_out += 1
            return
        size, cap = self.queue.qsize(), self.spec.queue
        nbytes = trace_size(spans)
        # past half full, traces are admitted with a falling chance: sampled down, not queued
        # without end; full — in traces or in bytes — every new one is dropped. All counted.
        if size >= cap or (size > cap / 2 and self.rng.random() >= 2 * (1 - size / cap)) or (
                self.queued_bytes + self.assembler.bytes + nbytes > self.max_pending_bytes):
            c.dropped += 1
            return
        self.queued_bytes += nbytes
        self.queue.put_nowait(spans)

    async def _work(self) -> None:
        while True:
            spans = await self.queue.get()
            if spans is None:
                return
            self.queued_bytes -= trace_size(spans)
            try:
                await self._evaluate(spans)
            except AssayError as exc:
                self.counters.failed += 1
                self.counters.note(f"trace {spans[0].trace_id}: {exc}")
            except Exception as exc:  # one trace's failure costs that trace, not the watch
                self.counters.failed += 1
                self.counters.note(f"trace {spans[0].trace_id}: {type(exc).__name__}: {exc}")

    async def _evaluate(self, spans: list[SpanIn]) -> None:
        spans = list({s.span_id: s for s in spans}.values())  # an exporter's repeat, once
        reading = read_trace(spans)
        tid = spans[0].trace_id
        self.line += 1
        fields = item_fields(reading, spans, self.reference)
        agent = [agent_row(self.run_id, tid, s) for s in spans]
        if reading.unknown is not None:
            self.counters.unknown += 1
            self.counters.note(f"trace {tid}: {reading.unknown}")
            fields["unknown_shape"] = reading.unknown
            self._item(tid, fields)
            await self.writer.commit(answers=[answer_row(
                self.run_id, (tid, TARGET, 0),
                Answer(None, error=f"unknown trace shape: {reading.unknown}"), None, None)],
                spans=agent)
            return
        code_field = self.capture.cfg.code_field if self.capture is not None else None
        if self.capture is not None and reading.question and not fields.get(code_field or ""):
            extra, note = await instruments.resolve(reading.question, self.capture.cfg.provider)
            fields.update(extra)
            fields["instrument_resolution"] = note
        item = Item(tid, fields, self.dataset_id, self.line)
        self._item(tid, fields)
        await self.writer.commit(spans=agent, samples=0)
        await self.pipeline.sample(Work(item, self.target, 0))
        self.counters.evaluated += 1

    def _item(self, tid: str, fields: dict[str, Any]) -> None:
        label = fields.get("service")
        self.writer.items.append({"dataset_id": self.dataset_id, "item_id": tid,
                                  "line": self.line, "fields": fields,
                                  "label": label[:255] if isinstance(label, str) else None})

