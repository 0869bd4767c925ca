"""Web sign-in sessions, kept in the state database so that every server process sees one end at once.

A session is 256 random bits that the browser keeps in its signed cookie; the table keeps only their
SHA-256 hash, the user, the fingerprint of the user's password hash at sign-in, and when it expires.
Every request looks its session up by that hash (the primary key, one indexed read, joined with the
user's row) and nothing is remembered between requests, so a session ends for every process the moment

- the user signs out (`end`), or an admin runs ``concierge user sign-out NAME`` (`end_all`);
- the user's password changes (the fingerprint no longer matches; `passwords.set_password` deletes them);
- the user is removed (no row to join; `users.remove` deletes them);
- it is older than `MAX_AGE` (or the shorter age it was started with).

A session the host app's token started (`concierge.web.embed`) has `EMBEDDED` for a fingerprint: it needs no
password, and ends as the others do (a password set or changed ends it too). So does one the company's OpenID
Connect provider started (`concierge.web.oidc`), with `PROVIDER`: the person signed in themselves there.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa

from concierge.storage import oauth, passwords, users
from concierge.storage import state as schema
from concierge.storage.database import Database
from concierge.storage.moments import aware

MAX_AGE = timedelta(days=7)
EMBEDDED = "embedded"  # the fingerprint of a session the host app's token started: no hex digest
PROVIDER = "oidc"  # ... and of one the company's OpenID Connect provider started
_ID_BYTES = 32


def _hash(session_id: str) -> str:
    return hashlib.sha256(session_id.encode()).hexdigest()


def start(db: Database, user_name: str, fingerprint: str, *, source: str | None = None,
          max_age: timedelta = MAX_AGE) -> str:
    """A new session for `user_name` signed in with the password whose hash has `fingerprint`; its id."""
    session_id = secrets.token_urlsafe(_ID_BYTES)
    now = datetime.now(UTC)
    table = schema.web_sessions
    with db.write() as conn:
        conn.execute(table.delete().where(table.c.expires_at < now))  # the expired ones of everybody
        conn.execute(table.insert().values(
            id_hash=_hash(session_id), user_name=user_name, fingerprint=fingerprint, created_at=now,
            expires_at=now + min(max_age, MAX_AGE), source=source[:200] if source else None,
        ))
    return session_id


def check(db: Database, session_id: str, *, embedded: bool = True) -> str | None:
    """The user name of a live session, else None (unknown, ended, expired, password changed, user gone; one a
    host app's token started, unless `embedded`)."""
    found = signed_in(db, session_id, embedded=embedded)
    return found.name if found is not None else None


def signed_in(db: Database, session_id: str, *, embedded: bool = True) -> users.UserRecord | None:
    """The user of a live session as the state database has them now (role included), else None, as `check`:
    one read, of the user's row with the session."""
    if not session_id or len(session_id) > 100:
        return None
    with db.read() as conn:
        row = conn.execute(_CHECK, {"id_hash": _hash(session_id)}).mappings().first()
    if row is None:
        return None
    expires = aware(row["expires_at"])
    if expires is None or expires <= datetime.now(UTC):
        return None
    fingerprint, password_hash = row["fingerprint"], row["password_hash"]
    signed = (embedded if fingerprint == EMBEDDED else fingerprint == PROVIDER or (
        password_hash is not None and passwords.fingerprint(password_hash) == fingerprint))
    if not signed:
        return None
    return users.UserRecord(row["user_name"], row["role"], row["display_name"], password_hash is not None)


# Built once (every request runs it): a statement object keeps its compiled form cached.
_CHECK = (
    sa.select(schema.web_sessions.c.user_name, schema.web_sessions.c.fingerprint, schema.web_sessions.c.expires_at,
              schema.users.c.password_hash, schema.users.c.role, schema.users.c.display_name)
    .join(schema.users, schema.users.c.name == schema.web_sessions.c.user_name)
    .where(schema.web_sessions.c.id_hash == sa.bindparam("id_hash"))
)


def end(db: Database, session_id: str) -> bool:
    """End one session (signing out); whether there was one."""
    with db.write() as conn:
        done = conn.execute(schema.web_sessions.delete().where(schema.web_sessions.c.id_hash == _hash(session_id)))
    return done.rowcount > 0


def end_all(db: Database, user_name: str) -> int:
    """End every session of `user_name`, in every process; how many there were."""
    with db.write() as conn:
        return end_all_in(conn, user_name)


def end_all_in(conn: sa.Connection, user_name: str) -> int:
    """`end_all` inside a write transaction of the caller's (a password change, removing the user); the user's OAuth
    grants end with their sessions."""
    table = schema.web_sessions
    oauth.end_user_grants(conn, user_name)
    now = datetime.now(UTC)
    live = conn.scalar(sa.select(sa.func.count()).select_from(table)
                       .where(table.c.user_name == user_name, table.c.expires_at > now))
    conn.execute(table.delete().where(table.c.user_name == user_name))
    return int(live or 0)
