"""One-time confirmation tokens for writes that need a person's yes.

The first call of such a tool returns a preview and a token; the token is
stored hashed with the user, the tool and the exact arguments. Where the state
tables live beside the data, redeeming it happens inside the write's own
transaction, so the write and the token's use commit together or not at all: a
crash mid-write leaves the token unused and a retry writes exactly once. Where
the state has a database of its own, the token is redeemed there first and
given back (`restore`) when the write fails before its commit: a crash in
between leaves the token used and nothing written, never a second write. A
replay, or the token with other arguments or another user, is refused.

A token also binds what the person was shown: the `digest` of the preview. A
write whose preview, read again inside its transaction, differs (another client
added to the same order) writes nothing and answers with the new preview and a
new token; the old token is retired.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa

from concierge.storage import state as schema

TOKEN_TTL = timedelta(hours=1)


def canonical(args: dict[str, Any]) -> str:
    return json.dumps(args, sort_keys=True, ensure_ascii=False, default=str)


@dataclass(frozen=True)
class Hashed:
    """A token known only by its hash: what the agent keeps with a conversation waiting for a yes, so no
    stored row can be replayed as a token (the user's yes in their own signed-in session redeems it)."""

    digest: str


def hashed(token: str) -> Hashed:
    return Hashed(_hash(token))


def _hash(token: str | Hashed) -> str:
    return token.digest if isinstance(token, Hashed) else hashlib.sha256(str(token).encode()).hexdigest()


def digest(preview: dict[str, Any]) -> str:
    """What a person was shown before saying yes, as one value: the preview's rows and totals."""
    return hashlib.sha256(canonical(preview).encode()).hexdigest()


def issue(conn: sa.Connection, user: str, tool: str, args: dict[str, Any], shown: str | None = None) -> str:
    """A new token for this call; `shown`: the `digest` of the preview it was issued with."""
    token = "cf_" + secrets.token_urlsafe(18)
    conn.execute(
        schema.confirmations.insert().values(
            token_hash=_hash(token), user_name=user, tool=tool, args=canonical(args), created_at=datetime.now(UTC),
            preview_digest=shown,
        )
    )
    return token


def shown(conn: sa.Connection, token: str | Hashed) -> str | None:
    """The digest of the preview the token was issued with; None for an unknown token or one without."""
    table = schema.confirmations
    return conn.scalar(sa.select(table.c.preview_digest).where(table.c.token_hash == _hash(token)))


def retire(conn: sa.Connection, token: str | Hashed) -> None:
    """Make a token unknown: its preview no longer holds, and a new token replaces it (a used one would be
    read as "the write it confirmed has been done")."""
    table = schema.confirmations
    conn.execute(table.delete().where(table.c.token_hash == _hash(token), table.c.used_at.is_(None)))


def redeem(conn: sa.Connection, token: str | Hashed, user: str, tool: str, args: dict[str, Any]) -> str | None:
    """Use the token for this exact call; returns why it cannot be used, or None."""
    return check(conn, token, user, tool, args) or use(conn, token)


def use(conn: sa.Connection, token: str | Hashed) -> str | None:
    """Mark a token that `check` found good as used, once; why not, when another use came first."""
    table = schema.confirmations
    used = conn.execute(
        table.update()
        .where(table.c.token_hash == _hash(token), table.c.used_at.is_(None))
        .values(used_at=datetime.now(UTC))
    )
    if used.rowcount != 1:
        return "this confirmation token was already used; the write it confirmed has been done"
    return None


def check(conn: sa.Connection, token: str | Hashed, user: str, tool: str, args: dict[str, Any]) -> str | None:
    """Why the token cannot confirm this exact call, or None; the token is not used."""
    table = schema.confirmations
    row = conn.execute(sa.select(table).where(table.c.token_hash == _hash(token))).mappings().first()
    if row is None or row["user_name"] != user:
        return "this confirmation token is unknown; call the tool without a token to get a new preview"
    if row["used_at"] is not None:
        return "this confirmation token was already used; the write it confirmed has been done"
    if row["tool"] != tool or row["args"] != canonical(args):
        return (
            "this confirmation token was issued for a different call; "
            "call the tool without a token for a new preview"
        )
    created = row["created_at"]
    if created.tzinfo is None:
        created = created.replace(tzinfo=UTC)
    if datetime.now(UTC) - created > TOKEN_TTL:
        return "this confirmation token has expired; call the tool without a token for a new preview"
    return None


def restore(conn: sa.Connection, token: str | Hashed) -> None:
    """Make a redeemed token usable again: only for a write known not to have committed."""
    table = schema.confirmations
    conn.execute(table.update().where(table.c.token_hash == _hash(token)).values(used_at=None))
