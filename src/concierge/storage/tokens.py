"""API tokens: a bearer token stands for one user on the HTTP servers.

A token is shown once, when it is created; the database keeps only its
SHA-256 hash (the token is 256 random bits, so a plain hash cannot be
reversed or guessed). A token of a user who no longer exists verifies as
no one.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import UTC, datetime

import sqlalchemy as sa

from concierge.errors import ConfigError
from concierge.storage import state as schema
from concierge.storage.database import Database

PREFIX = "ct_"


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def create(db: Database, user_name: str, *, label: str | None = None) -> str:
    """A new token for `user_name`; the only time the token itself is seen."""
    token = PREFIX + secrets.token_urlsafe(32)
    with db.write() as conn:
        known = list(conn.scalars(sa.select(schema.users.c.name).order_by(schema.users.c.name)))
        if user_name not in known:
            raise ConfigError(f"unknown user {user_name!r}; users: {', '.join(known)}")
        conn.execute(
            schema.api_tokens.insert().values(
                token_hash=_hash(token), user_name=user_name, created_at=datetime.now(UTC), label=label
            )
        )
    return token


def verify(db: Database, token: str) -> str | None:
    """The name of the user the token stands for, or None."""
    if not token.startswith(PREFIX):
        return None
    tokens, users = schema.api_tokens, schema.users
    query = (
        sa.select(users.c.name)
        .join(tokens, tokens.c.user_name == users.c.name)
        .where(tokens.c.token_hash == _hash(token))
    )
    with db.read() as conn:
        return conn.scalar(query)
