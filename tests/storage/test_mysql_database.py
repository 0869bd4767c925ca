"""MariaDB as the business database: every character round-trips, reads are read-only, REPEATABLE READ and
stopped by the timeout, writes commit in one transaction, and a connection that fails says what to do."""

from __future__ import annotations

import socket
import subprocess
import sys
import uuid

import pytest
import sqlalchemy as sa
from mysql_databases import admin
from opening import opening

from concierge.errors import ConfigError, DatabaseError
from concierge.storage.database import Database, normalise_url

pytestmark = pytest.mark.mysql
NAMES = ["田中 𠮷子", "山﨑😀", "Ｊａｐａｎ", "ﾊﾝｶｸ"]


@pytest.fixture
def maria(mysql_url):
    db = Database(mysql_url, read_timeout_s=0.5)
    with db.write() as conn:
        conn.exec_driver_sql("CREATE TABLE notes (id integer PRIMARY KEY, body varchar(100))")
        conn.exec_driver_sql("INSERT INTO notes VALUES (1, 'first')")
    try:
        yield db
    finally:
        db.dispose()


def test_plain_mysql_and_mariadb_urls_use_pymysql():
    assert normalise_url("mysql://u:p@h:3306/shop") == "mysql+pymysql://u:p@h:3306/shop"
    assert normalise_url("mariadb://u@h/shop") == "mariadb+pymysql://u@h/shop"
    assert normalise_url("mysql+pymysql://u@h/shop") == "mysql+pymysql://u@h/shop"


def test_japanese_names_emoji_and_four_byte_kanji_round_trip(mysql_url):
    plain = mysql_url.replace("mysql+pymysql://", "mysql://")
    for url in (plain, plain.replace("mysql://", "mariadb://")):
        db = Database(url)
        try:
            with db.write() as conn:
                conn.exec_driver_sql("CREATE TABLE IF NOT EXISTS people (name varchar(20) PRIMARY KEY)")
                conn.exec_driver_sql("DELETE FROM people")
                conn.execute(sa.text("INSERT INTO people VALUES (:name)"), [{"name": n} for n in NAMES])
            with db.read() as conn:
                got = conn.scalars(sa.text("SELECT name FROM people WHERE name = :name"), {"name": "田中 𠮷子"}).all()
                assert got == ["田中 𠮷子"]
                assert sorted(conn.scalars(sa.text("SELECT name FROM people"))) == sorted(NAMES)
        finally:
            db.dispose()


def test_string_literals_read_as_standard_sql_and_values_with_backslashes_and_quotes_round_trip(maria):
    value = "O'Brien \\ 50%_off \\'; --"
    with maria.write() as conn:
        conn.execute(sa.text("UPDATE notes SET body = :v"), {"v": value})
    with maria.read() as conn:
        assert conn.scalar(sa.text("SELECT body FROM notes")) == value
        literal = conn.execute(sa.text("SELECT 'a\\b', 'x' || 'y', 'a%b' LIKE 'a\\%b' ESCAPE '\\'")).one()
        assert tuple(literal) == ("a\\b", "xy", 1)


def test_a_read_cannot_write_and_sees_one_snapshot(maria):
    refused = r"Cannot execute statement in a READ ONLY transaction \(error 1792\)"
    with pytest.raises(DatabaseError, match=refused), maria.read() as conn:
        conn.exec_driver_sql("INSERT INTO notes VALUES (2, 'second')")
    with maria.read() as conn:
        before = conn.exec_driver_sql("SELECT count(*) FROM notes").scalar()
        with maria.write() as writer:
            writer.exec_driver_sql("INSERT INTO notes VALUES (3, 'third')")
        assert conn.exec_driver_sql("SELECT count(*) FROM notes").scalar() == before == 1
    with maria.read() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM notes").scalar() == 2


def test_a_long_read_is_stopped_and_the_next_one_works(maria):
    with pytest.raises(DatabaseError, match="max_statement_time exceeded"), maria.read() as conn:
        conn.exec_driver_sql("SELECT SLEEP(5)")
    with maria.read() as conn:
        assert conn.exec_driver_sql("SELECT body FROM notes").scalar() == "first"


def test_a_write_is_one_transaction_and_not_bound_by_the_read_timeout(maria):
    with pytest.raises(RuntimeError), maria.write() as conn:
        conn.exec_driver_sql("UPDATE notes SET body = 'half'")
        raise RuntimeError("the second statement failed")
    with maria.write() as conn:
        conn.exec_driver_sql("SELECT SLEEP(0.7)")
        conn.exec_driver_sql("UPDATE notes SET body = 'changed'")
    with maria.read() as conn:
        assert conn.exec_driver_sql("SELECT body FROM notes").scalar() == "changed"


def test_a_wrong_password_names_the_user_and_never_the_password(mysql_url, mariadb_server):
    url = sa.make_url(mysql_url)
    user = f"shop_{uuid.uuid4().hex[:8]}"
    with admin(mariadb_server) as conn, conn.cursor() as cursor:
        cursor.execute(f"CREATE USER '{user}'@'%' IDENTIFIED BY 'right-one'")
        cursor.execute(f"CREATE USER '{user}'@'localhost' IDENTIFIED BY 'right-one'")
    try:
        message = opening(url.set(username=user, password="wrong-one").render_as_string(hide_password=False))
        assert message == (
            f"the MySQL/MariaDB server at {url.host}:{url.port} refused the password of user '{user}': check the "
            "user and password in the URL (mysql://USER:PASSWORD@HOST/NAME; write @ : / in a password as "
            "%40 %3A %2F)")
        message = opening(url.set(username=user, password="right-one").render_as_string(hide_password=False))
        assert message == (
            f"the MySQL/MariaDB user '{user}' may not use the database '{url.database}' at {url.host}:{url.port}: "
            f"GRANT SELECT ON `{url.database}`.* TO '{user}'@'%' (and INSERT, UPDATE, DELETE for declared writes)")
    finally:
        with admin(mariadb_server) as conn, conn.cursor() as cursor:
            cursor.execute(f"DROP USER '{user}'@'%', '{user}'@'localhost'")


def test_an_unknown_database_says_how_to_create_it(mysql_url):
    url = sa.make_url(mysql_url)
    message = opening(url.set(database="no_such_shop").render_as_string(hide_password=False))
    assert message == (
        f"the MySQL/MariaDB server at {url.host}:{url.port} has no database 'no_such_shop': check the name at the "
        f"end of the URL, list the databases with `mariadb -h {url.host} -P {url.port} -u {url.username} -p -e "
        "'SHOW DATABASES'`, or create it: CREATE DATABASE `no_such_shop` CHARACTER SET utf8mb4")


def test_an_unused_port_and_an_unknown_host_say_the_server_is_not_reachable():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        unused_port = s.getsockname()[1]
    assert opening(f"mysql://root@127.0.0.1:{unused_port}/shop") == (
        f"cannot reach MySQL/MariaDB at 127.0.0.1:{unused_port} (connection refused): is the server running, and "
        "are the host and port in the URL right?")
    assert opening("mariadb://root@no-such-host.invalid/shop") == (
        "cannot reach MySQL/MariaDB at no-such-host.invalid:3306: the host name 'no-such-host.invalid' is unknown; "
        "check the host in the URL")


def test_without_pymysql_a_mysql_url_says_which_extra_to_install():
    code = ("import sys; sys.modules['pymysql'] = None\n"
            "from concierge.storage.database import Database\n"
            "from concierge.errors import ConfigError\n"
            "for url in ('mysql://u@localhost/shop', 'mariadb://u@localhost/shop'):\n"
            "    try:\n        Database(url)\n"
            "    except ConfigError as err:\n        print(err)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    lines = out.strip().splitlines()
    assert len(lines) == 2 and all(line.endswith("install it: pip install 'concierge[mysql]'") for line in lines), out


def test_an_unknown_dialect_names_the_databases_concierge_speaks():
    with pytest.raises(ConfigError, match="it runs on SQLite, PostgreSQL and MySQL/MariaDB: .*mysql://USER"):
        Database("oracle+nosuch://u@h/shop")
