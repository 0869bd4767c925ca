"""Calls bound to Twilio's signed webhook: a one-time call credential, and webhook replays refused.

The socket's X-Twilio-Signature covers only its URL, the same for every call, so it proves nothing about
which call a socket is. The call is named by the signed POST /phone/twiml instead: its TwiML carries a
credential as `<Parameter name="concierge_call" value=...>` inside `<ConversationRelay>`, which Twilio
passes back in the socket's `setup.customParameters`:

    <expires>.<nonce>.<mac>     mac = HMAC-SHA256(key, CallSid, From, expires, nonce), base64url

The key is derived from TWILIO_AUTH_TOKEN (every server process behind one number shares it). A `setup`
is admitted only with a credential whose mac matches the setup's own callSid and from (both `clean`ed),
that has not expired (`LIFETIME_S` after the TwiML) and that no socket has used before.

One-time across processes: a used credential leaves a marker in the state database's one-time token
table, `concierge_confirmations` (token_hash = SHA-256 of the credential, tool "phone call", the call
in args, used_at set), inserted with ON CONFLICT DO NOTHING: the second socket to present it inserts
nothing and is refused. A marker is deleted once its credential has expired (the mac refuses it then).
A signed POST /phone/twiml leaves a marker too (tool "phone webhook", the hash of its signature and
parameters), kept `REPLAY_WINDOW`: the same POST again is a replay and gets 403. Twilio signs no time,
so a replay older than that window would be taken, and its credential binds it to that old call only.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta

from concierge.storage import state as schema
from concierge.storage.database import Database
from concierge.storage.insert_once import insert_once
from concierge.web.phone.identity import CallIdentity

PARAMETER = "concierge_call"  # the <Parameter> name; Twilio gives it back in setup.customParameters
TICKET = "ticket"  # the relay URL's query parameter in the TwiML, checked at the socket's handshake
LIFETIME_S = 60  # TwiML to the socket's setup takes Twilio a second or two
REPLAY_WINDOW = timedelta(hours=24)  # a call lasts at most 4 hours by Twilio's default
CALL_MARKER = "phone call"  # the `tool` of the markers: no tool has a space in its name
WEBHOOK_MARKER = "phone webhook"
_KEY_PURPOSE = b"concierge phone call credential v1"


class Credentials:
    """Issues call credentials and redeems them once; `token`: TWILIO_AUTH_TOKEN ("" refuses every one)."""

    def __init__(self, token: str, state: Database, user: str, lifetime_s: float = LIFETIME_S):
        self._key = hmac.new(token.encode(), _KEY_PURPOSE, hashlib.sha256).digest() if token else b""
        self.state, self.user, self.lifetime_s = state, user, lifetime_s

    def issue(self, call: CallIdentity, now: float | None = None) -> str:
        """The credential for the call a signed POST /phone/twiml named."""
        expires = int((time.time() if now is None else now) + self.lifetime_s)
        nonce = secrets.token_urlsafe(12)
        return f"{expires}.{nonce}.{self._mac(call, expires, nonce)}"

    def ticket(self, now: float | None = None) -> str:
        """The relay URL's mark for one TwiML (`TICKET`): each call's socket URL, and so its handshake
        signature, is its own, and a captured handshake opens at most one socket, within `lifetime_s`."""
        expires = int((time.time() if now is None else now) + self.lifetime_s)
        nonce = secrets.token_urlsafe(9)
        return f"{expires}.{nonce}.{self._ticket_mac(expires, nonce)}"

    def ticket_valid(self, ticket: object, now: float | None = None) -> bool:
        if not self._key or not isinstance(ticket, str):
            return False
        expires, _, rest = ticket.partition(".")
        nonce, _, mac = rest.partition(".")
        if not (expires.isascii() and expires.isdigit() and len(expires) <= 12):
            return False
        fresh = int(expires) >= (time.time() if now is None else now)
        return fresh and hmac.compare_digest(mac.encode("utf-8", "surrogatepass"),
                                             self._ticket_mac(int(expires), nonce).encode())

    def _ticket_mac(self, expires: int, nonce: str) -> str:
        message = f"ticket\n{expires}\n{nonce}".encode("utf-8", "surrogatepass")
        return base64.urlsafe_b64encode(hmac.new(self._key, message, hashlib.sha256).digest()).decode().rstrip("=")

    def redeem(self, credential: object, call: CallIdentity, now: float | None = None) -> str | None:
        """Use the credential for the call a `setup` names; returns why it cannot be used, or None."""
        reason = self._invalid(credential, call, time.time() if now is None else now)
        if reason is not None:
            return reason
        assert isinstance(credential, str)
        args = {"callSid": call.call_sid, "from": call.caller}
        if not self._mark(CALL_MARKER, credential, args, timedelta(seconds=self.lifetime_s)):
            return "the call credential was already used: a call has one socket"
        return None

    def first_webhook(self, url: str, params: Mapping[str, str], signature: str) -> bool:
        """False when a request with this signature was taken before (within `REPLAY_WINDOW`): a replay. The
        signature alone says it: Twilio signs the names and values run together, so a body changed where that
        text stays the same (an empty field added, a name's end moved into its value) carries the same one."""
        digest = json.dumps([url, signature], ensure_ascii=True)
        return self._mark(WEBHOOK_MARKER, digest, {"callSid": params.get("CallSid", "")}, REPLAY_WINDOW)

    def _invalid(self, credential: object, call: CallIdentity, now: float) -> str | None:
        if not self._key:
            return "no call credential can be checked: TWILIO_AUTH_TOKEN is not set"
        if not isinstance(credential, str) or not credential:
            return f"the setup carries no call credential (customParameters.{PARAMETER})"
        expires, _, rest = credential.partition(".")
        nonce, _, mac = rest.partition(".")
        if not (expires.isascii() and expires.isdigit() and len(expires) <= 12) or not hmac.compare_digest(
                mac.encode("utf-8", "surrogatepass"), self._mac(call, int(expires), nonce).encode()):
            return "the call credential is not the one issued for this callSid and from"
        if int(expires) < now:
            return "the call credential has expired"
        return None

    def _mac(self, call: CallIdentity, expires: int, nonce: str) -> str:
        message = "\n".join([call.call_sid, call.caller, str(expires), nonce]).encode("utf-8", "surrogatepass")
        return base64.urlsafe_b64encode(hmac.new(self._key, message, hashlib.sha256).digest()).decode().rstrip("=")

    def _mark(self, kind: str, value: str, args: dict[str, str], keep: timedelta) -> bool:
        """Leave the one-time marker of `value`; False when it was there already. Markers older than `keep`
        are deleted on the way."""
        table, now = schema.confirmations, datetime.now(UTC)
        row = {"token_hash": hashlib.sha256(f"{kind}\n{value}".encode()).hexdigest(), "user_name": self.user,
               "tool": kind, "args": json.dumps(args, sort_keys=True, ensure_ascii=False), "created_at": now,
               "used_at": now}
        with self.state.write() as conn:
            conn.execute(table.delete().where(table.c.tool == kind, table.c.created_at < now - keep))
            return insert_once(conn, table, row)
