"""MariaDB (or MySQL) for the tests: the server found or started, and fresh databases on it.

The server is, in this order: the one CONCIERGE_TEST_MYSQL_URL names; the one on 127.0.0.1:3306 (where `.ci/run`
makes sure one runs); a throwaway `mariadbd` started from the local binaries into a temporary folder. If none
works the MariaDB tests fail with what to do; they never skip.

Each test database is `CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`: every character (𠮷 and emoji need four bytes)
and text compared as SQLite and PostgreSQL compare it. A `_ci` collation would group 'Tanaka' with 'TANAKA', and
utf8mb4_unicode_ci even はは with ぱぱ, so a figure would differ from the other databases' for no reason of ours.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pymysql
from sqlalchemy.engine import URL, make_url

COLLATION = "utf8mb4_bin"


def reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def server_url(url: str | None) -> URL:
    """The server's URL, its database part left out."""
    parsed = make_url(url or "mysql+pymysql://root@127.0.0.1:3306/")
    return parsed.set(drivername="mysql+pymysql", database=None)


@contextmanager
def throwaway_server(folder: Path, port: int) -> Iterator[URL]:
    """A MariaDB server of its own in `folder` on 127.0.0.1:`port`, stopped and removed when the block ends."""
    install, server = shutil.which("mariadb-install-db"), shutil.which("mariadbd") or (
        "/usr/sbin/mariadbd" if Path("/usr/sbin/mariadbd").exists() else None)
    if install is None or server is None:
        raise RuntimeError("no MariaDB binaries (mariadb-install-db, mariadbd): apt-get install mariadb-server")
    data = folder / "data"
    common = ["--no-defaults", f"--datadir={data}", "--user=root"]  # --user=root: CI runs as root
    subprocess.run([install, *common, "--auth-root-authentication-method=normal", "--skip-test-db"],
                   check=True, capture_output=True)
    log = (folder / "log").open("w")
    process = subprocess.Popen([server, *common, f"--socket={folder / 'sock'}", f"--port={port}",
                                "--bind-address=127.0.0.1", "--skip-networking=0", f"--pid-file={folder / 'pid'}",
                                f"--log-error={folder / 'err'}"], stdout=log, stderr=subprocess.STDOUT)
    try:
        url = make_url(f"mysql+pymysql://root@127.0.0.1:{port}/")
        for _ in range(300):
            if process.poll() is not None:
                raise RuntimeError(f"mariadbd stopped at start: {(folder / 'err').read_text()[-2000:]}")
            if reachable("127.0.0.1", port) and _answers(url):
                break
            time.sleep(0.1)
        else:
            raise RuntimeError("mariadbd did not answer within 30 s")
        yield url
    finally:
        process.terminate()
        process.wait(30)
        log.close()
        shutil.rmtree(folder, ignore_errors=True)


def _answers(url: URL) -> bool:
    try:
        admin(url).close()
        return True
    except pymysql.err.OperationalError:
        return False


def admin(url: URL, database: str | None = None) -> pymysql.connections.Connection:
    return pymysql.connect(host=url.host, port=url.port or 3306, user=url.username or "root",
                           password=url.password or "", database=database, charset="utf8mb4", autocommit=True)


@contextmanager
def fresh_database(server: URL, prefix: str = "concierge_test") -> Iterator[str]:
    """The URL of a new, empty database on `server`, dropped when the block ends."""
    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    with admin(server) as conn, conn.cursor() as cursor:
        cursor.execute(f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4 COLLATE {COLLATION}")
    try:
        yield server.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin(server) as conn, conn.cursor() as cursor:
            cursor.execute(f"DROP DATABASE IF EXISTS `{name}`")
