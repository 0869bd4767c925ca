"""concierge's own tables: users, audit, confirmations, API tokens, web sessions, sign-in throttle, audit noise,
OAuth clients and grants, the grants of web API sources, conversations.

They may live beside the business data (one URL, one deployment: the embedded default) or in a
database of their own (`state_database`), so that concierge can read a company's data through a
read-only role. Their layout is versioned by the Alembic migrations in `storage/migrations`:
the tables here are those of the head revision (`concierge.storage.migrate` makes and checks them).
A change here needs a new revision there.
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa

VERSION_TABLE = "concierge_alembic_version"  # not alembic_version: the business database may have its own
metadata = sa.MetaData()


def _now() -> datetime:
    return datetime.now(UTC)


users = sa.Table(
    "concierge_users",
    metadata,
    sa.Column("name", sa.String(50), primary_key=True),
    sa.Column("role", sa.String(50), nullable=False),
    sa.Column("display_name", sa.String(100), nullable=False),
    sa.Column("password_hash", sa.String(200), nullable=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=True, default=_now),  # 0002; NULL before it
)

audit = sa.Table(
    "concierge_audit",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("user_name", sa.String(50), nullable=False),
    sa.Column("tool", sa.String(100), nullable=False),
    sa.Column("args", sa.Text, nullable=False),
    sa.Column("decision", sa.String(30), nullable=False),
    sa.Column("result_id", sa.String(40), nullable=False),
    sa.Column("rows", sa.Integer, nullable=False),
    sa.Column("ms", sa.Float, nullable=False),
    sa.Column("message", sa.Text, nullable=True),
    sa.Column("source", sa.String(200), nullable=True),  # 0002: channel and client ("web 203.0.113.7")
    sa.Index("ix_concierge_audit_tool_at", "tool", "at"),  # 0006: the same write done minutes ago
)

# One-time tokens: a write's confirmation (tool = the write's name, see pipeline/confirm.py), and the phone's
# markers of a used call credential (tool "phone call") and of a signed webhook seen (tool "phone webhook"),
# see web/phone/credential.py: no tool name has a space, so a marker can never confirm a write.
confirmations = sa.Table(
    "concierge_confirmations",
    metadata,
    sa.Column("token_hash", sa.String(64), primary_key=True),
    sa.Column("user_name", sa.String(50), nullable=False),
    sa.Column("tool", sa.String(100), nullable=False),
    sa.Column("args", sa.Text, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("preview_digest", sa.String(64), nullable=True),  # 0004: what was shown (confirm.digest)
)

api_tokens = sa.Table(
    "concierge_api_tokens",
    metadata,
    sa.Column("token_hash", sa.String(64), primary_key=True),
    sa.Column("user_name", sa.String(50), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("label", sa.String(100), nullable=True),
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),  # 0003; NULL: never
    sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),  # 0003; to the minute
    sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),  # 0003; kept, so a refusal names the user
)

# 0003: web sign-in sessions (the cookie carries the id; only its hash is kept), see storage/sessions.py
web_sessions = sa.Table(
    "concierge_web_sessions",
    metadata,
    sa.Column("id_hash", sa.String(64), primary_key=True),
    sa.Column("user_name", sa.String(50), nullable=False),
    sa.Column("fingerprint", sa.String(16), nullable=False),  # of the password hash at sign-in
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("source", sa.String(200), nullable=True),
    sa.Index("ix_concierge_web_sessions_user", "user_name"),
)

# 0003: failed sign-ins per account ("user:NAME") and per client address ("addr:ADDRESS"), see storage/throttle.py
signin_throttle = sa.Table(
    "concierge_signin_throttle",
    metadata,
    sa.Column("key", sa.String(120), primary_key=True),
    sa.Column("failures", sa.Integer, nullable=False),
    sa.Column("last_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("blocked_until", sa.DateTime(timezone=True), nullable=True),
    sa.Index("ix_concierge_signin_throttle_last", "last_at"),
)

# 0005: the audit lines of unauthenticated refusals, counted per source and kind in a window of time (a
# stranger's flood is written as its first lines and one summary line), see `concierge.pipeline.audit.stranger`
audit_noise = sa.Table(
    "concierge_audit_noise",
    metadata,
    sa.Column("source", sa.String(200), primary_key=True),  # "web 203.0.113.7"; an IPv6 client by its /64
    sa.Column("kind", sa.String(100), primary_key=True),  # "sign-in refused:sign_in_failed"
    sa.Column("window_start", sa.DateTime(timezone=True), nullable=False),
    sa.Column("lines", sa.Integer, nullable=False),  # written one by one in this window
    sa.Column("more", sa.Integer, nullable=False),  # counted into the summary line
    sa.Column("summary_id", sa.Integer, nullable=True),  # concierge_audit.id of this window's summary line
    sa.Index("ix_concierge_audit_noise_window", "window_start"),
)

# 0006: the demos whose users were added to this state database, once: a demo loaded later gets its own users, and a
# demo user an administrator removed stays removed (`concierge.demo.seed_users`)
demo_users = sa.Table(
    "concierge_demo_users",
    metadata,
    sa.Column("demo", sa.String(100), primary_key=True),
    sa.Column("added_at", sa.DateTime(timezone=True), nullable=False),
)

# 0007: OAuth 2.1 for remote MCP hosts (see storage/oauth.py). Clients that registered themselves (RFC 7591); a
# grant is one consent of a user to a client, and its access and refresh tokens (only their hashes) die with it.
oauth_clients = sa.Table(
    "concierge_oauth_clients",
    metadata,
    sa.Column("client_id", sa.String(64), primary_key=True),
    sa.Column("info", sa.Text, nullable=False),  # the registration as JSON
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)
oauth_codes = sa.Table(
    "concierge_oauth_codes",
    metadata,
    sa.Column("code_hash", sa.String(64), primary_key=True),
    sa.Column("client_id", sa.String(500), nullable=False),
    sa.Column("client_name", sa.String(200), nullable=False),
    sa.Column("user_name", sa.String(50), nullable=False),
    sa.Column("scopes", sa.String(200), nullable=False),
    sa.Column("code_challenge", sa.String(128), nullable=False),
    sa.Column("redirect_uri", sa.Text, nullable=False),
    sa.Column("redirect_explicit", sa.Boolean, nullable=False),
    sa.Column("resource", sa.String(500), nullable=False),
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("grant_id", sa.String(12), nullable=True),  # once exchanged: presented again, it ends this grant
)
oauth_grants = sa.Table(
    "concierge_oauth_grants",
    metadata,
    sa.Column("id", sa.String(12), primary_key=True),
    sa.Column("client_id", sa.String(500), nullable=False),
    sa.Column("client_name", sa.String(200), nullable=False),
    sa.Column("user_name", sa.String(50), nullable=False),
    sa.Column("scopes", sa.String(200), nullable=False),
    sa.Column("resource", sa.String(500), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
    sa.Index("ix_concierge_oauth_grants_user", "user_name"),
)
oauth_tokens = sa.Table(
    "concierge_oauth_tokens",
    metadata,
    sa.Column("token_hash", sa.String(64), primary_key=True),
    sa.Column("grant_id", sa.String(12), nullable=False),
    sa.Column("kind", sa.String(10), nullable=False),  # access, refresh
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),  # a refresh token, once exchanged
    sa.Index("ix_concierge_oauth_tokens_grant", "grant_id"),
)

# 0008: the refresh token a person granted concierge on a web API (sealed), see storage/source_grants.py
source_grants = sa.Table(
    "concierge_source_grants",
    metadata,
    sa.Column("source", sa.String(100), primary_key=True),
    sa.Column("refresh_token", sa.Text, nullable=False),
    sa.Column("scope", sa.String(500), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("renewed_at", sa.DateTime(timezone=True), nullable=False),
)

# 0009: where each reader (user, conversation) last wrote on the primary, so that its reads on a replica wait
# until the replica has replayed past it (storage/replicas.py): the primary's WAL position, in bytes
read_positions = sa.Table(
    "concierge_read_positions",
    metadata,
    sa.Column("user_name", sa.String(50), primary_key=True),
    sa.Column("session_id", sa.String(100), primary_key=True),
    sa.Column("position", sa.BigInteger, nullable=False),
    sa.Column("written_at", sa.DateTime(timezone=True), nullable=False),
)

STATE_TABLES = [users, audit, confirmations, api_tokens, web_sessions, signin_throttle, audit_noise, demo_users,
                oauth_clients, oauth_codes, oauth_grants, oauth_tokens, source_grants, read_positions]

# Conversations of the agent: one row per (user, session id), its messages in order.
conversations = sa.Table(
    "concierge_conversations",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("session_id", sa.String(64), nullable=False),
    sa.Column("user_name", sa.String(50), nullable=False),
    sa.Column("title", sa.String(200), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("pending", sa.Text, nullable=True),  # JSON: the write waiting for a yes, with its token
    sa.UniqueConstraint("user_name", "session_id", name="uq_concierge_conversations_user_session"),
)

conversation_messages = sa.Table(
    "concierge_messages",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("conversation_id", sa.Integer, sa.ForeignKey("concierge_conversations.id", ondelete="CASCADE"),
              nullable=False),
    sa.Column("role", sa.String(20), nullable=False),
    sa.Column("body", sa.Text, nullable=False),  # JSON of one agent.protocol.Message
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_concierge_messages_conversation", "conversation_id", "id"),
)

STATE_TABLES += [conversations, conversation_messages]
