"""Who may talk to a server Assay starts (the UI of `assay view`, the OTLP receiver of
`assay watch`): one rule for both. Bound to a loopback address, only this machine can; any
other address needs a token, sent as `Authorization: Bearer TOKEN`, compared in constant time."""

from __future__ import annotations

import hmac
import ipaddress

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


def is_loopback(host: str) -> bool:
    """Whether `host` is a loopback address: all of 127.0.0.0/8 and ::1, or "localhost"."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def open_bind_refusal(host: str, token: str | None, what: str, variable: str) -> str | None:
    """Why listening on `host` is refused (reachable from other machines with no token), or
    None."""
    if is_loopback(host) or token:
        return None
    return (f"listening on {host or 'every interface'} makes {what} reachable from other "
            f"machines: set {variable} to a secret first")


def token_matches(given: str, token: str) -> bool:
    """Compared as bytes: a non-ASCII token given is a refusal, not an error."""
    return hmac.compare_digest(given.encode("utf-8", "replace"), token.encode("utf-8"))


def bearer(header: str) -> str:
    """The token of an `Authorization: Bearer …` header ('' when it holds none)."""
    scheme, _, value = header.strip().partition(" ")
    return value.strip() if scheme.lower() == "bearer" else ""
