"""API tokens: a bearer token stands for one user on the HTTP servers.

A token is shown once, when it is created; the database keeps only its
SHA-256 hash (the token is 256 random bits, so a plain hash cannot be
reversed or guessed). Its ID, which `concierge token list` shows and
`concierge token revoke ID` takes, is the first 12 hex digits of that hash:
it names the token without being one.

Every request checks its token in the database, so a token revoked (or
expired, or of a user removed) is refused by the very next request, in every
process. The row of a revoked token stays, so that a refusal can say whose
token it was. When a token was last used is written at most once a minute.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa

from concierge.errors import ConfigError
from concierge.storage import state as schema
from concierge.storage.database import Database
from concierge.storage.moments import aware

PREFIX = "ct_"
ID_LENGTH = 12
LAST_USE_RESOLUTION = timedelta(minutes=1)
_UNITS = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_DURATION = re.compile(r"^\s*(\d{1,5})\s*([mhdw])\s*$")


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def parse_duration(text: str) -> timedelta:
    """``90m``, ``12h``, ``30d``, ``2w``: a token's lifetime."""
    found = _DURATION.match(text)
    if not found or int(found.group(1)) == 0:
        raise ConfigError(f"{text!r} is not a lifetime: a whole number and m, h, d or w (90m, 12h, 30d, 2w)")
    return timedelta(seconds=int(found.group(1)) * _UNITS[found.group(2)])


def create(db: Database, user_name: str, *, label: str | None = None, expires_in: timedelta | None = None) -> str:
    """A new token for `user_name`; the only time the token itself is seen."""
    token = PREFIX + secrets.token_urlsafe(32)
    now = datetime.now(UTC)
    with db.write() as conn:
        known = list(conn.scalars(sa.select(schema.users.c.name).order_by(schema.users.c.name)))
        if user_name not in known:
            raise ConfigError(f"unknown user {user_name!r}; users: {', '.join(known)}")
        conn.execute(
            schema.api_tokens.insert().values(
                token_hash=_hash(token), user_name=user_name, created_at=now, label=label,
                expires_at=now + expires_in if expires_in else None,
            )
        )
    return token


@dataclass(frozen=True)
class Check:
    """What a presented token turned out to be: its user, or why it was refused."""

    user_name: str | None  # None: refused
    refusal: str | None = None  # token_unknown, token_revoked, token_expired, token_user_removed
    token_id: str | None = None  # when the token is one of ours
    owner: str | None = None  # whose token it is or was, when known
    role: str | None = None  # the user's role and name as shown, read with the token: no second read per request
    display_name: str | None = None


def check(db: Database, token: str) -> Check:
    """The user the token stands for, or why it stands for no one; notes the use (at most once a minute)."""
    if not token.startswith(PREFIX) or len(token) > 200:
        return Check(None, "token_unknown")
    tokens, digest = schema.api_tokens, _hash(token)
    with db.read() as conn:
        row = conn.execute(_CHECK, {"token_hash": digest}).mappings().first()
    if row is None:
        return Check(None, "token_unknown")
    now, token_id = datetime.now(UTC), digest[:ID_LENGTH]
    expires, last_used = aware(row["expires_at"]), aware(row["last_used_at"])
    refusal = ("token_revoked" if row["revoked_at"] is not None else
               "token_expired" if expires is not None and expires <= now else
               "token_user_removed" if row["user_exists"] is None else None)
    if refusal:
        return Check(None, refusal, token_id, row["user_name"])
    if last_used is None or now - last_used >= LAST_USE_RESOLUTION:
        with db.write() as conn:
            conn.execute(tokens.update().where(tokens.c.token_hash == digest).values(last_used_at=now))
    return Check(row["user_name"], None, token_id, row["user_name"], row["role"], row["display_name"])


# Built once (every request runs it): a statement object keeps its compiled form cached.
_CHECK = (
    sa.select(schema.api_tokens.c.user_name, schema.api_tokens.c.expires_at, schema.api_tokens.c.revoked_at,
              schema.api_tokens.c.last_used_at, schema.users.c.name.label("user_exists"), schema.users.c.role,
              schema.users.c.display_name)
    .outerjoin(schema.users, schema.api_tokens.c.user_name == schema.users.c.name)
    .where(schema.api_tokens.c.token_hash == sa.bindparam("token_hash"))
)


def verify(db: Database, token: str) -> str | None:
    """The name of the user the token stands for, or None."""
    return check(db, token).user_name


@dataclass(frozen=True)
class TokenInfo:
    id: str
    user_name: str
    label: str | None
    created_at: datetime
    expires_at: datetime | None
    last_used_at: datetime | None
    revoked_at: datetime | None

    @property
    def state(self) -> str:
        if self.revoked_at is not None:
            return "revoked"
        if self.expires_at is not None and self.expires_at <= datetime.now(UTC):
            return "expired"
        return "active"


def _info(row: sa.Row) -> TokenInfo:
    created = row.created_at if row.created_at.tzinfo else row.created_at.replace(tzinfo=UTC)
    return TokenInfo(row.token_hash[:ID_LENGTH], row.user_name, row.label, created, aware(row.expires_at),
                     aware(row.last_used_at), aware(row.revoked_at))


def list_tokens(db: Database, user_name: str | None = None) -> list[TokenInfo]:
    """Every token (of `user_name`, when given), oldest first; never the tokens themselves."""
    table = schema.api_tokens
    query = sa.select(table).order_by(table.c.created_at, table.c.token_hash)
    if user_name is not None:
        query = query.where(table.c.user_name == user_name)
    with db.read() as conn:
        return [_info(r) for r in conn.execute(query)]


def revoke(db: Database, token_id: str) -> TokenInfo:
    """Revoke the token with this ID (as `token list` shows it); the next request with it is refused."""
    token_id = token_id.strip().lower()
    if not re.fullmatch(r"[0-9a-f]{6,64}", token_id):
        raise ConfigError(f"{token_id!r} is not a token ID: `concierge token list` shows them (12 hex digits)")
    table = schema.api_tokens
    with db.write() as conn:
        rows = conn.execute(sa.select(table).where(table.c.token_hash.startswith(token_id, autoescape=True))).all()
        if not rows:
            raise ConfigError(f"no token with ID {token_id}; `concierge token list` shows them")
        if len(rows) > 1:
            raise ConfigError(f"{len(rows)} tokens have an ID starting {token_id}: give all {ID_LENGTH} digits")
        conn.execute(table.update().where(table.c.token_hash == rows[0].token_hash, table.c.revoked_at.is_(None))
                     .values(revoked_at=datetime.now(UTC)))
        row = conn.execute(sa.select(table).where(table.c.token_hash == rows[0].token_hash)).one()
    return _info(row)
