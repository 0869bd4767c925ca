"""OAuth grants for remote MCP hosts: registered clients, authorization codes, and the tokens of each grant.

A grant is one consent of one user to one client (Claude, ChatGPT, an editor) for one resource (this server's
/mcp). Its access tokens last an hour and its refresh tokens a month; a refresh token works once and is
replaced by a new one (rotation), and a refresh token presented a second time ends the whole grant, since only
a thief would still hold it. Like API tokens (`concierge.storage.tokens`) every token is 256 random bits of
which only the SHA-256 hash is kept, and every request reads its token, so revoking a grant (`concierge token
revoke ID`, the client's revocation request) refuses the very next call in every process. Whatever ends a person's
web sessions ends their grants too (`end_user_grants`): a password change, ``concierge user sign-out NAME``,
removing the user; so nobody added later under the same name inherits them. A code presented a second time ends
the grant it gave (OAuth 2.1 §4.1.3).
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa

from concierge.storage import state as schema
from concierge.storage.database import Database
from concierge.storage.moments import aware

ACCESS_PREFIX, REFRESH_PREFIX, CODE_PREFIX = "coa_", "cor_", "coc_"
ACCESS_LIFETIME = timedelta(hours=1)
REFRESH_LIFETIME = timedelta(days=30)
CODE_LIFETIME = timedelta(minutes=5)
LAST_USE_RESOLUTION = timedelta(minutes=1)
MAX_CLIENTS = 10_000  # registrations kept; the oldest unused one goes first


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


@dataclass(frozen=True)
class Consent:
    """What a user agreed to on the consent page: who, for which client, which scopes, for which resource."""

    client_id: str
    client_name: str
    user_name: str
    scopes: tuple[str, ...]
    resource: str


@dataclass(frozen=True)
class Code:
    consent: Consent
    code_challenge: str
    redirect_uri: str
    redirect_explicit: bool
    expires_at: datetime


@dataclass(frozen=True)
class Issued:
    access_token: str
    refresh_token: str
    expires_in: int
    scopes: tuple[str, ...]


@dataclass(frozen=True)
class Access:
    """A live access token: whose, which grant, for which resource, until when."""

    grant_id: str
    consent: Consent
    expires_at: datetime


@dataclass(frozen=True)
class Grant:
    id: str
    consent: Consent
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None

    @property
    def state(self) -> str:
        return "revoked" if self.revoked_at is not None else "active"


class GrantReused(Exception):
    """A refresh token was presented after it had been exchanged: the grant is ended."""


# --- clients that registered themselves (RFC 7591) ---------------------------------------------------


def register_client(db: Database, client_id: str, info_json: str) -> None:
    table, now = schema.oauth_clients, datetime.now(UTC)
    with db.write() as conn:
        count = conn.scalar(sa.select(sa.func.count()).select_from(table)) or 0
        if count >= MAX_CLIENTS:
            oldest = sa.select(table.c.client_id).order_by(table.c.created_at).limit(count - MAX_CLIENTS + 1)
            unused = oldest.where(table.c.client_id.not_in(sa.select(schema.oauth_grants.c.client_id)))
            conn.execute(table.delete().where(table.c.client_id.in_(list(conn.scalars(unused)))))
        conn.execute(table.insert().values(client_id=client_id, info=info_json, created_at=now))


def registered_client(db: Database, client_id: str) -> str | None:
    """The registration JSON of a client that registered itself, else None."""
    if len(client_id) > 64:
        return None
    with db.read() as conn:
        return conn.scalar(sa.select(schema.oauth_clients.c.info).where(schema.oauth_clients.c.client_id == client_id))


def has_grant(db: Database, client_id: str) -> bool:
    """Some person allowed this client, and has not taken it back."""
    grants = schema.oauth_grants
    with db.read() as conn:
        return conn.scalar(sa.select(grants.c.id).where(grants.c.client_id == client_id,
                                                        grants.c.revoked_at.is_(None)).limit(1)) is not None


# --- authorization codes --------------------------------------------------------------------------------


def issue_code(db: Database, consent: Consent, *, code_challenge: str, redirect_uri: str,
               redirect_explicit: bool) -> str:
    code, now = CODE_PREFIX + secrets.token_urlsafe(32), datetime.now(UTC)
    table = schema.oauth_codes
    with db.write() as conn:
        conn.execute(table.delete().where(table.c.expires_at < now))
        conn.execute(table.insert().values(
            code_hash=_hash(code), client_id=consent.client_id, client_name=consent.client_name[:200],
            user_name=consent.user_name, scopes=" ".join(consent.scopes), code_challenge=code_challenge,
            redirect_uri=redirect_uri, redirect_explicit=redirect_explicit, resource=consent.resource,
            expires_at=now + CODE_LIFETIME,
        ))
    return code


def load_code(db: Database, code: str) -> Code | None:
    """A code not yet exchanged; one exchanged already ends the grant it gave, and is None."""
    if not code.startswith(CODE_PREFIX) or len(code) > 100:
        return None
    table = schema.oauth_codes
    with db.read() as conn:
        row = conn.execute(sa.select(table).where(table.c.code_hash == _hash(code))).first()
    if row is None:
        return None
    if row.grant_id is not None:
        with db.write() as conn:
            _end_grant(conn, row.grant_id, datetime.now(UTC))
        return None
    consent = Consent(row.client_id, row.client_name, row.user_name, tuple(row.scopes.split()), row.resource)
    return Code(consent, row.code_challenge, row.redirect_uri, row.redirect_explicit, aware(row.expires_at) or
                datetime.now(UTC))


def exchange_code(db: Database, code: str) -> Issued | None:
    """The grant and first tokens of a code, which is spent; None when it was spent already (or never was)."""
    found = load_code(db, code)
    if found is None:
        return None
    table, grant_id, now = schema.oauth_codes, secrets.token_hex(6), datetime.now(UTC)
    with db.write() as conn:
        spent = conn.execute(table.update().where(table.c.code_hash == _hash(code), table.c.grant_id.is_(None))
                             .values(grant_id=grant_id))  # kept until it expires: presented again, it ends the grant
        if spent.rowcount != 1:
            return None
        consent = found.consent
        conn.execute(schema.oauth_grants.insert().values(
            id=grant_id, client_id=consent.client_id, client_name=consent.client_name, user_name=consent.user_name,
            scopes=" ".join(consent.scopes), resource=consent.resource, created_at=now,
        ))
        return _issue(conn, grant_id, consent.scopes, now)


def _issue(conn: sa.Connection, grant_id: str, scopes: tuple[str, ...], now: datetime) -> Issued:
    access, refresh = ACCESS_PREFIX + secrets.token_urlsafe(32), REFRESH_PREFIX + secrets.token_urlsafe(32)
    table = schema.oauth_tokens
    conn.execute(table.delete().where(table.c.grant_id == grant_id, table.c.expires_at < now))
    conn.execute(table.insert(), [
        {"token_hash": _hash(access), "grant_id": grant_id, "kind": "access", "expires_at": now + ACCESS_LIFETIME},
        {"token_hash": _hash(refresh), "grant_id": grant_id, "kind": "refresh", "expires_at": now + REFRESH_LIFETIME},
    ])
    return Issued(access, refresh, int(ACCESS_LIFETIME.total_seconds()), scopes)


# --- tokens -----------------------------------------------------------------------------------------------


_TOKEN = (
    sa.select(schema.oauth_tokens.c.grant_id, schema.oauth_tokens.c.kind, schema.oauth_tokens.c.expires_at,
              schema.oauth_tokens.c.used_at, schema.oauth_grants.c.client_id, schema.oauth_grants.c.client_name,
              schema.oauth_grants.c.user_name, schema.oauth_grants.c.scopes, schema.oauth_grants.c.resource,
              schema.oauth_grants.c.revoked_at, schema.oauth_grants.c.last_used_at,
              schema.users.c.name.label("user_exists"))
    .join(schema.oauth_grants, schema.oauth_grants.c.id == schema.oauth_tokens.c.grant_id)
    .outerjoin(schema.users, schema.users.c.name == schema.oauth_grants.c.user_name)
    .where(schema.oauth_tokens.c.token_hash == sa.bindparam("token_hash"))
)


def _live(db: Database, token: str, kind: str) -> tuple[sa.Row, Access] | None:
    prefix = ACCESS_PREFIX if kind == "access" else REFRESH_PREFIX
    if not token.startswith(prefix) or len(token) > 100:
        return None
    with db.read() as conn:
        row = conn.execute(_TOKEN, {"token_hash": _hash(token)}).first()
    now = datetime.now(UTC)
    if (row is None or row.kind != kind or row.revoked_at is not None or row.user_exists is None
            or (aware(row.expires_at) or now) <= now):
        return None
    consent = Consent(row.client_id, row.client_name, row.user_name, tuple(row.scopes.split()), row.resource)
    return row, Access(row.grant_id, consent, aware(row.expires_at) or now)


def check_access(db: Database, token: str) -> Access | None:
    """The grant of a live access token, else None; notes the grant's use (at most once a minute)."""
    found = _live(db, token, "access")
    if found is None:
        return None
    row, access = found
    now, last = datetime.now(UTC), aware(row.last_used_at)
    if last is None or now - last >= LAST_USE_RESOLUTION:
        with db.write() as conn:
            conn.execute(schema.oauth_grants.update().where(schema.oauth_grants.c.id == access.grant_id)
                         .values(last_used_at=now))
    return access


def load_refresh(db: Database, token: str) -> Access | None:
    """A refresh token's grant, or None; a token already exchanged is returned too (`refresh` ends its grant)."""
    found = _live(db, token, "refresh")
    return found[1] if found is not None else None


def refresh(db: Database, token: str, scopes: tuple[str, ...]) -> Issued:
    """New tokens for a refresh token, which is spent; presented again later, it ends the grant (`GrantReused`)."""
    table, now = schema.oauth_tokens, datetime.now(UTC)
    with db.write() as conn:
        row = conn.execute(sa.select(table.c.grant_id, table.c.used_at).where(table.c.token_hash == _hash(token),
                                                                          table.c.kind == "refresh")).first()
        if row is not None and row.used_at is None:
            spent = conn.execute(table.update().where(table.c.token_hash == _hash(token), table.c.used_at.is_(None))
                                 .values(used_at=now))
            if spent.rowcount == 1:  # not exchanged meanwhile by another process
                return _issue(conn, row.grant_id, scopes, now)
        if row is not None:
            _end_grant(conn, row.grant_id, now)  # committed, then refused
    raise GrantReused(row.grant_id if row is not None else "")


def revoke_token(db: Database, token: str) -> None:
    """Ends the grant the token (access or refresh) belongs to (RFC 7009 lets a server revoke related tokens)."""
    with db.write() as conn:
        grant_id = conn.scalar(sa.select(schema.oauth_tokens.c.grant_id)
                               .where(schema.oauth_tokens.c.token_hash == _hash(token)))
        if grant_id is not None:
            _end_grant(conn, grant_id, datetime.now(UTC))


def end_user_grants(conn: sa.Connection, user_name: str) -> None:
    """Every grant of the user ends, and their codes go (inside the caller's write transaction)."""
    grants, now = schema.oauth_grants, datetime.now(UTC)
    ids = list(conn.scalars(sa.select(grants.c.id).where(grants.c.user_name == user_name)))
    conn.execute(grants.update().where(grants.c.user_name == user_name, grants.c.revoked_at.is_(None))
                 .values(revoked_at=now))
    if ids:
        conn.execute(schema.oauth_tokens.delete().where(schema.oauth_tokens.c.grant_id.in_(ids)))
    conn.execute(schema.oauth_codes.delete().where(schema.oauth_codes.c.user_name == user_name))


def _end_grant(conn: sa.Connection, grant_id: str, now: datetime) -> None:
    grants = schema.oauth_grants
    conn.execute(grants.update().where(grants.c.id == grant_id, grants.c.revoked_at.is_(None)).values(revoked_at=now))
    conn.execute(schema.oauth_tokens.delete().where(schema.oauth_tokens.c.grant_id == grant_id))


# --- grants, as `concierge token list/revoke` show them --------------------------------------------------


def _grant(row: sa.Row) -> Grant:
    consent = Consent(row.client_id, row.client_name, row.user_name, tuple(row.scopes.split()), row.resource)
    return Grant(row.id, consent, aware(row.created_at) or datetime.now(UTC), aware(row.last_used_at),
                 aware(row.revoked_at))


def list_grants(db: Database, user_name: str | None = None) -> list[Grant]:
    table = schema.oauth_grants
    query = sa.select(table).order_by(table.c.created_at, table.c.id)
    if user_name is not None:
        query = query.where(table.c.user_name == user_name)
    with db.read() as conn:
        return [_grant(r) for r in conn.execute(query)]


def find_grants(db: Database, grant_id: str) -> list[Grant]:
    table = schema.oauth_grants
    with db.read() as conn:
        return [_grant(r) for r in conn.execute(sa.select(table).where(table.c.id.startswith(grant_id,
                                                                                            autoescape=True)))]


def revoke_grant(db: Database, grant_id: str) -> Grant:
    with db.write() as conn:
        _end_grant(conn, grant_id, datetime.now(UTC))
        return _grant(conn.execute(sa.select(schema.oauth_grants).where(schema.oauth_grants.c.id == grant_id)).one())
