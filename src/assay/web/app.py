"""The FastAPI application: server-rendered pages and a JSON API over the same queries.

Every asset is served from the package (no CDN); the interactive API docs are a plain page
rendered from the OpenAPI schema (Swagger UI would load from a CDN). Model and user text is
untrusted: templates escape everything. Listening beyond 127.0.0.1 requires a token; Host
names, cross-site writes, the token and security headers are checked in web/security.py."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote, urlencode

from fastapi import FastAPI, Form, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from jinja2 import ChoiceLoader, Environment, FileSystemLoader, select_autoescape
from pydantic import BaseModel, field_validator

from assay import __version__
from assay.core.access import open_bind_refusal
from assay.core.conversation import OUTCOMES
from assay.core.errors import AssayError, ConfigError
from assay.report import html as report_html
from assay.report.compare import compare_runs
from assay.store import repo
from assay.store.browse import SORTS
from assay.store.db import Engine

from . import queries, security
from .online import online_view, over_time_chart

HERE = Path(__file__).parent
CSS = (report_html.TEMPLATES / "assay.css").read_text("utf-8")
ONLINE_JS = (HERE / "static" / "online.js").read_text("utf-8")
ONLINE_POLL_MS = 3000
REVIEWER_COOKIE = "assay_reviewer"  # the reviewer's name, remembered for the next review
REVIEWER_DAYS = 180


class ReviewIn(BaseModel):
    item_id: str
    evaluator: str
    score: float | None
    reason: str
    reviewer: str
    target: str | None = None
    epoch: int = 0

    @field_validator("score", "epoch", mode="before")
    @classmethod
    def _no_bool(cls, value: Any) -> Any:
        """pydantic reads JSON `true` as 1.0 (and 1): a reviewer's `true` is no score (422)."""
        if isinstance(value, bool):
            raise ValueError("must be a number (or null), not true/false")
        return value


def _env() -> Environment:
    e = Environment(loader=ChoiceLoader([FileSystemLoader(HERE / "templates"),
                                         FileSystemLoader(report_html.TEMPLATES)]),
                    autoescape=select_autoescape(["html", "j2"]))
    e.filters.update(report_html.env().filters)
    return e


def create_app(engine: Engine, *, token: str | None = None,
               models_file: Path | None = None,
               hosts: Iterable[str] | None = security.LOCAL_HOSTS) -> FastAPI:
    """`hosts`: the Host names answered (None: any — a server on every interface, which
    `serve` allows only with a token)."""
    app = FastAPI(title="Assay", version=__version__, docs_url=None, redoc_url=None)
    env = _env()

    def page(name: str, status: int = 200, **ctx: Any) -> HTMLResponse:
        return HTMLResponse(env.get_template(name).render(**ctx), status_code=status)

    security.install(app, token=token, hosts=hosts)

    @app.exception_handler(LookupError)
    async def not_found(request: Request, exc: LookupError) -> Response:
        if request.url.path.startswith("/api/"):
            return JSONResponse({"detail": str(exc)}, 404)
        return page("error.html.j2", 404, message=str(exc))

    @app.exception_handler(AssayError)
    async def bad_request(request: Request, exc: AssayError) -> Response:
        if request.url.path.startswith("/api/"):
            return JSONResponse({"detail": str(exc)}, 400)
        return page("error.html.j2", 400, message=str(exc))

    # ---- assets and docs -------------------------------------------------------------------
    @app.get("/static/assay.css", include_in_schema=False)
    def css() -> Response:
        return Response(CSS, media_type="text/css")

    @app.get("/static/online.js", include_in_schema=False)
    def online_js() -> Response:
        return Response(ONLINE_JS, media_type="text/javascript")

    @app.get("/api", response_class=HTMLResponse, include_in_schema=False)
    def api_docs() -> HTMLResponse:
        return page("api.html.j2", schema=app.openapi())

    # ---- pages -----------------------------------------------------------------------------
    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def runs_page(q: str | None = None) -> HTMLResponse:
        return page("runs.html.j2", runs=queries.runs_list(engine, text=q), q=q or "")

    @app.get("/runs/{run_id}", response_class=HTMLResponse, include_in_schema=False)
    def run_page(run_id: str, evaluator: str | None = None, status: str | None = None,
                 label: str | None = None, score: str | None = None, q: str | None = None,
                 where: Annotated[list[str] | None, Query()] = None, outcome: str | None = None,
                 sort: str = "", page_no: int = Query(1, alias="page")) -> HTMLResponse:
        summary = queries.run_summary(engine, run_id)
        where = [w for w in (where or []) if w.strip()]
        data = queries.results_page(engine, run_id, evaluator=evaluator or None,
                                    status=status or None, label=label or None,
                                    score=score or None, text=q or None, where=where,
                                    outcome=outcome or None, sort=sort, page=_page(page_no))
        filters = {"evaluator": evaluator or "", "status": status or "",
                   "label": label or "", "score": score or "", "q": q or "",
                   "outcome": outcome or "", "sort": sort}
        qs = urlencode([*((k, v) for k, v in filters.items() if v),
                        *(("where", w) for w in where)])
        return page("run.html.j2", s=summary, data=data,
                    charts=queries.run_charts(engine, run_id), filters=filters, where=where, qs=qs,
                    labels=queries.labels(engine, run_id), sorts=SORTS,
                    outcomes=OUTCOMES,
                    fields=queries.item_fields(engine, run_id))

    @app.get("/runs/{run_id}/online", response_class=HTMLResponse, include_in_schema=False)
    def online_page(run_id: str, bucket: str = "minute") -> HTMLResponse:
        v = online_view(engine, run_id, bucket)
        return page("online.html.j2", v=v, every_ms=ONLINE_POLL_MS,
                    chart=over_time_chart(v["over_time"]))

    @app.get("/runs/{run_id}/online/chart.svg", include_in_schema=False)
    def online_chart(run_id: str, bucket: str = "minute") -> Response:
        """The score-over-time chart alone: the live page reloads it as an image."""
        v = online_view(engine, run_id, bucket)
        svg = over_time_chart(v["over_time"]) or (
            '<svg xmlns="http://www.w3.org/2000/svg" width="640" height="20"></svg>')
        return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "no-store"})

    @app.get("/runs/{run_id}/items/{item_id:path}", response_class=HTMLResponse,
             include_in_schema=False)
    def item_page(run_id: str, item_id: str, request: Request) -> HTMLResponse:
        return page("item.html.j2", v=queries.item_view(engine, run_id, item_id),
                    reviewer=request.cookies.get(REVIEWER_COOKIE, ""))

    @app.get("/runs/{run_id}/review", response_class=HTMLResponse, include_in_schema=False)
    def review_queue_page(run_id: str, request: Request, skip: int = 0) -> HTMLResponse:
        q = queries.review_queue(engine, run_id, skip=min(max(0, skip), MAX_PAGE))
        return page("review.html.j2", q=q, reviewer=request.cookies.get(REVIEWER_COOKIE, ""))

    @app.post("/runs/{run_id}/items/{item_id:path}/review", include_in_schema=False)
    def review_form(run_id: str, item_id: str, evaluator: str = Form(...),
                    score: str = Form(...), reason: str = Form(...),
                    reviewer: str = Form(...), target: str = Form(...),
                    epoch: int = Form(0), then: str = Form("")) -> Response:
        value = None if score.strip().lower() in ("", "null", "none") else _float(score)
        repo.add_review(engine, run_id=run_id, item_id=item_id, evaluator=evaluator,
                        score=value, reason=reason, reviewer=reviewer, target=target,
                        epoch=epoch)
        # back to the queue only by name: a form field never chooses where to redirect
        where = f"/runs/{quote(run_id)}/review" if then == "queue" else \
            f"/runs/{quote(run_id)}/items/{quote(item_id, safe='')}"
        response = RedirectResponse(where, status_code=303)
        response.set_cookie(REVIEWER_COOKIE, reviewer[:100], max_age=REVIEWER_DAYS * 86400,
                            httponly=True, samesite="strict")
        return response

    @app.get("/compare", response_class=HTMLResponse, include_in_schema=False)
    def compare_page(runs: Annotated[list[str] | None, Query()] = None,
                     evaluator: str | None = None, changed: str | None = None,
                     page_no: int = Query(1, alias="page")) -> HTMLResponse:
        runs = [r for r in (runs or []) if r]
        pairs, warnings = queries.comparison(engine, runs) if len(runs) >= 2 else ([], [])
        matrix = queries.compare_matrix(engine, runs, evaluator=evaluator or None,
                                        changed_only=bool(changed), page=_page(page_no)) \
            if len(runs) >= 2 else None
        qs = urlencode([*(("runs", r) for r in runs),
                        *((("evaluator", matrix["evaluator"]),) if matrix and
                          matrix["evaluator"] else ()),
                        *((("changed", "1"),) if changed else ())])
        return page("compare.html.j2", runs=runs, pairs=pairs, matrix=matrix, qs=qs,
                    known=queries.runs_list(engine), warnings=warnings)

    @app.get("/compare/item", response_class=HTMLResponse, include_in_schema=False)
    def compare_item_page(item: str, runs: Annotated[list[str], Query()]) -> HTMLResponse:
        runs = [r for r in runs if r]
        return page("compare_item.html.j2", v=queries.side_by_side(engine, runs, item),
                    runs_qs=urlencode([("runs", r) for r in runs]))

    @app.get("/datasets", response_class=HTMLResponse, include_in_schema=False)
    def datasets_page() -> HTMLResponse:
        return page("datasets.html.j2", datasets=queries.datasets_list(engine),
                    named=queries.named_versions(engine))

    @app.get("/evaluators", response_class=HTMLResponse, include_in_schema=False)
    def evaluators_page(name: str | None = None) -> HTMLResponse:
        return page("evaluators.html.j2", evaluators=_evaluators(), chosen=_template(name))

    @app.get("/models", response_class=HTMLResponse, include_in_schema=False)
    def models_page() -> HTMLResponse:
        return page("models.html.j2", models=_models(models_file))

    # ---- JSON API --------------------------------------------------------------------------
    @app.get("/api/runs")
    def api_runs(q: str | None = None) -> list[dict[str, Any]]:
        """The newest runs; q: text in a run's id, name or tags."""
        return queries.runs_list(engine, text=q)

    @app.get("/api/runs/{run_id}")
    def api_run(run_id: str) -> dict[str, Any]:
        return queries.run_summary(engine, run_id)

    @app.get("/api/runs/{run_id}/online")
    def api_online(run_id: str, bucket: str = "minute") -> dict[str, Any]:
        """An online run (assay watch): counters, score over time, latest samples."""
        return online_view(engine, run_id, bucket)

    @app.get("/api/runs/{run_id}/results")
    def api_results(run_id: str, evaluator: str | None = None, status: str | None = None,
                    label: str | None = None, score: str | None = None,
                    q: str | None = None, where: Annotated[list[str] | None, Query()] = None,
                    outcome: str | None = None, sort: str = "", page: int = 1,
                    size: int = queries.PAGE) -> dict[str, Any]:
        """Filters: evaluator, status, label, score (a number or none), q (text in the
        question, answer or reason), where=FIELD=VALUE (any item field, repeatable), outcome
        (conversations that ended so: done, transferred, max_turns, timeout, budget, aborted);
        sort: item, score, -score, status, evaluator, latency, -latency."""
        return queries.results_page(engine, run_id, evaluator=evaluator, status=status,
                                    label=label, score=score, text=q, where=where,
                                    outcome=outcome or None, sort=sort,
                                    page=_page(page), size=min(max(1, size), MAX_SIZE))

    @app.get("/api/runs/{run_id}/items/{item_id:path}")
    def api_item(run_id: str, item_id: str) -> dict[str, Any]:
        return queries.item_chain(engine, run_id, item_id)

    @app.get("/api/runs/{run_id}/reviews")
    def api_reviews(run_id: str) -> list[dict[str, Any]]:
        queries.run_or_404(engine, run_id)
        return list(repo.latest_reviews(engine, run_id).values())

    @app.post("/api/runs/{run_id}/reviews", status_code=201)
    def api_add_review(run_id: str, body: ReviewIn) -> dict[str, Any]:
        queries.run_or_404(engine, run_id)
        return repo.add_review(engine, run_id=run_id, item_id=body.item_id,
                               evaluator=body.evaluator, score=body.score, reason=body.reason,
                               reviewer=body.reviewer, target=body.target, epoch=body.epoch)

    @app.get("/api/compare")
    def api_compare(runs: Annotated[list[str], Query()]) -> list[dict[str, Any]]:
        return [p.as_dict() for p in compare_runs(engine, runs)]

    @app.get("/api/compare/matrix")
    def api_compare_matrix(runs: Annotated[list[str], Query()], evaluator: str | None = None,
                           changed: bool = False, page: int = 1) -> dict[str, Any]:
        """Items × runs for one evaluator: per sample, each run's score and status."""
        return queries.compare_matrix(engine, runs, evaluator=evaluator, changed_only=changed,
                                      page=_page(page))

    @app.get("/api/datasets")
    def api_datasets() -> list[dict[str, Any]]:
        return queries.datasets_list(engine)

    @app.get("/api/evaluators")
    def api_evaluators() -> list[dict[str, Any]]:
        return _evaluators()

    @app.get("/api/targets")
    def api_targets() -> list[dict[str, Any]]:
        return _listing("targets")

    @app.get("/api/providers")
    def api_providers() -> list[dict[str, Any]]:
        return _listing("providers")

    @app.get("/api/models")
    def api_models() -> list[dict[str, Any]]:
        return _models(models_file)

    return app


MAX_PAGE = 1_000_000  # far past any run's last page, and small enough for any OFFSET
MAX_SIZE = 1000


def _page(n: int) -> int:
    """A page number any database can offset by (9223372036854775807 overflowed: a 500)."""
    return min(max(1, n), MAX_PAGE)


def _float(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ConfigError(f"score must be a number or null, not '{text}'") from None


def _evaluators() -> list[dict[str, Any]]:
    from assay.evaluators.registry import EVALUATORS

    return [{"description": e["summary"], **e} for e in EVALUATORS.describe()]


def _listing(which: str) -> list[dict[str, Any]]:
    if which == "targets":
        from assay.targets.registry import TARGETS

        return TARGETS.describe()
    from assay.truth.registry import PROVIDERS

    return PROVIDERS.describe()


def _template(name: str | None) -> dict[str, Any] | None:
    if not name:
        return None
    from assay.evaluators.judge.templates import get_template

    t = get_template(name)
    return {"name": t.name, "system": t.system, "user": t.user, "version": t.version,
            "score": t.schema.describe(), "variables": list(t.variables),
            "source": t.source}


def _models(models_file: Path | None) -> list[dict[str, Any]]:
    from assay.models.config import load_models

    # public() holds the NAME of the key's environment variable, never the key
    return [m.public() for m in load_models(models_file).values()]


def check_bind(host: str, token: str | None) -> None:
    """Refuse, before anything is printed or opened, to serve beyond this machine without a
    token."""
    refusal = open_bind_refusal(host, token, "the UI", "ASSAY_UI_TOKEN")
    if refusal is not None:
        raise ConfigError(refusal)


def serve(engine: Engine, *, host: str, port: int, token: str | None,
          models_file: Path | None = None) -> None:
    import uvicorn

    check_bind(host, token)
    uvicorn.run(create_app(engine, token=token, models_file=models_file,
                           hosts=security.allowed_hosts(host)), host=host,
                port=port, log_level="warning")


