"""Who may talk to a server Assay starts (core/access.py): loopback needs no token."""

from __future__ import annotations

import pytest

from assay.core.access import is_loopback, open_bind_refusal


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "127.1.2.3", "localhost", "::1",
                                  "[::1]"])
def test_every_loopback_address_needs_no_token(host: str) -> None:
    assert is_loopback(host)
    assert open_bind_refusal(host, None, "the UI", "ASSAY_UI_TOKEN") is None


@pytest.mark.parametrize("host", ["0.0.0.0", "", "192.168.1.5", "::", "example.org",
                                  "128.0.0.1"])
def test_other_addresses_need_a_token(host: str) -> None:
    assert not is_loopback(host)
    assert open_bind_refusal(host, None, "the UI", "ASSAY_UI_TOKEN") == (
        f"listening on {host or 'every interface'} makes the UI reachable from other machines: "
        "set ASSAY_UI_TOKEN to a secret first")
    assert open_bind_refusal(host, "s3cret", "the UI", "ASSAY_UI_TOKEN") is None
