"""A PostgreSQL primary and its streaming replica, both throwaway clusters of this test run.

The shared server on 127.0.0.1:5432 cannot be made a primary, so a test that needs a replica starts its own:
`initdb` with `wal_level = replica`, then `pg_basebackup -R` into a second data folder, each on a free port of
127.0.0.1. PostgreSQL refuses to run as root: as root (CI), every server command runs as the `postgres` OS user
(`runuser`), in a folder of /tmp it owns. Nothing here skips: a missing binary or a server that does not start
fails the test with what to do.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

import pytest
import sqlalchemy as sa

SERVER_SETTINGS = """
listen_addresses = '127.0.0.1'
wal_level = replica
max_wal_senders = 4
hot_standby = on
fsync = off
synchronous_commit = off
full_page_writes = off
wal_receiver_status_interval = 1s
max_standby_streaming_delay = -1
"""


def pg_bin(name: str) -> str:
    """A PostgreSQL server program (initdb, pg_ctl, pg_basebackup), or the test fails naming the package."""
    found = shutil.which(name) or next(iter(sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"),
                                                    reverse=True)), None)
    if found is None:
        pytest.fail(f"{name} is not installed: the replica tests start their own PostgreSQL primary and replica; "
                    "install the server (apt-get install postgresql, as `bash .ci/run` does)")
    return str(found)


def _as_server_user(args: list[str], *, timeout: float = 60) -> None:
    command = ["runuser", "-u", "postgres", "--", *args] if os.geteuid() == 0 else args
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    if done.returncode != 0:
        pytest.fail(f"`{' '.join(args)}` failed ({done.returncode}):\n{done.stdout}{done.stderr}"
                    + ("\nas root, the server commands run as the `postgres` OS user: create it "
                       "(apt-get install postgresql does)" if os.geteuid() == 0 else ""))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Cluster:
    """One server: its data folder and port."""

    data: Path
    port: int

    def start(self) -> None:
        _as_server_user([pg_bin("pg_ctl"), "-D", str(self.data), "-l", str(self.data.parent / f"{self.port}.log"),
                         "-o", f"-p {self.port} -k {self.data.parent}", "-w", "-t", "60", "start"])

    def stop(self, mode: str = "fast") -> None:
        _as_server_user([pg_bin("pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop"])

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def execute(self, sql: str, database: str = "postgres") -> object:
        """The first value `sql` returns (None when it returns none), run in autocommit."""
        engine = sa.create_engine(self.url(database), isolation_level="AUTOCOMMIT", poolclass=sa.pool.NullPool)
        try:
            with engine.connect() as conn:
                result = conn.exec_driver_sql(sql)
                return result.scalar() if result.returns_rows else None
        finally:
            engine.dispose()

    def execute_or_none(self, sql: str) -> object:
        """`execute`, or None when the server cannot be reached."""
        try:
            return self.execute(sql)
        except sa.exc.OperationalError:
            return None


@dataclass
class Streaming:
    """A primary and its replica; `replica_address` is how concierge names the replica in a trace."""

    primary: Cluster
    replica: Cluster

    @property
    def replica_address(self) -> str:
        return f"127.0.0.1:{self.replica.port}"

    def create_database(self, name: str) -> tuple[str, str]:
        """A new database on the primary, once the replica has it too: (primary URL, replica URL)."""
        self.primary.execute(f'CREATE DATABASE "{name}"')
        self.wait_replayed()
        return self.primary.url(name), self.replica.url(name)

    def wait_replayed(self, timeout: float = 30) -> None:
        """Until the replica has replayed everything the primary has written so far."""
        target = self.primary.execute("SELECT pg_current_wal_insert_lsn()::text")  # what a write's reader waits for
        deadline = time.monotonic() + timeout
        while not self.replica.execute(f"SELECT pg_last_wal_replay_lsn() >= '{target}'::pg_lsn"):
            assert time.monotonic() < deadline, f"the replica did not replay up to {target} in {timeout} s"
            time.sleep(0.05)

    def pause_replay(self) -> None:
        self.replica.execute("SELECT pg_wal_replay_pause()")

    def resume_replay(self) -> None:
        self.replica.execute("SELECT pg_wal_replay_resume()")


@contextmanager
def streaming_pair() -> Iterator[Streaming]:
    """A started primary and a replica streaming from it; both stopped and removed when the block ends."""
    folder = Path(tempfile.mkdtemp(prefix="concierge-replica-"))
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    primary = Cluster(folder / "primary", _free_port())
    replica = Cluster(folder / "replica", _free_port())
    started: list[Cluster] = []
    try:
        _as_server_user([pg_bin("initdb"), "-D", str(primary.data), "-U", "postgres", "--auth=trust",
                         "--no-sync", "-E", "UTF8", "--locale=C"])
        _as_server_user(["sh", "-c", f"cat >> {primary.data / 'postgresql.conf'} <<'EOF'\n{SERVER_SETTINGS}EOF"])
        primary.start()
        started.append(primary)
        _as_server_user([pg_bin("pg_basebackup"), "-h", "127.0.0.1", "-p", str(primary.port), "-U", "postgres",
                         "-D", str(replica.data), "-R", "-X", "stream", "--no-sync"])
        replica.start()
        started.append(replica)
        yield Streaming(primary, replica)
    finally:
        for cluster in reversed(started):
            with suppress(BaseException):
                cluster.stop("immediate")
        shutil.rmtree(folder, ignore_errors=True)
