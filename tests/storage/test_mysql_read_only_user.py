"""MariaDB reached through a user that may only read the business data, the state in a MariaDB database of its
own: reads work, a declared write is refused with the server's words and nothing written, and once the user is
granted the write the same confirmation writes it, once."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from legacy_state import farm_without_state
from mysql_databases import admin, fresh_database

from concierge.demo.bootstrap import open_pipeline
from concierge.errors import DatabaseError
from concierge.pipeline import audit
from concierge.storage import state

pytestmark = pytest.mark.mysql
SALE = {"code_customer": "0016", "products": "かぼちゃ4個(読み取り専用)", "price": 600, "date_sales_str": "2025-05-06"}


def as_root(server: sa.URL, database: str, *statements: str) -> list[tuple]:
    with admin(server, database) as conn, conn.cursor() as cursor:
        for statement in statements:
            cursor.execute(statement)
        return list(cursor.fetchall())


@pytest.fixture
def read_only(mysql_url, mariadb_server) -> Iterator[tuple[str, str]]:
    """The farm demo in `mysql_url`, the URL of a user that may only read it, and the user's name."""
    farm_without_state(mysql_url)
    user, password = f"ro_{uuid.uuid4().hex[:8]}", uuid.uuid4().hex
    database = sa.make_url(mysql_url).database or ""
    for host in ("%", "localhost"):
        as_root(mariadb_server, database, f"CREATE USER '{user}'@'{host}' IDENTIFIED BY '{password}'",
                f"GRANT SELECT ON `{database}`.* TO '{user}'@'{host}'")
    try:
        url = sa.make_url(mysql_url).set(drivername="mysql", username=user, password=password)
        yield url.render_as_string(hide_password=False), user
    finally:
        as_root(mariadb_server, database, f"DROP USER '{user}'@'%', '{user}'@'localhost'")


def test_reads_go_through_the_read_only_user_and_a_declared_write_fails_cleanly(mysql_url, mariadb_server,
                                                                               read_only):
    url, user = read_only
    database = sa.make_url(mysql_url).database or ""

    def sales() -> list:
        return as_root(mariadb_server, database,
                       f"SELECT sales_number FROM farm_sales WHERE products = '{SALE['products']}'")

    with fresh_database(mariadb_server, "concierge_state") as state_url:
        pipeline = open_pipeline(["farm"], url, state_database=state_url)
        try:
            with pipeline.db.read() as conn:
                assert conn.scalar(sa.text("SELECT CURRENT_USER()")).startswith(f"{user}@")
            assert "concierge_users" not in [r[0] for r in as_root(mariadb_server, database, "SHOW TABLES")]
            admin_user = pipeline.user("admin")
            got = pipeline.invoke("get_sales", {"code_customer": "0016"}, admin_user)
            assert got.status == "ok" and got.row_count > 0

            preview = pipeline.invoke("add_sale", SALE, admin_user)
            assert preview.status == "confirm", preview.message
            token = preview.confirmation_token
            with pytest.raises(DatabaseError) as refused:
                pipeline.invoke("add_sale", SALE, admin_user, confirmation=token)
            message = str(refused.value)
            assert f"refused the write of add_sale (INSERT command denied to user '{user}'@" in message
            assert "nothing was written" in message and "the confirmation token still works" in message
            assert sales() == []
            failed = audit.latest(pipeline.state, 1)[0]
            assert (failed["tool"], failed["decision"]) == ("add_sale", "failed")
            with pipeline.state.read() as conn:
                assert conn.scalar(sa.select(sa.func.count()).select_from(state.confirmations)
                                   .where(state.confirmations.c.used_at.is_not(None))) == 0

            for host in ("%", "localhost"):
                as_root(mariadb_server, database, f"GRANT INSERT ON `{database}`.farm_sales TO '{user}'@'{host}'")
            done = pipeline.invoke("add_sale", SALE, admin_user, confirmation=token)
            assert done.status == "ok", done.message
            assert sales() == [(done.rows[0]["code_sales"],)]
            replay = pipeline.invoke("add_sale", SALE, admin_user, confirmation=token)
            assert (replay.status, replay.code) == ("refused", "confirmation_invalid")
            assert sales() == [(done.rows[0]["code_sales"],)]
        finally:
            pipeline.close()
