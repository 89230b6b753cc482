"""A gzip request body inflated with a cap, off the event loop.

A few MB of gzip can inflate to gigabytes (a "gzip bomb"): `gzip.decompress` holds the whole
result in memory and, on the event loop, blocks every other request while it works. Here the
output is produced in slices of at most `SLICE` bytes (`zlib.decompressobj` with `max_length`)
and the inflation stops as soon as it passes the cap, so memory stays within cap + one slice;
it runs in a worker thread (zlib releases the GIL), so the receiver keeps answering.

Both ways a body says it is gzip go through here: `Content-Encoding: gzip` (the receiver turns
aiohttp's own inflation off, so there is one path) and a body that starts with the gzip magic
without the header (some exporters do that)."""

from __future__ import annotations

import asyncio
import zlib

MAGIC = b"\x1f\x8b"
SLICE = 1024 * 1024
# Gzip members a body may hold. An exporter sends one; each further member re-copies the rest
# of the body (`unused_data`), so 200,000 empty 20-byte members took 10 s of CPU and 32 MB of
# them about ten minutes: a count well above any real body bounds that work.
MAX_MEMBERS = 64
_GZIP = 16 + zlib.MAX_WBITS  # a gzip header and trailer, not a raw or zlib stream


class TooLarge(Exception):
    """The inflated body passes the cap (the receiver answers 413)."""


class NotGzip(Exception):
    """The body is not a valid gzip stream (the receiver answers 400)."""


def inflate_capped(body: bytes, cap: int) -> bytes:
    """`body` inflated; TooLarge once the output would pass `cap` bytes. Concatenated gzip
    members (allowed by the format) are read one after another, under the same cap, up to
    MAX_MEMBERS of them (NotGzip beyond)."""
    out = bytearray()
    data = body
    for _ in range(MAX_MEMBERS):
        d = zlib.decompressobj(_GZIP)
        try:
            while data:
                out += d.decompress(data, SLICE)
                if len(out) > cap:
                    raise TooLarge(f"gzip body inflates past {cap:,} bytes")
                data = d.unconsumed_tail
                if d.eof:
                    break
            if not d.eof:
                out += d.flush()
                if not d.eof:
                    raise NotGzip("body is not valid gzip (truncated)")
        except zlib.error as exc:
            raise NotGzip(f"body is not valid gzip ({exc})") from None
        if len(out) > cap:
            raise TooLarge(f"gzip body inflates past {cap:,} bytes")
        data = d.unused_data
        if not data.startswith(MAGIC):  # trailing zero padding is tolerated, as gzip does
            if data.strip(b"\x00"):
                raise NotGzip("body is not valid gzip (bytes after its end)")
            return bytes(out)
    raise NotGzip(f"body holds more than {MAX_MEMBERS} gzip members")


async def inflate(body: bytes, cap: int) -> bytes:
    """`inflate_capped` in a worker thread: the loop goes on serving while it works."""
    return await asyncio.to_thread(inflate_capped, body, cap)
