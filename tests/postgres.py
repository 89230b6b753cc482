"""A throwaway PostgreSQL server for tests: initdb in a temporary folder, started with pg_ctl on
a free port on 127.0.0.1, as the `postgres` user when the tests run as root (PostgreSQL refuses
to run as root). Skips with the reason when no server binaries are installed."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

import pytest


def _bin(name: str) -> str | None:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found[-1] if found else shutil.which(name)


@contextmanager
def postgres_server() -> Iterator[str]:
    initdb, pg_ctl = _bin("initdb"), _bin("pg_ctl")
    if not initdb or not pg_ctl:
        pytest.skip("PostgreSQL server binaries are not installed (apt-get install postgresql)")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.skip("psycopg is not installed (pip install '.[postgres]')")
    root = os.geteuid() == 0
    data = tempfile.mkdtemp(prefix="assay-pg-")
    if root:
        shutil.chown(data, "postgres", "postgres")
    as_user = ["runuser", "-u", "postgres", "--"] if root else []
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    subprocess.run([*as_user, initdb, "-D", f"{data}/db", "-U", "postgres", "--auth=trust",
                    "-E", "UTF8", "--locale=C"], check=True, capture_output=True)
    subprocess.run([*as_user, pg_ctl, "-D", f"{data}/db", "-l", f"{data}/log", "-w", "-o",
                    f"-p {port} -k {data} -c listen_addresses=127.0.0.1", "start"],
                   check=True, capture_output=True)
    try:
        subprocess.run([*as_user, _bin("createdb") or "createdb", "-h", "127.0.0.1", "-p",
                        str(port), "-U", "postgres", "assay"], check=True, capture_output=True)
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/assay"
    finally:
        subprocess.run([*as_user, pg_ctl, "-D", f"{data}/db", "-m", "fast", "stop"],
                       capture_output=True)
        shutil.rmtree(data, ignore_errors=True)
