"""The people who may use concierge: a name, one role, a display name, and a sign-in password.

A role is declared by the catalogs in use (`roles:`); the row scope of a role without
`all_rows` follows the user's name through the `:_user` parameter. Demo users are added only
where a demo catalog is loaded (`concierge.demo.add_users`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sqlalchemy as sa

from concierge.errors import ConfigError, UnknownUser
from concierge.storage import oauth, state
from concierge.storage.database import Database

NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,49}$"


@dataclass(frozen=True)
class UserRecord:
    name: str
    role: str
    display_name: str
    can_sign_in: bool


def get(db: Database, name: str) -> UserRecord:
    with db.read() as conn:
        row = conn.execute(sa.select(state.users).where(state.users.c.name == name)).mappings().first()
        if row is None:
            raise UnknownUser(name, _names(conn))
    return UserRecord(row["name"], row["role"], row["display_name"], row["password_hash"] is not None)


def find(db: Database, name: str) -> UserRecord | None:
    """The user called `name` as the state database has them now, or None (no listing of the others)."""
    row = db.lookup(_BY_NAME, {"name": name})  # read at every call: one statement, no transaction
    return None if row is None else UserRecord(row["name"], row["role"], row["display_name"],
                                               row["password_hash"] is not None)


_BY_NAME = sa.select(state.users.c.name, state.users.c.role, state.users.c.display_name,
                     state.users.c.password_hash).where(state.users.c.name == sa.bindparam("name"))


def all_users(db: Database) -> list[UserRecord]:
    with db.read() as conn:
        rows = conn.execute(sa.select(state.users).order_by(state.users.c.name)).mappings().all()
    return [UserRecord(r["name"], r["role"], r["display_name"], r["password_hash"] is not None) for r in rows]


def add(db: Database, name: str, role: str, display_name: str | None = None) -> UserRecord:
    if not re.match(NAME_PATTERN, name):
        raise ConfigError(f"{name!r} is not a user name: letters, digits and . _ @ -, at most 50")
    with db.write() as conn:
        exists = conn.scalar(sa.select(state.users.c.name).where(state.users.c.name == name))
        if exists:
            raise ConfigError(f"user {name!r} exists already; `concierge user set-role {name} ROLE` changes the role")
        conn.execute(state.users.insert().values(name=name, role=role, display_name=display_name or name))
    return UserRecord(name, role, display_name or name, False)


def set_role(db: Database, name: str, role: str) -> None:
    with db.write() as conn:
        done = conn.execute(state.users.update().where(state.users.c.name == name).values(role=role))
        if done.rowcount != 1:
            raise UnknownUser(name, _names(conn))


def remove(db: Database, name: str) -> None:
    """The user, their API tokens, web sessions and OAuth grants (nothing they could sign in with is left), their
    conversations and their confirmation tokens: someone added later under the same name inherits none of them.
    The audit keeps every call they made."""
    with db.write() as conn:
        conn.execute(state.api_tokens.delete().where(state.api_tokens.c.user_name == name))
        conn.execute(state.web_sessions.delete().where(state.web_sessions.c.user_name == name))
        oauth.end_user_grants(conn, name)
        conn.execute(state.confirmations.delete().where(state.confirmations.c.user_name == name))
        theirs = sa.select(state.conversations.c.id).where(state.conversations.c.user_name == name)
        conn.execute(state.conversation_messages.delete().where(state.conversation_messages.c.conversation_id
                                                                .in_(theirs)))
        conn.execute(state.conversations.delete().where(state.conversations.c.user_name == name))
        done = conn.execute(state.users.delete().where(state.users.c.name == name))
        if done.rowcount != 1:
            raise UnknownUser(name, _names(conn))


def _names(conn: sa.Connection) -> list[str]:
    return list(conn.scalars(sa.select(state.users.c.name).order_by(state.users.c.name)))
