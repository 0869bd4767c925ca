"""The headers that authenticate one request, per `auth.kind` (docs/catalog.md)."""

from __future__ import annotations

from concierge.catalog.secrets import ResolvedAuth
from concierge.sources.http import switchbot


def auth_headers(auth: ResolvedAuth | None) -> dict[str, str]:
    """The authentication headers of one request; `switchbot` signs afresh (new t and nonce) each time."""
    if auth is None:
        return {}
    if auth.kind == "bearer":
        return {"Authorization": f"Bearer {auth.token}"}
    if auth.kind == "header":
        return {auth.name: auth.value}
    if auth.kind == "switchbot":
        return switchbot.headers(auth.token, auth.secret)
    raise ValueError(f"unknown auth kind {auth.kind!r}")
