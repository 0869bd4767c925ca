"""The call credential (`concierge.web.phone.credential`) and the identity values' text check, on their own:
good once, for its own call, until it expires, in every server process sharing the state database."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa

from concierge.storage import state
from concierge.storage.database import Database
from concierge.storage.migrate import ensure_state
from concierge.web.phone.credential import CALL_MARKER, LIFETIME_S, Credentials
from concierge.web.phone.identity import MAX_LENGTH, CallIdentity, clean

CALL = CallIdentity.of("CA" + "1" * 32, "+819012345678")


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def state_url(request) -> str:
    return request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url")


@pytest.fixture
def state_db(state_url) -> Iterator[Database]:
    db = Database(state_url)
    ensure_state(db)
    yield db
    db.dispose()


def test_a_credential_is_good_once_for_its_own_call_until_it_expires(state_db):
    credentials = Credentials("token", state_db, "phone")
    now = time.time()
    used_up, expired = credentials.issue(CALL, now), credentials.issue(CALL, now - LIFETIME_S - 1)
    assert credentials.redeem(used_up, CallIdentity.of(CALL.call_sid, "+819099999999")) is not None  # other from
    assert credentials.redeem(used_up, CallIdentity.of("CA" + "2" * 32, CALL.caller)) is not None  # other call
    assert credentials.redeem(used_up, CALL) is None
    assert "already used" in (credentials.redeem(used_up, CALL) or "")
    assert "expired" in (credentials.redeem(expired, CALL) or "")


@pytest.mark.parametrize("credential", [None, "", 42, "nonsense", "1.2.3", "99999999999.n.\ud800", "١٢٣.n.mac"])
def test_a_malformed_or_forged_credential_is_refused(state_db, credential):
    assert Credentials("token", state_db, "phone").redeem(credential, CALL) is not None


def test_a_credential_of_another_auth_token_or_without_one_is_refused(state_db):
    other = Credentials("another-token", state_db, "phone").issue(CALL)
    assert "not the one issued" in (Credentials("token", state_db, "phone").redeem(other, CALL) or "")
    assert "TWILIO_AUTH_TOKEN" in (Credentials("", state_db, "phone").redeem(other, CALL) or "")


def test_used_credentials_are_one_time_across_processes_and_forgotten_once_expired(state_url, state_db):
    second_process = Database(state_url)
    try:
        here, there = Credentials("token", state_db, "phone"), Credentials("token", second_process, "phone")
        credential = here.issue(CALL)
        assert here.redeem(credential, CALL) is None
        assert "already used" in (there.redeem(credential, CALL) or "")
        assert here.first_webhook("https://x/phone/twiml", {"CallSid": "CA1"}, "sig")
        assert not there.first_webhook("https://x/phone/twiml", {"CallSid": "CA1"}, "sig")
    finally:
        second_process.dispose()
    table = state.confirmations
    with state_db.write() as conn:
        conn.execute(table.update().where(table.c.tool == CALL_MARKER).values(
            created_at=datetime.now(UTC) - timedelta(seconds=LIFETIME_S + 5)))
    Credentials("token", state_db, "phone", lifetime_s=LIFETIME_S).redeem(here.issue(CALL), CALL)
    with state_db.read() as conn:
        markers = conn.scalar(sa.select(sa.func.count()).select_from(table).where(table.c.tool == CALL_MARKER))
    assert markers == 1  # the expired call's marker went; the new one stays


def test_identity_values_lose_lone_surrogates_and_control_characters():
    assert clean("+8190\ud800\x00\u202e1234\n") == "+8190\ufffd1234"
    assert clean(None) == "" and clean(819012345678) == "819012345678"
    assert len(clean("9" * 500)) == MAX_LENGTH
    call = CallIdentity.of("CA\u0000abc\udfff", "+81 90\u200b1234")
    assert (call.call_sid, call.caller, call.source) == ("CAabc\ufffd", "+81 901234", "phone CAabc\ufffd")
    assert call.session_id == "tel81901234_CAabc"
    call.source.encode("utf-8")  # every encoder takes it
