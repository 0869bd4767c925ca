"""A failed connection is told by the driver's code where it has one, not by the English of its message."""

from __future__ import annotations

import sqlite3

import sqlalchemy as sa

from concierge.storage.database import _connect_failure

URL = sa.make_url("postgresql+psycopg://clerk@db.example:5432/shop")


class _ServerError(Exception):
    def __init__(self, text: str, sqlstate: str | None):
        super().__init__(text)
        self.sqlstate = sqlstate


def _said(text: str, sqlstate: str | None = None) -> str | None:
    return _connect_failure(sa.exc.OperationalError("connect", {}, _ServerError(text, sqlstate)), URL)


def test_a_server_that_speaks_japanese_is_still_understood_by_its_sqlstate():
    said = _said('致命的エラー: データベース"shop"は存在しません', "3D000")
    assert said is not None and "no database 'shop'" in said and "createdb -h db.example -p 5432 shop" in said
    said = _said('致命的エラー: ユーザー"clerk"のパスワード認証に失敗しました', "28P01")
    assert said is not None and "refused the password of user 'clerk'" in said


def test_one_code_for_three_causes_is_told_apart_by_the_words_or_left_general():
    assert "has no user 'clerk'" in (_said('role "clerk" does not exist', "28000") or "")
    assert "may not log in" in (_said('role "clerk" is not permitted to log in', "28000") or "")
    assert _said("ロール\"clerk\"は存在しません", "28000") is None  # the general message, with the server's words


def test_a_code_the_server_gave_is_not_overruled_by_words_in_the_message():
    assert _said('database "shop" does not exist (while checking)', "57P03") is None


def test_libpq_failures_without_a_code_are_told_by_their_words():
    assert "connection refused" in (_said('connection to server at "db.example", port 5432 failed: '
                                          "Connection refused") or "")
    assert "no database 'shop'" in (_said('FATAL:  database "shop" does not exist') or "")


def test_sqlite_that_cannot_open_its_file_is_told_by_its_result_code(tmp_path):
    try:
        sqlite3.connect(tmp_path / "missing" / "x.db")
    except sqlite3.OperationalError as err:
        failure = err
    url = sa.make_url(f"sqlite:///{tmp_path}/missing/x.db")
    said = _connect_failure(sa.exc.OperationalError("connect", {}, failure), url)
    assert said is not None and "cannot open the SQLite file" in said
    failure.args = ("ファイルを開けません",)
    assert _connect_failure(sa.exc.OperationalError("connect", {}, failure), url) == said
