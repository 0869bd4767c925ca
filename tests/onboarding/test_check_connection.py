"""A database that cannot be opened says what is wrong and what to do, on a real PostgreSQL and SQLite.

The refused password needs a server that asks for passwords: the shared test server may trust local
connections, so this module starts a small PostgreSQL of its own with scram-sha-256 authentication.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from cli_runner import run_cli
from opening import opening
from sqlalchemy.engine import make_url

from concierge.errors import ConfigError, DatabaseError
from concierge.storage.database import Database


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def password_server() -> Iterator[int]:
    """A PostgreSQL of this module's own that checks passwords; its superuser postgres has 'secret'."""
    pg_ctl = shutil.which("pg_ctl") or next(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"), None)
    if pg_ctl is None:
        pytest.fail("no PostgreSQL binaries (pg_ctl) to start a server that checks passwords")
    as_owner = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []  # initdb refuses root
    folder = Path(tempfile.mkdtemp(prefix="concierge-pgpw-"))
    (folder / "pw").write_text("secret\n")
    if as_owner:
        shutil.chown(folder, "postgres")
        shutil.chown(folder / "pw", "postgres")
    port = _free_port()
    data = folder / "data"
    subprocess.run([*as_owner, str(pg_ctl), "initdb", "-D", str(data), "-s", "-o",
                    f"-U postgres --auth=scram-sha-256 --pwfile={folder / 'pw'}"], check=True)
    subprocess.run([*as_owner, str(pg_ctl), "start", "-D", str(data), "-w", "-s", "-l", str(folder / "log"), "-o",
                    f"-p {port} -k {folder} -c listen_addresses=127.0.0.1"], check=True)
    try:
        yield port
    finally:
        subprocess.run([*as_owner, str(pg_ctl), "stop", "-D", str(data), "-m", "immediate", "-s"], check=False)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.postgres
def test_a_refused_password_names_the_user_and_where_to_fix_it(password_server):
    with psycopg.connect(host="127.0.0.1", port=password_server, user="postgres", password="secret",
                         dbname="postgres", autocommit=True) as admin:
        admin.execute("CREATE ROLE shop_ro LOGIN PASSWORD 'right-one'")
    ok = Database(f"postgresql://shop_ro:right-one@127.0.0.1:{password_server}/postgres")
    try:
        with ok.read() as conn:
            assert conn.exec_driver_sql("SELECT current_user").scalar() == "shop_ro"
    finally:
        ok.dispose()

    message = opening(f"postgresql://shop_ro:wrong@127.0.0.1:{password_server}/postgres")
    assert message.startswith(f"the PostgreSQL server at 127.0.0.1:{password_server} refused the password of "
                              "user 'shop_ro': check the user and password in the URL")
    assert "wrong" not in message, "the password is never shown"
    message = opening(f"postgresql://shop_ro@127.0.0.1:{password_server}/postgres")
    assert "asks for a password: put it in the URL" in message


@pytest.mark.postgres
def test_a_wrong_database_name_says_how_to_list_or_create_it(pg_url):
    url = make_url(pg_url)
    message = opening(url.set(database="no_such_shop").render_as_string(hide_password=False))
    assert message == (
        f"the PostgreSQL server at {url.host}:{url.port} has no database 'no_such_shop': check the name at the end "
        f"of the URL, list the databases with `psql -h {url.host} -p {url.port} -l`, or create it with "
        f"`createdb -h {url.host} -p {url.port} no_such_shop`")


@pytest.mark.postgres
def test_an_unknown_user_says_how_to_create_the_role(pg_url):
    url = make_url(pg_url).set(username="nobody_at_all", password=None)
    assert "has no user 'nobody_at_all': check the user name in the URL, or create the role" in opening(
        url.render_as_string(hide_password=False))


def test_an_unused_port_says_the_server_is_not_reachable():
    port = _free_port()
    message = opening(f"postgresql://postgres@127.0.0.1:{port}/shop")
    assert message == (f"cannot reach PostgreSQL at 127.0.0.1:{port} (connection refused): is the server running, "
                       "and are the host and port in the URL right?")


def test_an_unknown_host_names_it():
    assert "the host name 'no-such-host.invalid' is unknown; check the host in the URL" in opening(
        "postgresql://postgres@no-such-host.invalid:5432/shop")


def test_a_sqlite_file_in_a_missing_folder_says_to_create_the_folder(tmp_path):
    path = tmp_path / "not_yet" / "shop.db"
    with pytest.raises(DatabaseError) as err:
        Database(f"sqlite:///{path}")
    assert str(err.value) == (
        f"cannot open the SQLite file {path}: its folder {path.parent} does not exist; create it "
        f"(mkdir -p {path.parent}) or correct the path in the URL (sqlite:///relative.db, sqlite:////abs/path.db)")
    assert not path.parent.exists()


def test_a_missing_driver_names_the_package_to_install():
    for url, fix in (("mysql+mysqldb://u@localhost/shop", "pip install mysqlclient"),
                     ("postgresql+pg8000://u@localhost/shop", "pip install pg8000")):
        with pytest.raises(ConfigError, match=f"is not installed or does not load .*; install it: {fix}$"):
            Database(url)


def test_without_psycopg_a_postgresql_url_says_to_install_it():
    """A Python where psycopg cannot be imported (as after `pip install --no-deps`)."""
    code = ("import sys; sys.modules['psycopg'] = None\n"
            "from concierge.storage.database import Database\n"
            "from concierge.errors import ConfigError\n"
            "try:\n    Database('postgresql://u@localhost/shop')\n"
            "except ConfigError as err:\n    print(err)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().endswith("install it: pip install 'psycopg[binary]'"), out


def test_the_cli_prints_the_advice_and_exits_2(tmp_path):
    result = run_cli(*["catalog", "check", "farm", "--database", f"sqlite:///{tmp_path}/no/x.db"])
    assert result.exit_code == 2
    assert result.output.startswith(f"error: cannot open the SQLite file {tmp_path}/no/x.db: its folder")
