"""What guards the local UI, in one middleware: the Host names it answers to, same-origin
writes, the token, and the headers every response carries.

* Host: only the names the server is bound to (127.0.0.1, localhost, ::1 and `--host`), so a
  DNS-rebinding page (evil.example resolving to 127.0.0.1) reads nothing. Listening on every
  interface (0.0.0.0, ::) requires the token, and then any name is served.
* Writes (POST …) from a browser must come from the UI itself: a foreign or "null" Origin, a
  cross-site Sec-Fetch-Site or a foreign Referer is refused (403); a client that sends none of
  them (curl, a script) is not a browser that can be tricked, and is let through.
* Token (when set): `Authorization: Bearer …` in any case, the `assay_token` cookie, or
  `?token=` — which is then moved into the cookie and taken out of the URL by a redirect, so it
  does not stay in the history, the logs or a Referer. Compared as bytes: a non-ASCII token is
  a 401, not a 500.
* Every response: a Content-Security-Policy (no script, frame or form target from elsewhere),
  nosniff, no Referer to other sites, no framing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from urllib.parse import urlencode, urlsplit

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response

from assay.core.access import LOCAL_HOSTS as LOCAL_HOSTS
from assay.core.access import token_matches

EVERY_INTERFACE = ("0.0.0.0", "::", "")
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; "
                               "style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
                               "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
                               "form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    # same-origin, not no-referrer: with no-referrer a browser sends "Origin: null" on a form
    # POST, and the UI could not tell its own review form from a foreign one
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
}
COOKIE = "assay_token"


def allowed_hosts(bind: str, extra: Iterable[str] = ()) -> list[str] | None:
    """The Host names to answer for a server bound to `bind`; None: any (every interface)."""
    if bind in EVERY_INTERFACE:
        return None
    return sorted({*LOCAL_HOSTS, _name(bind), *(_name(h) for h in extra)})


def _name(host: str) -> str:
    """A Host header (or bind address) without its port and brackets, lower-case."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    if host.count(":") == 1:
        return host.split(":", 1)[0]
    return host


def _same_origin(url: str, host: str) -> bool:
    try:
        return urlsplit(url).netloc.lower() == host.lower()
    except ValueError:
        return False


def _cross_site(request: Request) -> bool:
    host = request.headers.get("host", "")
    origin = request.headers.get("origin")
    if origin is not None:
        return origin == "null" or not _same_origin(origin, host)
    fetch_site = request.headers.get("sec-fetch-site")
    if fetch_site is not None:
        return fetch_site not in ("same-origin", "none")
    referer = request.headers.get("referer")
    return referer is not None and not _same_origin(referer, host)


def _given_token(request: Request) -> tuple[str, bool]:
    """The token the request carries, and whether it came in the URL."""
    scheme, _, value = request.headers.get("authorization", "").strip().partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip(), False
    cookie = request.cookies.get(COOKIE)
    if cookie:
        return cookie, False
    query = request.query_params.get("token")
    return (query, True) if query else ("", False)


def _matches(given: str, token: str) -> bool:
    return token_matches(given, token)


def install(app: FastAPI, *, token: str | None, hosts: Iterable[str] | None) -> None:
    names = None if hosts is None else {_name(h) for h in hosts}

    @app.middleware("http")
    async def guard(request: Request,
                    call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        response = await _checked(request, call_next)
        for key, value in HEADERS.items():
            response.headers.setdefault(key, value)
        return response

    async def _checked(request: Request,
                       call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        if names is not None and _name(request.headers.get("host", "")) not in names:
            return PlainTextResponse("unknown Host: this UI answers only to "
                                     + ", ".join(sorted(names)), 400)
        if request.method not in SAFE_METHODS and _cross_site(request):
            return PlainTextResponse("cross-site write refused: reviews are made from the "
                                     "UI's own pages", 403)
        if token:
            given, in_url = _given_token(request)
            if not _matches(given, token):
                return JSONResponse({"detail": "a token is required (ASSAY_UI_TOKEN)"}, 401)
            if in_url and request.method in SAFE_METHODS:
                rest = [(k, v) for k, v in request.query_params.multi_items() if k != "token"]
                target = request.url.path + (f"?{urlencode(rest)}" if rest else "")
                redirect = RedirectResponse(target, status_code=303)
                redirect.set_cookie(COOKIE, token, httponly=True, samesite="strict")
                return redirect
        return await call_next(request)
