"""The OAuth grants of MCP hosts in the state database, on SQLite and PostgreSQL: a code works once, a refresh
token works once, a refresh token presented twice ends its grant, and a removed user's tokens stop working."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from concierge.storage import oauth, users
from concierge.storage.database import Database

RESOURCE = "https://concierge.example/mcp"


@pytest.fixture
def db(db_url) -> Iterator[Database]:
    database = Database(db_url)
    yield database
    database.dispose()


def _granted(db: Database, user: str = "tanaka") -> oauth.Issued:
    consent = oauth.Consent("https://host.example/client.json", "Host", user, ("tools",), RESOURCE)
    code = oauth.issue_code(db, consent, code_challenge="c", redirect_uri="https://host.example/cb",
                            redirect_explicit=True)
    issued = oauth.exchange_code(db, code)
    assert issued is not None
    return issued


def test_a_code_works_once_and_presented_again_ends_what_it_gave(db):
    consent = oauth.Consent("https://host.example/client.json", "Host", "tanaka", ("tools",), RESOURCE)
    code = oauth.issue_code(db, consent, code_challenge="c", redirect_uri="https://host.example/cb",
                            redirect_explicit=True)
    issued = oauth.exchange_code(db, code)
    assert issued is not None and oauth.check_access(db, issued.access_token) is not None
    assert oauth.exchange_code(db, code) is None
    assert oauth.check_access(db, issued.access_token) is None


def test_a_grant_is_its_users_and_a_refresh_token_works_once(db):
    issued = _granted(db)
    access = oauth.check_access(db, issued.access_token)
    assert access is not None and access.consent.user_name == "tanaka" and access.consent.resource == RESOURCE
    assert oauth.check_access(db, issued.refresh_token) is None  # a refresh token is no access token

    renewed = oauth.refresh(db, issued.refresh_token, ("tools",))
    assert oauth.check_access(db, renewed.access_token) is not None
    with pytest.raises(oauth.GrantReused):
        oauth.refresh(db, issued.refresh_token, ("tools",))
    assert oauth.check_access(db, renewed.access_token) is None  # the whole grant ended
    assert oauth.check_access(db, issued.access_token) is None
    [grant] = oauth.list_grants(db, "tanaka")
    assert grant.state == "revoked"


def test_revoking_a_grant_or_removing_its_user_stops_its_tokens(db):
    first, second = _granted(db), _granted(db, "suzuki")
    [grant] = oauth.list_grants(db, "tanaka")
    assert oauth.revoke_grant(db, grant.id).state == "revoked"
    assert oauth.check_access(db, first.access_token) is None
    assert oauth.load_refresh(db, first.refresh_token) is None
    users.remove(db, "suzuki")
    assert oauth.check_access(db, second.access_token) is None
