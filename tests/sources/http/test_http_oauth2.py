"""OAuth 2.0 for http sources, against a local provider and API that check the wire format strictly
(tests/sources/http/oauth_wire.py): client credentials (Basic and form), the authorization code flow with PKCE
driven in Chromium through `concierge services authorize`, renewal before expiry, a 401 recovered once, a revoked
grant, and no secret in results, audit lines, errors or `concierge config show`."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import browsers
import pytest
import sqlalchemy as sa
from click.testing import CliRunner
from tests.sources.http.oauth_wire import AC_SECRET, CC_SECRET, POST_SECRET, providing

from concierge.catalog.loader import parse_catalog
from concierge.cli import main
from concierge.pipeline import audit
from concierge.pipeline.pipeline import Pipeline
from concierge.storage import users
from concierge.storage.database import Database
from concierge.storage.migrate import ensure_state
from concierge.storage.source_grants import GrantStore
from concierge.storage.state import source_grants

CATALOG_FILE = Path(__file__).parent / "oauth.yaml"
SEALING_KEY = "test-sealing-key-0123456789abcdef"


@pytest.fixture
def provider():
    with providing() as running:
        yield running


@pytest.fixture
def variables(provider, monkeypatch):
    found = {"API_URL": provider.base_url, "CC_SECRET": CC_SECRET, "POST_SECRET": POST_SECRET, "AC_SECRET": AC_SECRET}
    for name, value in {**found, "CONCIERGE_SECRET": SEALING_KEY}.items():
        monkeypatch.setenv(name, value)
    return found


def open_pipeline(tmp_path, variables) -> Pipeline:
    db = Database(f"sqlite:///{tmp_path / 'state.db'}")
    ensure_state(db)
    users.add(db, "clerk", "staff")
    return Pipeline([parse_catalog(CATALOG_FILE.read_text(encoding="utf-8"), "oauth.yaml", variables)], db)


@pytest.fixture
def p(tmp_path, variables):
    pipeline = open_pipeline(tmp_path, variables)
    yield pipeline
    pipeline.close()


def call(p: Pipeline, tool: str, args=None):
    return p.invoke(tool, args or {}, p.user("clerk"))


def test_client_credentials_ask_once_with_basic_auth_and_send_the_bearer_token(p, provider):
    assert call(p, "list_robots").rows == [{"name": "robot-1"}, {"name": "robot-2"}]
    assert call(p, "list_robots").status == "ok"
    [asked] = provider.token_requests
    assert asked["grant_type"] == "client_credentials" and asked["scope"] == "devices:read"
    assert asked["authorization"].startswith("Basic ") and "client_secret" not in asked
    token = asked and next(iter(provider.access))
    assert [r["authorization"] for r in provider.api_requests] == [f"Bearer {token}"] * 2
    assert provider.problems == []


def test_client_secret_post_sends_the_id_and_secret_in_the_form(p, provider):
    assert call(p, "list_posted").status == "ok"
    [asked] = provider.token_requests
    assert asked["client_id"] == "post-client" and asked["client_secret"] == POST_SECRET
    assert asked["authorization"] == "" and "scope" not in asked
    assert provider.problems == []


def test_a_token_is_renewed_shortly_before_it_expires(p, provider):
    provider.expires_in = 100
    now = [1000.0]
    p.http.caller._client("oauthtest", "robots").tokens.clock = lambda: now[0]  # type: ignore[union-attr]
    call(p, "list_robots")
    now[0] += 89  # within its life less 10 s (a tenth of 100 s)
    call(p, "list_robots")
    assert len(provider.token_requests) == 1
    now[0] += 2
    call(p, "list_robots")
    assert len(provider.token_requests) == 2
    assert len({r["authorization"] for r in provider.api_requests}) == 2
    assert len(provider.api_requests) == 3  # no request met a 401


def test_a_401_for_an_expired_token_gets_a_new_token_and_is_sent_once_more(p, provider):
    call(p, "list_robots")
    provider.expire_access()  # the service ends the token before its expires_in
    assert call(p, "list_robots").status == "ok"
    assert len(provider.token_requests) == 2 and len(provider.api_requests) == 3
    provider.expire_access()
    assert call(p, "start_robot").status == "ok"  # a write too: the 401 said invalid_token, so nothing was done
    assert [r["method"] for r in provider.api_requests[-2:]] == ["POST", "POST"]


def test_a_401_that_stays_is_not_tried_again_and_again(p, provider):
    provider.always_401 = True
    result = call(p, "list_robots")
    assert result.status == "error"
    assert len(provider.api_requests) == 2 and len(provider.token_requests) == 2  # once more, and no further


def test_a_refused_client_secret_says_what_to_check_and_never_shows_it(tmp_path, variables, provider):
    wrong = "wrong-secret-77aa88bb"
    p = open_pipeline(tmp_path, {**variables, "CC_SECRET": wrong})
    result = call(p, "list_robots")
    assert result.status == "error"
    assert "invalid_client" in (result.message or "") and "client_id and client_secret" in (result.message or "")
    assert "Nothing was sent" in (result.message or "") and "クライアント認証を拒否" in (result.message_ja or "")
    assert provider.api_requests == []
    shown = str(result.to_json()) + str(audit.latest(p.state, 5)) + p.catalogs[0].spec.model_dump_json()
    shown += repr(p.catalogs[0]) + repr(p.catalogs[0].sources)
    assert wrong not in shown and CC_SECRET not in shown and AC_SECRET not in shown
    p.close()


def test_config_show_shows_no_client_secret(tmp_path, variables, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = CliRunner().invoke(main, ["config", "show", "--catalog", str(CATALOG_FILE), "--json"])
    assert out.exit_code == 0, out.output
    assert CC_SECRET not in out.output and AC_SECRET not in out.output and SEALING_KEY not in out.output


def test_without_a_grant_the_message_says_to_authorize(p, provider):
    result = call(p, "list_events")
    assert result.status == "error" and "concierge services authorize calendar" in (result.message or "")
    assert provider.api_requests == []


def test_a_revoked_grant_says_to_authorize_again(p, provider):
    GrantStore(p.state).put("calendar", "rt-that-was-revoked", "calendar")
    result = call(p, "list_events")
    assert result.status == "error"
    assert "revoked" in (result.message or "") and "run `concierge services authorize calendar` again" in (
        result.message or "")
    assert "取り消された" in (result.message_ja or "") and "rt-that-was-revoked" not in str(result.to_json())
    assert provider.api_requests == []


def _authorize_in_chromium(tmp_path, monkeypatch, answer: str = "Allow"):
    """`concierge services authorize calendar`, its consent page answered in Chromium."""
    opened: list[str] = []
    monkeypatch.setattr("webbrowser.open", opened.append)
    monkeypatch.chdir(tmp_path)
    state_url = f"sqlite:///{tmp_path / 'state.db'}"
    done: dict = {}
    args = ["services", "authorize", "calendar", "--catalog", str(CATALOG_FILE), "--state-database", state_url,
            "--database", state_url, "--timeout", "20"]
    runner = threading.Thread(target=lambda: done.setdefault("out", CliRunner().invoke(main, args)))
    runner.start()
    deadline = time.monotonic() + 10
    while not opened and time.monotonic() < deadline:
        time.sleep(0.02)
    assert opened, "the authorization URL was never opened"
    with browsers.chromium() as chromium:
        page = chromium.new_page()
        page.goto(opened[0])
        page.get_by_role("button", name=answer).click()
        page.wait_for_url("http://127.0.0.1:*/callback?*")
        text = page.content()
    runner.join(20)
    return done["out"], text, opened[0]


def test_authorization_code_with_pkce_through_the_browser_then_refresh_and_rotation(tmp_path, variables, provider,
                                                                                     monkeypatch):
    out, page, url = _authorize_in_chromium(tmp_path, monkeypatch)
    assert out.exit_code == 0, out.output
    assert "concierge has access to calendar (scope: calendar offline_access)" in out.output
    assert "code_challenge_method=S256" in url and "redirect_uri=http%3A%2F%2F127.0.0.1%3A" in url
    assert "You can close this tab" in page
    exchange = provider.token_requests[-1]
    assert exchange["grant_type"] == "authorization_code" and len(exchange["code_verifier"]) >= 43
    assert exchange["authorization"].startswith("Basic ") and provider.problems == []
    [first_refresh] = provider.refresh
    db = Database(f"sqlite:///{tmp_path / 'state.db'}")
    with db.engine.connect() as conn:
        stored = conn.execute(sa.select(source_grants)).one()
    assert stored.refresh_token.startswith("sealed:") and first_refresh not in stored.refresh_token
    db.dispose()

    users.add(Database(f"sqlite:///{tmp_path / 'state.db'}"), "clerk", "staff")
    p = Pipeline([parse_catalog(CATALOG_FILE.read_text(encoding="utf-8"), "oauth.yaml", variables)],
                 Database(f"sqlite:///{tmp_path / 'state.db'}"))
    assert call(p, "list_events").rows == [{"name": "robot-1"}, {"name": "robot-2"}]
    refreshed = provider.token_requests[-1]
    assert refreshed["grant_type"] == "refresh_token" and refreshed["refresh_token"] == first_refresh
    grant = GrantStore(p.state).get("calendar")
    assert grant is not None and grant.refresh_token != first_refresh and grant.refresh_token in provider.refresh
    provider.expire_access()
    assert call(p, "list_events").status == "ok"  # a 401: a new access token from the rotated refresh token
    provider.revoke_all()
    result = call(p, "list_events")
    assert "concierge services authorize calendar` again" in (result.message or "")
    assert AC_SECRET not in str(audit.latest(p.state, 10)) + (result.message or "")
    p.close()


def test_saying_no_on_the_consent_page_stores_nothing(tmp_path, variables, provider, monkeypatch):
    out, page, _ = _authorize_in_chromium(tmp_path, monkeypatch, answer="Deny")
    assert out.exit_code == 2 and "access_denied" in out.output
    assert "Access was not given" in page
    db = Database(f"sqlite:///{tmp_path / 'state.db'}")
    assert GrantStore(db).get("calendar") is None
    db.dispose()
